//! The error type shared by parsing, canonicalization, signing and record checks.

use std::fmt;

/// The stable error codes of the wire format (see `docs/wire-format.md`).
///
/// Every port reports the same code for the same invalid input; the string form returned by
/// [`ErrorCode::as_str`] is what the test vectors and the command line use.
///
/// ```
/// use empiric_proof::ErrorCode;
/// assert_eq!(ErrorCode::DuplicateKey.as_str(), "duplicate_key");
/// assert_eq!(ErrorCode::from_code("invalid_utf8"), Some(ErrorCode::InvalidUtf8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `syntax_error`: not JSON (unexpected character or end of input, bad escape, bad number
    /// form, trailing data, byte order mark).
    SyntaxError,
    /// `duplicate_key`: an object has the same key twice (after unescaping).
    DuplicateKey,
    /// `lone_surrogate`: a string holds a surrogate that is not part of a valid pair.
    LoneSurrogate,
    /// `non_finite_number`: NaN, an infinity, or a number literal that overflows binary64.
    NonFiniteNumber,
    /// `int_out_of_range`: an int outside -2^63 .. 2^63-1.
    IntOutOfRange,
    /// `depth_exceeded`: more than 512 nested arrays/objects.
    DepthExceeded,
    /// `invalid_utf8`: the input bytes are not well-formed UTF-8.
    InvalidUtf8,
    /// `key_too_short`: a signing key shorter than 32 bytes.
    KeyTooShort,
    /// `record_structure`: a record section or the signature is missing or malformed.
    RecordStructure,
    /// `proof_id_mismatch`: `identity.proof_id` is not the hash of the body.
    ProofIdMismatch,
    /// `signature_mismatch`: the HMAC does not match under the given key, or no DSSE
    /// signature verifies under the given public keys.
    SignatureMismatch,
    /// `schema_invalid`: a DSSE envelope or the Statement in it is malformed.
    SchemaInvalid,
    /// `key_invalid`: a public key that cannot be read or is of another algorithm.
    KeyInvalid,
    /// `verdict_inconsistent`: the outcome does not follow from the deciding pillar's evidence,
    /// the claim's threshold and the recorded decision rule (checked with or without a key).
    VerdictInconsistent,
}

impl ErrorCode {
    /// Every code, in the order of the wire-format document.
    pub const ALL: [ErrorCode; 14] = [
        ErrorCode::SyntaxError,
        ErrorCode::DuplicateKey,
        ErrorCode::LoneSurrogate,
        ErrorCode::NonFiniteNumber,
        ErrorCode::IntOutOfRange,
        ErrorCode::DepthExceeded,
        ErrorCode::InvalidUtf8,
        ErrorCode::KeyTooShort,
        ErrorCode::RecordStructure,
        ErrorCode::ProofIdMismatch,
        ErrorCode::SignatureMismatch,
        ErrorCode::SchemaInvalid,
        ErrorCode::KeyInvalid,
        ErrorCode::VerdictInconsistent,
    ];

    /// The stable code string, e.g. `"duplicate_key"`.
    ///
    /// ```
    /// assert_eq!(empiric_proof::ErrorCode::ProofIdMismatch.as_str(), "proof_id_mismatch");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SyntaxError => "syntax_error",
            ErrorCode::DuplicateKey => "duplicate_key",
            ErrorCode::LoneSurrogate => "lone_surrogate",
            ErrorCode::NonFiniteNumber => "non_finite_number",
            ErrorCode::IntOutOfRange => "int_out_of_range",
            ErrorCode::DepthExceeded => "depth_exceeded",
            ErrorCode::InvalidUtf8 => "invalid_utf8",
            ErrorCode::KeyTooShort => "key_too_short",
            ErrorCode::RecordStructure => "record_structure",
            ErrorCode::ProofIdMismatch => "proof_id_mismatch",
            ErrorCode::SignatureMismatch => "signature_mismatch",
            ErrorCode::SchemaInvalid => "schema_invalid",
            ErrorCode::KeyInvalid => "key_invalid",
            ErrorCode::VerdictInconsistent => "verdict_inconsistent",
        }
    }

    /// The code for a code string, or `None` for an unknown string.
    ///
    /// ```
    /// use empiric_proof::ErrorCode;
    /// assert_eq!(ErrorCode::from_code("syntax_error"), Some(ErrorCode::SyntaxError));
    /// assert_eq!(ErrorCode::from_code("nope"), None);
    /// ```
    pub fn from_code(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with its stable code, a human-readable message and, for parse errors, the byte
/// offset in the input where the problem was met.
///
/// Display writes `code: message` followed by ` at byte N` when there is an offset.
///
/// ```
/// let err = empiric_proof::parse(r#"{"a":1,"a":2}"#).unwrap_err();
/// assert_eq!(err.code(), "duplicate_key");
/// assert_eq!(err.offset(), Some(7));
/// assert_eq!(err.to_string(), "duplicate_key: duplicate object key \"a\" at byte 7");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}{}", .0.kind, .0.message, OffsetSuffix(.0.offset))]
pub struct Error(Box<Inner>);

/// Boxed so that `Result<T, Error>` stays one pointer wide on the error side.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorCode,
    offset: Option<usize>,
    message: String,
}

struct OffsetSuffix(Option<usize>);

impl fmt::Display for OffsetSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(offset) => write!(f, " at byte {offset}"),
            None => Ok(()),
        }
    }
}

impl Error {
    /// A new error without a position.
    ///
    /// ```
    /// use empiric_proof::{Error, ErrorCode};
    /// let err = Error::new(ErrorCode::RecordStructure, "missing section");
    /// assert_eq!(err.code(), "record_structure");
    /// assert_eq!(err.offset(), None);
    /// ```
    pub fn new(kind: ErrorCode, message: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            kind,
            offset: None,
            message: message.into(),
        }))
    }

    /// A new error met at byte `offset` of the input.
    ///
    /// ```
    /// use empiric_proof::{Error, ErrorCode};
    /// let err = Error::at(ErrorCode::SyntaxError, 3, "unexpected character");
    /// assert_eq!(err.offset(), Some(3));
    /// ```
    pub fn at(kind: ErrorCode, offset: usize, message: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            kind,
            offset: Some(offset),
            message: message.into(),
        }))
    }

    /// The stable code string, e.g. `"duplicate_key"`.
    ///
    /// ```
    /// assert_eq!(empiric_proof::parse("01").unwrap_err().code(), "syntax_error");
    /// ```
    pub fn code(&self) -> &'static str {
        self.0.kind.as_str()
    }

    /// The code as an enum value.
    ///
    /// ```
    /// use empiric_proof::ErrorCode;
    /// assert_eq!(empiric_proof::parse("NaN").unwrap_err().kind(), ErrorCode::NonFiniteNumber);
    /// ```
    pub fn kind(&self) -> ErrorCode {
        self.0.kind
    }

    /// The byte offset in the parsed input where the problem was met, when there is one.
    ///
    /// ```
    /// assert_eq!(empiric_proof::parse("[1,]").unwrap_err().offset(), Some(3));
    /// ```
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// The human-readable message (without the code and the offset).
    ///
    /// ```
    /// let err = empiric_proof::parse("").unwrap_err();
    /// assert_eq!(err.message(), "unexpected end of input");
    /// ```
    pub fn message(&self) -> &str {
        &self.0.message
    }
}
