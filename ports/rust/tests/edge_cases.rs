//! Edge cases beyond the shared vectors: float layout, error order, depth, the value API.

use empiric_proof::{
    canonicalize, canonicalize_bytes, canonicalize_json, parse, parse_bytes, sign_canonical,
    CanonicalValue, ErrorCode,
};

fn canon_f64(x: f64) -> String {
    canonicalize(&CanonicalValue::Float(x)).unwrap()
}

fn code(text: &str) -> &'static str {
    parse(text).unwrap_err().code()
}

/// The canonical text of a JSON text, both through the tree and directly.
fn canon_text(text: &str) -> String {
    let via_tree = canonicalize(&parse(text).unwrap()).unwrap();
    let direct = String::from_utf8(canonicalize_json(text.as_bytes()).unwrap()).unwrap();
    assert_eq!(via_tree, direct, "tree and direct paths differ for {text}");
    via_tree
}

#[test]
fn float_layout_table_of_r7() {
    let table: [(f64, &str); 22] = [
        (1.0, "1.0"),
        (0.1, "0.1"),
        (1e15, "1000000000000000.0"),
        (1e16, "1e+16"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (1e-7, "1e-07"),
        (5e-324, "5e-324"),
        (f64::MAX, "1.7976931348623157e+308"),
        (9_223_372_036_854_775_808.0, "9.223372036854776e+18"),
        (-0.0, "-0.0"),
        (0.0, "0.0"),
        (123.456, "123.456"),
        (1_234_567_890_123_456.0, "1234567890123456.0"),
        (9_999_999_999_999_998.0, "9999999999999998.0"),
        (1.5e300, "1.5e+300"),
        (1.2345678901234568e17, "1.2345678901234568e+17"),
        (1e21, "1e+21"),
        (1e22, "1e+22"),
        (-1.5e-10, "-1.5e-10"),
        (2.2250738585072014e-308, "2.2250738585072014e-308"),
        (0.1 + 0.2, "0.30000000000000004"),
    ];
    for (x, expected) in table {
        assert_eq!(canon_f64(x), expected, "{x:e}");
    }
}

#[test]
#[allow(clippy::excessive_precision)] // literals written as their source text would be
fn float_layout_boundaries() {
    assert_eq!(canon_f64(0.00012345), "0.00012345");
    assert_eq!(canon_f64(0.000099), "9.9e-05");
    assert_eq!(canon_f64(-0.00001), "-1e-05");
    assert_eq!(canon_f64(9.999999999999999e15), "1e+16");
    assert_eq!(canon_f64(1e16 - 2.0), "9999999999999998.0");
    assert_eq!(canon_f64(1e100), "1e+100");
    assert_eq!(canon_f64(1e-100), "1e-100");
    assert_eq!(canon_f64(123e-310), "1.23e-308");
    assert_eq!(canon_f64(4.9406564584124654e-324), "5e-324");
    assert_eq!(canon_f64(100.0), "100.0");
    assert_eq!(canon_f64(-2.5), "-2.5");
    assert_eq!(canon_f64(1.0 / 3.0), "0.3333333333333333");
    assert_eq!(canon_f64(2f64.powi(53)), "9007199254740992.0");
}

#[test]
fn non_finite_floats_have_no_canonical_form() {
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = canonicalize_bytes(&CanonicalValue::Float(x)).unwrap_err();
        assert_eq!(err.kind(), ErrorCode::NonFiniteNumber);
    }
    let nested = CanonicalValue::object().with("a", vec![CanonicalValue::Float(f64::NAN)]);
    assert_eq!(
        canonicalize_bytes(&nested).unwrap_err().code(),
        "non_finite_number"
    );
}

#[test]
fn float_literals_already_canonical_or_not() {
    // Literals that are copied as they are, and look-alikes that must be re-written.
    let cases = [
        ("50.0", "50.0"),
        ("41.25", "41.25"),
        ("-41.25", "-41.25"),
        ("0.0", "0.0"),
        ("-0.0", "-0.0"),
        ("0.0001", "0.0001"),
        ("0.00010", "0.0001"),
        ("0.00001", "1e-05"),
        ("1.50", "1.5"),
        ("100.00", "100.0"),
        ("00.5", ""),
        ("123456789012345.0", "123456789012345.0"),
        ("123456789012345.6", "123456789012345.6"),
        ("1234567890123456.0", "1234567890123456.0"),
        ("12345678901234567.0", "1.2345678901234568e+16"),
        ("10000000000000000.0", "1e+16"),
        ("9999999999999999.0", "1e+16"),
        ("0.30000000000000004", "0.30000000000000004"),
        ("0.300000000000000044", "0.30000000000000004"),
        ("0.1000000000000000055511151231257827", "0.1"),
        ("0.123456789012345", "0.123456789012345"),
        ("0.1234567890123456789", "0.12345678901234568"),
        ("3.0", "3.0"),
        ("1e0", "1.0"),
        ("-1E-2", "-0.01"),
    ];
    for (text, expected) in cases {
        if expected.is_empty() {
            assert_eq!(code(text), "syntax_error", "{text}");
        } else {
            assert_eq!(canon_text(text), expected, "{text}");
        }
    }
}

#[test]
fn floats_round_trip_through_their_canonical_text() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..20_000 {
        // xorshift: arbitrary bit patterns, so every exponent range is covered.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = f64::from_bits(state);
        if !x.is_finite() {
            continue;
        }
        let text = canon_f64(x);
        let back: f64 = text.parse().unwrap();
        assert_eq!(back.to_bits(), x.to_bits(), "{text}");
        assert_eq!(parse(&text).unwrap(), CanonicalValue::Float(x), "{text}");
        assert_eq!(canon_text(&text), text);
    }
}

#[test]
fn ints_and_floats_stay_apart() {
    assert_eq!(parse("1").unwrap(), CanonicalValue::Int(1));
    assert_eq!(parse("1.0").unwrap(), CanonicalValue::Float(1.0));
    assert_eq!(parse("-0").unwrap(), CanonicalValue::Int(0));
    assert_eq!(parse("-0.0").unwrap(), CanonicalValue::Float(-0.0));
    assert_ne!(parse("0.0").unwrap(), parse("-0.0").unwrap());
    assert_ne!(CanonicalValue::Int(1), CanonicalValue::Float(1.0));
    assert_eq!(canon_text("[3, 3.0, -0, -0.0]"), "[3,3.0,0,-0.0]");
    assert_eq!(
        canon_text("[9223372036854775807, -9223372036854775808, 123456789012345678]"),
        "[9223372036854775807,-9223372036854775808,123456789012345678]"
    );
    assert_eq!(code("9223372036854775808"), "int_out_of_range");
    assert_eq!(code("-9223372036854775809"), "int_out_of_range");
    assert_eq!(
        code("[1, 99999999999999999999999999999999999999999999]"),
        "int_out_of_range"
    );
}

#[test]
fn strings_and_key_order() {
    assert_eq!(
        canon_text(r#"{"\ud83d\ude00":1,"\uffff":2,"é":3,"z":4}"#),
        r#"{"z":4,"\u00e9":3,"\uffff":2,"\ud83d\ude00":1}"#
    );
    assert_eq!(canon_text(r#""a\/b\u001F\u007f""#), r#""a/b\u001f\u007f""#);
    assert_eq!(
        canon_text("\"tab\\tnl\\n\u{2028}\""),
        r#""tab\tnl\n\u2028""#
    );
    assert_eq!(canon_text("\"\u{10FFFF}\""), r#""\udbff\udfff""#);
    // A long plain string crosses the 8-byte scanning boundary in every position.
    for n in 0..40 {
        let s = format!("\"{}\u{e9}{}\"", "x".repeat(n), "y".repeat(n % 9));
        let expected = format!("\"{}\\u00e9{}\"", "x".repeat(n), "y".repeat(n % 9));
        assert_eq!(canon_text(&s), expected);
        let s = format!("\"{}\\n{}\"", "x".repeat(n), "y".repeat(n % 9));
        assert_eq!(canon_text(&s), s);
        let s = format!("\"{}\u{7f}\"", "x".repeat(n));
        assert_eq!(canon_text(&s), format!("\"{}\\u007f\"", "x".repeat(n)));
    }
}

#[test]
fn surrogate_escapes() {
    assert_eq!(canon_text(r#""\uD83D\uDE00""#), r#""\ud83d\ude00""#);
    assert_eq!(code(r#""\ud800""#), "lone_surrogate");
    assert_eq!(code(r#""\ud800x""#), "lone_surrogate");
    assert_eq!(code(r#""\ud800\n""#), "lone_surrogate");
    assert_eq!(code(r#""\ud800\x""#), "lone_surrogate");
    assert_eq!(code(r#""\ud800\ud800""#), "lone_surrogate");
    assert_eq!(code(r#""\ud800"#), "lone_surrogate");
    assert_eq!(code(r#""\ud800\u12g4""#), "syntax_error");
    assert_eq!(code(r#""\ud800\u12"#), "syntax_error");
    assert_eq!(code(r#""\udfff\u12g4""#), "lone_surrogate");
    assert_eq!(code(r#""\u12g4\ud800""#), "syntax_error");
}

#[test]
fn first_problem_reading_left_to_right() {
    assert_eq!(code(r#"{"a":1,"a":[1,}"#), "duplicate_key");
    assert_eq!(code(r#"{"a":1,"a":1e400}"#), "duplicate_key");
    assert_eq!(code(r#"{"a":1,"a"2"#), "duplicate_key");
    assert_eq!(code(r#"{"a":1,"a""#), "duplicate_key");
    assert_eq!(code(r#"{"a":1e400,"a":1}"#), "non_finite_number");
    assert_eq!(code(r#"{"a":[1,],"a":1}"#), "syntax_error");
    // The outer repeat comes first even though the inner object closes first.
    let err = parse(r#"{"a":1,"a":{"x":1,"x":2}}"#).unwrap_err();
    assert_eq!((err.code(), err.offset()), ("duplicate_key", Some(7)));
    let err = parse(r#"{"a":{"x":1,"x":2},"a":1}"#).unwrap_err();
    assert_eq!((err.code(), err.offset()), ("duplicate_key", Some(12)));
    // Two repeated keys: the second occurrence met first wins.
    let err = parse(r#"{"b":1,"a":2,"a":3,"b":4}"#).unwrap_err();
    assert_eq!(err.offset(), Some(13));
    assert_eq!(code(r#"[{"k":1,"k":2}, 01]"#), "duplicate_key");
    assert_eq!(code(r#"[01, {"k":1,"k":2}]"#), "syntax_error");
    // Bytes are decoded first, as the TypeScript and Python ports do.
    assert_eq!(
        parse_bytes(b"[1,] \xff").unwrap_err().code(),
        "invalid_utf8"
    );
    assert_eq!(
        parse_bytes(b"[\"\xc0\xaf\"]").unwrap_err().offset(),
        Some(2)
    );
}

#[test]
fn error_offsets() {
    let at = |text: &str| parse(text).unwrap_err().offset();
    assert_eq!(at(""), Some(0));
    assert_eq!(at("[1,]"), Some(3));
    assert_eq!(at("[1 2]"), Some(3));
    assert_eq!(at("tru"), Some(3));
    assert_eq!(at("nulL"), Some(3));
    assert_eq!(at("1."), Some(2));
    assert_eq!(at("\"abc"), Some(4));
    assert_eq!(at("  NaN"), Some(2));
    assert_eq!(at("[1e999]"), Some(1));
    let err = parse("[1,]").unwrap_err();
    assert_eq!(
        err.to_string(),
        "syntax_error: unexpected character ']', expected a value at byte 3"
    );
}

#[test]
fn depth_limits() {
    let arrays = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let objects = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    assert!(parse(&arrays(512)).is_ok());
    assert!(parse(&objects(512)).is_ok());
    assert_eq!(code(&arrays(513)), "depth_exceeded");
    assert_eq!(code(&objects(513)), "depth_exceeded");
    assert_eq!(code(&"[".repeat(20_000)), "depth_exceeded");
    assert_eq!(code(&r#"{"a":"#.repeat(20_000)), "depth_exceeded");
    assert_eq!(code(&"[{\"a\":".repeat(10_000)), "depth_exceeded");
    // The deepest a caller may ask for parses and drops without exhausting a test thread's
    // stack; larger limits are lowered to it.
    let ceiling = empiric_proof::DEPTH_CEILING;
    let deepest = arrays(ceiling);
    drop(empiric_proof::parse_bytes_with_max_depth(deepest.as_bytes(), usize::MAX).unwrap());
    let too_deep = arrays(ceiling + 1);
    let err = empiric_proof::parse_bytes_with_max_depth(too_deep.as_bytes(), usize::MAX);
    assert_eq!(err.unwrap_err().code(), "depth_exceeded");
    // Round trip at the limit, through both paths.
    assert_eq!(canon_text(&arrays(512)), arrays(512));
    // A value built deeper than the limit cannot be canonicalized.
    let mut deep = CanonicalValue::array();
    for _ in 0..512 {
        deep = CanonicalValue::Array(vec![deep]);
    }
    assert_eq!(
        canonicalize_bytes(&deep).unwrap_err().code(),
        "depth_exceeded"
    );
    let CanonicalValue::Array(mut inner) = deep else {
        unreachable!()
    };
    let at_limit = inner.pop().unwrap();
    assert_eq!(canonicalize_bytes(&at_limit).unwrap().len(), 1024);
}

#[test]
fn whitespace_and_syntax() {
    assert_eq!(
        canon_text(" \t\r\n[ 1 , { \"a\" : null } ] \n"),
        r#"[1,{"a":null}]"#
    );
    for bad in [
        "",
        " ",
        "[",
        "]",
        "{",
        "}",
        "[1,]",
        "{\"a\":1,}",
        "{,}",
        "[,1]",
        "{\"a\"}",
        "{1:2}",
        "'x'",
        "01",
        "-01",
        "+1",
        ".5",
        "1.",
        "1e",
        "1e+",
        "-",
        "0x1",
        "truee",
        "nul",
        "[1]x",
        "\u{a0}1",
        "\u{feff}1",
        "\"\\u00\"",
        "\"\\a\"",
        "\"a\u{1}\"",
        "/*x*/1",
        "Infinit",
        "-NaN",
    ] {
        assert_eq!(code(bad), "syntax_error", "{bad:?}");
    }
    assert_eq!(code("Infinity"), "non_finite_number");
    assert_eq!(code("-Infinity"), "non_finite_number");
    assert_eq!(code("[NaN]"), "non_finite_number");
}

#[test]
fn value_api() {
    let mut v = CanonicalValue::object();
    v.insert("b", 1)
        .insert("a", 1.0)
        .insert("s", "x")
        .insert("t", true);
    v.insert("l", vec![1, 2]).insert("n", CanonicalValue::Null);
    v.insert("o", Some("y")).insert("none", None::<i64>);
    assert_eq!(
        canonicalize(&v).unwrap(),
        r#"{"a":1.0,"b":1,"l":[1,2],"n":null,"none":null,"o":"y","s":"x","t":true}"#
    );
    let built = CanonicalValue::object()
        .with("k", String::from("v"))
        .with("i", 7_i64)
        .with("u", 7_u32);
    assert_eq!(canonicalize(&built).unwrap(), r#"{"i":7,"k":"v","u":7}"#);
    let mut a = CanonicalValue::array();
    a.push(1).push("two");
    assert_eq!(canonicalize(&a).unwrap(), r#"[1,"two"]"#);
    assert_eq!(CanonicalValue::default(), CanonicalValue::Null);
    assert_eq!(
        parse(r#"{"a":[1]}"#).unwrap().get("a").unwrap().type_name(),
        "array"
    );
}

#[test]
#[should_panic(expected = "insert on a array")]
fn insert_on_a_non_object_panics() {
    CanonicalValue::array().insert("a", 1);
}

#[test]
fn signing_keys() {
    let v = parse("[1]").unwrap();
    assert_eq!(
        sign_canonical(&v, &[1u8; 31]).unwrap_err().code(),
        "key_too_short"
    );
    assert_eq!(sign_canonical(&v, &[1u8; 32]).unwrap().len(), 64);
    assert_eq!(
        sign_canonical(&v, b"").unwrap_err().kind(),
        ErrorCode::KeyTooShort
    );
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::from_code(code.as_str()), Some(code));
    }
}
