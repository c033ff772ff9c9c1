//! The retransmission timeout (RFC 6298 Sec. 5.4-5.6, RFC 5681 Sec. 3.1)
//! and what follows it: conventional RTO recovery, or F-RTO's detection of
//! a spurious timeout (RFC 5682 Sec. 3, [`crate::tcp::frto`]).

use crate::engine::Time;
use crate::net::packet::Packet;
use crate::num::ceil;
use crate::tcp::frto::{self, FrtoAck, FrtoStep, FrtoVerdict};
use crate::tcp::policy::RtoRecovery;
use crate::tcp::tcb::{CaState, Phase};

use super::Sender;

impl Sender {
    /// The retransmission timer expired.
    pub(super) fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.tcb.phase == Phase::SynSent {
            self.tcb.syn_retransmitted = true;
            self.tcb.rtt.back_off();
            self.send_syn(now, out);
            return;
        }
        if self.tcb.phase != Phase::Established || self.tcb.sb.packets_out() == 0 {
            return;
        }
        self.tcb.stats.timeouts += 1;
        self.tcb.stats.rto_expired_sum += crate::engine::time::to_secs(self.tcb.rtt.rto());
        let recurring = self.tcb.ca == CaState::Loss && self.tcb.rtt.backoff() > 0;
        let first_timeout = !recurring;
        // RFC 5682 Sec. 3 step 1: F-RTO when no loss recovery is under way
        // (RecoveryPoint below SND.UNA), and, Sec. 3.2 as Linux reads it
        // (`tcp_enter_loss`: new_recovery || icsk_retransmits), also for a
        // recurring timeout of the same SND.UNA; a timeout inside a fast
        // recovery is handled conventionally.
        let frto = self.tcb.cfg.rto_recovery == RtoRecovery::Frto
            && (self.tcb.ca == CaState::Open || recurring);
        self.frto = None;
        self.detection.on_timeout(&self.tcb);
        self.timers.on_timeout(&mut self.tcb);
        self.lt.on_timeout();
        self.response.on_timeout();
        // Linux `tcp_init_undo`: a probe's retransmission still out (TLP
        // episode open) counts in the timeout's `undo_retrans`.
        let probe_copy_out = self.tcb.cfg.linux.is_some()
            && (self.timers.probe.as_ref()).is_some_and(|t| t.episode_open() && t.is_retrans);
        if let Some(t) = self.timers.probe.as_mut() {
            t.reset();
        }
        if first_timeout {
            self.reduce_at_timeout(now);
            if probe_copy_out {
                self.undo.count_outstanding_copy();
            }
        }
        let t = &mut self.tcb;
        t.w.cwnd = 1.0;
        self.undo.end_reduction(1.0);
        t.cc.on_timeout(now);
        t.note_cwnd();
        t.sb.mark_all_lost();
        t.recover = Some(t.sb.nxt());
        t.ca = CaState::Loss;
        // a new run of duplicate ACKs starts from scratch (TD-FR measures
        // its first-to-third time: a stale third one was before the first)
        t.dupacks = 0;
        t.first_dupack_at = None;
        t.third_dupack_at = None;
        t.rtt.back_off();
        self.transmit(now, out);
        if frto {
            self.frto = Some((FrtoStep::AwaitingAck, self.undo.latest_episode()));
        }
        self.timers.arm_rto(&mut self.tcb, now);
    }

    /// ssthresh is reduced only on the first timeout of a segment. RFC 5681
    /// eq. (4) uses FlightSize; after a stalled SACK recovery the data
    /// outstanding can be many windows (new data went out as SACKed
    /// segments left the pipe), and that would set ssthresh far above any
    /// window the path carried. FlightSize is therefore bounded by the
    /// window in force before the loss: cwnd, or inside a recovery the cwnd
    /// the recovery started from.
    fn reduce_at_timeout(&mut self, now: Time) {
        let t = &mut self.tcb;
        self.undo.begin_reduction(t);
        let window = match (t.ca, self.undo.latest_prior_cwnd()) {
            (CaState::Recovery, Some(prior)) => prior.max(t.w.cwnd),
            _ => t.w.cwnd,
        };
        let flight = t.sb.packets_out().min(ceil(window) as u32).max(1);
        t.w.ssthresh = t.cc.ssthresh_after_loss(&t.w, flight, now);
    }

    // ----- F-RTO -------------------------------------------------------------

    /// RecoveryPoint while F-RTO runs: segments below it were sent before
    /// the timeout (or before step 2b's new data).
    pub(super) fn frto_recovery_point(&self) -> Option<u32> {
        self.frto.and(self.tcb.recover)
    }

    /// RFC 5682 Sec. 3 steps 2-3 for an ACK of the Loss state; `before`:
    /// cwnd before the ACK and the segments it delivered.
    pub(super) fn frto_on_ack(&mut self, ack: FrtoAck, before: (f64, u32), now: Time) {
        let Some((step, episode)) = self.frto else {
            return;
        };
        if self.tcb.ca != CaState::Loss {
            // Step 2a (the ACK covered RecoveryPoint), or a DSACK undo.
            self.frto = None;
            return;
        }
        match frto::on_ack(step, ack) {
            FrtoVerdict::Wait => {}
            FrtoVerdict::SendNewData => {
                // Step 2b: RecoveryPoint = SND.NXT, then new data instead
                // of retransmissions (sent by `transmit`), if there is any.
                let t = &mut self.tcb;
                if t.has_new_data() && t.receiver_window_open() {
                    t.recover = Some(t.sb.nxt());
                    self.frto = Some((FrtoStep::NewDataSent, episode));
                } else {
                    self.frto = None;
                }
            }
            FrtoVerdict::Conventional => {
                // Step 3a: cwnd <= 3 segments, retransmissions resume.
                self.frto = None;
                self.tcb.w.cwnd = self.tcb.w.cwnd.min(3.0);
                self.tcb.note_cwnd();
            }
            FrtoVerdict::Spurious => self.frto_undo(episode, ack.advanced.then_some(before), now),
        }
    }

    /// Step 3b: the timeout was spurious. Undo as Linux's
    /// `tcp_try_undo_loss`: lost marks cleared (nothing more is
    /// retransmitted), cwnd = max(cwnd, cwnd before the timeout), ssthresh
    /// = max(ssthresh, ssthresh before), back to Open. The timeout's
    /// retransmission is forgotten so that its DSACK does not count the
    /// same spurious timeout again.
    ///
    /// Linux undoes (`tcp_process_loss` -> `tcp_try_undo_loss`) before
    /// the ACK's growth (`tcp_cong_control`, after `tcp_fastretrans_alert`):
    /// with `grow` (cwnd before the ACK, segments it delivered; an ACK
    /// that advanced SND.UNA) the window restored is the one before the
    /// ACK, grown by what it delivered, in slow start if ssthresh allows.
    fn frto_undo(&mut self, episode: u32, grow: Option<(f64, u32)>, now: Time) {
        self.frto = None;
        let linux = self.tcb.cfg.linux.is_some();
        let t = &mut self.tcb;
        t.stats.false_timeouts_detected += 1;
        t.stats.undos += 1;
        if let (true, Some((cwnd_before, _))) = (linux, grow) {
            t.w.cwnd = cwnd_before;
        }
        if let Some(u) = self.undo.take_episode(episode) {
            t.w.cwnd = t.w.cwnd.max(u.prior_cwnd);
            t.w.ssthresh = t.w.ssthresh.max(u.prior_ssthresh);
        }
        t.w.cwnd = t.w.cwnd.min(t.cfg.max_window as f64);
        self.undo.log.forget_episode(episode);
        t.cc.on_undo();
        if let (true, Some((_, delivered))) = (linux, grow) {
            t.grow(delivered, now);
        }
        t.sb.clear_lost_marks();
        t.ca = CaState::Open;
        t.recover = None;
        self.response.on_exit();
        t.note_cwnd();
    }
}
