//! The scenario: one simulation run, the root of the format, and its
//! parsing from JSON with errors that name the field.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::SpecError;
use super::flow::FlowSpec;
use super::impairment::{ImpairmentSpec, MultipathSpec};
use super::network::Topology;
use super::ranges::{seconds, seconds_or_zero};
use super::record::RecordSpec;
use super::traffic::TrafficSpec;
use super::workload::WorkloadSpec;

/// One simulation run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free text, used in messages and results.
    #[serde(default = "default_name")]
    pub name: String,
    /// Simulated time.
    #[schemars(transform = seconds)]
    pub duration: f64,
    /// Default seed; `run(scenario, seed)` overrides it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Throughput and other rate metrics are measured from this time on; < duration.
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub warmup: f64,
    /// The network: a builder (`chain`, `dumbbell`, `parking_lot`, `fat_tree`) or explicit links.
    pub topology: Topology,
    /// Impairment elements on links (`docs/impairments.md`).
    #[serde(default)]
    pub impairments: Vec<ImpairmentSpec>,
    /// Per-packet multipath splitters.
    #[serde(default)]
    pub multipath: Vec<MultipathSpec>,
    /// Long-lived or finite flows; may be empty when there is a traffic generator.
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Generated traffic: flows that start and end during the run (`docs/traffic.md`).
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
    /// Fabric workloads: permutation, incast or all-to-all flows between a fat-tree's hosts (`docs/fabrics.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<WorkloadSpec>,
    /// What to record besides the per-flow counters.
    #[serde(default)]
    pub record: RecordSpec,
}

fn default_name() -> String {
    "scenario".to_string()
}
fn default_seed() -> u64 {
    1
}

impl Scenario {
    /// Parse a scenario from JSON (what the Python front sends).
    ///
    /// An error names the field where parsing stopped (`flows[0].tcp.mss:
    /// invalid type: string "x", expected u32`); a text that is not JSON at
    /// all is `scenario: <what> at line L column C`.
    pub fn from_json(text: &str) -> Result<Scenario, SpecError> {
        // The fast parser first; the one that tracks the path only to
        // explain a failure.
        serde_json::from_str(text).map_err(|_| parse_error(text))
    }
}

/// The error of parsing `text` as a scenario, with the path of the field
/// where it happened.
fn parse_error(text: &str) -> SpecError {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed: Result<Scenario, _> = serde_path_to_error::deserialize(&mut de);
    let (path, inner) = match parsed {
        Ok(_) => match de.end() {
            Ok(()) => return SpecError::new("scenario", "could not be parsed"),
            Err(e) => (String::new(), e),
        },
        Err(e) => (e.path().to_string(), e.into_inner()),
    };
    let text = inner.to_string();
    let path = path.trim_start_matches('.');
    if path.is_empty() || inner.is_syntax() || inner.is_eof() {
        let at = if path.is_empty() { "scenario" } else { path };
        return SpecError::new(at, text);
    }
    // the position in a one-line JSON text says nothing the path does not
    let message = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => &text,
    };
    SpecError::new(path, message)
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    const BASE: &str = r#"{"duration": 10, "topology": {"kind": "chain", "bottleneck_rate": 8e6,
        "bottleneck_delay": 0.023}, "flows": [{"src": "S1", "dst": "D", "receiver": RECV}]}"#;

    /// Issue 25: "expected value at line 1 column 464" named no field.
    #[test]
    fn parse_errors_name_the_field() {
        let e = Scenario::from_json(&BASE.replace("RECV", r#"{"max_sack_blocks": 300}"#))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "flows[0].receiver.max_sack_blocks: invalid value: integer `300`, expected u8"
        );
        let e = Scenario::from_json(&BASE.replace("RECV", r#"{"delack_timeout": NaN}"#))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("flows[0].receiver.delack_timeout: expected value"),
            "{e}"
        );
        let e = Scenario::from_json(r#"{"duration": "#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("duration: EOF while parsing"), "{e}");
        let e = Scenario::from_json("").unwrap_err().to_string();
        assert!(e.starts_with("scenario: EOF while parsing"), "{e}");
        let e = Scenario::from_json(&BASE.replace("RECV", "{}").replace("10,", "\"ten\","))
            .unwrap_err();
        assert_eq!(e.path, "duration");
    }
}
