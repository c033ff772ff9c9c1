//! TCP-PR's loss response (tcp-pr Table I): the window is halved per
//! newly detected drop, with burst memory, and grown per acknowledged
//! segment, both by the TCP-PR loss detector
//! ([`crate::tcp::detection::tcp_pr`]); here only what the sender asks of
//! every response: no growth on its own, the dropped segments always sent
//! first, and flush-cwnd's sending rule.

use crate::engine::Time;
use crate::tcp::limited::LtState;
use crate::tcp::response::{LossResponse, NewAck, NewlyAcked};
use crate::tcp::tcb::Tcb;

#[derive(Debug, Clone, Copy, Default)]
pub struct TcpPrResponse;

impl LossResponse for TcpPrResponse {
    fn on_open_ack(&mut self, _tcb: &mut Tcb, _a: &NewlyAcked, _now: Time) -> NewAck {
        NewAck::Continue
    }

    fn on_loss_ack(&mut self, _tcb: &mut Tcb, _a: &NewlyAcked, _r: bool, _now: Time) -> NewAck {
        NewAck::Continue
    }

    fn on_recovery_ack(&mut self, _tcb: &mut Tcb, _a: &NewlyAcked, _r: bool) -> NewAck {
        NewAck::Continue
    }

    /// Table I lines 24-28: the lowest of to-be-sent, dropped ones first.
    fn retransmitting(&self, _tcb: &Tcb) -> bool {
        true
    }

    /// Flush-cwnd: while cwnd > |to-be-ack|.
    fn window_allows(&self, tcb: &Tcb, _lt: &LtState, _retransmission: bool) -> bool {
        (tcb.sb.pipe() as f64) < tcb.w.cwnd
    }
}
