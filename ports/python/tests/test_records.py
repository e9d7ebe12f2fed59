"""fixtures/records: every case in cases.json, plus signing and the record API."""

from __future__ import annotations

import copy
import json
from typing import Any, Dict

import pytest

from _support import CASES, KEYS, RECORDS_DIR, case_key
from empiric_proof import (
    DEMO_KEY,
    SECTIONS,
    WireError,
    check_structure,
    check_verdict,
    parse,
    parse_proof,
    proof_id,
    sign_record,
    verify_record,
    verify_signature,
)

VALID_FILES = sorted({c["file"] for c in CASES if c["expect"] == "valid"})


def _case_id(case: Dict[str, Any]) -> str:
    return f"{case['file']}-{case['key']}-{case['expect']}"


def _read(name: str) -> bytes:
    return (RECORDS_DIR / name).read_bytes()


def _record(name: str) -> Dict[str, Any]:
    value = parse(_read(name))
    assert isinstance(value, dict)
    return value


def test_cases_cover_every_file() -> None:
    files = {p.name for p in RECORDS_DIR.glob("*.json")} - {"cases.json"}
    assert files == {c["file"] for c in CASES}
    assert DEMO_KEY == KEYS["demo"]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_case(case: Dict[str, Any]) -> None:
    data = _read(case["file"])
    key = case_key(case)
    for text in (data, data.decode("utf-8")):
        if case["expect"] == "valid":
            assert verify_record(text, key) is None
        else:
            with pytest.raises(WireError) as info:
                verify_record(text, key)
            assert info.value.code == case["expect"], str(info.value)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_case_through_parse_proof_and_verify_signature(case: Dict[str, Any]) -> None:
    """The step-by-step API reaches the same result as verify_record."""
    key = case_key(case)
    try:
        record = parse_proof(_read(case["file"]))
        ok = verify_signature(record, key if key is not None else b"")
        if key is None or ok:
            assert check_verdict(record) in ("pass", "skipped")
    except WireError as exc:
        assert exc.code == case["expect"]
        return
    if key is None:
        assert case["expect"] == "valid"
    else:
        assert ok == (case["expect"] == "valid")
        if not ok:
            assert case["expect"] == "signature_mismatch"


@pytest.mark.parametrize("name", VALID_FILES)
def test_proof_id_of_valid_files(name: str) -> None:
    record = _record(name)
    assert proof_id(record) == record["identity"]["proof_id"]


def test_big_int_and_int_threshold_survive_exactly() -> None:
    record = _record("valid-refuted-int-threshold.json")
    n = record["data"]["datasets"][0]["n_records"]
    assert type(n) is int and n == 9007199254740993
    assert type(record["claim"]["threshold"]["value"]) is int
    assert type(_record("valid.json")["claim"]["threshold"]["value"]) is float


@pytest.mark.parametrize(
    "name,key",
    [("valid.json", "test"), ("valid-demo-key.json", "demo"),
     ("valid-refuted-int-threshold.json", "test")],
)
def test_sign_record_reproduces_the_fixture_bytes(name: str, key: str) -> None:
    text = _read(name).decode("utf-8")
    signed_file = _record(name)
    unsigned = copy.deepcopy(signed_file)
    del unsigned["signature"]
    del unsigned["identity"]["proof_id"]
    snapshot = copy.deepcopy(unsigned)
    for source in (unsigned, signed_file):
        signed = sign_record(source, KEYS[key])
        assert signed == signed_file
        # the reference generator writes json.dumps(indent=2, ensure_ascii=False) + "\n"
        assert json.dumps(signed, indent=2, ensure_ascii=False) + "\n" == text
    assert unsigned == snapshot, "sign_record must not modify its argument"


def test_sign_then_verify_round_trip() -> None:
    key = b"\x00\xff" * 16
    signed = sign_record(_record("valid.json"), key)
    text = json.dumps(signed, ensure_ascii=False, indent=1)
    verify_record(text, key)
    verify_record(text.encode("utf-8"), key)
    verify_record(text, None)
    with pytest.raises(WireError) as info:
        verify_record(text, key[:-1])
    assert info.value.code == "signature_mismatch"


def test_sign_record_key_length() -> None:
    record = _record("valid.json")
    with pytest.raises(WireError) as info:
        sign_record(record, b"k" * 31)
    assert info.value.code == "key_too_short"
    with pytest.raises(WireError) as info:
        sign_record(record, b"")
    assert info.value.code == "key_too_short"
    sign_record(record, b"k" * 32)
    sign_record(record, bytearray(b"k" * 32))
    with pytest.raises(TypeError):
        sign_record(record, "k" * 32)  # type: ignore[arg-type]


def test_verify_accepts_any_key_length() -> None:
    record = _record("valid.json")
    for key in (b"", b"short", b"k" * 100):
        signed = sign_record(record, b"k" * 32)
        assert verify_signature(signed, key) is False
    assert verify_signature(record, KEYS["test"]) is True


def test_sign_record_refuses_incomplete_records() -> None:
    record = _record("valid.json")
    del record["verdict"]
    with pytest.raises(WireError) as info:
        sign_record(record, KEYS["test"])
    assert info.value.code == "record_structure"
    with pytest.raises(WireError) as info:
        sign_record([], KEYS["test"])  # type: ignore[arg-type]
    assert info.value.code == "record_structure"
    record = _record("valid.json")
    record["identity"] = "x"
    with pytest.raises(WireError) as info:
        sign_record(record, KEYS["test"])
    assert info.value.code == "record_structure"


def test_sign_record_rejects_values_outside_the_model() -> None:
    record = _record("valid.json")
    record["claim"]["threshold"]["value"] = float("inf")
    with pytest.raises(WireError) as info:
        sign_record(record, KEYS["test"])
    assert info.value.code == "non_finite_number"


def test_verify_signature_raises_on_wrong_proof_id() -> None:
    record = _record("tampered-wrong-proof-id.json")
    with pytest.raises(WireError) as info:
        verify_signature(record, KEYS["test"])
    assert info.value.code == "proof_id_mismatch"


def test_verify_signature_validates_dicts_built_in_python() -> None:
    record = _record("valid.json")
    record["claim"]["extra"] = (1, 2)  # a tuple is outside the value model
    with pytest.raises(WireError) as info:
        verify_signature(record, KEYS["test"])
    assert info.value.code == "unsupported_type"


def _mutated(mutate: Any) -> Dict[str, Any]:
    record = _record("valid.json")
    mutate(record)
    return record


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.pop("claim"),
        lambda r: r.pop("signature"),
        lambda r: r.__setitem__("identity", []),
        lambda r: r["identity"].pop("proof_id"),
        lambda r: r["identity"].__setitem__("proof_id", "A" * 64),
        lambda r: r["identity"].__setitem__("proof_id", "a" * 63),
        lambda r: r["identity"].__setitem__("proof_id", None),
        lambda r: r.__setitem__("signature", "f" * 64),
        lambda r: r["signature"].pop("signature"),
        lambda r: r["signature"].__setitem__("signature", "g" * 64),
        lambda r: r["signature"].__setitem__("signature", "a" * 64 + "\n"),
        lambda r: r["signature"].__setitem__("signature", 5),
        lambda r: r.__setitem__("extra", None),
        lambda r: r["signature"].__setitem__("extra", None),
    ],
)
def test_structure_errors(mutate: Any) -> None:
    record = _mutated(mutate)
    with pytest.raises(WireError) as info:
        check_structure(record)
    assert info.value.code == "record_structure"
    text = json.dumps(record)
    with pytest.raises(WireError) as info:
        verify_record(text, KEYS["test"])
    assert info.value.code == "record_structure"


@pytest.mark.parametrize("text", ["[]", "null", '"record"', "1", "{}"])
def test_non_object_records(text: str) -> None:
    with pytest.raises(WireError) as info:
        parse_proof(text)
    assert info.value.code == "record_structure"


def test_sections_order() -> None:
    assert SECTIONS == ("identity", "claim", "pre_registration", "data", "evidence", "verdict",
                        "reproduction", "provenance", "signature")
    assert list(_record("valid.json")) == list(SECTIONS)


def test_unknown_members_are_refused() -> None:
    """Exactly the nine members (the TypeScript schema also has additionalProperties: false)."""
    record = _record("valid.json")
    record["x_extra"] = {"note": "not part of the format"}
    with pytest.raises(WireError) as info:
        check_structure(record)
    assert info.value.code == "record_structure"
    assert "x_extra" in info.value.message
    with pytest.raises(WireError) as info:
        sign_record(record, KEYS["test"])
    assert info.value.code == "record_structure"
    record = _record("valid.json")
    record["signature"]["alg"] = "hmac-sha256"
    with pytest.raises(WireError) as info:
        verify_record(json.dumps(record), KEYS["test"])
    assert info.value.code == "record_structure"


def test_parse_error_comes_before_structure() -> None:
    with pytest.raises(WireError) as info:
        verify_record('{"identity": {}, "identity": {}}', None)
    assert info.value.code == "duplicate_key"


def test_proof_id_needs_identity_object() -> None:
    with pytest.raises(WireError) as info:
        proof_id({"claim": {}})
    assert info.value.code == "record_structure"
    with pytest.raises(WireError) as info:
        proof_id("x")  # type: ignore[arg-type]
    assert info.value.code == "record_structure"


def test_bodies_assembled_from_parts_equal_the_whole() -> None:
    """verify writes each section once and assembles both bodies; check that against the whole."""
    import random

    from empiric_proof._canonical import _dumps
    from empiric_proof._record import _bodies, _canonical_bodies

    rng = random.Random(99)
    records = [_record(name) for name in VALID_FILES]
    for _ in range(50):
        r = copy.deepcopy(rng.choice(records))
        for extra in rng.sample(["", "a", "identitx", "identity ", "z", "\u00e9", "\U0001F600"], 3):
            r[extra] = rng.choice([1, 2.5, None, "x", [], {"k": "v"}])
        if rng.random() < 0.5:
            r["identity"]["zz"] = 1
        records.append(r)
    for r in records:
        body, unsigned = _bodies(r)
        assert _canonical_bodies(r) == (_dumps(body), _dumps(unsigned))


def test_verdict_check_skips_records_without_pillar_entities() -> None:
    assert check_verdict(_record("valid.json")) == "skipped"
    assert check_verdict(_record("valid-pillars.json")) == "pass"
    with pytest.raises(WireError) as info:
        check_verdict(_record("tampered-verdict-flipped.json"))
    assert info.value.code == "verdict_inconsistent"
    assert info.value.pointer == "/verdict/outcome"  # type: ignore[attr-defined]
