//! The TCP sender: one transmission control block ([`crate::tcp::tcb`],
//! built from a [`SenderConfig`], [`crate::tcp::config`]) and the
//! components a variant plugs in ([`crate::tcp::variants`]):
//!
//! * loss detection ([`crate::tcp::detection`]): which segments are lost,
//!   and when;
//! * loss response ([`crate::tcp::response`]): what an episode does to the
//!   window;
//! * timers ([`crate::tcp::timers`]): RTO, its restart, the loss probe;
//! * limited transmit ([`crate::tcp::limited`]), the reductions remembered
//!   for undo ([`crate::tcp::undo`]), F-RTO ([`crate::tcp::frto`]) and
//!   congestion window validation ([`crate::tcp::cwv`]).
//!
//! The files of this module are the sender's work, by concern: the ACK
//! path in the order RFC 6675 and RFC 8985 give ([`ack`]), entering and
//! leaving fast recovery ([`fast_recovery`]), sending ([`transmit`]), the
//! timeout and F-RTO ([`timeout`]), the probe ([`probe`]), a retransmission
//! shown spurious and its undo ([`spurious`], [`ts_undo`]). None of them
//! names a detection or response implementation: they call the
//! components' hooks; and no component imports this module.
//! `docs/architecture.md` draws the layers and the path of an ACK.

mod ack;
mod fast_recovery;
mod probe;
mod rate_control;
mod spurious;
mod timeout;
mod transmit;
mod ts_undo;

#[cfg(test)]
mod tests;

use crate::engine::time::to_secs;
use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind};
use crate::tcp::cc::{CongestionControl, Window};
use crate::tcp::config::SenderConfig;
use crate::tcp::cwv::Rfc2861;
use crate::tcp::detection::rack::Rack;
use crate::tcp::detection::Detection;
use crate::tcp::frto::FrtoStep;
use crate::tcp::limited::LtState;
use crate::tcp::policy::Cwv;
use crate::tcp::response::prr::Prr;
use crate::tcp::response::Response;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::stats::SenderStats;
use crate::tcp::tcb::{CaState, Phase, Tcb};
use crate::tcp::timers::rto::RtoEstimator;
use crate::tcp::timers::{earliest, Timers};
use crate::tcp::truth::TruthLedger;
use crate::tcp::undo::Undo;

#[derive(Debug)]
pub struct Sender {
    tcb: Tcb,
    detection: Detection,
    response: Response,
    timers: Timers,
    lt: LtState,
    undo: Undo,
    /// F-RTO after a timeout (RFC 5682 Sec. 3): the step, and the undo
    /// episode of the timeout.
    frto: Option<(FrtoStep, u32)>,
    /// RFC 2861 state, when CWV is on.
    cwv: Option<Rfc2861>,
    /// This ACK sends no retransmission (Linux `tcp_try_undo_partial`
    /// with retransmissions out, [`Self::undo_if_original_filled_hole`]).
    hold_retransmissions: bool,
}

impl Sender {
    /// A sender of flow `flow` towards node `peer`. Panics on a
    /// composition the registry must never build
    /// ([`SenderConfig::composition_error`]).
    pub fn new(cfg: SenderConfig, cc: CongestionControl, flow: u32, peer: u32) -> Sender {
        if let Some(e) = cfg.composition_error() {
            panic!("variant {}: {e}", cfg.variant);
        }
        let mut cc = cc;
        if let Some(flavour) = cfg.hystart {
            cc.enable_hystart(flavour);
        }
        let hz = cfg.linux.map_or(crate::tcp::kernel::DEFAULT_HZ, |k| k.hz);
        if cfg.linux.is_some() {
            cc.follow_kernel(hz);
        }
        cc.configure(cfg.mss, hz, flow);
        let mut tcb = Tcb::new(cfg.clone(), cc, flow, peer);
        Sender {
            detection: Detection::new(&cfg, &mut tcb),
            response: Response::new(cfg.response),
            timers: Timers::new(&cfg),
            lt: LtState::new(cfg.limited_transmit),
            undo: Undo::default(),
            frto: None,
            cwv: (cfg.cwv == Cwv::Rfc2861).then(|| Rfc2861::new(0)),
            hold_retransmissions: false,
            tcb,
        }
    }

    // ----- observation -----------------------------------------------------

    pub fn cfg(&self) -> &SenderConfig {
        &self.tcb.cfg
    }
    pub fn stats(&self) -> &SenderStats {
        &self.tcb.stats
    }
    /// Ground truth: what the network dropped, which retransmissions were
    /// spurious.
    pub fn truth(&self) -> &TruthLedger {
        &self.tcb.truth
    }
    pub fn window(&self) -> Window {
        self.tcb.w
    }
    pub fn ca_state(&self) -> CaState {
        self.tcb.ca
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.tcb.sb
    }
    pub fn rtt(&self) -> &RtoEstimator {
        &self.tcb.rtt
    }
    /// The smoothed RTT the loss detection uses (TCP-PR keeps its own).
    pub fn srtt(&self) -> Option<Time> {
        self.detection.srtt(&self.tcb.rtt)
    }
    pub fn dupthresh(&self) -> u32 {
        self.detection.dupthresh()
    }
    pub fn fa_ratio(&self) -> Option<f64> {
        self.detection.fa_ratio()
    }
    /// RR-TCP: the `q` percentile of the reordering histogram (NaN when
    /// empty or not RR-TCP).
    fn reorder_percentile(&self, q: f64) -> f64 {
        self.detection
            .reorder_percentile(q)
            .map_or(f64::NAN, |l| l as f64)
    }
    pub fn is_done(&self) -> bool {
        self.tcb.phase == Phase::Done
    }
    /// RACK state (RFC 8985), for tests and traces.
    pub fn rack(&self) -> Option<&Rack> {
        self.detection.rack()
    }
    /// PRR state of the current recovery (RFC 6937).
    pub fn prr(&self) -> Option<&Prr> {
        self.response.prr()
    }

    /// Deadline of the given timer, if armed: the retransmission timer
    /// (unless a probe stands in for it), and on the auxiliary timer the
    /// earliest of the probe and the loss detection's timers.
    pub fn deadline(&self, kind: TimerKind) -> Option<Time> {
        match kind {
            TimerKind::Rto => self.timers.rto_deadline(),
            TimerKind::Aux => earliest(
                earliest(self.detection.deadline(), self.timers.pto_deadline()),
                self.pacing_deadline(),
            ),
            TimerKind::DelAck => None,
        }
    }

    /// Value of a recorded series (names in [`crate::spec::SERIES_NAMES`]).
    pub fn sample(&self, name: &str) -> f64 {
        let t = &self.tcb;
        match name {
            "cwnd" => t.w.cwnd,
            "ssthresh" => t.w.ssthresh,
            "srtt" => self.srtt().map_or(f64::NAN, to_secs),
            "rto" => to_secs(t.rtt.rto()),
            "dupthresh" => self.dupthresh() as f64,
            "fa_ratio" => self.fa_ratio().unwrap_or(f64::NAN),
            "pipe" => t.sb.pipe() as f64,
            "sent" => t.stats.data_packets_sent as f64,
            "reorder_p10" => self.reorder_percentile(0.1),
            "reorder_p50" => self.reorder_percentile(0.5),
            "reorder_p90" => self.reorder_percentile(0.9),
            "pacing_rate" => t
                .pacer
                .as_ref()
                .map_or(f64::NAN, |p| p.rate as f64 / t.cfg.mss as f64),
            "delivery_rate" => t.rate.as_deref().map_or(f64::NAN, |r| r.delivery_rate()),
            "bbr_bw" => t.cc.bbr().map_or(f64::NAN, |b| b.bw_segments_per_sec()),
            "bbr_min_rtt" => {
                t.cc.bbr()
                    .and_then(|b| b.min_rtt_us)
                    .map_or(f64::NAN, |us| us as f64 * 1e-6)
            }
            _ => f64::NAN,
        }
    }

    // ----- events from the engine --------------------------------------------

    /// The application starts.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.tcb.stats.started_at = Some(now);
        if self.tcb.cfg.syn {
            self.tcb.phase = Phase::SynSent;
            self.send_syn(now, out);
        } else {
            self.establish(now, out);
        }
    }

    /// An ACK or SYN-ACK arrived.
    pub fn on_packet(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::SynAck if self.tcb.phase == Phase::SynSent => {
                if !self.tcb.syn_retransmitted {
                    self.tcb.rtt.set_seq(0, 0);
                    let r = now - self.tcb.syn_sent_at;
                    self.tcb.rtt.on_handshake_sample(r, now);
                }
                self.timers.stop_rto();
                self.establish(now, out);
            }
            PacketKind::Ack if self.tcb.phase == Phase::Established => self.on_ack(pkt, now, out),
            PacketKind::Ack if self.tcb.phase == Phase::Done => self.on_finished_ack(pkt, now),
            _ => {}
        }
    }

    /// The application hands `segments` more segments to a finite transfer
    /// (an unlimited one has all it needs); a finished connection resumes.
    pub fn write(&mut self, segments: u64, now: Time, out: &mut Vec<Packet>) {
        if self.tcb.cfg.segments.is_none() {
            return;
        }
        self.rate_on_write();
        let Some(n) = self.tcb.cfg.segments.as_mut() else {
            return;
        };
        *n += segments;
        if self.tcb.phase == Phase::Done {
            self.tcb.phase = Phase::Established;
            self.tcb.stats.all_acked_at = None;
        }
        self.transmit(now, out);
    }

    /// A timer of this sender expired.
    pub fn on_timer(&mut self, kind: TimerKind, now: Time, out: &mut Vec<Packet>) {
        match kind {
            TimerKind::Rto => {
                self.timers.stop_rto();
                self.on_rto(now, out);
            }
            TimerKind::Aux => {
                self.on_detection_timer(now, out);
                if self.timers.pto_deadline().is_some_and(|t| t <= now) {
                    self.on_pto(now, out);
                }
                if self.pacing_deadline().is_some_and(|t| t <= now) {
                    self.transmit(now, out);
                }
            }
            TimerKind::DelAck => {}
        }
    }

    /// Ground truth: copy `copy` of segment `seq` was dropped in the network.
    pub fn on_drop(&mut self, seq: u32, copy: u16) {
        self.tcb.truth.on_drop(seq, copy);
    }

    // ----- connection ----------------------------------------------------------

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        let t = &mut self.tcb;
        t.syn_sent_at = now;
        t.stats.syns_sent += 1;
        out.push(Packet::control(
            PacketKind::Syn,
            t.flow,
            t.peer,
            t.cfg.syn_size,
            now,
        ));
        self.timers.arm_rto(&mut self.tcb, now);
    }

    fn establish(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.tcb.phase = Phase::Established;
        self.tcb.stats.established_at = Some(now);
        if let Some(c) = self.cwv.as_mut() {
            *c = Rfc2861::new(now);
        }
        // RFC 5681 Sec. 3.1: after a lost SYN the initial window is one
        // segment.
        if self.tcb.syn_retransmitted {
            self.tcb.w.cwnd = 1.0;
        }
        self.tcb.note_cwnd();
        self.rate_on_established(now);
        self.transmit(now, out);
    }

    /// A finite transfer is complete once everything is acknowledged.
    fn check_done(&mut self, now: Time) {
        let t = &mut self.tcb;
        if let Some(n) = t.cfg.segments {
            if t.sb.una() as u64 >= n && t.phase == Phase::Established {
                t.phase = Phase::Done;
                t.stats.all_acked_at = Some(now);
                self.timers.stop_rto();
            }
        }
    }
}
