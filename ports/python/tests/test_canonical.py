"""canonicalize(): the value model, error codes and byte-exact output."""

from __future__ import annotations

import collections
import decimal
import enum
import json
from typing import Any

import pytest

from _support import nest
from empiric_proof import INT_MAX, INT_MIN, MAX_DEPTH, WireError, canonicalize, sign_canonical
from empiric_proof import _canonical
from empiric_proof._canonical import _write_iterative


def reference(value: Any) -> bytes:
    """The definition of the canonical form."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def code_of(value: Any) -> str:
    with pytest.raises(WireError) as info:
        canonicalize(value)
    assert info.value.position is None
    return info.value.code


def test_bool_is_not_int() -> None:
    assert canonicalize(True) == b"true"
    assert canonicalize(False) == b"false"
    assert canonicalize(1) == b"1"
    assert canonicalize(0) == b"0"
    assert canonicalize([True, 1, 1.0, False, 0, 0.0]) == b"[true,1,1.0,false,0,0.0]"
    assert canonicalize({"t": True, "one": 1}) == b'{"one":1,"t":true}'


@pytest.mark.parametrize(
    "value,expected",
    [
        (1.0, "1.0"), (0.1, "0.1"), (1e15, "1000000000000000.0"), (1e16, "1e+16"),
        (0.0001, "0.0001"), (0.00001, "1e-05"), (1e-7, "1e-07"), (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (float(2**63), "9.223372036854776e+18"), (-0.0, "-0.0"), (0.0, "0.0"),
        (1234567890123456.0, "1234567890123456.0"), (9999999999999998.0, "9999999999999998.0"),
        (1.5e300, "1.5e+300"), (1.2345678901234568e17, "1.2345678901234568e+17"),
        (-1.5e-10, "-1.5e-10"),
    ],
)
def test_r7_float_layout(value: float, expected: str) -> None:
    assert canonicalize(value) == expected.encode("ascii")


@pytest.mark.parametrize(
    "value,expected",
    [
        ("\"\\", '"\\"\\\\"'),
        ("a/b", '"a/b"'),
        ("\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'),
        ("\x00\x1f", '"\\u0000\\u001f"'),
        ("\x7f\u00e9\uffff", '"\\u007f\\u00e9\\uffff"'),
        ("\U0001F600", '"\\ud83d\\ude00"'),
    ],
)
def test_r5_strings(value: str, expected: str) -> None:
    assert canonicalize(value) == expected.encode("ascii")


def test_r3_code_point_order() -> None:
    value = {"\U0001F600": 1, "\uffff": 2, "\ue000": 3, "z": 5, "10": 6, "9": 7, "": 8}
    assert canonicalize(value) == (
        b'{"":8,"10":6,"9":7,"z":5,"\\ue000":3,"\\uffff":2,"\\ud83d\\ude00":1}'
    )


def test_int_range() -> None:
    assert canonicalize([INT_MIN, INT_MAX]) == b"[-9223372036854775808,9223372036854775807]"
    assert code_of(INT_MAX + 1) == "int_out_of_range"
    assert code_of(INT_MIN - 1) == "int_out_of_range"
    assert code_of({"a": [10**40]}) == "int_out_of_range"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite(bad: float) -> None:
    assert code_of(bad) == "non_finite_number"
    assert code_of([bad]) == "non_finite_number"
    assert code_of({"x": {"y": bad}}) == "non_finite_number"


@pytest.mark.parametrize("bad", ["\ud800", "a\udc00b", "\udfff", "\ud83d\ude00"])
def test_lone_surrogates(bad: str) -> None:
    # A Python str holding surrogate code points (even a high+low pair of them) is not text.
    assert code_of(bad) == "lone_surrogate"
    assert code_of([bad]) == "lone_surrogate"
    assert code_of({bad: 1}) == "lone_surrogate"
    assert code_of({"k": bad}) == "lone_surrogate"


def test_depth() -> None:
    assert canonicalize(nest(MAX_DEPTH)) == b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert code_of(nest(MAX_DEPTH + 1)) == "depth_exceeded"
    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = {"a": deep}
    assert canonicalize(deep) == b'{"a":' * MAX_DEPTH + b"1" + b"}" * MAX_DEPTH
    assert code_of({"a": deep}) == "depth_exceeded"
    assert code_of(nest(20000)) == "depth_exceeded"


def test_cycles_are_rejected() -> None:
    loop: Any = []
    loop.append(loop)
    assert code_of(loop) == "depth_exceeded"
    obj: Any = {}
    obj["self"] = obj
    assert code_of(obj) == "depth_exceeded"


class Color(enum.IntEnum):
    RED = 1


class MyStr(str):
    pass


@pytest.mark.parametrize(
    "bad",
    [
        (1, 2), {1, 2}, b"bytes", bytearray(b"x"), decimal.Decimal("1.5"), object(), 1j,
        Color.RED, MyStr("x"), collections.OrderedDict(a=1), range(3),
        {1: "int key"}, {None: 1}, {True: 1}, {(1,): 1}, {1.5: 1},
        [1, 2, (3,)], {"a": {"b": set()}},
    ],
    ids=repr,
)
def test_unsupported_types(bad: Any) -> None:
    assert code_of(bad) == "unsupported_type"


def test_first_error_in_canonical_order() -> None:
    # "a" is written before "b", whatever the insertion order
    assert code_of({"b": float("nan"), "a": 2**64}) == "int_out_of_range"
    assert code_of({"a": float("nan"), "b": 2**64}) == "non_finite_number"
    assert code_of([float("nan"), 2**64]) == "non_finite_number"
    # a key is written before its value
    assert code_of({"\ud800": float("nan")}) == "lone_surrogate"
    # the depth of a container is met before its contents
    assert code_of(nest(MAX_DEPTH) + [float("nan")]) == "non_finite_number"


def test_error_message_names_the_place() -> None:
    with pytest.raises(WireError) as info:
        canonicalize({"a": [1, {"b/c~": float("inf")}]})
    assert "/a/1/b~1c~0" in info.value.message


@pytest.mark.parametrize(
    "value",
    [None, True, 0, -1, 1.5, "", "x", [], {}, [[], {}], {"a": [1, 2.5, None, "x\u00e9"]},
     {"b": {"a": {"c": [True, False]}}, "\U0001F600": "\U0010FFFF"}],
)
def test_matches_the_definition(value: Any) -> None:
    assert canonicalize(value) == reference(value)
    assert _write_iterative(value).encode("ascii") == reference(value)


def test_iterative_writer_is_used_when_the_c_encoder_runs_out_of_stack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(value: Any) -> str:
        raise RecursionError

    value = {"deep": nest(MAX_DEPTH - 1), "x": [1, 2.0, "three"]}
    expected = canonicalize(value)
    monkeypatch.setattr(_canonical, "_encode", boom)
    assert canonicalize(value) == expected


def test_sign_canonical_key_length() -> None:
    with pytest.raises(WireError) as info:
        sign_canonical({}, b"x" * 31)
    assert info.value.code == "key_too_short"
    assert len(sign_canonical({}, b"x" * 32)) == 64
    with pytest.raises(TypeError):
        sign_canonical({}, "x" * 32)  # type: ignore[arg-type]
