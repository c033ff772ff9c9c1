//! Loss response: what a loss episode does to cwnd and ssthresh, how the
//! window is used while it lasts, and how it ends (DESIGN.md, "TCP"). One
//! component of the sender, an enum dispatched by `match`:
//!
//! * [`Response::Reno`]: RFC 5681 Sec. 3.2, window inflation, any new ACK
//!   ends it;
//! * [`Response::NewReno`]: RFC 6582, partial ACKs;
//! * [`Response::SackPipe`]: RFC 6675, cwnd = ssthresh, sending by `pipe`;
//! * [`Response::Prr`]: RFC 6937 PRR-SSRB on the RFC 6675 pipe ([`prr`]);
//! * [`Response::Aix`]: TCP-Aix, the reduction decided at the newACK
//!   ([`aix`]);
//! * [`Response::TcpPr`]: TCP-PR, whose window changes its detector makes
//!   (seed 001 Table I); here only its sending rule.
//!
//! A congestion controller ([`crate::tcp::cc`]) gives the growth and the
//! reduction factor; the response decides when they apply.

pub mod aix;
pub mod prr;

use crate::engine::Time;
use crate::tcp::policy::Recovery;
use crate::tcp::sender::limited::LtState;
use crate::tcp::sender::tcb::{CaState, Tcb};

use aix::{Aix, AixVerdict};
use prr::Prr;

#[derive(Debug, Clone)]
pub enum Response {
    Reno,
    NewReno {
        /// Partial ACKs seen in the current recovery.
        partial_acks: u32,
    },
    SackPipe,
    /// PRR state of the current recovery.
    Prr(Option<Prr>),
    Aix(Aix),
    TcpPr,
}

/// An ACK that advanced SND.UNA.
#[derive(Debug, Clone, Copy)]
pub struct NewlyAcked {
    /// The new SND.UNA.
    pub ack: u32,
    /// Segments it acknowledged, and how many of them had been SACKed.
    pub acked: u32,
    pub were_sacked: u32,
    /// The transmission index the ACK echoed (0: the original).
    pub echo: u16,
}

/// What the sender does after [`Response::on_new_ack`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NewAck {
    Continue,
    /// RFC 6582 Sec. 3.2 step 4 (partial ACK): retransmit the first
    /// unacknowledged segment, then set cwnd to this.
    RetransmitHead {
        then_cwnd: f64,
    },
    /// The recovery is over.
    Exit,
    /// TCP-Aix: the newACK answered the retransmission: reduce now, from
    /// the FlightSize at the first duplicate ACK.
    Reduce {
        flight_prev: u32,
    },
}

impl Response {
    pub fn new(recovery: Recovery) -> Response {
        match recovery {
            Recovery::Reno => Response::Reno,
            Recovery::NewReno => Response::NewReno { partial_acks: 0 },
            Recovery::Sack => Response::SackPipe,
            Recovery::Prr => Response::Prr(None),
            Recovery::Aix => Response::Aix(Aix::new()),
            Recovery::TcpPr => Response::TcpPr,
        }
    }

    /// PRR state of the current recovery (RFC 6937).
    pub fn prr(&self) -> Option<&Prr> {
        match self {
            Response::Prr(p) => p.as_ref(),
            _ => None,
        }
    }

    /// May a new loss episode start? RFC 6582 Sec. 3.2 step 2 / RFC 6675
    /// Sec. 5.1: not until the previous recovery point is acknowledged;
    /// RFC 5681's Reno has no such rule.
    #[inline]
    pub fn may_start_episode(&self, tcb: &Tcb) -> bool {
        let una = tcb.sb.una();
        matches!(self, Response::Reno) || tcb.recover.is_none_or(|r| una >= r)
    }

    // ----- entering --------------------------------------------------------

    /// TCP-Aix decides the reduction at the newACK, not at the fast
    /// retransmit.
    pub fn defers_reduction(&self) -> bool {
        matches!(self, Response::Aix(_))
    }

    /// TCP-Aix rule 1: dupthresh reached, SND.UNA is retransmitted now and
    /// the window waits for the newACK.
    pub fn on_deferred_recovery(&mut self, tcb: &mut Tcb) {
        if let Response::Aix(aix) = self {
            aix.on_loss_recovery(tcb.sb.una(), tcb.sb.packets_out());
            tcb.stats.aix_loss_recoveries += 1;
        }
    }

    /// Fast recovery begins, ssthresh already reduced: cwnd = ssthresh (RFC
    /// 6675 Sec. 5 step 4.2), ssthresh + dupthresh (RFC 5681 Sec. 3.2 step
    /// 3, RFC 6582), or unchanged with PRR pacing it from now on (RFC 6937).
    pub fn enter(&mut self, tcb: &mut Tcb, dupthresh: u32) {
        match self {
            Response::SackPipe | Response::Aix(_) | Response::TcpPr => tcb.w.cwnd = tcb.w.ssthresh,
            Response::Prr(p) => *p = Some(Prr::start(tcb.sb.packets_out(), tcb.w.ssthresh)),
            Response::Reno => tcb.w.cwnd = tcb.w.ssthresh + dupthresh as f64,
            Response::NewReno { partial_acks } => {
                *partial_acks = 0;
                tcb.w.cwnd = tcb.w.ssthresh + dupthresh as f64;
            }
        }
    }

    // ----- ACKs ------------------------------------------------------------

    /// SND.UNA advanced: window growth outside recovery (by the congestion
    /// controller), or the recovery's rule for a new ACK.
    #[inline]
    pub fn on_new_ack(&mut self, tcb: &mut Tcb, a: &NewlyAcked, now: Time) -> NewAck {
        let recovered = tcb.recover.is_some_and(|r| a.ack >= r);
        match (tcb.ca, self) {
            // Seed 001 Table I: TCP-PR's detector grows the window per
            // acknowledged segment.
            (_, Response::TcpPr) => NewAck::Continue,
            (CaState::Open, Response::Aix(aix)) => on_aix_new_ack(aix, tcb, a, now),
            (CaState::Open, _) => {
                tcb.grow(a.acked, now);
                NewAck::Continue
            }
            (CaState::Loss, _) => {
                tcb.grow(a.acked, now);
                exit_if(recovered)
            }
            (CaState::Recovery, Response::Reno) => {
                // RFC 5681 Sec. 3.2 step 6: deflate and leave.
                tcb.deflate_to_ssthresh();
                NewAck::Exit
            }
            (CaState::Recovery, Response::NewReno { .. }) if recovered => {
                // RFC 6582 Sec. 3.2 step 3, option (1).
                let flight = tcb.sb.packets_out().max(1) as f64;
                tcb.w.cwnd = tcb.w.ssthresh.min(flight + 1.0);
                NewAck::Exit
            }
            (CaState::Recovery, Response::NewReno { partial_acks }) => {
                // Step 4: retransmit the next hole, deflate by the amount
                // acknowledged, add back one segment.
                *partial_acks += 1;
                let then_cwnd = (tcb.w.cwnd - a.acked as f64 + 1.0).max(1.0);
                NewAck::RetransmitHead { then_cwnd }
            }
            (CaState::Recovery, Response::Prr(_)) => {
                // RFC 6937: at the end of recovery cwnd = ssthresh.
                if recovered {
                    tcb.deflate_to_ssthresh();
                }
                exit_if(recovered)
            }
            (CaState::Recovery, Response::SackPipe | Response::Aix(_)) => exit_if(recovered),
        }
    }

    /// A duplicate ACK in the Open state that SACKed `newly` segments:
    /// TCP-Aix opens a run and counts them as delivered (rule 2). Returns
    /// whether the retransmission timer is to be restarted (rule 4).
    #[inline]
    pub fn on_dupack_open(&mut self, tcb: &mut Tcb, newly: u32, now: Time) -> bool {
        let Response::Aix(aix) = self else {
            return false;
        };
        aix.on_dupack(tcb.sb.packets_out());
        if newly == 0 {
            return false;
        }
        if !tcb.w.in_slow_start() {
            tcb.grow(newly, now);
            tcb.note_cwnd();
        }
        // SACKed data restart the retransmission timer until loss recovery
        // starts, so that winthresh (up to two windows of duplicate ACKs)
        // is not cut short by it (assumption, see aix.rs).
        !aix.recovering()
    }

    /// A duplicate ACK in fast recovery: RFC 5681 Sec. 3.2 step 4 / RFC
    /// 6582 inflate the window by one segment.
    #[inline]
    pub fn on_dupack_in_recovery(&mut self, tcb: &mut Tcb) {
        if matches!(self, Response::Reno | Response::NewReno { .. }) {
            tcb.w.cwnd += 1.0;
            tcb.note_cwnd();
        }
    }

    /// RFC 6937 at the end of each ACK in recovery: cwnd = pipe + sndcnt.
    /// The ACK that starts recovery (`entered`) counts one segment
    /// delivered and sends at least one (the fast retransmit), as Linux.
    #[inline]
    pub fn after_ack(&mut self, tcb: &mut Tcb, delivered: u32, entered: bool) {
        if tcb.ca != CaState::Recovery {
            return;
        }
        let Response::Prr(Some(p)) = self else {
            return;
        };
        let pipe = tcb.sb.pipe();
        let Some(mut sndcnt) = p.on_ack(delivered.max(entered as u32), pipe) else {
            return;
        };
        if p.prr_out == 0 {
            sndcnt = sndcnt.max(1);
        }
        tcb.w.cwnd = (pipe + sndcnt) as f64;
        tcb.note_cwnd();
    }

    /// RFC 6298 Sec. 5.3 restarts the timer on every ACK of new data;
    /// NewReno only on the first partial ACK (RFC 6582 Sec. 3.2 step 4).
    #[inline]
    pub fn restarts_rto_on_ack(&self, tcb: &Tcb) -> bool {
        let partial = match self {
            Response::NewReno { partial_acks } => *partial_acks,
            _ => 0,
        };
        !(tcb.ca == CaState::Recovery && partial > 1)
    }

    // ----- sending -----------------------------------------------------------

    /// Loss recovery is under way: lost segments are resent first. TCP-Aix
    /// resends from dupthresh on, while still Open; TCP-PR always sends the
    /// segments it deemed dropped first (Table I lines 24-28).
    #[inline]
    pub fn retransmitting(&self, tcb: &Tcb) -> bool {
        match self {
            Response::TcpPr => true,
            Response::Aix(aix) => tcb.ca != CaState::Open || aix.recovering(),
            _ => tcb.ca != CaState::Open,
        }
    }

    /// The pipe limit while duplicate ACKs clock out new data: TCP-NCR's
    /// ELT (`elt`), or a TCP-Aix run (pipe + 1 <= cwnd: SACKed segments
    /// have left the network; aix.rs rule 2).
    #[inline]
    pub fn dupack_send_limit(&self, tcb: &Tcb, elt: Option<u32>) -> Option<u32> {
        elt.or_else(|| match self {
            Response::Aix(aix) if aix.active() => Some(tcb.w.cwnd.floor().max(1.0) as u32),
            _ => None,
        })
    }

    /// Can one more segment go out now? `retransmission` distinguishes the
    /// Reno / NewReno case where retransmissions ignore the inflated
    /// window; in the Open state limited transmit (`lt`) may add to it.
    #[inline]
    pub fn window_allows(&self, tcb: &Tcb, lt: &LtState, retransmission: bool) -> bool {
        let cwnd = tcb.w.cwnd;
        if let Response::TcpPr = self {
            // Seed 001 Table I, flush-cwnd: while cwnd > |to-be-ack|.
            return (tcb.sb.pipe() as f64) < cwnd;
        }
        match tcb.ca {
            CaState::Open => match self.dupack_send_limit(tcb, lt.elt_send_limit()) {
                // RFC 4653 Sec. 4, E steps: ELT clocks on pipe, not cwnd
                // (pipe + 1 <= limit); so does a TCP-Aix run.
                Some(limit) => tcb.sb.pipe() < limit,
                None => {
                    let allowance = lt.allowance(tcb.dupacks, cwnd) as f64;
                    tcb.sb.packets_out() as f64 + 1.0 <= cwnd.floor().max(1.0) + allowance
                }
            },
            CaState::Recovery if matches!(self, Response::Reno | Response::NewReno { .. }) => {
                retransmission || tcb.sb.packets_out() as f64 + 1.0 <= cwnd
            }
            // RFC 6675 Sec. 5 step (C): cwnd - pipe >= 1 SMSS.
            CaState::Recovery | CaState::Loss => tcb.sb.pipe() as f64 + 1.0 <= cwnd,
        }
    }

    /// A segment was sent (PRR's prr_out counts those of the recovery).
    #[inline]
    pub fn on_sent(&mut self, ca: CaState) {
        if let (CaState::Recovery, Response::Prr(Some(p))) = (ca, self) {
            p.on_sent();
        }
    }

    // ----- leaving -----------------------------------------------------------

    /// The recovery ended, or was undone: PRR's state goes.
    pub fn on_exit(&mut self) {
        if let Response::Prr(p) = self {
            *p = None;
        }
    }

    /// A retransmission timeout ends any recovery and TCP-Aix run.
    pub fn on_timeout(&mut self) {
        match self {
            Response::Prr(p) => *p = None,
            Response::Aix(aix) => aix.reset(),
            _ => {}
        }
    }
}

fn exit_if(recovered: bool) -> NewAck {
    if recovered {
        NewAck::Exit
    } else {
        NewAck::Continue
    }
}

/// TCP-Aix rule 1 at a cumulative ACK in the Open state: the run ends; if
/// the newACK answered the retransmission the window is reduced, else the
/// segments not SACKed before grow it (the SACKed ones already did).
fn on_aix_new_ack(aix: &mut Aix, tcb: &mut Tcb, a: &NewlyAcked, now: Time) -> NewAck {
    match aix.on_new_ack(a.ack, a.echo) {
        None => tcb.grow(a.acked, now),
        Some(AixVerdict::Loss { flight_prev }) => return NewAck::Reduce { flight_prev },
        Some(verdict) => {
            if verdict == AixVerdict::Reordering {
                tcb.stats.aix_reorderings += 1;
            }
            tcb.grow(a.acked - a.were_sacked, now);
        }
    }
    NewAck::Continue
}
