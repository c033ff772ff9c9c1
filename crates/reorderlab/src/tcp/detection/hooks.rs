//! The hooks a loss detector implements ([`LossDetector`]) and what they
//! hand back to the sender ([`TimerVerdict`], [`Spurious`]). The sender
//! calls them through [`super::Detection`], in the order of its ACK path.

use crate::engine::Time;
use crate::tcp::policy::MIN_DUPTHRESH;
use crate::tcp::scoreboard::SegState;
use crate::tcp::tcb::Tcb;
use crate::tcp::timers::rto::RtoEstimator;

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
    /// RR-TCP: the `q` percentile of its reordering histogram (traces).
    fn reorder_percentile(&self, _q: f64) -> Option<u32> {
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
    /// Whether ACKs below SND.UNA are read at all (their SACK and DSACK
    /// blocks, as Linux `tcp_ack` does).
    fn reads_old_acks(&self) -> bool {
        true
    }
    /// May a segment go out now?
    fn allows_sending(&self) -> bool {
        true
    }
    /// Does an ACK that advances SND.UNA and SACKs new data run the loss
    /// decision in the Open state, as a duplicate ACK does? Linux 3.17
    /// `tcp_ack`: such an ACK is "dubious" (`tcp_ack_is_dubious`,
    /// FLAG_DATA_SACKED), so `tcp_fastretrans_alert` asks
    /// `tcp_time_to_recover` (FACK, early retransmit); RFC 6675 Sec. 2
    /// counts only ACKs that leave SND.UNA where it was.
    fn dubious_acks(&self) -> bool {
        false
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
