"""parse(): strictness beyond the vectors, first-problem order, positions, and seeded fuzzing."""

from __future__ import annotations

import json
import math
import pickle
import random
import struct
import time
from typing import Any, List, Optional, Tuple

import pytest

from _support import nest, same
from empiric_proof import INT_MAX, INT_MIN, MAX_DEPTH, WireError, canonicalize, parse
from empiric_proof._canonical import _write_iterative
from empiric_proof._parse import _parse_exact


def code_of(text: Any) -> str:
    with pytest.raises(WireError) as info:
        parse(text)
    return info.value.code


def error_of(text: Any) -> WireError:
    with pytest.raises(WireError) as info:
        parse(text)
    return info.value


# ------------------------------------------------------------------------------- types


def test_types_are_exact() -> None:
    value = parse('[1, 1.0, -0, -0.0, 1e0, 0e0, true, null, "s", {}, []]')
    assert [type(v).__name__ for v in value] == [
        "int", "float", "int", "float", "float", "float", "bool", "NoneType", "str", "dict", "list"
    ]
    assert value[2] == 0 and math.copysign(1.0, value[3]) == -1.0


def test_int_bounds() -> None:
    assert parse(str(INT_MAX)) == INT_MAX and parse(str(INT_MIN)) == INT_MIN
    assert parse("-9223372036854775807") == INT_MIN + 1
    assert code_of(str(INT_MAX + 1)) == "int_out_of_range"
    assert code_of(str(INT_MIN - 1)) == "int_out_of_range"
    assert code_of("00000000000000000001") == "syntax_error"


def test_huge_numbers_do_not_hit_the_int_digit_limit() -> None:
    # Python 3.11+ refuses int() of more than 4300 digits; that must not leak out.
    assert code_of("1" * 10000) == "int_out_of_range"
    assert code_of("[" + "9" * 10000 + "]") == "int_out_of_range"
    assert code_of("1" * 10000 + ".5") == "non_finite_number"
    assert parse("0." + "0" * 10000 + "1") == 0.0
    assert parse("1" * 300 + ".0") == float("1" * 300)


def test_float_rounding_and_underflow() -> None:
    assert parse("0.1000000000000000055511151231257827") == 0.1
    assert parse("1e-400") == 0.0
    assert math.copysign(1.0, parse("-1e-400")) == -1.0
    assert parse("1.7976931348623157e308") == 1.7976931348623157e308
    assert code_of("1.7976931348623159e308") == "non_finite_number"
    assert code_of("-1.8e308") == "non_finite_number"


# ------------------------------------------------------------------------------- syntax


@pytest.mark.parametrize(
    "text",
    [
        "\u0661", "[1, \u0662]", "\uff11", "1\u0660",  # non-ASCII digits
        "[1,\u00a02]", "[1,\u20282]", "[1,\x0b2]", "[1,\x0c2]", "\u3000null",  # not whitespace
        "-", "--1", "-01", "1.e5", "1e+", "1E-", ".0", "0.", "1.5.", "0x1", "1_000", "+0",
        "tru", "nul", "fals", "True", "None", "nan", "inf", "-NaN", "+Infinity",
        "'x'", "[1;2]", "{\"a\"=1}", "{,}", "[,]", "[1,,2]", "{\"a\":1,,\"b\":2}", "{1:2}",
        "\"\\a\"", "\"\\U0001F600\"", "\"\\u00\"", "\"\\uGGGG\"", "\"\\", "\"\\u12", "\"",
        "/* c */ 1", "1 # c", "[1]]", "{}}", "]", "}", ":", ",", "\x00", "[\x00]",
        "\"a\x00b\"", "\"\x1f\"", "\"\x7f\"x",
    ],
)
def test_syntax_errors(text: str) -> None:
    assert code_of(text) == "syntax_error"
    assert code_of(text.encode("utf-8")) == "syntax_error"


def test_raw_del_and_non_ascii_are_fine_in_strings() -> None:
    assert parse('"\x7f\u00e9\u2028\U0001F600"') == "\x7f\u00e9\u2028\U0001F600"


def test_byte_order_mark() -> None:
    assert code_of("\ufeff{}") == "syntax_error"
    assert code_of(b"\xef\xbb\xbf{}") == "syntax_error"
    assert error_of(b"\xef\xbb\xbf{}").position == 0
    assert parse('"\ufeff"') == "\ufeff"  # inside a string it is just a character


def test_json_whitespace_is_allowed() -> None:
    assert parse(" \t\r\n[ \t\r\n1 \t\r\n, \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n2 } ] \t\r\n") == [
        1, {"a": 2}
    ]


# ------------------------------------------------------------------------------- strings


@pytest.mark.parametrize(
    "text,expected",
    [
        ('"\\ud83d\\ude00"', "\U0001F600"),
        ('"\\uD83D\\uDE00"', "\U0001F600"),
        ('"\\udbff\\udfff"', "\U0010FFFF"),
        ('"\\u00e9\\u00E9"', "\u00e9\u00e9"),
        ('"\\/\\b\\f\\n\\r\\t\\"\\\\"', "/\b\f\n\r\t\"\\"),
        ('"\\\\ud800"', "\\ud800"),  # an escaped backslash, then plain text
    ],
)
def test_escapes(text: str, expected: str) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text,position",
    [
        ('"\\ud800"', 1),
        ('"\\udc00"', 1),
        ('"ab\\ud800\\u0041"', 3),
        ('"\\ud800\\ud800"', 1),
        ('"\\ud800\\n"', 1),
        ('"\\ud800x"', 1),
        ('"\\ud800', 1),
        ('{"\\udfff":1}', 2),
        ('{"ok":"\\ud800"}', 7),
        ('"\ud800"', 1),  # a raw surrogate code point in str input
        ('"\ud83d\ude00"', 1),  # raw surrogate code points are not a pair in Python text
        ('"\\ud83d\ude00"', 1),  # escaped high then a raw low
    ],
)
def test_lone_surrogates(text: str, position: int) -> None:
    err = error_of(text)
    assert (err.code, err.position) == ("lone_surrogate", position)


@pytest.mark.parametrize(
    "text,code,position",
    [
        ('"\\ud800\\u12g4"', "syntax_error", 11),  # the escape after a high one is read first
        ('"\\ud800\\u12', "syntax_error", 11),
        ('"\\ud800\\u0041"', "lone_surrogate", 1),
        ('"\\ud800\\"', "lone_surrogate", 1),
        ('"\\u12g4"', "syntax_error", 5),
        ('"\\u"', "syntax_error", 3),
    ],
)
def test_escape_after_high_surrogate(text: str, code: str, position: int) -> None:
    err = error_of(text)
    assert (err.code, err.position) == (code, position)


def test_raw_surrogate_outside_a_string_is_a_syntax_error() -> None:
    assert code_of("\ud800") == "syntax_error"
    assert code_of("[1,\udc00]") == "syntax_error"


@pytest.mark.parametrize(
    "data,position",
    [
        (b'"\xff"', 1), (b'"\xc0\xaf"', 1), (b'"\xed\xa0\x80"', 1), (b'"\xe2\x82"', 1),
        (b'"\xf4\x90\x80\x80"', 1), (b'"\xf8\x88\x80\x80\x80"', 1), (b"\x80", 0),
        (b'["\xc3\xa9", "\xe9"]', 7), (b'{"a": 1}\n\xff', 9), (b'\n\n  \xc3', 4),
    ],
)
def test_invalid_utf8(data: bytes, position: int) -> None:
    err = error_of(data)
    assert (err.code, err.position) == ("invalid_utf8", position)


def test_valid_utf8_of_every_length() -> None:
    assert parse('"a\u00e9\u20ac\U0001F600"'.encode("utf-8")) == "a\u00e9\u20ac\U0001F600"
    assert parse(bytearray(b"[1]")) == [1] and parse(memoryview(b"[2]")) == [2]


def test_input_types() -> None:
    with pytest.raises(TypeError):
        parse(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse(None)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------- depth


def test_depth_limits() -> None:
    assert parse("[" * MAX_DEPTH + "]" * MAX_DEPTH) == nest(MAX_DEPTH)
    deep = '{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH
    assert canonicalize(parse(deep)) == deep.encode("ascii")
    err = error_of("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert (err.code, err.position) == ("depth_exceeded", MAX_DEPTH)
    # brackets inside strings do not count
    many = "[" + ",".join(['"[[[[{{{{"'] * 300) + "]"
    assert len(parse(many)) == 300
    assert parse('["' + "[" * 5000 + '"]') == ["[" * 5000]


@pytest.mark.parametrize(
    "text",
    ["[" * 20000, "{\"a\":" * 20000, "[{\"a\":" * 10000, "[" * 100000 + "]" * 100000,
     ("[" * 20000).encode("ascii")],
    ids=["arrays", "objects", "mixed", "closed", "bytes"],
)
def test_very_deep_input_fails_fast_without_recursion(text: Any) -> None:
    start = time.perf_counter()
    err = error_of(text)
    assert err.code == "depth_exceeded"
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    "text,code",
    [
        ("[" * 513 + '"' + '\\"' * 200000, "depth_exceeded"),
        ("[" * 600 + '"' * 200000, "depth_exceeded"),
        ('["' + '\\"' * 200000 + "]" * 600, "syntax_error"),
        ("[" + '"a",' * 100000 + "[" * 600, "depth_exceeded"),
    ],
    ids=["escaped-quotes", "quotes", "unterminated", "wide-then-deep"],
)
def test_adversarial_inputs_stay_linear(text: str, code: str) -> None:
    start = time.perf_counter()
    assert code_of(text) == code
    assert time.perf_counter() - start < 3.0


def test_wide_input_is_not_deep() -> None:
    text = "[" + ",".join(["[]"] * 5000) + "]"
    assert len(parse(text)) == 5000


# ------------------------------------------------------------------------------- first problem wins


@pytest.mark.parametrize(
    "text,code,position",
    [
        ('{"a":1,"a":1e400}', "duplicate_key", 7),
        ('{"a":1,"a":2,', "duplicate_key", 7),
        ('{"a":1,"a"', "duplicate_key", 7),
        ('[1e400, {"a":1,"a":2}]', "non_finite_number", 1),
        ('[{"a":1,"a":2}, 1e400]', "duplicate_key", 8),
        ("[9223372036854775808, NaN]", "int_out_of_range", 1),
        ("[NaN, 9223372036854775808]", "non_finite_number", 1),
        ('["\\ud800", 1e400]', "lone_surrogate", 2),
        ("[1,]", "syntax_error", 3),
        ("[1 2]", "syntax_error", 3),
        ("[1e400", "non_finite_number", 1),
        ("[-Infinity]", "non_finite_number", 1),
        ('{"a":1}x', "syntax_error", 7),
        ("[" * 513 + "1e400", "depth_exceeded", 512),
        ("[1e400," + "[" * 513, "non_finite_number", 1),
        ("[" * 600 + '"\\ud800"', "depth_exceeded", 512),
        ("[" * 5 + '"\\ud800"' + "[" * 600, "lone_surrogate", 6),
        ("01", "syntax_error", 1),
        ("-01", "syntax_error", 2),
        # a number literal is read completely before its value is judged
        ("9223372036854775808.", "syntax_error", 20),
        ("[9223372036854775808.5e]", "syntax_error", 23),
        ("99999999999999999999e", "syntax_error", 21),
        ("1" * 400 + ".0e+", "syntax_error", 404),
        ("1e400.", "non_finite_number", 0),
        ("1e400e", "non_finite_number", 0),
        ("9223372036854775808x", "int_out_of_range", 0),
        ("1.5.", "syntax_error", 3),
        ("1.e5", "syntax_error", 2),
        ("-", "syntax_error", 1),
        ("", "syntax_error", 0),
        ("  ", "syntax_error", 2),
    ],
)
def test_first_problem_wins(text: str, code: str, position: int) -> None:
    err = error_of(text)
    assert (err.code, err.position) == (code, position), str(err)


def test_line_and_column() -> None:
    err = error_of('{\n  "a": 1,\n  "a": 2\n}')
    assert (err.code, err.line, err.column, err.position) == ("duplicate_key", 3, 3, 14)
    assert "line 3, column 3" in str(err)


def test_wire_error_pickles() -> None:
    err = error_of('{"a":1,"a":2}')
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.code, copy.message, copy.position, copy.line) == (
        err.code, err.message, err.position, err.line)
    assert isinstance(err, ValueError)


# ------------------------------------------------------------------------------- seeded random tests

_ALPHABETS = [
    "abcxyz ",
    "\"\\/\b\f\n\r\t",
    "".join(chr(c) for c in range(0x20)),
    "\u007f\u0080\u00e9\u07ff\u0800\u2028\ud7ff\ue000\ufeff\ufffd\uffff",
    "\U00010000\U0001F600\U0001D11E\U0010FFFF",
]


def rand_str(rng: random.Random) -> str:
    return "".join(rng.choice(rng.choice(_ALPHABETS)) for _ in range(rng.randint(0, 8)))


def rand_float(rng: random.Random) -> float:
    kind = rng.randrange(5)
    if kind == 0:
        return rng.choice([0.0, -0.0, 5e-324, -5e-324, 1e16, 1e15, 1e-5, 1e-4, 0.1, 1e21, 1e22,
                           2.2250738585072014e-308, 1.7976931348623157e308, 9007199254740993.0])
    if kind == 1:
        while True:
            f = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if math.isfinite(f):
                return float(f)
    if kind == 2:
        return rng.uniform(-1e6, 1e6)
    if kind == 3:
        return float(rng.randint(-(2**60), 2**60))
    return rng.random() * 10.0 ** rng.randint(-330, 300)


def rand_int(rng: random.Random) -> int:
    kind = rng.randrange(4)
    if kind == 0:
        return rng.randint(-10, 10)
    if kind == 1:
        return rng.choice([INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, 2**53, 2**53 + 1, -(2**53) - 1])
    if kind == 2:
        return rng.randint(INT_MIN, INT_MAX)
    return rng.randint(-(10**6), 10**6)


def rand_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 6 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rand_int(rng)
    if kind == 3:
        return rand_float(rng)
    if kind in (4, 5, 6):
        return rand_str(rng)
    if kind == 7:
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {rand_str(rng): rand_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def render(rng: random.Random, value: Any) -> str:
    """Some non-canonical JSON text for ``value``."""
    return json.dumps(value, ensure_ascii=rng.random() < 0.5,
                      indent=rng.choice([None, 0, 1, 2, "\t", " \r\n"]),
                      sort_keys=rng.random() < 0.3, allow_nan=False)


@pytest.mark.parametrize("seed", range(8))
def test_random_round_trip(seed: int) -> None:
    rng = random.Random(20261122 + seed)
    for _ in range(400):
        value = rand_value(rng)
        canonical = canonicalize(value)
        assert canonical == json.dumps(value, sort_keys=True, separators=(",", ":"),
                                       ensure_ascii=True, allow_nan=False).encode("ascii")
        assert _write_iterative(value).encode("ascii") == canonical
        back = parse(canonical)
        assert same(back, value)
        assert canonicalize(back) == canonical
        text = render(rng, value)
        assert same(parse(text), value)
        assert same(parse(text.encode("utf-8")), value)
        assert same(_parse_exact(text), value)


_NOISE = ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "0", "1", "9", "-", "+", ".", "e",
          "E", "t", "n", "N", "I", "\x00", "\x1f", "\u00a0", "\u00e9", "\U0001F600", "\ud800",
          "\\u", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\u0061", "\\x", "1e400", "-0",
          "9223372036854775808", "NaN", "Infinity", '"a":1,"a":2', "[" * 600]


def outcome(fn: Any, text: Any) -> Tuple[str, Optional[int], Optional[bytes]]:
    try:
        value = fn(text)
    except WireError as exc:
        return exc.code, exc.position, None
    return "ok", None, _write_iterative(value).encode("ascii")


def mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        i = rng.randint(0, len(text))
        op = rng.randrange(3)
        if op == 0 and text:
            text = text[:i] + text[i + 1:]
        elif op == 1:
            text = text[:i] + rng.choice(_NOISE) + text[i:]
        else:
            text = text[:i] + rng.choice(_NOISE) + text[i + 1:]
    return text


@pytest.mark.parametrize("seed", range(8))
def test_random_mutations_fast_and_exact_parsers_agree(seed: int) -> None:
    """Differential test: the C-scanner fast path, the exact parser and json.loads."""
    rng = random.Random(7000 + seed)
    accepted = rejected = 0
    for _ in range(1500):
        text = mutate(rng, render(rng, rand_value(rng)))
        fast = outcome(parse, text)
        exact = outcome(_parse_exact, text)
        assert fast == exact, (text, fast, exact)
        try:
            reference: Any = json.loads(text)
            ref_ok = True
        except (ValueError, RecursionError):
            ref_ok = False
        if fast[0] == "ok":
            accepted += 1
            # Whatever we accept, the standard library accepts and reads the same way.
            assert ref_ok, text
            assert canonicalize(reference) == fast[2]
        else:
            rejected += 1
            assert fast[1] is not None
        if not ref_ok:
            assert fast[0] != "ok", text
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            continue
        assert outcome(parse, data)[::2] == fast[::2]
    assert accepted > 50 and rejected > 500
