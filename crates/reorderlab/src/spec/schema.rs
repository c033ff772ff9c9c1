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
//! Ranges (the helpers are in [`super::ranges`]), checked by the core ([`super::fields`]) and by the Python front
//! (`python/reorderlab/_field_types.py`), both from this schema:
//!
//! * `range(min = 1, max = 4)`: an integer within inclusive bounds
//!   (schemars' own attribute; an unsigned type is `>= 0` by itself);
//! * `transform = within("(0, 1]")`: a number in an interval, or
//!   `within("> 0")`, `within(">= 1")`;
//! * `transform = seconds` / `seconds_or_zero`: a time, `> 0` / `>= 0`, at
//!   most [`MAX_SECONDS`](crate::engine::time::MAX_SECONDS) and, unless 0, at least the clock's 1-ns step
//!   (`docs/limits.md`);
//! * `transform = bit_rate`: a link rate, `> 0` and at most [`MAX_RATE`](super::ranges::MAX_RATE);
//! * `transform = unit("bytes")`: only the unit, for the docs.
//!
//! On a list the range applies to each element. Everything else is in the
//! schema as standard JSON Schema keywords (`type`, `default`, `required`,
//! `enum`, `oneOf` for the tagged enums), plus `x-unit` (the unit),
//! `x-registry` (a name from one of the core's registries), `x-known` (the
//! names a list accepts) and `x-aliases` (other spellings of an enum value).

use std::sync::OnceLock;

use serde_json::Value;

use super::scenario::Scenario;

/// The scenario's JSON Schema, generated once.
pub fn scenario_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| schemars::schema_for!(Scenario).to_value())
}

/// [`scenario_schema`] as JSON text (what `_core.scenario_schema()` returns).
pub fn scenario_schema_json() -> String {
    serde_json::to_string_pretty(scenario_schema()).expect("a schema serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

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
