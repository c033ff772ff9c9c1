//! Loss detection by duplicate ACKs: RFC 5681 Sec. 3.2 (the DupThresh-th
//! duplicate ACK) and, with SACK, RFC 6675 Sec. 4-5 (`IsLost`: DupThresh
//! SACKed segments above a hole; entry on DupThresh duplicate ACKs), with
//! the variations the papers study:
//!
//! * the threshold from a policy ([`super::dupthresh`]: fixed, RR-TCP FA /
//!   TA, Blanton-Allman, AVG-DEV, TCP-Aix winthresh), or TCP-NCR's during
//!   Extended Limited Transmit (RFC 4653);
//! * a delayed fast retransmit (TD-FR, TCP-DCR, the Blanton-Allman timers);
//! * early retransmit (RFC 5827, and Linux 3.17's SRTT / 4 delay);
//! * FACK (Mathis & Mahdavi 1996; Linux 3.17's `tcp_fack`);
//! * with Linux 3.17's `tp->reordering` as the threshold
//!   ([`super::dupthresh::LinuxReordering`]), that kernel's response to a measured reordering
//!   (`tcp_update_reordering`): the threshold is raised, FACK is turned off
//!   and early retransmit is disabled for the rest of the connection (RFC
//!   5827 Appendix A.1 suggests the latter).

use crate::engine::Time;
use crate::tcp::config::SenderConfig;
use crate::tcp::detection::dupthresh::{td_fr_deadline, DupthreshPolicy};
use crate::tcp::detection::er::{er_delay, er_thresh, ER_MAX_OUTSTANDING};
use crate::tcp::detection::{LossDetector, Spurious, TimerVerdict};
use crate::tcp::policy::{EarlyRetransmit, FastRetransmitDelay, MIN_DUPTHRESH};
use crate::tcp::scoreboard::SegState;
use crate::tcp::tcb::{CaState, Tcb};

#[derive(Debug, Clone)]
pub struct DupAck {
    /// How dupthresh is set; learns from reordering samples and DSACKs.
    pub policy: DupthreshPolicy,
    /// Current dupthresh.
    pub dupthresh: u32,
    /// A delayed fast retransmit is due then (TD-FR, TCP-DCR, the
    /// Blanton-Allman timers, Linux early retransmit).
    pub fr_deadline: Option<Time>,
    /// FACK in use (a measured reordering turns it off with Linux's
    /// threshold).
    pub fack: bool,
    /// Early retransmit in use (likewise disabled for the connection).
    pub early_retransmit: EarlyRetransmit,
    /// The end of the highest SACKed segment before this ACK.
    prior_fack: u32,
    /// The lowest never-retransmitted segment this ACK delivered below
    /// `prior_fack` (Linux 3.17 `state.reord` / `reord`).
    reordered: Option<u32>,
}

impl DupAck {
    pub fn new(cfg: &SenderConfig) -> DupAck {
        DupAck {
            policy: cfg.dupthresh.clone(),
            dupthresh: MIN_DUPTHRESH,
            fr_deadline: None,
            fack: cfg.fack,
            early_retransmit: cfg.early_retransmit,
            prior_fack: 0,
            reordered: None,
        }
    }

    /// Linux 3.17 `tcp_update_reordering` for a measured distance `metric`
    /// (segments from the late segment to the highest SACKed one): a larger
    /// one raises `tp->reordering` and turns FACK off; any one disables
    /// early retransmit.
    fn on_reordering_measured(&mut self, metric: u32) {
        let DupthreshPolicy::Linux(l) = &mut self.policy else {
            return;
        };
        if l.on_measured(metric) {
            self.fack = false;
            self.dupthresh = l.reordering;
        }
        if metric > 0 {
            self.early_retransmit = EarlyRetransmit::Off;
        }
    }

    /// Loss detection: has the threshold been reached (RFC 5681 Sec. 3.2,
    /// RFC 6675 `IsLost` of SND.UNA, FACK)?
    fn time_to_recover(&self, tcb: &Tcb) -> bool {
        let una = tcb.sb.una();
        tcb.dupacks >= self.dupthresh
            || (tcb.cfg.use_sack && tcb.sb.is_lost(una, self.dupthresh))
            || (self.fack && tcb.fackets_out() > self.dupthresh)
    }

    /// Linux 3.17 early retransmit (`tcp_time_to_recover`, trick #6):
    /// fewer than 4 segments out, at least one SACKed, no retransmission
    /// outstanding, nothing new sendable.
    fn early_retransmit_due(&self, tcb: &Tcb) -> bool {
        self.early_retransmit == EarlyRetransmit::Linux
            && tcb.ca == CaState::Open
            && tcb.sb.packets_out() < ER_MAX_OUTSTANDING
            && tcb.sb.sacked_out() > 0
            && tcb.sb.packets_out() > tcb.sb.sacked_out()
            && tcb.sb.retrans_out() == 0
            && !tcb.can_send_new()
    }

    /// The fast retransmit is an early retransmit (below dupthresh).
    fn early(&self, tcb: &Tcb) -> bool {
        self.early_retransmit_due(tcb) && tcb.dupacks < self.dupthresh
    }

    /// When a delayed fast retransmit may go (TD-FR, TCP-DCR, the
    /// Blanton-Allman timers, RFC 5827 Appendix A.3); `None` without an
    /// RTT sample.
    fn fast_retransmit_wait(&self, tcb: &Tcb, now: Time) -> Option<Time> {
        let srtt = tcb.rtt.srtt()?;
        let first = tcb.first_dupack_at.unwrap_or(now);
        let bl_delay = match &self.policy {
            DupthreshPolicy::BlantonAllman(bl) => bl.delay(srtt),
            _ => 0,
        };
        if self.early(tcb) {
            // RFC 5827 Appendix A.3 as Linux: wait SRTT / 4.
            return Some(now + er_delay(srtt));
        }
        let td = match tcb.cfg.fr_delay {
            FastRetransmitDelay::TdFr => {
                td_fr_deadline(first, tcb.third_dupack_at.unwrap_or(now), srtt)
            }
            FastRetransmitDelay::Dcr => first + srtt,
            FastRetransmitDelay::None => first,
        };
        Some(td.max(first + bl_delay))
    }

    /// FACK loss marking: the head fackets_out - dupthresh segments.
    fn fack_mark_lost(&self, tcb: &mut Tcb) {
        if !self.fack {
            return;
        }
        let (una, f) = (tcb.sb.una(), tcb.fackets_out());
        if f > self.dupthresh {
            for seq in una..una + (f - self.dupthresh) {
                tcb.sb.mark_lost(seq);
            }
        }
    }
}

impl LossDetector for DupAck {
    fn dupthresh(&self) -> u32 {
        self.dupthresh
    }

    fn fa_ratio(&self) -> Option<f64> {
        self.policy.fa_ratio()
    }

    fn reorder_percentile(&self, q: f64) -> Option<u32> {
        self.policy.reorder_percentile(q)
    }

    fn deadline(&self) -> Option<Time> {
        self.fr_deadline
    }

    fn fast_retransmit_pending(&self) -> bool {
        self.fr_deadline.is_some()
    }

    /// The Linux 3.17 policy (Linux-ER and the tail-loss family) decides
    /// on every ACK that SACKs new data (`tcp_ack_is_dubious`).
    fn dubious_acks(&self) -> bool {
        matches!(self.policy, DupthreshPolicy::Linux(_))
    }

    /// dupthresh for this ACK: the policy's value (TCP-Aix's winthresh is
    /// held for a duplicate-ACK run), TCP-NCR's DupThresh while ELT runs
    /// (`elt`), and RFC 5827 Sec. 3.2's ER_thresh with a small flight and
    /// nothing new to send.
    #[inline]
    fn before_ack(&mut self, tcb: &Tcb, elt: Option<u32>, now: Time) {
        if let DupthreshPolicy::Linux(_) = self.policy {
            self.prior_fack = highest_sacked_end(tcb);
        }
        self.dupthresh = match &mut self.policy {
            DupthreshPolicy::Winthresh(_) if tcb.dupacks > 0 => self.dupthresh,
            DupthreshPolicy::Winthresh(wt) => {
                wt.dupthresh(tcb.cfg.max_window, tcb.sb.packets_out(), tcb.w.cwnd)
            }
            p => p.value(tcb.w.cwnd, || rto_and_srtt(tcb), now),
        };
        if let Some(d) = elt {
            self.dupthresh = d;
        }
        if self.early_retransmit == EarlyRetransmit::Rfc5827 && tcb.ca == CaState::Open {
            if let Some(t) = er_thresh(tcb.sb.packets_out(), tcb.can_send_new()) {
                self.dupthresh = self.dupthresh.min(t);
            }
        }
    }

    /// Linux 3.17 `tcp_sacktag_one` / `tcp_clean_rtx_queue`: a
    /// never-retransmitted segment delivered at or below the highest SACKed
    /// one ("non-retransmitted hole got filled? That's reordering").
    #[inline]
    fn on_delivered(&mut self, seq: u32, seg: &SegState, _now: Time) {
        let measuring = matches!(self.policy, DupthreshPolicy::Linux(_));
        if measuring && seg.copies == 1 && seq < self.prior_fack {
            self.reordered = Some(self.reordered.map_or(seq, |r| r.min(seq)));
        }
    }

    /// The distance of this ACK's reordering, from the late segment to the
    /// highest SACKed one (`tp->fackets_out - reord`).
    #[inline]
    fn after_deliveries(&mut self, tcb: &mut Tcb, _now: Time) {
        if let Some(seq) = self.reordered.take() {
            let fack = self.prior_fack.max(highest_sacked_end(tcb));
            self.on_reordering_measured(fack - seq);
        }
    }

    /// A duplicate ACK in the Open state (RFC 6675 Sec. 5 steps 1-4): mark
    /// what `IsLost` (and FACK) says, then decide whether the fast
    /// retransmit is due now, later (a delayed fast retransmit arms
    /// [`DupAck::fr_deadline`]) or not.
    fn on_dupack(&mut self, tcb: &mut Tcb, allowed: bool, pending: bool, now: Time) -> bool {
        if tcb.cfg.use_sack {
            tcb.sb.mark_lost_by_dupthresh(self.dupthresh);
            self.fack_mark_lost(tcb);
        }
        let due = (self.time_to_recover(tcb) && allowed) || self.early_retransmit_due(tcb);
        if pending || !due || self.fr_deadline.is_some() {
            return false;
        }
        match self.fast_retransmit_wait(tcb, now) {
            Some(t) if t > now => {
                self.fr_deadline = Some(t);
                false
            }
            _ => true,
        }
    }

    /// In fast recovery with SACK, every ACK re-marks by `IsLost` (RFC 6675
    /// Sec. 5 step C) and FACK.
    #[inline]
    fn detect(&mut self, tcb: &mut Tcb, _dsack: bool, _now: Time) -> bool {
        if tcb.cfg.use_sack && tcb.ca == CaState::Recovery {
            tcb.sb.mark_lost_by_dupthresh(self.dupthresh);
            self.fack_mark_lost(tcb);
        }
        false
    }

    /// The delayed fast retransmit's timer: is the hole still there?
    fn on_timer(&mut self, tcb: &mut Tcb, now: Time) -> TimerVerdict {
        if self.fr_deadline.is_none_or(|t| t > now) {
            return TimerVerdict::Nothing;
        }
        self.fr_deadline = None;
        let due = tcb.dupacks >= self.dupthresh || self.early_retransmit_due(tcb);
        if tcb.ca == CaState::Open && due {
            TimerVerdict::FastRetransmit
        } else {
            TimerVerdict::Nothing
        }
    }

    fn on_enter_recovery(&mut self) -> bool {
        self.fr_deadline = None;
        true
    }

    fn is_early_retransmit(&self, tcb: &Tcb) -> bool {
        self.early(tcb)
    }

    fn on_window_advance(&mut self) {
        self.fr_deadline = None;
    }

    /// The thresholds that learn from timeouts (RR-TCP Sec. 4.3.1,
    /// Blanton-Allman, AVG-DEV's decrease; Linux 3.17's `tcp_enter_loss`: a timeout in the Open
    /// state after at least `sysctl_tcp_reordering` SACKed segments means
    /// the reordering was over-estimated); a pending delayed fast
    /// retransmit is dropped.
    fn on_timeout(&mut self, tcb: &Tcb) {
        match &mut self.policy {
            DupthreshPolicy::RrTcp(rr) => {
                if let Some(srtt) = tcb.rtt.srtt() {
                    rr.on_timeout(tcb.w.cwnd, tcb.rtt.rto(), srtt);
                }
            }
            DupthreshPolicy::BlantonAllman(bl) => bl.on_timeout(),
            DupthreshPolicy::Linux(l) => {
                if tcb.ca == CaState::Open && tcb.sb.sacked_out() >= MIN_DUPTHRESH {
                    l.reordering = l.reordering.min(MIN_DUPTHRESH);
                }
            }
            // The first timeout of a segment (not a recurring one).
            DupthreshPolicy::AvgDev(ad) if tcb.ca != CaState::Loss => ad.on_timeout(),
            DupthreshPolicy::Fixed(_)
            | DupthreshPolicy::AvgDev(_)
            | DupthreshPolicy::Winthresh(_) => {}
        }
        self.fr_deadline = None;
    }

    /// RR-TCP's histogram, AVG-DEV's estimator.
    fn on_reordering_sample(&mut self, len: u32, now: Time) {
        self.policy.on_reordering_sample(len, now);
    }

    fn on_limited_transmit_idle(&mut self, idle: Time, dupacks: u32, cwnd: f64, srtt: Time) {
        if let DupthreshPolicy::RrTcp(rr) = &mut self.policy {
            rr.on_limited_transmit_idle(idle, dupacks, cwnd, srtt);
        }
    }

    /// Linux 3.17 `tcp_try_undo_partial`: `tcp_update_reordering(sk,
    /// tcp_fackets_out(tp) + acked, 1)`.
    fn on_delayed_original(&mut self, distance: u32) {
        self.on_reordering_measured(distance);
    }

    /// RR-TCP's histogram and cost of a false fast retransmit (Sec.
    /// 4.1-4.3), the Blanton-Allman schemes, AVG-DEV.
    fn on_spurious(&mut self, s: &Spurious, now: Time) {
        match &mut self.policy {
            DupthreshPolicy::RrTcp(rr) => {
                if let Some(len) = s.reordering {
                    rr.on_sample(len, now);
                }
                if s.fast {
                    rr.on_false_fast_retransmit(s.since_retransmit);
                }
            }
            DupthreshPolicy::BlantonAllman(bl) => {
                if s.fast {
                    let dupacks = s.episode.map_or(self.dupthresh, |e| e.0);
                    bl.on_false_fast_retransmit(dupacks, s.reordering, s.episode.and_then(|e| e.1));
                }
            }
            DupthreshPolicy::AvgDev(ad) => {
                if let Some(len) = s.reordering {
                    ad.on_sample(len);
                }
            }
            DupthreshPolicy::Fixed(_)
            | DupthreshPolicy::Linux(_)
            | DupthreshPolicy::Winthresh(_) => {}
        }
    }

    /// dupthresh is TCP-NCR's again (a re-started ELT's) or the policy's.
    fn after_elt(&mut self, elt: Option<u32>, cwnd: f64, now: Time) {
        self.dupthresh = match elt {
            Some(t) => t,
            None => self.policy.value(cwnd, || None, now),
        };
    }

    fn set_elt_dupthresh(&mut self, t: u32) {
        self.dupthresh = t;
    }
}

/// RTO and SRTT, once there is a (non-zero) RTT sample.
fn rto_and_srtt(tcb: &Tcb) -> Option<(Time, Time)> {
    let srtt = tcb.rtt.srtt().filter(|&s| s > 0)?;
    Some((tcb.rtt.rto(), srtt))
}

/// The end of the highest SACKed segment (SND.UNA if none).
fn highest_sacked_end(tcb: &Tcb) -> u32 {
    tcb.sb
        .sacked_ranges()
        .last()
        .map_or(tcb.sb.una(), |&(_, r)| r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::TcpSpec;
    use crate::tcp::cc::CongestionControl;
    use crate::tcp::detection::dupthresh::LinuxReordering;
    use crate::tcp::variants;

    /// A Linux-ER TCB with 10 segments out and `sacked` of them SACKed
    /// (from segment 5 on), and its detector with tp->reordering 7.
    fn linux_er(sacked: u32) -> (Tcb, DupAck) {
        let cfg = variants::resolve("Linux-ER", &TcpSpec::default(), 0).unwrap();
        let mut d = DupAck::new(&cfg);
        d.policy = DupthreshPolicy::Linux(LinuxReordering { reordering: 7 });
        let mut tcb = Tcb::new(cfg, CongestionControl::by_name("reno").unwrap(), 0, 1);
        for _ in 0..10 {
            tcb.sb.send_new(0, 10.0);
        }
        tcb.sb.sack(5, 5 + sacked, |_, _| {});
        (tcb, d)
    }

    fn reordering(d: &DupAck) -> u32 {
        match d.policy {
            DupthreshPolicy::Linux(l) => l.reordering,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_timeout_after_substantial_dupacks_resets_tp_reordering() {
        // tcp_enter_loss: in the Open state with >= 3 SACKed segments, the
        // reordering was over-estimated: tp->reordering back to 3.
        let (tcb, mut d) = linux_er(3);
        d.on_timeout(&tcb);
        assert_eq!(reordering(&d), 3);
        // Fewer SACKed, or not in the Open state: kept.
        let (tcb, mut d) = linux_er(2);
        d.on_timeout(&tcb);
        assert_eq!(reordering(&d), 7);
        let (mut tcb, mut d) = linux_er(3);
        tcb.ca = CaState::Recovery;
        d.on_timeout(&tcb);
        assert_eq!(reordering(&d), 7);
    }

    #[test]
    fn tp_reordering_grows_to_larger_distances_up_to_300() {
        let mut l = LinuxReordering::new();
        assert!(!l.on_measured(3));
        assert!(l.on_measured(5));
        assert!(!l.on_measured(4));
        assert_eq!(l.reordering, 5);
        assert!(l.on_measured(1000));
        assert_eq!(l.reordering, 300);
    }
}
