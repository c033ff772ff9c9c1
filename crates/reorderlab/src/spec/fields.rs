//! Each field against its own declaration: every number within its range
//! and every listed string one of its values, as the scenario's schema
//! ([`super::schema`]) says. The rules that join several fields are in
//! `validate.rs` and `check_network.rs`.
//!
//! The messages are those of the Python front's checks of the same
//! schema (`python/reorderlab/_field_types.py`; `tests/test_schema.py`
//! compares both on every range): `must be > 0, got -5`, `must be in [0,
//! 1), got 1.5`, `must be >= 1, got 0`, `must be in 1..=4, got 5`.

use serde_json::{Map, Number, Value};

use super::error::{num, Check, SpecError};
use super::limits::{rate, time};
use super::scenario::Scenario;
use super::schema::scenario_schema;

/// Check every field of `s` against its declaration, in the order of the
/// declarations; the first problem is returned.
pub(super) fn check_fields(s: &Scenario) -> Check {
    let value = serde_json::to_value(s).expect("a scenario serialises");
    let root = scenario_schema();
    Walk { root }.value(root, &value, &Path::Root)
}

/// Where a value is, written out only for an error (`flows[0].tcp.mss`).
enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    fn text(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(Path::Root, key) => (*key).to_string(),
            Path::Key(up, key) => format!("{}.{key}", up.text()),
            Path::Index(up, i) => format!("{}[{i}]", up.text()),
        }
    }
}

struct Walk<'a> {
    /// The whole schema, where `$ref`s point.
    root: &'a Value,
}

impl<'a> Walk<'a> {
    /// The schema `schema` stands for (`{"$ref": "#/$defs/Name"}`).
    fn resolve(&self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.trim_start_matches("#/$defs/");
                &self.root["$defs"][name]
            }
            None => schema,
        }
    }

    fn value(&self, schema: &'a Value, v: &Value, path: &Path) -> Check {
        let schema = self.resolve(schema);
        if let Some(Value::Array(options)) = schema.get("anyOf") {
            // an optional table: `[{"$ref": ...}, {"type": "null"}]`
            let some = options
                .iter()
                .find(|o| o.get("type") != Some(&"null".into()));
            return match (v, some) {
                (Value::Null, _) | (_, None) => Ok(()),
                (_, Some(s)) => self.value(s, v, path),
            };
        }
        match v {
            Value::Number(n) => number(schema, n, path),
            Value::String(text) => listed(schema, text, path),
            Value::Array(items) => match schema.get("items") {
                Some(item) => (items.iter().enumerate())
                    .try_for_each(|(i, x)| self.value(item, x, &Path::Index(path, i))),
                None => Ok(()),
            },
            Value::Object(map) => self.object(schema, map, path),
            // serde writes a number that is not finite as null
            Value::Null if !nullable(schema) => {
                Err(SpecError::new(path.text(), "must be a finite number"))
            }
            Value::Null | Value::Bool(_) => Ok(()),
        }
    }

    /// A table's fields, in order; for a tagged enum (`oneOf`), those of
    /// the member its tag names too.
    fn object(&self, schema: &'a Value, map: &Map<String, Value>, path: &Path) -> Check {
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (key, sub) in props {
                if let Some(x) = map.get(key) {
                    self.value(sub, x, &Path::Key(path, key))?;
                }
            }
        }
        if let Some(Value::Array(members)) = schema.get("oneOf") {
            if let Some(m) = members.iter().find(|m| tag_matches(m, map)) {
                return self.object(m, map, path);
            }
        }
        Ok(())
    }
}

/// Does the member `m` of a tagged enum have the tag that `map` has
/// (`{"kind": {"const": "chain"}}` and `{"kind": "chain", ...}`)?
fn tag_matches(m: &Value, map: &Map<String, Value>) -> bool {
    let Some(Value::Object(props)) = m.get("properties") else {
        return false;
    };
    props
        .iter()
        .any(|(k, p)| p.get("const").is_some_and(|c| map.get(k) == Some(c)))
}

fn nullable(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        Some(t) => t == "null",
        None => true,
    }
}

/// A string with `enum` values must be one of them: `must be "none" or
/// "rfc2861", got "rfc7661"`.
fn listed(schema: &Value, text: &str, path: &Path) -> Check {
    let Some(Value::Array(values)) = schema.get("enum") else {
        return Ok(());
    };
    if values.iter().any(|v| v == text) {
        return Ok(());
    }
    let quoted: Vec<String> = values.iter().map(Value::to_string).collect();
    let (last, rest) = quoted.split_last().expect("an enum lists values");
    let known = if rest.is_empty() {
        last.clone()
    } else {
        format!("{} or {last}", rest.join(", "))
    };
    Err(SpecError::new(
        path.text(),
        format!("must be {known}, got {text:?}"),
    ))
}

/// The bounds a number schema declares: (value, inclusive).
#[derive(Clone, Copy)]
struct Bounds {
    lower: Option<(f64, bool)>,
    upper: Option<(f64, bool)>,
}

impl Bounds {
    fn of(schema: &Value) -> Bounds {
        let get = |k: &str| schema.get(k).and_then(Value::as_f64);
        let pick = |incl: &str, excl: &str| match (get(incl), get(excl)) {
            (Some(v), _) => Some((v, true)),
            (None, Some(v)) => Some((v, false)),
            (None, None) => None,
        };
        Bounds {
            lower: pick("minimum", "exclusiveMinimum"),
            upper: pick("maximum", "exclusiveMaximum"),
        }
    }
}

fn number(schema: &Value, n: &Number, path: &Path) -> Check {
    let bounds = Bounds::of(schema);
    let v = n.as_f64().expect("a JSON number");
    let integer = n.is_u64() || n.is_i64();
    match schema.get("x-unit").and_then(Value::as_str) {
        // the clock's own rules (their messages are written once, there)
        Some("s") => return at(path, time("", v, bounds.lower == Some((0.0, true)))),
        Some("bit/s") => return at(path, rate("", v)),
        _ => {}
    }
    let unit = schema.get("x-unit").and_then(Value::as_str);
    match out_of_range(&bounds, v, integer, unit) {
        Some(message) => {
            let shown = if integer { n.to_string() } else { num(v) };
            Err(SpecError::new(
                path.text(),
                format!("must be {message}, got {shown}"),
            ))
        }
        None => Ok(()),
    }
}

/// `check`'s error, at `path`.
fn at(path: &Path, check: Check) -> Check {
    check.map_err(|e| SpecError::new(path.text(), e.message))
}

/// What `v` must be, if it is outside `b`: `> 0`, `in [0, 1)`, `>= 1`,
/// or for an integer with two bounds `in 1..=4` (with the unit). (The
/// Python front says `>= 1` for an integer below its two bounds, as
/// pydantic always did; the core, `in 1..=4`, as it always did.)
fn out_of_range(b: &Bounds, v: f64, integer: bool, unit: Option<&str>) -> Option<String> {
    let below = b
        .lower
        .is_some_and(|(lo, incl)| !(if incl { v >= lo } else { v > lo }));
    let above = b
        .upper
        .is_some_and(|(hi, incl)| !(if incl { v <= hi } else { v < hi }));
    if !(below || above) {
        return None;
    }
    let side = |(x, incl): (f64, bool), upper: bool| {
        let op = match (upper, incl) {
            (false, true) => ">=",
            (false, false) => ">",
            (true, true) => "<=",
            (true, false) => "<",
        };
        format!("{op} {}", num(x))
    };
    Some(match (b.lower, b.upper) {
        (Some((lo, _)), Some((hi, _))) if integer => {
            let unit = unit.map(|u| format!(" {u}")).unwrap_or_default();
            format!("in {}..={}{unit}", num(lo), num(hi))
        }
        (Some((lo, lo_in)), Some((hi, hi_in))) => format!(
            "in {}{}, {}{}",
            if lo_in { '[' } else { '(' },
            num(lo),
            num(hi),
            if hi_in { ']' } else { ')' }
        ),
        (Some(lo), None) => side(lo, false),
        (None, Some(hi)) => side(hi, true),
        (None, None) => unreachable!("outside no bound"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(lower: Option<(f64, bool)>, upper: Option<(f64, bool)>) -> Bounds {
        Bounds { lower, upper }
    }

    #[test]
    fn messages_say_the_range() {
        let unit = bounds(Some((0.0, true)), Some((1.0, false)));
        assert_eq!(out_of_range(&unit, 1.5, false, None).unwrap(), "in [0, 1)");
        assert_eq!(out_of_range(&unit, 0.5, false, None), None);
        let count = bounds(Some((1.0, true)), Some((4.0, true)));
        assert_eq!(out_of_range(&count, 5.0, true, None).unwrap(), "in 1..=4");
        assert_eq!(out_of_range(&count, 0.0, true, None).unwrap(), "in 1..=4");
        assert_eq!(
            out_of_range(&count, 7e4, true, Some("bytes")).unwrap(),
            "in 1..=4 bytes"
        );
        let positive = bounds(Some((0.0, false)), None);
        assert_eq!(out_of_range(&positive, -5.0, false, None).unwrap(), "> 0");
        assert_eq!(
            out_of_range(&positive, f64::NAN, false, None).unwrap(),
            "> 0"
        );
    }

    /// `tcp.cwv`'s declared values are those the sender knows.
    #[test]
    fn declared_cwv_names_are_the_senders() {
        let cwv = &scenario_schema()["$defs"]["TcpSpec"]["properties"]["cwv"]["enum"];
        let names: Vec<&str> = cwv
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(names, ["none", "rfc2861"]);
        assert!(names
            .iter()
            .all(|n| crate::tcp::policy::Cwv::parse(n).is_some()));
        assert!(crate::tcp::policy::Cwv::parse("rfc7661").is_none());
    }

    #[test]
    fn a_scenario_is_checked_field_by_field() {
        let mut s = Scenario::from_json(
            r#"{"duration": 10, "topology": {"kind": "chain", "bottleneck_rate": 8e6,
                "bottleneck_delay": 0.023}, "flows": [{"src": "S1", "dst": "D"}]}"#,
        )
        .unwrap();
        assert_eq!(check_fields(&s), Ok(()));
        s.flows[0].receiver.max_sack_blocks = 9;
        assert_eq!(
            check_fields(&s).unwrap_err().to_string(),
            "flows[0].receiver.max_sack_blocks: must be in 1..=4, got 9"
        );
        s.duration = f64::NAN;
        assert_eq!(
            check_fields(&s).unwrap_err().to_string(),
            "duration: must be a finite number"
        );
    }
}
