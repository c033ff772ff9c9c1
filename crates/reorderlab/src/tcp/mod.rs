//! TCP: the receiver, and the sender built from components (docs/architecture.md,
//! "TCP"; `docs/architecture.md`):
//!
//! * [`sender`]: the transmission control block and the sender's work (ACK
//!   path, recovery, sending, timeout, probe, undo);
//! * [`detection`]: loss detection (duplicate ACKs, RACK, TCP-PR);
//! * [`response`]: loss response (Reno, NewReno, SACK pipe, PRR, TCP-Aix,
//!   TCP-PR);
//! * [`timers`]: RTO estimation and restart, the loss probe;
//! * [`cc`]: congestion controllers (growth and reduction factor);
//! * [`policy`]: the configuration enums a variant sets, and
//!   [`variants`]: the registry of named compositions.

pub mod cc;
pub mod cwv;
pub mod detection;
pub mod dsack;
pub mod frto;
pub mod intervals;
pub mod ncr;
pub mod policy;
pub mod receiver;
pub mod response;
pub mod scoreboard;
pub mod sender;
pub mod seq_map;
pub mod timers;
pub mod truth;
pub mod variants;

pub use receiver::{Receiver, ReceiverConfig};
pub use sender::{CaState, Sender, SenderConfig};
