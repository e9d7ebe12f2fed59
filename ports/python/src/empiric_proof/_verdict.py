"""Verdict consistency (docs/record.md, "Verdict consistency").

A verifier checks, with or without a key, that a record's outcome follows from the deciding
pillar's evidence, the claim's threshold and the decision rule the record names: the deciding
``empiric:Pillar`` entity of the provenance graph carries the rule and every number it decided
on, so no statistics are run here. A record without pillar entities (made before they were
recorded) cannot be checked: :func:`check_verdict` returns ``"skipped"`` and never fails it.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from ._canonical import canonicalize
from .errors import VERDICT_INCONSISTENT, WireError

__all__ = ["check_verdict", "rule_outcome"]

_COMPARATORS = ("<", "<=", ">", ">=", "within")
_OUTCOMES = ("VALIDATED", "REFUTED", "INCONCLUSIVE")


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_number(v: Any) -> bool:
    return type(v) in (int, float)


def _pointer(*segments: Any) -> str:
    return "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in segments)


def _satisfies(x: float, comparator: str, t: float) -> bool:
    if comparator == "<":
        return x < t
    if comparator == "<=":
        return x <= t
    if comparator == ">":
        return x > t
    return x >= t


def rule_outcome(n: int, failed: int, min_n: int, max_failure_rate: float, rule: str,
                 method: str, refused: bool, undecidable: bool, comparator: str,
                 threshold: float, low: float, high: float, center: float = 0.0,
                 baseline: Optional[Tuple[int, int, int]] = None) -> str:
    """The outcome the recorded rule gives (docs/statistics.md, "The verdict").

    ``baseline`` is a comparative claim's baseline side: (items measured, failed items,
    censored values of the deciding pillar on both sides); ``within`` decides
    ``|x - center| <= threshold`` by both bounds.

    >>> rule_outcome(200, 0, 100, 0.0, "interval", "clopper_pearson", False, False, ">=", 0.95,
    ...              0.96, 1.0)
    'VALIDATED'
    >>> rule_outcome(200, 5, 100, 0.02, "interval", "order_statistic", False, False, "<=", 50.0,
    ...              55.0, 70.25)
    'INCONCLUSIVE'
    >>> rule_outcome(130, 0, 100, 0.0, "interval", "bootstrap_percentile", False, False, "within",
    ...              0.05, 0.97, 1.04, center=1.0, baseline=(130, 0, 0))
    'VALIDATED'
    >>> rule_outcome(130, 0, 100, 0.0, "interval", "bootstrap_percentile", False, False, "within",
    ...              0.05, 0.97, 1.04, center=1.0, baseline=(90, 0, 0))
    'INCONCLUSIVE'
    """
    if n == 0:
        return "INCONCLUSIVE"
    if baseline is not None:
        b_n, b_failed, _ = baseline
        if b_n == 0 or b_failed / b_n > max_failure_rate or b_n < min_n:
            return "INCONCLUSIVE"
    if failed / n > max_failure_rate:
        return "INCONCLUSIVE"
    if n < min_n:
        return "INCONCLUSIVE"
    if rule == "interval" and (refused or method == "none"):
        return "INCONCLUSIVE"
    if undecidable:
        return "INCONCLUSIVE"
    if baseline is not None and rule == "point" and baseline[2] > 0:
        return "INCONCLUSIVE"
    if comparator == "within":
        if low >= center - threshold and high <= center + threshold:
            return "VALIDATED"
        if low > center + threshold or high < center - threshold:
            return "REFUTED"
        return "INCONCLUSIVE"
    upper = comparator in ("<", "<=")
    if _satisfies(high if upper else low, comparator, threshold):
        return "VALIDATED"
    if not _satisfies(low if upper else high, comparator, threshold):
        return "REFUTED"
    return "INCONCLUSIVE"


def _is_pillar(entity: Any) -> bool:
    if type(entity) is not dict:
        return False
    t = entity.get("prov:type")
    return t == "empiric:Pillar" or (type(t) is dict and t.get("$") == "empiric:Pillar")


_FIELDS: Tuple[Tuple[str, str, str], ...] = (
    # (key, attribute, kind)
    ("pillar", "empiric:pillar", "str"),
    ("method", "empiric:method", "str"),
    ("rule", "empiric:decision_rule", "str"),
    ("comparator", "empiric:comparator", "str"),
    ("outcome", "empiric:outcome", "str"),
    ("threshold", "empiric:threshold", "number"),
    ("n", "empiric:n", "int"),
    ("failed", "empiric:failed_items", "int"),
    ("min_n", "empiric:min_n", "int"),
    ("max_failure_rate", "empiric:max_failure_rate", "number"),
    ("estimate", "empiric:estimate", "number"),
    ("ci_low", "empiric:ci_low", "number"),
    ("ci_high", "empiric:ci_high", "number"),
    ("low", "empiric:deciding_low", "number"),
    ("high", "empiric:deciding_high", "number"),
)
_KIND_TEXT = {"str": "a string", "int": "an int", "number": "a number"}


def _fail(message: str, pointer: str) -> WireError:
    err = WireError(VERDICT_INCONSISTENT, message)
    err.pointer = pointer  # type: ignore[attr-defined]
    return err


def _dict(v: Any) -> Dict[str, Any]:
    return v if type(v) is dict else {}


def check_verdict(record: Dict[str, Any]) -> str:
    """Check verdict consistency; return ``"pass"`` or ``"skipped"`` (no pillar entities).

    Raises ``verdict_inconsistent`` (a :class:`~empiric_proof.WireError` with a ``pointer``
    attribute) on the first disagreement.

    >>> check_verdict({"provenance": {"entity": {}}})
    'skipped'
    """
    entities = _dict(_dict(record.get("provenance")).get("entity"))
    pillars = [(k, v) for k, v in entities.items() if _is_pillar(v)]
    if not pillars:
        return "skipped"
    deciding = [(k, v) for k, v in pillars if v.get("empiric:deciding") is True]
    if len(deciding) != 1:
        raise _fail(f"the provenance has {len(deciding)} deciding pillar entities (empiric:deciding "
                    "true); a verdict is decided on exactly one", "/provenance/entity")
    eid, e = deciding[0]

    def at(attr: str) -> str:
        return _pointer("provenance", "entity", eid, attr)

    f: Dict[str, Any] = {}
    for key, attr, kind in _FIELDS:
        v = e.get(attr)
        ok = (type(v) is str) if kind == "str" else _is_int(v) if kind == "int" else _is_number(v)
        if not ok:
            raise _fail(f"the deciding pillar entity {eid} lacks {attr} (or it is not "
                        f"{_KIND_TEXT[kind]}), so its verdict cannot be checked", at(attr))
        f[key] = v
    if f["rule"] not in ("interval", "point"):
        raise _fail(f"unknown decision rule {json.dumps(f['rule'])}", at("empiric:decision_rule"))
    if f["comparator"] not in _COMPARATORS:
        raise _fail(f"unknown comparator {json.dumps(f['comparator'])}", at("empiric:comparator"))
    for attr in ("empiric:refused", "empiric:undecidable"):
        if attr in e and type(e[attr]) is not str:
            raise _fail(f"{attr} must be a string", at(attr))
    estimate_high = e.get("empiric:estimate_high")
    if "empiric:estimate_high" in e and not _is_number(estimate_high):
        raise _fail("empiric:estimate_high must be a number", at("empiric:estimate_high"))
    # A comparative claim (empiric:comparison) is decided on both sides.
    baseline: Optional[Tuple[int, int, int]] = None
    center = 0.0
    if "empiric:comparison" in e:
        kind = e["empiric:comparison"]
        if kind not in ("ratio", "difference"):
            raise _fail(f"unknown comparison {json.dumps(kind)} (ratio or difference)",
                        at("empiric:comparison"))
        counts = []
        for attr in ("empiric:baseline_n", "empiric:baseline_failed_items", "empiric:censored",
                     "empiric:baseline_censored"):
            if not _is_int(e.get(attr)):
                raise _fail(f"the deciding pillar entity {eid} compares with a baseline but lacks "
                            f"{attr} (or it is not an int), so its verdict cannot be checked",
                            at(attr))
            counts.append(e[attr])
        baseline = (counts[0], counts[1], counts[2] + counts[3])
        if f["comparator"] == "within":
            want = 1.0 if kind == "ratio" else 0.0
            got = e.get("empiric:within_center")
            if not _is_number(got) or got != want:
                raise _fail(f"the deciding pillar entity {eid} decides a {kind} within a band, so "
                            f"empiric:within_center must be {want:g}, not {got}",
                            at("empiric:within_center"))
            center = want
    elif f["comparator"] == "within" and "empiric:undecidable" not in e:
        # Without empiric:comparison the analysis did not compare (it failed: undecidable).
        raise _fail("the comparator within compares a candidate with a baseline, but the deciding "
                    "pillar entity has no empiric:comparison", at("empiric:comparator"))

    claim = _dict(record.get("claim"))
    threshold = _dict(claim.get("threshold"))
    verdict = _dict(record.get("verdict"))
    problems: List[Tuple[str, str]] = []
    if f["pillar"] != threshold.get("metric"):
        problems.append((f"the deciding pillar is {f['pillar']}, but the claim's threshold names "
                         f"{threshold.get('metric')}", at("empiric:pillar")))
    if f["comparator"] != threshold.get("comparator"):
        problems.append((f"the deciding pillar's comparator {f['comparator']} is not the claim's "
                         f"{threshold.get('comparator')}", "/claim/threshold/comparator"))
    value = threshold.get("value")
    if not _is_number(value) or value != f["threshold"]:
        problems.append((f"the claim's threshold value {value} is not the {f['threshold']} the "
                         "deciding pillar was decided against", "/claim/threshold/value"))
    try:
        same = canonicalize(claim.get("threshold")) == canonicalize(verdict.get("threshold"))
    except WireError:
        same = False
    if not same:
        problems.append(("the verdict's threshold is not the claim's", "/verdict/threshold"))
    evidence = record.get("evidence")
    evidence = evidence if type(evidence) is list else []
    index: Optional[int] = next(
        (i for i, x in enumerate(evidence) if type(x) is dict and x.get("pillar") == f["pillar"]),
        None)
    if index is None:
        problems.append((f"no evidence entry for the deciding pillar {f['pillar']}", "/evidence"))
    else:
        ev = evidence[index]
        for field, attr, key in (("statistic_value", "empiric:estimate", "estimate"),
                                 ("ci_low", "empiric:ci_low", "ci_low"),
                                 ("ci_high", "empiric:ci_high", "ci_high")):
            v = ev.get(field)
            if not _is_number(v) or v != f[key]:
                problems.append((f"evidence {f['pillar']} has {field} {v}, but the deciding "
                                 f"pillar's {attr} is {f[key]}", _pointer("evidence", index, field)))
    observed = verdict.get("observed_value")
    if not _is_number(observed) or observed != f["estimate"]:
        problems.append((f"the verdict's observed_value {observed} is not the deciding pillar's "
                         f"estimate {f['estimate']}", "/verdict/observed_value"))
    high = f["estimate"] if estimate_high is None else estimate_high
    expected = (f["ci_low"], f["ci_high"]) if f["rule"] == "interval" else (f["estimate"], high)
    if (f["low"], f["high"]) != expected:
        problems.append((f"under the {f['rule']} rule the deciding bounds are "
                         f"[{expected[0]}, {expected[1]}], but the entity records "
                         f"[{f['low']}, {f['high']}]", at("empiric:deciding_low")))
    outcome = rule_outcome(f["n"], f["failed"], f["min_n"], f["max_failure_rate"], f["rule"],
                           f["method"], "empiric:refused" in e, "empiric:undecidable" in e,
                           f["comparator"], f["threshold"], f["low"], f["high"], center,
                           baseline)
    recorded = verdict.get("outcome")
    if recorded not in _OUTCOMES:
        problems.append((f"unknown outcome {json.dumps(recorded)}", "/verdict/outcome"))
    elif recorded != outcome:
        problems.append((f"the verdict is {recorded}, but the recorded {f['rule']} rule gives "
                         f"{outcome} ({f['pillar']} in [{f['low']}, {f['high']}] "
                         f"{f['comparator']} {f['threshold']}, n={f['n']}, {f['failed']} failed, "
                         + (f"baseline n={baseline[0]}, {baseline[1]} failed, "
                            if baseline is not None else "")
                         + f"min_n {f['min_n']}, max_failure_rate {f['max_failure_rate']})",
                         "/verdict/outcome"))
    if f["outcome"] != recorded:
        problems.append((f"the deciding pillar records outcome {f['outcome']}, the verdict "
                         f"{recorded}", at("empiric:outcome")))
    if problems:
        message, pointer = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise _fail(message + more, pointer)
    return "pass"
