//! Entering and leaving fast recovery: the fast retransmit (RFC 5681 Sec.
//! 3.2 steps 2-3, RFC 6582 Sec. 3.2 step 2, RFC 6675 Sec. 5 steps 4.1-4.3),
//! RACK's entry on marked losses (RFC 8985 Sec. 6.2), TCP-Aix's reduction at
//! the newACK, and the end of an episode.

use crate::engine::Time;
use crate::net::packet::Packet;
use crate::num::floor;
use crate::tcp::detection::TimerVerdict;
use crate::tcp::policy::SsthreshBase;
use crate::tcp::response::AckEnd;
use crate::tcp::tcb::CaState;
use crate::tcp::truth::RetxCause;

use super::Sender;

impl Sender {
    /// Fast retransmit and enter fast recovery: ssthresh from the congestion
    /// controller and FlightSize, the loss response's cwnd, the recovery
    /// point at SND.NXT, and SND.UNA retransmitted at once (unless the
    /// detection marked the losses itself and the response paces them).
    pub(super) fn enter_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.response.defers_reduction() {
            self.start_loss_recovery_without_reduction(now, out);
            return;
        }
        if self.detection.is_early_retransmit(&self.tcb) {
            self.tcb.stats.early_retransmits += 1;
        }
        let dupthresh = self.detection.dupthresh();
        let t = &mut self.tcb;
        t.stats.fast_recoveries += 1;
        t.stats.last_recovery_at = Some(now);
        t.stats.last_recovery_dupthresh = dupthresh;
        let retransmit_head = self.detection.on_enter_recovery();
        if t.sb.retrans_out() == 0 {
            // Linux clears tp->retrans_stamp in the Open state once no
            // retransmission is outstanding (`tcp_try_to_open`).
            self.undo.retrans_stamp = None;
        }
        self.timers.cancel_probe();
        self.timers.on_fast_retransmit(t, now);
        t.forward_hint = t.sb.una();
        self.undo.begin_reduction(t);
        let flight = self.flight_for_reduction();
        let t = &mut self.tcb;
        self.lt.sent_beyond_cwnd = 0;
        t.w.ssthresh = t.cc.ssthresh_after_loss(&t.w, flight, now);
        t.recover = Some(t.sb.nxt());
        t.ca = CaState::Recovery;
        self.undo.end_reduction(t.w.ssthresh);
        self.response.enter(t, dupthresh);
        t.note_cwnd();
        if !retransmit_head {
            return;
        }
        let una = t.sb.una();
        t.sb.mark_lost(una);
        // The first retransmission goes out regardless of the window.
        self.retransmit_if_lost(una, RetxCause::Fast, now, out);
    }

    /// The FlightSize of RFC 5681 eq. (4) at a fast retransmit: TCP-NCR's
    /// FlightSizePrev, the FlightSize before Extended Limited Transmit (RFC
    /// 4653 Sec. 4); Linux's cwnd; or the data outstanding without what
    /// limited transmit sent beyond cwnd (RFC 5681 Sec. 3.2 step 2).
    fn flight_for_reduction(&mut self) -> u32 {
        let t = &self.tcb;
        match self.lt.on_loss() {
            Some(prev) => prev.max(1),
            None => match t.cfg.ssthresh_base {
                SsthreshBase::Cwnd => floor(t.w.cwnd).max(1.0) as u32,
                SsthreshBase::FlightSize => (t.sb.packets_out())
                    .saturating_sub(self.lt.sent_beyond_cwnd)
                    .max(1),
            },
        }
    }

    /// TCP-Aix rule 1: dupthresh reached. SND.UNA is retransmitted at once;
    /// the window waits for the newACK.
    fn start_loss_recovery_without_reduction(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.response.on_deferred_recovery(&mut self.tcb);
        self.tcb.stats.last_recovery_dupthresh = self.detection.dupthresh();
        self.detection.on_enter_recovery();
        self.timers.on_fast_retransmit(&mut self.tcb, now);
        let una = self.tcb.sb.una();
        self.tcb.sb.mark_lost(una);
        self.retransmit_if_lost(una, RetxCause::Fast, now, out);
    }

    /// TCP-Aix: the newACK answered the retransmission, so the reduction of
    /// a fast recovery happens now, from the FlightSize at the first
    /// duplicate ACK, with the recovery point at SND.NXT.
    pub(super) fn reduce_at_new_ack(&mut self, flight_prev: u32, now: Time) {
        let t = &mut self.tcb;
        t.stats.fast_recoveries += 1;
        t.stats.last_recovery_at = Some(now);
        self.undo.begin_reduction(t);
        t.w.ssthresh = t.cc.ssthresh_after_loss(&t.w, flight_prev.max(1), now);
        t.w.cwnd = t.w.ssthresh;
        self.undo.end_reduction(t.w.ssthresh);
        t.recover = Some(t.sb.nxt());
        t.ca = CaState::Recovery;
        self.lt.sent_beyond_cwnd = 0;
    }

    /// Fast recovery once the detection marked something lost (RFC 8985
    /// Sec. 6.2: "If any segment is marked lost, enter fast recovery").
    /// Returns whether it did.
    pub(super) fn recover_marked_losses(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        let t = &self.tcb;
        let allowed = self.response.may_start_episode(t);
        if t.ca == CaState::Open && t.sb.lost_out() > 0 && allowed {
            self.enter_recovery(now, out);
            return true;
        }
        false
    }

    /// Leaving fast or RTO recovery.
    pub(super) fn leave_recovery(&mut self) {
        self.tcb.ca = CaState::Open;
        self.undo.retrans_stamp = None;
        self.response.on_exit();
        self.detection.on_recovery_exit();
    }

    /// The loss detection's timer fired: a delayed fast retransmit, RACK's
    /// reorder timer (Linux `tcp_rack_reo_timeout`: entering recovery there
    /// counts as one segment delivered for PRR), TCP-PR's drop check.
    pub(super) fn on_detection_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        let kept = self.cc_owns_cwnd().then_some(self.tcb.w.cwnd);
        match self.detection.on_timer(&mut self.tcb, now) {
            TimerVerdict::Nothing => {}
            TimerVerdict::FastRetransmit => {
                self.enter_recovery(now, out);
                self.keep_cwnd(kept);
                self.transmit(now, out);
            }
            TimerVerdict::LossMarked => {
                if self.recover_marked_losses(now, out) && kept.is_none() {
                    // tcp_rack_reo_timeout: tcp_cwnd_reduction(sk, 1, lost, 0).
                    let end = AckEnd {
                        delivered: 1,
                        entered: true,
                        una_advanced: false,
                        newly_lost: 1,
                    };
                    self.response.after_ack(&mut self.tcb, end);
                }
                self.keep_cwnd(kept);
                self.transmit(now, out);
            }
            TimerVerdict::Send => self.transmit(now, out),
        }
    }
}
