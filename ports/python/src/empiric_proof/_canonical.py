"""Canonical bytes (docs/wire-format.md, R2 to R10), hashes and signatures.

The canonical form is, by definition, what the standard library writes with
``json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)``.
This module checks first that the value is inside the value model (R1) -- the standard
library would otherwise quietly write ``True`` keys, tuples, huge ints or lone surrogates --
and then lets the standard library write it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from json.encoder import encode_basestring_ascii
from typing import Any, Callable, List, Tuple, Union

from ._parse import INT_MAX, INT_MIN, MAX_DEPTH
from .errors import (
    DEPTH_EXCEEDED,
    INT_OUT_OF_RANGE,
    KEY_TOO_SHORT,
    LONE_SURROGATE,
    NON_FINITE_NUMBER,
    UNSUPPORTED_TYPE,
    WireError,
)

__all__ = [
    "canonicalize",
    "sha256_hex",
    "hmac_sha256_hex",
    "sign_canonical",
    "MIN_SIGNING_KEY_BYTES",
]

MIN_SIGNING_KEY_BYTES = 32
"""Signing refuses shorter keys (``key_too_short``); verifying accepts any length."""

_SURROGATE = re.compile("[\ud800-\udfff]")

# check_circular is off because the depth limit already stops cycles.
_encode: Callable[[Any], str] = json.JSONEncoder(
    skipkeys=False,
    ensure_ascii=True,
    check_circular=False,
    allow_nan=False,
    sort_keys=True,
    separators=(",", ":"),
).encode

BytesLike = Union[bytes, bytearray, memoryview]


# --------------------------------------------------------------------------------------
# Validation


def _is_valid(value: Any) -> bool:
    """Quick check that ``value`` is inside the value model (no error details)."""
    search = _SURROGATE.search
    stack: List[Tuple[Any, int]] = [(value, 0)]
    pop = stack.pop
    push = stack.append
    while stack:
        v, depth = pop()
        t = type(v)
        if t is dict or t is list:
            if depth >= MAX_DEPTH:
                return False
            if t is dict:
                for k in v:
                    if type(k) is not str or (not k.isascii() and search(k)):
                        return False
            for item in v.values() if t is dict else v:
                ti = type(item)
                if ti is str:
                    if not item.isascii() and search(item):
                        return False
                elif ti is dict or ti is list:
                    push((item, depth + 1))
                elif ti is int:
                    if not INT_MIN <= item <= INT_MAX:
                        return False
                elif ti is float:
                    if item - item != 0.0:
                        return False
                elif item is not None and ti is not bool:
                    return False
        elif t is str:
            if not v.isascii() and search(v):
                return False
        elif t is int:
            if not INT_MIN <= v <= INT_MAX:
                return False
        elif t is float:
            if v - v != 0.0:
                return False
        elif v is not None and t is not bool:
            return False
    return True


def _pointer(path: Tuple[Any, ...]) -> str:
    """RFC 6901 JSON pointer of ``path``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path) or "(root)"


def _first_error(value: Any) -> WireError:
    """The first problem met writing ``value`` in canonical order, with its JSON pointer."""
    # Items: (kind, path, object, depth); kind 0 = a value, 1 = a key about to be written.
    stack: List[Tuple[int, Tuple[Any, ...], Any, int]] = [(0, (), value, 0)]
    while stack:
        kind, path, v, depth = stack.pop()
        t = type(v)
        if kind == 1:
            if _SURROGATE.search(v):
                return WireError(LONE_SURROGATE, f"key at {_pointer(path)} holds a lone surrogate")
            continue
        if t is dict or t is list:
            if depth >= MAX_DEPTH:
                return WireError(
                    DEPTH_EXCEEDED,
                    f"more than {MAX_DEPTH} nested arrays/objects at {_pointer(path)}",
                )
            if t is list:
                for i in range(len(v) - 1, -1, -1):
                    stack.append((0, path + (i,), v[i], depth + 1))
                continue
            for k in v:
                if type(k) is not str:
                    return WireError(
                        UNSUPPORTED_TYPE,
                        f"object key {k!r} at {_pointer(path)} is a {type(k).__name__}, not a str",
                    )
            for k in sorted(v, reverse=True):
                stack.append((0, path + (k,), v[k], depth + 1))
                stack.append((1, path + (k,), k, depth + 1))
        elif t is str:
            if _SURROGATE.search(v):
                where = _pointer(path)
                return WireError(LONE_SURROGATE, f"string at {where} holds a lone surrogate")
        elif t is int:
            if not INT_MIN <= v <= INT_MAX:
                where = _pointer(path)
                return WireError(INT_OUT_OF_RANGE, f"int at {where} is outside -2^63 .. 2^63-1")
        elif t is float:
            if v - v != 0.0:
                where = _pointer(path)
                return WireError(NON_FINITE_NUMBER, f"float {v!r} at {where} is not finite")
        elif v is not None and t is not bool:
            return WireError(
                UNSUPPORTED_TYPE,
                f"{type(v).__name__} at {_pointer(path)} is not a JSON value "
                "(use None, bool, int, float, str, list or dict)",
            )
    raise AssertionError("value is valid")  # pragma: no cover


# --------------------------------------------------------------------------------------
# Writing


def _write_iterative(value: Any) -> str:
    """The canonical text without recursion (used if the C encoder runs out of stack)."""
    out: List[str] = []
    stack: List[Any] = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            out.append(encode_basestring_ascii(v))
        elif t is _Token:
            out.append(v.text)
        elif v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif t is int:
            out.append(int.__repr__(v))
        elif t is float:
            out.append(float.__repr__(v))
        elif t is list:
            out.append("[")
            stack.append(_CLOSE_ARRAY)
            for i in range(len(v) - 1, -1, -1):
                stack.append(v[i])
                if i:
                    stack.append(_COMMA)
        else:  # dict
            out.append("{")
            stack.append(_CLOSE_OBJECT)
            keys = sorted(v)
            for i in range(len(keys) - 1, -1, -1):
                k = keys[i]
                stack.append(v[k])
                stack.append(_Token(encode_basestring_ascii(k) + ":"))
                if i:
                    stack.append(_COMMA)
    return "".join(out)


class _Token:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_COMMA = _Token(",")
_CLOSE_ARRAY = _Token("]")
_CLOSE_OBJECT = _Token("}")


def _dumps_text(value: Any) -> str:
    """Canonical text of a value already known to be valid."""
    try:
        return _encode(value)
    except RecursionError:
        return _write_iterative(value)


def _dumps(value: Any) -> bytes:
    """Canonical bytes of a value already known to be valid."""
    return _dumps_text(value).encode("ascii")


def canonicalize(value: Any) -> bytes:
    """The canonical bytes of ``value`` (R2 to R10).

    ``value`` must be in the value model: ``None``, ``bool``, ``int`` in -2^63 .. 2^63-1,
    finite ``float``, ``str`` without lone surrogates, ``list``, and ``dict`` with ``str``
    keys, nested at most 512 deep. Exact types are required (no tuples, no subclasses such as
    ``IntEnum`` or ``OrderedDict``), so that a value has exactly one reading.

    Raises :class:`~empiric_proof.WireError` with ``unsupported_type``, ``int_out_of_range``,
    ``non_finite_number``, ``lone_surrogate`` or ``depth_exceeded``; the message names the
    place with a JSON pointer. When several problems exist, the first one in canonical
    writing order is reported.

    >>> canonicalize({"b": 1.0, "a": [1, True, None, "caf\\u00e9"], "\\U0001F600": 1e16})
    b'{"a":[1,true,null,"caf\\\\u00e9"],"b":1.0,"\\\\ud83d\\\\ude00":1e+16}'
    >>> canonicalize(-0.0), canonicalize(0), canonicalize(1e-05)
    (b'-0.0', b'0', b'1e-05')
    >>> canonicalize({"n": float("nan")})
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: non_finite_number: float nan at /n is not finite
    >>> canonicalize({1: "a"})
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: unsupported_type: object key 1 at (root) is a int, not a str
    >>> canonicalize([2**63])
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: int_out_of_range: int at /0 is outside -2^63 .. 2^63-1
    """
    if not _is_valid(value):
        raise _first_error(value)
    return _dumps(value)


# --------------------------------------------------------------------------------------
# Hashes and signatures


def _key_bytes(key: Any) -> bytes:
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    if isinstance(key, str):
        raise TypeError("keys are bytes: pass key.encode('utf-8') for a text key")
    raise TypeError(f"keys are bytes, not {type(key).__name__}")


def _signing_key(key: Any) -> bytes:
    k = _key_bytes(key)
    if len(k) < MIN_SIGNING_KEY_BYTES:
        raise WireError(
            KEY_TOO_SHORT,
            f"signing key is {len(k)} bytes; at least {MIN_SIGNING_KEY_BYTES} are required",
        )
    return k


def sha256_hex(data: BytesLike) -> str:
    """SHA-256 of ``data`` as 64 lowercase hex characters.

    >>> sha256_hex(b"null")
    '74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b'
    """
    return hashlib.sha256(data).hexdigest()


def hmac_sha256_hex(key: BytesLike, data: BytesLike) -> str:
    """HMAC-SHA256 of ``data`` under ``key`` (any length) as 64 lowercase hex characters.

    >>> hmac_sha256_hex(b"empiric-wire-vectors-test-key-v1", b"null")
    '6ed3dad404cfea215ee5a999373ba78eef6005ca89814a03244f9ea21c8791a9'
    """
    return hmac.new(_key_bytes(key), data, hashlib.sha256).hexdigest()


def sign_canonical(value: Any, key: BytesLike) -> str:
    """HMAC-SHA256 of the canonical bytes of ``value``; ``key`` must be at least 32 bytes.

    >>> sign_canonical(None, b"empiric-wire-vectors-test-key-v1")
    '6ed3dad404cfea215ee5a999373ba78eef6005ca89814a03244f9ea21c8791a9'
    >>> sign_canonical(None, b"short")
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: key_too_short: signing key is 5 bytes; at least 32 are required
    """
    k = _signing_key(key)
    return hmac.new(k, canonicalize(value), hashlib.sha256).hexdigest()


def _verify_hmac(key: bytes, data: bytes, signature_hex: str) -> bool:
    expected = hmac.new(key, data, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("ascii"), signature_hex.encode("utf-8"))

