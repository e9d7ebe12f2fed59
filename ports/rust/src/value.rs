//! The typed value model of the wire format (rule R1).

use std::collections::BTreeMap;

/// A value of the wire format (rule R1): int and float are different types.
///
/// Objects are a `BTreeMap<String, _>`: Rust orders `String`s by their UTF-8 bytes, which is
/// the same as Unicode code point order, so iterating an object yields its members in
/// canonical order (rule R3).
///
/// Equality is structural, and floats compare by their bits, so `Float(0.0)` and
/// `Float(-0.0)` differ (they have different canonical forms) and `Int(1)` never equals
/// `Float(1.0)`.
///
/// # Building values
///
/// [`CanonicalValue::object`] makes an empty object; [`CanonicalValue::insert`] adds a member
/// in place and returns `&mut Self` so calls chain; [`CanonicalValue::with`] is the by-value
/// builder form. `From` turns Rust values into wire values.
///
/// ```
/// use empiric_proof::{canonicalize_bytes, CanonicalValue};
///
/// let mut threshold = CanonicalValue::object();
/// threshold.insert("value", 50.0).insert("units", "ms").insert("n", 200);
///
/// let value = CanonicalValue::object()
///     .with("threshold", threshold)
///     .with("tags", vec!["a", "b"])
///     .with("ok", true);
///
/// assert_eq!(
///     canonicalize_bytes(&value).unwrap(),
///     br#"{"ok":true,"tags":["a","b"],"threshold":{"n":200,"units":"ms","value":50.0}}"#
/// );
/// ```
///
/// Values nest to any depth in memory, but only 512 levels can be canonicalized (and the
/// parser never builds deeper values). Dropping a value recurses once per level.
#[derive(Debug, Clone, Default)]
pub enum CanonicalValue {
    /// `null`
    #[default]
    Null,
    /// `true` or `false`
    Bool(bool),
    /// An int, -2^63 .. 2^63-1.
    Int(i64),
    /// A float (IEEE-754 binary64). Only finite floats can be canonicalized.
    Float(f64),
    /// A string of Unicode scalar values.
    String(String),
    /// An array.
    Array(Vec<CanonicalValue>),
    /// An object with unique keys, kept in code point order.
    Object(BTreeMap<String, CanonicalValue>),
}

impl PartialEq for CanonicalValue {
    fn eq(&self, other: &CanonicalValue) -> bool {
        use CanonicalValue::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (String(a), String(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Object(a), Object(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for CanonicalValue {}

impl CanonicalValue {
    /// A new empty object.
    ///
    /// ```
    /// use empiric_proof::CanonicalValue;
    /// assert_eq!(CanonicalValue::object().as_object().map(|m| m.len()), Some(0));
    /// ```
    pub fn object() -> CanonicalValue {
        CanonicalValue::Object(BTreeMap::new())
    }

    /// A new empty array.
    ///
    /// ```
    /// use empiric_proof::CanonicalValue;
    /// assert_eq!(CanonicalValue::array().as_array().map(|a| a.len()), Some(0));
    /// ```
    pub fn array() -> CanonicalValue {
        CanonicalValue::Array(Vec::new())
    }

    /// Sets member `name` of this object to `value` (replacing an earlier value of that name)
    /// and returns `self` for chaining.
    ///
    /// # Panics
    ///
    /// Panics when `self` is not an object; use [`CanonicalValue::as_object_mut`] to insert
    /// without that check.
    ///
    /// ```
    /// use empiric_proof::CanonicalValue;
    /// let mut v = CanonicalValue::object();
    /// v.insert("b", 1).insert("a", 2.5);
    /// assert_eq!(v.get("a"), Some(&CanonicalValue::Float(2.5)));
    /// ```
    pub fn insert(
        &mut self,
        name: impl Into<String>,
        value: impl Into<CanonicalValue>,
    ) -> &mut Self {
        match self {
            CanonicalValue::Object(map) => {
                map.insert(name.into(), value.into());
            }
            other => panic!("CanonicalValue::insert on a {}", other.type_name()),
        }
        self
    }

    /// Builder form of [`CanonicalValue::insert`]: sets member `name` and returns the object.
    ///
    /// # Panics
    ///
    /// Panics when `self` is not an object.
    ///
    /// ```
    /// use empiric_proof::CanonicalValue;
    /// let v = CanonicalValue::object().with("x", 1).with("y", "two");
    /// assert_eq!(v.get("y").and_then(|y| y.as_str()), Some("two"));
    /// ```
    pub fn with(
        mut self,
        name: impl Into<String>,
        value: impl Into<CanonicalValue>,
    ) -> CanonicalValue {
        self.insert(name, value);
        self
    }

    /// Appends `value` to this array and returns `self` for chaining.
    ///
    /// # Panics
    ///
    /// Panics when `self` is not an array.
    ///
    /// ```
    /// use empiric_proof::CanonicalValue;
    /// let mut a = CanonicalValue::array();
    /// a.push(1).push(1.0);
    /// assert_eq!(a.as_array().unwrap().len(), 2);
    /// ```
    pub fn push(&mut self, value: impl Into<CanonicalValue>) -> &mut Self {
        match self {
            CanonicalValue::Array(items) => items.push(value.into()),
            other => panic!("CanonicalValue::push on a {}", other.type_name()),
        }
        self
    }

    /// The member `name` of an object, or `None` (also when `self` is not an object).
    ///
    /// ```
    /// let v = empiric_proof::parse(r#"{"a":{"b":null}}"#).unwrap();
    /// assert!(v.get("a").and_then(|a| a.get("b")).is_some_and(|b| b.is_null()));
    /// assert!(v.get("z").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&CanonicalValue> {
        self.as_object().and_then(|map| map.get(name))
    }

    /// The type name used in messages: `null`, `bool`, `int`, `float`, `string`, `array` or
    /// `object`.
    ///
    /// ```
    /// assert_eq!(empiric_proof::parse("1.0").unwrap().type_name(), "float");
    /// assert_eq!(empiric_proof::parse("1").unwrap().type_name(), "int");
    /// ```
    pub fn type_name(&self) -> &'static str {
        match self {
            CanonicalValue::Null => "null",
            CanonicalValue::Bool(_) => "bool",
            CanonicalValue::Int(_) => "int",
            CanonicalValue::Float(_) => "float",
            CanonicalValue::String(_) => "string",
            CanonicalValue::Array(_) => "array",
            CanonicalValue::Object(_) => "object",
        }
    }

    /// True for `null`.
    ///
    /// ```
    /// assert!(empiric_proof::CanonicalValue::Null.is_null());
    /// ```
    pub fn is_null(&self) -> bool {
        matches!(self, CanonicalValue::Null)
    }

    /// The bool, if this is a bool.
    ///
    /// ```
    /// assert_eq!(empiric_proof::CanonicalValue::from(true).as_bool(), Some(true));
    /// ```
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            CanonicalValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The int, if this is an int (a float is not an int, even `1.0`).
    ///
    /// ```
    /// use empiric_proof::CanonicalValue;
    /// assert_eq!(CanonicalValue::from(7).as_i64(), Some(7));
    /// assert_eq!(CanonicalValue::from(7.0).as_i64(), None);
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            CanonicalValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The float, if this is a float (an int is not a float).
    ///
    /// ```
    /// use empiric_proof::CanonicalValue;
    /// assert_eq!(CanonicalValue::from(0.5).as_f64(), Some(0.5));
    /// assert_eq!(CanonicalValue::from(1).as_f64(), None);
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            CanonicalValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The string, if this is a string.
    ///
    /// ```
    /// assert_eq!(empiric_proof::CanonicalValue::from("x").as_str(), Some("x"));
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            CanonicalValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    ///
    /// ```
    /// let v = empiric_proof::parse("[1,2]").unwrap();
    /// assert_eq!(v.as_array().map(|a| a.len()), Some(2));
    /// ```
    pub fn as_array(&self) -> Option<&Vec<CanonicalValue>> {
        match self {
            CanonicalValue::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The elements, mutably, if this is an array.
    ///
    /// ```
    /// let mut v = empiric_proof::parse("[1]").unwrap();
    /// v.as_array_mut().unwrap().clear();
    /// assert_eq!(v, empiric_proof::CanonicalValue::array());
    /// ```
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<CanonicalValue>> {
        match self {
            CanonicalValue::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    ///
    /// ```
    /// let v = empiric_proof::parse(r#"{"b":1,"a":2}"#).unwrap();
    /// let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    /// assert_eq!(keys, ["a", "b"]);
    /// ```
    pub fn as_object(&self) -> Option<&BTreeMap<String, CanonicalValue>> {
        match self {
            CanonicalValue::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The members, mutably, if this is an object.
    ///
    /// ```
    /// let mut v = empiric_proof::parse(r#"{"a":1}"#).unwrap();
    /// v.as_object_mut().unwrap().remove("a");
    /// assert_eq!(v, empiric_proof::CanonicalValue::object());
    /// ```
    pub fn as_object_mut(&mut self) -> Option<&mut BTreeMap<String, CanonicalValue>> {
        match self {
            CanonicalValue::Object(map) => Some(map),
            _ => None,
        }
    }
}

/// `bool` becomes `Bool`.
impl From<bool> for CanonicalValue {
    fn from(value: bool) -> Self {
        CanonicalValue::Bool(value)
    }
}

/// `i64` becomes `Int`.
impl From<i64> for CanonicalValue {
    fn from(value: i64) -> Self {
        CanonicalValue::Int(value)
    }
}

/// `i32` becomes `Int` (so integer literals work without a suffix).
impl From<i32> for CanonicalValue {
    fn from(value: i32) -> Self {
        CanonicalValue::Int(i64::from(value))
    }
}

/// `u32` becomes `Int`.
impl From<u32> for CanonicalValue {
    fn from(value: u32) -> Self {
        CanonicalValue::Int(i64::from(value))
    }
}

/// `f64` becomes `Float` (always a float, even when it holds an integral value).
impl From<f64> for CanonicalValue {
    fn from(value: f64) -> Self {
        CanonicalValue::Float(value)
    }
}

/// `&str` becomes `String`.
impl From<&str> for CanonicalValue {
    fn from(value: &str) -> Self {
        CanonicalValue::String(value.to_owned())
    }
}

/// `String` becomes `String`.
impl From<String> for CanonicalValue {
    fn from(value: String) -> Self {
        CanonicalValue::String(value)
    }
}

/// A `Vec` becomes an `Array` of its converted elements.
impl<T: Into<CanonicalValue>> From<Vec<T>> for CanonicalValue {
    fn from(value: Vec<T>) -> Self {
        CanonicalValue::Array(value.into_iter().map(Into::into).collect())
    }
}

/// A map becomes an `Object`.
impl From<BTreeMap<String, CanonicalValue>> for CanonicalValue {
    fn from(value: BTreeMap<String, CanonicalValue>) -> Self {
        CanonicalValue::Object(value)
    }
}

/// `None` becomes `Null`, `Some(x)` becomes `x` converted.
impl<T: Into<CanonicalValue>> From<Option<T>> for CanonicalValue {
    fn from(value: Option<T>) -> Self {
        value.map_or(CanonicalValue::Null, Into::into)
    }
}
