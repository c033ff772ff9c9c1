//! Tail loss probe: draft-dukkipati-tcpm-tcp-loss-probe-01 (the Linux 3.17
//! TLP of tail-loss Sec. 2.2), TLPR (tail-loss Sec. 2.3) and RFC 8985 Sec. 7.
//!
//! When a connection with data outstanding falls silent, a probe timeout
//! (PTO) shorter than the RTO sends one probe: a new segment if one is
//! ready and the receiver window allows it, else a retransmission of the
//! highest segment sent. Its ACK (or SACK) lets early retransmit, FACK /
//! dupthresh or RACK repair the tail instead of a timeout.
//!
//! PTO:
//! * draft-01 (Sec. 2.1): max(2 SRTT, 10 ms) with several segments out;
//!   max(2 SRTT, 1.5 SRTT + WCDelAckT) with one; WCDelAckT = 200 ms.
//! * RFC 8985 Sec. 7.2: 2 SRTT, + WCDelAckT (max_ack_delay) when FlightSize
//!   is one segment.
//! * Both: never later than the pending RTO (`min(PTO, RTO)`).
//! * Linux (`tcp_schedule_loss_probe`, with [`crate::tcp::kernel`]): 2
//!   SRTT + `TCP_TIMEOUT_MIN_US` (2 ms), or + `tcp_rto_min_us` with one
//!   segment out, in jiffies, at most the RTO's, on the timer wheel.
//! * TLPR: the timer is PTO - T_last, T_last = time since the last
//!   outstanding segment was sent (tail-loss Sec. 2.3), PTO being the
//!   minimum already taken with the RTO (Sec. 2.2: "the PTO is set to the
//!   minimum of the calculated PTO and the RTO"): min(PTO, RTO) - T_last.
//!
//! Episodes (RFC 8985 Sec. 7.4, same rules as Linux `tcp_process_tlp_ack`):
//! a probe opens an episode with TLP.end_seq = SND.NXT and TLP.is_retrans;
//! no other probe goes out until it ends. It ends when an ACK reaches
//! TLP.end_seq and: the probe was new data; or a DSACK reports the probe
//! as a duplicate (it was not needed: no window change); or the ACK goes
//! beyond TLP.end_seq without such a DSACK (the probe repaired a loss:
//! congestion response, cwnd and ssthresh reduced once); or the ACK is a
//! pure duplicate of TLP.end_seq (undeterminable, no change).

use crate::engine::time::ms;
use crate::engine::Time;
use crate::tcp::kernel::{probe_timeout, LinuxKernel};
use crate::tcp::policy::TailLossProbe;

/// WCDelAckT / max_ack_delay: the worst-case delayed-ACK timer (200 ms,
/// draft-01 Sec. 2.1; Linux `TCP_DELACK_MAX`).
pub const WC_DEL_ACK_T: Time = 200_000_000;

/// How a TLP episode ended on this ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpisodeEnd {
    /// Still open (or none).
    Open,
    /// Ended without a congestion response (new-data probe, DSACKed probe,
    /// pure duplicate).
    NoLoss,
    /// The probe repaired a loss: reduce the window (RFC 8985 Sec. 7.4.2).
    Repaired,
}

#[derive(Debug, Clone)]
pub struct Tlp {
    pub mode: TailLossProbe,
    /// PTO timer expiry, when armed.
    pub deadline: Option<Time>,
    /// TLP.end_seq: SND.NXT when the probe went out (episode open).
    pub end_seq: Option<u32>,
    /// TLP.is_retrans.
    pub is_retrans: bool,
    /// The segment the probe carried.
    pub probe_seq: u32,
    /// Linux's timer: the kernel and its `tcp_rto_min_us`.
    pub kernel: Option<(LinuxKernel, Time)>,
}

impl Tlp {
    pub fn new(mode: TailLossProbe) -> Tlp {
        Tlp {
            mode,
            deadline: None,
            end_seq: None,
            is_retrans: false,
            probe_seq: 0,
            kernel: None,
        }
    }

    /// The PTO for `outstanding` segments (draft-01 eq. 1-2 of the tail-loss paper, or
    /// RFC 8985 Sec. 7.2).
    pub fn pto(&self, srtt: Time, outstanding: u32) -> Time {
        match self.mode {
            TailLossProbe::Rfc8985 => 2 * srtt + if outstanding == 1 { WC_DEL_ACK_T } else { 0 },
            _ => {
                let two = 2 * srtt;
                if outstanding == 1 {
                    two.max(srtt + srtt / 2 + WC_DEL_ACK_T)
                } else {
                    two.max(ms(10))
                }
            }
        }
    }

    /// Arm the PTO at `now`: `last_sent` is when the last outstanding
    /// segment was sent (TLPR), `rto_deadline` caps the expiry.
    pub fn arm(
        &mut self,
        now: Time,
        srtt: Time,
        outstanding: u32,
        last_sent: Time,
        rto_deadline: Option<Time>,
    ) {
        if let Some((k, rto_min)) = self.kernel {
            let mut timeout = k.to_jiffies(probe_timeout(srtt, outstanding, rto_min));
            if let Some(r) = rto_deadline {
                timeout = timeout.min(k.to_jiffies(r.saturating_sub(now)));
            }
            self.deadline = Some(k.fires_at(now, timeout));
            return;
        }
        let pto = self.pto(srtt, outstanding);
        let t_last = match self.mode {
            TailLossProbe::Draft01 { restart: true } => now.saturating_sub(last_sent),
            _ => 0,
        };
        let capped = rto_deadline.map_or(now + pto, |r| r.min(now + pto));
        self.deadline = Some(capped.saturating_sub(t_last).max(now));
    }

    /// A probe was sent: open the episode.
    pub fn on_probe(&mut self, seq: u32, snd_nxt: u32, is_retrans: bool) {
        self.deadline = None;
        self.end_seq = Some(snd_nxt);
        self.is_retrans = is_retrans;
        self.probe_seq = seq;
    }

    pub fn episode_open(&self) -> bool {
        self.end_seq.is_some()
    }

    /// RFC 8985 Sec. 7.4.2 on an ACK with cumulative point `ack`;
    /// `dsack_probe`: its DSACK covers the probe's segment; `pure_dup`: it
    /// neither advanced SND.UNA nor SACKed new data nor carried a DSACK.
    pub fn on_ack(&mut self, ack: u32, dsack_probe: bool, pure_dup: bool) -> EpisodeEnd {
        let Some(end) = self.end_seq else {
            return EpisodeEnd::Open;
        };
        if ack < end {
            return EpisodeEnd::Open;
        }
        let outcome = if !self.is_retrans || dsack_probe {
            EpisodeEnd::NoLoss
        } else if ack > end {
            EpisodeEnd::Repaired
        } else if pure_dup {
            EpisodeEnd::NoLoss
        } else {
            return EpisodeEnd::Open;
        };
        self.end_seq = None;
        outcome
    }

    pub fn reset(&mut self) {
        self.deadline = None;
        self.end_seq = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pto_equations_of_the_draft_and_rfc8985() {
        let d = Tlp::new(TailLossProbe::Draft01 { restart: false });
        // Eq. 1 and 2 of the tail-loss paper.
        assert_eq!(d.pto(ms(80), 5), ms(160));
        assert_eq!(d.pto(ms(2), 5), ms(10));
        assert_eq!(d.pto(ms(80), 1), ms(320));
        assert_eq!(d.pto(ms(640), 1), ms(1280));
        let r = Tlp::new(TailLossProbe::Rfc8985);
        assert_eq!(r.pto(ms(80), 5), ms(160));
        assert_eq!(r.pto(ms(80), 1), ms(360));
    }

    #[test]
    fn tlpr_subtracts_t_last_from_the_pto_capped_by_the_rto() {
        // PTO 320 ms, the RTO due at 440 ms: min(480, 440) - T_last 80 ms.
        let mut t = Tlp::new(TailLossProbe::Draft01 { restart: true });
        t.arm(ms(160), ms(80), 1, ms(80), Some(ms(440)));
        assert_eq!(t.deadline, Some(ms(360)));
        // tail-loss Fig. 1 at RTT 20 ms (quickack, one segment lost): PTO
        // 230 ms, the RTO (220 ms) due first, the segment sent 20 ms ago:
        // the probe at 200 ms from now, i.e. as RTOR's timer.
        t.arm(ms(40), ms(20), 1, ms(20), Some(ms(260)));
        assert_eq!(t.deadline, Some(ms(240)));
        // T_last longer than the PTO: at once.
        t.arm(ms(900), ms(20), 1, ms(20), Some(ms(1120)));
        assert_eq!(t.deadline, Some(ms(900)));
        let mut p = Tlp::new(TailLossProbe::Draft01 { restart: false });
        p.arm(ms(160), ms(80), 1, ms(80), Some(ms(440)));
        assert_eq!(p.deadline, Some(ms(440)));
    }

    #[test]
    fn episode_ends_by_the_rfc8985_rules() {
        let mut t = Tlp::new(TailLossProbe::Rfc8985);
        t.on_probe(9, 10, true);
        assert_eq!(t.on_ack(9, false, false), EpisodeEnd::Open);
        assert_eq!(t.on_ack(10, false, false), EpisodeEnd::Open);
        assert_eq!(t.on_ack(10, true, false), EpisodeEnd::NoLoss);
        assert!(!t.episode_open());
        t.on_probe(9, 10, true);
        assert_eq!(t.on_ack(12, false, false), EpisodeEnd::Repaired);
        t.on_probe(9, 10, false);
        assert_eq!(t.on_ack(10, false, false), EpisodeEnd::NoLoss);
    }
}
