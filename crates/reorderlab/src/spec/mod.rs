//! Scenario specification: the plain-data description of one simulation run.
//!
//! This is the contract between the Python front and the Rust core, and
//! the one place where each scenario field is declared: its type, its
//! default (serde), its range (`#[schemars(...)]`, see [`schema`]) and a
//! one-line doc. The core exports them as a JSON Schema
//! ([`schema::scenario_schema`], `_core.scenario_schema()`), from which the
//! pydantic models of the Python front and the field tables of
//! `docs/scenario-format.md` are generated (`python -m
//! reorderlab._schema_gen`). Units are SI: rates in bit/s, times in seconds
//! (converted to integer nanoseconds on build), sizes in bytes, windows in
//! segments.
//!
//! [`Scenario::validate`] checks every field and names the bad one, so a
//! scenario that reaches the builder never panics it: first each number
//! against its declared range ([`fields`]), then the rules that join
//! fields (`validate.rs`, `check_network.rs`) and the limits ([`limits`]).

mod check_fabric;
mod check_network;
pub(crate) mod check_quic;
pub(crate) mod check_uet;
mod check_workload;
mod error;
mod fabric;
mod fields;
mod flow;
mod impairment;
pub mod limits;
mod network;
mod quic;
mod random;
mod ranges;
mod record;
mod scenario;
pub mod schema;
mod traffic;
mod validate;
mod workload;

pub use error::{num, SpecError};
pub use fabric::{LinkAction, LinkEvent, LoadBalancing};
pub use flow::{
    DelayedAck, FlowSpec, LongSamplesSpec, ReceiverSpec, RtoEstimatorSpec, RttTimingSpec, TcpSpec,
    UndoResponseSpec,
};
pub use impairment::{
    CopiesDropped, ImpairmentModel, ImpairmentSpec, MultipathSpec, Position, ReorderAnchor,
};
pub use network::{LinkSpec, QueueSpec, Topology};
pub use quic::QuicSpec;
pub use random::RandomVar;
pub use record::{PcapTapSpec, RecordSpec, SERIES_NAMES};
pub use scenario::Scenario;
pub use traffic::{TrafficKind, TrafficSpec};
pub use workload::{Pattern, SizeDistribution, WorkloadSpec};
