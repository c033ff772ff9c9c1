//! The sender's timers (docs/architecture.md, "The sender"): the retransmission timer with
//! its estimator ([`rto`]) and restart rules (RFC 6298 Sec. 5, RFC 7765,
//! [`rtor`]), and the tail loss probe's timer ([`tlp`]). The loss
//! detection's own timers (a delayed fast retransmit, RACK's reorder timer,
//! TCP-PR's per-segment deadlines) belong to [`crate::tcp::detection`]; the
//! sender offers the engine the earliest of them all.
//!
//! A pending probe timeout replaces the retransmission timer (Linux: one
//! timer, `icsk_pending` = `ICSK_TIME_LOSS_PROBE`); the PTO is never later
//! than the RTO.

pub mod ns2;
pub mod rto;
pub mod rtor;
pub mod tlp;

use crate::engine::time::to_secs;
use crate::engine::Time;
use crate::tcp::config::SenderConfig;
use crate::tcp::policy::{DetectionPolicy, RtoRestart, RtoRules, TailLossProbe};
use crate::tcp::tcb::{CaState, Tcb};

use rtor::restart_deadline;
use tlp::Tlp;

#[derive(Debug, Clone)]
pub struct Timers {
    /// There is a retransmission timer (TCP-PR's per-segment timers
    /// replace it: tcp-pr Sec. III).
    rto_enabled: bool,
    rto_deadline: Option<Time>,
    restart: RtoRestart,
    /// Tail loss probe state, when the variant probes.
    pub probe: Option<Tlp>,
    /// An ns-2 agent's timer rules ([`RtoRules::Ns2`]).
    ns2: bool,
}

/// The earlier of two optional deadlines.
#[inline]
pub fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

impl Timers {
    pub fn new(cfg: &SenderConfig) -> Timers {
        Timers {
            rto_enabled: !matches!(cfg.detection, DetectionPolicy::TcpPr { .. }),
            rto_deadline: None,
            restart: cfg.rto_restart,
            probe: (cfg.tlp != TailLossProbe::Off).then(|| Tlp::new(cfg.tlp)),
            ns2: matches!(cfg.rto_rules, RtoRules::Ns2(_)),
        }
    }

    /// A fast retransmit. ns-2's agents (`reset_rtx_timer(1, 0)` in
    /// Sack1's `dupack_action`) restart the timer and cancel the RTT
    /// measurement.
    pub fn on_fast_retransmit(&mut self, tcb: &mut Tcb, now: Time) {
        if self.ns2 && self.rto_enabled {
            tcb.timed = None;
            self.arm_rto(tcb, now);
        }
    }

    /// A timeout. ns-2 (`reset_rtx_timer(0, 1)`) also cancels the RTT
    /// measurement.
    pub fn on_timeout(&mut self, tcb: &mut Tcb) {
        if self.ns2 {
            tcb.timed = None;
        }
    }

    /// May this ACK of new data give an RTT sample? ns-2's Sack1 takes none
    /// from a partial ACK in fast recovery (it does not call `newack`).
    #[inline]
    pub fn samples_on_ack(&self, tcb: &Tcb, ack: u32) -> bool {
        !(self.ns2 && tcb.ca == CaState::Recovery && tcb.recover.is_some_and(|r| ack < r))
    }

    /// The timed segment was acknowledged: ns-2 ends the backoff then
    /// (`newack`), and only then.
    #[inline]
    pub fn on_timed_segment_acked(&self, tcb: &mut Tcb) {
        if self.ns2 {
            tcb.rtt.reset_backoff();
        }
    }

    /// A sample from the timestamp option: ns-2 with `ts_resetRTO_` (the
    /// setting the wwan paper names) ends the backoff at every such sample
    /// (`newack`); `ts_resetRTO_` off is not modelled.
    #[inline]
    pub fn on_timestamp_sample(&self, tcb: &mut Tcb) {
        if self.ns2 {
            tcb.rtt.reset_backoff();
        }
    }

    /// The sender has a retransmission timer (and so feeds its estimator).
    #[inline]
    pub fn has_rto(&self) -> bool {
        self.rto_enabled
    }

    /// The retransmission timer's expiry, unless a probe timeout stands in
    /// for it.
    #[inline]
    pub fn rto_deadline(&self) -> Option<Time> {
        match self.pto_deadline() {
            Some(_) => None,
            None => self.rto_deadline,
        }
    }

    /// The retransmission timer's expiry, even behind a pending probe.
    #[inline]
    pub fn rto_armed_at(&self) -> Option<Time> {
        self.rto_deadline
    }

    #[inline]
    pub fn pto_deadline(&self) -> Option<Time> {
        self.probe.as_ref().and_then(|t| t.deadline)
    }

    /// The probe timer is cancelled (a fast retransmit, a timeout).
    #[inline]
    pub fn cancel_probe(&mut self) {
        if let Some(t) = self.probe.as_mut() {
            t.deadline = None;
        }
    }

    /// (Re)start the retransmission timer RTO from now (RFC 6298 Sec. 5.1,
    /// 5.3, 5.6).
    #[inline]
    pub fn arm_rto(&mut self, tcb: &mut Tcb, now: Time) {
        let rto = tcb.rtt.rto();
        self.rto_deadline = Some(now + rto);
        note_rto(tcb, rto);
    }

    #[inline]
    pub fn stop_rto(&mut self) {
        self.rto_deadline = None;
    }

    /// A segment was sent: RFC 6298 Sec. 5.1, start the timer if it is not
    /// running.
    #[inline]
    pub fn on_sent(&mut self, tcb: &mut Tcb, now: Time) {
        if self.rto_deadline.is_none() && self.rto_enabled {
            self.arm_rto(tcb, now);
        }
    }

    /// An ACK of new data: RFC 6298 Sec. 5.2-5.3 (stop the timer when
    /// nothing is outstanding, else restart it), or RFC 7765's restart.
    /// `restart`: the loss response allows a restart on this ACK.
    #[inline]
    pub fn on_new_ack(&mut self, tcb: &mut Tcb, restart: bool, now: Time) {
        if !self.rto_enabled {
            return;
        }
        if tcb.sb.packets_out() == 0 {
            self.rto_deadline = None;
            return;
        }
        if !restart {
            return;
        }
        if self.ns2 && tcb.ca == CaState::Recovery {
            // Sack1, a partial ACK: `t_backoff_ = 1; newtimer()`.
            tcb.rtt.reset_backoff();
        }
        let RtoRestart::Rfc7765 { rrthresh } = self.restart else {
            self.arm_rto(tcb, now);
            return;
        };
        // RFC 7765 Sec. 4: RTO - T_earliest, T_earliest from the earliest
        // transmission among the (fewer than rrthresh) outstanding segments.
        let out = tcb.sb.packets_out();
        let earliest_sent = if out < rrthresh {
            (tcb.sb.una()..tcb.sb.nxt())
                .filter_map(|s| tcb.sb.seg(s))
                .filter(|s| !s.sacked)
                .map(|s| s.sent_at)
                .min()
                .unwrap_or(now)
        } else {
            now
        };
        let rto = tcb.rtt.rto();
        let at = restart_deadline(now, rto, out, tcb.has_new_data(), rrthresh, earliest_sent);
        self.rto_deadline = Some(at);
        note_rto(tcb, rto);
    }
}

/// The RTO each time the timer is (re)armed (its mean is reported).
fn note_rto(tcb: &mut Tcb, rto: Time) {
    tcb.stats.rto_sum += to_secs(rto);
    tcb.stats.rto_count += 1;
}
