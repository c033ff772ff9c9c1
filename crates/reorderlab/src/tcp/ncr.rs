//! TCP-NCR (RFC 4653, "Improving the Robustness of TCP to Non-Congestion
//! Events"): Extended Limited Transmit (ELT) on top of the RFC 6675 SACK
//! sender. On the first duplicate ACK the sender saves FlightSizePrev, raises
//! DupThresh to about one window (LT_F * FlightSize) and keeps the ACK clock
//! going with new data; a cumulative ACK before DupThresh is reached means
//! reordering (no window reduction), reaching DupThresh means loss.
//!
//! The rules, RFC 4653 Sec. 3 (units are segments; SMSS = 1):
//!
//! * Sec. 3.1, Initialization: (I.1) FlightSizePrev = FlightSize, (I.2)
//!   Skipped = 0, (I.3) DupThresh = max(LT_F * FlightSize, 3); then the E
//!   steps for the same ACK.
//! * Sec. 3.3, the E steps of each ACK with SACK information: while
//!   (E.2) pipe + Skipped <= FlightSizePrev - 1 and new data is ready, one
//!   new segment goes out, (E.3) pipe + 1, (E.4) Careful: Skipped + 1, and
//!   (E.5) again: one ACK may release several segments (robust to lost
//!   ACKs). (E.6) DupThresh = max(LT_F * FlightSize, 3), FlightSize being
//!   all data not cumulatively acknowledged.
//! * Sec. 3.2, Termination, on an ACK that advances the cumulative point:
//!   (T.1) cwnd = min(FlightSize + 1, FlightSizePrev), (T.2) ssthresh =
//!   FlightSizePrev; (T.4) if the ACK also carries SACK information, I.2 and
//!   I.3 again but not I.1: FlightSizePrev stays the original one.
//! * Sec. 3.4, Entering loss recovery: ELT ends; ssthresh (and cwnd) from
//!   FlightSizePrev; DupThresh "MUST be held constant until the loss
//!   recovery phase is terminated".
//!
//! The two flavours (Sec. 3): Careful Limited Transmit (LT_F = 2/3) sends
//! one new segment for every two that leave the network, so the data in
//! flight halves over an RTT as it would after a loss; Aggressive (LT_F =
//! 1/2) sends one for each. Either way DupThresh is reached after about one
//! FlightSizePrev of duplicate ACKs.

use crate::tcp::cc::Window;
use crate::tcp::policy::NcrMode;

/// One Extended Limited Transmit phase (RFC 4653 Sec. 3.1-3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elt {
    /// FlightSize when ELT began (I.1); kept across a re-start (T.4).
    pub flight_size_prev: u32,
    /// Segments sent in this phase (Careful only, E.4; I.2 sets it to 0).
    pub skipped: u32,
    /// Current DupThresh (I.3, E.6).
    pub dup_thresh: u32,
}

/// TCP-NCR state of a sender.
#[derive(Debug, Clone)]
pub struct Ncr {
    pub mode: NcrMode,
    elt: Option<Elt>,
}

/// What ended an ELT phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EltEnd {
    /// No SACK information remains: ELT is over.
    Done,
    /// SACKed segments remain above a new hole: ELT goes on (T.4).
    Restarted,
}

impl Ncr {
    pub fn new(mode: NcrMode) -> Ncr {
        Ncr { mode, elt: None }
    }

    /// The current ELT phase, if any.
    pub fn elt(&self) -> Option<&Elt> {
        self.elt.as_ref()
    }

    pub fn active(&self) -> bool {
        self.elt.is_some()
    }

    /// Sec. 3.1, Initialization: (I.1) FlightSizePrev = FlightSize, (I.2)
    /// Skipped = 0, (I.3) DupThresh = max(LT_F * FlightSize, 3).
    pub fn initialize(&mut self, flight_size: u32) {
        self.elt = Some(Elt {
            flight_size_prev: flight_size,
            skipped: 0,
            dup_thresh: self.mode.dup_thresh(flight_size),
        });
    }

    /// E.6 on an ACK with SACK information: DupThresh from the current
    /// FlightSize (everything not cumulatively acknowledged).
    pub fn on_sacked(&mut self, flight_size: u32) {
        let mode = self.mode;
        if let Some(e) = self.elt.as_mut() {
            e.dup_thresh = mode.dup_thresh(flight_size);
        }
    }

    /// E.3-E.4: a new segment went out during ELT (Careful counts it in
    /// Skipped).
    pub fn on_sent(&mut self) {
        if let (NcrMode::Careful, Some(e)) = (self.mode, self.elt.as_mut()) {
            e.skipped += 1;
        }
    }

    /// DupThresh while ELT runs (`None`: the sender's own value applies).
    pub fn dup_thresh(&self) -> Option<u32> {
        self.elt.map(|e| e.dup_thresh)
    }

    /// E.2's bound on pipe: new data may go while pipe + 1 <= this, i.e.
    /// pipe + Skipped <= FlightSizePrev - 1.
    pub fn send_limit(&self) -> Option<u32> {
        self.elt
            .map(|e| e.flight_size_prev.saturating_sub(e.skipped))
    }

    /// Sec. 3.2, Termination: a cumulative ACK arrived during ELT, so the
    /// duplicate ACKs were caused by reordering, not loss. (T.1) cwnd =
    /// min(FlightSize + 1, FlightSizePrev) avoids a burst, (T.2) ssthresh =
    /// FlightSizePrev lets slow start regain the pre-ELT operating point.
    /// (T.4) If SACKed data remain (`sacked_out` > 0), ELT re-starts at
    /// once with I.2 and I.3 but the same FlightSizePrev.
    pub fn terminate(&mut self, w: &mut Window, flight_size: u32, sacked_out: u32) -> EltEnd {
        let Some(e) = self.elt.take() else {
            return EltEnd::Done;
        };
        let prev = e.flight_size_prev as f64;
        w.cwnd = (flight_size as f64 + 1.0).min(prev).max(1.0);
        w.ssthresh = prev;
        if sacked_out == 0 {
            return EltEnd::Done;
        }
        self.elt = Some(Elt {
            flight_size_prev: e.flight_size_prev,
            skipped: 0,
            dup_thresh: self.mode.dup_thresh(flight_size),
        });
        EltEnd::Restarted
    }

    /// Sec. 3.4: DupThresh was reached, loss recovery starts and ELT ends.
    /// Returns FlightSizePrev (the reduction is computed from the data in
    /// flight before ELT) and the DupThresh to hold during the recovery.
    pub fn on_loss(&mut self) -> Option<(u32, u32)> {
        self.elt.take().map(|e| (e.flight_size_prev, e.dup_thresh))
    }

    /// A retransmission timeout ends any ELT phase.
    pub fn reset(&mut self) {
        self.elt = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dup_thresh_is_lt_f_times_flight_size_at_least_three() {
        assert_eq!(NcrMode::Careful.dup_thresh(30), 20);
        assert_eq!(NcrMode::Careful.dup_thresh(10), 6);
        assert_eq!(NcrMode::Aggressive.dup_thresh(30), 15);
        assert_eq!(NcrMode::Aggressive.dup_thresh(7), 3);
        assert_eq!(NcrMode::Careful.dup_thresh(4), 3);
    }

    #[test]
    fn careful_send_limit_falls_by_one_per_segment_sent() {
        // E.2: pipe + Skipped <= FlightSizePrev - 1, and Careful adds one to
        // Skipped per segment sent (E.4); Aggressive keeps the limit.
        let mut n = Ncr::new(NcrMode::Careful);
        n.initialize(12);
        assert_eq!(n.send_limit(), Some(12));
        assert_eq!(n.dup_thresh(), Some(8));
        n.on_sent();
        assert_eq!(n.send_limit(), Some(11));
        n.on_sent();
        assert_eq!(n.send_limit(), Some(10));
        assert_eq!(n.elt().unwrap().skipped, 2);
        // E.6: DupThresh from the FlightSize now (14 outstanding).
        n.on_sacked(14);
        assert_eq!(n.dup_thresh(), Some(9));
        let mut a = Ncr::new(NcrMode::Aggressive);
        a.initialize(12);
        a.on_sent();
        a.on_sacked(17);
        assert_eq!(a.send_limit(), Some(12));
        assert_eq!(a.dup_thresh(), Some(8));
    }

    #[test]
    fn termination_follows_rfc4653_sec_3_2() {
        let mut n = Ncr::new(NcrMode::Careful);
        n.initialize(20);
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: 10.0,
        };
        // T.1 with FlightSize (14 outstanding after the ACK), T.2.
        assert_eq!(n.terminate(&mut w, 14, 0), EltEnd::Done);
        assert_eq!((w.cwnd, w.ssthresh), (15.0, 20.0));
        assert!(!n.active());
        // An ACK that also carries SACK information re-starts ELT (T.4):
        // Skipped = 0, DupThresh from FlightSize (25 outstanding), but
        // FlightSizePrev is still 20, and so is E.2's limit. T.2 sets
        // ssthresh even out of slow start.
        n.initialize(20);
        n.on_sent();
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: f64::INFINITY,
        };
        assert_eq!(n.terminate(&mut w, 25, 2), EltEnd::Restarted);
        assert_eq!((w.cwnd, w.ssthresh), (20.0, 20.0));
        let e = n.elt().unwrap();
        assert_eq!((e.flight_size_prev, e.skipped, e.dup_thresh), (20, 0, 16));
        assert_eq!(n.send_limit(), Some(20));
        // Loss recovery: FlightSizePrev for the reduction, DupThresh held.
        assert_eq!(n.on_loss(), Some((20, 16)));
        assert!(!n.active());
    }
}
