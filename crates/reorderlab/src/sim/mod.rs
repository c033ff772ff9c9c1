//! A simulation: the world built from a validated [`Scenario`](crate::Scenario), and the event
//! loop that runs it.
//!
//! * [`world`]: what a run is made of (the [`Simulation`]), and
//!   [`graph`]: its network (nodes, links, impairment elements, routing);
//! * [`build`]: the world from the scenario (topology, impairments, flows,
//!   traffic generators, recorders);
//! * [`event_loop`]: the loop, its dispatch and the endpoints' timers;
//! * [`walk`]: a packet's way through links and impairment elements, shared
//!   with the emulator, and [`path`]: what the simulator does at a node;
//! * [`traffic`]: flows opened during the run by traffic generators;
//! * [`results`]: the run's results and its conservation invariants;
//! * [`capture`]: packet captures (`record.pcap`);
//! * [`revision`]: the model revision, part of every cache key.

mod build;
mod capture;
pub mod event_loop;
pub mod graph;
mod path;
pub mod paths;
mod quic;
mod results;
pub mod revision;
mod traffic;
mod uet;
pub mod walk;
mod world;

pub(crate) use build::receiver_config;
pub use event_loop::Stopped;
pub use results::RunResult;
pub use revision::{engine_version, MODEL_REVISION};
pub use world::Simulation;
