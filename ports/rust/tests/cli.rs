//! The `empiric-proof` binary: verify, canon-lines, bench and usage errors.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::fixtures_dir;

const TEST_KEY: &str = "empiric-record-fixtures-test-key-v1";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_empiric-proof"))
        .args(args)
        .output()
        .unwrap()
}

fn record(file: &str) -> String {
    fixtures_dir()
        .join("records")
        .join(file)
        .to_string_lossy()
        .into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn verify_ok_and_fail() {
    let valid = record("valid.json");
    let out = run(&["verify", &valid, "--key", TEST_KEY]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        format!("OK {valid} 372add4b7008d735e0f00b29bb18e4b3fb8018d0d678b3f84297a1172b4dc5a1\n")
    );

    let tampered = record("tampered-signature.json");
    let out = run(&["verify", &tampered, &format!("--key={TEST_KEY}")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).starts_with(&format!("FAIL {tampered}: signature_mismatch: ")));

    let truncated = record("tampered-truncated.json");
    let out = run(&["verify", &truncated]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).starts_with(&format!("FAIL {truncated}: syntax_error: ")));
    assert_eq!(stdout(&out).lines().count(), 1);
}

#[test]
fn verify_with_key_file_and_without_key() {
    let dir = std::env::temp_dir().join(format!("empiric-proof-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("key");
    // A text key file written with `echo`: the newline is not part of the key.
    std::fs::write(&key_file, format!("{TEST_KEY}\n")).unwrap();
    let key_path = key_file.to_string_lossy().into_owned();
    let out = run(&["verify", &record("valid.json"), "--key-file", &key_path]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    let out = run(&[
        "verify",
        &record("valid-demo-key.json"),
        "--key-file",
        &key_path,
    ]);
    assert_eq!(out.status.code(), Some(2));

    let out = run(&["verify", &record("valid.json")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no key"));

    let out = run(&[
        "verify",
        &record("valid.json"),
        "--key-file",
        "/nonexistent/key",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).contains(": io_error: "));
    let out = run(&["verify", "/nonexistent/record.json"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn verify_several_files() {
    let (valid, compact, bad) = (
        record("valid.json"),
        record("valid-compact.json"),
        record("tampered-float-to-int.json"),
    );
    let out = run(&["verify", &valid, &compact, "--key", TEST_KEY]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).lines().count(), 2);
    let out = run(&["verify", &valid, &bad, &compact, "--key", TEST_KEY]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("OK "));
    assert!(lines[1].starts_with(&format!("FAIL {bad}: proof_id_mismatch: ")));
    assert!(lines[2].starts_with("OK "));
}

#[test]
fn usage_errors_exit_64() {
    for args in [
        &[][..],
        &["nope"],
        &["verify"],
        &["bench", "a", "b", "--key", "k"],
        &["verify", "a", "--key"],
        &["verify", "a", "--key", "k", "--key-file", "f"],
        &["verify", "a", "--bogus"],
        &["canon-lines", "extra"],
        &["bench", "a"],
        &["bench", "a", "--key", "k", "--seconds", "-1"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(64), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage:"));
    }
    assert_eq!(run(&["--help"]).status.code(), Some(0));
}

#[test]
fn canon_lines_one_answer_per_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_empiric-proof"))
        .arg("canon-lines")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input: &[u8] = b"{\"b\": 1.50, \"a\": [1e16, \"\\u00E9\"]}\n[1,]\n\n\"\xff\"\r\n{\"a\":1,\"a\":2}\n-0\n1.0";
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "{\"a\":[1e+16,\"\\u00e9\"],\"b\":1.5}\n!syntax_error\n!syntax_error\n!invalid_utf8\n!duplicate_key\n0\n1.0\n"
    );
}

#[test]
fn bench_prints_one_json_line() {
    let valid = record("valid.json");
    let out = run(&["bench", &valid, "--key", TEST_KEY, "--seconds", "0.2"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let line = empiric_proof::parse(text.trim_end()).unwrap();
    assert_eq!(line.get("port").and_then(|p| p.as_str()), Some("rust"));
    assert_eq!(
        line.get("file").and_then(|p| p.as_str()),
        Some(valid.as_str())
    );
    assert!(line.get("records_per_s").and_then(|x| x.as_f64()).unwrap() > 0.0);
    assert!(line.get("mb_per_s").and_then(|x| x.as_f64()).is_some());
    assert!(line.get("bytes").and_then(|x| x.as_i64()).unwrap() > 0);

    let out = run(&[
        "bench",
        &record("tampered-signature.json"),
        "--key",
        TEST_KEY,
        "--seconds",
        "0.1",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
