//! Helpers shared by the integration tests: fixture paths, a base64 decoder and the typed-tree
//! decoding of `fixtures/wire/vectors.json`.
#![allow(dead_code)]

use std::path::PathBuf;

use empiric_proof::{parse_bytes_with_max_depth, CanonicalValue};

/// `fixtures/` of the repository, found from this crate's manifest directory.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Reads a fixture JSON file with this crate's own parser. The vector file nests a 512-deep
/// value inside each vector, so it is read with a larger depth limit.
pub fn load_fixture(relative: &str) -> CanonicalValue {
    let path = fixtures_dir().join(relative);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    parse_bytes_with_max_depth(&bytes, 1024)
        .unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

pub fn str_member<'a>(v: &'a CanonicalValue, name: &str) -> &'a str {
    v.get(name)
        .and_then(CanonicalValue::as_str)
        .unwrap_or_else(|| panic!("member {name:?} is not a string in {v:?}"))
}

/// Standard base64 (with padding) to bytes.
pub fn base64_decode(text: &str) -> Vec<u8> {
    fn sextet(c: u8) -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    }
    let clean: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let mut acc = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            acc |= sextet(c) << (18 - 6 * k);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

/// Rebuilds a value from its typed tree: `{"int": "..."}`, `{"float": "<repr>"}`,
/// `{"object": [[key, typed], ...]}`, everything else as itself.
pub fn from_typed(typed: &CanonicalValue) -> CanonicalValue {
    match typed {
        CanonicalValue::Array(items) => {
            CanonicalValue::Array(items.iter().map(from_typed).collect())
        }
        CanonicalValue::Object(map) => {
            assert_eq!(map.len(), 1, "typed object with one member: {typed:?}");
            let (tag, inner) = map.iter().next().unwrap();
            match tag.as_str() {
                "int" => CanonicalValue::Int(inner.as_str().unwrap().parse().unwrap()),
                "float" => CanonicalValue::Float(inner.as_str().unwrap().parse().unwrap()),
                "object" => {
                    let mut object = CanonicalValue::object();
                    for pair in inner.as_array().unwrap() {
                        let pair = pair.as_array().unwrap();
                        let key = pair[0].as_str().unwrap();
                        assert!(object.get(key).is_none(), "typed tree repeats {key:?}");
                        object.insert(key, from_typed(&pair[1]));
                    }
                    object
                }
                other => panic!("unknown typed tag {other:?}"),
            }
        }
        leaf => leaf.clone(),
    }
}
