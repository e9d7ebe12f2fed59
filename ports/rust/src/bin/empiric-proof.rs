//! `empiric-proof`: verify proof records, canonicalize JSON lines, benchmark verification.
//!
//! ```text
//! empiric-proof verify FILE... [--key-file K | --key TEXT]
//! empiric-proof verify-dsse ENVELOPE... --public-key PUB...
//! empiric-proof canon-lines
//! empiric-proof bench FILE (--key-file K | --key TEXT) [--seconds S] [--baseline]
//! ```
#![forbid(unsafe_code)]

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use empiric_proof::{canonicalize_json, verify_record_bytes, write_canonical};

const EXIT_OK: u8 = 0;
const EXIT_IO: u8 = 1;
const EXIT_FAIL: u8 = 2;
const EXIT_USAGE: u8 = 64;

const USAGE: &str = "\
usage:
  empiric-proof verify FILE... [--key-file K | --key TEXT]
      Verify a proof record: parse, structure, proof_id and, with a key, the HMAC signature.
      Prints `OK <path> <proof_id>` (exit 0) or `FAIL <path>: <code>: <message>` (exit 2).
      Without a key only the structure and the proof_id are checked.
      A key file holds the key bytes; a trailing LF, then a trailing CR, is not part of it.
      Several FILEs may be given: one line each, exit 0 only when all verify.
  empiric-proof verify-dsse ENVELOPE... --public-key PUB [--public-key PUB ...]
      Verify DSSE envelopes signed with Ed25519 or ECDSA P-256 keys: the signatures under the
      SubjectPublicKeyInfo PEM public keys, then the in-toto Statement layer. Prints
      `OK <path> signed by <keyid>, ...` (exit 0) or `FAIL <path>: <code>: <message>` (exit 2).
  empiric-proof canon-lines
      Read JSON texts from stdin, one per line; write for each one line: its canonical text,
      or `!<error_code>`.
  empiric-proof bench FILE (--key-file K | --key TEXT) [--seconds S] [--baseline]
      Verify FILE repeatedly for S seconds (default 3) and print one JSON line of throughput;
      --baseline adds a line with raw HMAC-SHA256 throughput over the same bytes.
  empiric-proof --help
";

/// A bad command line: exit 64 with this message and the usage.
struct Usage(String);

fn usage<T>(message: impl Into<String>) -> Result<T, Usage> {
    Err(Usage(message.into()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("verify") => run(verify(&args[1..])),
        Some("verify-dsse") => run(verify_dsse(&args[1..])),
        Some("canon-lines") => run(canon_lines(&args[1..])),
        Some("bench") => run(bench(&args[1..])),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            EXIT_OK
        }
        Some(other) => run(usage(format!("unknown command {other:?}"))),
        None => run(usage("a command is required")),
    };
    ExitCode::from(code)
}

fn run(result: Result<u8, Usage>) -> u8 {
    match result {
        Ok(code) => code,
        Err(Usage(message)) => {
            eprintln!("empiric-proof: {message}\n{USAGE}");
            EXIT_USAGE
        }
    }
}

/// Options shared by `verify` and `bench`.
#[derive(Default)]
struct Options {
    files: Vec<String>,
    key_file: Option<String>,
    key_text: Option<String>,
    seconds: Option<String>,
    baseline: bool,
}

fn parse_options(args: &[String], allowed: &[&str]) -> Result<Options, Usage> {
    let mut options = Options::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        if !name.starts_with("--") || name == "--" {
            options.files.push(arg.clone());
            continue;
        }
        if !allowed.contains(&name) {
            return usage(format!("unknown option {name}"));
        }
        if name == "--baseline" {
            if inline.is_some() {
                return usage("--baseline takes no value");
            }
            options.baseline = true;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => match rest.next() {
                Some(v) => v.clone(),
                None => return usage(format!("{name} needs a value")),
            },
        };
        let slot = match name {
            "--key-file" => &mut options.key_file,
            "--key" => &mut options.key_text,
            _ => &mut options.seconds,
        };
        if slot.replace(value).is_some() {
            return usage(format!("{name} given twice"));
        }
    }
    if options.key_file.is_some() && options.key_text.is_some() {
        return usage("give either --key-file or --key, not both");
    }
    Ok(options)
}

/// The key bytes, if a key option was given; `Err` holds a message for a key file that
/// cannot be read.
fn load_key(options: &Options) -> Result<Option<Vec<u8>>, String> {
    if let Some(text) = &options.key_text {
        if text.is_empty() {
            return Err("--key is empty".to_owned());
        }
        return Ok(Some(text.as_bytes().to_vec()));
    }
    let Some(path) = &options.key_file else {
        return Ok(None);
    };
    let mut key = std::fs::read(path).map_err(|e| format!("cannot read key file {path}: {e}"))?;
    // As in every empiric CLI: one trailing LF or CRLF is not part of the key.
    if key.last() == Some(&b'\n') {
        key.pop();
        if key.last() == Some(&b'\r') {
            key.pop();
        }
    }
    if key.is_empty() {
        return Err(format!("key file {path} is empty"));
    }
    Ok(Some(key))
}

fn verify(args: &[String]) -> Result<u8, Usage> {
    let options = parse_options(args, &["--key-file", "--key"])?;
    if options.files.is_empty() {
        return usage("verify needs a FILE");
    }
    let key = match load_key(&options) {
        Ok(key) => key,
        Err(message) => {
            for path in &options.files {
                println!("FAIL {path}: io_error: {message}");
            }
            return Ok(EXIT_FAIL);
        }
    };
    if key.is_none() {
        eprintln!(
            "note: no key given (--key-file/--key): checked the structure and the proof_id \
             only; the signature was NOT verified"
        );
    }
    let mut status = EXIT_OK;
    for path in &options.files {
        let result = std::fs::read(path)
            .map_err(|e| format!("io_error: cannot read the record: {e}"))
            .and_then(|bytes| {
                verify_record_bytes(&bytes, key.as_deref()).map_err(|err| err.to_string())
            });
        match result {
            Ok(verified) => println!("OK {path} {}", verified.proof_id()),
            Err(message) => {
                println!("FAIL {path}: {message}");
                status = EXIT_FAIL;
            }
        }
    }
    Ok(status)
}

fn verify_dsse(args: &[String]) -> Result<u8, Usage> {
    let mut files = Vec::new();
    let mut keys = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if let Some(v) = arg.strip_prefix("--public-key=") {
            keys.push(v.to_owned());
        } else if arg == "--public-key" {
            match rest.next() {
                Some(v) => keys.push(v.clone()),
                None => return usage("--public-key needs a value"),
            }
        } else if arg.starts_with("--") {
            return usage(format!("unknown option {arg}"));
        } else {
            files.push(arg.clone());
        }
    }
    if files.is_empty() || keys.is_empty() {
        return usage("verify-dsse needs an ENVELOPE and at least one --public-key");
    }
    let mut public_keys = Vec::new();
    for path in &keys {
        let loaded = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {path}: {e}"))
            .and_then(|pem| {
                empiric_proof::dsse::PublicKey::from_pem(&pem).map_err(|e| format!("{path}: {e}"))
            });
        match loaded {
            Ok(k) => public_keys.push(k),
            Err(message) => return usage(format!("key_invalid: {message}")),
        }
    }
    let mut status = EXIT_OK;
    for path in &files {
        let result = std::fs::read_to_string(path)
            .map_err(|e| format!("io_error: cannot read the envelope: {e}"))
            .and_then(|text| {
                empiric_proof::dsse::verify_dsse(&text, &public_keys).map_err(|e| e.to_string())
            });
        match result {
            Ok(v) => println!("OK {path} signed by {}", v.signers.join(", ")),
            Err(message) => {
                println!("FAIL {path}: {message}");
                status = EXIT_FAIL;
            }
        }
    }
    Ok(status)
}

fn canon_lines(args: &[String]) -> Result<u8, Usage> {
    if let Some(extra) = args.first() {
        return usage(format!("canon-lines takes no arguments, got {extra:?}"));
    }
    match canon_lines_io(io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => Ok(EXIT_OK),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(EXIT_OK),
        Err(e) => {
            eprintln!("empiric-proof: canon-lines: {e}");
            Ok(EXIT_IO)
        }
    }
}

/// One output line per input line. Output is buffered, and flushed whenever the next input
/// line is not already buffered, so that a caller feeding one line at a time gets its answer.
fn canon_lines_io(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut writer = BufWriter::with_capacity(1 << 16, output);
    let mut line = Vec::new();
    loop {
        if reader.buffer().is_empty() {
            writer.flush()?;
        }
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        match canonicalize_json(&line) {
            Ok(canonical) => writer.write_all(&canonical)?,
            Err(err) => {
                writer.write_all(b"!")?;
                writer.write_all(err.code().as_bytes())?;
            }
        }
        writer.write_all(b"\n")?;
    }
    writer.flush()
}

fn bench(args: &[String]) -> Result<u8, Usage> {
    let options = parse_options(args, &["--key-file", "--key", "--seconds", "--baseline"])?;
    let path = match options.files.as_slice() {
        [path] => path.as_str(),
        [] => return usage("bench needs a FILE"),
        [_, extra, ..] => return usage(format!("unexpected argument {extra:?}")),
    };
    let seconds = match options.seconds.as_deref() {
        None => 3.0,
        Some(text) => match text.parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => s,
            _ => return usage(format!("--seconds must be a positive number, got {text:?}")),
        },
    };
    let key = match load_key(&options) {
        Ok(Some(key)) => key,
        Ok(None) => return usage("bench needs --key-file or --key"),
        Err(message) => {
            eprintln!("empiric-proof: {message}");
            return Ok(EXIT_FAIL);
        }
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("empiric-proof: cannot read {path}: {e}");
            return Ok(EXIT_FAIL);
        }
    };
    if let Err(err) = verify_record_bytes(&bytes, Some(&key)) {
        println!("FAIL {path}: {err}");
        return Ok(EXIT_FAIL);
    }
    let budget = Duration::from_secs_f64(seconds);
    let (count, elapsed) = repeat_for(budget, || verify_record_bytes(&bytes, Some(&key)).is_ok());
    let mut line = Vec::new();
    line.extend_from_slice(b"{\"port\":\"rust\",\"file\":");
    // The path as a JSON string, through the canonical writer.
    let _ = write_canonical(&mut line, &path.into());
    let per_s = count as f64 / elapsed;
    let mb_per_s = per_s * bytes.len() as f64 / 1e6;
    line.extend_from_slice(
        format!(
            ",\"bytes\":{},\"records_per_s\":{:.1},\"mb_per_s\":{:.1}}}",
            bytes.len(),
            per_s,
            mb_per_s
        )
        .as_bytes(),
    );
    println!("{}", String::from_utf8_lossy(&line));
    if options.baseline {
        let (count, elapsed) = repeat_for(budget, || {
            !empiric_proof::hmac_sha256_hex(&key, &bytes).is_empty()
        });
        let mb_per_s = count as f64 * bytes.len() as f64 / elapsed / 1e6;
        println!(
            "{{\"port\":\"rust\",\"baseline\":\"hmac_sha256\",\"bytes\":{},\"mb_per_s\":{mb_per_s:.1}}}",
            bytes.len()
        );
    }
    Ok(EXIT_OK)
}

/// Runs `step` repeatedly for about `budget` (at least once); returns the number of runs and
/// the seconds they took.
fn repeat_for(budget: Duration, mut step: impl FnMut() -> bool) -> (u64, f64) {
    let start = Instant::now();
    let mut count = 0u64;
    loop {
        std::hint::black_box(step());
        count += 1;
        let elapsed = start.elapsed();
        if elapsed >= budget {
            return (count, elapsed.as_secs_f64());
        }
    }
}
