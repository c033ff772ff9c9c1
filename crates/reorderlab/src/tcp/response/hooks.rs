//! The hooks a loss response implements ([`LossResponse`], whose defaults
//! are RFC 6675's conservative SACK recovery) and what an ACK of new data
//! asks of the sender ([`NewAck`]). The sender calls them through
//! [`super::Response`].

use crate::engine::Time;
use crate::num::floor;
use crate::tcp::limited::LtState;
use crate::tcp::tcb::{CaState, Tcb};

/// An ACK that advanced SND.UNA.
#[derive(Debug, Clone, Copy)]
pub struct NewlyAcked {
    /// The new SND.UNA.
    pub ack: u32,
    /// Segments it acknowledged, and how many of them had been SACKed.
    pub acked: u32,
    pub were_sacked: u32,
    /// Segments the same ACK newly SACKed above the new SND.UNA.
    pub newly_sacked: u32,
    /// The transmission index the ACK echoed (0: the original).
    pub echo: u16,
}

/// The segments an ACK of new data grows the window by: all it
/// acknowledged, or with Linux's rules those it newly delivered
/// (`tcp_cong_control` grows by `acked_sacked`, this ACK's delivered
/// count from `tcp_newly_delivered`: the cumulatively acknowledged
/// segments not SACKed before and the segments it newly SACKed; segments
/// SACKed by earlier ACKs are not counted again). An ACK that only SACKs
/// is [`sack_only_growth`].
pub fn growth_acked(tcb: &Tcb, a: &NewlyAcked) -> u32 {
    if tcb.cfg.linux.is_some() {
        a.acked - a.were_sacked + a.newly_sacked
    } else {
        a.acked
    }
}

/// The growth of an ACK that SACKed `newly_sacked` segments without
/// advancing SND.UNA, for a Linux sender whose `tp->reordering` is
/// `reordering`: `tcp_may_raise_cwnd` lets every ACK with forward progress
/// (`FLAG_FORWARD_PROGRESS`: SACKed data counts) grow the window once the
/// reordering is above `sysctl_tcp_reordering` (3), and only ACKs of new
/// data (`FLAG_DATA_ACKED`) below it; `tcp_cong_control` then grows by the
/// ACK's delivered segments outside a cwnd reduction (Open, Disorder and
/// Loss; not Recovery). RFC 5681 senders never grow on such an ACK.
pub fn sack_only_growth(tcb: &Tcb, newly_sacked: u32, reordering: u32) -> u32 {
    let grows = tcb.cfg.linux.is_some()
        && tcb.ca != CaState::Recovery
        && reordering > crate::tcp::detection::rack::MIN_REORDERING;
    if grows {
        newly_sacked
    } else {
        0
    }
}

/// What one ACK did, for the response's rule at its end.
#[derive(Debug, Clone, Copy, Default)]
pub struct AckEnd {
    /// Segments newly delivered, SACKed or cumulatively (RFC 6937
    /// DeliveredData).
    pub delivered: u32,
    /// This ACK (or timer) started recovery.
    pub entered: bool,
    /// It advanced SND.UNA (Linux `FLAG_SND_UNA_ADVANCED`).
    pub una_advanced: bool,
    /// Segments loss detection marked lost on it (Linux `rs->losses`).
    pub newly_lost: u32,
}

/// What the sender does after an ACK of new data.
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

/// `Exit` once the recovery point is acknowledged.
pub fn exit_if(recovered: bool) -> NewAck {
    if recovered {
        NewAck::Exit
    } else {
        NewAck::Continue
    }
}

/// The hooks a loss response may implement. The defaults are RFC 6675's
/// conservative SACK-based recovery (RFC 5681 growth outside it).
pub trait LossResponse {
    // ----- entering --------------------------------------------------------

    /// May a new loss episode start? RFC 6582 Sec. 3.2 step 2 / RFC 6675
    /// Sec. 5.1: not until the previous recovery point is acknowledged.
    fn may_start_episode(&self, tcb: &Tcb) -> bool {
        let una = tcb.sb.una();
        tcb.recover.is_none_or(|r| una >= r)
    }
    /// The reduction is decided later than the fast retransmit (TCP-Aix).
    fn defers_reduction(&self) -> bool {
        false
    }
    /// Loss recovery starts without a reduction (only if it defers).
    fn on_deferred_recovery(&mut self, _tcb: &mut Tcb) {}
    /// Fast recovery begins, ssthresh already reduced: RFC 6675 Sec. 5
    /// step 4.2, cwnd = ssthresh.
    fn enter(&mut self, tcb: &mut Tcb, _dupthresh: u32) {
        tcb.w.cwnd = tcb.w.ssthresh;
    }

    // ----- ACKs ------------------------------------------------------------

    /// An ACK of new data in the Open state: window growth by the
    /// congestion controller.
    fn on_open_ack(&mut self, tcb: &mut Tcb, a: &NewlyAcked, now: Time) -> NewAck {
        tcb.grow(growth_acked(tcb, a), now);
        NewAck::Continue
    }
    /// An ACK of new data after a timeout: slow start, until the recovery
    /// point.
    fn on_loss_ack(&mut self, tcb: &mut Tcb, a: &NewlyAcked, recovered: bool, now: Time) -> NewAck {
        tcb.grow(growth_acked(tcb, a), now);
        exit_if(recovered)
    }
    /// An ACK of new data in fast recovery: RFC 6675, the episode ends at
    /// the recovery point.
    fn on_recovery_ack(&mut self, _tcb: &mut Tcb, _a: &NewlyAcked, recovered: bool) -> NewAck {
        exit_if(recovered)
    }
    /// A duplicate ACK in the Open state that SACKed `newly` segments.
    /// Returns whether the retransmission timer is to be restarted.
    fn on_dupack_open(&mut self, _tcb: &mut Tcb, _newly: u32, _now: Time) -> bool {
        false
    }
    /// A duplicate ACK in fast recovery.
    fn on_dupack_in_recovery(&mut self, _tcb: &mut Tcb) {}
    /// At the end of each ACK.
    fn after_ack(&mut self, _tcb: &mut Tcb, _a: AckEnd) {}
    /// RFC 6298 Sec. 5.3 restarts the timer on every ACK of new data.
    fn restarts_rto_on_ack(&self, _tcb: &Tcb) -> bool {
        true
    }

    // ----- sending ---------------------------------------------------------

    /// Loss recovery is under way: lost segments are resent first.
    fn retransmitting(&self, tcb: &Tcb) -> bool {
        tcb.ca != CaState::Open
    }
    /// The pipe limit while duplicate ACKs clock out new data (TCP-NCR's
    /// ELT limit, `elt`, by default).
    fn dupack_send_limit(&self, _tcb: &Tcb, elt: Option<u32>) -> Option<u32> {
        elt
    }
    /// The window rule in fast recovery: RFC 6675 Sec. 5 step (C), cwnd -
    /// pipe >= 1 SMSS.
    fn recovery_window_allows(&self, tcb: &Tcb, _retransmission: bool) -> bool {
        tcb.sb.pipe() as f64 + 1.0 <= tcb.w.cwnd
    }
    /// Can one more segment go out now? Open: within cwnd plus limited
    /// transmit (`lt`), or, while duplicate ACKs clock out new data, by
    /// pipe (RFC 4653 Sec. 4 E steps; a TCP-Aix run); after a timeout, the
    /// pipe rule; in fast recovery, [`Self::recovery_window_allows`].
    #[inline]
    fn window_allows(&self, tcb: &Tcb, lt: &LtState, retransmission: bool) -> bool {
        let cwnd = tcb.w.cwnd;
        match tcb.ca {
            // Linux `tcp_cwnd_test` (tcp_output.c), in every state: one
            // more segment while `tcp_packets_in_flight` (packets out, less
            // the SACKed and the lost, plus the retransmissions out: the
            // pipe) is below cwnd; SACKed segments free room at once, so
            // there is no limited transmit of its own.
            CaState::Open if tcb.cfg.linux.is_some() => {
                tcb.sb.pipe() as f64 + 1.0 <= floor(cwnd).max(1.0)
            }
            CaState::Open => match self.dupack_send_limit(tcb, lt.elt_send_limit()) {
                Some(limit) => tcb.sb.pipe() < limit,
                None => {
                    open_window_allows(tcb.sb.packets_out(), cwnd, lt.allowance(tcb.dupacks, cwnd))
                }
            },
            CaState::Recovery => self.recovery_window_allows(tcb, retransmission),
            CaState::Loss => tcb.sb.pipe() as f64 + 1.0 <= cwnd,
        }
    }
    /// A segment was sent.
    fn on_sent(&mut self, _ca: CaState) {}

    // ----- leaving ---------------------------------------------------------

    /// The recovery ended, or was undone.
    fn on_exit(&mut self) {}
    /// A retransmission timeout ends any recovery.
    fn on_timeout(&mut self) {}
}

/// The Open state's rule: one more segment within max(floor(cwnd), 1) plus
/// limited transmit's `allowance` beyond it, i.e. `out + 1.0 <=
/// floor(cwnd).max(1.0) + allowance as f64`, without the floor: at or
/// below the allowance always; above, `out + 1 - allowance` is a whole
/// number, at most floor(cwnd) exactly when at most cwnd (a NaN window
/// counts as 1, as `max` makes it).
#[inline]
pub fn open_window_allows(out: u32, cwnd: f64, allowance: u32) -> bool {
    out <= allowance || (out as i64 + 1 - allowance as i64) as f64 <= cwnd
}

#[cfg(test)]
mod tests {
    use super::open_window_allows;
    use crate::num::floor;

    /// The rule without the floor answers as the rule with it, on windows
    /// of every size (fractions, whole numbers, below 1, negative, huge,
    /// infinite, NaN), flights around them and allowances.
    #[test]
    fn open_window_rule_without_the_floor_matches_the_rule_with_it() {
        let plain = |out: u32, cwnd: f64, allowance: u32| {
            out as f64 + 1.0 <= floor(cwnd).max(1.0) + allowance as f64
        };
        let mut rng = crate::engine::Rng::from_seed(6675);
        let special = [
            0.0,
            -0.0,
            0.5,
            1.0,
            -3.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4_503_599_627_370_496.5,
            1e300,
        ];
        for step in 0..1_000_000u64 {
            let x = rng.next_u64();
            let cwnd = match x % 4 {
                0 => special[(x >> 8) as usize % special.len()],
                1 => ((x >> 8) % 64) as f64,
                _ => ((x >> 8) % 100_000) as f64 / 64.0,
            };
            let near = cwnd.clamp(0.0, 1e6) as u32;
            let allowance = [0, 1, 2, (x >> 40) as u32 % 50, u32::MAX][(x >> 30) as usize % 5];
            let out = match (x >> 33) % 4 {
                0 => (x >> 36) as u32,
                _ => (near + allowance % 4).saturating_sub(((x >> 36) % 4) as u32),
            };
            assert_eq!(
                open_window_allows(out, cwnd, allowance),
                plain(out, cwnd, allowance),
                "step {step}: out {out}, cwnd {cwnd}, allowance {allowance}"
            );
        }
    }
}
