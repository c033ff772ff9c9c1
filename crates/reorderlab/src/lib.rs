//! reorderlab: a fast, deterministic packet-level simulator of TCP loss
//! detection and recovery when the network reorders, delays or drops
//! packets.
//!
//! Layout (docs/architecture.md): [`engine`] (time, events, timers, random streams),
//! [`net`] (packets, links, queues, routing, topologies), [`impair`]
//! (impairment elements on links), [`tcp`] (receiver, sender policies,
//! variants), [`app`] (traffic sources), [`metrics`] (results), [`spec`]
//! (the scenario format) and [`sim`] (the world and its event loop); `emu`
//! (Linux) applies the same network to real packets through TUN devices.

pub mod app;
pub mod bench;
pub mod conformance;
#[cfg(target_os = "linux")]
pub mod emu;
pub mod engine;
pub mod impair;
pub mod metrics;
pub mod net;
pub mod num;
pub mod quic;
pub mod result_codec;
pub mod sim;
pub mod spec;
pub mod tcp;
pub mod uet;

use serde::Serialize;

pub use sim::{engine_version, RunResult, Simulation};
pub use spec::{Scenario, SpecError};

/// Why a run gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// An invalid scenario, or a limit reached during the run.
    Spec(SpecError),
    /// The caller's stop request (Ctrl-C): nothing of the run is kept.
    Interrupted,
}

impl From<SpecError> for RunError {
    fn from(e: SpecError) -> RunError {
        RunError::Spec(e)
    }
}

/// Run a scenario. `seed` overrides the scenario's own seed.
pub fn run(scenario: &Scenario, seed: Option<u64>) -> Result<RunResult, SpecError> {
    match run_interruptible(scenario, seed, || false) {
        Ok(r) => Ok(r),
        Err(RunError::Spec(e)) => Err(e),
        Err(RunError::Interrupted) => unreachable!("never asked to stop"),
    }
}

/// Run a scenario, asking `stop` every few thousand events whether to give
/// up ([`sim::event_loop::CHECK_EVERY`]).
pub fn run_interruptible(
    scenario: &Scenario,
    seed: Option<u64>,
    stop: impl FnMut() -> bool,
) -> Result<RunResult, RunError> {
    let seed = seed.unwrap_or(scenario.seed);
    let mut sim = Simulation::new(scenario, seed)?;
    match sim.run_checked(stop) {
        Ok(()) => Ok(sim.result()),
        Err(sim::Stopped::Limit(e)) => Err(RunError::Spec(e)),
        Err(sim::Stopped::Interrupted) => Err(RunError::Interrupted),
    }
}

/// Parse and validate a scenario given as JSON (what the Python front
/// calls for every scenario it builds: the one place the cross-field rules
/// and the limits are checked).
pub fn validate_json(scenario_json: &str) -> Result<(), SpecError> {
    Scenario::from_json(scenario_json)?.validate()
}

/// Run a scenario given as JSON and return the result as JSON.
pub fn run_json(scenario_json: &str, seed: Option<u64>) -> Result<String, SpecError> {
    match run_json_interruptible(scenario_json, seed, || false) {
        Ok(r) => Ok(r),
        Err(RunError::Spec(e)) => Err(e),
        Err(RunError::Interrupted) => unreachable!("never asked to stop"),
    }
}

/// [`run_json`], asking `stop` every few thousand events whether to give up.
pub fn run_json_interruptible(
    scenario_json: &str,
    seed: Option<u64>,
    stop: impl FnMut() -> bool,
) -> Result<String, RunError> {
    let scenario = Scenario::from_json(scenario_json)?;
    let result = run_interruptible(&scenario, seed, stop)?;
    serde_json::to_string(&result)
        .map_err(|e| RunError::Spec(SpecError::new("result", e.to_string())))
}

/// [`run_json_interruptible`], the result in the form the Python results
/// store keeps it: its JSON text, or for a result of `compress_from`
/// characters or more with bulky parts, its summary and its encoded form
/// ([`result_codec::pack`]).
pub fn run_packed_interruptible(
    scenario_json: &str,
    seed: Option<u64>,
    compress_from: usize,
    stop: impl FnMut() -> bool,
) -> Result<result_codec::Packed, RunError> {
    let scenario = Scenario::from_json(scenario_json)?;
    let result = run_interruptible(&scenario, seed, stop)?;
    result_codec::pack(result, compress_from)
        .map_err(|e| RunError::Spec(SpecError::new("result", e.to_string())))
}

/// Why a run that writes packet captures failed.
#[derive(Debug)]
pub enum CaptureRunError {
    /// The scenario is invalid.
    Spec(SpecError),
    /// A capture file could not be created or written (the message names it).
    Io(std::io::Error),
}

impl std::fmt::Display for CaptureRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureRunError::Spec(e) => e.fmt(f),
            CaptureRunError::Io(e) => e.fmt(f),
        }
    }
}

/// Run a scenario and write its `record.pcap` captures into `dir` (one
/// file per tap, see [`metrics::pcap`]). The result is the one [`run`]
/// gives: a capture only observes.
pub fn run_with_capture(
    scenario: &Scenario,
    seed: Option<u64>,
    dir: &std::path::Path,
) -> Result<(RunResult, Vec<metrics::pcap::CaptureSummary>), CaptureRunError> {
    let seed = seed.unwrap_or(scenario.seed);
    let mut sim = Simulation::new(scenario, seed).map_err(CaptureRunError::Spec)?;
    sim.capture_to(&scenario.record.pcap, dir)
        .map_err(CaptureRunError::Io)?;
    match sim.run_checked(|| false) {
        Ok(()) => {}
        Err(sim::Stopped::Limit(e)) => return Err(CaptureRunError::Spec(e)),
        Err(sim::Stopped::Interrupted) => unreachable!("never asked to stop"),
    }
    let captures = sim.finish_capture().map_err(CaptureRunError::Io)?;
    Ok((sim.result(), captures))
}

/// [`run_with_capture`] of a scenario given as JSON: (result JSON, JSON
/// list of what each capture file holds).
pub fn run_json_with_capture(
    scenario_json: &str,
    seed: Option<u64>,
    dir: &std::path::Path,
) -> Result<(String, String), CaptureRunError> {
    let scenario = Scenario::from_json(scenario_json).map_err(CaptureRunError::Spec)?;
    let (result, captures) = run_with_capture(&scenario, seed, dir)?;
    let text =
        |e: serde_json::Error| CaptureRunError::Spec(SpecError::new("result", e.to_string()));
    Ok((
        serde_json::to_string(&result).map_err(text)?,
        serde_json::to_string(&captures).map_err(text)?,
    ))
}

#[derive(Serialize)]
struct Described {
    name: &'static str,
    description: &'static str,
    source: &'static str,
    /// Other names the registry accepts for this entry (variants only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aliases: Vec<&'static str>,
    /// Variants: the congestion control of the variant's own paper
    /// ([`tcp::variants::VariantInfo::paper_cc`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    paper_cc: Option<&'static str>,
}

/// The registered sender variants as a JSON list.
pub fn variants_json() -> String {
    let v: Vec<Described> = tcp::variants::VARIANTS
        .iter()
        .map(|v| Described {
            name: v.name,
            description: v.description,
            source: v.source,
            aliases: tcp::variants::ALIASES
                .iter()
                .filter(|(_, target)| *target == v.name)
                .map(|(alias, _)| *alias)
                .collect(),
            paper_cc: Some(v.paper_cc),
        })
        .chain(quic::variants::QUIC_VARIANTS.iter().map(|v| Described {
            name: v.name,
            description: v.description,
            source: v.source,
            aliases: Vec::new(),
            // RFC 9002 Sec. 7's NewReno
            paper_cc: Some("reno"),
        }))
        .chain(uet::config::UET_VARIANTS.iter().map(|v| Described {
            name: v.name,
            description: v.description,
            source: v.source,
            aliases: Vec::new(),
            // its own window (uet-htsim's DCTCP rule); `cc` stays the default
            paper_cc: Some("reno"),
        }))
        .collect();
    serde_json::to_string(&v).expect("serialisable")
}

/// The registered congestion controls as a JSON list.
pub fn congestion_controls_json() -> String {
    let v: Vec<Described> = tcp::cc::CONTROLLERS
        .iter()
        .map(|c| Described {
            name: c.name,
            description: c.description,
            source: c.source,
            aliases: c.aliases.to_vec(),
            paper_cc: None,
        })
        .collect();
    serde_json::to_string(&v).expect("serialisable")
}

/// The impairment models as a JSON list.
pub fn impairments_json() -> String {
    #[derive(Serialize)]
    struct Imp {
        kind: &'static str,
        description: &'static str,
        params: &'static str,
    }
    let v: Vec<Imp> = impair::IMPAIRMENTS
        .iter()
        .map(|i| Imp {
            kind: i.kind,
            description: i.description,
            params: i.params,
        })
        .collect();
    serde_json::to_string(&v).expect("serialisable")
}

pub use bench::{bench_json, bench_names};
