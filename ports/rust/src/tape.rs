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
    /// The prefix of a key of `len` bytes whose bytes start `window` (which may go on past
    /// the key).
    #[inline]
    fn prefix_of(window: &[u8], len: usize) -> (u64, u64) {
        let head = match window.first_chunk::<PREFIX_LEN>() {
            Some(&head) => u128::from_be_bytes(head),
            None => window
                .iter()
                .chain(std::iter::repeat(&0))
                .take(PREFIX_LEN)
                .fold(0, |acc, &b| acc << 8 | u128::from(b)),
        };
        let head = match len {
            0 => 0,
            1..PREFIX_LEN => head & !(u128::MAX >> (len * 8)),
            _ => head,
        };
        ((head >> 64) as u64, head as u64)
    }
}

/// The number of object shapes remembered.
const SHAPE_SLOTS: usize = 16;

/// Object shapes are remembered from this many objects on.
const SHAPE_AFTER: usize = 64;

/// The most keys an object may have for its shape to be remembered.
const SHAPE_KEYS: usize = 32;

/// How the keys of objects of one shape sort: objects of many records repeat a few shapes
/// (the same keys in the same order), and sorting them once is enough.
#[derive(Default)]
struct Shape {
    /// The prefix and length of each key, in input order; the keys are at most
    /// [`PREFIX_LEN`] bytes, so these are the keys themselves.
    keys: Vec<((u64, u64), usize)>,
    /// The input positions of the keys in key order.
    order: Vec<usize>,
}

impl Shape {
    /// The cache slot for objects with these keys (in input order), or `None` when their
    /// shape is not remembered: too few or too many keys, or a key longer than a prefix.
    fn slot(keys: &[Key]) -> Option<usize> {
        if !(2..=SHAPE_KEYS).contains(&keys.len()) || keys.iter().any(|k| k.len > PREFIX_LEN) {
            return None;
        }
        let first = keys.first()?;
        let hash = (first.prefix.0 ^ first.prefix.1.rotate_left(29) ^ keys.len() as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Some((hash >> 60) as usize % SHAPE_SLOTS)
    }

    /// The input positions of `keys` in key order, if this is their shape.
    fn order_of(&self, keys: &[Key]) -> Option<&[usize]> {
        let same = self.keys.len() == keys.len()
            && self
                .keys
                .iter()
                .zip(keys)
                .all(|(&(prefix, len), k)| prefix == k.prefix && len == k.len);
        same.then_some(self.order.as_slice())
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
    let mut builder = Builder::new(text, max_depth);
    match builder.run(false) {
        Ok(_) => Ok(builder.into_tape()),
        Err(err) => Err(builder.earliest(err)),
    }
}

/// How a parse ended without an error.
#[derive(PartialEq, Eq)]
enum Status {
    /// The whole text was read.
    Complete,
    /// A prefix parse reached its end just where the key of an object member starts.
    Stopped,
}

/// One half of a text parsed on its own (see [`read_prefix`] and [`read_suffix`]).
pub(crate) struct Part<'a>(Builder<'a>);

/// Reads the first part of a text that was cut just before the opening quote of an object
/// member's key. `None` unless the parse reached the cut in that state without meeting an
/// error; the caller then reads the whole text with [`read`], which finds the exact error.
pub(crate) fn read_prefix(prefix: &str, max_depth: usize, whole_len: usize) -> Option<Part<'_>> {
    let mut builder = Builder::new(prefix, max_depth);
    // Room for the suffix's nodes too, which [`merge`] appends.
    builder
        .nodes
        .reserve((whole_len / 16).saturating_sub(builder.nodes.capacity()));
    builder.stop_at = prefix.len();
    match builder.run(false) {
        Ok(Status::Stopped) => Some(Part(builder)),
        _ => None,
    }
}

/// Reads the rest of a text cut as for [`read_prefix`], starting with a member key of an
/// object it has not seen open; the containers it closes without having opened them are
/// recorded for [`merge`]. `None` when it meets an error.
pub(crate) fn read_suffix(suffix: &str, max_depth: usize) -> Option<Part<'_>> {
    let mut builder = Builder::new(suffix, max_depth);
    builder.outer = Some(Outer {
        closed: Vec::new(),
        current: Some(true),
        max_rel: isize::MIN,
    });
    match builder.run(true) {
        Ok(Status::Complete) => Some(Part(builder)),
        _ => None,
    }
}

/// Joins the two parts of a text into the tape that [`read`] makes of the whole text, or
/// `None` when they do not fit together without an error (the containers open at the end of
/// the prefix must be those the suffix closes, nesting must stay within bounds, and no
/// object may have a duplicate key); the caller then reads the whole text with [`read`].
pub(crate) fn merge<'a>(prefix: Part<'a>, suffix: Part<'a>) -> Option<Tape<'a>> {
    let Part(mut a) = prefix;
    let Part(b) = suffix;
    let outer = b.outer?;
    let depth = a.open.len();
    if outer.closed.len() != depth
        || outer.max_rel >= a.max_depth as isize - depth as isize
        || outer
            .closed
            .iter()
            .zip(a.open.iter().rev())
            .any(|(closed, open)| closed.is_object != open.keys_from.is_some())
    {
        return None;
    }
    let shift = a.nodes.len();
    let order_shift = a.order.len();
    let mut b_nodes = b.nodes;
    a.nodes.append(&mut b_nodes);
    for node in a.nodes.get_mut(shift..).unwrap_or_default() {
        match node {
            Node::Array { end } => *end += shift,
            Node::Object { end, first, .. } => {
                *end += shift;
                *first += order_shift;
            }
            _ => {}
        }
    }
    a.order.extend(b.order.iter().map(|&node| node + shift));
    let split = a.bytes.len();
    for closed in outer.closed {
        let open = a.open.pop()?;
        let end = closed.end + shift;
        let node = match open.keys_from {
            None => Node::Array { end },
            Some(from) => {
                let mut keys = a.keys.split_off(from);
                keys.extend(closed.keys.iter().map(|key| Key {
                    node: key.node + shift,
                    offset: key.offset + split,
                    ..*key
                }));
                if a.first_duplicate(&mut keys).is_some() {
                    return None;
                }
                let first = a.order.len();
                a.order.extend(keys.iter().map(|key| key.node));
                Node::Object {
                    end,
                    first,
                    len: keys.len(),
                }
            }
        };
        *a.nodes.get_mut(open.node)? = node;
    }
    Some(a.into_tape())
}

fn syntax(offset: usize, message: &str) -> Error {
    Error::at(ErrorCode::SyntaxError, offset, message)
}

const END_OF_INPUT: &str = "unexpected end of input";
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Eight bytes as a little-endian word.
#[inline]
pub(crate) fn word(chunk: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&chunk[..8]);
    u64::from_le_bytes(word)
}

/// Bytes of `x` equal to `b` have their high bit set in the result (exact for "any").
#[inline]
pub(crate) fn bytes_equal(x: u64, b: u8) -> u64 {
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
    /// Where the parse stops if it is about to read a member key there ([`read_prefix`]);
    /// `usize::MAX` for never.
    stop_at: usize,
    /// For [`read_suffix`]: the containers closed that this parse did not open.
    outer: Option<Outer>,
    /// Remembered object shapes, [`SHAPE_SLOTS`] of them once one is remembered.
    shapes: Vec<Shape>,
    /// The number of objects closed so far.
    objects: usize,
}

/// What a suffix parse ([`read_suffix`]) knows of the containers around its start.
struct Outer {
    /// The containers it closed without having opened them, innermost first.
    closed: Vec<Closed>,
    /// Whether the innermost container it has not opened and not yet closed is an object
    /// (`None` while its content has not told).
    current: Option<bool>,
    /// The most containers open at once, counting those closed as -1 each, before an opening.
    max_rel: isize,
}

/// A container closed by a suffix parse that did not open it.
struct Closed {
    is_object: bool,
    /// The index after its last node in the suffix's tape.
    end: usize,
    /// Its keys met by the suffix parse.
    keys: Vec<Key>,
}

/// What a suffix parse does next after a value outside the containers it opened.
enum Step {
    Value,
    Again,
    Done,
}

impl<'a> Builder<'a> {
    fn new(text: &'a str, max_depth: usize) -> Builder<'a> {
        Builder {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            max_depth,
            nodes: Vec::with_capacity(text.len() / 16 + 1),
            order: Vec::new(),
            open: Vec::new(),
            keys: Vec::new(),
            stop_at: usize::MAX,
            outer: None,
            shapes: Vec::new(),
            objects: 0,
        }
    }

    fn into_tape(self) -> Tape<'a> {
        Tape {
            nodes: self.nodes,
            order: self.order,
        }
    }

    /// Reads the key of an object member, unless the parse is to stop here; false to stop.
    #[inline]
    fn member_key(&mut self) -> Result<bool, Error> {
        if self.pos == self.stop_at {
            return Ok(false);
        }
        self.parse_key()?;
        Ok(true)
    }

    /// For a suffix parse, after a value outside every container it opened (whitespace
    /// skipped): a `,`, the close of a container it did not open, or the end.
    fn step_outside(&mut self) -> Result<Step, Error> {
        let current = self.outer.as_ref().and_then(|o| o.current);
        match self.peek() {
            None => Ok(Step::Done),
            Some(b',') => {
                self.pos += 1;
                self.skip_ws();
                let is_object = match current {
                    Some(is_object) => is_object,
                    None => self.looks_like_key()?,
                };
                if let Some(outer) = &mut self.outer {
                    outer.current = Some(is_object);
                }
                if is_object {
                    self.parse_key()?;
                }
                Ok(Step::Value)
            }
            Some(c @ (b'}' | b']')) if current != Some(c == b']') => {
                self.pos += 1;
                let is_object = c == b'}';
                let keys = std::mem::take(&mut self.keys);
                let end = self.nodes.len();
                if let Some(outer) = &mut self.outer {
                    outer.closed.push(Closed {
                        is_object,
                        end,
                        keys,
                    });
                    outer.current = None;
                }
                Ok(Step::Again)
            }
            _ => Err(self.unexpected(self.pos, "',', '}' or ']'")),
        }
    }

    /// Whether a string starts at `pos` and is followed by `:` (so it is a key).
    fn looks_like_key(&mut self) -> Result<bool, Error> {
        if self.peek() != Some(b'"') {
            return Ok(false);
        }
        let start = self.pos;
        self.parse_string()?;
        self.skip_ws();
        let is_key = self.peek() == Some(b':');
        self.pos = start;
        Ok(is_key)
    }

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

    /// Parses from `pos`; with `key_first`, starting with the key of an object member.
    fn run(&mut self, key_first: bool) -> Result<Status, Error> {
        if key_first {
            self.skip_ws();
            self.parse_key()?;
        }
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
                        if !self.member_key()? {
                            return Ok(Status::Stopped);
                        }
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
                    if self.outer.is_some() {
                        match self.step_outside()? {
                            Step::Value => continue 'value,
                            Step::Again => continue,
                            Step::Done => return Ok(Status::Complete),
                        }
                    }
                    if self.pos < self.bytes.len() {
                        return Err(self.unexpected(self.pos, "end of input after the value"));
                    }
                    return Ok(Status::Complete);
                };
                let is_object = open.keys_from.is_some();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if is_object {
                            self.skip_ws();
                            if !self.member_key()? {
                                return Ok(Status::Stopped);
                            }
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
        if let Some(outer) = &mut self.outer {
            let rel = self.open.len() as isize - outer.closed.len() as isize;
            outer.max_rel = outer.max_rel.max(rel);
        }
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
                let first = self.order.len();
                // Small documents do not repay the cache.
                self.objects += 1;
                let shape = if self.objects > SHAPE_AFTER {
                    Shape::slot(&keys[from..])
                } else {
                    None
                };
                match shape.and_then(|slot| self.shapes.get(slot)?.order_of(&keys[from..])) {
                    Some(order) => self
                        .order
                        .extend(order.iter().map(|&k| keys[from + k].node)),
                    None => {
                        let input: Vec<Key> = match shape {
                            Some(_) => keys[from..].to_vec(),
                            None => Vec::new(),
                        };
                        let duplicate = self.first_duplicate(&mut keys[from..]);
                        if let Some(key) = duplicate {
                            self.keys = keys;
                            self.keys.truncate(from);
                            return Err(self.duplicate_error(key.node, key.offset));
                        }
                        self.order.extend(keys[from..].iter().map(|key| key.node));
                        if let Some(slot) = shape {
                            self.remember(slot, &input, &keys[from..]);
                        }
                    }
                }
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

    /// Remembers how the keys of an object, `input` in input order, sort (`sorted`, without
    /// duplicates), for objects of the same shape.
    fn remember(&mut self, slot: usize, input: &[Key], sorted: &[Key]) {
        if self.shapes.is_empty() {
            self.shapes.resize_with(SHAPE_SLOTS, Shape::default);
        }
        let Some(shape) = self.shapes.get_mut(slot) else {
            return;
        };
        shape.keys.clear();
        shape.keys.extend(input.iter().map(|k| (k.prefix, k.len)));
        shape.order.clear();
        // Key nodes come in input order, so a key's input position is found by its node.
        shape.order.extend(sorted.iter().map(|key| {
            input
                .binary_search_by(|k| k.node.cmp(&key.node))
                .unwrap_or_default()
        }));
    }

    /// Reads `"key"`, whitespace and `:`.
    fn parse_key(&mut self) -> Result<(), Error> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected(self.pos, "a string key"));
        }
        let offset = self.pos;
        let text = self.parse_string()?;
        let len = text.as_str().len();
        let window = match &text {
            Text::Plain(_) | Text::Raw(_) => self.bytes.get(offset + 1..).unwrap_or_default(),
            Text::Owned(key) => key.as_bytes(),
        };
        self.keys.push(Key {
            prefix: Key::prefix_of(window, len),
            len,
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

    /// The node indices of the elements of the array at `index`, in order.
    pub(crate) fn elements(&self, index: usize) -> Vec<usize> {
        let mut out = Vec::new();
        if let Some(Node::Array { end }) = self.nodes.get(index) {
            let mut at = index + 1;
            while at < *end {
                out.push(at);
                at = self.next(at);
            }
        }
        out
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
        buf: &mut Vec<u8>,
        index: usize,
        depth: usize,
    ) -> Result<(), Error> {
        match self.nodes.get(index) {
            None | Some(Node::Null) => buf.extend_from_slice(b"null"),
            Some(Node::Bool(true)) => buf.extend_from_slice(b"true"),
            Some(Node::Bool(false)) => buf.extend_from_slice(b"false"),
            Some(Node::Int(i)) => write_int(buf, *i),
            Some(Node::Float(f)) => write_float(buf, *f)?,
            Some(Node::CanonicalFloat(literal)) => buf.extend_from_slice(literal.as_bytes()),
            Some(Node::Str(text)) => text.write(buf),
            Some(Node::Array { .. } | Node::Object { .. }) => {
                if depth >= crate::MAX_DEPTH {
                    return Err(crate::canonical::depth_error());
                }
                let (open, close) = self.brackets(index);
                buf.push(open);
                self.write_children(buf, index, depth, 0..usize::MAX)?;
                buf.push(close);
            }
        }
        Ok(())
    }

    /// The opening and closing bracket of the container at `index`.
    pub(crate) fn brackets(&self, index: usize) -> (u8, u8) {
        match self.nodes.get(index) {
            Some(Node::Object { .. }) => (b'{', b'}'),
            _ => (b'[', b']'),
        }
    }

    /// The number of nodes of the subtree at `index`.
    pub(crate) fn subtree_len(&self, index: usize) -> usize {
        self.next(index).saturating_sub(index)
    }

    /// The number of nodes in each element or member of the container at `index`, in
    /// canonical order.
    pub(crate) fn child_sizes(&self, index: usize) -> Vec<usize> {
        match self.nodes.get(index) {
            Some(Node::Object { .. }) => self
                .members(index)
                .unwrap_or_default()
                .iter()
                .map(|&key| self.next(key + 1) - key)
                .collect(),
            Some(Node::Array { end }) => {
                let mut sizes = Vec::new();
                let mut child = index + 1;
                while child < *end {
                    let next = self.next(child);
                    sizes.push(next - child);
                    child = next;
                }
                sizes
            }
            _ => Vec::new(),
        }
    }

    /// Writes elements or members `range` (in canonical order) of the container at `index`,
    /// which has `depth` containers around it, without its brackets: each after a comma but
    /// the very first one.
    pub(crate) fn write_children(
        &self,
        buf: &mut Vec<u8>,
        index: usize,
        depth: usize,
        range: std::ops::Range<usize>,
    ) -> Result<(), Error> {
        match self.nodes.get(index) {
            Some(Node::Array { end }) => {
                let mut child = index + 1;
                let mut k = 0;
                while child < *end && k < range.end {
                    if k >= range.start {
                        if k > 0 {
                            buf.push(b',');
                        }
                        self.write_canonical(buf, child, depth + 1)?;
                    }
                    child = self.next(child);
                    k += 1;
                }
            }
            Some(Node::Object { .. }) => {
                let members = self.members(index).unwrap_or_default();
                let from = range.start.min(members.len());
                let to = range.end.min(members.len());
                for (k, &key) in members.iter().enumerate().take(to).skip(from) {
                    if k > 0 {
                        buf.push(b',');
                    }
                    if let Some(Node::Str(text)) = self.nodes.get(key) {
                        text.write(buf);
                    }
                    buf.push(b':');
                    self.write_canonical(buf, key + 1, depth + 1)?;
                }
            }
            _ => {}
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
