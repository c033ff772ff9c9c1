//! The scenario's JSON Schema: each field's type, default, range and
//! one-line doc, derived (`schemars`) from its one declaration on the
//! structs of this module.
//!
//! A field is declared once, on its struct:
//!
//! ```ignore
//! /// Delayed-ACK timer.                         // the one-line doc
//! #[serde(default = "default_delack_timeout")]   // the default
//! #[schemars(transform = seconds)]               // the range: a time > 0
//! pub delack_timeout: f64,                       // the type
//! ```
//!
//! Ranges, checked by the core ([`super::fields`]) and by the Python front
//! (`python/reorderlab/_field_types.py`), both from this schema:
//!
//! * `range(min = 1, max = 4)`: an integer within inclusive bounds
//!   (schemars' own attribute; an unsigned type is `>= 0` by itself);
//! * `transform = within("(0, 1]")`: a number in an interval, or
//!   `within("> 0")`, `within(">= 1")`;
//! * `transform = seconds` / `seconds_or_zero`: a time, `> 0` / `>= 0`, at
//!   most [`MAX_SECONDS`] and, unless 0, at least the clock's 1-ns step
//!   (`docs/limits.md`);
//! * `transform = bit_rate`: a link rate, `> 0` and at most [`MAX_RATE`];
//! * `transform = unit("bytes")`: only the unit, for the docs.
//!
//! On a list the range applies to each element. Everything else is in the
//! schema as standard JSON Schema keywords (`type`, `default`, `required`,
//! `enum`, `oneOf` for the tagged enums), plus `x-unit` (the unit),
//! `x-registry` (a name from one of the core's registries), `x-known` (the
//! names a list accepts) and `x-aliases` (other spellings of an enum value).

use std::sync::OnceLock;

use schemars::Schema;
use serde_json::{json, Map, Value};

use super::limits::MAX_RATE;
use super::Scenario;
use crate::engine::time::MAX_SECONDS;

/// The scenario's JSON Schema, generated once.
pub fn scenario_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| schemars::schema_for!(Scenario).to_value())
}

/// [`scenario_schema`] as JSON text (what `_core.scenario_schema()` returns).
pub fn scenario_schema_json() -> String {
    serde_json::to_string_pretty(scenario_schema()).expect("a schema serialises")
}

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

    #[test]
    fn fields_carry_type_default_range_and_doc() {
        let s = scenario_schema();
        let duration = &s["properties"]["duration"];
        assert_eq!(duration["type"], "number");
        assert_eq!(duration["exclusiveMinimum"], 0);
        assert_eq!(duration["x-unit"], "s");
        assert_eq!(duration["description"], "Simulated time.");
        let receiver = &s["$defs"]["ReceiverSpec"]["properties"];
        assert_eq!(receiver["max_sack_blocks"]["minimum"], 1);
        assert_eq!(receiver["max_sack_blocks"]["maximum"], 4);
        assert_eq!(receiver["delack_timeout"]["default"], 0.2);
        let names: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            names[..3],
            ["name", "duration", "seed"],
            "declaration order"
        );
    }
}
