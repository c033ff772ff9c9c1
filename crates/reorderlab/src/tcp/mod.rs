//! TCP: the receiver, and the sender built from components
//! (docs/architecture.md, "The sender"). From the bottom up:
//!
//! * [`policy`]: the configuration enums a variant sets (which detection,
//!   which response, which timers ...), and [`config`]: the
//!   [`SenderConfig`] they make up;
//! * [`tcb`]: the transmission control block every component reads and
//!   changes, with the sender's counters ([`stats`]);
//! * the components: [`detection`] (duplicate ACKs, RACK, TCP-PR),
//!   [`response`] (Reno, NewReno, SACK pipe, PRR, TCP-Aix, TCP-PR),
//!   [`timers`] (RTO, its restart, the loss probe), [`limited`] (limited
//!   transmit, TCP-NCR's [`ncr`]), [`undo`], [`cc`] (growth and reduction
//!   factor), [`cwv`], [`frto`], with the scoreboard, DSACK and ground-truth
//!   bookkeeping beside them;
//! * [`sender`]: the sender's work (ACK path, fast recovery, sending,
//!   timeout, probe, undo), which calls the components' hooks;
//! * [`variants`]: the registry of named compositions.
//!
//! Imports go downwards only: no component imports [`sender`] or
//! [`variants`], and `scripts/import_graph.py` finds no cycle.

pub mod cc;
pub mod config;
pub mod cwv;
pub mod detection;
pub mod dsack;
pub mod frto;
pub mod intervals;
pub mod kernel;
pub mod limited;
pub mod minmax;
pub mod ncr;
pub mod pacing;
pub mod paws;
pub mod policy;
pub mod rate;
pub mod receiver;
pub mod response;
pub mod scoreboard;
pub mod sender;
pub mod seq_map;
pub mod stats;
pub mod tcb;
pub mod timers;
pub mod truth;
pub mod undo;
pub mod variants;

pub use config::SenderConfig;
pub use receiver::{Receiver, ReceiverConfig};
pub use sender::Sender;
pub use tcb::CaState;
