//! Reno fast recovery (RFC 5681 Sec. 3.2): on the fast retransmit cwnd =
//! ssthresh + dupthresh; every further duplicate ACK inflates it by one
//! segment; retransmissions ignore the inflated window; any ACK of new
//! data deflates it to ssthresh and ends the recovery.

use crate::tcp::response::{LossResponse, NewAck, NewlyAcked};
use crate::tcp::tcb::Tcb;

#[derive(Debug, Clone, Copy, Default)]
pub struct Reno;

/// RFC 5681 Sec. 3.2 step 4: one segment per duplicate ACK.
pub fn inflate(tcb: &mut Tcb) {
    tcb.w.cwnd += 1.0;
    tcb.note_cwnd();
}

/// The window of RFC 5681 Sec. 3.2 step 3 (and RFC 6582): a retransmission
/// goes regardless; new data while FlightSize + 1 <= cwnd.
pub fn inflated_window_allows(tcb: &Tcb, retransmission: bool) -> bool {
    retransmission || tcb.sb.packets_out() as f64 + 1.0 <= tcb.w.cwnd
}

impl LossResponse for Reno {
    /// RFC 5681 has no rule against a new episode inside a recovery.
    fn may_start_episode(&self, _tcb: &Tcb) -> bool {
        true
    }

    /// Step 3: cwnd = ssthresh + dupthresh.
    fn enter(&mut self, tcb: &mut Tcb, dupthresh: u32) {
        tcb.w.cwnd = tcb.w.ssthresh + dupthresh as f64;
    }

    /// Step 6: deflate and leave.
    fn on_recovery_ack(&mut self, tcb: &mut Tcb, _a: &NewlyAcked, _recovered: bool) -> NewAck {
        tcb.deflate_to_ssthresh();
        NewAck::Exit
    }

    fn on_dupack_in_recovery(&mut self, tcb: &mut Tcb) {
        inflate(tcb);
    }

    fn recovery_window_allows(&self, tcb: &Tcb, retransmission: bool) -> bool {
        inflated_window_allows(tcb, retransmission)
    }
}
