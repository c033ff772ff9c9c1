//! The sender's replaceable policies (docs/architecture.md, "The sender"). Each is a small
//! enum so the hot path dispatches with a `match`; a new variant adds a case
//! here (or a file beside this one) and a line in [`super::variants`].

use crate::num::floor;
use crate::tcp::timers::ns2::Ns2Profile;

/// The default and minimum duplicate-ACK threshold (RFC 5681 Sec. 3.2).
pub const MIN_DUPTHRESH: u32 = 3;

/// Loss detection: which outstanding segments are deemed lost, and when.
#[derive(Debug, Clone, PartialEq)]
pub enum DetectionPolicy {
    /// Fixed duplicate-ACK threshold. With SACK: RFC 6675 `IsLost` (DupThresh
    /// SACKed segments above a hole) and entry on DupThresh duplicate ACKs;
    /// without SACK: RFC 5681 Sec. 3.2, the third duplicate ACK.
    DupThresh,
    /// TCP-PR (tcp-pr Sec. III): timers only, mxrtt = beta * srtt; with
    /// `extreme` the Table III rules emulate timeouts.
    TcpPr {
        alpha: f64,
        beta: f64,
        extreme: bool,
    },
    /// RACK (RFC 8985 Sec. 6): a segment is lost once a segment sent after
    /// it was delivered and reo_wnd has passed ([`super::detection::rack`]); no
    /// duplicate-ACK threshold. `adaptive_reordering`: Linux's
    /// `tp->reordering` (3..300) as the DupThresh of RFC 8985 Sec. 6.2
    /// step 4.
    Rack { adaptive_reordering: bool },
}

/// Extra wait before a fast retransmit once dupthresh is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastRetransmitDelay {
    None,
    /// TD-FR: until max(srtt / 2, DT) after the first duplicate ACK
    /// ([`super::detection::dupthresh::td_fr_deadline`]).
    TdFr,
    /// TCP-DCR (Bhandarkar et al.; tcp-pr Sec. II): the response to
    /// duplicate ACKs is delayed by one RTT (srtt) after the first one.
    Dcr,
}

/// What the sender does with DSACK information (RFC 2883, RFC 3708).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DsackResponse {
    /// Plain SACK sender: DSACK blocks are recognised and skipped.
    Ignore,
    /// Detect spurious retransmissions, change nothing (DSACK-NM, the tcp-pr paper).
    Detect,
    /// Detect and undo the window reduction (DSACK-R, rr-tcp Sec. 2.1).
    Undo,
}

/// How an undo restores the window once a reduction is shown spurious.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoResponse {
    /// Add the reduction back to cwnd at once and restore ssthresh (the rr-tcp paper
    /// Sec. 2.1: the sender "can undo the window reduction made at the time
    /// of the retransmission"; Sec. 3 says Blanton and Allman "use DSACK
    /// information to restore the sender's congestion window size").
    Restore,
    /// Blanton and Allman's response as a secondary source describes their
    /// code (docs/sources.md, Blanton-Allman rule 4, from a summary of CCR 2002):
    /// ssthresh = the cwnd before the reduction, cwnd stays where it is and
    /// slow-starts back.
    SlowStartBack,
}

/// How often the RTT is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttTiming {
    /// One timed segment per round trip (BSD, ns-2 of the rr-tcp, tcp-pr and high-speed papers):
    /// a long sample then weighs for eight round trips, not eight ACKs.
    PerRtt,
    /// Every ACK that acknowledges new data (Linux, RFC 7323 timestamps).
    PerAck,
}

/// Which RTT samples feed the RTO estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttSampling {
    /// Karn's algorithm (RFC 6298 Sec. 3): never from retransmitted segments.
    Karn,
    /// DSACK-ES (rr-tcp Sec. 4.4): also the mean of both pairings of a
    /// falsely retransmitted segment once its DSACK arrives.
    DsackEnhanced,
}

/// Loss response: what a loss episode does to the window, and how the
/// missing segments are resent ([`super::response`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponsePolicy {
    /// RFC 5681 Sec. 3.2 fast retransmit / fast recovery with window
    /// inflation; any new ACK ends recovery.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole and keep recovery
    /// going until `recover` is acknowledged.
    NewReno,
    /// RFC 6675: conservative SACK-based recovery driven by `pipe`.
    Sack,
    /// RFC 6937 Proportional Rate Reduction (PRR-SSRB) on the RFC 6675
    /// scoreboard ([`super::response::prr`]).
    Prr,
    /// TCP-Aix ([`super::response::aix`]): the fast retransmit goes at
    /// dupthresh, the reduction waits for the newACK and happens only if
    /// that ACK answers the retransmission (then RFC 6675 recovery); until
    /// then new data is sent on every duplicate ACK. Needs SACK.
    Aix,
    /// TCP-PR (tcp-pr Table I): the window is halved per newly detected
    /// drop, with burst memory, by the TCP-PR loss detection itself
    /// ([`super::detection::tcp_pr`]); only with [`DetectionPolicy::TcpPr`].
    TcpPr,
}

/// How the retransmission timeout is computed from RTT samples
/// ([`super::timers::rto`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtoRules {
    /// RFC 6298 Sec. 2: RTO = SRTT + max(G, 4 RTTVAR), at least the minimum.
    Rfc6298,
    /// Linux `tcp_rtt_estimator` / `tcp_set_rto`: RTO = SRTT + max(4 mdev,
    /// minimum RTO), with Linux's mdev rules ([`super::timers::rto::LinuxRttvar`]).
    Linux,
    /// An ns-2 release's agent ([`super::timers::ns2`]): whole clock ticks,
    /// integer srtt x 8 / rttvar x 4; and its timer rules: the RTT
    /// measurement is cancelled and the timer restarted at a fast
    /// retransmit, cancelled at a timeout, no sample from a partial ACK in
    /// fast recovery, the backoff reset when the timed segment is
    /// acknowledged and at a partial ACK.
    Ns2(Ns2Profile),
}

/// The FlightSize a window reduction at a fast retransmit is computed from
/// (the `flight` of [`super::cc::CongestionOps::ssthresh_after_loss`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SsthreshBase {
    /// RFC 5681 eq. (4): FlightSize, the data outstanding, not counting
    /// what limited transmit sent beyond cwnd.
    FlightSize,
    /// Linux congestion controls: the congestion window
    /// (`tcp_reno_ssthresh`: max(cwnd / 2, 2)).
    Cwnd,
}

/// Early retransmit (RFC 5827, [`super::detection::er`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EarlyRetransmit {
    Off,
    /// Sec. 3.2: with fewer than 4 segments outstanding and no new segment
    /// sendable, DupThresh = outstanding - 1.
    Rfc5827,
    /// Linux 3.5-4.x (`tcp_early_retrans = 2`, the kernel of the tail-loss paper):
    /// with fewer than 4 segments out, any SACK (no retransmission
    /// outstanding, nothing new sendable) triggers the fast retransmit
    /// after max(SRTT / 4, 2 ms) (RFC 5827 Appendix A.3 mitigation).
    Linux,
}

/// RTO management after an ACK of new data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtoRestart {
    /// RFC 6298 Sec. 5.3: RTO from now.
    Off,
    /// RFC 7765 ([`super::timers::rtor`]): RTO - T_earliest with fewer than
    /// `rrthresh` segments outstanding and no unsent data ready.
    Rfc7765 { rrthresh: u32 },
}

/// What follows a retransmission timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtoRecovery {
    /// RFC 5681 Sec. 3.1 / RFC 6298 Sec. 5: slow start from one segment,
    /// retransmitting everything outstanding.
    Conventional,
    /// F-RTO, SACK-enhanced (RFC 5682 Sec. 3, [`super::frto`]): new data
    /// after the first retransmission, and an undo if the timeout proves
    /// spurious.
    Frto,
}

/// Tail loss probe ([`super::timers::tlp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailLossProbe {
    Off,
    /// draft-dukkipati-tcpm-tcp-loss-probe-01 as in Linux 3.17: PTO =
    /// max(2 SRTT, 10 ms), or max(2 SRTT, 1.5 SRTT + WCDelAckT) with one
    /// segment out; re-armed on every ACK. `restart` (TLPR, tail-loss Sec.
    /// 2.3): the timer is PTO - T_last.
    Draft01 {
        restart: bool,
    },
    /// RFC 8985 Sec. 7: PTO = 2 SRTT (+ WCDelAckT with one segment out),
    /// episode recovery by TLP.end_seq / TLP.is_retrans.
    Rfc8985,
}

/// Congestion Window Validation (decay of an unused window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cwv {
    None,
    /// RFC 2861 ([`super::cwv`]).
    Rfc2861,
}

impl Cwv {
    /// The scenario's spelling (`TcpSpec::cwv`).
    pub fn parse(s: &str) -> Option<Cwv> {
        match s {
            "none" => Some(Cwv::None),
            "rfc2861" => Some(Cwv::Rfc2861),
            _ => None,
        }
    }
}

/// Limited transmit: new data sent on duplicate ACKs before recovery.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitedTransmit {
    Off,
    /// RFC 3042: one new segment for each of the first two duplicate ACKs.
    Rfc3042,
    /// RR-TCP (rr-tcp Sec. 4.3): one new segment per duplicate ACK, up to
    /// `k` times cwnd beyond the window.
    CwndMultiple(f64),
    /// TCP-NCR Extended Limited Transmit (RFC 4653): pipe-based, with its
    /// own DupThresh and exit rules ([`super::ncr`]); no allowance beyond
    /// cwnd in the sense of the other two.
    Extended(NcrMode),
}

impl LimitedTransmit {
    /// Segments the sender may have outstanding beyond cwnd after `dupacks`
    /// duplicate ACKs outside recovery.
    #[inline]
    pub fn allowance(&self, dupacks: u32, cwnd: f64) -> u32 {
        if dupacks == 0 {
            // every mode's allowance without a duplicate ACK (most calls)
            return 0;
        }
        match *self {
            LimitedTransmit::Off => 0,
            LimitedTransmit::Rfc3042 => dupacks.min(2),
            LimitedTransmit::CwndMultiple(k) => dupacks.min(floor(k * cwnd) as u32),
            LimitedTransmit::Extended(_) => 0,
        }
    }
}

/// TCP-NCR's Limited Transmit flavour (RFC 4653 Sec. 3), which fixes LT_F
/// ([`super::ncr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcrMode {
    /// Careful Limited Transmit, LT_F = 2/3.
    Careful,
    /// Aggressive Limited Transmit, LT_F = 1/2.
    Aggressive,
}

impl NcrMode {
    /// LT_F as a fraction (numerator, denominator), kept exact so that
    /// DupThresh does not depend on floating-point rounding.
    pub fn lt_f(self) -> (u32, u32) {
        match self {
            NcrMode::Careful => (2, 3),
            NcrMode::Aggressive => (1, 2),
        }
    }

    /// RFC 4653 Sec. 3.1 (I.3) and 3.3 (E.6): DupThresh = max(LT_F *
    /// FlightSize, 3), rounded down to whole segments (the RFC does not
    /// say how to round).
    pub fn dup_thresh(self, flight_size: u32) -> u32 {
        let (num, den) = self.lt_f();
        (num * flight_size / den).max(MIN_DUPTHRESH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limited_transmit_allowances() {
        assert_eq!(LimitedTransmit::Off.allowance(2, 10.0), 0);
        assert_eq!(LimitedTransmit::Rfc3042.allowance(1, 10.0), 1);
        assert_eq!(LimitedTransmit::Rfc3042.allowance(5, 10.0), 2);
        assert_eq!(LimitedTransmit::CwndMultiple(1.0).allowance(7, 10.0), 7);
        assert_eq!(LimitedTransmit::CwndMultiple(1.0).allowance(17, 10.0), 10);
        assert_eq!(LimitedTransmit::CwndMultiple(1.0).allowance(0, 10.0), 0);
        assert_eq!(LimitedTransmit::CwndMultiple(2.0).allowance(0, f64::NAN), 0);
    }
}
