//! NewReno fast recovery (RFC 6582 Sec. 3.2): Reno's window inflation,
//! but a partial ACK (below the recovery point) retransmits the next hole
//! at once, deflates the window by the amount acknowledged plus one, and
//! keeps the recovery going until the recovery point is acknowledged.

use crate::tcp::response::reno::{inflate, inflated_window_allows};
use crate::tcp::response::{LossResponse, NewAck, NewlyAcked};
use crate::tcp::tcb::{CaState, Tcb};

#[derive(Debug, Clone, Copy, Default)]
pub struct NewReno {
    /// Partial ACKs seen in the current recovery.
    pub partial_acks: u32,
}

impl LossResponse for NewReno {
    /// Step 2: cwnd = ssthresh + dupthresh.
    fn enter(&mut self, tcb: &mut Tcb, dupthresh: u32) {
        self.partial_acks = 0;
        tcb.w.cwnd = tcb.w.ssthresh + dupthresh as f64;
    }

    fn on_recovery_ack(&mut self, tcb: &mut Tcb, a: &NewlyAcked, recovered: bool) -> NewAck {
        if recovered {
            // Step 3, option (1): cwnd = min(ssthresh, FlightSize + 1).
            let flight = tcb.sb.packets_out().max(1) as f64;
            tcb.w.cwnd = tcb.w.ssthresh.min(flight + 1.0);
            return NewAck::Exit;
        }
        // Step 4: retransmit the next hole, deflate by the amount
        // acknowledged, add back one segment.
        self.partial_acks += 1;
        let then_cwnd = (tcb.w.cwnd - a.acked as f64 + 1.0).max(1.0);
        NewAck::RetransmitHead { then_cwnd }
    }

    fn on_dupack_in_recovery(&mut self, tcb: &mut Tcb) {
        inflate(tcb);
    }

    /// Step 4: the timer is restarted on the first partial ACK only.
    fn restarts_rto_on_ack(&self, tcb: &Tcb) -> bool {
        !(tcb.ca == CaState::Recovery && self.partial_acks > 1)
    }

    fn recovery_window_allows(&self, tcb: &Tcb, retransmission: bool) -> bool {
        inflated_window_allows(tcb, retransmission)
    }
}
