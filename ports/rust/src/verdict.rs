//! Verdict consistency (`docs/record.md`, "Verdict consistency"): the recorded outcome must
//! follow from the deciding pillar's evidence, the claim's threshold and the decision rule the
//! record names. The deciding `empiric:Pillar` entity of the provenance graph carries the rule
//! and every number it decided on, so no statistics are run. Checked with or without a key.
//!
//! A record without pillar entities (made before they were recorded) cannot be checked: the
//! result is [`VerdictCheck::Skipped`], never a failure.

use crate::canonical::write_canonical;
use crate::error::{Error, ErrorCode};
use crate::tape::{Node, Tape};
use crate::value::CanonicalValue;

/// What the verdict check found for a record that did not fail it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictCheck {
    /// The outcome follows from the deciding pillar's evidence and rule.
    Pass,
    /// The record has no pillar entities, so its verdict cannot be checked.
    Skipped,
}

/// Read access to a parsed JSON value, over a [`CanonicalValue`] or a tape node.
pub(crate) trait View<'v>: Copy + 'v {
    fn get(self, name: &str) -> Option<Self>;
    fn members(self) -> Vec<(&'v str, Self)>;
    fn elements(self) -> Vec<Self>;
    fn text(self) -> Option<&'v str>;
    fn int(self) -> Option<i64>;
    fn number(self) -> Option<f64>;
    fn boolean(self) -> Option<bool>;
    fn canonical(self) -> Option<Vec<u8>>;
}

impl<'v> View<'v> for &'v CanonicalValue {
    fn get(self, name: &str) -> Option<Self> {
        CanonicalValue::get(self, name)
    }
    fn members(self) -> Vec<(&'v str, Self)> {
        self.as_object()
            .map(|m| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
            .unwrap_or_default()
    }
    fn elements(self) -> Vec<Self> {
        self.as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default()
    }
    fn text(self) -> Option<&'v str> {
        self.as_str()
    }
    fn int(self) -> Option<i64> {
        self.as_i64()
    }
    fn number(self) -> Option<f64> {
        match self {
            CanonicalValue::Int(i) => Some(*i as f64),
            CanonicalValue::Float(f) => Some(*f),
            _ => None,
        }
    }
    fn boolean(self) -> Option<bool> {
        self.as_bool()
    }
    fn canonical(self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        write_canonical(&mut out, self).ok()?;
        Some(out)
    }
}

/// A node of a tape.
#[derive(Clone, Copy)]
pub(crate) struct At<'t, 'a> {
    pub(crate) tape: &'t Tape<'a>,
    pub(crate) index: usize,
}

impl<'t, 'a: 't> View<'t> for At<'t, 'a> {
    fn get(self, name: &str) -> Option<Self> {
        self.tape.get(self.index, name).map(|index| At {
            tape: self.tape,
            index,
        })
    }
    fn members(self) -> Vec<(&'t str, Self)> {
        self.tape
            .members(self.index)
            .map(|keys| {
                keys.iter()
                    .map(|&k| {
                        (
                            self.tape.key(k),
                            At {
                                tape: self.tape,
                                index: k + 1,
                            },
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    fn elements(self) -> Vec<Self> {
        self.tape
            .elements(self.index)
            .into_iter()
            .map(|index| At {
                tape: self.tape,
                index,
            })
            .collect()
    }
    fn text(self) -> Option<&'t str> {
        self.tape.str_at(self.index)
    }
    fn int(self) -> Option<i64> {
        match self.tape.nodes.get(self.index) {
            Some(Node::Int(i)) => Some(*i),
            _ => None,
        }
    }
    fn number(self) -> Option<f64> {
        match self.tape.nodes.get(self.index) {
            Some(Node::Int(i)) => Some(*i as f64),
            Some(Node::Float(f)) => Some(*f),
            Some(Node::CanonicalFloat(literal)) => literal.parse().ok(),
            _ => None,
        }
    }
    fn boolean(self) -> Option<bool> {
        match self.tape.nodes.get(self.index) {
            Some(Node::Bool(b)) => Some(*b),
            _ => None,
        }
    }
    fn canonical(self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        self.tape.write_canonical(&mut out, self.index, 2).ok()?;
        Some(out)
    }
}

fn inconsistent(message: String, pointer: &str) -> Error {
    Error::new(
        ErrorCode::VerdictInconsistent,
        format!("{message} (at {pointer})"),
    )
}

fn pointer(segments: &[&str]) -> String {
    segments
        .iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

fn satisfies(x: f64, comparator: &str, t: f64) -> bool {
    match comparator {
        "<" => x < t,
        "<=" => x <= t,
        ">" => x > t,
        _ => x >= t,
    }
}

/// The numbers and names the recorded rule decides with (see [`rule_outcome`]).
#[derive(Debug, Clone)]
pub struct RuleInputs<'s> {
    /// Items measured (`empiric:n`).
    pub n: i64,
    /// Failed items of the run (`empiric:failed_items`).
    pub failed: i64,
    /// Fewest items that may decide (`empiric:min_n`).
    pub min_n: i64,
    /// Largest failure rate allowed (`empiric:max_failure_rate`).
    pub max_failure_rate: f64,
    /// `interval` or `point` (`empiric:decision_rule`).
    pub rule: &'s str,
    /// The interval method (`empiric:method`).
    pub method: &'s str,
    /// The pillar carries `empiric:refused`.
    pub refused: bool,
    /// The pillar carries `empiric:undecidable`.
    pub undecidable: bool,
    /// `<`, `<=`, `>` or `>=`.
    pub comparator: &'s str,
    /// The claim's threshold value.
    pub threshold: f64,
    /// `empiric:deciding_low`.
    pub low: f64,
    /// `empiric:deciding_high`.
    pub high: f64,
    /// `within`: the center of the band (`empiric:within_center`: 1 for a ratio, 0 for a
    /// difference).
    pub center: f64,
    /// A comparative claim's baseline side, when the pillar compares (`empiric:comparison`).
    pub baseline: Option<RuleBaseline>,
}

/// The baseline side of a comparative claim, as the deciding pillar records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleBaseline {
    /// Items measured on the baseline (`empiric:baseline_n`).
    pub n: i64,
    /// Failed baseline items (`empiric:baseline_failed_items`).
    pub failed: i64,
    /// Censored values of the deciding pillar on both sides (a point rule cannot decide them).
    pub censored: i64,
}

/// The outcome the recorded rule gives, in the order of `docs/statistics.md` ("The verdict").
///
/// ```
/// use empiric_proof::{rule_outcome, RuleInputs};
/// let inputs = RuleInputs { n: 200, failed: 0, min_n: 100, max_failure_rate: 0.02,
///     rule: "interval", method: "order_statistic", refused: false, undecidable: false,
///     comparator: "<=", threshold: 50.0, low: 55.0, high: 70.25, center: 0.0, baseline: None };
/// assert_eq!(rule_outcome(&inputs), "REFUTED");
/// assert_eq!(rule_outcome(&RuleInputs { failed: 5, ..inputs.clone() }), "INCONCLUSIVE");
/// // A comparative equivalence claim: |ratio - 1| <= 0.05, decided by both bounds.
/// use empiric_proof::RuleBaseline;
/// let within = RuleInputs { comparator: "within", threshold: 0.05, low: 0.97, high: 1.04,
///     center: 1.0, baseline: Some(RuleBaseline { n: 200, failed: 0, censored: 0 }), ..inputs };
/// assert_eq!(rule_outcome(&within), "VALIDATED");
/// assert_eq!(rule_outcome(&RuleInputs { low: 1.06, high: 1.2, ..within.clone() }), "REFUTED");
/// let few = Some(RuleBaseline { n: 50, failed: 0, censored: 0 });
/// assert_eq!(rule_outcome(&RuleInputs { baseline: few, ..within }), "INCONCLUSIVE");
/// ```
pub fn rule_outcome(a: &RuleInputs<'_>) -> &'static str {
    if a.n == 0 {
        return "INCONCLUSIVE";
    }
    if let Some(b) = a.baseline {
        if b.n == 0 || b.failed as f64 / b.n as f64 > a.max_failure_rate || b.n < a.min_n {
            return "INCONCLUSIVE";
        }
    }
    if a.failed as f64 / a.n as f64 > a.max_failure_rate || a.n < a.min_n {
        return "INCONCLUSIVE";
    }
    if (a.rule == "interval" && (a.refused || a.method == "none")) || a.undecidable {
        return "INCONCLUSIVE";
    }
    if a.rule == "point" && a.baseline.is_some_and(|b| b.censored > 0) {
        return "INCONCLUSIVE";
    }
    if a.comparator == "within" {
        let (lo, hi) = (a.center - a.threshold, a.center + a.threshold);
        return if a.low >= lo && a.high <= hi {
            "VALIDATED"
        } else if a.low > hi || a.high < lo {
            "REFUTED"
        } else {
            "INCONCLUSIVE"
        };
    }
    let upper = a.comparator == "<" || a.comparator == "<=";
    let (side, other) = if upper {
        (a.high, a.low)
    } else {
        (a.low, a.high)
    };
    if satisfies(side, a.comparator, a.threshold) {
        "VALIDATED"
    } else if !satisfies(other, a.comparator, a.threshold) {
        "REFUTED"
    } else {
        "INCONCLUSIVE"
    }
}

fn is_pillar<'v, V: View<'v>>(entity: V) -> bool {
    match entity.get("prov:type") {
        Some(t) => {
            t.text() == Some("empiric:Pillar")
                || t.get("$").and_then(View::text) == Some("empiric:Pillar")
        }
        None => false,
    }
}

/// Checks a record (any view of it) for verdict consistency.
pub(crate) fn check<'v, V: View<'v>>(record: V) -> Result<VerdictCheck, Error> {
    let entities = record
        .get("provenance")
        .and_then(|p| p.get("entity"))
        .map(View::members)
        .unwrap_or_default();
    let pillars: Vec<_> = entities
        .into_iter()
        .filter(|(_, e)| is_pillar(*e))
        .collect();
    if pillars.is_empty() {
        return Ok(VerdictCheck::Skipped);
    }
    let deciding: Vec<_> = pillars
        .iter()
        .filter(|(_, e)| e.get("empiric:deciding").and_then(View::boolean) == Some(true))
        .collect();
    if deciding.len() != 1 {
        return Err(inconsistent(
            format!(
                "the provenance has {} deciding pillar entities (empiric:deciding true); a verdict is decided on exactly one",
                deciding.len()
            ),
            "/provenance/entity",
        ));
    }
    let (id, e) = *deciding[0];
    let at = |attr: &str| pointer(&["provenance", "entity", id, attr]);
    let missing = |attr: &str, what: &str| {
        inconsistent(
            format!("the deciding pillar entity {id} lacks {attr} (or it is not {what}), so its verdict cannot be checked"),
            &at(attr),
        )
    };
    let text = |attr: &str| {
        e.get(attr)
            .and_then(View::text)
            .ok_or_else(|| missing(attr, "a string"))
    };
    let int = |attr: &str| {
        e.get(attr)
            .and_then(View::int)
            .ok_or_else(|| missing(attr, "an int"))
    };
    let number = |attr: &str| {
        e.get(attr)
            .and_then(View::number)
            .ok_or_else(|| missing(attr, "a number"))
    };
    let pillar = text("empiric:pillar")?;
    let method = text("empiric:method")?;
    let rule = text("empiric:decision_rule")?;
    let comparator = text("empiric:comparator")?;
    let entity_outcome = text("empiric:outcome")?;
    let threshold = number("empiric:threshold")?;
    let n = int("empiric:n")?;
    let failed = int("empiric:failed_items")?;
    let min_n = int("empiric:min_n")?;
    let max_failure_rate = number("empiric:max_failure_rate")?;
    let estimate = number("empiric:estimate")?;
    let ci_low = number("empiric:ci_low")?;
    let ci_high = number("empiric:ci_high")?;
    let low = number("empiric:deciding_low")?;
    let high = number("empiric:deciding_high")?;
    if rule != "interval" && rule != "point" {
        return Err(inconsistent(
            format!("unknown decision rule {rule:?}"),
            &at("empiric:decision_rule"),
        ));
    }
    if !["<", "<=", ">", ">=", "within"].contains(&comparator) {
        return Err(inconsistent(
            format!("unknown comparator {comparator:?}"),
            &at("empiric:comparator"),
        ));
    }
    for attr in ["empiric:refused", "empiric:undecidable"] {
        if let Some(v) = e.get(attr) {
            if v.text().is_none() {
                return Err(inconsistent(format!("{attr} must be a string"), &at(attr)));
            }
        }
    }
    let estimate_high = match e.get("empiric:estimate_high") {
        None => None,
        Some(v) => Some(v.number().ok_or_else(|| {
            inconsistent(
                "empiric:estimate_high must be a number".into(),
                &at("empiric:estimate_high"),
            )
        })?),
    };
    // A comparative claim (`empiric:comparison`) is decided on both sides.
    let mut baseline = None;
    let mut center = 0.0;
    if let Some(kind) = e.get("empiric:comparison") {
        let kind = match kind.text() {
            Some(k @ ("ratio" | "difference")) => k,
            _ => {
                return Err(inconsistent(
                    "unknown comparison (ratio or difference)".into(),
                    &at("empiric:comparison"),
                ))
            }
        };
        let count = |attr: &str| {
            e.get(attr).and_then(View::int).ok_or_else(|| {
                inconsistent(
                    format!("the deciding pillar entity {id} compares with a baseline but lacks {attr} (or it is not an int), so its verdict cannot be checked"),
                    &at(attr),
                )
            })
        };
        baseline = Some(RuleBaseline {
            n: count("empiric:baseline_n")?,
            failed: count("empiric:baseline_failed_items")?,
            censored: count("empiric:censored")? + count("empiric:baseline_censored")?,
        });
        if comparator == "within" {
            let want = if kind == "ratio" { 1.0 } else { 0.0 };
            let got = e.get("empiric:within_center").and_then(View::number);
            if got != Some(want) {
                return Err(inconsistent(
                    format!("the deciding pillar entity {id} decides a {kind} within a band, so empiric:within_center must be {want}, not {got:?}"),
                    &at("empiric:within_center"),
                ));
            }
            center = want;
        }
    } else if comparator == "within" && e.get("empiric:undecidable").is_none() {
        // Without empiric:comparison the analysis did not compare (it failed: undecidable).
        return Err(inconsistent(
            "the comparator within compares a candidate with a baseline, but the deciding pillar entity has no empiric:comparison".into(),
            &at("empiric:comparator"),
        ));
    }

    let claim_threshold = record.get("claim").and_then(|c| c.get("threshold"));
    let verdict = record.get("verdict");
    let mut problems: Vec<(String, String)> = Vec::new();
    let metric = claim_threshold
        .and_then(|t| t.get("metric"))
        .and_then(View::text);
    if metric != Some(pillar) {
        problems.push((
            format!(
                "the deciding pillar is {pillar}, but the claim's threshold names {}",
                metric.unwrap_or("nothing")
            ),
            at("empiric:pillar"),
        ));
    }
    if claim_threshold
        .and_then(|t| t.get("comparator"))
        .and_then(View::text)
        != Some(comparator)
    {
        problems.push((
            format!("the deciding pillar's comparator {comparator} is not the claim's"),
            "/claim/threshold/comparator".into(),
        ));
    }
    let value = claim_threshold
        .and_then(|t| t.get("value"))
        .and_then(View::number);
    if value != Some(threshold) {
        problems.push((
            format!("the claim's threshold value {value:?} is not the {threshold} the deciding pillar was decided against"),
            "/claim/threshold/value".into(),
        ));
    }
    let verdict_threshold = verdict
        .and_then(|v| v.get("threshold"))
        .and_then(View::canonical);
    if claim_threshold.and_then(View::canonical).is_none()
        || claim_threshold.and_then(View::canonical) != verdict_threshold
    {
        problems.push((
            "the verdict's threshold is not the claim's".into(),
            "/verdict/threshold".into(),
        ));
    }
    let evidence = record
        .get("evidence")
        .map(View::elements)
        .unwrap_or_default();
    match evidence
        .iter()
        .position(|x| x.get("pillar").and_then(View::text) == Some(pillar))
    {
        None => problems.push((
            format!("no evidence entry for the deciding pillar {pillar}"),
            "/evidence".into(),
        )),
        Some(index) => {
            for (field, attr, expected) in [
                ("statistic_value", "empiric:estimate", estimate),
                ("ci_low", "empiric:ci_low", ci_low),
                ("ci_high", "empiric:ci_high", ci_high),
            ] {
                let v = evidence[index].get(field).and_then(View::number);
                if v != Some(expected) {
                    problems.push((
                        format!("evidence {pillar} has {field} {v:?}, but the deciding pillar's {attr} is {expected}"),
                        pointer(&["evidence", &index.to_string(), field]),
                    ));
                }
            }
        }
    }
    let observed = verdict
        .and_then(|v| v.get("observed_value"))
        .and_then(View::number);
    if observed != Some(estimate) {
        problems.push((
            format!("the verdict's observed_value {observed:?} is not the deciding pillar's estimate {estimate}"),
            "/verdict/observed_value".into(),
        ));
    }
    let expected = if rule == "interval" {
        (ci_low, ci_high)
    } else {
        (estimate, estimate_high.unwrap_or(estimate))
    };
    if (low, high) != expected {
        problems.push((
            format!(
                "under the {rule} rule the deciding bounds are [{}, {}], but the entity records [{low}, {high}]",
                expected.0, expected.1
            ),
            at("empiric:deciding_low"),
        ));
    }
    let outcome = rule_outcome(&RuleInputs {
        n,
        failed,
        min_n,
        max_failure_rate,
        rule,
        method,
        refused: e.get("empiric:refused").is_some(),
        undecidable: e.get("empiric:undecidable").is_some(),
        comparator,
        threshold,
        low,
        high,
        center,
        baseline,
    });
    let recorded = verdict.and_then(|v| v.get("outcome")).and_then(View::text);
    match recorded {
        Some(r) if ["VALIDATED", "REFUTED", "INCONCLUSIVE"].contains(&r) => {
            if r != outcome {
                problems.push((
                    format!(
                        "the verdict is {r}, but the recorded {rule} rule gives {outcome} ({pillar} in [{low}, {high}] {comparator} {threshold}, n={n}, {failed} failed, min_n {min_n}, max_failure_rate {max_failure_rate})"
                    ),
                    "/verdict/outcome".into(),
                ));
            }
        }
        _ => problems.push((
            format!("unknown outcome {recorded:?}"),
            "/verdict/outcome".into(),
        )),
    }
    if recorded != Some(entity_outcome) {
        problems.push((
            format!(
                "the deciding pillar records outcome {entity_outcome}, the verdict {}",
                recorded.unwrap_or("none")
            ),
            at("empiric:outcome"),
        ));
    }
    match problems.first() {
        None => Ok(VerdictCheck::Pass),
        Some((message, at)) => {
            let more = if problems.len() > 1 {
                format!(" (and {} more)", problems.len() - 1)
            } else {
                String::new()
            };
            Err(inconsistent(format!("{message}{more}"), at))
        }
    }
}

/// Checks that a parsed record's verdict follows from its deciding evidence, threshold and
/// recorded decision rule; [`VerdictCheck::Skipped`] for records without pillar entities.
///
/// ```
/// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/records/");
/// use empiric_proof::{parse_proof, verify_verdict, VerdictCheck};
/// let proof = parse_proof(&std::fs::read_to_string(format!("{dir}valid-pillars.json")).unwrap()).unwrap();
/// assert_eq!(verify_verdict(&proof), Ok(VerdictCheck::Pass));
/// let old = parse_proof(&std::fs::read_to_string(format!("{dir}valid.json")).unwrap()).unwrap();
/// assert_eq!(verify_verdict(&old), Ok(VerdictCheck::Skipped));
/// let flipped = std::fs::read_to_string(format!("{dir}tampered-verdict-flipped.json")).unwrap();
/// let err = verify_verdict(&parse_proof(&flipped).unwrap()).unwrap_err();
/// assert_eq!(err.code(), "verdict_inconsistent");
/// ```
///
/// # Errors
///
/// `verdict_inconsistent`, with the first disagreement and its JSON pointer in the message.
pub fn verify_verdict(proof: &crate::Proof) -> Result<VerdictCheck, Error> {
    check(proof.value())
}
