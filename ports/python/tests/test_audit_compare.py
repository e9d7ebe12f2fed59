"""The independent audit of comparative claims (``analysis.comparison``): agreement with
TypeScript on fuzzed comparative cases (fixtures/audit/comparative_cases.json, from
fixtures/audit/generate_comparative.ts), the comparison statistics against known values, and
audits of comparative bundles: genuine ones agree, re-signed changes do not."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Dict, List

import pytest

from _support import FIXTURES
from test_audit import KEY, _diffs, _record_for
from empiric_proof import canonicalize, sign_record, verify_record
from empiric_proof import _stats as st
from empiric_proof._audit import analyze, audit, compare_interval, read_observations

DOC = json.loads((FIXTURES / "audit" / "comparative_cases.json").read_text(encoding="utf-8"))
CASES: List[Dict[str, Any]] = DOC["cases"]
METHODS = {"order_statistic", "clopper_pearson", "t", "bounded", "mcnemar",
           "bootstrap_percentile", "none"}


def _inputs(case: Dict[str, Any]):
    scenario = json.loads(case["scenario_json"])
    obs = read_observations(case["observations_jsonl"].encode())
    base = read_observations(case["baseline_observations_jsonl"].encode())
    return scenario, obs, base


@pytest.mark.parametrize("index", range(len(CASES)))
def test_agrees_with_typescript(index: int) -> None:
    case = CASES[index]
    scenario, obs, base = _inputs(case)
    assert _diffs(case["typescript"], analyze(scenario, obs, (base, case["paired"]))) == []


def test_the_comparison_can_fail() -> None:
    # A bootstrapped bound moved far below any print's precision is a difference.
    case = next(c for c in CASES if any(
        p["attrs"].get("empiric:mc_se_low") is not None for p in c["typescript"]["pillars"]))
    scenario, obs, base = _inputs(case)
    mine = analyze(scenario, obs, (base, case["paired"]))
    p = next(p for p in mine["pillars"] if "empiric:mc_se_low" in p["attrs"])
    p["evidence"]["ci_low"] *= 1 + 1e-10
    assert _diffs(case["typescript"], mine) != []
    # Unpaired is not paired: the same data analysed the other way differs.
    other = analyze(scenario, obs, (base, not case["paired"])) if len(obs) == len(base) else None
    if other is not None:
        assert _diffs(case["typescript"], other) != []


def test_the_cases_cover_methods_kinds_pairing_refusals_and_outcomes() -> None:
    seen = set()
    kinds, paired, comparators, refused, outcomes = set(), set(), set(), set(), set()
    for c in CASES:
        s = json.loads(c["scenario_json"])
        kinds.add(s["analysis"]["comparison"]["kind"])
        comparators.add(s["claim"]["threshold"]["comparator"])
        paired.add(c["paired"])
        outcomes.add(c["typescript"]["outcome"])
        for spec, p in zip(s["analysis"]["pillars"], c["typescript"]["pillars"]):
            ok = "empiric:refused" not in p["attrs"]
            seen.add((spec["interval"], c["paired"], ok))
            if not ok:
                refused.add(spec["interval"])
    assert kinds == {"ratio", "difference"} and paired == {True, False}
    assert "within" in comparators and outcomes == {"VALIDATED", "REFUTED", "INCONCLUSIVE"}
    assert {m for m, _, ok in seen if ok} == METHODS
    for pairing in (True, False):  # the bootstrap runs both ways
        assert ("bootstrap_percentile", pairing, True) in seen
    assert {"bootstrap_percentile", "t", "mcnemar", "clopper_pearson"} <= refused


def test_comparison_statistics_against_known_values() -> None:
    # McNemar: 200 items, candidate alone right on 3, baseline alone on 1 (the TypeScript doc).
    low, high, share, disc = st.paired_proportion_interval(200, 3, 1, 0.95)
    assert -0.039 < low < 0 and 0.05 < high < 0.056
    assert st.mcnemar_exact_p(10, 0) == pytest.approx(2 / 1024, rel=1e-15)
    # Combined order statistics of a difference: [L_c - U_b, U_c - L_b] at beta/2 a side.
    xs = [float(i) for i in range(1, 201)]
    spec = {"statistic": "median", "interval": "order_statistic"}
    r = compare_interval([x + 10 for x in xs], xs, spec, {}, "difference", 0.95, True, 0, 0)
    lc, hc, _, _ = st.order_statistic([x + 10 for x in xs], 0.5, 0.975)
    lb, hb, _, _ = st.order_statistic(xs, 0.5, 0.975)
    assert (r["estimate"], r["low"], r["high"]) == (10.0, lc - hb, hc - lb)
    # A paired bootstrap of an exact multiple gives the multiple in every resample.
    base = [10 + (i % 20) / 10 for i in range(200)]
    spec = {"statistic": "median", "interval": "bootstrap_percentile"}
    r = compare_interval([1.5 * x for x in base], base, spec, {}, "ratio", 0.95, True, 999, 1)
    assert abs(r["estimate"] - 1.5) < 1e-12 and r["low"] > 1.05 and not r["refused"]
    # Refusals: negative values in a ratio, a zero baseline, unpaired McNemar, few values.
    spec = {"statistic": "mean", "interval": "t"}
    assert compare_interval([1.0, -1.0, 2.0], [1.0, 2.0, 3.0], spec, {}, "ratio", 0.9,
                            True, 0, 0)["refused"]
    spec = {"statistic": "proportion", "interval": "mcnemar"}
    r = compare_interval([1.0, 0.0, 1.0], [0.0, 0.0, 1.0], spec, {}, "difference", 0.9,
                         False, 0, 0)
    assert r["refused"] and r["low"] == -1 and r["high"] == 1
    spec = {"statistic": "mean", "interval": "bootstrap_percentile"}
    assert compare_interval(base[:50], base[:50], spec, {}, "difference", 0.9, True, 99,
                            1)["refused"]


def _comparative_record(case: Dict[str, Any], observations: bytes,
                        baseline: bytes) -> Dict[str, Any]:
    """A comparative record as a run would write it (TypeScript's numbers), unsigned."""
    record = _record_for(case, observations)
    base = read_observations(baseline)
    record["data"]["datasets"].append({
        "name": "baseline", "kind": "baseline", "source": "stored baseline proof",
        "content_hash": hashlib.sha256(baseline).hexdigest(), "n_records": len(base)})
    record["provenance"]["entity"]["empiric:dataset/baseline"] = {
        "empiric:kind": "baseline", "empiric:paired": case["paired"]}
    return record


def _bundle_case() -> Dict[str, Any]:
    return next(c for c in CASES if c["paired"] and c["typescript"]["outcome"] != "INCONCLUSIVE"
                and any(p["attrs"].get("empiric:mc_se_low") is not None
                        for p in c["typescript"]["pillars"]))


def test_a_comparative_bundle_is_recomputed_and_agrees() -> None:
    case = _bundle_case()
    obs, base = (case["observations_jsonl"].encode(),
                 case["baseline_observations_jsonl"].encode())
    scenario = case["scenario_json"].encode()
    text = json.dumps(sign_record(_comparative_record(case, obs, base), KEY)).encode()
    r = audit(text, obs, scenario, KEY, base)
    assert (r["status"], r["agrees"], r["differences"], r["problems"]) == (
        "agrees", True, [], []), r
    assert r["recomputed"]["outcome"] == case["typescript"]["outcome"]
    # Without its baseline observations a comparative record cannot be recomputed.
    r = audit(text, obs, scenario, KEY)
    assert r["status"] == "differs" and r["problems"][0]["code"] == "bundle_mismatch"
    assert "baseline" in r["problems"][0]["message"]
    # Another baseline file than the sealed one.
    lines = case["baseline_observations_jsonl"].split("\n")
    r = audit(text, obs, scenario, KEY, "\n".join(lines[:-2] + [""]).encode())
    assert any(d["pointer"].endswith("/content_hash") for d in r["differences"])
    # A baseline file beside a one-sample record is a mismatch.
    plain = next(c for c in json.loads((FIXTURES / "audit" / "cases.json").read_text())["cases"]
                 if len(c["observations_jsonl"]) > 100)
    po = plain["observations_jsonl"].encode()
    ptext = json.dumps(sign_record(_record_for(plain, po), KEY)).encode()
    assert audit(ptext, po, plain["scenario_json"].encode(), KEY)["agrees"]
    r = audit(ptext, po, plain["scenario_json"].encode(), KEY, base)
    assert not r["agrees"] and r["problems"][0]["code"] == "bundle_mismatch"


def test_a_re_signed_change_of_the_baseline_is_caught() -> None:
    case = _bundle_case()
    obs = case["observations_jsonl"].encode()
    scenario = case["scenario_json"].encode()
    # The baseline's largest measured value of the deciding metric becomes ten times larger,
    # the record is re-sealed over the changed file with the key: it verifies, the audit differs.
    s = json.loads(case["scenario_json"])
    metric = next(p["metric"] for p in s["analysis"]["pillars"]
                  if p["name"] == s["claim"]["threshold"]["metric"])
    rows = [json.loads(x) for x in case["baseline_observations_jsonl"].split("\n") if x]
    k = min((i for i, o in enumerate(rows) if o["ok"] and o["metrics"].get(metric) is not None),
            key=lambda i: rows[i]["metrics"][metric])
    v = rows[k]["metrics"][metric]
    rows[k]["metrics"][metric] = (1 - v) if v in (0, 1) else v * 10 + 1
    changed = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in rows).encode()
    forged = json.dumps(sign_record(_comparative_record(case, obs, changed), KEY)).encode()
    verify_record(forged, KEY)
    r = audit(forged, obs, scenario, KEY, changed)
    assert r["status"] == "differs"
    assert any(d["code"] == "evidence_mismatch" for d in r["differences"])
    # The recorded pairing is the one recomputed: flipping it is a difference.
    flipped = _comparative_record(case, obs, case["baseline_observations_jsonl"].encode())
    flipped["provenance"]["entity"]["empiric:dataset/baseline"]["empiric:paired"] = False
    text = json.dumps(sign_record(flipped, KEY)).encode()
    r = audit(text, obs, scenario, KEY, case["baseline_observations_jsonl"].encode())
    assert r["status"] == "differs"
    assert any(d["pointer"].startswith("/provenance/entity/empiric:dataset~1baseline")
               or d["code"] == "evidence_mismatch" for d in r["differences"])
    assert math.isfinite(r["recomputed"]["observed_value"])


def _cli(args: List[str]):
    import os
    import subprocess
    import sys

    from _support import SRC

    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-m", "empiric_proof", *args], env=env,
                          capture_output=True, timeout=120)


def test_the_cli_analyzes_and_audits_comparisons(tmp_path) -> None:
    case = _bundle_case()
    s, o, b = (tmp_path / "s.json", tmp_path / "o.jsonl", tmp_path / "b.jsonl")
    s.write_text(case["scenario_json"])
    o.write_text(case["observations_jsonl"])
    b.write_text(case["baseline_observations_jsonl"])
    args = ["analyze", "--scenario", str(s), "--observations", str(o)]
    r = _cli(args + ["--baseline-observations", str(b)])  # paired: the same ids, in order
    assert r.returncode == 0, r.stderr
    assert _diffs(case["typescript"], json.loads(r.stdout)) == []
    r = _cli(args + ["--baseline-observations", str(b), "--unpaired"])
    assert r.returncode == 0 and _diffs(case["typescript"], json.loads(r.stdout)) != []
    r = _cli(args)
    assert r.returncode == 64 and b"--baseline-observations" in r.stderr
    assert b"Traceback" not in r.stderr

    # audit: the baseline file beside the record is found; without it, a clear failure.
    obs = case["observations_jsonl"].encode()
    base = case["baseline_observations_jsonl"].encode()
    rec = tmp_path / "cmp.json"
    rec.write_text(json.dumps(sign_record(_comparative_record(case, obs, base), KEY)))
    (tmp_path / "cmp.observations.jsonl").write_bytes(obs)
    (tmp_path / "cmp.scenario.json").write_text(case["scenario_json"])
    key = ["--key", KEY.decode()]
    r = _cli(["audit", str(rec), *key])
    assert r.returncode == 2 and b"baseline.observations.jsonl" in r.stdout, r.stdout
    assert b"--baseline-observations" in r.stdout
    r = _cli(["audit", str(rec), *key, "--baseline-observations", str(b)])
    assert r.returncode == 0 and r.stdout.startswith(b"AGREES "), r.stdout
    (tmp_path / "cmp.baseline.observations.jsonl").write_bytes(base)
    r = _cli(["audit", str(rec), *key, "--json"])
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "agrees"
