//! Limited transmit: new data sent on duplicate ACKs before loss recovery
//! (RFC 3042; RR-TCP's up to k x cwnd, rr-tcp Sec. 4.3; TCP-NCR's
//! Extended Limited Transmit, RFC 4653, [`crate::tcp::ncr`]).

use crate::engine::Time;
use crate::num::floor;
use crate::tcp::cc::Window;
use crate::tcp::ncr::{EltEnd, Ncr};
use crate::tcp::policy::LimitedTransmit;
use crate::tcp::tcb::CaState;

#[derive(Debug, Clone)]
pub struct LtState {
    pub mode: LimitedTransmit,
    /// TCP-NCR Extended Limited Transmit, when that is the mode.
    ncr: Option<Ncr>,
    /// TCP-NCR's DupThresh when the current loss recovery began, held
    /// until it ends (RFC 4653 Sec. 3.4).
    held_dup_thresh: Option<u32>,
    /// Segments sent beyond cwnd in this duplicate-ACK run (not counted in
    /// FlightSize at the fast retransmit: RFC 5681 Sec. 3.2 step 2).
    pub sent_beyond_cwnd: u32,
    /// Limited transmit ran out at this time with this many duplicate ACKs
    /// since (RR-TCP Sec. 4.3.3).
    idle: Option<(Time, u32)>,
}

impl LtState {
    pub fn new(mode: LimitedTransmit) -> LtState {
        let ncr = match mode {
            LimitedTransmit::Extended(m) => Some(Ncr::new(m)),
            _ => None,
        };
        LtState {
            mode,
            ncr,
            held_dup_thresh: None,
            sent_beyond_cwnd: 0,
            idle: None,
        }
    }

    /// Segments allowed beyond cwnd after `dupacks` duplicate ACKs.
    #[inline]
    pub fn allowance(&self, dupacks: u32, cwnd: f64) -> u32 {
        self.mode.allowance(dupacks, cwnd)
    }

    /// ELT's pipe limit while it runs (RFC 4653 Sec. 4, E steps).
    #[inline]
    pub fn elt_send_limit(&self) -> Option<u32> {
        self.ncr.as_ref().and_then(Ncr::send_limit)
    }

    /// TCP-NCR's DupThresh in the state `ca`: ELT's while it runs (Open),
    /// the value held since the recovery began (Recovery; RFC 4653 Sec.
    /// 3.4).
    #[inline]
    pub fn elt_dup_thresh(&self, ca: CaState) -> Option<u32> {
        match ca {
            CaState::Open => self.ncr.as_ref().and_then(Ncr::dup_thresh),
            CaState::Recovery => self.held_dup_thresh,
            CaState::Loss => None,
        }
    }

    #[inline]
    pub fn elt_active(&self) -> bool {
        self.ncr.as_ref().is_some_and(Ncr::active)
    }

    /// RFC 4653 Sec. 3.1 and 3.3: a duplicate ACK outside recovery starts
    /// ELT if it is not running (FlightSizePrev = `flight`), and every one
    /// updates DupThresh from the current FlightSize (E.6). Returns ELT's
    /// DupThresh.
    #[inline]
    pub fn on_dupack(&mut self, flight: u32) -> Option<u32> {
        let ncr = self.ncr.as_mut()?;
        if !ncr.active() {
            ncr.initialize(flight);
        }
        self.on_sacked(flight)
    }

    /// E.6 on an ACK with SACK information while ELT runs (also an old
    /// ACK's). Returns ELT's DupThresh.
    #[inline]
    pub fn on_sacked(&mut self, flight: u32) -> Option<u32> {
        let ncr = self.ncr.as_mut()?;
        ncr.on_sacked(flight);
        ncr.dup_thresh()
    }

    /// A new segment went out in the Open state: ELT's E.3-E.4.
    #[inline]
    pub fn on_new_segment_sent(&mut self) {
        if let Some(ncr) = self.ncr.as_mut() {
            ncr.on_sent();
        }
    }

    /// RFC 4653 Sec. 3.2, Termination, at a cumulative ACK while ELT runs
    /// (`flight`: FlightSize after it): cwnd and ssthresh are set by
    /// [`Ncr::terminate`] instead of growing. `None` when ELT was not
    /// running; else ELT's DupThresh if it re-started (T.4), or
    /// `Some(None)` if it is over.
    #[inline]
    pub fn end_elt(&mut self, w: &mut Window, flight: u32, sacked: u32) -> Option<Option<u32>> {
        let ncr = self.ncr.as_mut().filter(|n| n.active())?;
        Some(match ncr.terminate(w, flight, sacked) {
            EltEnd::Restarted => ncr.dup_thresh(),
            EltEnd::Done => None,
        })
    }

    /// DupThresh was reached: ELT ends and its DupThresh is held for the
    /// recovery (RFC 4653 Sec. 3.4); FlightSizePrev, if it ran.
    pub fn on_loss(&mut self) -> Option<u32> {
        let (prev, dup_thresh) = self.ncr.as_mut().and_then(Ncr::on_loss)?;
        self.held_dup_thresh = Some(dup_thresh);
        Some(prev)
    }

    /// A retransmission timeout ends ELT and any idle period.
    pub fn on_timeout(&mut self) {
        self.idle = None;
        if let Some(ncr) = self.ncr.as_mut() {
            ncr.reset();
        }
    }

    /// A duplicate ACK arrived during an idle period.
    #[inline]
    pub fn on_dupack_while_idle(&mut self) {
        if let Some((_, d)) = self.idle.as_mut() {
            *d += 1;
        }
    }

    /// SND.UNA advanced: the run is over; the idle period it ended, if any
    /// (start, duplicate ACKs during it).
    #[inline]
    pub fn on_window_advance(&mut self) -> Option<(Time, u32)> {
        self.sent_beyond_cwnd = 0;
        self.idle.take()
    }

    /// Limited transmit up to k x cwnd (RR-TCP) watches for idle periods.
    #[inline]
    pub fn watches_idle(&self) -> bool {
        matches!(self.mode, LimitedTransmit::CwndMultiple(_))
    }

    /// RR-TCP Sec. 4.3.3: remember when limited transmit ran out while
    /// duplicate ACKs were still below dupthresh (`open`: the sender is in
    /// the Open state with new data to send; `capped`: the cap past the
    /// receiver window stops it, [`super::SenderConfig::lt_past_window`]).
    #[inline]
    pub fn note_exhausted(
        &mut self,
        now: Time,
        open: bool,
        dupacks: u32,
        dupthresh: u32,
        cwnd: f64,
        capped: bool,
    ) {
        let LimitedTransmit::CwndMultiple(k) = self.mode else {
            return;
        };
        let ran_out = capped || dupacks >= floor(k * cwnd) as u32;
        let exhausted = open && dupacks > 0 && ran_out && dupacks < dupthresh;
        if exhausted && self.idle.is_none() {
            self.idle = Some((now, 0));
        }
    }
}
