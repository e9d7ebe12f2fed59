//! Writing canonical bytes (rules R2 to R10).

use crate::error::{Error, ErrorCode};
use crate::parse::MAX_DEPTH;
use crate::value::CanonicalValue;

/// The canonical bytes of a value (rules R2 to R10): what Python writes with
/// `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
/// allow_nan=False)`.
///
/// ```
/// use empiric_proof::{canonicalize_bytes, parse};
///
/// let v = parse(r#"{ "b": [1, 2.50, 1e16], "a": "caf\u00e9 😀" }"#).unwrap();
/// assert_eq!(
///     canonicalize_bytes(&v).unwrap(),
///     br#"{"a":"caf\u00e9 \ud83d\ude00","b":[1,2.5,1e+16]}"#
/// );
/// ```
///
/// # Errors
///
/// `non_finite_number` for a NaN or infinite float, `depth_exceeded` for more than
/// [`MAX_DEPTH`] nested arrays/objects.
pub fn canonicalize_bytes(value: &CanonicalValue) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    write_canonical(&mut out, value)?;
    Ok(out)
}

/// The canonical text of a value; the same bytes as [`canonicalize_bytes`], as a `String`
/// (canonical text is always ASCII).
///
/// ```
/// use empiric_proof::{canonicalize, CanonicalValue};
/// assert_eq!(canonicalize(&CanonicalValue::from(1e-7)).unwrap(), "1e-07");
/// assert_eq!(canonicalize(&CanonicalValue::from(f64::NAN)).unwrap_err().code(), "non_finite_number");
/// ```
///
/// # Errors
///
/// As [`canonicalize_bytes`].
pub fn canonicalize(value: &CanonicalValue) -> Result<String, Error> {
    // Canonical bytes are ASCII, so the conversion always succeeds.
    Ok(match String::from_utf8(canonicalize_bytes(value)?) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Appends the canonical bytes of `value` to `out`, so that one buffer can be reused.
///
/// On error, `out` may hold a partial write.
///
/// ```
/// use empiric_proof::{write_canonical, CanonicalValue};
/// let mut out = b"prefix:".to_vec();
/// write_canonical(&mut out, &CanonicalValue::from(vec![1, 2])).unwrap();
/// assert_eq!(out, b"prefix:[1,2]");
/// ```
///
/// # Errors
///
/// As [`canonicalize_bytes`].
pub fn write_canonical(out: &mut Vec<u8>, value: &CanonicalValue) -> Result<(), Error> {
    write_value(out, value, 0)
}

pub(crate) fn depth_error() -> Error {
    Error::new(
        ErrorCode::DepthExceeded,
        format!("more than {MAX_DEPTH} nested arrays/objects"),
    )
}

/// `depth` is the number of containers around `value`; recursion is bounded by [`MAX_DEPTH`].
pub(crate) fn write_value(
    out: &mut Vec<u8>,
    value: &CanonicalValue,
    depth: usize,
) -> Result<(), Error> {
    match value {
        CanonicalValue::Null => out.extend_from_slice(b"null"),
        CanonicalValue::Bool(true) => out.extend_from_slice(b"true"),
        CanonicalValue::Bool(false) => out.extend_from_slice(b"false"),
        CanonicalValue::Int(i) => write_int(out, *i),
        CanonicalValue::Float(f) => write_float(out, *f)?,
        CanonicalValue::String(s) => write_string(out, s),
        CanonicalValue::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(depth_error());
            }
            out.push(b'[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write_value(out, item, depth + 1)?;
            }
            out.push(b']');
        }
        CanonicalValue::Object(map) => {
            if depth >= MAX_DEPTH {
                return Err(depth_error());
            }
            out.push(b'{');
            for (k, (key, item)) in map.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write_string(out, key);
                out.push(b':');
                write_value(out, item, depth + 1)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

const HEX: &[u8; 16] = b"0123456789abcdef";
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// How each byte is written inside a string: 0 as itself, `u` as `\u00xx`, a letter or
/// punctuation as that short escape, 1 for the lead byte of a non-ASCII character, 2 for a
/// continuation byte.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 0x20 {
        table[c] = b'u';
        c += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[0x7f] = b'u';
    let mut c = 0x80;
    while c < 0x100 {
        table[c] = if c < 0xc0 { 2 } else { 1 };
        c += 1;
    }
    table
};

fn write_u_escape(out: &mut Vec<u8>, unit: u32) {
    out.extend_from_slice(&[
        b'\\',
        b'u',
        HEX[(unit >> 12 & 0xf) as usize],
        HEX[(unit >> 8 & 0xf) as usize],
        HEX[(unit >> 4 & 0xf) as usize],
        HEX[(unit & 0xf) as usize],
    ]);
}

/// Writes a string with the escapes of rule R5 (ASCII output, `\uxxxx` in lowercase hex,
/// characters above U+FFFF as a surrogate pair).
pub(crate) fn write_string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + 8) {
            // Eight bytes at a time up to one that is written otherwise.
            let x = crate::tape::word(chunk);
            let special = (x & HI)
                | crate::tape::bytes_equal(x, b'"')
                | crate::tape::bytes_equal(x, b'\\')
                | crate::tape::bytes_equal(x, 0x7f)
                | (x.wrapping_sub(LO * 0x20) & !x & HI);
            if special == 0 {
                i += 8;
                continue;
            }
            // The lowest flagged byte is exact (a false flag only sits above a true one).
            i += (special.trailing_zeros() / 8) as usize;
        }
        let escape = ESCAPE[usize::from(bytes[i])];
        if escape == 0 {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[run..i]);
        match escape {
            b'u' => {
                write_u_escape(out, u32::from(bytes[i]));
                i += 1;
            }
            1 | 2 => {
                // A non-ASCII character; `i` is at its first byte since runs stop only there.
                let c = s
                    .get(i..)
                    .and_then(|rest| rest.chars().next())
                    .unwrap_or('\u{fffd}');
                let cp = u32::from(c);
                if cp >= 0x10000 {
                    let v = cp - 0x10000;
                    write_u_escape(out, 0xD800 + (v >> 10));
                    write_u_escape(out, 0xDC00 + (v & 0x3ff));
                } else {
                    write_u_escape(out, cp);
                }
                i += c.len_utf8();
            }
            short => {
                out.extend_from_slice(&[b'\\', short]);
                i += 1;
            }
        }
        run = i;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// Writes an int in decimal (rule R6).
pub(crate) fn write_int(out: &mut Vec<u8>, value: i64) {
    let mut buf = [0u8; 20];
    let mut n = value.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if value < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[i..]);
}

/// Writes a finite float as Python's `repr` (rule R7): the shortest round-tripping digits
/// (from Zmij), in fixed notation when the decimal exponent is in -4..16, otherwise in
/// exponent notation with a sign and at least two exponent digits.
pub(crate) fn write_float(out: &mut Vec<u8>, value: f64) -> Result<(), Error> {
    if !value.is_finite() {
        return Err(Error::new(
            ErrorCode::NonFiniteNumber,
            format!("the float {value} has no canonical form"),
        ));
    }
    if value.is_sign_negative() {
        out.push(b'-');
    }
    if value == 0.0 {
        out.extend_from_slice(b"0.0");
        return Ok(());
    }
    let mut buffer = zmij::Buffer::new();
    let shortest = buffer.format_finite(value.abs());
    // Zmij (like Ryu) writes fixed notation with at least one fractional digit for decimal
    // exponents -5..=15, like Python does for -4..=15: such output is already canonical.
    if !shortest.contains('e') && !shortest.starts_with("0.0000") {
        out.extend_from_slice(shortest.as_bytes());
        return Ok(());
    }
    let (digits, exponent) = Digits::of(shortest);
    let digits = digits.as_slice();
    let n = digits.len();
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let whole = exponent as usize + 1;
            if n <= whole {
                out.extend_from_slice(digits);
                out.resize(out.len() + (whole - n), b'0');
                out.extend_from_slice(b".0");
            } else {
                out.extend_from_slice(&digits[..whole]);
                out.push(b'.');
                out.extend_from_slice(&digits[whole..]);
            }
        } else {
            out.extend_from_slice(b"0.");
            out.resize(out.len() + (-exponent - 1) as usize, b'0');
            out.extend_from_slice(digits);
        }
    } else {
        out.push(digits[0]);
        if n > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exponent < 0 { b'-' } else { b'+' });
        let magnitude = exponent.unsigned_abs();
        if magnitude < 10 {
            out.push(b'0');
        }
        write_int(out, i64::from(magnitude));
    }
    Ok(())
}

/// The significant digits of a positive decimal number text, without leading or trailing
/// zeros (never empty for a non-zero number).
struct Digits {
    buf: [u8; 32],
    len: usize,
}

impl Digits {
    fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Splits a positive number text like `123.45`, `0.0001`, `1e16` or `1.5e-7` (Zmij's
    /// layouts) into its significant digits and the decimal exponent of the first digit.
    fn of(text: &str) -> (Digits, i32) {
        let (mantissa, exp) = match text.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
            None => (text, 0),
        };
        let mut digits = Digits {
            buf: [0; 32],
            len: 0,
        };
        let mut point = None;
        let mut leading_zeros = 0i32;
        for &c in mantissa.as_bytes() {
            match c {
                b'.' => point = Some(digits.len + leading_zeros as usize),
                b'0' if digits.len == 0 => leading_zeros += 1,
                b'0'..=b'9' if digits.len < digits.buf.len() => {
                    digits.buf[digits.len] = c;
                    digits.len += 1;
                }
                _ => {}
            }
        }
        while digits.len > 1 && digits.buf[digits.len - 1] == b'0' {
            digits.len -= 1;
        }
        if digits.len == 0 {
            digits.buf[0] = b'0';
            digits.len = 1;
        }
        let whole = point.unwrap_or(mantissa.len()) as i32;
        (digits, whole - 1 - leading_zeros + exp)
    }
}
