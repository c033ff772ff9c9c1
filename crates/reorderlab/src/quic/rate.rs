//! BBR on a QUIC sender: delivery-rate samples ([`DeliveryRate`], keyed
//! by packet number: every QUIC packet is sent once, so a packet number is
//! a TCP segment that is never retransmitted) and `bbr_main` on every ACK,
//! as the TCP sender runs them (`tcp/sender/rate_control.rs`); BBR owns
//! the window and the pacing rate. The RFC 9002 congestion response does
//! not cut BBR's window: a recovery period is BBR's `TCP_CA_Recovery`
//! (packet conservation in its first round), persistent congestion its
//! `TCP_CA_Loss`.

use super::congestion::Congestion;
use super::loss::SentPacket;
use crate::engine::rng::{Component, Rng};
use crate::engine::Time;
use crate::tcp::cc::bbr::{BbrAck, CaLevel};
use crate::tcp::cc::CongestionControl;
use crate::tcp::kernel::DEFAULT_HZ;
use crate::tcp::pacing::Pacer;
use crate::tcp::rate::DeliveryRate;

/// The delivery-rate state of a BBR flow.
#[derive(Debug, Clone)]
pub struct RateState {
    pub rate: DeliveryRate,
    /// Packets declared lost so far (`tp->lost`).
    pub lost: u64,
    /// BBR's view of the connection state.
    pub ca: CaLevel,
}

impl RateState {
    /// For a BBR controller, configured for `mss` and flow `flow`, its
    /// phases drawn from the flow's stream of run `seed`.
    pub fn for_bbr(
        cc: &mut CongestionControl,
        mss: u32,
        flow: u32,
        seed: u64,
    ) -> Option<Box<RateState>> {
        let CongestionControl::Bbr(b) = cc else {
            return None;
        };
        b.configure(mss, DEFAULT_HZ, flow);
        b.reseed(Rng::for_component(seed, Component::Flow, flow as u64));
        Some(Box::new(RateState {
            rate: DeliveryRate::new(),
            lost: 0,
            ca: CaLevel::Open,
        }))
    }

    fn ack(&self, cwnd: f64, in_flight: u32, now: Time, pacer: Option<&Pacer>) -> BbrAck {
        BbrAck {
            now,
            cwnd: cwnd.max(1.0) as u32,
            in_flight,
            delivered: self.rate.delivered,
            delivered_at: self.rate.delivered_at,
            lost: self.lost,
            ca: self.ca,
            next_departure: pacer.map_or(now, |p| p.next_departure),
            cwnd_clamp: u32::MAX,
        }
    }

    /// `bbr_init` at the first transmission.
    pub fn start(&mut self, c: &mut Congestion, now: Time, pacer: Option<&mut Pacer>) {
        let cwnd = c.w.cwnd as u32;
        if let CongestionControl::Bbr(b) = &mut c.cc {
            b.init(now, cwnd, None, None);
            c.w.ssthresh = f64::INFINITY;
            if let Some(p) = pacer {
                p.rate = b.pacing_rate;
                p.burst = b.tso_segs_goal();
            }
        }
    }

    /// `tcp_rate_skb_sent` for packet `pn`, `outstanding` packets before it.
    pub fn on_sent(&mut self, pn: u64, now: Time, outstanding: u32) {
        self.rate.on_sent(pn as u32, now, outstanding);
    }

    /// Before the ACK's packets are processed: an empty sample.
    pub fn begin_ack(&mut self, prior_in_flight: u32) {
        self.rate.begin_ack(prior_in_flight);
    }

    /// The ACK's work is done: its newly acknowledged and newly lost
    /// packets form the sample, then `bbr_main` sets cwnd and the pacing
    /// rate. `lowest` is the lowest packet number still outstanding.
    #[allow(clippy::too_many_arguments)]
    pub fn finish_ack(
        &mut self,
        c: &mut Congestion,
        acked: &[SentPacket],
        lost: usize,
        (in_flight, lowest): (u32, u64),
        srtt: Time,
        now: Time,
        pacer: Option<&mut Pacer>,
    ) {
        for p in acked {
            self.rate
                .on_delivered(p.pn as u32, p.time_sent, false, true);
        }
        self.lost += lost as u64;
        let rs = *self.rate.finish_ack(now, acked.len() as u32, lost as u32);
        self.rate.release_below(lowest as u32);
        if self.ca == CaLevel::Recovery && acked.iter().any(|p| !c.in_recovery(p.time_sent)) {
            self.ca = CaLevel::Open;
        }
        let a = self.ack(c.w.cwnd, in_flight, now, pacer.as_deref());
        let CongestionControl::Bbr(b) = &mut c.cc else {
            return;
        };
        let out = b.on_rate_sample(&rs, &a, Some(srtt));
        c.w.cwnd = out.cwnd as f64;
        if let Some(p) = pacer {
            p.rate = b.pacing_rate;
            p.burst = b.tso_segs_goal();
        }
        if out.mark_app_limited {
            self.rate.mark_app_limited(in_flight);
        }
    }

    /// A recovery period began (RFC 9002 B.6): `bbr_ssthresh` saves cwnd.
    pub fn on_recovery(&mut self, c: &mut Congestion) {
        let cwnd = c.w.cwnd as u32;
        if let CongestionControl::Bbr(b) = &mut c.cc {
            b.on_enter_recovery(cwnd);
        }
        self.ca = CaLevel::Recovery;
    }

    /// Persistent congestion: BBR's `TCP_CA_Loss`.
    pub fn on_persistent_congestion(&mut self, c: &mut Congestion, in_flight: u32, now: Time) {
        self.ca = CaLevel::Loss;
        let a = self.ack(c.w.cwnd, in_flight, now, None);
        if let CongestionControl::Bbr(b) = &mut c.cc {
            b.on_loss_state(&a);
        }
    }

    /// A reduction was undone: `bbr_undo_cwnd`.
    pub fn on_undo(&mut self, c: &mut Congestion) {
        self.ca = CaLevel::Open;
        let (d, at, lost) = (self.rate.delivered, self.rate.delivered_at, self.lost);
        if let CongestionControl::Bbr(b) = &mut c.cc {
            b.on_undo(d, at, lost);
        }
    }
}
