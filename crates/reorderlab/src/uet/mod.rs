//! An Ultra Ethernet transport (UET) sender and receiver on the
//! simulator's engine: the fabric's own out-of-order-tolerant transport
//! (issue 39), after the UE 1.0 transport as uet-htsim models it
//! (`docs/fabrics.md`, "The UET sender").
//!
//! * [`config`]: constants (SLEEK's 1.5 x cwnd and 5 packets, probe
//!   timing, RTO, ACK coalescing) and the variant registry;
//! * [`ack`]: ACK / NACK frames (cumulative ACK, SACK bitmap,
//!   out-of-order count) and the table that carries them;
//! * [`receiver`]: the ACK policy, NACKs for trimmed headers, probes'
//!   answers;
//! * [`sender`]: PSNs, SLEEK, NACK retransmission, probes, the RTO and
//!   the window;
//! * [`truth`]: which retransmissions were spurious;
//! * [`conn`]: the two ends as the simulator holds them, and results.

pub mod ack;
pub mod config;
pub mod conn;
pub mod receiver;
pub mod sender;
pub mod truth;

#[cfg(test)]
mod tests;

pub use config::UetConfig;
pub use conn::{UetEnds, UetFlowResult};
