//! Times the phases of verifying one record file: parse, canonicalize, SHA-256, HMAC.
//!
//! `cargo run --release --example phases -- FILE [ITERATIONS]` (verifies with the fixtures
//! test key `empiric-record-fixtures-test-key-v1`).
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: phases FILE [ITERATIONS]");
    let iterations: u32 = args.next().map_or(200, |n| n.parse().expect("a number"));
    let bytes = std::fs::read(&path).expect("read the file");
    let key = b"empiric-record-fixtures-test-key-v1";
    // The best of 10 batches, to see through noise from other processes.
    let time = |name: &str, f: &mut dyn FnMut()| {
        let batch = (iterations / 10).max(1);
        let mut per = f64::INFINITY;
        for _ in 0..10 {
            let start = Instant::now();
            for _ in 0..batch {
                f();
            }
            per = per.min(start.elapsed().as_secs_f64() / f64::from(batch));
        }
        println!(
            "{name:>12}: {:8.3} ms  {:8.1} MB/s",
            per * 1e3,
            bytes.len() as f64 / per / 1e6
        );
    };
    let value = empiric_proof::parse_bytes(&bytes).expect("parse");
    time("utf8 check", &mut || {
        std::hint::black_box(std::str::from_utf8(&bytes).is_ok());
    });
    time("parse", &mut || {
        std::hint::black_box(empiric_proof::parse_bytes(&bytes).is_ok());
    });
    time("clone+drop", &mut || {
        let v = value.clone();
        drop(std::hint::black_box(v));
    });
    time("canonicalize", &mut || {
        std::hint::black_box(empiric_proof::canonicalize_bytes(&value).is_ok());
    });
    time("sha256", &mut || {
        std::hint::black_box(empiric_proof::sha256_hex(&bytes));
    });
    time("hmac", &mut || {
        std::hint::black_box(empiric_proof::hmac_sha256_hex(key, &bytes));
    });
    time("canon json", &mut || {
        std::hint::black_box(empiric_proof::canonicalize_json(&bytes).is_ok());
    });
    time("verify nokey", &mut || {
        std::hint::black_box(empiric_proof::verify_record_bytes(&bytes, None).is_ok());
    });
    time("verify", &mut || {
        std::hint::black_box(empiric_proof::verify_record_bytes(&bytes, Some(key)).is_ok());
    });
}
