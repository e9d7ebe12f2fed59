//! Property tests: canonical text parses back to the same value, and any JSON writing of a
//! value (whitespace, member order, escapes, number forms) canonicalizes the same way.

use std::fmt::Write as _;

use empiric_proof::{
    canonicalize, canonicalize_bytes, canonicalize_json, parse, parse_bytes, CanonicalValue,
};
use proptest::prelude::*;

fn arb_value() -> impl Strategy<Value = CanonicalValue> {
    let leaf = prop_oneof![
        Just(CanonicalValue::Null),
        any::<bool>().prop_map(CanonicalValue::Bool),
        any::<i64>().prop_map(CanonicalValue::Int),
        (-1000i64..1000).prop_map(CanonicalValue::Int),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(CanonicalValue::Float),
        // Short decimals, which take the copied-literal path when read back.
        (-10_000_000i64..10_000_000, 0i32..8)
            .prop_map(|(m, e)| CanonicalValue::Float(m as f64 / 10f64.powi(e))),
        any::<String>().prop_map(CanonicalValue::String),
        "[ -~]{0,20}".prop_map(CanonicalValue::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(CanonicalValue::Array),
            prop::collection::btree_map("[a-c]{0,3}|\\PC{0,4}", inner, 0..8)
                .prop_map(CanonicalValue::Object),
        ]
    })
}

/// Bytes that matter to the JSON grammar, for mangling inputs.
const SPECIAL: &[u8] = b"[]{}\"\\:,-.e0";

/// A small deterministic generator for the writer's choices.
struct Choices(u64);

impl Choices {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn ws(out: &mut String, c: &mut Choices) {
    for _ in 0..c.pick(3) {
        out.push([' ', '\t', '\n', '\r'][c.pick(4) as usize]);
    }
}

fn write_str(out: &mut String, s: &str, c: &mut Choices) {
    out.push('"');
    for ch in s.chars() {
        let escape = ch == '"' || ch == '\\' || (ch as u32) < 0x20 || c.pick(4) == 0;
        if !escape {
            out.push(ch);
            continue;
        }
        match ch {
            '"' if c.pick(2) == 0 => out.push_str("\\\""),
            '\\' if c.pick(2) == 0 => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\n' if c.pick(2) == 0 => out.push_str("\\n"),
            '\t' if c.pick(2) == 0 => out.push_str("\\t"),
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    if c.pick(2) == 0 {
                        write!(out, "\\u{:04X}", unit).unwrap();
                    } else {
                        write!(out, "\\u{:04x}", unit).unwrap();
                    }
                }
            }
        }
    }
    out.push('"');
}

/// Writes `v` as valid but non-canonical JSON.
fn write_noisy(out: &mut String, v: &CanonicalValue, c: &mut Choices) {
    ws(out, c);
    match v {
        CanonicalValue::Null => out.push_str("null"),
        CanonicalValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        CanonicalValue::Int(i) => write!(out, "{i}").unwrap(),
        CanonicalValue::Float(f) => match c.pick(3) {
            0 => write!(out, "{f:e}").unwrap(),
            1 => write!(out, "{f:E}").unwrap(),
            _ => write!(out, "{f:?}").unwrap(),
        },
        CanonicalValue::String(s) => write_str(out, s, c),
        CanonicalValue::Array(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_noisy(out, item, c);
            }
            ws(out, c);
            out.push(']');
        }
        CanonicalValue::Object(map) => {
            out.push('{');
            let mut members: Vec<_> = map.iter().collect();
            // Any member order.
            for k in (1..members.len()).rev() {
                let j = c.pick(k as u64 + 1) as usize;
                members.swap(k, j);
            }
            for (k, (key, item)) in members.into_iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                ws(out, c);
                write_str(out, key, c);
                ws(out, c);
                out.push(':');
                write_noisy(out, item, c);
            }
            ws(out, c);
            out.push('}');
        }
    }
    ws(out, c);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn canonical_text_parses_back_to_the_value(v in arb_value()) {
        let text = canonicalize(&v).unwrap();
        prop_assert!(text.is_ascii());
        prop_assert_eq!(parse(&text).unwrap(), v);
        prop_assert_eq!(canonicalize_json(text.as_bytes()).unwrap(), text.into_bytes());
    }

    #[test]
    fn any_writing_canonicalizes_the_same(v in arb_value(), seed in 1u64..u64::MAX) {
        let mut text = String::new();
        write_noisy(&mut text, &v, &mut Choices(seed));
        prop_assert_eq!(&parse(&text).unwrap(), &v, "{}", text);
        let canonical = canonicalize(&v).unwrap().into_bytes();
        prop_assert_eq!(canonicalize_json(text.as_bytes()).unwrap(), canonical);
    }

    #[test]
    fn a_repeated_key_is_always_rejected(
        v in prop::collection::btree_map("[a-c]{0,3}", arb_value(), 1..6),
        seed in 1u64..u64::MAX,
    ) {
        let mut c = Choices(seed);
        let mut text = String::from("{");
        let keys: Vec<&String> = v.keys().collect();
        let repeat = keys[c.pick(keys.len() as u64) as usize];
        for (key, item) in &v {
            write_str(&mut text, key, &mut c);
            text.push(':');
            write_noisy(&mut text, item, &mut c);
            text.push(',');
        }
        write_str(&mut text, repeat, &mut c);
        text.push_str(":null}");
        prop_assert_eq!(parse(&text).unwrap_err().code(), "duplicate_key");
        prop_assert_eq!(canonicalize_json(text.as_bytes()).unwrap_err().code(), "duplicate_key");
    }

    #[test]
    fn any_f64_keeps_its_bits(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        let text = canonicalize(&CanonicalValue::Float(x)).unwrap();
        prop_assert_eq!(text.parse::<f64>().unwrap().to_bits(), bits);
        prop_assert_eq!(parse(&text).unwrap(), CanonicalValue::Float(x));
    }

    #[test]
    fn mangled_input_never_panics_and_both_paths_agree(
        v in arb_value(),
        seed in 1u64..u64::MAX,
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 1..4),
    ) {
        let mut text = String::new();
        write_noisy(&mut text, &v, &mut Choices(seed));
        let mut bytes = text.into_bytes();
        for (at, byte, op) in edits {
            let at = if bytes.is_empty() { 0 } else { at % bytes.len() };
            match op {
                0 if !bytes.is_empty() => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                2 if !bytes.is_empty() => { bytes.remove(at); }
                _ => bytes.insert(at, SPECIAL[usize::from(byte) % SPECIAL.len()]),
            }
        }
        let direct = canonicalize_json(&bytes);
        match parse_bytes(&bytes) {
            Ok(value) => prop_assert_eq!(direct.unwrap(), canonicalize_bytes(&value).unwrap()),
            Err(err) => prop_assert_eq!(direct.unwrap_err(), err),
        }
    }
}
