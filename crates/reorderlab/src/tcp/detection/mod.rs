//! Loss detection: which outstanding segments are deemed lost, and when
//! (docs/architecture.md, "TCP"). One component of the sender, an enum dispatched by
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
//! [`LossDetection`] case and the registry's compositions
//! (`docs/architecture.md`).

pub mod dupack;
pub mod dupthresh;
pub mod er;
pub mod rack;
pub mod reordering;
pub mod tcp_pr;

use crate::engine::Time;
use crate::tcp::policy::{LossDetection, MIN_DUPTHRESH};
use crate::tcp::scoreboard::SegState;
use crate::tcp::sender::tcb::Tcb;
use crate::tcp::sender::SenderConfig;
use crate::tcp::timers::rto::RtoEstimator;

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

/// What a detection timer's expiry asks of the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerVerdict {
    /// Not due, or nothing to do.
    Nothing,
    /// The delayed fast retransmit is due: enter fast recovery.
    FastRetransmit,
    /// Segments may have been marked lost (RFC 8985 Sec. 6.3): enter
    /// recovery if so, then send.
    LossMarked,
    /// The detector changed the window or marked drops itself: send.
    Send,
}

/// A retransmission found spurious by DSACK (RFC 3708), for the
/// thresholds that learn from it.
#[derive(Debug, Clone, Copy)]
pub struct Spurious {
    /// It was a fast retransmit (not a timeout's or a probe).
    pub fast: bool,
    /// Its reordering length, if measurable (rr-tcp Sec. 4.1.1).
    pub reordering: Option<u32>,
    /// Time from the retransmission to the DSACK.
    pub since_retransmit: Time,
    /// Duplicate ACKs of its episode and first-dupack-to-ACK time, if the
    /// episode is still remembered.
    pub episode: Option<(u32, Option<Time>)>,
}

/// The hooks a loss detector may implement, in the order the sender calls
/// them on an ACK, then those of timers, episodes and sending.
pub trait LossDetector {
    // ----- observation ---------------------------------------------------

    /// The duplicate-ACK threshold in force (reported per flow).
    fn dupthresh(&self) -> u32 {
        MIN_DUPTHRESH
    }
    /// RR-TCP's FA ratio, when the threshold comes from it.
    fn fa_ratio(&self) -> Option<f64> {
        None
    }
    /// The smoothed RTT the detection uses.
    fn srtt(&self, rtt: &RtoEstimator) -> Option<Time> {
        rtt.srtt()
    }
    /// The detector's timer.
    fn deadline(&self) -> Option<Time> {
        None
    }
    /// A delayed fast retransmit is pending.
    fn fast_retransmit_pending(&self) -> bool {
        false
    }
    /// A reorder timer is armed (RFC 8985 Sec. 7.2 holds the probe back).
    fn reorder_timer_pending(&self) -> bool {
        false
    }
    /// RACK state, for tests and traces.
    fn rack(&self) -> Option<&Rack> {
        None
    }
    /// Whether ACKs below SND.UNA are read at all (their SACK and DSACK
    /// blocks, as Linux `tcp_ack` does).
    fn reads_old_acks(&self) -> bool {
        true
    }
    /// May a segment go out now?
    fn allows_sending(&self) -> bool {
        true
    }

    // ----- the ACK path, in order -----------------------------------------

    /// Thresholds for this ACK (`elt`: TCP-NCR's DupThresh while ELT runs).
    fn before_ack(&mut self, _tcb: &Tcb, _elt: Option<u32>, _now: Time) {}
    /// A segment was newly delivered, cumulatively or by SACK.
    fn on_delivered(&mut self, _seq: u32, _seg: &SegState, _now: Time) {}
    /// Every delivery of the ACK is known.
    fn after_deliveries(&mut self, _tcb: &mut Tcb, _now: Time) {}
    /// A duplicate ACK in the Open state: fast retransmit now? `allowed`:
    /// a new episode may start; `pending`: a recovery without reduction
    /// is under way (TCP-Aix).
    fn on_dupack(&mut self, _tcb: &mut Tcb, _allowed: bool, _pending: bool, _now: Time) -> bool {
        false
    }
    /// After the ACK's deliveries and duplicate-ACK accounting: mark lost
    /// segments. Returns whether the sender should enter recovery if
    /// something is marked lost.
    fn detect(&mut self, _tcb: &mut Tcb, _dsack: bool, _now: Time) -> bool {
        false
    }

    // ----- timers, episodes, learning -------------------------------------

    /// The detector's timer fired.
    fn on_timer(&mut self, _tcb: &mut Tcb, _now: Time) -> TimerVerdict {
        TimerVerdict::Nothing
    }
    /// A fast recovery starts. Returns whether the sender retransmits
    /// SND.UNA at once (RFC 5681 / 6675 fast retransmit).
    fn on_enter_recovery(&mut self) -> bool {
        true
    }
    /// The fast retransmit is an early one (below dupthresh).
    fn is_early_retransmit(&self, _tcb: &Tcb) -> bool {
        false
    }
    /// A fast or RTO recovery ended.
    fn on_recovery_exit(&mut self) {}
    /// SND.UNA advanced: a duplicate-ACK run is over.
    fn on_window_advance(&mut self) {}
    /// A retransmission timeout, before the sender changes anything.
    fn on_timeout(&mut self, _tcb: &Tcb) {}
    /// rr-tcp Sec. 4.1.1: a reordering length measured when an ACK
    /// closed one hole.
    fn on_reordering_sample(&mut self, _len: u32, _now: Time) {}
    /// RR-TCP Sec. 4.3.3: limited transmit ran out and the sender stayed
    /// idle for `idle` while `dupacks` duplicate ACKs arrived.
    fn on_limited_transmit_idle(&mut self, _idle: Time, _dupacks: u32, _cwnd: f64, _srtt: Time) {}
    /// A retransmission was spurious (DSACK).
    fn on_spurious(&mut self, _s: &Spurious, _now: Time) {}
    /// Timestamps showed that an original transmission, `distance` segments
    /// below the highest SACKed one, filled the hole a fast retransmit was
    /// sent for (Linux `tcp_try_undo_partial`: "Plain luck! Hole if filled
    /// with delayed packet"): reordering, measured as Linux 3.17
    /// `tcp_update_reordering` / current `tcp_check_sack_reordering` do.
    fn on_delayed_original(&mut self, _distance: u32) {}
    /// ELT ended at a cumulative ACK (RFC 4653 Sec. 4, Termination);
    /// `elt`: a re-started ELT's DupThresh.
    fn after_elt(&mut self, _elt: Option<u32>, _cwnd: f64, _now: Time) {}
    /// TCP-NCR's DupThresh changed during ELT (RFC 4653 Sec. 4, E steps).
    fn set_elt_dupthresh(&mut self, _t: u32) {}

    // ----- transmission --------------------------------------------------

    /// A (re)transmission of `seq` left.
    fn on_sent(&mut self, _seq: u32, _now: Time) {}
    /// After the sender's transmissions.
    fn after_transmit(&mut self, _tcb: &mut Tcb) {}
}

impl Detection {
    pub fn new(cfg: &SenderConfig, tcb: &mut Tcb) -> Detection {
        match cfg.detection {
            LossDetection::DupThresh => Detection::DupAck(DupAck::new(cfg)),
            LossDetection::Rack {
                adaptive_reordering,
            } => Detection::Rack(Box::new(RackDetection::new(adaptive_reordering, cfg, tcb))),
            LossDetection::TcpPr {
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
    pub fn rack(&self) -> Option<&Rack> {
        dispatch!(self, d => d.rack())
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
