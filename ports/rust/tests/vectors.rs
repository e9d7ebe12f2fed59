//! Every vector of `fixtures/wire/vectors.json`, in both directions.

mod common;

use common::{base64_decode, from_typed, load_fixture, str_member};
use empiric_proof::{
    canonicalize_bytes, canonicalize_json, hmac_sha256_hex, parse, parse_bytes, sha256_hex,
    sign_canonical, CanonicalValue, ErrorCode, MAX_DEPTH,
};

fn vectors() -> CanonicalValue {
    load_fixture("wire/vectors.json")
}

fn list<'a>(doc: &'a CanonicalValue, name: &str) -> &'a [CanonicalValue] {
    doc.get(name).and_then(CanonicalValue::as_array).unwrap()
}

#[test]
fn header_matches_the_crate() {
    let doc = vectors();
    assert_eq!(
        doc.get("max_depth").and_then(CanonicalValue::as_i64),
        Some(MAX_DEPTH as i64)
    );
    let codes = doc
        .get("error_codes")
        .and_then(CanonicalValue::as_object)
        .unwrap();
    for code in codes.keys() {
        assert!(ErrorCode::from_code(code).is_some(), "unknown code {code}");
    }
}

#[test]
fn valid_vectors_parse_then_canonicalize() {
    let doc = vectors();
    let valid = list(&doc, "valid");
    assert!(
        valid.len() >= 78,
        "the vector file lost vectors: {}",
        valid.len()
    );
    let mut failures = Vec::new();
    for v in valid {
        let name = str_member(v, "name");
        let expected = str_member(v, "canonical").as_bytes();
        match parse(str_member(v, "input")).and_then(|value| canonicalize_bytes(&value)) {
            Ok(bytes) if bytes == expected => {}
            Ok(bytes) => failures.push(format!("{name}: got {}", String::from_utf8_lossy(&bytes))),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        // The direct path (no tree) gives the same bytes.
        match canonicalize_json(str_member(v, "input").as_bytes()) {
            Ok(bytes) if bytes == expected => {}
            Ok(bytes) => failures.push(format!(
                "{name}: canonicalize_json gave {}",
                String::from_utf8_lossy(&bytes)
            )),
            Err(e) => failures.push(format!("{name}: canonicalize_json: {e}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn valid_vectors_parse_bytes_agrees_with_parse() {
    let doc = vectors();
    for v in list(&doc, "valid") {
        let input = str_member(v, "input");
        assert_eq!(
            parse_bytes(input.as_bytes()),
            parse(input),
            "{}",
            str_member(v, "name")
        );
    }
}

#[test]
fn valid_vectors_typed_tree_canonicalizes() {
    let doc = vectors();
    let mut failures = Vec::new();
    for v in list(&doc, "valid") {
        let name = str_member(v, "name");
        let built = from_typed(v.get("typed").unwrap());
        let expected = str_member(v, "canonical").as_bytes();
        match canonicalize_bytes(&built) {
            Ok(bytes) if bytes == expected => {}
            Ok(bytes) => failures.push(format!("{name}: got {}", String::from_utf8_lossy(&bytes))),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        // The parsed value is the same typed value, not just the same bytes.
        let parsed = parse(str_member(v, "input")).unwrap();
        if parsed != built {
            failures.push(format!("{name}: parsed value differs from the typed tree"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn valid_vectors_hashes() {
    let doc = vectors();
    let key = str_member(&doc, "hmac_key_utf8").as_bytes();
    let mut failures = Vec::new();
    for v in list(&doc, "valid") {
        let name = str_member(v, "name");
        let canonical = str_member(v, "canonical").as_bytes();
        if sha256_hex(canonical) != str_member(v, "sha256") {
            failures.push(format!("{name}: sha256"));
        }
        if hmac_sha256_hex(key, canonical) != str_member(v, "hmac_sha256") {
            failures.push(format!("{name}: hmac_sha256"));
        }
        let value = parse(str_member(v, "input")).unwrap();
        if sign_canonical(&value, key).as_deref() != Ok(str_member(v, "hmac_sha256")) {
            failures.push(format!("{name}: sign_canonical"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn invalid_vectors_give_their_code() {
    let doc = vectors();
    let invalid = list(&doc, "invalid");
    assert!(
        invalid.len() >= 57,
        "the vector file lost vectors: {}",
        invalid.len()
    );
    let mut failures = Vec::new();
    for v in invalid {
        let name = str_member(v, "name");
        let expected = str_member(v, "error");
        let result = match v.get("input_base64") {
            Some(b64) => {
                let bytes = base64_decode(b64.as_str().unwrap());
                let direct = canonicalize_json(&bytes).map(drop);
                let parsed = parse_bytes(&bytes);
                if direct.as_ref().err() != parsed.as_ref().err() {
                    failures.push(format!("{name}: canonicalize_json disagrees"));
                }
                parsed
            }
            None => {
                let input = str_member(v, "input");
                let by_bytes = parse_bytes(input.as_bytes());
                let by_text = parse(input);
                let direct = canonicalize_json(input.as_bytes()).map(drop);
                if direct.as_ref().err() != by_text.as_ref().err() {
                    failures.push(format!("{name}: canonicalize_json disagrees"));
                }
                if by_bytes != by_text {
                    failures.push(format!("{name}: parse and parse_bytes disagree"));
                }
                by_text
            }
        };
        match result {
            Err(e) if e.code() == expected => {
                assert!(e.offset().is_some(), "{name}: parse errors carry an offset");
            }
            Err(e) => failures.push(format!("{name}: expected {expected}, got {e}")),
            Ok(value) => failures.push(format!("{name}: expected {expected}, parsed {value:?}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
