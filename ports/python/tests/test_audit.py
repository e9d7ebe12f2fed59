"""The independent audit: agreement with TypeScript on fuzzed cases (fixtures/audit), the
statistics against known values, and audits of bundles built from those cases."""

from __future__ import annotations

import copy
import hashlib
import json
import math
from typing import Any, Dict, List

import pytest

from _support import FIXTURES
from empiric_proof import WireError, canonicalize, sign_record, verify_record
from empiric_proof import _stats as st
from empiric_proof._audit import analyze, audit, read_observations

DOC = json.loads((FIXTURES / "audit" / "cases.json").read_text(encoding="utf-8"))
CASES: List[Dict[str, Any]] = DOC["cases"]
TOL = DOC["tolerance"]
TEXTS = {
    "prov:type", "prov:label", "empiric:failure_policy", "empiric:estimate_library",
    "empiric:estimate_library_version", "empiric:interval_library",
    "empiric:interval_library_version", "empiric:distribution_library",
    "empiric:distribution_library_version", "empiric:rng", "empiric:cross_check_agrees",
    "empiric:baseline_failure_policy",
}
KEY = b"empiric-python-audit-test-key-0123456789"


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or abs(a - b) <= TOL * max(abs(a), abs(b))
    return a == b


def _diffs(ts: Dict[str, Any], py: Dict[str, Any]) -> List[str]:
    out = []
    if ts["outcome"] != py["outcome"]:
        out.append(f"outcome {ts['outcome']} vs {py['outcome']}")
    if not _close(ts["observed_value"], py["observed_value"]):
        out.append("observed_value")
    for p, q in zip(ts["pillars"], py["pillars"]):
        for k in ("statistic_name", "statistic_value", "ci_low", "ci_high"):
            if not _close(p["evidence"][k], q["evidence"][k]):
                out.append(f"{p['evidence']['pillar']} {k}: {p['evidence'][k]} vs {q['evidence'][k]}")
        for k in set(p["attrs"]) | set(q["attrs"]):
            if k in TEXTS:
                continue
            have, want = p["attrs"].get(k), q["attrs"].get(k)
            if k in ("empiric:refused", "empiric:undecidable"):
                if (have is not None) != (want is True):
                    out.append(f"{k}: {have} vs {want}")
            elif want is None:
                if have is not None:
                    out.append(f"{k}: {have} vs absent")
            elif not _close(have, want):
                out.append(f"{p['evidence']['pillar']} {k}: {have} vs {want}")
    return out


@pytest.mark.parametrize("index", range(len(CASES)))
def test_agrees_with_typescript(index: int) -> None:
    case = CASES[index]
    scenario = json.loads(case["scenario_json"])
    obs = read_observations(case["observations_jsonl"].encode())
    assert _diffs(case["typescript"], analyze(scenario, obs)) == []


def test_fuzz_cases_cover_the_methods_and_outcomes() -> None:
    methods = {p["interval"] for c in CASES for p in json.loads(c["scenario_json"])["analysis"]["pillars"]}
    assert {"order_statistic", "clopper_pearson", "wilson", "t", "bounded",
            "bootstrap_percentile", "bootstrap_bca", "none"} <= methods
    assert {c["typescript"]["outcome"] for c in CASES} == {"VALIDATED", "REFUTED", "INCONCLUSIVE"}


def test_mt19937_and_the_index_stream() -> None:
    # The reference MT19937 outputs for seed 5489 (init_genrand).
    g = st.Mt19937(5489)
    assert [g.next_u32() for _ in range(3)] == [3499211612, 581869302, 3890346734]
    assert st.index_limit(10_000) == 4_294_960_000 and st.index_limit(2) == 2 ** 32
    # Means of a permutation resample are the data's mean (compensated sums).
    assert st.bootstrap_means([5.0], 3, 1) == [5.0, 5.0, 5.0]


def test_statistics_against_known_values() -> None:
    assert st.clopper_pearson(30, 30, 0.95) == (pytest.approx(0.025 ** (1 / 30), rel=1e-14), 1.0)
    lo, hi = st.wilson(81, 263, 0.95)  # Newcombe (1998)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    d = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4]  # Student's sleep data
    lo, hi = st.t_interval(d, 0.95)
    assert (f"{lo:.6f}", f"{hi:.6f}") == ("0.700114", "2.459886")
    xs = [float(i) for i in range(1, 101)]
    assert st.order_statistic(xs, 0.5, 0.95)[:2] == (40.0, 61.0)
    assert st.order_statistic(xs, 0.99, 0.95)[1] == math.inf  # p99 needs 368 items
    assert st.binomial_quantile(0.975, 200, 0.95) == 196
    assert st.quantile(xs[:10], 0.95) == pytest.approx(9.55, rel=1e-15)


def _record_for(case: Dict[str, Any], observations: bytes) -> Dict[str, Any]:
    """A record as a run would write it for a fuzz case (TypeScript's numbers), unsigned."""
    scenario = json.loads(case["scenario_json"])
    ts = case["typescript"]
    obs = read_observations(observations)
    t = scenario["claim"]["threshold"]
    run = "empiric:run/fuzz"
    entities: Dict[str, Any] = {}
    for p in ts["pillars"]:
        entities[f"{run}/pillar/{p['evidence']['pillar']}"] = p["attrs"]
    return {
        "identity": {"schema_version": "1.0", "empiric_version": "0.1.0",
                     "empiric_git_commit": "0" * 40, "created_at": "2026-11-24T00:00:00Z"},
        "claim": {"statement": "fuzz", "operationalization": "fuzz", "threshold": t,
                  "h0": "h0", "h1": "h1"},
        "pre_registration": {
            "config_hash": hashlib.sha256(canonicalize(scenario)).hexdigest(),
            "data_hash": "0" * 64, "analysis_plan": "fuzz"},
        "data": {"substrate_name": "fuzz", "substrate_git_commit": "unknown", "datasets": [
            {"name": "observations", "kind": "observations", "source": "observations.jsonl",
             "content_hash": hashlib.sha256(observations).hexdigest(), "n_records": len(obs)}]},
        "evidence": [p["evidence"] for p in ts["pillars"]],
        "verdict": {"outcome": ts["outcome"], "observed_value": ts["observed_value"],
                    "threshold": t, "reasoning": "fuzz"},
        "reproduction": {"command": "empiric run fuzz --substrate builtin:echo",
                         "environment": {}, "lineage_chain": []},
        "provenance": {"entity": entities, "activity": {run: {
            "empiric:measured": len(obs),
            "empiric:failed_items": sum(1 for o in obs if not o["ok"]),
            "empiric:retried_items": sum(1 for o in obs if o["attempts"] > 1)}}},
    }


def test_audit_of_a_bundle_and_of_a_re_signed_change() -> None:
    case = next(c for c in CASES if len(read_observations(c["observations_jsonl"].encode())) > 20)
    observations = case["observations_jsonl"].encode()
    scenario = case["scenario_json"].encode()
    signed = sign_record(_record_for(case, observations), KEY)
    text = json.dumps(signed).encode()
    r = audit(text, observations, scenario, KEY)
    assert r["agrees"], r
    assert r["recomputed"]["outcome"] == case["typescript"]["outcome"]

    # Change one observation and re-sign over it: the record verifies, the audit does not.
    lines = case["observations_jsonl"].split("\n")
    first = json.loads(lines[0])
    first["ok"] = not first["ok"]
    lines[0] = json.dumps(first, sort_keys=True, separators=(",", ":"))
    changed = "\n".join(lines).encode()
    forged = _record_for(case, changed)
    resigned = json.dumps(sign_record(forged, KEY)).encode()
    verify_record(resigned, KEY)
    r = audit(resigned, changed, scenario, KEY)
    assert not r["agrees"]
    assert any(d["code"] == "evidence_mismatch" for d in r["differences"])

    # The bundle must be the one the record seals.
    r = audit(text, changed, scenario, KEY)
    assert any(d["pointer"].endswith("/content_hash") for d in r["differences"])
    # A wrong key is reported as the record's problem.
    r = audit(text, observations, scenario, b"another key of enough length, 32+")
    assert r["problems"][0]["code"] == "signature_mismatch"


def test_malformed_observations_are_dataset_invalid() -> None:
    with pytest.raises(Exception) as info:
        read_observations(b'{"item": 1, "ok": true, "metrics": {}}\n')
    assert "dataset_invalid" in str(info.value)
    with pytest.raises(Exception):
        read_observations(b"not json\n")
