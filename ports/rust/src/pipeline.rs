//! Verifying a large record on two threads.
//!
//! The text is cut in two at the start of a line that begins an object member, a little
//! past the middle (the other thread starts later); each thread parses one part, and the
//! parts are joined into the tape a sequential parse makes ([`tape::merge`]). The canonical body is then written in two parts, one per
//! thread, and the two hashes over it are computed one per thread: SHA-256 for the proof_id
//! here, HMAC-SHA256 for the signature on the other thread.
//!
//! Each piece of work is taken by the first thread to come to it, so that when the other
//! thread does not get a CPU this one does everything itself, about as fast as a sequential
//! verification. Anything unexpected (no place to cut, an error in either part, parts that
//! do not fit) gives `None`, and the caller verifies sequentially, which reports the exact
//! error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use hmac::Mac;
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::parse::MAX_DEPTH;
use crate::record::{
    new_mac, verify_tape_with, write_body_part, Body, BodyCut, HmacSha256, Verified,
};
use crate::tape::{self, Part, Tape};

/// Where the text is cut, in percent of its length (the first place to cut from there).
const CUT_PERCENT: usize = 55;

/// How far past [`CUT_PERCENT`] a place to cut the text is looked for.
const CUT_SEARCH: usize = 64 * 1024;

/// How long a thread waits for the other by spinning before it sleeps: waking a sleeping
/// thread can take long on a virtual machine, and the waits here are short.
const SPIN: Duration = Duration::from_micros(300);

/// Verifies a record on two threads; `None` when it must be verified sequentially instead.
/// `text` is `bytes` as a string when the caller has it (so that UTF-8 is already known).
pub(crate) fn verify(
    bytes: &[u8],
    text: Option<&str>,
    key: Option<&[u8]>,
) -> Option<Result<Verified, Error>> {
    let cut = cut_point(bytes)?;
    let (prefix, suffix) = match text {
        Some(text) => {
            let (a, b) = text.split_at_checked(cut)?;
            (Half::Text(a), Half::Text(b))
        }
        None => {
            let (a, b) = bytes.split_at(cut);
            (Half::Bytes(a), Half::Bytes(b))
        }
    };
    let read_suffix = || suffix.text().and_then(|t| tape::read_suffix(t, MAX_DEPTH));
    let shared = Shared::default();
    // Room for half of the canonical body, which is rarely longer than the text.
    let capacity = bytes.len() / 2 + 4096;
    std::thread::scope(|scope| {
        let shared = &shared;
        std::thread::Builder::new()
            .spawn_scoped(scope, move || {
                let mut taken = Taken {
                    shared,
                    suffix: false,
                    second: false,
                    mac: false,
                };
                if shared.suffix_taken.take() {
                    taken.suffix = true;
                    shared.suffix.set(Mutex::new(read_suffix()));
                }
                // Not `Some` when the record fails before it is hashed.
                let Some((tape, cut)) = shared.plan.wait() else {
                    return;
                };
                if shared.second_taken.take() {
                    taken.second = true;
                    shared
                        .second
                        .set(write_part(tape, cut.as_ref(), 1, capacity));
                }
                if shared.mac_taken.take() {
                    taken.mac = true;
                    let mac = key.and_then(|key| {
                        let mut mac = new_mac(key);
                        for part in [&shared.first, &shared.second] {
                            mac.update(&part.wait().as_ref()?.bytes);
                        }
                        Some(mac)
                    });
                    shared.mac.set(Mutex::new(mac));
                }
            })
            .ok()?;
        // From here on, the other thread must be let go whatever happens.
        let _release = Release(shared);
        let prefix = prefix
            .text()
            .and_then(|t| tape::read_prefix(t, MAX_DEPTH, bytes.len()))?;
        let suffix = if shared.suffix_taken.take() {
            read_suffix()?
        } else {
            take(shared.suffix.wait())?
        };
        let tape = tape::merge(prefix, suffix)?;
        let cut = body_cut(&tape);
        let (tape, cut) = shared.plan.set(Some((tape, cut))).as_ref()?;
        Some(verify_tape_with(tape, key, |stored_signature| {
            let first = shared
                .first
                .set(write_part(tape, cut.as_ref(), 0, capacity));
            if shared.second_taken.take() {
                shared
                    .second
                    .set(write_part(tape, cut.as_ref(), 1, capacity));
            }
            let mut id = Sha256::new();
            for part in [first, shared.second.wait()] {
                let Some(part) = part else {
                    // Writing failed: the error is in `first`, or the other thread's part
                    // failed the same way and this one's will tell it.
                    return Err(first_error(tape, cut.as_ref()));
                };
                match &part.proof_id_member {
                    Some(span) => {
                        id.update(&part.bytes[..span.start]);
                        id.update(&part.bytes[span.end..]);
                    }
                    None => id.update(&part.bytes),
                }
            }
            let mac = if shared.mac_taken.take() {
                key.map(|key| {
                    let mut mac = new_mac(key);
                    for part in [first, shared.second.wait()].into_iter().flatten() {
                        mac.update(&part.bytes);
                    }
                    mac
                })
            } else {
                take(shared.mac.wait())
            };
            let signature_ok = mac.map(|mac| {
                let mut expected = [0u8; 32];
                hex::decode_to_slice(stored_signature, &mut expected).is_ok()
                    && mac.verify_slice(&expected).is_ok()
            });
            Ok((id.finalize().into(), signature_ok))
        }))
    })
}

/// Writes part `part` (0 or 1) of the body; `None` when canonicalization fails.
fn write_part(
    tape: &Tape<'_>,
    cut: Option<&BodyCut>,
    part: usize,
    capacity: usize,
) -> Option<Body> {
    let mut body = Body {
        bytes: Vec::with_capacity(capacity),
        proof_id_member: None,
    };
    let written = match (cut, part) {
        (None, 0) => write_body_part(tape, &mut body, None, false),
        // Without a cut the first part is the whole body.
        (None, _) => Ok(()),
        (Some(cut), _) => write_body_part(tape, &mut body, Some(cut), part == 1),
    };
    written.ok().map(|()| body)
}

/// The error met writing the body (sequentially, to find the first one).
fn first_error(tape: &Tape<'_>, cut: Option<&BodyCut>) -> Error {
    let mut body = Body {
        bytes: Vec::new(),
        proof_id_member: None,
    };
    let mut first = || -> Result<(), Error> {
        match cut {
            None => write_body_part(tape, &mut body, None, false),
            Some(cut) => {
                write_body_part(tape, &mut body, Some(cut), false)?;
                write_body_part(tape, &mut body, Some(cut), true)
            }
        }
    };
    match first() {
        Err(err) => err,
        Ok(()) => Error::new(
            crate::error::ErrorCode::RecordStructure,
            "the record body could not be written",
        ),
    }
}

/// What the two threads share.
#[derive(Default)]
struct Shared<'a> {
    suffix_taken: Claim,
    suffix: Ready<Mutex<Option<Part<'a>>>>,
    /// The joined tape and where its body is cut; `None` when the record fails first.
    plan: Ready<Option<(Tape<'a>, Option<BodyCut>)>>,
    first: Ready<Option<Body>>,
    second_taken: Claim,
    second: Ready<Option<Body>>,
    mac_taken: Claim,
    mac: Ready<Mutex<Option<HmacSha256>>>,
}

/// Lets the other thread go when dropped: everything it may wait for is set, to `None` if
/// it was not set already.
struct Release<'s, 'a>(&'s Shared<'a>);

impl Drop for Release<'_, '_> {
    fn drop(&mut self) {
        let shared = self.0;
        shared.plan.set(None);
        shared.first.set(None);
        shared.second.set(None);
    }
}

/// What the other thread took on; should it panic, this is set to `None` when dropped, so
/// that this thread does not wait for it forever.
struct Taken<'s, 'a> {
    shared: &'s Shared<'a>,
    suffix: bool,
    second: bool,
    mac: bool,
}

impl Drop for Taken<'_, '_> {
    fn drop(&mut self) {
        if self.suffix {
            self.shared.suffix.set(Mutex::new(None));
        }
        if self.second {
            self.shared.second.set(None);
        }
        if self.mac {
            self.shared.mac.set(Mutex::new(None));
        }
    }
}

/// A piece of work, taken by the first thread to come to it.
#[derive(Default)]
struct Claim(AtomicBool);

impl Claim {
    /// Whether this thread takes the work (the other has not).
    fn take(&self) -> bool {
        !self.0.swap(true, Ordering::AcqRel)
    }
}

/// A value set once by one thread and waited for by the other.
struct Ready<T> {
    cell: OnceLock<T>,
    lock: Mutex<()>,
    set: Condvar,
}

impl<T> Default for Ready<T> {
    fn default() -> Self {
        Ready {
            cell: OnceLock::new(),
            lock: Mutex::new(()),
            set: Condvar::new(),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // What the mutexes here guard is set whole, so a panic cannot leave it half changed.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Takes a value handed over in a mutex.
fn take<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    lock(slot).take()
}

impl<T> Ready<T> {
    /// Sets the value unless it is set already; returns the value now there.
    fn set(&self, value: T) -> &T {
        let _ = self.cell.set(value);
        let _guard = lock(&self.lock);
        self.set.notify_all();
        self.wait()
    }

    /// Waits until the value is set (spinning a little first, then yielding the CPU in case
    /// the other thread waits for it).
    fn wait(&self) -> &T {
        let start = Instant::now();
        loop {
            for _ in 0..64 {
                if let Some(value) = self.cell.get() {
                    return value;
                }
                std::hint::spin_loop();
            }
            let waited = start.elapsed();
            if waited > SPIN {
                break;
            }
            if waited > SPIN / 4 {
                std::thread::yield_now();
            }
        }
        let mut guard = lock(&self.lock);
        loop {
            if let Some(value) = self.cell.get() {
                return value;
            }
            guard = self
                .set
                .wait(guard)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// One part of the text.
#[derive(Clone, Copy)]
enum Half<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> Half<'a> {
    fn text(self) -> Option<&'a str> {
        match self {
            Half::Text(text) => Some(text),
            Half::Bytes(bytes) => std::str::from_utf8(bytes).ok(),
        }
    }
}

/// A place a little past the middle of `bytes` to cut the text: the first non-blank byte of
/// a line that looks like it starts an object member (`"key":`). A raw line feed is never
/// inside a string or other token of valid JSON, so the cut falls between tokens; whether it
/// is really at a member key is checked by the parse.
fn cut_point(bytes: &[u8]) -> Option<usize> {
    // A little past the middle: the other thread starts later.
    let mid = bytes.len() / 100 * CUT_PERCENT;
    let limit = (mid + CUT_SEARCH).min(bytes.len());
    let mut at = mid;
    while at < limit {
        let newline = at + bytes.get(at..limit)?.iter().position(|&b| b == b'\n')?;
        let mut start = newline + 1;
        while let Some(b' ' | b'\t' | b'\r') = bytes.get(start) {
            start += 1;
        }
        if looks_like_key(bytes.get(start..)?) {
            return Some(start);
        }
        at = start;
    }
    None
}

/// Whether `bytes` start with a string on this line followed by `:`.
fn looks_like_key(bytes: &[u8]) -> bool {
    if bytes.first() != Some(&b'"') {
        return false;
    }
    let mut i = 1;
    loop {
        match bytes.get(i) {
            Some(b'\\') => i += 2,
            Some(b'"') => break,
            Some(b'\n') | None => return false,
            Some(_) => i += 1,
        }
    }
    i += 1;
    while let Some(b' ' | b'\t') = bytes.get(i) {
        i += 1;
    }
    bytes.get(i) == Some(&b':')
}

/// Where to cut the writing of the body of a record so that the two parts have about as
/// many nodes: inside the array or object section that holds the middle, if there is one.
fn body_cut(tape: &Tape<'_>) -> Option<BodyCut> {
    let members = tape.members(0)?;
    let body = |&key: &usize| !matches!(tape.key(key), "signature");
    let total: usize = members
        .iter()
        .filter(|k| body(k))
        .map(|&k| tape.subtree_len(k + 1))
        .sum();
    let half = total / 2;
    let mut before = 0;
    for (section, &key) in members.iter().enumerate() {
        if !body(&key) {
            continue;
        }
        let size = tape.subtree_len(key + 1);
        if before + size > half {
            if tape.key(key) == "identity" {
                return None;
            }
            let sizes = tape.child_sizes(key + 1);
            let mut child = 0;
            let mut at = before + 1;
            while child < sizes.len() && at < half {
                at += sizes[child];
                child += 1;
            }
            // At least one element or member on each side of the cut.
            return (sizes.len() >= 2).then(|| BodyCut {
                section,
                child: child.clamp(1, sizes.len() - 1),
            });
        }
        before += size;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::verify;
    use crate::parse::{read_bytes, MAX_DEPTH};
    use crate::record::{sign_record, verify_tape, Verified};
    use crate::{canonicalize, parse, CanonicalValue, Error};

    const KEY: &[u8] = b"empiric-record-fixtures-test-key-v1";

    /// Writes `value` as indented JSON like `JSON.stringify(value, null, 2)`, but with object
    /// members in reverse key order, so that the parser has to sort them.
    fn pretty(value: &CanonicalValue, indent: usize, out: &mut String) {
        let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
        match value {
            CanonicalValue::String(s) => {
                out.push('"');
                for c in s.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        c if u32::from(c) < 0x20 => {
                            out.push_str(&format!("\\u{:04x}", u32::from(c)));
                        }
                        c => out.push(c),
                    }
                }
                out.push('"');
            }
            CanonicalValue::Array(items) if !items.is_empty() => {
                out.push_str("[\n");
                for (k, item) in items.iter().enumerate() {
                    pad(out, indent + 2);
                    pretty(item, indent + 2, out);
                    out.push_str(if k + 1 < items.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push(']');
            }
            CanonicalValue::Object(map) if !map.is_empty() => {
                out.push_str("{\n");
                for (k, (key, item)) in map.iter().rev().enumerate() {
                    pad(out, indent + 2);
                    pretty(&CanonicalValue::String(key.clone()), indent + 2, out);
                    out.push_str(": ");
                    pretty(item, indent + 2, out);
                    out.push_str(if k + 1 < map.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push('}');
            }
            other => out.push_str(&canonicalize(other).unwrap()),
        }
    }

    /// A signed record of about 600 KB, indented, with many evidence entries and
    /// provenance entities, non-ASCII and escaped strings and keys.
    fn big_record() -> String {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/records/valid.json"
        );
        let mut record = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let map = record.as_object_mut().unwrap();
        let template = map["evidence"].as_array().unwrap()[0].clone();
        let mut evidence = Vec::new();
        let mut entity = CanonicalValue::object();
        for i in 0..1500i64 {
            let v = i as f64 * 0.731 + 1.0 / (i as f64 + 3.0);
            let mut item = template.clone();
            item.insert("pillar", format!("latency.p{}.run{i} — “ok” ✓ é", i % 50))
                .insert("statistic_value", v)
                .insert("ci_low", v * 0.93)
                .insert("n", i * 17 - 9000);
            evidence.push(item);
            let mut sample = CanonicalValue::object();
            sample
                .insert("prov:type", "empiric:Sample")
                .insert("empiric:n", i)
                .insert("empiric:w", v.sqrt() * 1e-7);
            let key = match i % 4 {
                0 => format!("ex:sample/{i}"),
                1 => format!("ex:a-rather-long-sample-key/{i}"),
                2 => format!("ex:é/{i}"),
                _ => format!("ex:{i}"),
            };
            entity.insert(key, sample);
        }
        map.insert("evidence".to_owned(), CanonicalValue::Array(evidence));
        map.get_mut("provenance").unwrap().insert("entity", entity);
        let proof = sign_record(record, KEY).unwrap();
        let mut text = String::new();
        pretty(proof.value(), 0, &mut text);
        // Some strings and keys with escapes, which the parser unescapes.
        text.replace('é', "\\u00e9")
    }

    fn sequential(bytes: &[u8], key: Option<&[u8]>) -> Result<Verified, Error> {
        verify_tape(&read_bytes(bytes, MAX_DEPTH)?, bytes.len(), key)
    }

    /// Checks that the two-thread verification, when it answers, answers as the sequential
    /// one does; returns whether it answered.
    fn same(bytes: &[u8], key: Option<&[u8]>) -> bool {
        let expected = sequential(bytes, key);
        let from_bytes = verify(bytes, None, key);
        if let Some(got) = &from_bytes {
            assert_eq!(got, &expected);
        }
        if let Ok(text) = std::str::from_utf8(bytes) {
            let from_text = verify(bytes, Some(text), key);
            if let Some(got) = &from_text {
                assert_eq!(got, &expected);
            }
            assert_eq!(from_text.is_some(), from_bytes.is_some());
        }
        from_bytes.is_some()
    }

    #[test]
    fn a_big_record_verifies_on_two_threads() {
        let text = big_record();
        assert!(text.len() > 300_000, "{}", text.len());
        assert!(same(text.as_bytes(), Some(KEY)));
        assert!(same(text.as_bytes(), None));
        assert!(verify(text.as_bytes(), None, Some(KEY)).unwrap().is_ok());
        let other = b"empiric-record-fixtures-other-key-v1";
        let err = verify(text.as_bytes(), None, Some(other))
            .unwrap()
            .unwrap_err();
        assert_eq!(err.code(), "signature_mismatch");
        // Line ends with carriage returns, and the record written compactly (nowhere to cut).
        assert!(same(text.replace('\n', "\r\n").as_bytes(), Some(KEY)));
        let compact = canonicalize(&parse(&text).unwrap()).unwrap();
        assert!(!same(compact.as_bytes(), Some(KEY)));
    }

    #[test]
    fn changes_anywhere_are_found_as_sequentially() {
        let text = big_record();
        let bytes = text.as_bytes();
        let mut answered = 0;
        for k in 1..120 {
            let at = bytes.len() * k / 120;
            let mut edits: Vec<Vec<u8>> = Vec::new();
            // A digit changed, a byte removed, a quote or comma put in, a byte that is not UTF-8.
            if let Some(d) = bytes[at..].iter().position(u8::is_ascii_digit) {
                let mut e = bytes.to_vec();
                e[at + d] = if e[at + d] == b'7' { b'8' } else { b'7' };
                edits.push(e);
            }
            for insert in [&b"\""[..], b",", b"\xff", b"\\ud800", b"[", b"}"] {
                let mut e = bytes.to_vec();
                e.splice(at..at, insert.iter().copied());
                edits.push(e);
            }
            let mut e = bytes.to_vec();
            e.remove(at);
            edits.push(e);
            for e in edits {
                answered += usize::from(same(&e, Some(KEY)));
            }
        }
        assert!(answered > 100, "{answered}");
    }

    #[test]
    fn duplicate_keys_and_structure_errors_are_found_as_sequentially() {
        let text = big_record();
        let cut = super::cut_point(text.as_bytes()).unwrap();
        let after = |pattern: &str| cut + text[cut..].find(pattern).unwrap();
        // A duplicate in the object the cut falls in, in an object after it, at the top.
        let line_start = text[..cut].rfind('\n').unwrap() + 1;
        let indent = &text[line_start..cut];
        let mut edits = vec![
            format!("{}\"pillar\": 1,\n{indent}{}", &text[..cut], &text[cut..]),
            format!(
                "{}\"zzz\": 1,\n{indent}\"zzz\": 2,\n{indent}{}",
                &text[..cut],
                &text[cut..]
            ),
        ];
        // Members are written in reverse key order: `data` and `claim` come after the cut.
        let entity = text.find("\"ex:sample/").unwrap();
        edits.push(format!(
            "{}\"ex:1\": 0, {}",
            &text[..entity],
            &text[entity..]
        ));
        for section in [after("\n  \"data\""), after("\n  \"claim\""), 2] {
            let at = section + usize::from(section > 2);
            for extra in [
                "\"claim\": 1,\n  ",
                "\"verdicts\": 1,\n  ",
                "\"evidence\": [],\n  ",
            ] {
                edits.push(format!("{}{extra}{}", &text[..at], &text[at..]));
            }
        }
        // The structure: a section renamed, a section that is not an object.
        let claim = after("\"claim\"");
        edits.push(format!("{}\"claix\"{}", &text[..claim], &text[claim + 7..]));
        edits.push(text.replacen("\"data\": {", "\"data\": [{", 1).replacen(
            "\n  },\n  \"claim\"",
            "\n  }],\n  \"claim\"",
            1,
        ));
        for e in &edits {
            same(e.as_bytes(), Some(KEY));
        }
    }

    #[test]
    fn nesting_across_the_cut_is_bounded_as_sequentially() {
        for (outer, inner) in [(300, 200), (300, 210), (300, 211), (300, 260), (600, 1)] {
            let mut text = String::from("{\"a\": ");
            text.push_str(&"[".repeat(outer));
            text.push_str("{\n");
            for i in 0..20_000 {
                text.push_str(&format!("\"p{i}\": {i},\n"));
            }
            text.push_str("\"k\": ");
            text.push_str(&"[".repeat(inner));
            text.push_str(&"]".repeat(inner));
            text.push_str("\n}");
            text.push_str(&"]".repeat(outer));
            text.push('}');
            let answered = same(text.as_bytes(), Some(KEY));
            // Within bounds, both threads' parts join; beyond, the sequential parse reports.
            assert_eq!(answered, outer + inner <= 510, "{outer} {inner}");
        }
    }
}
