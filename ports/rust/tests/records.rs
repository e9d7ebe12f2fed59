//! Every case of `fixtures/records/cases.json`.

mod common;

use common::{fixtures_dir, load_fixture, str_member};
use empiric_proof::{
    parse_proof, parse_proof_bytes, verify_record, verify_record_bytes, verify_signature,
    CanonicalValue, ErrorCode,
};

struct Case {
    file: String,
    key: Option<Vec<u8>>,
    expect: String,
}

fn cases() -> Vec<Case> {
    let doc = load_fixture("records/cases.json");
    let keys = doc.get("keys_utf8").unwrap();
    let cases = doc.get("cases").and_then(CanonicalValue::as_array).unwrap();
    cases
        .iter()
        .map(|c| Case {
            file: str_member(c, "file").to_owned(),
            key: match c.get("key").unwrap() {
                CanonicalValue::Null => None,
                name => Some(str_member(keys, name.as_str().unwrap()).as_bytes().to_vec()),
            },
            expect: str_member(c, "expect").to_owned(),
        })
        .collect()
}

fn read(file: &str) -> Vec<u8> {
    std::fs::read(fixtures_dir().join("records").join(file)).unwrap()
}

fn outcome(result: Result<(), empiric_proof::Error>) -> String {
    match result {
        Ok(()) => "valid".to_owned(),
        Err(e) => e.code().to_owned(),
    }
}

#[test]
fn verify_record_gives_each_expected_result() {
    let cases = cases();
    assert!(
        cases.len() >= 16,
        "the case file lost cases: {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let bytes = read(&case.file);
        let text = String::from_utf8(bytes.clone()).unwrap();
        let by_text = outcome(verify_record(&text, case.key.as_deref()));
        let by_bytes = outcome(verify_record_bytes(&bytes, case.key.as_deref()).map(drop));
        if by_text != case.expect || by_bytes != case.expect {
            failures.push(format!(
                "{} (key {:?}): expected {}, got {by_text} / {by_bytes}",
                case.file,
                case.key.as_deref().map(String::from_utf8_lossy),
                case.expect
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The step-by-step API agrees: parse_proof errors, then Err(proof_id_mismatch), then
/// Ok(false) for a wrong signature.
#[test]
fn step_by_step_api_agrees_with_cases() {
    for case in cases() {
        let text = String::from_utf8(read(&case.file)).unwrap();
        let step = match parse_proof(&text) {
            Err(e) => e.code().to_owned(),
            Ok(proof) => {
                let checked = match &case.key {
                    None => outcome(empiric_proof::verify_proof_id(&proof)),
                    Some(key) => match verify_signature(&proof, key) {
                        Ok(true) => "valid".to_owned(),
                        Ok(false) => ErrorCode::SignatureMismatch.as_str().to_owned(),
                        Err(e) => e.code().to_owned(),
                    },
                };
                if checked == "valid" {
                    outcome(empiric_proof::verify_verdict(&proof).map(drop))
                } else {
                    checked
                }
            }
        };
        assert_eq!(step, case.expect, "{}", case.file);
    }
}

#[test]
fn proof_accessors() {
    let proof = parse_proof_bytes(&read("valid.json")).unwrap();
    assert_eq!(proof.outcome(), Some("VALIDATED"));
    assert_eq!(
        proof.proof_id(),
        "372add4b7008d735e0f00b29bb18e4b3fb8018d0d678b3f84297a1172b4dc5a1"
    );
    assert_eq!(
        proof.signature(),
        "f7e5151df23d4d1f97afa085c33cba9372ee246367b5d6c7dcdf1d4f95f1a157"
    );
    assert_eq!(
        empiric_proof::proof_id(proof.value()).unwrap(),
        proof.proof_id()
    );
    // The compact copy is the same record.
    let compact = parse_proof_bytes(&read("valid-compact.json")).unwrap();
    assert_eq!(compact, proof);
    assert_eq!(
        empiric_proof::canonicalize_bytes(compact.value()).unwrap(),
        read("valid-compact.json")
    );
}

#[test]
fn sign_record_reproduces_the_fixture_signature() {
    let key = b"empiric-record-fixtures-test-key-v1";
    let original = parse_proof_bytes(&read("valid.json")).unwrap();
    let mut body = original.clone().into_value();
    body.as_object_mut().unwrap().remove("signature");
    body.as_object_mut()
        .unwrap()
        .get_mut("identity")
        .unwrap()
        .as_object_mut()
        .unwrap()
        .remove("proof_id");
    let signed = empiric_proof::sign_record(body, key).unwrap();
    assert_eq!(signed, original);
    let err = empiric_proof::sign_record(original.into_value(), b"too short").unwrap_err();
    assert_eq!(err.code(), "key_too_short");
}

#[test]
fn proof_id_member_first_last_and_only() {
    // The proof_id member is cut out of the canonical body wherever it sits in identity.
    let key = [7u8; 32];
    for identity in [
        r#"{"proof_id":"0"}"#,
        r#"{"a":1,"proof_id":"0"}"#,
        r#"{"proof_id":"0","z":1}"#,
        r#"{"a":1,"proof_id":"0","z":[1.5]}"#,
    ] {
        let text = format!(
            r#"{{"identity":{identity},"claim":1,"pre_registration":2,"data":3,"evidence":[],
               "verdict":{{"outcome":"REFUTED"}},"reproduction":null,"provenance":{{}}}}"#
        );
        let proof = empiric_proof::sign_record(empiric_proof::parse(&text).unwrap(), &key).unwrap();
        // Independent computation: remove the member from the tree and hash.
        let mut body = proof.value().clone();
        let map = body.as_object_mut().unwrap();
        map.remove("signature");
        map.get_mut("identity")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("proof_id");
        let bytes = empiric_proof::canonicalize_bytes(&body).unwrap();
        assert_eq!(
            proof.proof_id(),
            empiric_proof::sha256_hex(&bytes),
            "{identity}"
        );
        let text = empiric_proof::canonicalize(proof.value()).unwrap();
        assert_eq!(verify_record(&text, Some(&key)), Ok(()), "{identity}");
    }
}

#[test]
fn structure_errors() {
    let valid = String::from_utf8(read("valid.json")).unwrap();
    let cases = [
        ("[]", "record_structure"),
        ("{}", "record_structure"),
        (
            &valid.replacen("\"claim\"", "\"claims\"", 1),
            "record_structure",
        ),
        (
            &valid.replacen("\"provenance\": {", "\"extra\": 1, \"provenance\": {", 1),
            "record_structure",
        ),
        (
            &valid.replacen("\"signature\": \"f7", "\"signature\": \"F7", 1),
            "record_structure",
        ),
        (
            &valid.replacen("\"proof_id\": \"372add4b", "\"proof_id\": \"372add4", 1),
            "record_structure",
        ),
        (
            &valid.replacen("\"signature\": {", "\"signature\": {\"by\": \"me\",", 1),
            "record_structure",
        ),
        (
            &valid.replacen("\"signature\": {", "\"signature\": [], \"x\": {", 1),
            "record_structure",
        ),
        (
            &valid.replacen("\"identity\": {", "\"identity\": [], \"x\": {", 1),
            "record_structure",
        ),
    ];
    for (text, code) in cases {
        // Both paths: the tree one and the direct one.
        let tree = parse_proof(text).map(drop).unwrap_err();
        assert_eq!(tree.code(), code, "{}", &text[..text.len().min(60)]);
        let err = verify_record(text, None).unwrap_err();
        assert_eq!(err.code(), code, "{}", &text[..text.len().min(60)]);
        assert_eq!(err.kind(), ErrorCode::RecordStructure);
    }
}
