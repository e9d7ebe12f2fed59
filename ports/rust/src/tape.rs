//! The parser proper: a strict, iterative JSON reader that records the document as a flat
//! "tape" of nodes borrowing from the input, with each object's members sorted once.
//!
//! The tape is turned into a [`CanonicalValue`] tree by [`Tape::into_value`], or written as
//! canonical bytes directly by [`Tape::write_canonical`] (no per-string allocation), which is
//! what record verification uses.

use std::collections::BTreeMap;

use crate::canonical::{write_float, write_int, write_string};
use crate::error::{Error, ErrorCode};
use crate::value::CanonicalValue;

/// The text of a string or key.
pub(crate) enum Text<'a> {
    /// Printable ASCII without `"` or `\`: written between quotes as it is.
    Plain(&'a str),
    /// Taken from the input as it is, but holds characters that canonical form escapes.
    Raw(&'a str),
    /// Unescaped from a string that had escapes.
    Owned(String),
}

impl Text<'_> {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Text::Plain(s) | Text::Raw(s) => s,
            Text::Owned(s) => s,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Text::Plain(s) => {
                out.reserve(s.len() + 2);
                out.push(b'"');
                out.extend_from_slice(s.as_bytes());
                out.push(b'"');
            }
            other => write_string(out, other.as_str()),
        }
    }

    fn into_string(self) -> String {
        match self {
            Text::Plain(s) | Text::Raw(s) => s.to_owned(),
            Text::Owned(s) => s,
        }
    }
}

/// One node of the tape, in document order. An object's members follow it as key, value,
/// key, value...; `end` is the index after a container's last descendant.
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A float literal that is already in canonical form (and finite).
    CanonicalFloat(&'a str),
    Str(Text<'a>),
    Array {
        end: usize,
    },
    /// `order[first..first + len]` are the key node indices sorted by key.
    Object {
        end: usize,
        first: usize,
        len: usize,
    },
}

/// A parsed document.
pub(crate) struct Tape<'a> {
    pub(crate) nodes: Vec<Node<'a>>,
    order: Vec<usize>,
}

/// A key of an object being parsed.
#[derive(Clone, Copy)]
struct Key {
    /// The first sixteen bytes of the key, big-endian and zero-padded: comparing these first
    /// orders keys as comparing the whole keys does, when they differ.
    prefix: (u64, u64),
    /// The key's length in bytes.
    len: usize,
    /// The key's node index.
    node: usize,
    /// The key's byte offset in the input.
    offset: usize,
}

/// Bytes of a key held in [`Key::prefix`].
const PREFIX_LEN: usize = 16;

impl Key {
    #[inline]
    fn prefix_of(key: &str) -> (u64, u64) {
        let bytes = key.as_bytes();
        if let Some(&head) = bytes.first_chunk::<PREFIX_LEN>() {
            let head = u128::from_be_bytes(head);
            return ((head >> 64) as u64, head as u64);
        }
        let mut head = [0u8; PREFIX_LEN];
        head[..bytes.len()].copy_from_slice(bytes);
        let head = u128::from_be_bytes(head);
        ((head >> 64) as u64, head as u64)
    }
}

/// A container that is open while parsing.
struct Open {
    node: usize,
    /// For objects: where this object's keys start in `Builder::keys`.
    keys_from: Option<usize>,
}

/// Reads `text` into a tape; `max_depth` bounds the nesting.
pub(crate) fn read(text: &str, max_depth: usize) -> Result<Tape<'_>, Error> {
    let mut builder = Builder {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth,
        nodes: Vec::with_capacity(text.len() / 16 + 1),
        order: Vec::new(),
        open: Vec::new(),
        keys: Vec::new(),
    };
    match builder.run() {
        Ok(()) => Ok(Tape {
            nodes: builder.nodes,
            order: builder.order,
        }),
        Err(err) => Err(builder.earliest(err)),
    }
}

fn syntax(offset: usize, message: &str) -> Error {
    Error::at(ErrorCode::SyntaxError, offset, message)
}

const END_OF_INPUT: &str = "unexpected end of input";
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Bytes of `x` equal to `b` have their high bit set in the result (exact for "any").
#[inline]
fn bytes_equal(x: u64, b: u8) -> u64 {
    let y = x ^ (LO * u64::from(b));
    y.wrapping_sub(LO) & !y & HI
}

struct Builder<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
    nodes: Vec<Node<'a>>,
    order: Vec<usize>,
    open: Vec<Open>,
    /// Every key of every open object.
    keys: Vec<Key>,
}

impl<'a> Builder<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// An error for the byte at `offset`: end of input, or an unexpected character.
    fn unexpected(&self, offset: usize, expected: &str) -> Error {
        match self.text.get(offset..).and_then(|rest| rest.chars().next()) {
            None => syntax(offset, END_OF_INPUT),
            Some(c) => Error::at(
                ErrorCode::SyntaxError,
                offset,
                format!("unexpected character {c:?}, expected {expected}"),
            ),
        }
    }

    /// Duplicate keys are found when an object closes; an error met before that must still
    /// give way to a duplicate key met earlier in an object that is open.
    fn earliest(&self, err: Error) -> Error {
        let limit = err.offset().unwrap_or(usize::MAX);
        let mut first: Option<(usize, usize)> = None;
        let starts: Vec<usize> = self.open.iter().filter_map(|o| o.keys_from).collect();
        for (k, &from) in starts.iter().enumerate() {
            // An object's own keys end where the next open object's keys start.
            let to = starts.get(k + 1).copied().unwrap_or(self.keys.len());
            {
                let mut keys = self.keys[from..to].to_vec();
                if let Some(key) = self.first_duplicate(&mut keys) {
                    if key.offset < limit && first.is_none_or(|(_, o)| key.offset < o) {
                        first = Some((key.node, key.offset));
                    }
                }
            }
        }
        match first {
            Some((node, offset)) => self.duplicate_error(node, offset),
            None => err,
        }
    }

    fn key_text(&self, node: usize) -> &str {
        match self.nodes.get(node) {
            Some(Node::Str(text)) => text.as_str(),
            _ => "",
        }
    }

    /// Orders two keys by their text (code point order, as their UTF-8 bytes).
    #[inline]
    fn key_order(&self, a: &Key, b: &Key) -> std::cmp::Ordering {
        a.prefix.cmp(&b.prefix).then_with(|| {
            if a.len <= PREFIX_LEN || b.len <= PREFIX_LEN {
                // Equal prefixes and one key within its prefix: that key is a prefix of the
                // other (the padding matched NUL bytes), so the shorter one comes first.
                a.len.cmp(&b.len)
            } else {
                let tail = |k: &Key| self.key_text(k.node).as_bytes().get(PREFIX_LEN..);
                tail(a).cmp(&tail(b))
            }
        })
    }

    /// Sorts `keys` by key text then offset; returns the earliest second occurrence of a key.
    fn first_duplicate(&self, keys: &mut [Key]) -> Option<Key> {
        if keys
            .windows(2)
            .all(|pair| self.key_order(&pair[0], &pair[1]).is_lt())
        {
            // Already strictly in order (the usual case for canonical input): no duplicates.
            return None;
        }
        keys.sort_unstable_by(|a, b| self.key_order(a, b).then(a.offset.cmp(&b.offset)));
        let mut first: Option<Key> = None;
        for pair in keys.windows(2) {
            if self.key_order(&pair[0], &pair[1]).is_eq()
                && first.is_none_or(|f| pair[1].offset < f.offset)
            {
                first = Some(pair[1]);
            }
        }
        first
    }

    fn duplicate_error(&self, node: usize, offset: usize) -> Error {
        Error::at(
            ErrorCode::DuplicateKey,
            offset,
            format!("duplicate object key {:?}", self.key_text(node)),
        )
    }

    fn run(&mut self) -> Result<(), Error> {
        'value: loop {
            self.skip_ws();
            match self.peek() {
                Some(b'"') => {
                    let text = self.parse_string()?;
                    self.nodes.push(Node::Str(text));
                }
                Some(b'-' | b'0'..=b'9') => {
                    let node = self.parse_number()?;
                    self.nodes.push(node);
                }
                Some(b'{') => {
                    self.open_container()?;
                    self.open.push(Open {
                        node: self.nodes.len(),
                        keys_from: Some(self.keys.len()),
                    });
                    self.nodes.push(Node::Object {
                        end: 0,
                        first: 0,
                        len: 0,
                    });
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        self.close()?;
                    } else {
                        self.parse_key()?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.open_container()?;
                    self.open.push(Open {
                        node: self.nodes.len(),
                        keys_from: None,
                    });
                    self.nodes.push(Node::Array { end: 0 });
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.close()?;
                    } else {
                        continue 'value;
                    }
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    self.nodes.push(Node::Bool(true));
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    self.nodes.push(Node::Bool(false));
                }
                Some(b'n') => {
                    self.literal(b"null")?;
                    self.nodes.push(Node::Null);
                }
                Some(b'N') => {
                    let start = self.pos;
                    self.literal(b"NaN")?;
                    return Err(Error::at(
                        ErrorCode::NonFiniteNumber,
                        start,
                        "NaN has no canonical form",
                    ));
                }
                Some(b'I') => {
                    let start = self.pos;
                    self.literal(b"Infinity")?;
                    return Err(Error::at(
                        ErrorCode::NonFiniteNumber,
                        start,
                        "Infinity has no canonical form",
                    ));
                }
                _ => return Err(self.unexpected(self.pos, "a value")),
            }
            // A value is complete: continue or close the enclosing containers.
            loop {
                self.skip_ws();
                let Some(open) = self.open.last() else {
                    if self.pos < self.bytes.len() {
                        return Err(self.unexpected(self.pos, "end of input after the value"));
                    }
                    return Ok(());
                };
                let is_object = open.keys_from.is_some();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if is_object {
                            self.skip_ws();
                            self.parse_key()?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if is_object => {
                        self.pos += 1;
                        self.close()?;
                    }
                    Some(b']') if !is_object => {
                        self.pos += 1;
                        self.close()?;
                    }
                    _ if is_object => return Err(self.unexpected(self.pos, "',' or '}'")),
                    _ => return Err(self.unexpected(self.pos, "',' or ']'")),
                }
            }
        }
    }

    /// Checks the depth for a `[` or `{` at `pos`, steps over it and whitespace.
    fn open_container(&mut self) -> Result<(), Error> {
        if self.open.len() >= self.max_depth {
            return Err(Error::at(
                ErrorCode::DepthExceeded,
                self.pos,
                format!("more than {} nested arrays/objects", self.max_depth),
            ));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(())
    }

    /// Closes the innermost open container; an object's keys are sorted and checked here.
    fn close(&mut self) -> Result<(), Error> {
        let Some(open) = self.open.pop() else {
            return Err(syntax(self.pos, "unbalanced containers"));
        };
        let end = self.nodes.len();
        let closed = match open.keys_from {
            None => Node::Array { end },
            Some(from) => {
                let mut keys = std::mem::take(&mut self.keys);
                let duplicate = self.first_duplicate(&mut keys[from..]);
                if let Some(key) = duplicate {
                    self.keys = keys;
                    self.keys.truncate(from);
                    return Err(self.duplicate_error(key.node, key.offset));
                }
                let first = self.order.len();
                self.order.extend(keys[from..].iter().map(|key| key.node));
                keys.truncate(from);
                self.keys = keys;
                Node::Object {
                    end,
                    first,
                    len: self.order.len() - first,
                }
            }
        };
        if let Some(slot) = self.nodes.get_mut(open.node) {
            *slot = closed;
        }
        Ok(())
    }

    /// Reads `"key"`, whitespace and `:`.
    fn parse_key(&mut self) -> Result<(), Error> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected(self.pos, "a string key"));
        }
        let offset = self.pos;
        let text = self.parse_string()?;
        self.keys.push(Key {
            prefix: Key::prefix_of(text.as_str()),
            len: text.as_str().len(),
            node: self.nodes.len(),
            offset,
        });
        self.nodes.push(Node::Str(text));
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected(self.pos, "':'"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Matches a literal byte for byte, reporting the first byte that differs.
    fn literal(&mut self, word: &[u8]) -> Result<(), Error> {
        for (k, &expected) in word.iter().enumerate() {
            let at = self.pos + k;
            if self.bytes.get(at) != Some(&expected) {
                return Err(self.unexpected(at, "a JSON value"));
            }
        }
        self.pos += word.len();
        Ok(())
    }

    /// From `from`, finds the first `"`, `\` or control character (or the end); also tells
    /// whether the bytes before it are all printable ASCII.
    #[inline]
    fn scan(&self, from: usize) -> (usize, bool) {
        let bytes = self.bytes;
        let mut i = from;
        let mut high = 0u64;
        while let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let x = u64::from_le_bytes(word);
            let stop = bytes_equal(x, b'"')
                | bytes_equal(x, b'\\')
                | (x.wrapping_sub(LO * 0x20) & !x & HI);
            let above = (x & HI) | bytes_equal(x, 0x7f);
            if stop != 0 {
                // The lowest flagged byte is exact (a false flag can only sit above a true
                // one), so this is the first special byte.
                let at = (stop.trailing_zeros() / 8) as usize;
                let before = (1u64 << (at * 8)).wrapping_sub(1);
                return (i + at, (high | (above & before)) == 0);
            }
            high |= above;
            i += 8;
        }
        let mut plain = high == 0;
        while let Some(&c) = bytes.get(i) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                break;
            }
            plain &= c < 0x7f;
            i += 1;
        }
        (i, plain)
    }

    /// Reads a string starting at its opening quote.
    fn parse_string(&mut self) -> Result<Text<'a>, Error> {
        let start = self.pos + 1;
        let (mut end, plain) = self.scan(start);
        if self.bytes.get(end) == Some(&b'"') {
            self.pos = end + 1;
            let s = &self.text[start..end];
            return Ok(if plain { Text::Plain(s) } else { Text::Raw(s) });
        }
        let mut out = String::with_capacity(end - start + 16);
        out.push_str(&self.text[start..end]);
        loop {
            match self.bytes.get(end) {
                None => return Err(syntax(end, "unterminated string")),
                Some(b'"') => {
                    self.pos = end + 1;
                    return Ok(Text::Owned(out));
                }
                Some(b'\\') => end = self.parse_escape(end, &mut out)?,
                Some(_) => return Err(syntax(end, "raw control character in a string")),
            }
            let run = end;
            end = self.scan(run).0;
            out.push_str(&self.text[run..end]);
        }
    }

    /// Four hex digits at `at`.
    fn hex4(&self, at: usize) -> Result<u32, Error> {
        let mut unit = 0u32;
        for k in 0..4 {
            let digit = match self.bytes.get(at + k) {
                Some(&c @ b'0'..=b'9') => c - b'0',
                Some(&c @ b'a'..=b'f') => c - b'a' + 10,
                Some(&c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.unexpected(at + k, "a hex digit in a \\u escape")),
            };
            unit = unit << 4 | u32::from(digit);
        }
        Ok(unit)
    }

    /// Decodes the escape whose backslash is at `at` into `out`; returns the index after it.
    fn parse_escape(&self, at: usize, out: &mut String) -> Result<usize, Error> {
        let simple = match self.bytes.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.parse_unicode_escape(at, out),
            _ => return Err(self.unexpected(at + 1, "an escape character")),
        };
        out.push(simple);
        Ok(at + 2)
    }

    /// Decodes `\uXXXX` (and its low surrogate partner) at `at`.
    fn parse_unicode_escape(&self, at: usize, out: &mut String) -> Result<usize, Error> {
        let lone = || {
            Error::at(
                ErrorCode::LoneSurrogate,
                at,
                "a UTF-16 surrogate that is not part of a high-then-low pair",
            )
        };
        let unit = self.hex4(at + 2)?;
        let next = at + 6;
        if (0xDC00..0xE000).contains(&unit) {
            return Err(lone());
        }
        if !(0xD800..0xDC00).contains(&unit) {
            // Not a surrogate, so always a scalar value.
            out.push(char::from_u32(unit).ok_or_else(lone)?);
            return Ok(next);
        }
        // A high surrogate must be followed at once by an escaped low surrogate (a malformed
        // escape there is a syntax error); anything else makes it lone.
        if self.bytes.get(next) == Some(&b'\\') && self.bytes.get(next + 1) == Some(&b'u') {
            let low = self.hex4(next + 2)?;
            if (0xDC00..0xE000).contains(&low) {
                let scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                out.push(char::from_u32(scalar).ok_or_else(lone)?);
                return Ok(next + 6);
            }
        }
        Err(lone())
    }

    /// Reads a number literal: an int unless it has a fraction or an exponent.
    fn parse_number(&mut self) -> Result<Node<'a>, Error> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut i = start;
        let negative = bytes.get(i) == Some(&b'-');
        if negative {
            i += 1;
            if bytes.get(i) == Some(&b'I') {
                self.pos = i;
                self.literal(b"Infinity")?;
                return Err(Error::at(
                    ErrorCode::NonFiniteNumber,
                    start,
                    "-Infinity has no canonical form",
                ));
            }
        }
        let digits = |mut k: usize| {
            while bytes.get(k).is_some_and(u8::is_ascii_digit) {
                k += 1;
            }
            k
        };
        let int_start = i;
        match bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i + 1),
            _ => return Err(self.unexpected(i, "a digit")),
        }
        let int_end = i;
        let mut fraction = None;
        if bytes.get(i) == Some(&b'.') {
            let from = i + 1;
            i = digits(from);
            if i == from {
                return Err(self.unexpected(i, "a digit after '.'"));
            }
            fraction = Some((from, i));
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = bytes.get(i) {
                i += 1;
            }
            let from = i;
            i = digits(from);
            if i == from {
                return Err(self.unexpected(i, "a digit in the exponent"));
            }
            exponent = true;
        }
        self.pos = i;
        let literal = &self.text[start..i];
        match (fraction, exponent) {
            (None, false) => {
                let magnitude = &bytes[int_start..int_end];
                if magnitude.len() <= 18 {
                    // At most 18 digits: cannot overflow.
                    let m = magnitude
                        .iter()
                        .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0'));
                    return Ok(Node::Int(if negative { -m } else { m }));
                }
                literal.parse::<i64>().map(Node::Int).map_err(|_| {
                    let shown = if literal.len() > 40 {
                        format!("{}...", &literal[..40])
                    } else {
                        literal.to_owned()
                    };
                    Error::at(
                        ErrorCode::IntOutOfRange,
                        start,
                        format!("the int {shown} is outside -2^63 .. 2^63-1"),
                    )
                })
            }
            (Some(fraction), false)
                if is_canonical_fixed(
                    &bytes[int_start..int_end],
                    &bytes[fraction.0..fraction.1],
                ) =>
            {
                Ok(Node::CanonicalFloat(literal))
            }
            _ => {
                // Rust's float parsing is correctly rounded (ties to even); overflow gives an
                // infinity, underflow a (signed) zero.
                match literal.parse::<f64>() {
                    Ok(f) if f.is_finite() => Ok(Node::Float(f)),
                    _ => Err(Error::at(
                        ErrorCode::NonFiniteNumber,
                        start,
                        format!("the number {literal} overflows binary64"),
                    )),
                }
            }
        }
    }
}

/// Whether a fixed-notation float literal `int.fraction` (both non-empty digit strings, the
/// int part without leading zeros) is already exactly what rule R7 writes for its value.
///
/// It is when it has at most 15 significant digits (then it is the unique shortest
/// round-tripping digit string, as every decimal of at most 15 digits survives a round trip
/// through binary64), no trailing zero in the fraction except a lone `.0`, and a decimal
/// exponent in -4..16 (fixed notation).
fn is_canonical_fixed(int: &[u8], fraction: &[u8]) -> bool {
    if fraction.len() > 1 && fraction.last() == Some(&b'0') {
        return false;
    }
    if int == b"0" {
        if fraction == b"0" {
            return true;
        }
        let zeros = fraction.iter().take_while(|&&d| d == b'0').count();
        zeros <= 3 && fraction.len() - zeros <= 15
    } else {
        if int.len() > 16 {
            return false;
        }
        let significant = if fraction == b"0" {
            int.len() - int.iter().rev().take_while(|&&d| d == b'0').count()
        } else {
            int.len() + fraction.len()
        };
        significant <= 15
    }
}

impl<'a> Tape<'a> {
    /// The index after the subtree starting at `index`.
    fn next(&self, index: usize) -> usize {
        match self.nodes.get(index) {
            Some(Node::Array { end } | Node::Object { end, .. }) => *end,
            _ => index + 1,
        }
    }

    /// The key node indices of the object at `index`, in key order.
    pub(crate) fn members(&self, index: usize) -> Option<&[usize]> {
        match self.nodes.get(index) {
            Some(Node::Object { first, len, .. }) => self.order.get(*first..*first + *len),
            _ => None,
        }
    }

    /// The key text of a key node.
    pub(crate) fn key(&self, key_node: usize) -> &str {
        match self.nodes.get(key_node) {
            Some(Node::Str(text)) => text.as_str(),
            _ => "",
        }
    }

    /// The value node index of member `name` of the object at `index`.
    pub(crate) fn get(&self, index: usize, name: &str) -> Option<usize> {
        let members = self.members(index)?;
        members
            .binary_search_by(|&k| self.key(k).cmp(name))
            .ok()
            .map(|at| members[at] + 1)
    }

    /// The string at `index`, if it is one.
    pub(crate) fn str_at(&self, index: usize) -> Option<&str> {
        match self.nodes.get(index) {
            Some(Node::Str(text)) => Some(text.as_str()),
            _ => None,
        }
    }

    /// The type name of the node at `index`, as [`CanonicalValue::type_name`] says it.
    pub(crate) fn type_name(&self, index: usize) -> &'static str {
        match self.nodes.get(index) {
            Some(Node::Null) | None => "null",
            Some(Node::Bool(_)) => "bool",
            Some(Node::Int(_)) => "int",
            Some(Node::Float(_) | Node::CanonicalFloat(_)) => "float",
            Some(Node::Str(_)) => "string",
            Some(Node::Array { .. }) => "array",
            Some(Node::Object { .. }) => "object",
        }
    }

    /// Writes the canonical bytes of the subtree at `index`; `depth` counts the containers
    /// around it (the tape was read with at most [`crate::MAX_DEPTH`] of them).
    pub(crate) fn write_canonical(
        &self,
        out: &mut Vec<u8>,
        index: usize,
        depth: usize,
    ) -> Result<(), Error> {
        match self.nodes.get(index) {
            None | Some(Node::Null) => out.extend_from_slice(b"null"),
            Some(Node::Bool(true)) => out.extend_from_slice(b"true"),
            Some(Node::Bool(false)) => out.extend_from_slice(b"false"),
            Some(Node::Int(i)) => write_int(out, *i),
            Some(Node::Float(f)) => write_float(out, *f)?,
            Some(Node::CanonicalFloat(literal)) => out.extend_from_slice(literal.as_bytes()),
            Some(Node::Str(text)) => text.write(out),
            Some(Node::Array { end }) => {
                if depth >= crate::MAX_DEPTH {
                    return Err(crate::canonical::depth_error());
                }
                out.push(b'[');
                let mut child = index + 1;
                while child < *end {
                    if child > index + 1 {
                        out.push(b',');
                    }
                    self.write_canonical(out, child, depth + 1)?;
                    child = self.next(child);
                }
                out.push(b']');
            }
            Some(Node::Object { .. }) => {
                if depth >= crate::MAX_DEPTH {
                    return Err(crate::canonical::depth_error());
                }
                out.push(b'{');
                for (k, &key) in self.members(index).unwrap_or_default().iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    if let Some(Node::Str(text)) = self.nodes.get(key) {
                        text.write(out);
                    }
                    out.push(b':');
                    self.write_canonical(out, key + 1, depth + 1)?;
                }
                out.push(b'}');
            }
        }
        Ok(())
    }

    /// Builds the value tree (iteratively, so the depth of the tape does not matter).
    pub(crate) fn into_value(self) -> CanonicalValue {
        enum Building {
            Array(Vec<CanonicalValue>),
            Object(Vec<(String, CanonicalValue)>, Option<String>),
        }
        /// Gives a finished value to the innermost open container; `None` when there is none.
        fn attach(
            stack: &mut [(Building, usize)],
            value: CanonicalValue,
        ) -> Option<CanonicalValue> {
            match stack.last_mut() {
                None => Some(value),
                Some((Building::Array(items), _)) => {
                    items.push(value);
                    None
                }
                Some((Building::Object(members, pending), _)) => {
                    match pending.take() {
                        Some(key) => members.push((key, value)),
                        None => {
                            if let CanonicalValue::String(key) = value {
                                *pending = Some(key);
                            }
                        }
                    }
                    None
                }
            }
        }
        fn finish(building: Building) -> CanonicalValue {
            match building {
                Building::Array(items) => CanonicalValue::Array(items),
                // Keys are unique (checked while parsing); collecting sorts them.
                Building::Object(members, _) => {
                    CanonicalValue::Object(members.into_iter().collect::<BTreeMap<_, _>>())
                }
            }
        }

        let mut stack: Vec<(Building, usize)> = Vec::new();
        let mut result = CanonicalValue::Null;
        for (index, node) in self.nodes.into_iter().enumerate() {
            let value = match node {
                Node::Null => Some(CanonicalValue::Null),
                Node::Bool(b) => Some(CanonicalValue::Bool(b)),
                Node::Int(i) => Some(CanonicalValue::Int(i)),
                Node::Float(f) => Some(CanonicalValue::Float(f)),
                Node::CanonicalFloat(literal) => {
                    Some(CanonicalValue::Float(literal.parse().unwrap_or(f64::NAN)))
                }
                Node::Str(text) => Some(CanonicalValue::String(text.into_string())),
                Node::Array { end } => {
                    stack.push((Building::Array(Vec::new()), end));
                    None
                }
                Node::Object { end, len, .. } => {
                    stack.push((Building::Object(Vec::with_capacity(len), None), end));
                    None
                }
            };
            let mut finished = value;
            loop {
                if let Some(value) = finished.take() {
                    if let Some(top) = attach(&mut stack, value) {
                        result = top;
                    }
                }
                match stack.last() {
                    Some((_, end)) if *end <= index + 1 => {
                        if let Some((building, _)) = stack.pop() {
                            finished = Some(finish(building));
                        }
                    }
                    _ => break,
                }
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn node_is_small() {
        assert!(std::mem::size_of::<super::Node<'_>>() <= 32);
    }
}
