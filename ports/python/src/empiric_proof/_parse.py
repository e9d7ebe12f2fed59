"""Strict, typed parsing of JSON text (docs/wire-format.md, R11).

Two parsers agree on every input:

* a fast path built on the standard library's C scanner (``json.JSONDecoder``) with hooks
  that reject duplicate keys, ``NaN``/``Infinity``, overflowing floats and out-of-range ints,
  plus cheap checks for nesting depth and lone surrogates that the hooks cannot see;
* an exact, iterative (never recursive) parser that reads left to right and reports the
  *first* problem with its position.

The fast path only ever accepts; whenever it meets any problem, the exact parser re-reads
the text and decides. So errors carry the code and position of the first problem met reading
left to right, and valid documents cost one C-speed pass.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Dict, List, NoReturn, Optional, Tuple, Union

from .errors import (
    DEPTH_EXCEEDED,
    DUPLICATE_KEY,
    INT_OUT_OF_RANGE,
    INVALID_UTF8,
    LONE_SURROGATE,
    NON_FINITE_NUMBER,
    SYNTAX_ERROR,
    WireError,
)

__all__ = ["parse", "MAX_DEPTH", "INT_MIN", "INT_MAX", "JSONValue"]

MAX_DEPTH = 512
"""At most this many arrays/objects may be nested."""

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1

JSONValue = Union[None, bool, int, float, str, List["JSONValue"], Dict[str, "JSONValue"]]
"""The value model (R1): what :func:`parse` returns and :func:`canonicalize` accepts."""

# Longest decimal text of an in-range int: "-9223372036854775808" (20 characters).
_MAX_INT_TEXT = 20

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
# A run of string characters that need no attention: not a quote, backslash, control
# character or (in str input only) a raw surrogate code point.
_STR_CHUNK = re.compile("[^\"\\\\\x00-\x1f\ud800-\udfff]*")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}

# Fast-path screens.
_RAW_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# A string literal; an unterminated one runs to the end of the text. The closing quote is
# optional so that a failed match never restarts inside the string (which would be quadratic).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


# --------------------------------------------------------------------------------------
# Errors with positions


def _ws(text: str, pos: int) -> int:
    """Offset of the first non-whitespace character at or after ``pos``."""
    m = _WS.match(text, pos)
    return pos if m is None else m.end()


def _line_col(text: str, pos: int) -> Tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, column


def _fail(code: str, message: str, text: str, pos: int) -> NoReturn:
    line, column = _line_col(text, pos)
    raise WireError(code, message, pos, line=line, column=column)


def _describe(text: str, pos: int) -> str:
    if pos >= len(text):
        return "unexpected end of input"
    c = text[pos]
    if c == "\ufeff" and pos == 0:
        return "byte order mark is not allowed"
    if " " < c < "\x7f":
        return f"unexpected character {c!r}"
    return f"unexpected character U+{ord(c):04X}"


# --------------------------------------------------------------------------------------
# Exact parser: iterative, left to right, first problem wins


def _parse_string(text: str, pos: int) -> Tuple[str, int]:
    """Read the string whose opening quote is at ``pos``; return it and the end offset."""
    end = len(text)
    chunks: List[str] = []
    chunk = _STR_CHUNK.match
    i = pos + 1
    while True:
        m = chunk(text, i)
        j = i if m is None else m.end()
        if j > i:
            chunks.append(text[i:j])
        if j >= end:
            _fail(SYNTAX_ERROR, "unterminated string", text, j)
        c = text[j]
        if c == '"':
            return "".join(chunks), j + 1
        if c == "\\":
            e = text[j + 1 : j + 2]
            if e == "u":
                hex4 = _hex4(text, j + 2)
                cp = int(hex4, 16)
                if 0xD800 <= cp <= 0xDBFF:
                    # Only an escaped low surrogate may follow. A following \u escape is read
                    # (and may be a syntax error) before deciding; anything else is lone.
                    if text.startswith("\\u", j + 6):
                        low = int(_hex4(text, j + 8), 16)
                        if 0xDC00 <= low <= 0xDFFF:
                            chunks.append(chr(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)))
                            i = j + 12
                            continue
                    _fail(
                        LONE_SURROGATE,
                        f"high surrogate \\u{hex4} is not followed by a low surrogate escape",
                        text,
                        j,
                    )
                if 0xDC00 <= cp <= 0xDFFF:
                    message = f"low surrogate \\u{hex4} without a high surrogate"
                    _fail(LONE_SURROGATE, message, text, j)
                chunks.append(chr(cp))
                i = j + 6
            elif e in _SIMPLE_ESCAPES:
                chunks.append(_SIMPLE_ESCAPES[e])
                i = j + 2
            elif e == "":
                _fail(SYNTAX_ERROR, "unterminated string", text, j + 1)
            else:
                _fail(SYNTAX_ERROR, "invalid escape " + repr("\\" + e) + " in string", text, j)
        elif c < " ":
            _fail(SYNTAX_ERROR, f"raw control character U+{ord(c):04X} in string", text, j)
        else:  # a raw surrogate code point (str input only)
            _fail(LONE_SURROGATE, f"lone surrogate U+{ord(c):04X} in string", text, j)


def _hex4(text: str, at: int) -> str:
    """The four hex digits at ``at``; a syntax error at the first character that is not one."""
    digits = text[at : at + 4]
    if _HEX4.fullmatch(digits) is None:
        bad = at
        while bad < at + 4 and bad < len(text) and text[bad] in _HEX_DIGITS:
            bad += 1
        message = "expected four hex digits after \\u, " + _describe(text, bad)
        _fail(SYNTAX_ERROR, message, text, bad)
    return digits


def _parse_scalar(text: str, pos: int) -> Tuple[Any, int]:
    """Read a non-container value at ``pos``; return it and the end offset."""
    c = text[pos : pos + 1]
    if c == '"':
        return _parse_string(text, pos)
    if c == "-" or "0" <= c <= "9":
        if text.startswith("-Infinity", pos):
            _fail(NON_FINITE_NUMBER, "-Infinity is not a number", text, pos)
        m = _NUMBER.match(text, pos)
        if m is None:
            message = "expected a digit after '-', " + _describe(text, pos + 1)
            _fail(SYNTAX_ERROR, message, text, pos + 1)
        # The literal must be complete before its value is judged: "1.", "1e", "1e+" and a
        # leading zero are syntax errors even when the digits before them are out of range.
        s = m.group()
        after = m.end()
        nxt = text[after : after + 1]
        if m.group(1) is None and m.group(2) is None:
            if nxt == ".":
                message = "expected a digit after the decimal point, " + _describe(text, after + 1)
                _fail(SYNTAX_ERROR, message, text, after + 1)
            if "0" <= nxt <= "9":  # the int part was "0" or "-0"
                _fail(SYNTAX_ERROR, "numbers must not have leading zeros", text, after)
        if m.group(2) is None and (nxt == "e" or nxt == "E"):
            k = after + 1
            if text[k : k + 1] in ("+", "-"):
                k += 1
            _fail(SYNTAX_ERROR, "expected a digit in the exponent, " + _describe(text, k), text, k)
        if m.group(1) is not None or m.group(2) is not None:
            f = float(s)
            if f - f != 0.0:
                _fail(NON_FINITE_NUMBER, f"number {_clip(s)} overflows binary64", text, pos)
            return f, m.end()
        if len(s) <= _MAX_INT_TEXT:
            n = int(s)
            if INT_MIN <= n <= INT_MAX:
                return n, m.end()
        _fail(INT_OUT_OF_RANGE, f"int {_clip(s)} is outside -2^63 .. 2^63-1", text, pos)
    if c == "t" and text.startswith("true", pos):
        return True, pos + 4
    if c == "f" and text.startswith("false", pos):
        return False, pos + 5
    if c == "n" and text.startswith("null", pos):
        return None, pos + 4
    if c == "N" and text.startswith("NaN", pos):
        _fail(NON_FINITE_NUMBER, "NaN is not a number", text, pos)
    if c == "I" and text.startswith("Infinity", pos):
        _fail(NON_FINITE_NUMBER, "Infinity is not a number", text, pos)
    _fail(SYNTAX_ERROR, "expected a value, " + _describe(text, pos), text, pos)


def _clip(s: str) -> str:
    return s if len(s) <= 40 else s[:37] + "..."


def _parse_exact(text: str) -> Any:
    """Parse ``text`` with the exact parser (no recursion; first problem wins).

    >>> _parse_exact('{"b": [1, 2.0], "a": null}')
    {'b': [1, 2.0], 'a': None}
    >>> _parse_exact('[1, 2') # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    empiric_proof.errors.WireError: syntax_error: ...
    """
    end = len(text)
    ws = _ws
    # Open containers; for objects, ``keys`` holds the key whose value is being read.
    stack: List[Any] = []
    keys: List[Optional[str]] = []
    pos = ws(text, 0)
    value: Any
    while True:
        # --- read a value at pos (whitespace already skipped)
        c = text[pos : pos + 1]
        if c == "[" or c == "{":
            if len(stack) >= MAX_DEPTH:
                _fail(DEPTH_EXCEEDED, f"more than {MAX_DEPTH} nested arrays/objects", text, pos)
            pos = ws(text, pos + 1)
            if c == "[":
                if text.startswith("]", pos):
                    value = []
                    pos += 1
                else:
                    stack.append([])
                    keys.append(None)
                    continue
            else:
                if text.startswith("}", pos):
                    value = {}
                    pos += 1
                else:
                    obj: Dict[str, Any] = {}
                    stack.append(obj)
                    keys.append(None)
                    pos = _read_key(text, pos, obj, keys)
                    continue
        else:
            value, pos = _parse_scalar(text, pos)

        # --- a complete value: store it, then close containers as long as they end here
        while True:
            if not stack:
                pos = ws(text, pos)
                if pos != end:
                    message = "trailing data after the value: " + _describe(text, pos)
                    _fail(SYNTAX_ERROR, message, text, pos)
                return value
            top = stack[-1]
            pos = ws(text, pos)
            c = text[pos : pos + 1]
            if type(top) is list:
                top.append(value)
                if c == ",":
                    pos = ws(text, pos + 1)
                    break
                if c == "]":
                    value = stack.pop()
                    keys.pop()
                    pos += 1
                    continue
                _fail(SYNTAX_ERROR, "expected ',' or ']', " + _describe(text, pos), text, pos)
            else:
                top[keys[-1]] = value
                if c == ",":
                    pos = _read_key(text, ws(text, pos + 1), top, keys)
                    break
                if c == "}":
                    value = stack.pop()
                    keys.pop()
                    pos += 1
                    continue
                _fail(SYNTAX_ERROR, "expected ',' or '}', " + _describe(text, pos), text, pos)


def _read_key(text: str, pos: int, obj: Dict[str, Any], keys: List[Optional[str]]) -> int:
    """Read ``"key" :`` at ``pos`` for ``obj``; return the offset of the member's value."""
    if not text.startswith('"', pos):
        _fail(SYNTAX_ERROR, "expected a string key, " + _describe(text, pos), text, pos)
    key, after = _parse_string(text, pos)
    if key in obj:
        _fail(DUPLICATE_KEY, f"duplicate key {_clip(key)!r}", text, pos)
    keys[-1] = key
    after = _ws(text, after)
    if not text.startswith(":", after):
        _fail(SYNTAX_ERROR, "expected ':', " + _describe(text, after), text, after)
    return _ws(text, after + 1)


# --------------------------------------------------------------------------------------
# Fast path: the C scanner with rejecting hooks


class _Reject(Exception):
    """The fast path met something it does not accept; the exact parser decides."""


def _pairs_hook(
    pairs: List[Tuple[str, Any]], dict: Any = dict, len: Any = len
) -> Dict[str, Any]:
    obj: Dict[str, Any] = dict(pairs)
    if len(obj) != len(pairs):
        raise _Reject
    return obj


def _int_hook(s: str) -> int:
    if len(s) > _MAX_INT_TEXT - 2:
        if len(s) > _MAX_INT_TEXT or not s.isascii():
            raise _Reject
        n = int(s)
        if not INT_MIN <= n <= INT_MAX:
            raise _Reject
        return n
    return int(s)


def _float_hook(s: str) -> float:
    f = float(s)
    if f - f != 0.0:
        raise _Reject
    return f


def _constant_hook(s: str) -> NoReturn:
    raise _Reject


_local = threading.local()


def _decoder() -> json.JSONDecoder:
    try:
        return _local.decoder  # type: ignore[no-any-return]
    except AttributeError:
        d = json.JSONDecoder(
            object_pairs_hook=_pairs_hook,
            parse_int=_int_hook,
            parse_float=_float_hook,
            parse_constant=_constant_hook,
        )
        _local.decoder = d
        return d


def _max_depth(text: str) -> int:
    """Deepest bracket nesting of ``text``, ignoring the contents of strings."""
    stripped = _JSON_STRING.sub("", text)
    depth = deepest = 0
    for m in _BRACKETS.finditer(stripped):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def _has_surrogate(value: Any) -> bool:
    """Whether any string or key in the parsed ``value`` holds a surrogate code point."""
    search = _RAW_SURROGATE.search
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            if not v.isascii() and search(v):
                return True
        elif t is list:
            stack.extend(v)
        elif t is dict:
            for k, item in v.items():
                if not k.isascii() and search(k):
                    return True
                stack.append(item)
    return False


def _fast_parse(text: str) -> Any:
    """Parse with the C scanner; raise ``_Reject`` (or any error) when unsure."""
    if text.count("[") + text.count("{") > MAX_DEPTH and _max_depth(text) > MAX_DEPTH:
        raise _Reject
    if not text.isascii() and _RAW_SURROGATE.search(text):
        raise _Reject
    value = _decoder().decode(text)
    if _SURROGATE_ESCAPE.search(text) and _has_surrogate(value):
        raise _Reject
    return value


# --------------------------------------------------------------------------------------
# Public entry point


def _decode_utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8")
        pos = len(prefix)
        line, column = _line_col(prefix, pos)
        bad = data[exc.start : exc.start + 4].hex(" ")
        raise WireError(
            INVALID_UTF8,
            f"input is not well-formed UTF-8 at byte {exc.start} ({bad}): {exc.reason}",
            pos,
            line=line,
            column=column,
        ) from None


def parse(text: Union[str, bytes, bytearray, memoryview]) -> Any:
    """Parse one JSON text strictly into the typed value model (R11).

    ``text`` is a ``str`` or UTF-8 bytes. Ints stay ``int`` and floats stay ``float``;
    objects become ``dict`` (key order as written), arrays ``list``.

    Raises :class:`~empiric_proof.WireError` with the code of the first problem met reading
    left to right: ``syntax_error``, ``duplicate_key``, ``lone_surrogate``,
    ``non_finite_number``, ``int_out_of_range``, ``depth_exceeded`` or ``invalid_utf8``
    (checked for the whole input first). ``position`` is the offset in characters.

    >>> parse('{"b": 1.0, "a": [1, -0, 9223372036854775807]}')
    {'b': 1.0, 'a': [1, 0, 9223372036854775807]}
    >>> parse(b'"caf\\xc3\\xa9 \\\\ud83d\\\\ude00"')
    'café 😀'
    >>> parse('1e-400'), parse('-0.0')
    (0.0, -0.0)
    >>> parse('{"a": 1, "\\\\u0061": 2}')
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: duplicate_key: duplicate key 'a' (line 1, column 10, offset 9)
    >>> for bad in ['NaN', '1e400', '9223372036854775808', '"\\\\ud800"', '[1,]', '[' * 20000]:
    ...     try:
    ...         parse(bad)
    ...     except WireError as e:
    ...         print(e.code, e.position)
    non_finite_number 0
    non_finite_number 0
    int_out_of_range 0
    lone_surrogate 1
    syntax_error 3
    depth_exceeded 512
    >>> parse(b'"\\xed\\xa0\\x80"')
    Traceback (most recent call last):
      ...
    empiric_proof.errors.WireError: invalid_utf8: input is not well-formed UTF-8 at byte 1 (ed a0 80 22): invalid continuation byte (line 1, column 2, offset 1)
    """
    if isinstance(text, str):
        s = text
    elif isinstance(text, (bytes, bytearray, memoryview)):
        s = _decode_utf8(bytes(text))
    else:
        raise TypeError(f"parse() expects str or bytes, not {type(text).__name__}")
    try:
        return _fast_parse(s)
    except (_Reject, ValueError, RecursionError):
        # ValueError covers json.JSONDecodeError and int()'s digit limit.
        pass
    return _parse_exact(s)
