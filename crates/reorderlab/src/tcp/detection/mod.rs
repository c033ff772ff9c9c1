//! Loss detection: which outstanding segments are deemed lost, and when
//! (docs/architecture.md, "The sender"). One component of the sender, an enum dispatched by
//! `match` so the hot path allocates nothing:
//!
//! * [`Detection::DupAck`]: duplicate ACKs and `IsLost` (RFC 5681, RFC
//!   6675), with adaptive thresholds, delays, early retransmit and FACK
//!   ([`dupack`]);
//! * [`Detection::Rack`]: RACK's time-based detection and reorder timer
//!   (RFC 8985 Sec. 6, [`rack`]);
//! * [`Detection::TcpPr`]: TCP-PR's per-segment timers, which also make
//!   its window changes (the tcp-pr paper Tables I and III, [`tcp_pr`]).
//!
//! Each detector is a struct in its own file implementing
//! [`LossDetector`], whose hooks have do-nothing defaults: a detector
//! overrides what it needs. The sender calls the hooks through
//! [`Detection`] in the order of its ACK path ([`crate::tcp::sender`]). A
//! new detector: its file, one line in [`Detection`] and in `dispatch!`, a
//! [`DetectionPolicy`] case and the registry's compositions
//! (`docs/architecture.md`).

pub mod dupack;
pub mod dupthresh;
pub mod er;
pub mod hooks;
pub mod rack;
pub mod reordering;
pub mod tcp_pr;
pub mod winthresh;

use crate::engine::Time;
use crate::tcp::config::SenderConfig;
use crate::tcp::policy::DetectionPolicy;
use crate::tcp::scoreboard::SegState;
use crate::tcp::tcb::Tcb;
use crate::tcp::timers::rto::RtoEstimator;

pub use hooks::{LossDetector, Spurious, TimerVerdict};

use dupack::DupAck;
use rack::{Rack, RackDetection};
use tcp_pr::TcpPrDetection;

/// The sender's loss detection: one of the detectors.
#[derive(Debug, Clone)]
pub enum Detection {
    DupAck(DupAck),
    Rack(Box<RackDetection>),
    TcpPr(Box<TcpPrDetection>),
}

/// Static dispatch to the detector in use (a `match`, inlined: no trait
/// object on the hot path).
macro_rules! dispatch {
    ($self:expr, $d:ident => $call:expr) => {
        match $self {
            Detection::DupAck($d) => $call,
            Detection::Rack($d) => $call,
            Detection::TcpPr($d) => $call,
        }
    };
}

impl Detection {
    pub fn new(cfg: &SenderConfig, tcb: &mut Tcb) -> Detection {
        match cfg.detection {
            DetectionPolicy::DupThresh => Detection::DupAck(DupAck::new(cfg)),
            DetectionPolicy::Rack {
                adaptive_reordering,
            } => Detection::Rack(Box::new(RackDetection::new(adaptive_reordering, cfg, tcb))),
            DetectionPolicy::TcpPr {
                alpha,
                beta,
                extreme,
            } => Detection::TcpPr(Box::new(TcpPrDetection::new(
                alpha,
                beta,
                extreme,
                cfg.rto.initial_rto,
            ))),
        }
    }
}

/// Each hook of [`LossDetector`], dispatched.
impl Detection {
    #[inline]
    pub fn dupthresh(&self) -> u32 {
        dispatch!(self, d => d.dupthresh())
    }
    pub fn fa_ratio(&self) -> Option<f64> {
        dispatch!(self, d => d.fa_ratio())
    }
    pub fn reorder_percentile(&self, q: f64) -> Option<u32> {
        dispatch!(self, d => d.reorder_percentile(q))
    }
    pub fn srtt(&self, rtt: &RtoEstimator) -> Option<Time> {
        dispatch!(self, d => d.srtt(rtt))
    }
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        dispatch!(self, d => d.deadline())
    }
    #[inline]
    pub fn fast_retransmit_pending(&self) -> bool {
        dispatch!(self, d => d.fast_retransmit_pending())
    }
    #[inline]
    pub fn reorder_timer_pending(&self) -> bool {
        dispatch!(self, d => d.reorder_timer_pending())
    }
    /// RACK state, for tests and traces.
    pub fn rack(&self) -> Option<&Rack> {
        match self {
            Detection::Rack(d) => Some(&d.rack),
            _ => None,
        }
    }
    #[inline]
    pub fn reads_old_acks(&self) -> bool {
        dispatch!(self, d => d.reads_old_acks())
    }
    #[inline]
    pub fn allows_sending(&self) -> bool {
        dispatch!(self, d => d.allows_sending())
    }
    #[inline]
    pub fn dubious_acks(&self) -> bool {
        dispatch!(self, d => d.dubious_acks())
    }
    #[inline]
    pub fn before_ack(&mut self, tcb: &Tcb, elt: Option<u32>, now: Time) {
        dispatch!(self, d => d.before_ack(tcb, elt, now))
    }
    #[inline]
    pub fn on_delivered(&mut self, seq: u32, seg: &SegState, now: Time) {
        dispatch!(self, d => d.on_delivered(seq, seg, now))
    }
    #[inline]
    pub fn after_deliveries(&mut self, tcb: &mut Tcb, now: Time) {
        dispatch!(self, d => d.after_deliveries(tcb, now))
    }
    #[inline]
    pub fn on_dupack(&mut self, tcb: &mut Tcb, allowed: bool, pending: bool, now: Time) -> bool {
        dispatch!(self, d => d.on_dupack(tcb, allowed, pending, now))
    }
    #[inline]
    pub fn detect(&mut self, tcb: &mut Tcb, dsack: bool, now: Time) -> bool {
        dispatch!(self, d => d.detect(tcb, dsack, now))
    }
    pub fn on_timer(&mut self, tcb: &mut Tcb, now: Time) -> TimerVerdict {
        dispatch!(self, d => d.on_timer(tcb, now))
    }
    pub fn on_enter_recovery(&mut self) -> bool {
        dispatch!(self, d => d.on_enter_recovery())
    }
    pub fn is_early_retransmit(&self, tcb: &Tcb) -> bool {
        dispatch!(self, d => d.is_early_retransmit(tcb))
    }
    pub fn on_recovery_exit(&mut self) {
        dispatch!(self, d => d.on_recovery_exit())
    }
    #[inline]
    pub fn on_window_advance(&mut self) {
        dispatch!(self, d => d.on_window_advance())
    }
    pub fn on_timeout(&mut self, tcb: &Tcb) {
        dispatch!(self, d => d.on_timeout(tcb))
    }
    pub fn on_reordering_sample(&mut self, len: u32, now: Time) {
        dispatch!(self, d => d.on_reordering_sample(len, now))
    }
    pub fn on_limited_transmit_idle(&mut self, idle: Time, dupacks: u32, cwnd: f64, srtt: Time) {
        dispatch!(self, d => d.on_limited_transmit_idle(idle, dupacks, cwnd, srtt))
    }
    pub fn on_spurious(&mut self, s: &Spurious, now: Time) {
        dispatch!(self, d => d.on_spurious(s, now))
    }
    pub fn on_delayed_original(&mut self, distance: u32) {
        dispatch!(self, d => d.on_delayed_original(distance))
    }
    pub fn after_elt(&mut self, elt: Option<u32>, cwnd: f64, now: Time) {
        dispatch!(self, d => d.after_elt(elt, cwnd, now))
    }
    pub fn set_elt_dupthresh(&mut self, t: u32) {
        dispatch!(self, d => d.set_elt_dupthresh(t))
    }
    #[inline]
    pub fn on_sent(&mut self, seq: u32, now: Time) {
        dispatch!(self, d => d.on_sent(seq, now))
    }
    #[inline]
    pub fn after_transmit(&mut self, tcb: &mut Tcb) {
        dispatch!(self, d => d.after_transmit(tcb))
    }
}
