//! A QUIC flow's settings (`flows[i].quic`): overrides of its QUIC
//! variant's ([`crate::quic::variants`]). A flow is QUIC when its
//! `variant` names a QUIC variant; these settings are for those only.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ranges::{seconds_or_zero, unit, within};

/// QUIC loss detection and ACK settings. `None` = the variant's default.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuicSpec {
    /// kPacketThreshold (RFC 9002 Sec. 6.1.1: 3); a very large value (e.g. 4294967295) turns packet-threshold detection off.
    #[serde(default)]
    #[schemars(range(min = 1), transform = unit("packets"))]
    pub packet_threshold: Option<u64>,
    /// kTimeThreshold as a multiple of max(smoothed_rtt, latest_rtt) (RFC 9002 Sec. 6.1.2: 1.125).
    #[serde(default)]
    #[schemars(transform = within(">= 1"))]
    pub time_threshold: Option<f64>,
    /// The receiver's max_ack_delay (RFC 9000 Sec. 18.2: 0.025).
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub max_ack_delay: Option<f64>,
    /// The receiver ACKs at least every this many ack-eliciting packets (RFC 9000 Sec. 13.2.2: 2).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000000))]
    pub ack_eliciting_threshold: Option<u32>,
    /// ACK ranges the receiver keeps and sends per ACK frame (64).
    #[serde(default)]
    #[schemars(range(min = 1, max = 4096))]
    pub max_ack_ranges: Option<u32>,
    /// The receiver discards packets this many or more below the largest received as possible duplicates (quinn issue 2710: 129); none: no window.
    #[serde(default)]
    #[schemars(range(min = 1), transform = unit("packets"))]
    pub dedup_window: Option<u64>,
    /// Flow control as a window: the receiver's credit (MAX_DATA, RFC 9000 Sec. 4.1) is the stream data it has in order plus this many packets' worth, so the sender sends new data only below the in-order acknowledged point plus this many packets (the QUIC counterpart of tcp.max_window); none: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), transform = unit("packets"))]
    pub max_window: Option<u64>,
    /// Undo the window reduction of a recovery period whose first lost packet is acknowledged later (the variant's default).
    #[serde(default)]
    pub undo: Option<bool>,
    /// Pace at 1.25 cwnd / smoothed_rtt (RFC 9002 Sec. 7.7), or BBR's rate; none: the variant's (off, BBR always paces).
    #[serde(default)]
    pub pacing: Option<bool>,
}
