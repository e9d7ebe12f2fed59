"""fixtures/wire/vectors.json: every valid vector both ways, every invalid vector's code."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from _support import HMAC_KEY, INVALID, VALID, VECTORS, from_typed, invalid_input, same
from empiric_proof import (
    MAX_DEPTH,
    WireError,
    canonicalize,
    hmac_sha256_hex,
    parse,
    sha256_hex,
    sign_canonical,
)
from empiric_proof._canonical import _write_iterative
from empiric_proof._parse import _parse_exact
from empiric_proof.errors import PARSE_CODES


def _id(v: Dict[str, Any]) -> str:
    return str(v["name"])


def test_vector_file_is_sane() -> None:
    assert VECTORS["max_depth"] == MAX_DEPTH
    assert len(VALID) >= 70 and len(INVALID) >= 50
    assert len(HMAC_KEY) == 32
    assert set(VECTORS["error_codes"]) == set(PARSE_CODES)
    assert {v["error"] for v in INVALID} == set(PARSE_CODES)


@pytest.mark.parametrize("vector", VALID, ids=_id)
def test_valid_parse_then_canonicalize(vector: Dict[str, Any]) -> None:
    expected = vector["canonical"].encode("ascii")
    assert canonicalize(parse(vector["input"])) == expected
    assert canonicalize(parse(vector["input"].encode("utf-8"))) == expected


@pytest.mark.parametrize("vector", VALID, ids=_id)
def test_valid_typed_then_canonicalize(vector: Dict[str, Any]) -> None:
    value = from_typed(vector["typed"])
    assert canonicalize(value) == vector["canonical"].encode("ascii")
    # The parser reads the input into exactly the typed value (ints stay ints, -0.0 keeps its sign).
    assert same(parse(vector["input"]), value)


@pytest.mark.parametrize("vector", VALID, ids=_id)
def test_valid_hashes(vector: Dict[str, Any]) -> None:
    canonical = vector["canonical"].encode("ascii")
    assert sha256_hex(canonical) == vector["sha256"]
    assert hmac_sha256_hex(HMAC_KEY, canonical) == vector["hmac_sha256"]
    assert sign_canonical(from_typed(vector["typed"]), HMAC_KEY) == vector["hmac_sha256"]


@pytest.mark.parametrize("vector", VALID, ids=_id)
def test_valid_canonical_is_a_fixed_point(vector: Dict[str, Any]) -> None:
    canonical = vector["canonical"].encode("ascii")
    assert canonicalize(parse(canonical)) == canonical
    assert all(b < 0x80 for b in canonical)


@pytest.mark.parametrize("vector", VALID, ids=_id)
def test_valid_exact_parser_and_iterative_writer_agree(vector: Dict[str, Any]) -> None:
    value = _parse_exact(vector["input"])
    assert same(value, parse(vector["input"]))
    assert _write_iterative(value) == vector["canonical"]


@pytest.mark.parametrize("vector", INVALID, ids=_id)
def test_invalid_gives_its_code(vector: Dict[str, Any]) -> None:
    data = invalid_input(vector)
    with pytest.raises(WireError) as info:
        parse(data)
    assert info.value.code == vector["error"], str(info.value)
    assert isinstance(info.value.position, int)
    assert info.value.line is not None and info.value.column is not None


@pytest.mark.parametrize("vector", [v for v in INVALID if "input" in v], ids=_id)
def test_invalid_same_code_as_bytes_and_from_exact_parser(vector: Dict[str, Any]) -> None:
    text = vector["input"]
    with pytest.raises(WireError) as as_bytes:
        parse(text.encode("utf-8"))
    with pytest.raises(WireError) as exact:
        _parse_exact(text)
    assert as_bytes.value.code == vector["error"]
    assert exact.value.code == vector["error"]
