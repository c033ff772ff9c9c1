//! A retransmission shown spurious: by a DSACK (RFC 2883, RFC 3708), it is
//! counted, teaches the loss detection (reordering lengths, false fast
//! retransmits) and, with DSACK-ES, the RTT estimator, and once every
//! retransmission of its episode is reported the window reduction is undone
//! (rr-tcp Sec. 2.1; with [`UndoResponse::SlowStartBack`], cwnd slow-starts
//! back to it). Undo by timestamps ([`super::ts_undo`]) ends in the same
//! undo. The episodes are remembered by [`crate::tcp::undo`].

use crate::engine::Time;
use crate::tcp::detection::Spurious;
use crate::tcp::dsack::SpuriousRetransmission;
use crate::tcp::policy::{DsackResponse, RttSampling, UndoResponse};
use crate::tcp::tcb::CaState;
use crate::tcp::truth::RetxCause;

use super::Sender;

impl Sender {
    /// A DSACK reported a duplicate of `seq`: if we retransmitted it, the
    /// retransmission was spurious (RFC 3708). Count it, learn from it
    /// (DSACK-ES RTT sample, reordering length, dupthresh policies) and undo
    /// the window reduction once every retransmission of the episode is
    /// known spurious (DSACK-R).
    pub(super) fn on_dsack(&mut self, seq: u32, echo: u16, now: Time, m: Option<u32>) {
        let cfg = &self.tcb.cfg;
        if cfg.dsack == DsackResponse::Ignore {
            return;
        }
        if cfg.linux.is_some() && cfg.dsack != DsackResponse::Detect {
            // Linux counts copies, not segments (RFC 3708 A.3's "no
            // conclusion" does not apply): `undo_retrans`.
            if let Some(entry) = self.undo.log.on_dsack_of_one_copy(seq) {
                self.count_down_retransmissions(entry.episode);
                return;
            }
        }
        let Some(sp) = self.undo.log.on_dsack(seq, now, m, echo, cfg.pairing) else {
            return;
        };
        let SpuriousRetransmission {
            entry,
            rtt_sample,
            reordering,
            ambiguous,
        } = sp;
        if ambiguous {
            // RFC 3708 Sec. 3 step A.3: no conclusion, and no revert of
            // the episode.
            self.undo.block(entry.episode);
            return;
        }
        let stats = &mut self.tcb.stats;
        match entry.cause {
            RetxCause::Fast => stats.false_fast_retransmits_detected += 1,
            RetxCause::Timeout => stats.false_timeouts_detected += 1,
            RetxCause::Probe => {}
        }
        if self.tcb.cfg.dsack == DsackResponse::Detect {
            return;
        }
        if let (RttSampling::DsackEnhanced, Some(r)) = (self.tcb.cfg.rtt_sampling, rtt_sample) {
            self.tcb.rtt.on_sample_at(r, now);
        }
        let found = self
            .undo
            .episodes
            .iter()
            .position(|u| u.episode == entry.episode);
        let spurious = Spurious {
            fast: entry.cause == RetxCause::Fast,
            reordering,
            since_retransmit: now.saturating_sub(entry.retransmit_sent),
            episode: found.map(|i| {
                let u = &self.undo.episodes[i];
                (u.dupacks, u.first_dupack_to_ack)
            }),
        };
        self.detection.on_spurious(&spurious, now);
        self.count_down_retransmissions(entry.episode);
    }

    /// One retransmission of `episode` reported by a DSACK: once all are,
    /// the reduction is undone.
    fn count_down_retransmissions(&mut self, episode: u32) {
        let found = self.undo.episodes.iter().position(|u| u.episode == episode);
        if let Some(i) = found {
            let u = &mut self.undo.episodes[i];
            u.retrans = u.retrans.saturating_sub(1);
            if u.retrans == 0 && !u.blocked {
                self.undo_reduction(i);
            }
        }
    }

    /// Undo the latest reduction ([`super::ts_undo`]).
    pub(super) fn undo_latest_reduction(&mut self) {
        if let Some(i) = self.undo.episodes.len().checked_sub(1) {
            self.undo_reduction(i);
        }
    }

    /// Restore the window of before the reduction (rr-tcp Sec. 2.1,
    /// RFC 3708 / Blanton-Allman): the reduction was caused by reordering,
    /// not loss.
    fn undo_reduction(&mut self, i: usize) {
        let Some(u) = self.undo.episodes.remove(i) else {
            return;
        };
        let latest = i == self.undo.episodes.len();
        let t = &mut self.tcb;
        match t.cfg.undo_response {
            // Linux `tcp_undo_cwnd_reduction`: cwnd = the congestion
            // control's `undo_cwnd`, for Reno and CUBIC alike
            // `tcp_reno_undo_cwnd` = max(cwnd, prior_cwnd); ssthresh =
            // prior_ssthresh if that is larger (`tcp_current_ssthresh` at
            // the reduction, [`crate::tcp::undo::Undo::begin_reduction`]).
            UndoResponse::Restore if t.cfg.linux.is_some() => {
                t.w.cwnd = t.w.cwnd.max(u.prior_cwnd).min(t.cfg.max_window as f64);
                t.w.ssthresh = t.w.ssthresh.max(u.prior_ssthresh);
            }
            UndoResponse::Restore => {
                let delta = (u.prior_cwnd - u.reduced_to).max(0.0);
                t.w.cwnd = (t.w.cwnd + delta).min(t.cfg.max_window as f64);
                t.w.ssthresh = t.w.ssthresh.max(u.prior_ssthresh);
            }
            // Blanton-Allman: cwnd climbs back exponentially to the old one.
            UndoResponse::SlowStartBack => t.w.ssthresh = t.w.ssthresh.max(u.prior_cwnd),
        }
        t.cc.on_undo();
        t.stats.undos += 1;
        if latest && t.ca != CaState::Open {
            if t.ca == CaState::Loss {
                t.sb.clear_lost_marks();
            }
            t.ca = CaState::Open;
            t.recover = None;
            self.undo.retrans_stamp = None;
            self.response.on_exit();
        }
        t.note_cwnd();
    }
}
