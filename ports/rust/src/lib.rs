//! The Rust port of the empiric wire format: typed JSON parsing, canonical bytes, hashes,
//! signatures and proof-record verification, exactly as `docs/wire-format.md` specifies.
//!
//! The canonical bytes of a value are what Python writes with
//! `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
//! allow_nan=False)`, so a record can be checked with Python alone; this crate produces the
//! same bytes, and reads any JSON text into a [`CanonicalValue`] that keeps ints and floats
//! apart.
//!
//! ```
//! use empiric_proof::{canonicalize_bytes, parse, sha256_hex, sign_canonical};
//!
//! let value = parse(r#"{ "b": 1.0, "a": 1, "s": "caf\u00e9" }"#)?;
//! let bytes = canonicalize_bytes(&value)?;
//! assert_eq!(bytes, br#"{"a":1,"b":1.0,"s":"caf\u00e9"}"#);
//!
//! let digest = sha256_hex(&bytes);
//! let signature = sign_canonical(&value, b"a key of at least thirty-two bytes")?;
//! assert_eq!((digest.len(), signature.len()), (64, 64));
//! # Ok::<(), empiric_proof::Error>(())
//! ```
//!
//! Verifying a proof record:
//!
//! ```
//! use empiric_proof::{parse_proof, verify_record, verify_signature};
//! # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/valid.json")).unwrap();
//! let key = b"empiric-record-fixtures-test-key-v1";
//!
//! // One call, the first failure's code as the error:
//! verify_record(&text, Some(key))?;
//!
//! // Or step by step:
//! let proof = parse_proof(&text)?;
//! assert!(verify_signature(&proof, key)?);
//! println!("{} {:?}", proof.proof_id(), proof.outcome());
//! # Ok::<(), empiric_proof::Error>(())
//! ```
//!
//! Every error carries a stable code ([`Error::code`], the strings of the wire format such as
//! `"duplicate_key"`) and, for parse errors, the byte offset where the problem was met.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod canonical;
pub mod dsse;
mod error;
mod parse;
mod pipeline;
mod record;
mod tape;
mod value;
mod verdict;

pub use canonical::{canonicalize, canonicalize_bytes, write_canonical};
pub use error::{Error, ErrorCode};
pub use parse::{
    canonicalize_json, parse, parse_bytes, parse_bytes_with_max_depth, DEPTH_CEILING, MAX_DEPTH,
};
pub use record::{
    hmac_sha256_hex, parse_proof, parse_proof_bytes, proof_id, sha256_hex, sign_canonical,
    sign_record, verify_proof_id, verify_record, verify_record_bytes, verify_signature, Proof,
    Verified, DEMO_KEY, MIN_SIGNING_KEY_LEN, RECORD_SECTIONS,
};
pub use value::CanonicalValue;
pub use verdict::{rule_outcome, verify_verdict, RuleBaseline, RuleInputs, VerdictCheck};
