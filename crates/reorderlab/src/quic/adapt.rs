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

/// The ACK that acknowledged the spurious losses: its largest
/// acknowledged and ACK delay.
#[derive(Debug, Clone, Copy)]
pub struct LateAck {
    pub largest: u64,
    pub ack_delay: Time,
}

/// Raise the thresholds of `ld` after the spurious losses `spurious`,
/// acknowledged by `ack` at `now`.
pub fn on_spurious(
    adapt: Adapt,
    ld: &mut LossDetection,
    spurious: &[LostPacket],
    ack: LateAck,
    now: Time,
) {
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
        Adapt::QuicGo { max } => quic_go(max, ld, spurious, ack, now),
    }
}

/// quic-go PR 5734 (`detectSpuriousLosses`): only for an ACK whose
/// largest is the largest acknowledged ("if the ACK was not reordered");
/// packet reordering = the ACK's largest - the packet number (quic-go
/// skips packet numbers and does not count them; this sender skips none),
/// time reordering = the ACK's time less min(ack_delay, max_ack_delay)
/// since the packet's sending. The threshold rises to the largest packet
/// reordering + 1 (at most `max`); the cushion to the largest time
/// reordering beyond kTimeThreshold x max(smoothed_rtt, latest_rtt), at
/// most smoothed_rtt (`detectLostPackets` adds it to the loss delay).
fn quic_go(max: u64, ld: &mut LossDetection, spurious: &[LostPacket], ack: LateAck, now: Time) {
    if ld.largest_acked != Some(ack.largest) {
        return;
    }
    let ack_time = now.saturating_sub(ack.ack_delay.min(ld.max_ack_delay));
    let packets = spurious.iter().map(|l| ack.largest.saturating_sub(l.pn));
    let time = spurious
        .iter()
        .map(|l| ack_time.saturating_sub(l.time_sent));
    let (packets, time) = (packets.max().unwrap_or(0), time.max().unwrap_or(0));
    let threshold = ld.thresholds.packet.max((packets + 1).min(max));
    let cushion = time.saturating_sub(ld.time_threshold_delay());
    let t = &mut ld.thresholds;
    t.packet = threshold;
    if cushion > t.cushion {
        t.cushion = cushion.min(ld.rtt.smoothed);
    }
}
