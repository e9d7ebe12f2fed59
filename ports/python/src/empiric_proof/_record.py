"""Proof records: structure, proof_id, signing and verification (docs/wire-format.md, "Records").

* **body** = the record without its ``signature`` member (sections 1 to 8).
* **proof_id** = ``sha256(canonical(body with identity.proof_id removed))``, lowercase hex.
* **signature** = ``hmac_sha256(key, canonical(body))``, stored as
  ``"signature": {"signature": "<64 lowercase hex>"}``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from json.encoder import encode_basestring_ascii
from typing import Any, Dict, List, Optional, Tuple, Union

from ._canonical import (
    _dumps,
    _dumps_text,
    _first_error,
    _is_valid,
    _key_bytes,
    _signing_key,
    canonicalize,
)
from ._parse import parse
from ._verdict import check_verdict
from .errors import PROOF_ID_MISMATCH, RECORD_STRUCTURE, SIGNATURE_MISMATCH, WireError

__all__ = [
    "SECTIONS",
    "check_structure",
    "proof_id",
    "parse_proof",
    "verify_signature",
    "verify_record",
    "sign_record",
]

SECTIONS: Tuple[str, ...] = (
    "identity",
    "claim",
    "pre_registration",
    "data",
    "evidence",
    "verdict",
    "reproduction",
    "provenance",
    "signature",
)
"""The nine members of a proof record, in the order they are written."""

BODY_SECTIONS: Tuple[str, ...] = SECTIONS[:-1]

_HEX64 = re.compile(r"[0-9a-f]{64}")

Text = Union[str, bytes, bytearray, memoryview]
Key = Union[bytes, bytearray, memoryview]


def _structure_error(message: str) -> WireError:
    return WireError(RECORD_STRUCTURE, message)


def _is_hex64(value: Any) -> bool:
    return type(value) is str and _HEX64.fullmatch(value) is not None


def check_structure(record: Any) -> None:
    """Check the structure of a parsed proof record; raise ``record_structure`` if wrong.

    The record must be an object with exactly the nine members of :data:`SECTIONS`;
    ``identity`` an object whose ``proof_id`` is 64 lowercase hex characters; ``signature`` an
    object whose only member ``signature`` is 64 lowercase hex characters. The content of the
    other sections is not checked here (that is the JSON Schema's job in the TypeScript core;
    the proof_id and the signature cover it).

    >>> check_structure({"identity": {}})
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: record_structure: missing sections: claim, pre_registration, data, evidence, verdict, reproduction, provenance, signature
    """
    if type(record) is not dict:
        raise _structure_error(f"a proof record is a JSON object, not {_kind(record)}")
    _check_members(record, SECTIONS)
    identity = record["identity"]
    if type(identity) is not dict:
        raise _structure_error(f"identity is {_kind(identity)}, not an object")
    if "proof_id" not in identity:
        raise _structure_error("identity.proof_id is missing")
    if not _is_hex64(identity["proof_id"]):
        raise _structure_error("identity.proof_id is not 64 lowercase hex characters")
    signature = record["signature"]
    if type(signature) is not dict:
        raise _structure_error(f"signature is {_kind(signature)}, not an object")
    if "signature" not in signature:
        raise _structure_error("signature.signature is missing")
    if not _is_hex64(signature["signature"]):
        raise _structure_error("signature.signature is not 64 lowercase hex characters")
    if len(signature) != 1:
        extra = ", ".join(repr(k) for k in signature if k != "signature")
        raise _structure_error(f"unknown members in signature: {extra}")


def _check_members(record: Dict[str, Any], sections: Tuple[str, ...]) -> None:
    missing = [s for s in sections if s not in record]
    if missing:
        noun = "section" if len(missing) == 1 else "sections"
        raise _structure_error(f"missing {noun}: {', '.join(missing)}")
    if len(record) != len(sections):
        extra = [repr(k) for k in record if k not in sections]
        noun = "member" if len(extra) == 1 else "members"
        raise _structure_error(f"unknown top-level {noun}: {', '.join(extra)}")


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "an int", float: "a float", type(None): "null"}
    return names.get(type(value), f"a {type(value).__name__}")


def _bodies(record: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(body, body without identity.proof_id) as shallow copies; ``record`` is untouched."""
    body = {k: v for k, v in record.items() if k != "signature"}
    identity = body.get("identity")
    if type(identity) is not dict:
        raise _structure_error("identity is missing or not an object")
    unsigned_identity = {k: v for k, v in identity.items() if k != "proof_id"}
    return body, {**body, "identity": unsigned_identity}


def proof_id(record: Dict[str, Any]) -> str:
    """The proof_id of ``record``: SHA-256 of the canonical body without ``identity.proof_id``.

    ``record`` may be signed or not; its ``signature`` and ``identity.proof_id`` members are
    ignored. Raises ``record_structure`` if ``record`` is not a dict with an ``identity``
    object, and the canonicalization codes if it is outside the value model.

    >>> proof_id({"identity": {"proof_id": "x" * 64}, "claim": {}, "signature": "ignored"})
    'd13491ec3530cee6d489fe79520b00ac233bc690d9a895a36c71529b2d15f690'
    >>> proof_id({"identity": {}, "claim": {}})
    'd13491ec3530cee6d489fe79520b00ac233bc690d9a895a36c71529b2d15f690'
    """
    if type(record) is not dict:
        raise _structure_error(f"a proof record is a JSON object, not {_kind(record)}")
    _, unsigned = _bodies(record)
    return hashlib.sha256(canonicalize(unsigned)).hexdigest()


def parse_proof(text: Text) -> Dict[str, Any]:
    """Parse a proof record file strictly and check its structure (verification steps 1-2).

    Raises :class:`~empiric_proof.WireError` with a parse code or ``record_structure``.

    >>> parse_proof('[]')
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: record_structure: a proof record is a JSON object, not an array
    """
    record = parse(text)
    check_structure(record)
    return record  # type: ignore[no-any-return]


def _canonical_bodies(record: Dict[str, Any]) -> Tuple[bytes, bytes]:
    """Canonical bytes of (body, body without identity.proof_id) of a valid, checked record.

    Both share every section but ``identity``, so each section is written once and the two
    objects are assembled from the parts, exactly as the standard library joins them:
    ``{`` + ``"key":value`` members in key order, separated by ``,`` + ``}``.
    """
    identity = record["identity"]
    unsigned_identity = {k: v for k, v in identity.items() if k != "proof_id"}
    full: List[str] = []
    unsigned: List[str] = []
    for key in sorted(record):
        if key == "signature":
            continue
        name = encode_basestring_ascii(key) + ":"
        if key == "identity":
            full.append(name + _dumps_text(identity))
            unsigned.append(name + _dumps_text(unsigned_identity))
        else:
            part = name + _dumps_text(record[key])
            full.append(part)
            unsigned.append(part)
    return (
        ("{" + ",".join(full) + "}").encode("ascii"),
        ("{" + ",".join(unsigned) + "}").encode("ascii"),
    )


def _check_proof_id(record: Dict[str, Any], trusted: bool) -> Tuple[bytes, str]:
    """Step 3. Returns the canonical body (with proof_id) for step 4, and the proof_id.

    ``record`` has passed :func:`check_structure`; ``trusted`` means it came from
    :func:`parse` and so is inside the value model already.
    """
    if not trusted:
        body, _ = _bodies(record)
        if not _is_valid(body):
            raise _first_error(body)
    data, unsigned_data = _canonical_bodies(record)
    computed = hashlib.sha256(unsigned_data).hexdigest()
    claimed = record["identity"]["proof_id"]
    if not hmac.compare_digest(computed, claimed):
        raise WireError(
            PROOF_ID_MISMATCH,
            f"identity.proof_id is {claimed} but the body hashes to {computed}",
        )
    return data, computed


def verify_signature(proof: Dict[str, Any], key: Key) -> bool:
    """Check the proof_id and the signature of a parsed record (verification steps 2-4).

    Returns ``True`` when the HMAC under ``key`` matches and ``False`` when it does not
    (compared in constant time). Raises ``record_structure`` for a malformed record and
    ``proof_id_mismatch`` when ``identity.proof_id`` is not the hash of the body.

    >>> import json
    >>> key = b"k" * 32
    >>> signed = sign_record(json.loads(_EXAMPLE), key)
    >>> verify_signature(signed, key), verify_signature(signed, b"another key")
    (True, False)
    """
    k = _key_bytes(key)
    check_structure(proof)
    data, _ = _check_proof_id(proof, trusted=False)
    return _hmac_matches(k, data, proof["signature"]["signature"])


def _hmac_matches(key: bytes, data: bytes, signature_hex: str) -> bool:
    expected = hmac.new(key, data, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature_hex)


def _verify(text: Text, key: Optional[Key]) -> Dict[str, Any]:
    """Verify ``text``; return the parsed record (raises on the first failure)."""
    k = None if key is None else _key_bytes(key)
    record = parse_proof(text)
    data, _ = _check_proof_id(record, trusted=True)
    if k is not None and not _hmac_matches(k, data, record["signature"]["signature"]):
        raise WireError(SIGNATURE_MISMATCH, "the signature does not match under the given key")
    check_verdict(record)
    return record


def verify_record(text: Text, key: Optional[Key]) -> None:
    """Verify a proof record file; raise :class:`~empiric_proof.WireError` on the first failure.

    The steps, in order: parse strictly (parse codes), check the structure
    (``record_structure``), recompute the proof_id (``proof_id_mismatch``), when ``key``
    is not ``None`` recompute the HMAC (``signature_mismatch``), and, with or without a key,
    check that the verdict follows from the deciding evidence and its rule
    (``verdict_inconsistent``; skipped for records without pillar entities). With
    ``key=None`` the signature is not checked.

    >>> import json
    >>> key = b"k" * 32
    >>> text = json.dumps(sign_record(json.loads(_EXAMPLE), key))
    >>> verify_record(text, key)
    >>> verify_record(text, None)
    >>> verify_record(text, b"another key")
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: signature_mismatch: the signature does not match under the given key
    >>> verify_record(text.replace("VALIDATED", "REFUTED"), key)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: proof_id_mismatch: identity.proof_id is ... but the body hashes to ...
    """
    _verify(text, key)


def sign_record(record: Dict[str, Any], key: Key) -> Dict[str, Any]:
    """Return a signed copy of ``record`` (``record`` itself is not modified).

    Removes ``signature`` and ``identity.proof_id``, computes the proof_id and puts it first in
    ``identity``, computes the HMAC-SHA256 of the canonical body under ``key`` and appends
    ``"signature": {"signature": hex}``. Sections are shared with ``record``, not copied.

    Raises ``key_too_short`` for keys under 32 bytes, ``record_structure`` when one of the
    eight body sections is missing, another top-level member is present or ``identity`` is
    not an object, and the canonicalization codes when the record is outside the value model.

    >>> import json
    >>> signed = sign_record(json.loads(_EXAMPLE), b"k" * 32)
    >>> list(signed)[-1], list(signed["identity"])[0]
    ('signature', 'proof_id')
    >>> signed["identity"]["proof_id"] == proof_id(signed)
    True
    """
    k = _signing_key(key)
    if type(record) is not dict:
        raise _structure_error(f"a proof record is a JSON object, not {_kind(record)}")
    _check_members({k: v for k, v in record.items() if k != "signature"}, BODY_SECTIONS)
    body, unsigned = _bodies(record)
    pid = hashlib.sha256(canonicalize(unsigned)).hexdigest()
    body["identity"] = {"proof_id": pid, **unsigned["identity"]}
    signature = hmac.new(k, _dumps(body), hashlib.sha256).hexdigest()
    return {**body, "signature": {"signature": signature}}


# A small record used by the doctests above.
_EXAMPLE = (
    '{"identity": {"schema_version": "1.0"}, "claim": {"statement": "x"},'
    ' "pre_registration": {}, "data": {}, "evidence": [], "verdict": {"outcome": "VALIDATED"},'
    ' "reproduction": {}, "provenance": {}}'
)
