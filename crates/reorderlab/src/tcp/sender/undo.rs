//! Undo on DSACK evidence: each window reduction is remembered until every
//! retransmission of its episode is reported spurious by a DSACK (then the
//! reduction is added back: rr-tcp Sec. 2.1 and 4.1 record "each fast
//! retransmit's starting time and window reduction amount"; RFC 3708; or,
//! with [`UndoResponse::SlowStartBack`], cwnd slow-starts back to it) or
//! it is too old. The DSACK also teaches the loss detection (reordering
//! lengths, false fast retransmits) and, with DSACK-ES, the RTT estimator.

use std::collections::VecDeque;

use crate::engine::Time;
use crate::tcp::detection::Spurious;
use crate::tcp::dsack::{RetxLog, SpuriousRetransmission};
use crate::tcp::policy::{DsackResponse, RttSampling, UndoResponse};
use crate::tcp::sender::tcb::{CaState, Tcb};
use crate::tcp::truth::RetxCause;

use super::Sender;

/// Reductions remembered for undo.
pub const MAX_EPISODES: usize = 16;

/// One window reduction (a fast-recovery or timeout episode).
#[derive(Debug, Clone, Copy)]
pub struct Episode {
    pub episode: u32,
    pub prior_cwnd: f64,
    pub prior_ssthresh: f64,
    /// The window the reduction went down to.
    pub reduced_to: f64,
    /// Retransmissions of the episode not yet reported by a DSACK.
    pub retrans: u32,
    /// Duplicate ACKs of the episode up to the first ACK advancing SND.UNA.
    pub dupacks: u32,
    /// First duplicate ACK to first ACK advancing SND.UNA.
    pub first_dupack_to_ack: Option<Time>,
    pub first_dupack_at: Option<Time>,
    pub advanced: bool,
    /// A DSACK could not be attributed (RFC 3708 A.3): never undone.
    pub blocked: bool,
}

/// The undo component's state.
#[derive(Debug, Default)]
pub struct Undo {
    /// Episodes numbered from 1 (0: a retransmission outside any).
    count: u32,
    /// Recent reductions, oldest first (at most [`MAX_EPISODES`]).
    episodes: VecDeque<Episode>,
    /// Retransmissions awaiting their fate ([`crate::tcp::dsack`]).
    pub log: RetxLog,
    /// When the first retransmission since the sender was last in the
    /// Open state left (Linux `tp->retrans_stamp`).
    pub retrans_stamp: Option<Time>,
}

impl Undo {
    /// Start (or continue) an episode before a window reduction.
    pub fn begin_reduction(&mut self, tcb: &Tcb) {
        if !self.episodes.is_empty() && tcb.ca != CaState::Open {
            // A timeout inside a recovery episode: the same episode.
            return;
        }
        self.count += 1;
        if self.episodes.len() == MAX_EPISODES {
            self.episodes.pop_front();
        }
        self.episodes.push_back(Episode {
            episode: self.count,
            prior_cwnd: tcb.w.cwnd,
            prior_ssthresh: tcb.w.ssthresh,
            reduced_to: tcb.w.cwnd,
            retrans: 0,
            dupacks: tcb.dupacks,
            first_dupack_to_ack: None,
            first_dupack_at: tcb.first_dupack_at,
            advanced: false,
            blocked: false,
        });
    }

    /// Record the window a reduction went down to.
    pub fn end_reduction(&mut self, to: f64) {
        if let Some(u) = self.episodes.back_mut() {
            u.reduced_to = u.reduced_to.min(to);
        }
    }

    /// The latest episode's number (0 if none).
    pub fn latest_episode(&self) -> u32 {
        self.episodes.back().map_or(0, |u| u.episode)
    }

    /// The latest reduction can still be undone (Linux `tp->undo_marker`
    /// set).
    pub fn latest_undoable(&self) -> bool {
        self.episodes.back().is_some_and(|u| !u.blocked)
    }

    /// The cwnd before the latest reduction.
    pub fn latest_prior_cwnd(&self) -> Option<f64> {
        self.episodes.back().map(|u| u.prior_cwnd)
    }

    /// A retransmission is sent: the episode it belongs to (outside
    /// recovery, none: 0).
    #[inline]
    pub fn on_retransmit(&mut self, ca: CaState) -> u32 {
        match self.episodes.back_mut() {
            Some(u) if ca != CaState::Open => {
                u.retrans += 1;
                u.episode
            }
            _ => 0,
        }
    }

    /// Forget an episode and return it.
    pub fn take_episode(&mut self, episode: u32) -> Option<Episode> {
        let i = self.episodes.iter().position(|u| u.episode == episode)?;
        self.episodes.remove(i)
    }

    /// The episode must not be undone.
    pub fn block(&mut self, episode: u32) {
        if let Some(u) = self.episodes.iter_mut().find(|u| u.episode == episode) {
            u.blocked = true;
        }
    }

    /// A duplicate ACK (counted in the latest episode until SND.UNA moves).
    #[inline]
    pub fn on_dupack(&mut self) {
        if let Some(u) = self.episodes.back_mut().filter(|u| !u.advanced) {
            u.dupacks += 1;
        }
    }

    /// SND.UNA advanced: the latest episode's duplicate-ACK run is over.
    #[inline]
    pub fn on_window_advance(&mut self, now: Time) {
        if let Some(u) = self.episodes.back_mut().filter(|u| !u.advanced) {
            u.advanced = true;
            u.first_dupack_to_ack = u.first_dupack_at.map(|t| now - t);
        }
    }
}

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
