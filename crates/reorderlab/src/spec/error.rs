//! The scenario's error: the path of the field and what is wrong with it,
//! and the helpers every check writes its message with. A leaf of `spec/`:
//! every other module of the format may use it.

use std::fmt;

/// A scenario error: the field path and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub path: String,
    pub message: String,
}

impl SpecError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for SpecError {}

pub type Check = Result<(), SpecError>;

/// A number as the Python front writes it in messages (`format_value`): a
/// whole number below 1e16 without a fraction (`-5`, `100`), else the
/// shortest text that reads back to the same double, with Python's exponent
/// form (`1e-12`, `1.5e+16`), `inf`, `nan`.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v.fract() == 0.0 && v.abs() < 1e16 {
        return format!("{}", v as i64);
    }
    let sci = format!("{v:e}"); // shortest digits: "1.5e16", "1e-12"
    let (mantissa, e) = sci.split_once('e').expect("`{:e}` has an exponent");
    let e: i32 = e.parse().expect("integer exponent");
    if (-4..16).contains(&e) {
        return format!("{v}");
    }
    format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// Names for an error message, in order, the first 20 only.
pub(super) fn known_list(names: &[String]) -> String {
    const SHOWN: usize = 20;
    let mut out: Vec<&str> = names.iter().take(SHOWN).map(String::as_str).collect();
    let more = names.len().saturating_sub(SHOWN);
    let tail = format!("and {more} more");
    if more > 0 {
        out.push(&tail);
    }
    out.join(", ")
}
