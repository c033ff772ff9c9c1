//! A QUIC flow's settings: the sender's and the receiver's, resolved from
//! a variant ([`super::variants`]) and the scenario's `quic` overrides.

use super::loss::Thresholds;
use crate::engine::time::ms;
use crate::engine::Time;

/// max_ack_delay (RFC 9000 Sec. 18.2 default: 25 ms).
pub const MAX_ACK_DELAY: Time = ms(25);
/// RFC 9000 Sec. 13.2.2: an ACK at least every second ack-eliciting packet.
pub const ACK_ELICITING_THRESHOLD: u32 = 2;
/// ACK ranges a receiver keeps and reports (quinn's `MAX_ACK_BLOCKS`).
pub const MAX_ACK_RANGES: usize = 64;

/// How a sender adapts its loss thresholds to spurious losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adapt {
    /// RFC 9002's constants.
    Fixed,
    /// quiche (PR 470): the packet threshold rises to the displacement of
    /// a spurious loss plus one, at most `max` (20).
    Quiche { max: u64 },
    /// quinn PR 2713: the packet threshold follows the largest
    /// displacement of a spurious loss seen (plus one), at most `max`.
    Quinn { max: u64 },
    /// quic-go PR 5734 (unmerged): on an ACK that raises the largest
    /// acknowledged, the packet threshold rises to the largest reordering
    /// of its late-acknowledged packets (largest acknowledged - packet
    /// number) plus one, at most `max` (64); the loss delay gains a
    /// cushion, the time reordering beyond it, at most one smoothed RTT.
    QuicGo { max: u64 },
}

#[derive(Debug, Clone, PartialEq)]
pub struct QuicConfig {
    /// Variant name, as results show it.
    pub variant: String,
    /// Packet size on the wire (max_datagram_size), bytes.
    pub mss: u32,
    pub ack_size: u32,
    /// Chunks (packets' worth of stream data) to send; none: bulk.
    pub segments: Option<u64>,
    pub thresholds: Thresholds,
    pub adapt: Adapt,
    /// Undo the window reduction of a recovery period whose first lost
    /// packet turns out spurious.
    pub undo: bool,
    pub max_ack_delay: Time,
    pub ack_eliciting_threshold: u32,
    pub max_ack_ranges: usize,
    /// The receiver discards packets this many below the largest it
    /// received as possible duplicates (quinn issue 2710); none: never.
    pub dedup_window: Option<u64>,
    /// Pace the sending (the controller's rate, or 1.25 cwnd / srtt).
    pub pacing: bool,
}

impl Default for QuicConfig {
    fn default() -> Self {
        QuicConfig {
            variant: "QUIC".into(),
            mss: 1500,
            ack_size: 50,
            segments: None,
            thresholds: Thresholds::default(),
            adapt: Adapt::Fixed,
            undo: false,
            max_ack_delay: MAX_ACK_DELAY,
            ack_eliciting_threshold: ACK_ELICITING_THRESHOLD,
            max_ack_ranges: MAX_ACK_RANGES,
            dedup_window: None,
            pacing: false,
        }
    }
}
