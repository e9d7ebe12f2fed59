//! Public-key DSSE verification against the shared vectors in `fixtures/attestations/`
//! (generated with Python's `cryptography`), and the `verify-dsse` command.

mod common;

use common::{fixtures_dir, load_fixture, str_member};
use empiric_proof::dsse::{verify_dsse, PublicKey};
use empiric_proof::CanonicalValue;

fn key(relative: &str) -> PublicKey {
    let pem = std::fs::read_to_string(fixtures_dir().join("attestations").join(relative)).unwrap();
    PublicKey::from_pem(&pem).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

#[test]
fn key_ids_are_the_sha256_of_the_spki() {
    let manifest = load_fixture("attestations/cases.json");
    for (name, id) in manifest
        .get("keyids")
        .and_then(CanonicalValue::as_object)
        .unwrap()
    {
        let k = key(&format!("keys/{name}.pub"));
        assert_eq!(k.keyid(), id.as_str().unwrap(), "{name}");
    }
    assert_eq!(key("keys/p256.pub").algorithm(), "ecdsa-p256");
    assert_eq!(key("keys/ed25519.pub").algorithm(), "ed25519");
    let private =
        std::fs::read_to_string(fixtures_dir().join("attestations/keys/p256.key")).unwrap();
    assert_eq!(
        PublicKey::from_pem(&private).unwrap_err().code(),
        "key_invalid"
    );
}

#[test]
fn every_attestation_case() {
    let manifest = load_fixture("attestations/cases.json");
    let cases = manifest
        .get("cases")
        .and_then(CanonicalValue::as_array)
        .unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let file = str_member(case, "envelope");
        let keys: Vec<PublicKey> = case
            .get("public_keys")
            .and_then(CanonicalValue::as_array)
            .unwrap()
            .iter()
            .map(|k| key(k.as_str().unwrap()))
            .collect();
        let text = std::fs::read_to_string(fixtures_dir().join("attestations").join(file)).unwrap();
        let expect = case.get("expect").unwrap();
        let result = verify_dsse(&text, &keys);
        match (result, expect.get("verified")) {
            (Ok(v), Some(CanonicalValue::Bool(true))) => {
                let signers: Vec<&str> = expect
                    .get("signers")
                    .and_then(CanonicalValue::as_array)
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap())
                    .collect();
                assert_eq!(v.signers, signers, "{file}");
            }
            (Err(e), Some(CanonicalValue::Bool(false))) => {
                assert_eq!(e.code(), str_member(expect, "reason"), "{file}: {e}");
            }
            (r, _) => panic!("{file}: unexpected result {r:?}"),
        }
    }
}

#[test]
fn cli_verify_dsse() {
    let bin = env!("CARGO_BIN_EXE_empiric-proof");
    let dir = fixtures_dir().join("attestations");
    let ok = std::process::Command::new(bin)
        .args([
            "verify-dsse",
            "proof-both.dsse.json",
            "--public-key",
            "keys/ed25519.pub",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).starts_with("OK proof-both.dsse.json signed by "));
    let bad = std::process::Command::new(bin)
        .args([
            "verify-dsse",
            "tampered-payload.dsse.json",
            "--public-key",
            "keys/p256.pub",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stdout).contains("signature_mismatch"));
    let usage = std::process::Command::new(bin)
        .args(["verify-dsse", "proof-p256.dsse.json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(64));
}
