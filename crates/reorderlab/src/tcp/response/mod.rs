//! Loss response: what a loss episode does to cwnd and ssthresh, how the
//! window is used while it lasts, and how it ends (docs/architecture.md, "The sender"). One
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
//!   (tcp-pr Table I); here only its sending rule.
//!
//! A congestion controller ([`crate::tcp::cc`]) gives the growth and the
//! reduction factor; the response decides when they apply.
//!
//! Each response is a struct in its own file implementing [`LossResponse`],
//! whose hooks default to RFC 6675's conservative SACK recovery; a response
//! overrides what it changes. A new one: its file, one line in
//! [`Response`] and in `dispatch!`, a [`ResponsePolicy`] case and the registry's
//! compositions (`docs/architecture.md`).

pub mod aix;
pub mod hooks;
pub mod newreno;
pub mod prr;
pub mod reno;
pub mod sack;
pub mod tcp_pr;

use crate::engine::Time;
use crate::tcp::limited::LtState;
use crate::tcp::policy::ResponsePolicy;
use crate::tcp::tcb::{CaState, Tcb};

pub use hooks::{
    exit_if, growth_acked, open_window_allows, sack_only_growth, AckEnd, LossResponse, NewAck,
    NewlyAcked,
};

use aix::AixResponse;
use newreno::NewReno;
use prr::{Prr, PrrResponse};
use reno::Reno;
use sack::SackPipe;
use tcp_pr::TcpPrResponse;

/// The sender's loss response: one of the responses.
#[derive(Debug, Clone)]
pub enum Response {
    Reno(Reno),
    NewReno(NewReno),
    SackPipe(SackPipe),
    Prr(PrrResponse),
    Aix(AixResponse),
    TcpPr(TcpPrResponse),
}

/// Static dispatch to the response in use (a `match`, inlined).
macro_rules! dispatch {
    ($self:expr, $r:ident => $call:expr) => {
        match $self {
            Response::Reno($r) => $call,
            Response::NewReno($r) => $call,
            Response::SackPipe($r) => $call,
            Response::Prr($r) => $call,
            Response::Aix($r) => $call,
            Response::TcpPr($r) => $call,
        }
    };
}

impl Response {
    pub fn new(policy: ResponsePolicy) -> Response {
        match policy {
            ResponsePolicy::Reno => Response::Reno(Reno),
            ResponsePolicy::NewReno => Response::NewReno(NewReno::default()),
            ResponsePolicy::Sack => Response::SackPipe(SackPipe),
            ResponsePolicy::Prr => Response::Prr(PrrResponse::default()),
            ResponsePolicy::Aix => Response::Aix(AixResponse::default()),
            ResponsePolicy::TcpPr => Response::TcpPr(TcpPrResponse),
        }
    }

    /// SND.UNA advanced: the response's rule for the state the sender is
    /// in.
    #[inline]
    pub fn on_new_ack(&mut self, tcb: &mut Tcb, a: &NewlyAcked, now: Time) -> NewAck {
        let recovered = tcb.recover.is_some_and(|r| a.ack >= r);
        match tcb.ca {
            CaState::Open => dispatch!(self, r => r.on_open_ack(tcb, a, now)),
            CaState::Loss => dispatch!(self, r => r.on_loss_ack(tcb, a, recovered, now)),
            CaState::Recovery => dispatch!(self, r => r.on_recovery_ack(tcb, a, recovered)),
        }
    }
}

/// Each hook of [`LossResponse`], dispatched.
impl Response {
    /// PRR state of the current recovery (RFC 6937).
    pub fn prr(&self) -> Option<&Prr> {
        match self {
            Response::Prr(r) => r.prr.as_ref(),
            _ => None,
        }
    }
    #[inline]
    pub fn may_start_episode(&self, tcb: &Tcb) -> bool {
        dispatch!(self, r => r.may_start_episode(tcb))
    }
    pub fn defers_reduction(&self) -> bool {
        dispatch!(self, r => r.defers_reduction())
    }
    pub fn on_deferred_recovery(&mut self, tcb: &mut Tcb) {
        dispatch!(self, r => r.on_deferred_recovery(tcb))
    }
    pub fn enter(&mut self, tcb: &mut Tcb, dupthresh: u32) {
        dispatch!(self, r => r.enter(tcb, dupthresh))
    }
    #[inline]
    pub fn on_dupack_open(&mut self, tcb: &mut Tcb, newly: u32, now: Time) -> bool {
        dispatch!(self, r => r.on_dupack_open(tcb, newly, now))
    }
    #[inline]
    pub fn on_dupack_in_recovery(&mut self, tcb: &mut Tcb) {
        dispatch!(self, r => r.on_dupack_in_recovery(tcb))
    }
    #[inline]
    pub fn after_ack(&mut self, tcb: &mut Tcb, a: AckEnd) {
        dispatch!(self, r => r.after_ack(tcb, a))
    }
    #[inline]
    pub fn restarts_rto_on_ack(&self, tcb: &Tcb) -> bool {
        dispatch!(self, r => r.restarts_rto_on_ack(tcb))
    }
    #[inline]
    pub fn retransmitting(&self, tcb: &Tcb) -> bool {
        dispatch!(self, r => r.retransmitting(tcb))
    }
    #[inline]
    pub fn window_allows(&self, tcb: &Tcb, lt: &LtState, retransmission: bool) -> bool {
        dispatch!(self, r => r.window_allows(tcb, lt, retransmission))
    }
    #[inline]
    pub fn on_sent(&mut self, ca: CaState) {
        dispatch!(self, r => r.on_sent(ca))
    }
    pub fn on_exit(&mut self) {
        dispatch!(self, r => r.on_exit())
    }
    pub fn on_timeout(&mut self) {
        dispatch!(self, r => r.on_timeout())
    }
}
