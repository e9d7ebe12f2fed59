"""empiric_proof: the empiric wire format in Python (standard library only).

Strict typed parsing, canonical bytes, hashes and HMAC signatures of empiric proof records,
as specified by docs/wire-format.md. The canonical bytes of a value are exactly

    json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
               allow_nan=False).encode("ascii")

for values inside the value model; this package adds the strict parser that reads every
record into the same value in every language, and rejects what the contract forbids.

>>> from empiric_proof import parse, canonicalize, sha256_hex
>>> value = parse('{"b": 1.0, "a": 1}')
>>> canonicalize(value)
b'{"a":1,"b":1.0}'
>>> sha256_hex(canonicalize(value))[:16]
'386f210ad07c6df9'
"""

from ._canonical import (
    MIN_SIGNING_KEY_BYTES,
    canonicalize,
    hmac_sha256_hex,
    sha256_hex,
    sign_canonical,
)
from ._parse import INT_MAX, INT_MIN, MAX_DEPTH, JSONValue, parse
from ._record import (
    SECTIONS,
    check_structure,
    parse_proof,
    proof_id,
    sign_record,
    verify_record,
    verify_signature,
)
from ._verdict import check_verdict, rule_outcome
from .errors import WireError

__version__ = "0.1.0"

DEMO_KEY = b"empiric-demo-key-do-not-use-in-production"
"""The documented demo key. Never use it in production."""

__all__ = [
    "WireError",
    "parse",
    "canonicalize",
    "sha256_hex",
    "hmac_sha256_hex",
    "sign_canonical",
    "proof_id",
    "parse_proof",
    "check_structure",
    "verify_signature",
    "verify_record",
    "sign_record",
    "check_verdict",
    "rule_outcome",
    "JSONValue",
    "SECTIONS",
    "MAX_DEPTH",
    "INT_MIN",
    "INT_MAX",
    "MIN_SIGNING_KEY_BYTES",
    "DEMO_KEY",
    "__version__",
]
