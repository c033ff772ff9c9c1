//! Network elements: packets, links with queues, routing and topology builders.

pub mod balance;
pub mod changes;
pub mod fattree;
pub mod fifo;
pub mod link;
pub mod multipath;
pub mod packet;
pub mod queue;
pub mod reps;
pub mod routing;
pub mod topology;

pub use link::{Admit, Link, LinkStats};
pub use packet::{Packet, PacketKind, SackBlocks};
pub use queue::QueueDisc;
pub use routing::{Routes, RoutingTable};
pub use topology::{build_topology, BuiltTopology};
#[cfg(test)]
mod fattree_tests;
