//! TCP-Aix (Landström, Ekström, Larzon, Ludwig, "TCP-Aix: making TCP robust
//! to reordering and delay variations", Luleå technical report, 2006) on the
//! RFC 6675 SACK sender. The report itself could not be consulted while this
//! was written; the rules and their sources:
//!
//! 1. **Decoupled loss recovery and congestion response.** `dupthresh`
//!    duplicate ACKs start loss recovery at once (the hole at SND.UNA is
//!    retransmitted), but the window is not touched until the *newACK*, the
//!    first ACK that acknowledges that segment. If the newACK was sent in
//!    response to the retransmission, the original was lost: ssthresh and
//!    cwnd are reduced then (once, as a normal SACK fast recovery entered at
//!    that moment, with the recovery point at SND.NXT so that losses among
//!    the data sent meanwhile belong to the same episode). If it was sent in
//!    response to the original, the duplicate ACKs came from reordering and
//!    nothing is reduced. Source: wwan Sec. II ("dupthresh dupacks
//!    immediately trigger loss recovery, but the decision whether to reduce
//!    cwnd is postponed ... TCP-Aix waits for the acknowledgment of the
//!    segment, which was indicated as lost ... If the newACK was sent in
//!    response to the retransmission, the TCP-Aix sender reduces its cwnd")
//!    and the report's abstract, component (i). Which transmission an ACK
//!    answers is told, in TCP-Aix, by the timestamp it echoes; here by the
//!    transmission index the receiver echoes (`Packet::copy`, the RTX bit
//!    of [`crate::tcp::dsack`]'s `-RTX` pairing). The reduction is computed from
//!    the FlightSize at the first duplicate ACK of the episode (as TCP-NCR's
//!    FlightSizePrev, RFC 4653): our choice, the seed does not say.
//! 2. **New data on every duplicate ACK until congestion control acts.**
//!    Source: wwan Sec. II ("Both, TCP-Aix and TCP-NCR sends new
//!    segments in response to each dupack received until congestion control
//!    is initiated") and the abstract's component (ii), "candid growth of the
//!    congestion window upon reception of dupacks". Implemented as: while a
//!    duplicate-ACK run is open, new data is clocked out on
//!    `pipe + 1 <= cwnd` (RFC 6675's pipe, in the Open state: SACKed
//!    segments have left the network), i.e. one new segment per SACKed
//!    segment, and in congestion avoidance the SACKed segments count as
//!    delivered for the controller's growth (not again when the cumulative
//!    ACK covers them). In slow start cwnd is not grown by duplicate ACKs:
//!    a run lasts up to two windows of duplicate ACKs, and doubling the
//!    window twice before a loss is even detected overran the bottleneck
//!    queue by thousands of segments in the wwan path (measured). The
//!    exact growth rule of the report is unknown to us: this one is an
//!    assumption.
//! 4. **Retransmission timer.** Until loss recovery starts, an ACK that
//!    SACKs new data restarts the retransmission timer (RFC 6298 Sec. 5.3
//!    restarts it on cumulatively acknowledged data only); otherwise a run
//!    of two windows of duplicate ACKs (two RTTs and more) outlasts a
//!    200 ms RTO on the wwan path and every loss ends in a timeout
//!    (measured: 42 timeouts in 60 s). From the retransmission on the timer
//!    runs as usual. An assumption of ours, not from the seed.
//! 3. **winthresh.** dupthresh is computed "with regards to the available
//!    buffer space at both the sender and the receiver", "with an upper
//!    bound", two send windows in the wwan paper (wwan Sec. II is the only
//!    source we had; the formula is ours, see
//!    [`crate::tcp::detection::winthresh`]).
//!
//! Congestion control stays the sender's [`crate::tcp::cc`] controller (Reno,
//! CUBIC, ...): TCP-Aix only decides *whether* and *when* its
//! `ssthresh_after_loss` is applied.

use crate::engine::Time;
use crate::num::floor;
use crate::tcp::response::{LossResponse, NewAck, NewlyAcked};
use crate::tcp::tcb::{CaState, Tcb};

/// One duplicate-ACK run of TCP-Aix (first duplicate ACK to newACK).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AixRun {
    /// FlightSize at the first duplicate ACK (the reduction is computed
    /// from it).
    pub flight_prev: u32,
    /// The segment retransmitted when loss recovery started, if it did.
    pub retransmitted: Option<u32>,
}

/// How a duplicate-ACK run ended at a cumulative ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AixVerdict {
    /// SND.UNA advanced before dupthresh: reordering, nothing was resent.
    ShortReordering,
    /// The newACK answered the original: reordering, no reduction (the
    /// retransmission was unnecessary).
    Reordering,
    /// The newACK answered the retransmission: a loss, reduce from
    /// `flight_prev`.
    Loss { flight_prev: u32 },
}

/// TCP-Aix state of a sender.
#[derive(Debug, Clone, Default)]
pub struct Aix {
    run: Option<AixRun>,
}

impl Aix {
    pub fn new() -> Aix {
        Aix::default()
    }

    pub fn run(&self) -> Option<&AixRun> {
        self.run.as_ref()
    }

    /// A duplicate-ACK run is open.
    pub fn active(&self) -> bool {
        self.run.is_some()
    }

    /// Loss recovery has started and the congestion response is pending.
    pub fn recovering(&self) -> bool {
        self.run.is_some_and(|r| r.retransmitted.is_some())
    }

    /// The first duplicate ACK of a run (no-op if one is open).
    pub fn on_dupack(&mut self, flight_size: u32) {
        if self.run.is_none() {
            self.run = Some(AixRun {
                flight_prev: flight_size,
                retransmitted: None,
            });
        }
    }

    /// dupthresh was reached: `seq` (SND.UNA) is retransmitted, the window
    /// is left alone.
    pub fn on_loss_recovery(&mut self, seq: u32, flight_size: u32) {
        let run = self.run.get_or_insert(AixRun {
            flight_prev: flight_size,
            retransmitted: None,
        });
        run.retransmitted = Some(seq);
    }

    /// SND.UNA advanced to `ack`; `echoed_copy` is the transmission index
    /// the ACK answered (0 = the original). Ends the run and says what it
    /// was, or `None` if no run was open.
    pub fn on_new_ack(&mut self, ack: u32, echoed_copy: u16) -> Option<AixVerdict> {
        let run = self.run?;
        let Some(seq) = run.retransmitted else {
            self.run = None;
            return Some(AixVerdict::ShortReordering);
        };
        if ack <= seq {
            return None;
        }
        self.run = None;
        Some(if echoed_copy > 0 {
            AixVerdict::Loss {
                flight_prev: run.flight_prev,
            }
        } else {
            AixVerdict::Reordering
        })
    }

    /// A retransmission timeout ends any run.
    pub fn reset(&mut self) {
        self.run = None;
    }
}

/// TCP-Aix as the sender's loss response: the rules above on RFC 6675
/// recovery (which applies once the reduction is decided).
#[derive(Debug, Clone, Default)]
pub struct AixResponse {
    pub aix: Aix,
}

impl LossResponse for AixResponse {
    fn defers_reduction(&self) -> bool {
        true
    }

    /// Rule 1: dupthresh reached, SND.UNA is retransmitted now and the
    /// window waits for the newACK.
    fn on_deferred_recovery(&mut self, tcb: &mut Tcb) {
        self.aix
            .on_loss_recovery(tcb.sb.una(), tcb.sb.packets_out());
        tcb.stats.aix_loss_recoveries += 1;
    }

    /// Rule 1 at a cumulative ACK in the Open state: the run ends; if the
    /// newACK answered the retransmission the window is reduced, else the
    /// segments not SACKed before grow it (the SACKed ones already did).
    fn on_open_ack(&mut self, tcb: &mut Tcb, a: &NewlyAcked, now: Time) -> NewAck {
        match self.aix.on_new_ack(a.ack, a.echo) {
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

    /// Rules 2 and 4: a duplicate ACK opens a run and its SACKed segments
    /// count as delivered for window growth (not in slow start); until
    /// loss recovery starts they restart the retransmission timer, so that
    /// winthresh (up to two windows of duplicate ACKs) is not cut short.
    fn on_dupack_open(&mut self, tcb: &mut Tcb, newly: u32, now: Time) -> bool {
        self.aix.on_dupack(tcb.sb.packets_out());
        if newly == 0 {
            return false;
        }
        if !tcb.w.in_slow_start() {
            tcb.grow(newly, now);
            tcb.note_cwnd();
        }
        !self.aix.recovering()
    }

    /// From dupthresh on, while still Open.
    fn retransmitting(&self, tcb: &Tcb) -> bool {
        tcb.ca != CaState::Open || self.aix.recovering()
    }

    /// Rule 2: during a run, new data on pipe + 1 <= cwnd (SACKed
    /// segments have left the network).
    fn dupack_send_limit(&self, tcb: &Tcb, elt: Option<u32>) -> Option<u32> {
        elt.or_else(|| self.aix.active().then(|| floor(tcb.w.cwnd).max(1.0) as u32))
    }

    fn on_timeout(&mut self) {
        self.aix.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_from_the_echoed_transmission() {
        let mut a = Aix::new();
        a.on_dupack(20);
        a.on_dupack(21);
        assert_eq!(a.run().unwrap().flight_prev, 20);
        assert_eq!(a.on_new_ack(5, 0), Some(AixVerdict::ShortReordering));
        assert!(!a.active());
        a.on_dupack(20);
        a.on_loss_recovery(5, 25);
        assert!(a.recovering());
        assert_eq!(a.on_new_ack(6, 0), Some(AixVerdict::Reordering));
        a.on_dupack(18);
        a.on_loss_recovery(9, 25);
        assert_eq!(
            a.on_new_ack(12, 1),
            Some(AixVerdict::Loss { flight_prev: 18 })
        );
        assert_eq!(a.on_new_ack(13, 1), None);
    }
}
