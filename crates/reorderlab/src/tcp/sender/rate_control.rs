//! The sender's side of delivery-rate estimation ([`crate::tcp::rate`]),
//! pacing ([`crate::tcp::pacing`]) and BBR ([`crate::tcp::cc::bbr`]), in
//! the order Linux's `tcp_ack` runs them: the ACK's deliveries feed the
//! rate sample (`tcp_rate_skb_delivered`), then `tcp_rate_gen`, then the
//! congestion control's `cong_control` (BBR: `bbr_main`) or
//! `tcp_update_pacing_rate`; every transmission records its delivery state
//! (`tcp_rate_skb_sent`) and moves the next departure time.
//!
//! BBR owns cwnd: in Linux a `cong_control` controller is the only one to
//! change it on an ACK (`tcp_cong_control` skips PRR and `cong_avoid`,
//! `tcp_end_cwnd_reduction` returns early, `undo_cwnd` keeps it). So BBR
//! starts each ACK from the cwnd the ACK found and its answer replaces
//! whatever the loss response did to cwnd meanwhile.
//!
//! Nothing here runs for a flow without a [`DeliveryRate`] or a [`Pacer`].

use crate::engine::rng::{Component, Rng};
use crate::engine::Time;
use crate::tcp::cc::bbr::{BbrAck, CaLevel};
use crate::tcp::cc::CongestionControl;
use crate::tcp::tcb::{CaState, Tcb};

use super::Sender;

/// What the start of an ACK noted for its end.
#[derive(Debug, Clone, Copy)]
pub(super) struct AckStart {
    /// cwnd when the ACK arrived (BBR's starting point).
    cwnd: f64,
    /// Loss marks and undos so far (the ACK's `rs->losses`, an undo).
    lost_marks: u64,
    undos: u64,
}

/// Linux's `icsk_ca_state` for BBR.
fn ca_level(ca: CaState) -> CaLevel {
    match ca {
        CaState::Open => CaLevel::Open,
        CaState::Recovery => CaLevel::Recovery,
        CaState::Loss => CaLevel::Loss,
    }
}

/// What BBR reads of the connection, with `cwnd` as BBR saw it last.
fn bbr_ack(t: &Tcb, cwnd: f64, now: Time) -> BbrAck {
    let (delivered, delivered_at) = t
        .rate
        .as_deref()
        .map_or((0, now), |r| (r.delivered, r.delivered_at));
    BbrAck {
        now,
        cwnd: cwnd.max(1.0) as u32,
        in_flight: t.sb.pipe(),
        delivered,
        delivered_at,
        // `tp->lost`: every loss mark so far, on ACKs and timers alike
        lost: t.sb.lost_marks(),
        ca: ca_level(t.ca),
        next_departure: t.pacer.as_ref().map_or(now, |p| p.next_departure),
        cwnd_clamp: u32::MAX,
    }
}

impl Sender {
    /// BBR's random stream: the flow's stream of the run (`seed`), as
    /// every component of a run has its own.
    pub fn seed(&mut self, run_seed: u64) {
        let flow = self.tcb.flow as u64;
        if let CongestionControl::Bbr(b) = &mut self.tcb.cc {
            b.reseed(Rng::for_component(run_seed, Component::Flow, flow));
        }
    }

    /// The connection is established: `bbr_init` (ssthresh infinite, the
    /// first pacing rate from the handshake's RTT, which is also the first
    /// min-RTT sample, `tcp_synack_rtt_meas`).
    pub(super) fn rate_on_established(&mut self, now: Time) {
        let t = &mut self.tcb;
        if t.cfg.syn && !t.syn_retransmitted {
            let r = now.saturating_sub(t.syn_sent_at);
            if let Some(rate) = t.rate.as_deref_mut() {
                rate.on_rtt_sample(r, now);
            }
        }
        let srtt = t.rtt.srtt();
        let min_rtt = t.rate.as_deref().and_then(|r| r.min_rtt());
        let cwnd = t.w.cwnd.max(1.0) as u32;
        if let CongestionControl::Bbr(b) = &mut t.cc {
            b.init(now, cwnd, srtt, min_rtt);
            t.w.ssthresh = f64::INFINITY;
            if let Some(p) = t.pacer.as_mut() {
                p.rate = b.pacing_rate;
                p.burst = b.tso_segs_goal();
            }
        } else {
            let (cwnd, ssthresh, out) = (t.w.cwnd, t.w.ssthresh, t.sb.packets_out());
            if let Some(p) = t.pacer.as_mut() {
                p.update_rate(cwnd, ssthresh, out, srtt);
            }
        }
    }

    /// An ACK at or above SND.UNA begins: an empty rate sample.
    pub(super) fn rate_begin_ack(&mut self) -> Option<AckStart> {
        let t = &mut self.tcb;
        let r = t.rate.as_deref_mut()?;
        r.begin_ack(t.sb.pipe());
        Some(AckStart {
            cwnd: t.w.cwnd,
            lost_marks: t.sb.lost_marks(),
            undos: t.stats.undos,
        })
    }

    /// The ACK's work is done, before sending: `tcp_rate_gen`, then BBR's
    /// `bbr_main` (cwnd, ssthresh at DRAIN, the pacing rate) or
    /// `tcp_update_pacing_rate`.
    pub(super) fn rate_finish_ack(&mut self, start: Option<AckStart>, delivered: u32, now: Time) {
        if let Some(s) = start {
            self.bbr_on_ack(s, delivered, now);
        } else {
            let t = &mut self.tcb;
            let (cwnd, ssthresh, out, srtt) =
                (t.w.cwnd, t.w.ssthresh, t.sb.packets_out(), t.rtt.srtt());
            if let Some(p) = t.pacer.as_mut() {
                p.update_rate(cwnd, ssthresh, out, srtt);
            }
        }
    }

    fn bbr_on_ack(&mut self, s: AckStart, delivered: u32, now: Time) {
        let t = &mut self.tcb;
        let lost = (t.sb.lost_marks() - s.lost_marks) as u32;
        let una = t.sb.una();
        let Some(rate) = t.rate.as_deref_mut() else {
            return;
        };
        let rs = *rate.finish_ack(now, delivered, lost);
        rate.release_below(una);
        let a = bbr_ack(t, s.cwnd, now);
        let srtt = t.rtt.srtt();
        let CongestionControl::Bbr(b) = &mut t.cc else {
            return;
        };
        if t.stats.undos > s.undos {
            b.on_undo(a.delivered, a.delivered_at, a.lost);
        }
        let out = b.on_rate_sample(&rs, &a, srtt);
        t.w.cwnd = out.cwnd as f64;
        if let Some(ss) = out.ssthresh {
            t.w.ssthresh = ss as f64;
        }
        if let Some(p) = t.pacer.as_mut() {
            p.rate = b.pacing_rate;
            p.burst = b.tso_segs_goal();
        }
        if out.mark_app_limited {
            let in_flight = t.sb.pipe();
            if let Some(r) = t.rate.as_deref_mut() {
                r.mark_app_limited(in_flight);
            }
        }
        t.note_cwnd();
    }

    /// An ACK below SND.UNA (its SACK blocks only): Linux counts what they
    /// delivered (`tcp_sacktag_one`) but forms no sample and does not run
    /// the congestion control.
    pub(super) fn rate_on_old_ack(&mut self, start: Option<AckStart>, newly_sacked: u32) {
        if start.is_some() {
            if let Some(r) = self.tcb.rate.as_deref_mut() {
                r.delivered += newly_sacked as u64;
            }
        }
    }

    /// A segment was newly delivered (cumulatively, or by a SACK block).
    #[inline]
    pub(super) fn rate_on_delivered(
        rate: &mut Option<Box<crate::tcp::rate::DeliveryRate>>,
        seq: u32,
        seg: &crate::tcp::scoreboard::SegState,
        sacked: bool,
    ) {
        if let Some(r) = rate.as_deref_mut() {
            r.on_delivered(seq, seg.sent_at, seg.copies > 1, sacked);
        }
    }

    /// May the next segment leave now (`tcp_pacing_check`)? If not, the
    /// pacer wakes the sender at its departure time.
    #[inline]
    pub(super) fn pacing_allows(&mut self, now: Time) -> bool {
        match self.tcb.pacer.as_mut() {
            None => true,
            Some(p) => {
                let ok = p.may_send(now);
                p.blocked = !ok;
                ok
            }
        }
    }

    /// The send loop stopped: the pacer's current skb ends.
    #[inline]
    pub(super) fn pacing_end_burst(&mut self) {
        if let Some(p) = self.tcb.pacer.as_mut() {
            p.end_burst();
        }
    }

    /// A data segment left (after the scoreboard counted it): the next
    /// departure (`tcp_update_skb_after_send`), the delivery state it
    /// carries (`tcp_rate_skb_sent`), and BBR's `CA_EVENT_TX_START` when it
    /// is the first in flight.
    pub(super) fn rate_on_emit(&mut self, seq: u32, copy: u16, now: Time) {
        let t = &mut self.tcb;
        if let Some(p) = t.pacer.as_mut() {
            p.on_sent(now);
        }
        if t.rate.is_none() {
            return;
        }
        let out_before = t.sb.packets_out() - (copy == 0) as u32;
        let first_in_flight = t.sb.pipe() <= 1;
        if first_in_flight {
            let a = bbr_ack(t, t.w.cwnd, now);
            let app_limited = t.rate.as_deref().is_some_and(|r| r.app_limited != 0);
            let srtt = t.rtt.srtt();
            if let CongestionControl::Bbr(b) = &mut t.cc {
                if let Some(c) = b.on_tx_start(&a, app_limited, srtt) {
                    t.w.cwnd = c as f64;
                }
            }
        }
        if let Some(r) = t.rate.as_deref_mut() {
            r.on_sent(seq, now, out_before);
        }
    }

    /// The application wrote more data: `tcp_rate_check_app_limited`.
    pub(super) fn rate_on_write(&mut self) {
        let t = &mut self.tcb;
        let in_flight = t.sb.pipe();
        let cwnd_limited = in_flight as f64 >= t.w.cwnd;
        let lost_pending = t.sb.lost_out() > t.sb.retrans_out();
        let nothing_to_send = !t.has_new_data();
        if let Some(r) = t.rate.as_deref_mut() {
            r.check_app_limited(nothing_to_send, cwnd_limited, lost_pending, in_flight);
        }
    }

    /// A retransmission timeout (after the window was set): BBR's
    /// `bbr_set_state(TCP_CA_Loss)`.
    pub(super) fn rate_on_timeout(&mut self, now: Time) {
        let t = &mut self.tcb;
        if t.rate.is_none() {
            return;
        }
        let a = bbr_ack(t, t.w.cwnd, now);
        if let CongestionControl::Bbr(b) = &mut t.cc {
            b.on_loss_state(&a);
        }
    }

    /// The pacer holds the sender back until this time.
    #[inline]
    pub(super) fn pacing_deadline(&self) -> Option<Time> {
        self.tcb
            .pacer
            .as_ref()
            .filter(|p| p.blocked)
            .map(|p| p.next_departure)
    }

    /// Put back the cwnd `kept` before a loss detection timer's recovery
    /// entry ([`Self::cc_owns_cwnd`]).
    #[inline]
    pub(super) fn keep_cwnd(&mut self, kept: Option<f64>) {
        if let Some(c) = kept {
            self.tcb.w.cwnd = c;
        }
    }

    /// BBR keeps cwnd through a loss detection timer's recovery entry
    /// (`tcp_rack_reo_timeout` skips `tcp_cwnd_reduction` for a
    /// `cong_control` controller).
    #[inline]
    pub(super) fn cc_owns_cwnd(&self) -> bool {
        matches!(self.tcb.cc, CongestionControl::Bbr(_))
    }
}
