//! Emulation: the scenario's path applied to real packets on the wall clock.
//!
//! Two TUN devices join a sender-side and a receiver-side network namespace
//! (set up by the Python front, `reorderlab emulate`). Every IPv4 packet
//! read from one device enters the scenario's network at its host's node,
//! goes through the simulator's own links, queues, impairment elements,
//! routing and multipath splitters ([`network`]), and is written to the
//! other device when the model delivers it to the destination node. The
//! model runs on the monotonic clock: a packet read at wall time t enters
//! the model at t, and each model event is handled at its own scheduled
//! time; the emulator sleeps (`ppoll`, real-time priority) until the next
//! event or the next packet.
//!
//! What is emulated is only the network: the TCP endpoints are the real
//! kernel's. The emulator reports the path's counters in the simulator's
//! schema (links, impairments), what it saw of each flow (packets,
//! retransmissions, ground-truth spurious retransmissions, reordering at
//! the receiver), and its own precision ([`selfcheck`]). It writes a pcap of
//! each side ([`pcap`]).

pub mod check;
pub mod flows;
pub mod network;
pub mod pcap;
pub mod selfcheck;
pub mod sys;
pub mod wire;

mod emulator;

pub use check::check;
pub use emulator::{run, run_json, EmuConfig, EmuReport};
