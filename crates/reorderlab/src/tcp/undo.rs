//! What undo remembers: each window reduction (a fast-recovery or timeout
//! episode) until every retransmission of its episode is reported spurious
//! by a DSACK or it is too old (rr-tcp Sec. 2.1 and 4.1 record "each fast
//! retransmit's starting time and window reduction amount"; RFC 3708), the
//! retransmissions awaiting their DSACK ([`crate::tcp::dsack`]), and Linux's
//! `tp->retrans_stamp`. The sender acts on it in
//! [`crate::tcp::sender`] (`spurious.rs`, `ts_undo.rs`, `timeout.rs`).

use std::collections::VecDeque;

use crate::engine::Time;
use crate::num::floor;
use crate::tcp::dsack::RetxLog;
use crate::tcp::tcb::{CaState, Tcb};

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
    pub episodes: VecDeque<Episode>,
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
        // Linux remembers `tcp_current_ssthresh`: out of a cwnd reduction,
        // max(ssthresh, 3/4 cwnd) in whole segments (`tcp_enter_recovery`,
        // `tcp_enter_loss`).
        let prior_ssthresh = match tcb.cfg.linux {
            Some(_) => {
                let c = floor(tcb.w.cwnd).max(0.0) as u64;
                tcb.w.ssthresh.max(((c >> 1) + (c >> 2)) as f64)
            }
            None => tcb.w.ssthresh,
        };
        self.episodes.push_back(Episode {
            episode: self.count,
            prior_cwnd: tcb.w.cwnd,
            prior_ssthresh,
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

    /// A retransmission sent before the latest episode began and still
    /// out counts in it (Linux `tcp_init_undo`: `undo_retrans` starts at
    /// the retransmissions in flight, a TLP's included).
    pub fn count_outstanding_copy(&mut self) {
        if let Some(u) = self.episodes.back_mut() {
            u.retrans += 1;
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
