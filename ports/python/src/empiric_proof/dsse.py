"""Public-key DSSE attestations: verify Ed25519 and ECDSA P-256 envelopes (docs/keys.md).

The rest of empiric_proof uses the standard library only. The standard library has no
Ed25519 or ECDSA, so this module needs the ``cryptography`` package, the optional extra
``attest``::

    python3 -m pip install "empiric-proof[attest]"    # or: python3 -m pip install cryptography

Without it, :func:`verify_dsse` and :func:`load_public_key` raise :class:`DsseUnavailable`
(``code`` ``"unavailable"``) saying so; nothing is verified silently.

Verification (the first failing step decides the code): the envelope's shape and base64
(``schema_invalid``); each signature under each key, the key its ``keyid`` names first
(``signature_mismatch`` when none verifies); the payload type is in-toto and the payload an
in-toto Statement v1 (``schema_invalid``). ECDSA signatures must be ASN.1 DER, as cosign and
securesystemslib write them. A key id is the lowercase hex SHA-256 of the key's DER
SubjectPublicKeyInfo.

>>> available()  # doctest: +SKIP
True
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

from .errors import WireError
from ._parse import parse

__all__ = [
    "DsseUnavailable",
    "PublicKey",
    "DsseResult",
    "available",
    "load_public_key",
    "pae",
    "verify_dsse",
    "INTOTO_PAYLOAD_TYPE",
    "STATEMENT_V1_TYPE",
    "INSTALL_HINT",
]

INTOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_V1_TYPE = "https://in-toto.io/Statement/v1"
INSTALL_HINT = 'python3 -m pip install "empiric-proof[attest]" (or: python3 -m pip install cryptography)'
UNAVAILABLE = "unavailable"
SCHEMA_INVALID = "schema_invalid"
SIGNATURE_MISMATCH = "signature_mismatch"
KEY_INVALID = "key_invalid"


class DsseUnavailable(WireError):
    """Public-key verification needs the optional ``cryptography`` package, which is missing."""

    def __init__(self) -> None:
        super().__init__(
            UNAVAILABLE,
            "verifying Ed25519 / ECDSA P-256 signatures needs the cryptography package, which is "
            "not installed: " + INSTALL_HINT,
        )


def available() -> bool:
    """True when ``cryptography`` can be imported (public-key verification works)."""
    try:
        import cryptography.hazmat.primitives.asymmetric.ec  # noqa: F401
        import cryptography.hazmat.primitives.asymmetric.ed25519  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class PublicKey:
    """A verification key: ``algorithm`` is ``ed25519`` or ``ecdsa-p256``."""

    algorithm: str
    keyid: str
    key: Any = field(repr=False, compare=False)


def load_public_key(pem: Union[str, bytes], where: str = "key") -> PublicKey:
    """Load a SubjectPublicKeyInfo PEM public key (Ed25519 or ECDSA P-256)."""
    if not available():
        raise DsseUnavailable()
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519

    data = pem.encode() if isinstance(pem, str) else pem
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError as e:
        raise WireError(KEY_INVALID, f"{where}: not a PEM public key: {e}") from None
    if isinstance(key, ed25519.Ed25519PublicKey):
        algorithm = "ed25519"
    elif isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
        algorithm = "ecdsa-p256"
    else:
        raise WireError(KEY_INVALID, f"{where}: only Ed25519 and ECDSA P-256 keys are supported")
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return PublicKey(algorithm, hashlib.sha256(der).hexdigest(), key)


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE pre-authentication encoding.

    >>> pae("http://example.com/HelloWorld", b"hello world")
    b'DSSEv1 29 http://example.com/HelloWorld 11 hello world'
    """
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


_STD = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")
_URLSAFE = re.compile(r"^[A-Za-z0-9_-]*={0,2}$")


def _b64(text: str) -> Optional[bytes]:
    """Standard or URL-safe base64, padded or not; None for anything else."""
    if _STD.match(text):
        std = text
    elif _URLSAFE.match(text):
        std = text.replace("-", "+").replace("_", "/")
    else:
        return None
    body = std.rstrip("=")
    if len(body) % 4 == 1 or (len(std) != len(body) and len(std) % 4 != 0):
        return None
    try:
        out = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(out).decode().rstrip("=") != body:
        return None
    return out


@dataclass
class DsseResult:
    """The outcome of :func:`verify_dsse`."""

    verified: bool
    reason: Optional[str]
    message: Optional[str]
    signers: List[str]
    payload_type: Optional[str] = None
    statement: Any = None


def _verify_one(key: PublicKey, message: bytes, sig: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        if key.algorithm == "ed25519":
            if len(sig) != 64:
                return False
            key.key.verify(sig, message)
        else:
            if not _strict_der(sig):
                return False
            key.key.verify(sig, message, ec.ECDSA(hashes.SHA256()))
        return True
    except (InvalidSignature, ValueError):
        return False


def _strict_der(sig: bytes) -> bool:
    """A minimal DER SEQUENCE of two positive INTEGERs of at most 32 bytes, nothing after it."""
    if len(sig) < 8 or sig[0] != 0x30 or sig[1] != len(sig) - 2 or sig[1] >= 0x80:
        return False
    at = 2
    for _ in range(2):
        if at + 2 > len(sig) or sig[at] != 0x02:
            return False
        n = sig[at + 1]
        v = sig[at + 2 : at + 2 + n]
        if n == 0 or len(v) != n or v[0] & 0x80 or (n > 1 and v[0] == 0 and not v[1] & 0x80):
            return False
        if n - (1 if v[0] == 0 and n > 1 else 0) > 32:
            return False
        at += 2 + n
    return at == len(sig)


def verify_dsse(envelope: Union[str, bytes, Dict[str, Any]], keys: Sequence[PublicKey]) -> DsseResult:
    """Verify a public-key DSSE envelope of an in-toto Statement under ``keys``.

    Never raises for a bad envelope: the result carries the stable ``reason``. Raises
    :class:`DsseUnavailable` when ``cryptography`` is missing.
    """
    if not available():
        raise DsseUnavailable()

    def fail(reason: str, message: str, signers: Optional[List[str]] = None, ptype=None) -> DsseResult:
        return DsseResult(False, reason, message, signers or [], ptype)

    if isinstance(envelope, (str, bytes)):
        try:
            env = parse(envelope)
        except WireError as e:
            return fail(e.code, f"the envelope is not JSON: {e.message}")
    else:
        env = envelope
    if not isinstance(env, dict):
        return fail(SCHEMA_INVALID, "the envelope is not a JSON object")
    payload, ptype, sigs = env.get("payload"), env.get("payloadType"), env.get("signatures")
    if not isinstance(payload, str):
        return fail(SCHEMA_INVALID, "payload must be a string")
    if not isinstance(ptype, str):
        return fail(SCHEMA_INVALID, "payloadType must be a string")
    if not isinstance(sigs, list) or not sigs:
        return fail(SCHEMA_INVALID, "signatures must be a non-empty array")
    body = _b64(payload)
    if body is None:
        return fail(SCHEMA_INVALID, "payload is not valid base64", ptype=ptype)
    decoded = []
    for i, s in enumerate(sigs):
        if not isinstance(s, dict) or not isinstance(s.get("sig"), str):
            return fail(SCHEMA_INVALID, f"signatures[{i}] must be an object with a string sig", ptype=ptype)
        if "keyid" in s and not isinstance(s["keyid"], str):
            return fail(SCHEMA_INVALID, f"signatures[{i}].keyid must be a string", ptype=ptype)
        raw = _b64(s["sig"])
        if raw is None:
            return fail(SCHEMA_INVALID, f"signatures[{i}].sig is not valid base64", ptype=ptype)
        decoded.append((s.get("keyid"), raw))
    message = pae(ptype, body)
    signers: List[str] = []
    for keyid, raw in decoded:
        for key in sorted(keys, key=lambda k: k.keyid != keyid):  # the named key first
            if _verify_one(key, message, raw):
                if key.keyid not in signers:
                    signers.append(key.keyid)
                break
    if not signers:
        return fail(SIGNATURE_MISMATCH, "no signature verifies under the given keys", ptype=ptype)
    if ptype != INTOTO_PAYLOAD_TYPE:
        return fail(SCHEMA_INVALID, f"payloadType is {ptype!r}, expected {INTOTO_PAYLOAD_TYPE}", signers, ptype)
    try:
        statement = parse(body)
    except WireError as e:
        return fail(e.code, f"the payload is not JSON: {e.message}", signers, ptype)
    if not isinstance(statement, dict) or statement.get("_type") != STATEMENT_V1_TYPE:
        return fail(SCHEMA_INVALID, "the payload is not an in-toto Statement v1", signers, ptype)
    subject = statement.get("subject")
    if (
        not isinstance(subject, list)
        or not subject
        or not all(isinstance(s, dict) and isinstance(s.get("digest"), dict) and s["digest"] for s in subject)
        or not isinstance(statement.get("predicateType"), str)
        or not isinstance(statement.get("predicate"), dict)
    ):
        return fail(SCHEMA_INVALID, "the Statement needs subject digests, predicateType and predicate", signers, ptype)
    return DsseResult(True, None, None, signers, ptype, statement)
