//! Parsing entry points (rule R11); the parser itself is in `tape.rs`.

use crate::error::{Error, ErrorCode};
use crate::tape::{self, Tape};
use crate::value::CanonicalValue;

/// The deepest nesting of arrays and objects the wire format accepts (rule R11).
pub const MAX_DEPTH: usize = 512;

/// The largest `max_depth` that [`parse_bytes_with_max_depth`] honours; larger requests are
/// lowered to it so that dropping a parsed value cannot exhaust the stack.
pub const DEPTH_CEILING: usize = 4096;

/// Parses one JSON text into a typed value, following rule R11 of the wire format.
///
/// Number literals containing `.`, `e` or `E` become [`CanonicalValue::Float`], all others
/// [`CanonicalValue::Int`]; duplicate keys, lone surrogates, non-finite numbers, ints outside
/// i64 and nesting deeper than [`MAX_DEPTH`] are errors with their stable codes. The parser is
/// iterative, so hostile nesting cannot exhaust the stack. When the input has several problems
/// the first one met reading left to right is reported, with its byte offset.
///
/// ```
/// use empiric_proof::{parse, CanonicalValue};
///
/// let v = parse(r#"{"int": 1, "float": 1.0, "big": 9007199254740993}"#).unwrap();
/// assert_eq!(v.get("int"), Some(&CanonicalValue::Int(1)));
/// assert_eq!(v.get("float"), Some(&CanonicalValue::Float(1.0)));
/// assert_eq!(v.get("big"), Some(&CanonicalValue::Int(9007199254740993)));
///
/// assert_eq!(parse(r#"{"a":1,"\u0061":2}"#).unwrap_err().code(), "duplicate_key");
/// assert_eq!(parse(&"[".repeat(20_000)).unwrap_err().code(), "depth_exceeded");
/// ```
///
/// # Errors
///
/// `syntax_error`, `duplicate_key`, `lone_surrogate`, `non_finite_number`, `int_out_of_range`
/// or `depth_exceeded`, each with the byte offset where it was met.
pub fn parse(text: &str) -> Result<CanonicalValue, Error> {
    tape::read(text, MAX_DEPTH).map(Tape::into_value)
}

/// Parses UTF-8 bytes of one JSON text; like [`parse`], and bytes that are not well-formed
/// UTF-8 (overlong forms and encoded surrogates included) give `invalid_utf8`.
///
/// The bytes are decoded first, as the TypeScript and Python ports do: input that is not
/// UTF-8 is `invalid_utf8` (at the offset of the first bad byte) whatever else is wrong.
///
/// ```
/// use empiric_proof::parse_bytes;
///
/// assert_eq!(parse_bytes(b"[1, 2.5]").unwrap().as_array().unwrap().len(), 2);
/// assert_eq!(parse_bytes(b"\"\xff\"").unwrap_err().code(), "invalid_utf8");
/// assert_eq!(parse_bytes(b"\xef\xbb\xbf{}").unwrap_err().code(), "syntax_error"); // BOM
/// assert_eq!(parse_bytes(b"[1,] \xff").unwrap_err().code(), "invalid_utf8");
/// ```
///
/// # Errors
///
/// The codes of [`parse`], and `invalid_utf8`.
pub fn parse_bytes(bytes: &[u8]) -> Result<CanonicalValue, Error> {
    parse_bytes_with_max_depth(bytes, MAX_DEPTH)
}

/// Like [`parse_bytes`] with another nesting limit (at most [`DEPTH_CEILING`]).
///
/// This is for reading documents that are not wire-format values, such as the test vector
/// file, whose vectors carry a 512-deep value one level down. Records and signed values are
/// always read with [`MAX_DEPTH`]; canonicalization refuses values deeper than [`MAX_DEPTH`]
/// whatever this parser accepted.
///
/// ```
/// use empiric_proof::parse_bytes_with_max_depth;
///
/// let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
/// assert!(parse_bytes_with_max_depth(deep.as_bytes(), 1000).is_ok());
/// assert_eq!(
///     parse_bytes_with_max_depth(deep.as_bytes(), 512).unwrap_err().code(),
///     "depth_exceeded"
/// );
/// ```
///
/// # Errors
///
/// The codes of [`parse_bytes`].
pub fn parse_bytes_with_max_depth(bytes: &[u8], max_depth: usize) -> Result<CanonicalValue, Error> {
    read_bytes(bytes, max_depth.min(DEPTH_CEILING)).map(Tape::into_value)
}

/// Parses UTF-8 bytes of one JSON text and writes its canonical bytes, without building a
/// [`CanonicalValue`] tree: the same result as [`parse_bytes`] then
/// [`crate::canonicalize_bytes`], faster.
///
/// ```
/// use empiric_proof::canonicalize_json;
///
/// assert_eq!(canonicalize_json(br#"{"b": 1.50, "a": [1e16, "\u00E9"]}"#).unwrap(),
///            br#"{"a":[1e+16,"\u00e9"],"b":1.5}"#);
/// assert_eq!(canonicalize_json(b"[1,]").unwrap_err().code(), "syntax_error");
/// ```
///
/// # Errors
///
/// The codes of [`parse_bytes`].
pub fn canonicalize_json(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let tape = read_bytes(bytes, MAX_DEPTH)?;
    let mut out = Vec::with_capacity(bytes.len());
    tape.write_canonical(&mut out, 0, 0)?;
    Ok(out)
}

/// Reads bytes into a tape: bytes that are not well-formed UTF-8 are `invalid_utf8` before
/// anything else is looked at.
pub(crate) fn read_bytes(bytes: &[u8], max_depth: usize) -> Result<Tape<'_>, Error> {
    match std::str::from_utf8(bytes) {
        Ok(text) => tape::read(text, max_depth),
        Err(utf8) => Err(Error::at(
            ErrorCode::InvalidUtf8,
            utf8.valid_up_to(),
            "the input is not well-formed UTF-8",
        )),
    }
}
