//! reorderlab: a fast, deterministic packet-level simulator of TCP loss
//! detection and recovery when the network reorders, delays or drops
//! packets.
//!
//! Layout (DESIGN.md): [`engine`] (time, events, timers, random streams),
//! [`net`] (packets, links, queues, routing, topologies), [`impair`]
//! (impairment elements on links), [`tcp`] (receiver, sender policies,
//! variants), [`app`] (traffic sources), [`metrics`] (results), [`spec`]
//! (the scenario format) and [`sim`] (the world and its event loop).

pub mod app;
pub mod bench;
pub mod engine;
pub mod impair;
pub mod metrics;
pub mod net;
pub mod sim;
pub mod spec;
pub mod tcp;

use serde::Serialize;

pub use sim::{RunResult, Simulation};
pub use spec::{Scenario, SpecError};

/// Crate version plus model revision: part of every cache key.
pub fn engine_version() -> String {
    format!("{}+m{}", env!("CARGO_PKG_VERSION"), sim::MODEL_REVISION)
}

/// Run a scenario. `seed` overrides the scenario's own seed.
pub fn run(scenario: &Scenario, seed: Option<u64>) -> Result<RunResult, SpecError> {
    let seed = seed.unwrap_or(scenario.seed);
    let mut sim = Simulation::new(scenario, seed)?;
    sim.run();
    Ok(sim.result())
}

/// Run a scenario given as JSON and return the result as JSON.
pub fn run_json(scenario_json: &str, seed: Option<u64>) -> Result<String, SpecError> {
    let scenario = Scenario::from_json(scenario_json)?;
    let result = run(&scenario, seed)?;
    serde_json::to_string(&result).map_err(|e| SpecError::new("result", e.to_string()))
}

#[derive(Serialize)]
struct Described {
    name: &'static str,
    description: &'static str,
    source: &'static str,
    /// Other names the registry accepts for this entry (variants only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aliases: Vec<&'static str>,
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
        })
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
