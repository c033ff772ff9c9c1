//! Undo by timestamps, as Linux does it (3.17 and current kernels alike):
//! `tcp_packet_delayed` is the detection of RFC 3522 Sec. 2 (Eifel): an
//! ACK whose echoed TSval (RFC 7323 TSecr) is older than the first
//! retransmission of the episode (`tp->retrans_stamp`) was sent for an
//! original transmission, so the hole it filled was reordered, not lost.
//!
//! In fast recovery, on an ACK that advances SND.UNA:
//! * below the recovery point (`tcp_try_undo_partial`): the reordering is
//!   measured, from the old SND.UNA to the highest SACKed segment
//!   (3.17 `tcp_update_reordering(sk, tcp_fackets_out(tp) + acked, 1)`,
//!   current `tcp_check_sack_reordering(sk, prior_snd_una, 1)`), and the
//!   window reduction is undone if no retransmission is outstanding (with
//!   one outstanding, current kernels retransmit nothing and mark nothing
//!   lost on that ACK, only new data goes out), and
//!   Linux forgets every loss mark (`tcp_undo_cwnd_reduction(sk, true)`:
//!   the segments RACK had marked are not retransmitted, and RACK does not
//!   look at them again, [`crate::tcp::scoreboard::Scoreboard::unmark_lost_out_of_order`]);
//! * at or above it (`tcp_try_undo_recovery` through `tcp_may_undo`): the
//!   reduction is undone.
//!
//! The undo is the one DSACK evidence triggers ([`super::spurious`]).

use crate::engine::Time;
use crate::tcp::tcb::CaState;

use super::Sender;

impl Sender {
    /// An ACK advanced SND.UNA from `una_before` to `ack`, echoing `tsecr`.
    /// Returns whether a current kernel holds its retransmissions on this
    /// ACK: a partial ACK for a delayed original while retransmissions are
    /// out makes `tcp_try_undo_partial` return true, and
    /// `tcp_fastretrans_alert` returns before `tcp_identify_packet_loss`
    /// with `rexmit` still `REXMIT_NONE`: the ACK clocks out new data only,
    /// marks nothing lost and retransmits nothing.
    pub(super) fn undo_if_original_filled_hole(
        &mut self,
        ack: u32,
        una_before: u32,
        tsecr: Time,
    ) -> bool {
        let t = &self.tcb;
        if !t.cfg.undo_by_timestamps || t.ca != CaState::Recovery {
            return false;
        }
        let delayed = self.undo.retrans_stamp.is_some_and(|r| tsecr < r);
        if !delayed || !self.undo.latest_undoable() {
            return false;
        }
        let full = t.recover.is_some_and(|r| ack >= r);
        if !full {
            // 3.17: tcp_fackets_out(tp) + acked.
            let distance = t.fackets_out() + (ack - una_before);
            self.detection.on_delayed_original(distance);
            if self.tcb.sb.retrans_out() > 0 {
                return self.tcb.cfg.linux.is_some();
            }
        }
        self.undo_latest_reduction();
        if !full && self.tcb.cfg.linux.is_some() {
            // tcp_try_undo_partial: tcp_undo_cwnd_reduction(sk, true).
            self.tcb.sb.unmark_lost_out_of_order();
        }
        false
    }
}
