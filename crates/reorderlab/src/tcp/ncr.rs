//! TCP-NCR (RFC 4653, "Improving the Robustness of TCP to Non-Congestion
//! Events"): Extended Limited Transmit (ELT) on top of the RFC 6675 SACK
//! sender. On the first duplicate ACK the sender saves FlightSizePrev, raises
//! DupThresh to about one window (LT_F * FlightSize) and keeps the ACK clock
//! going with new data; a cumulative ACK before DupThresh is reached means
//! reordering (no window reduction), reaching DupThresh means loss.
//!
//! The two flavours differ in how much new data ELT sends (RFC 4653 Sec. 3):
//! Careful Limited Transmit (the default, LT_F = 2/3) sends one new segment
//! for every two segments that leave the network, so the data in flight
//! halves over an RTT as it would after a loss; Aggressive Limited Transmit
//! (LT_F = 1/2) sends one for each, keeping the data in flight constant.
//! Either way DupThresh = LT_F * FlightSize is reached after about one
//! FlightSizePrev of duplicate ACKs: Careful, with N segments SACKed,
//! FlightSize = FlightSizePrev + N/2 and N >= 2/3 (FlightSizePrev + N/2)
//! once N >= FlightSizePrev; Aggressive, N >= 1/2 (FlightSizePrev + N).
//!
//! Units are segments (the RFC counts bytes; SMSS = 1 segment here). The
//! RFC text could not be consulted while this was written: the steps follow
//! its structure (Initialization I.1-I.3, the E steps, Termination), and
//! the details chosen where we could not check it are listed in
//! `docs/variants.md` (Assumptions).

use crate::tcp::cc::Window;
use crate::tcp::policy::MIN_DUPTHRESH;

/// RFC 4653 Sec. 3: the Limited Transmit flavour, which fixes LT_F.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcrMode {
    /// Careful Limited Transmit, LT_F = 2/3 (the RFC's default).
    Careful,
    /// Aggressive Limited Transmit, LT_F = 1/2.
    Aggressive,
}

impl NcrMode {
    /// LT_F as a fraction (numerator, denominator), kept exact so that
    /// DupThresh does not depend on floating-point rounding.
    pub fn lt_f(self) -> (u32, u32) {
        match self {
            NcrMode::Careful => (2, 3),
            NcrMode::Aggressive => (1, 2),
        }
    }

    /// RFC 4653 Sec. 4 (steps I.3 and E): DupThresh = max(LT_F * FlightSize,
    /// 3), rounded down to whole segments.
    pub fn dup_thresh(self, flight_size: u32) -> u32 {
        let (num, den) = self.lt_f();
        (num * flight_size / den).max(MIN_DUPTHRESH)
    }
}

/// One Extended Limited Transmit phase (RFC 4653 Sec. 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elt {
    /// FlightSize when ELT began (step I.1); kept across a re-start (T.4).
    pub flight_size_prev: u32,
    /// Segments whose departure did not clock out a new one (Careful only;
    /// step I.2 sets it to 0).
    pub skipped: u32,
    /// Current DupThresh (steps I.3 and E).
    pub dup_thresh: u32,
    /// The pipe ELT clocks against: FlightSizePrev at the start (I.1), the
    /// cwnd set by the termination step at a re-start (T.4).
    base: u32,
    /// Segments SACKed since ELT (re)started.
    sacked: u32,
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
    /// Every segment outstanding is now contiguous: ELT is over.
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

    /// RFC 4653 Sec. 4, Initialization, on the first duplicate ACK outside
    /// loss recovery: (I.1) FlightSizePrev = FlightSize, (I.2) skipped = 0,
    /// (I.3) DupThresh = max(LT_F * FlightSize, 3).
    pub fn initialize(&mut self, flight_size: u32) {
        self.elt = Some(Elt {
            flight_size_prev: flight_size,
            skipped: 0,
            dup_thresh: self.mode.dup_thresh(flight_size),
            base: flight_size,
            sacked: 0,
        });
    }

    /// RFC 4653 Sec. 4, the (E) steps of each ACK during ELT: `newly`
    /// segments left the network (were SACKed). Careful Limited Transmit
    /// lets the first of every two clock out a new segment and counts the
    /// second as skipped; DupThresh follows the current FlightSize.
    pub fn on_sacked(&mut self, newly: u32, flight_size: u32) {
        let mode = self.mode;
        if let Some(e) = self.elt.as_mut() {
            e.sacked += newly;
            if mode == NcrMode::Careful {
                e.skipped = e.sacked / 2;
            }
            e.dup_thresh = mode.dup_thresh(flight_size);
        }
    }

    /// DupThresh while ELT runs (`None`: the sender's own value applies).
    pub fn dup_thresh(&self) -> Option<u32> {
        self.elt.map(|e| e.dup_thresh)
    }

    /// The largest pipe ELT allows (RFC 4653 Sec. 4, step E): new data may
    /// go while pipe + 1 <= this. Aggressive keeps pipe at its level when
    /// ELT started; Careful lowers that level by one per skipped segment.
    pub fn send_limit(&self) -> Option<u32> {
        self.elt.map(|e| match self.mode {
            NcrMode::Careful => e.base.saturating_sub(e.skipped),
            NcrMode::Aggressive => e.base,
        })
    }

    /// RFC 4653 Sec. 4, Termination: a cumulative ACK arrived during ELT,
    /// so the duplicate ACKs were caused by reordering, not loss. The window
    /// is not reduced: cwnd = min(pipe + 1, FlightSizePrev) avoids a burst,
    /// and ssthresh = FlightSizePrev lets slow start regain the pre-ELT
    /// window within about one RTT (an ssthresh already larger is kept, so a
    /// connection in its initial slow start stays there). If SACKed data
    /// remain (`sacked_out` > 0), ELT re-starts at once without a new
    /// FlightSizePrev (T.4: steps I.2 and I.3 only).
    pub fn terminate(
        &mut self,
        w: &mut Window,
        pipe: u32,
        flight_size: u32,
        sacked_out: u32,
    ) -> EltEnd {
        let Some(e) = self.elt.take() else {
            return EltEnd::Done;
        };
        let prev = e.flight_size_prev as f64;
        w.cwnd = (pipe as f64 + 1.0).min(prev).max(1.0);
        w.ssthresh = w.ssthresh.max(prev);
        if sacked_out == 0 {
            return EltEnd::Done;
        }
        self.elt = Some(Elt {
            flight_size_prev: e.flight_size_prev,
            skipped: 0,
            dup_thresh: self.mode.dup_thresh(flight_size),
            base: w.cwnd.floor() as u32,
            sacked: 0,
        });
        EltEnd::Restarted
    }

    /// DupThresh was reached: loss recovery starts and ELT ends. Returns
    /// FlightSizePrev, the FlightSize the ssthresh reduction is computed
    /// from (RFC 4653 Sec. 4: the data in flight before ELT, not what ELT
    /// added or withheld).
    pub fn on_loss(&mut self) -> Option<u32> {
        self.elt.take().map(|e| e.flight_size_prev)
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
    fn careful_lowers_the_send_limit_every_second_segment() {
        let mut n = Ncr::new(NcrMode::Careful);
        n.initialize(12);
        assert_eq!(n.send_limit(), Some(12));
        assert_eq!(n.dup_thresh(), Some(8));
        n.on_sacked(1, 12);
        assert_eq!(n.send_limit(), Some(12));
        n.on_sacked(1, 13);
        assert_eq!(n.send_limit(), Some(11));
        assert_eq!(n.elt().unwrap().skipped, 1);
        n.on_sacked(3, 13);
        // Five SACKed: two skipped. DupThresh from FlightSize 13.
        assert_eq!(n.send_limit(), Some(10));
        assert_eq!(n.dup_thresh(), Some(8));
        let mut a = Ncr::new(NcrMode::Aggressive);
        a.initialize(12);
        a.on_sacked(5, 17);
        assert_eq!(a.send_limit(), Some(12));
        assert_eq!(a.dup_thresh(), Some(8));
    }

    #[test]
    fn termination_sets_cwnd_and_ssthresh_and_may_restart() {
        let mut n = Ncr::new(NcrMode::Careful);
        n.initialize(20);
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: 10.0,
        };
        assert_eq!(n.terminate(&mut w, 14, 16, 0), EltEnd::Done);
        assert_eq!((w.cwnd, w.ssthresh), (15.0, 20.0));
        assert!(!n.active());
        n.initialize(20);
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: f64::INFINITY,
        };
        assert_eq!(n.terminate(&mut w, 25, 22, 2), EltEnd::Restarted);
        assert_eq!(w.cwnd, 20.0);
        assert!(w.ssthresh.is_infinite());
        let e = n.elt().unwrap();
        assert_eq!((e.flight_size_prev, e.skipped, e.dup_thresh), (20, 0, 14));
        assert_eq!(n.on_loss(), Some(20));
        assert!(!n.active());
    }
}
