//! QUIC loss recovery (RFC 9002) on the simulator's engine, links and
//! impairments, with the project's congestion controllers and pacing.
//!
//! * [`ack`]: ACK frames with ranges and ack_delay, the receiver's range
//!   set, the table that carries frames across the network;
//! * [`receiver`]: the ACK policy of RFC 9000 Sec. 13.2, stream delivery,
//!   the optional duplicate-detection window;
//! * [`rtt`]: the RTT estimate (RFC 9002 Sec. 5);
//! * [`loss`]: loss detection by packet and time threshold, the loss
//!   detection timer and the probe timeout (Sec. 6, Appendix A);
//! * [`congestion`]: the congestion response around a controller, the
//!   recovery period, persistent congestion (Sec. 7, Appendix B);
//! * [`adapt`]: thresholds that adapt to spurious losses;
//! * [`rate`]: BBR through delivery-rate samples;
//! * [`sent`]: packets by packet number (the sent and the lost ones);
//! * [`sender`]: packets that are never renumbered, probes, pacing;
//! * [`truth`]: which declared losses were spurious;
//! * [`config`], [`variants`]: settings and the registry;
//! * [`conn`]: the two ends as the simulator holds them.

pub mod ack;
pub mod adapt;
pub mod config;
pub mod congestion;
pub mod conn;
pub mod loss;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod sender;
pub mod sent;
pub mod truth;
pub mod variants;

#[cfg(test)]
mod tests;

pub use config::QuicConfig;
pub use conn::{QuicEnds, QuicFlowResult};
