//! The ranges of the scenario's numbers, as JSON Schema keywords: the
//! `#[schemars(transform = ...)]` helpers each field declaration names
//! (their meaning is in [`super::schema`]'s module doc). A leaf of
//! `spec/`: the declarations use it, the schema reads what it wrote.

use schemars::Schema;
use serde_json::{json, Map, Value};

use crate::engine::time::MAX_SECONDS;

/// The fastest link, bit/s: a 125-byte packet still takes 1 ns (the
/// clock's step) to send.
pub const MAX_RATE: f64 = 1e12;

/// The keywords of the numbers a field holds: its own, or its elements'
/// for a list.
fn numbers(schema: &mut Schema) -> &mut Map<String, Value> {
    let map = schema.ensure_object();
    if map.contains_key("items") {
        return map
            .get_mut("items")
            .and_then(Value::as_object_mut)
            .expect("`items` is a schema object");
    }
    map
}

/// A time in seconds, `> 0`.
pub fn seconds(schema: &mut Schema) {
    time(schema, "exclusiveMinimum");
}

/// A time in seconds, `>= 0`.
pub fn seconds_or_zero(schema: &mut Schema) {
    time(schema, "minimum");
}

fn time(schema: &mut Schema, lower: &str) {
    let map = numbers(schema);
    map.insert(lower.into(), json!(0));
    map.insert("maximum".into(), json!(MAX_SECONDS));
    map.insert("x-unit".into(), json!("s"));
}

/// A link rate in bit/s, `> 0`.
pub fn bit_rate(schema: &mut Schema) {
    let map = numbers(schema);
    map.insert("exclusiveMinimum".into(), json!(0));
    map.insert("maximum".into(), json!(MAX_RATE));
    map.insert("x-unit".into(), json!("bit/s"));
}

/// The field's unit, for the docs (`"bytes"`, `"packets"`, `"s"`, ...).
pub fn unit(name: &'static str) -> impl FnMut(&mut Schema) {
    move |schema: &mut Schema| {
        numbers(schema).insert("x-unit".into(), json!(name));
    }
}

/// A number within an interval: `"[0, 1)"`, `"(0, 1]"`, `"> 0"`, `">= 1"`.
pub fn within(interval: &'static str) -> impl FnMut(&mut Schema) {
    move |schema: &mut Schema| {
        let map = numbers(schema);
        for (keyword, bound) in bounds(interval) {
            map.insert(keyword.into(), json!(bound));
        }
    }
}

/// JSON Schema keywords of an interval written as in [`within`] (a
/// malformed one is a mistake in a declaration: the schema's tests fail).
fn bounds(interval: &str) -> Vec<(&'static str, f64)> {
    let number = |t: &str| {
        t.trim()
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("not an interval: {interval:?}"))
    };
    let t = interval.trim();
    if let Some(v) = t.strip_prefix(">=") {
        return vec![("minimum", number(v))];
    }
    if let Some(v) = t.strip_prefix('>') {
        return vec![("exclusiveMinimum", number(v))];
    }
    let lower = if t.starts_with('[') {
        "minimum"
    } else {
        "exclusiveMinimum"
    };
    let upper = if t.ends_with(']') {
        "maximum"
    } else {
        "exclusiveMaximum"
    };
    let inner = t.get(1..t.len().saturating_sub(1)).unwrap_or_default();
    let (lo, hi) = inner
        .split_once(',')
        .unwrap_or_else(|| panic!("not an interval: {interval:?}"));
    vec![(lower, number(lo)), (upper, number(hi))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_become_keywords() {
        assert_eq!(
            bounds("[0, 1)"),
            [("minimum", 0.0), ("exclusiveMaximum", 1.0)]
        );
        assert_eq!(
            bounds("(0, 1]"),
            [("exclusiveMinimum", 0.0), ("maximum", 1.0)]
        );
        assert_eq!(bounds(">= 1"), [("minimum", 1.0)]);
        assert_eq!(bounds("> 0"), [("exclusiveMinimum", 0.0)]);
    }
}
