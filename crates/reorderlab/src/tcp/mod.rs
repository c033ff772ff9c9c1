//! TCP: the receiver, the sender and its policies.

pub mod aix;
pub mod cc;
pub mod cwv;
pub mod dsack;
pub mod dupthresh;
pub mod er;
pub mod frto;
pub mod intervals;
pub mod ncr;
pub mod policy;
pub mod prr;
pub mod rack;
pub mod receiver;
pub mod reordering;
pub mod rto;
pub mod rtor;
pub mod scoreboard;
pub mod sender;
pub mod tcp_pr;
pub mod tlp;
pub mod truth;
pub mod variants;

pub use receiver::{Receiver, ReceiverConfig};
pub use sender::{CaState, Sender, SenderConfig};
