//! Hashes, signatures and proof records.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::OnceLock;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::canonical::{write_canonical, write_string, write_value};
use crate::error::{Error, ErrorCode};
use crate::parse::{parse, parse_bytes, read_bytes, MAX_DEPTH};
use crate::tape::{self, Tape};
use crate::value::CanonicalValue;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// The shortest key [`sign_canonical`] and [`sign_record`] accept, in bytes. Verifying accepts
/// keys of any length.
pub const MIN_SIGNING_KEY_LEN: usize = 32;

/// The nine members of a proof record, in the order records are written.
pub const RECORD_SECTIONS: [&str; 9] = [
    "identity",
    "claim",
    "pre_registration",
    "data",
    "evidence",
    "verdict",
    "reproduction",
    "provenance",
    "signature",
];

/// The documented demo key (`DEFAULT_DEMO_KEY`); never use it in production.
pub const DEMO_KEY: &str = "empiric-demo-key-do-not-use-in-production";

/// SHA-256 of `bytes` as 64 lowercase hex characters.
///
/// ```
/// assert_eq!(
///     empiric_proof::sha256_hex(b"null"),
///     "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"
/// );
/// ```
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// HMAC-SHA256 of `bytes` under `key` (any length) as 64 lowercase hex characters.
///
/// This is the raw primitive: it does not canonicalize and does not check the key length.
/// Use [`sign_canonical`] to sign a value.
///
/// ```
/// assert_eq!(
///     empiric_proof::hmac_sha256_hex(b"empiric-wire-vectors-test-key-v1", b"null"),
///     "6ed3dad404cfea215ee5a999373ba78eef6005ca89814a03244f9ea21c8791a9"
/// );
/// ```
pub fn hmac_sha256_hex(key: &[u8], bytes: &[u8]) -> String {
    hex::encode(hmac_sha256(key, bytes))
}

pub(crate) fn new_mac(key: &[u8]) -> HmacSha256 {
    // HMAC takes keys of any length, so this never fails; the fallback keeps it panic-free.
    HmacSha256::new_from_slice(key)
        .unwrap_or_else(|_| HmacSha256::new_from_slice(&[]).unwrap_or_else(|_| unreachable!()))
}

fn hmac_sha256(key: &[u8], bytes: &[u8]) -> [u8; 32] {
    let mut mac = new_mac(key);
    mac.update(bytes);
    mac.finalize().into_bytes().into()
}

fn check_signing_key(key: &[u8]) -> Result<(), Error> {
    if key.len() < MIN_SIGNING_KEY_LEN {
        return Err(Error::new(
            ErrorCode::KeyTooShort,
            format!(
                "signing keys must be at least {MIN_SIGNING_KEY_LEN} bytes, this one has {}",
                key.len()
            ),
        ));
    }
    Ok(())
}

/// Signs a value: the lowercase hex HMAC-SHA256 of its canonical bytes under `key_bytes`.
///
/// ```
/// use empiric_proof::{parse, sign_canonical};
///
/// let key = b"empiric-wire-vectors-test-key-v1";
/// let v = parse("[1, 2.5, null]").unwrap();
/// let sig = sign_canonical(&v, key).unwrap();
/// assert_eq!(sig, empiric_proof::hmac_sha256_hex(key, b"[1,2.5,null]"));
/// assert_eq!(sign_canonical(&v, b"short").unwrap_err().code(), "key_too_short");
/// ```
///
/// # Errors
///
/// `key_too_short` for a key shorter than [`MIN_SIGNING_KEY_LEN`] bytes, and the errors of
/// [`crate::canonicalize_bytes`].
pub fn sign_canonical(value: &CanonicalValue, key_bytes: &[u8]) -> Result<String, Error> {
    check_signing_key(key_bytes)?;
    let mut bytes = Vec::new();
    write_canonical(&mut bytes, value)?;
    Ok(hmac_sha256_hex(key_bytes, &bytes))
}

fn structure(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::RecordStructure, message)
}

fn as_record(value: &CanonicalValue) -> Result<&BTreeMap<String, CanonicalValue>, Error> {
    value.as_object().ok_or_else(|| {
        structure(format!(
            "a record is a JSON object, not a {}",
            value.type_name()
        ))
    })
}

/// The canonical body of a record (the record without its `signature` member), and where
/// in it the `"proof_id":"..."` member of `identity` sits, with one adjacent comma.
pub(crate) struct Body {
    pub(crate) bytes: Vec<u8>,
    pub(crate) proof_id_member: Option<Range<usize>>,
}

/// The bytes to cut to remove member `k` (of `count`) of an object: the member with the comma
/// before it, or, for the first of several, with the comma after it.
fn member_span(k: usize, count: usize, comma: usize, start: usize, end: usize) -> Range<usize> {
    if k > 0 {
        comma..end
    } else if count > 1 {
        start..end + 1
    } else {
        start..end
    }
}

impl Body {
    fn of(record: &BTreeMap<String, CanonicalValue>) -> Result<Body, Error> {
        let mut bytes = Vec::new();
        let mut proof_id_member = None;
        bytes.push(b'{');
        let mut first = true;
        for (name, section) in record {
            if name == "signature" {
                continue;
            }
            if !first {
                bytes.push(b',');
            }
            first = false;
            write_string(&mut bytes, name);
            bytes.push(b':');
            match (name.as_str(), section) {
                ("identity", CanonicalValue::Object(identity)) => {
                    bytes.push(b'{');
                    let count = identity.len();
                    for (k, (key, item)) in identity.iter().enumerate() {
                        let comma = bytes.len();
                        if k > 0 {
                            bytes.push(b',');
                        }
                        let start = bytes.len();
                        write_string(&mut bytes, key);
                        bytes.push(b':');
                        write_value(&mut bytes, item, 2)?;
                        if key == "proof_id" {
                            proof_id_member =
                                Some(member_span(k, count, comma, start, bytes.len()));
                        }
                    }
                    bytes.push(b'}');
                }
                _ => write_value(&mut bytes, section, 1)?,
            }
        }
        bytes.push(b'}');
        Ok(Body {
            bytes,
            proof_id_member,
        })
    }

    /// The same bytes as [`Body::of`], written from a tape whose root is an object.
    fn of_tape(tape: &Tape<'_>, input_len: usize) -> Result<Body, Error> {
        // Canonical text is rarely longer than its source.
        let mut body = Body {
            bytes: Vec::with_capacity(input_len + 64),
            proof_id_member: None,
        };
        write_body_part(tape, &mut body, None, false)?;
        Ok(body)
    }

    /// SHA-256 of the body without `identity.proof_id`.
    fn proof_id(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        match &self.proof_id_member {
            Some(range) => {
                hasher.update(&self.bytes[..range.start]);
                hasher.update(&self.bytes[range.end..]);
            }
            None => hasher.update(&self.bytes),
        }
        hasher.finalize().into()
    }
}

/// Where the writing of a record body is cut in two: inside the array or object value of
/// the record's member `section` (its index among the root's members, in key order; never
/// `identity` or `signature`), before its element or member `child` (at least 1).
pub(crate) struct BodyCut {
    pub(crate) section: usize,
    pub(crate) child: usize,
}

/// Appends the canonical body of a record from a tape whose root is an object to `body`:
/// all of it without a cut, else the part before the cut or (with `second`) the part from
/// the cut on.
pub(crate) fn write_body_part(
    tape: &Tape<'_>,
    body: &mut Body,
    cut: Option<&BodyCut>,
    second: bool,
) -> Result<(), Error> {
    let members = tape.members(0).unwrap_or_default();
    let sections = match (cut, second) {
        (None, _) => members,
        (Some(cut), false) => members.get(..cut.section).unwrap_or_default(),
        (Some(cut), true) => members.get(cut.section + 1..).unwrap_or_default(),
    };
    let bytes = &mut body.bytes;
    // The part after a cut always follows bytes written already.
    let mut first = !second;
    if let (Some(cut), true) = (cut, second) {
        if let Some(&key) = members.get(cut.section) {
            tape.write_children(bytes, key + 1, 1, cut.child..usize::MAX)?;
            bytes.push(tape.brackets(key + 1).1);
        }
    } else {
        bytes.push(b'{');
    }
    for &key in sections {
        let name = tape.key(key);
        if name == "signature" {
            continue;
        }
        if !first {
            bytes.push(b',');
        }
        first = false;
        write_string(bytes, name);
        bytes.push(b':');
        match tape.members(key + 1) {
            Some(identity) if name == "identity" => {
                bytes.push(b'{');
                let count = identity.len();
                for (k, &member) in identity.iter().enumerate() {
                    let comma = bytes.len();
                    if k > 0 {
                        bytes.push(b',');
                    }
                    let start = bytes.len();
                    write_string(bytes, tape.key(member));
                    bytes.push(b':');
                    tape.write_canonical(bytes, member + 1, 2)?;
                    if tape.key(member) == "proof_id" {
                        body.proof_id_member =
                            Some(member_span(k, count, comma, start, bytes.len()));
                    }
                }
                bytes.push(b'}');
            }
            _ => tape.write_canonical(bytes, key + 1, 1)?,
        }
    }
    match (cut, second) {
        (Some(cut), false) => {
            if let Some(&key) = members.get(cut.section) {
                if !first {
                    bytes.push(b',');
                }
                write_string(bytes, tape.key(key));
                bytes.push(b':');
                bytes.push(tape.brackets(key + 1).0);
                tape.write_children(bytes, key + 1, 1, 0..cut.child)?;
            }
        }
        _ => bytes.push(b'}'),
    }
    Ok(())
}

/// The proof_id of a record: SHA-256 of the canonical record without its `signature` member
/// and without `identity.proof_id`, as 64 lowercase hex characters.
///
/// The record need not be complete or signed; only its being an object is required.
///
/// ```
/// use empiric_proof::{parse, proof_id, sha256_hex};
///
/// let record = parse(r#"{"identity":{"proof_id":"x","schema_version":"1.0"},
///                       "claim":{"statement":"s"},"signature":{"signature":"y"}}"#).unwrap();
/// assert_eq!(
///     proof_id(&record).unwrap(),
///     sha256_hex(br#"{"claim":{"statement":"s"},"identity":{"schema_version":"1.0"}}"#)
/// );
/// ```
///
/// # Errors
///
/// `record_structure` when `record` is not an object, and the errors of
/// [`crate::canonicalize_bytes`].
pub fn proof_id(record: &CanonicalValue) -> Result<String, Error> {
    Ok(hex::encode(Body::of(as_record(record)?)?.proof_id()))
}

fn is_lower_hex_64(value: Option<&str>) -> bool {
    value
        .is_some_and(|s| s.len() == 64 && s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
}

/// What a record holds at `identity` or `signature`.
enum Part<'v> {
    NotObject,
    /// An object: its `proof_id` / `signature` member when that is a string, and its number
    /// of members.
    Object(Option<&'v str>, usize),
}

/// Checks the structure of a record (step 2 of verification): an object with exactly the
/// nine [`RECORD_SECTIONS`], `identity.proof_id` a string of 64 lowercase hex characters,
/// `signature` an object whose only member `signature` is 64 lowercase hex characters.
/// `keys` are the record's top-level keys.
fn check_shape(keys: &[&str], identity: Part<'_>, signature: Part<'_>) -> Result<(), Error> {
    for name in RECORD_SECTIONS {
        if !keys.contains(&name) {
            return Err(structure(format!("the record has no {name:?} section")));
        }
    }
    if let Some(extra) = keys.iter().find(|k| !RECORD_SECTIONS.contains(k)) {
        return Err(structure(format!(
            "the record has an unknown top-level member {extra:?}"
        )));
    }
    match identity {
        Part::NotObject => return Err(structure("identity is not an object")),
        Part::Object(id, _) if !is_lower_hex_64(id) => {
            return Err(structure(
                "identity.proof_id is not 64 lowercase hex characters",
            ))
        }
        Part::Object(..) => {}
    }
    match signature {
        Part::NotObject => Err(structure("signature is not an object")),
        Part::Object(sig, _) if !is_lower_hex_64(sig) => Err(structure(
            "signature.signature is not 64 lowercase hex characters",
        )),
        Part::Object(_, 1) => Ok(()),
        Part::Object(..) => Err(structure(
            "the signature section has members other than \"signature\"",
        )),
    }
}

fn check_structure(value: &CanonicalValue) -> Result<(), Error> {
    let record = as_record(value)?;
    let keys: Vec<&str> = record.keys().map(String::as_str).collect();
    let part = |section: &str, member: &str| match record.get(section) {
        Some(CanonicalValue::Object(map)) => {
            Part::Object(map.get(member).and_then(CanonicalValue::as_str), map.len())
        }
        _ => Part::NotObject,
    };
    check_shape(
        &keys,
        part("identity", "proof_id"),
        part("signature", "signature"),
    )
}

/// A parsed proof record whose structure has been checked (see [`parse_proof`]); its
/// proof_id and signature have not been checked yet (see [`verify_signature`]).
///
/// ```
/// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
/// let proof = empiric_proof::parse_proof(&text).unwrap();
/// assert_eq!(proof.outcome(), Some("VALIDATED"));
/// assert_eq!(proof.proof_id().len(), 64);
/// assert_eq!(proof.signature().len(), 64);
/// assert!(proof.section("evidence").is_some_and(|e| e.as_array().is_some()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    value: CanonicalValue,
}

impl Proof {
    /// Checks the structure of a record value and wraps it.
    ///
    /// ```
    /// use empiric_proof::{CanonicalValue, Proof};
    /// let err = Proof::from_value(CanonicalValue::object()).unwrap_err();
    /// assert_eq!(err.code(), "record_structure");
    /// ```
    ///
    /// # Errors
    ///
    /// `record_structure` when a section is missing or unknown, `identity.proof_id` or
    /// `signature.signature` is not 64 lowercase hex characters, or the `signature` section
    /// has other members.
    pub fn from_value(value: CanonicalValue) -> Result<Proof, Error> {
        check_structure(&value)?;
        Ok(Proof { value })
    }

    /// The whole record.
    ///
    /// ```
    /// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let proof = empiric_proof::parse_proof(&text).unwrap();
    /// assert_eq!(proof.value().as_object().unwrap().len(), 9);
    /// ```
    pub fn value(&self) -> &CanonicalValue {
        &self.value
    }

    /// The record value, unwrapped.
    ///
    /// ```
    /// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let value = empiric_proof::parse_proof(&text).unwrap().into_value();
    /// assert!(value.get("claim").is_some());
    /// ```
    pub fn into_value(self) -> CanonicalValue {
        self.value
    }

    /// A top-level section of the record, such as `"claim"` or `"verdict"`.
    ///
    /// ```
    /// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let proof = empiric_proof::parse_proof(&text).unwrap();
    /// assert!(proof.section("claim").and_then(|c| c.get("statement")).is_some());
    /// ```
    pub fn section(&self, name: &str) -> Option<&CanonicalValue> {
        self.value.get(name)
    }

    /// `identity.proof_id` as written in the record (64 lowercase hex characters).
    ///
    /// ```
    /// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let proof = empiric_proof::parse_proof(&text).unwrap();
    /// assert!(proof.proof_id().starts_with("372add4b"));
    /// ```
    pub fn proof_id(&self) -> &str {
        self.value
            .get("identity")
            .and_then(|i| i.get("proof_id"))
            .and_then(CanonicalValue::as_str)
            .unwrap_or_default()
    }

    /// `signature.signature` as written in the record (64 lowercase hex characters).
    ///
    /// ```
    /// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let proof = empiric_proof::parse_proof(&text).unwrap();
    /// assert!(proof.signature().starts_with("f7e5151d"));
    /// ```
    pub fn signature(&self) -> &str {
        self.value
            .get("signature")
            .and_then(|s| s.get("signature"))
            .and_then(CanonicalValue::as_str)
            .unwrap_or_default()
    }

    /// `verdict.outcome` (such as `"VALIDATED"` or `"REFUTED"`) when it is a string.
    ///
    /// ```
    /// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// assert_eq!(empiric_proof::parse_proof(&text).unwrap().outcome(), Some("VALIDATED"));
    /// ```
    pub fn outcome(&self) -> Option<&str> {
        self.value
            .get("verdict")
            .and_then(|v| v.get("outcome"))
            .and_then(CanonicalValue::as_str)
    }

    fn body(&self) -> Result<Body, Error> {
        Body::of(as_record(&self.value)?)
    }
}

/// Parses a record text and checks its structure (steps 1 and 2 of verification).
///
/// ```
/// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
/// let proof = empiric_proof::parse_proof(&text).unwrap();
/// assert_eq!(proof.outcome(), Some("VALIDATED"));
/// assert_eq!(empiric_proof::parse_proof("{}").unwrap_err().code(), "record_structure");
/// assert_eq!(empiric_proof::parse_proof("{").unwrap_err().code(), "syntax_error");
/// ```
///
/// # Errors
///
/// The codes of [`crate::parse`], then `record_structure`.
pub fn parse_proof(text: &str) -> Result<Proof, Error> {
    Proof::from_value(parse(text)?)
}

/// Like [`parse_proof`] for bytes (`invalid_utf8` when they are not UTF-8).
///
/// ```
/// assert_eq!(empiric_proof::parse_proof_bytes(b"\xff").unwrap_err().code(), "invalid_utf8");
/// ```
///
/// # Errors
///
/// The codes of [`crate::parse_bytes`], then `record_structure`.
pub fn parse_proof_bytes(bytes: &[u8]) -> Result<Proof, Error> {
    Proof::from_value(parse_bytes(bytes)?)
}

fn check_id(stored: &str, computed: &[u8; 32]) -> Result<(), Error> {
    let computed = hex::encode(computed);
    if computed != stored {
        return Err(Error::new(
            ErrorCode::ProofIdMismatch,
            format!("identity.proof_id is {stored} but the body hashes to {computed}"),
        ));
    }
    Ok(())
}

fn signature_mismatch() -> Error {
    Error::new(
        ErrorCode::SignatureMismatch,
        "the signature does not match under the given key",
    )
}

/// Whether `signature_hex` is the HMAC of `body` under `key` (compared in constant time).
fn signature_matches(body: &[u8], key: &[u8], signature_hex: &str) -> bool {
    let mut expected = [0u8; 32];
    if hex::decode_to_slice(signature_hex, &mut expected).is_err() {
        return false;
    }
    let mut mac = new_mac(key);
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

/// Bodies from this size on are hashed on two threads when the machine has two CPUs.
const PARALLEL_HASH_MIN: usize = 256 * 1024;

fn has_spare_cpu() -> bool {
    static SPARE: OnceLock<bool> = OnceLock::new();
    *SPARE.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// The proof_id hash of a body and, with a key, whether the signature matches.
///
/// The two are independent passes over the body, so a large body is hashed for its
/// proof_id on a second thread while this one computes the HMAC.
fn hash_body(body: &Body, key: Option<&[u8]>, signature_hex: &str) -> ([u8; 32], Option<bool>) {
    let Some(key) = key else {
        return (body.proof_id(), None);
    };
    if body.bytes.len() >= PARALLEL_HASH_MIN && has_spare_cpu() {
        let parallel = std::thread::scope(|scope| {
            let helper = std::thread::Builder::new()
                .spawn_scoped(scope, || body.proof_id())
                .ok()?;
            let signature_ok = signature_matches(&body.bytes, key, signature_hex);
            helper.join().ok().map(|id| (id, Some(signature_ok)))
        });
        if let Some(result) = parallel {
            return result;
        }
    }
    (
        body.proof_id(),
        Some(signature_matches(&body.bytes, key, signature_hex)),
    )
}

/// Checks that `identity.proof_id` is the hash of the body (step 3 of verification), which
/// needs no key.
///
/// ```
/// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
/// let proof = empiric_proof::parse_proof(&text).unwrap();
/// assert!(empiric_proof::verify_proof_id(&proof).is_ok());
/// ```
///
/// # Errors
///
/// `proof_id_mismatch`, and the errors of [`crate::canonicalize_bytes`].
pub fn verify_proof_id(proof: &Proof) -> Result<(), Error> {
    check_id(proof.proof_id(), &proof.body()?.proof_id())
}

/// Checks a parsed record under a key (steps 3 and 4 of verification): `Err` with
/// `proof_id_mismatch` when the proof_id is wrong, `Ok(false)` when the signature does not
/// match under `key_bytes`, `Ok(true)` when it does. Keys of any length are accepted; the
/// signature is compared in constant time.
///
/// ```
/// use empiric_proof::{parse_proof, verify_signature};
/// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
///
/// let proof = parse_proof(&text).unwrap();
/// assert_eq!(verify_signature(&proof, b"empiric-record-fixtures-test-key-v1"), Ok(true));
/// assert_eq!(verify_signature(&proof, b"empiric-record-fixtures-other-key-v1"), Ok(false));
/// ```
///
/// # Errors
///
/// `proof_id_mismatch`, and the errors of [`crate::canonicalize_bytes`].
pub fn verify_signature(proof: &Proof, key_bytes: &[u8]) -> Result<bool, Error> {
    let body = proof.body()?;
    let (computed_id, signature_ok) = hash_body(&body, Some(key_bytes), proof.signature());
    check_id(proof.proof_id(), &computed_id)?;
    Ok(signature_ok == Some(true))
}

/// Verifies a record text in the order of the wire format and returns the first failure:
/// parse errors, `record_structure`, `proof_id_mismatch`, (only with a key)
/// `signature_mismatch`, then, with or without a key, `verdict_inconsistent` (the outcome
/// must follow from the deciding evidence and its rule; see [`crate::verify_verdict`]).
///
/// This is the fast path: the record is checked and canonicalized straight from the parsed
/// text, without building a [`CanonicalValue`] tree.
///
/// ```
/// use empiric_proof::verify_record;
/// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
///
/// assert!(verify_record(&text, Some(b"empiric-record-fixtures-test-key-v1")).is_ok());
/// assert!(verify_record(&text, None).is_ok());
/// let err = verify_record(&text, Some(b"empiric-record-fixtures-other-key-v1")).unwrap_err();
/// assert_eq!(err.code(), "signature_mismatch");
/// ```
///
/// # Errors
///
/// The first failing check's code, as listed above.
pub fn verify_record(text: &str, key_bytes: Option<&[u8]>) -> Result<(), Error> {
    if let Some(result) = verify_in_parallel(text.as_bytes(), Some(text), key_bytes) {
        return result.map(drop);
    }
    verify_tape(&tape::read(text, MAX_DEPTH)?, text.len(), key_bytes).map(drop)
}

/// Records from this size on are verified on two threads when the machine has two CPUs.
const PARALLEL_VERIFY_MIN: usize = 256 * 1024;

/// Verifies a large record on two threads ([`crate::pipeline`]); `None` when the record is
/// small or must be verified sequentially.
fn verify_in_parallel(
    bytes: &[u8],
    text: Option<&str>,
    key_bytes: Option<&[u8]>,
) -> Option<Result<Verified, Error>> {
    if bytes.len() < PARALLEL_VERIFY_MIN || !has_spare_cpu() {
        return None;
    }
    crate::pipeline::verify(bytes, text, key_bytes)
}

/// Like [`verify_record`] for bytes (`invalid_utf8` when they are not UTF-8), returning a
/// summary of the verified record.
///
/// ```
/// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
/// let key = b"empiric-record-fixtures-test-key-v1";
/// let verified = empiric_proof::verify_record_bytes(&bytes, Some(key)).unwrap();
/// assert_eq!(verified.outcome(), Some("VALIDATED"));
/// assert!(verified.proof_id().starts_with("372add4b"));
/// assert!(verified.signature_checked());
/// ```
///
/// # Errors
///
/// As [`verify_record`], plus `invalid_utf8`.
pub fn verify_record_bytes(bytes: &[u8], key_bytes: Option<&[u8]>) -> Result<Verified, Error> {
    if let Some(result) = verify_in_parallel(bytes, None, key_bytes) {
        return result;
    }
    verify_tape(&read_bytes(bytes, MAX_DEPTH)?, bytes.len(), key_bytes)
}

/// What [`verify_record_bytes`] returns for a record that passed every check.
///
/// ```
/// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
/// let verified = empiric_proof::verify_record_bytes(&bytes, None).unwrap();
/// assert!(!verified.signature_checked());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    proof_id: String,
    outcome: Option<String>,
    signature_checked: bool,
    verdict_checked: bool,
}

impl Verified {
    /// `identity.proof_id`, which matched the hash of the body.
    ///
    /// ```
    /// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let verified = empiric_proof::verify_record_bytes(&bytes, None).unwrap();
    /// assert_eq!(verified.proof_id().len(), 64);
    /// ```
    pub fn proof_id(&self) -> &str {
        &self.proof_id
    }

    /// `verdict.outcome` when it is a string.
    ///
    /// ```
    /// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let verified = empiric_proof::verify_record_bytes(&bytes, None).unwrap();
    /// assert_eq!(verified.outcome(), Some("VALIDATED"));
    /// ```
    pub fn outcome(&self) -> Option<&str> {
        self.outcome.as_deref()
    }

    /// Whether a key was given, so that the signature was checked too (and matched).
    ///
    /// ```
    /// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
    /// let key: &[u8] = b"empiric-record-fixtures-test-key-v1";
    /// assert!(empiric_proof::verify_record_bytes(&bytes, Some(key)).unwrap().signature_checked());
    /// ```
    pub fn signature_checked(&self) -> bool {
        self.signature_checked
    }

    /// Whether the verdict was checked against the deciding pillar's evidence and rule (and
    /// followed from them); false for records without pillar entities, which cannot be.
    ///
    /// ```
    /// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/");
    /// let pillars = std::fs::read(format!("{dir}valid-pillars.json")).unwrap();
    /// assert!(empiric_proof::verify_record_bytes(&pillars, None).unwrap().verdict_checked());
    /// let old = std::fs::read(format!("{dir}valid.json")).unwrap();
    /// assert!(!empiric_proof::verify_record_bytes(&old, None).unwrap().verdict_checked());
    /// ```
    pub fn verdict_checked(&self) -> bool {
        self.verdict_checked
    }
}

pub(crate) fn verify_tape(
    tape: &Tape<'_>,
    input_len: usize,
    key_bytes: Option<&[u8]>,
) -> Result<Verified, Error> {
    verify_tape_with(tape, key_bytes, |stored_signature| {
        let body = Body::of_tape(tape, input_len)?;
        Ok(hash_body(&body, key_bytes, stored_signature))
    })
}

/// Verifies a parsed record; `hash` computes the proof_id hash of the body and, with a key,
/// whether the signature (given as its stored hex) matches.
pub(crate) fn verify_tape_with(
    tape: &Tape<'_>,
    key_bytes: Option<&[u8]>,
    hash: impl FnOnce(&str) -> Result<([u8; 32], Option<bool>), Error>,
) -> Result<Verified, Error> {
    let Some(members) = tape.members(0) else {
        return Err(structure(format!(
            "a record is a JSON object, not a {}",
            tape.type_name(0)
        )));
    };
    let keys: Vec<&str> = members.iter().map(|&k| tape.key(k)).collect();
    let part = |section: &str, member: &str| match tape.get(0, section) {
        Some(index) => match tape.members(index) {
            Some(members) => Part::Object(
                tape.get(index, member).and_then(|m| tape.str_at(m)),
                members.len(),
            ),
            None => Part::NotObject,
        },
        _ => Part::NotObject,
    };
    let identity = part("identity", "proof_id");
    let signature = part("signature", "signature");
    let (stored_id, stored_signature) = match (&identity, &signature) {
        (Part::Object(id, _), Part::Object(sig, _)) => (id.unwrap_or(""), sig.unwrap_or("")),
        _ => ("", ""),
    };
    check_shape(&keys, identity, signature)?;
    let (computed_id, signature_ok) = hash(stored_signature)?;
    check_id(stored_id, &computed_id)?;
    if signature_ok == Some(false) {
        return Err(signature_mismatch());
    }
    let verdict = crate::verdict::check(crate::verdict::At { tape, index: 0 })?;
    Ok(Verified {
        verdict_checked: verdict == crate::verdict::VerdictCheck::Pass,
        proof_id: stored_id.to_owned(),
        outcome: tape
            .get(0, "verdict")
            .and_then(|v| tape.get(v, "outcome"))
            .and_then(|o| tape.str_at(o))
            .map(str::to_owned),
        signature_checked: key_bytes.is_some(),
    })
}

/// Signs a record: removes any `signature` and `identity.proof_id`, computes the proof_id
/// and puts it into `identity`, signs the body and adds
/// `"signature": {"signature": "<hex>"}`.
///
/// `record` must hold the eight body sections of [`RECORD_SECTIONS`] and an `identity`
/// object.
///
/// ```
/// use empiric_proof::{parse, sign_record, verify_record, canonicalize};
/// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
///
/// let key = b"empiric-record-fixtures-test-key-v1";
/// let mut record = parse(&text).unwrap();
/// let claim = record.as_object_mut().unwrap().get_mut("claim").unwrap();
/// claim.insert("statement", "an edited claim, signed again");
/// let proof = sign_record(record, key).unwrap();
/// let signed = canonicalize(proof.value()).unwrap();
/// assert!(verify_record(&signed, Some(key)).is_ok());
/// ```
///
/// # Errors
///
/// `key_too_short`, `record_structure`, and the errors of [`crate::canonicalize_bytes`].
pub fn sign_record(record: CanonicalValue, key_bytes: &[u8]) -> Result<Proof, Error> {
    check_signing_key(key_bytes)?;
    let mut record = record;
    let map = record
        .as_object_mut()
        .ok_or_else(|| structure("a record is a JSON object"))?;
    map.remove("signature");
    let identity = map
        .get_mut("identity")
        .and_then(CanonicalValue::as_object_mut)
        .ok_or_else(|| structure("identity is not an object"))?;
    identity.remove("proof_id");
    let id = hex::encode(Body::of(map)?.proof_id());
    if let Some(identity) = map
        .get_mut("identity")
        .and_then(CanonicalValue::as_object_mut)
    {
        identity.insert("proof_id".to_owned(), CanonicalValue::String(id));
    }
    let body = Body::of(map)?;
    let signature = hmac_sha256_hex(key_bytes, &body.bytes);
    map.insert(
        "signature".to_owned(),
        CanonicalValue::object().with("signature", signature),
    );
    Proof::from_value(record)
}
