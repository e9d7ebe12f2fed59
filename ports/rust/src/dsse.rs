//! Public-key DSSE attestations: verify envelopes signed with Ed25519 or ECDSA P-256 keys
//! (`docs/keys.md` in the repository), with `ed25519-dalek` and `p256`.
//!
//! Verification runs in order and the first failing step gives the error code: the envelope's
//! shape and base64 (`schema_invalid`); each signature under each key, the key its `keyid`
//! names first (`signature_mismatch` when none verifies; ECDSA signatures must be ASN.1 DER, as
//! cosign and securesystemslib write them); the payload type is in-toto and the payload an
//! in-toto Statement v1 (`schema_invalid`). A key id is the lowercase hex SHA-256 of the key's
//! DER SubjectPublicKeyInfo.
//!
//! ```
//! use empiric_proof::dsse::{verify_dsse, PublicKey};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/attestations/");
//! let pem = std::fs::read_to_string(format!("{dir}keys/p256.pub")).unwrap();
//! let env = std::fs::read_to_string(format!("{dir}proof-p256.dsse.json")).unwrap();
//! let key = PublicKey::from_pem(&pem)?;
//! let verified = verify_dsse(&env, &[key.clone()])?;
//! assert_eq!(verified.signers, vec![key.keyid().to_string()]);
//! # Ok::<(), empiric_proof::Error>(())
//! ```

use base64::alphabet;
use base64::engine::{DecodePaddingMode, Engine, GeneralPurpose, GeneralPurposeConfig};
use ed25519_dalek::pkcs8::{DecodePublicKey as _, EncodePublicKey as _};
use p256::ecdsa::signature::Verifier as _;

use crate::error::{Error, ErrorCode};
use crate::record::sha256_hex;
use crate::value::CanonicalValue;

/// DSSE `payloadType` of an in-toto Statement.
pub const INTOTO_PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// `_type` of an in-toto Statement v1.
pub const STATEMENT_V1_TYPE: &str = "https://in-toto.io/Statement/v1";

#[derive(Clone, Debug)]
enum Key {
    Ed25519(ed25519_dalek::VerifyingKey),
    P256(p256::ecdsa::VerifyingKey),
}

/// A public key that verifies DSSE signatures: Ed25519 or ECDSA P-256.
#[derive(Clone, Debug)]
pub struct PublicKey {
    key: Key,
    keyid: String,
}

impl PublicKey {
    /// Read a SubjectPublicKeyInfo PEM public key (`-----BEGIN PUBLIC KEY-----`).
    pub fn from_pem(pem: &str) -> Result<PublicKey, Error> {
        if let Ok(k) = ed25519_dalek::VerifyingKey::from_public_key_pem(pem) {
            let der = k.to_public_key_der().map_err(key_error)?;
            return Ok(PublicKey {
                keyid: sha256_hex(der.as_bytes()),
                key: Key::Ed25519(k),
            });
        }
        match p256::ecdsa::VerifyingKey::from_public_key_pem(pem) {
            Ok(k) => {
                let der = k.to_public_key_der().map_err(key_error)?;
                Ok(PublicKey {
                    keyid: sha256_hex(der.as_bytes()),
                    key: Key::P256(k),
                })
            }
            Err(_) => Err(Error::new(
                ErrorCode::KeyInvalid,
                "not a PEM SubjectPublicKeyInfo Ed25519 or ECDSA P-256 public key",
            )),
        }
    }

    /// The key id: lowercase hex SHA-256 of the DER SubjectPublicKeyInfo.
    pub fn keyid(&self) -> &str {
        &self.keyid
    }

    /// `"ed25519"` or `"ecdsa-p256"`.
    pub fn algorithm(&self) -> &'static str {
        match self.key {
            Key::Ed25519(_) => "ed25519",
            Key::P256(_) => "ecdsa-p256",
        }
    }

    fn verify(&self, message: &[u8], sig: &[u8]) -> bool {
        match &self.key {
            Key::Ed25519(k) => match ed25519_dalek::Signature::from_slice(sig) {
                Ok(s) => k.verify_strict(message, &s).is_ok(),
                Err(_) => false,
            },
            Key::P256(k) => match p256::ecdsa::DerSignature::try_from(sig) {
                Ok(s) => {
                    // Only the minimal DER encoding is accepted: re-encoding must give the input.
                    let sig2: p256::ecdsa::Signature = match s.clone().try_into() {
                        Ok(x) => x,
                        Err(_) => return false,
                    };
                    sig2.to_der().as_bytes() == sig && k.verify(message, &sig2).is_ok()
                }
                Err(_) => false,
            },
        }
    }
}

fn key_error<E: std::fmt::Display>(e: E) -> Error {
    Error::new(
        ErrorCode::KeyInvalid,
        format!("cannot encode the public key: {e}"),
    )
}

/// A verified envelope: the key ids whose signature verified and the Statement.
#[derive(Debug, Clone)]
pub struct VerifiedEnvelope {
    /// Key ids of the keys whose signature verified, in signature order, without repeats.
    pub signers: Vec<String>,
    /// The envelope's payloadType.
    pub payload_type: String,
    /// The in-toto Statement, parsed from the verified payload bytes.
    pub statement: CanonicalValue,
}

/// The DSSE pre-authentication encoding.
///
/// ```
/// assert_eq!(
///     empiric_proof::dsse::pae("http://example.com/HelloWorld", b"hello world"),
///     b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
/// );
/// ```
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {} {} ",
        payload_type.len(),
        payload_type,
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

fn engine(alphabet: &alphabet::Alphabet) -> GeneralPurpose {
    GeneralPurpose::new(
        alphabet,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(false),
    )
}

/// Standard or URL-safe base64, padded or not (DSSE verifiers accept both).
fn b64(text: &str) -> Option<Vec<u8>> {
    let url = text.contains(['-', '_']);
    if url && text.contains(['+', '/']) {
        return None;
    }
    let e = engine(if url {
        &alphabet::URL_SAFE
    } else {
        &alphabet::STANDARD
    });
    e.decode(text).ok()
}

fn schema(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::SchemaInvalid, message)
}

/// Verify a public-key DSSE envelope of an in-toto Statement under `keys`. The error's code is
/// the first failing step's: `schema_invalid`, `signature_mismatch`, or a parse code for an
/// envelope or payload that is not JSON.
pub fn verify_dsse(envelope: &str, keys: &[PublicKey]) -> Result<VerifiedEnvelope, Error> {
    let env = crate::parse::parse(envelope)?;
    if env.as_object().is_none() {
        return Err(schema("the envelope is not a JSON object"));
    }
    let payload = env
        .get("payload")
        .and_then(|v| v.as_str())
        .ok_or_else(|| schema("payload must be a string"))?;
    let ptype = env
        .get("payloadType")
        .and_then(|v| v.as_str())
        .ok_or_else(|| schema("payloadType must be a string"))?;
    let sigs = match env.get("signatures").and_then(|v| v.as_array()) {
        Some(s) if !s.is_empty() => s,
        _ => return Err(schema("signatures must be a non-empty array")),
    };
    let body = b64(payload).ok_or_else(|| schema("payload is not valid base64"))?;
    let mut decoded = Vec::with_capacity(sigs.len());
    for (i, s) in sigs.iter().enumerate() {
        let sig = s.get("sig").and_then(|v| v.as_str()).ok_or_else(|| {
            schema(format!(
                "signatures[{i}] must be an object with a string sig"
            ))
        })?;
        let keyid = match s.get("keyid") {
            None => None,
            Some(CanonicalValue::String(k)) => Some(k.as_str()),
            Some(_) => return Err(schema(format!("signatures[{i}].keyid must be a string"))),
        };
        let raw =
            b64(sig).ok_or_else(|| schema(format!("signatures[{i}].sig is not valid base64")))?;
        decoded.push((keyid, raw));
    }
    let message = pae(ptype, &body);
    let mut signers: Vec<String> = Vec::new();
    for (keyid, raw) in &decoded {
        let mut order: Vec<&PublicKey> = keys.iter().collect();
        order.sort_by_key(|k| Some(k.keyid()) != *keyid); // the named key first
        if let Some(k) = order.into_iter().find(|k| k.verify(&message, raw)) {
            if !signers.iter().any(|s| s == k.keyid()) {
                signers.push(k.keyid().to_string());
            }
        }
    }
    if signers.is_empty() {
        return Err(Error::new(
            ErrorCode::SignatureMismatch,
            "no signature verifies under the given keys",
        ));
    }
    if ptype != INTOTO_PAYLOAD_TYPE {
        return Err(schema(format!(
            "payloadType is {ptype:?}, expected {INTOTO_PAYLOAD_TYPE}"
        )));
    }
    let statement = crate::parse::parse_bytes(&body)?;
    if statement.get("_type").and_then(|v| v.as_str()) != Some(STATEMENT_V1_TYPE) {
        return Err(schema("the payload is not an in-toto Statement v1"));
    }
    let subjects_ok = statement
        .get("subject")
        .and_then(|v| v.as_array())
        .is_some_and(|s| {
            !s.is_empty()
                && s.iter().all(|d| {
                    d.get("digest")
                        .and_then(|g| g.as_object())
                        .is_some_and(|g| !g.is_empty())
                })
        });
    if !subjects_ok
        || statement
            .get("predicateType")
            .and_then(|v| v.as_str())
            .is_none()
        || statement
            .get("predicate")
            .and_then(|v| v.as_object())
            .is_none()
    {
        return Err(schema(
            "the Statement needs subject digests, predicateType and predicate",
        ));
    }
    Ok(VerifiedEnvelope {
        signers,
        payload_type: ptype.to_string(),
        statement,
    })
}
