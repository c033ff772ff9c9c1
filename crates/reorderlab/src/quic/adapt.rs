//! Loss thresholds that adapt to spurious losses (RFC 9002 Sec. 6.1:
//! "Implementations can detect spurious retransmissions and increase the
//! reordering threshold in packets or time"). A spurious loss here is a
//! packet declared lost that an ACK acknowledges later ([`LostPacket`]).

use super::config::Adapt;
use super::loss::{LossDetection, LostPacket};
use crate::engine::Time;

/// quiche's time threshold after a spurious loss (`recovery/mod.rs`:
/// 5/4, restored by quiche PR 2145).
pub const QUICHE_REORDER_TIME_THRESHOLD: (u64, u64) = (5, 4);

/// Raise the thresholds of `ld` after the spurious losses `spurious`.
pub fn on_spurious(adapt: Adapt, ld: &mut LossDetection, spurious: &[LostPacket], _now: Time) {
    let Some(widest) = spurious.iter().map(|l| l.displacement).max() else {
        return;
    };
    match adapt {
        Adapt::Fixed => {}
        Adapt::Quiche { max } => {
            // quiche PR 470 (`detect_and_remove_acked_packets`): pkt_thresh
            // = max(pkt_thresh, min(largest_acked - pn + 1, 20)), with the
            // largest acknowledged as this ACK left it; time threshold 5/4.
            let lowest = spurious.iter().map(|l| l.pn).min().unwrap_or(0);
            let gap = ld.largest_acked.unwrap_or(lowest).saturating_sub(lowest);
            let t = &mut ld.thresholds;
            t.packet = t.packet.max((gap + 1).min(max));
            t.time = QUICHE_REORDER_TIME_THRESHOLD;
        }
        Adapt::Quinn { max } => {
            // quinn PR 2713: the largest displacement of a packet declared
            // lost and acknowledged later ("observed reordering") plus one
            // becomes the threshold when it is above the configured one.
            let t = &mut ld.thresholds;
            t.packet = t.packet.max((widest + 1).min(max));
        }
    }
}
