//! Limited transmit: new data sent on duplicate ACKs before loss recovery
//! (RFC 3042; RR-TCP's up to k x cwnd, seed 000 Sec. 4.3; TCP-NCR's
//! Extended Limited Transmit, RFC 4653, [`crate::tcp::ncr`]).

use crate::engine::Time;
use crate::tcp::cc::Window;
use crate::tcp::ncr::{EltEnd, Ncr};
use crate::tcp::policy::LimitedTransmit;

#[derive(Debug, Clone)]
pub struct LtState {
    pub mode: LimitedTransmit,
    /// TCP-NCR Extended Limited Transmit, when that is the mode.
    ncr: Option<Ncr>,
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

    /// ELT's DupThresh while it runs.
    #[inline]
    pub fn elt_dup_thresh(&self) -> Option<u32> {
        self.ncr.as_ref().and_then(Ncr::dup_thresh)
    }

    #[inline]
    pub fn elt_active(&self) -> bool {
        self.ncr.as_ref().is_some_and(Ncr::active)
    }

    /// RFC 4653 Sec. 4 (Initialization, then the E steps): a duplicate ACK
    /// outside recovery starts ELT if it is not running (FlightSizePrev =
    /// `flight`), and every one updates skipped and DupThresh from the
    /// current FlightSize. Returns ELT's new DupThresh.
    #[inline]
    pub fn on_dupack(&mut self, newly: u32, flight: u32) -> Option<u32> {
        let ncr = self.ncr.as_mut()?;
        if !ncr.active() {
            ncr.initialize(flight);
        }
        self.on_sacked(newly, flight)
    }

    /// The E steps for `newly` SACKed segments (also on an old ACK's
    /// SACK blocks while ELT runs). Returns ELT's DupThresh.
    #[inline]
    pub fn on_sacked(&mut self, newly: u32, flight: u32) -> Option<u32> {
        let ncr = self.ncr.as_mut()?;
        ncr.on_sacked(newly, flight);
        ncr.dup_thresh()
    }

    /// RFC 4653 Sec. 4, Termination, at a cumulative ACK while ELT runs:
    /// cwnd and ssthresh are set by [`Ncr::terminate`] instead of growing.
    /// `None` when ELT was not running; else ELT's DupThresh if it
    /// re-started (T.4), or `Some(None)` if it is over.
    #[inline]
    pub fn end_elt(
        &mut self,
        w: &mut Window,
        pipe: u32,
        flight: u32,
        sacked: u32,
    ) -> Option<Option<u32>> {
        let ncr = self.ncr.as_mut().filter(|n| n.active())?;
        Some(match ncr.terminate(w, pipe, flight, sacked) {
            EltEnd::Restarted => ncr.dup_thresh(),
            EltEnd::Done => None,
        })
    }

    /// DupThresh was reached: ELT ends; FlightSizePrev, if it ran.
    pub fn on_loss(&mut self) -> Option<u32> {
        self.ncr.as_mut().and_then(Ncr::on_loss)
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
    /// the Open state with new data to send).
    #[inline]
    pub fn note_exhausted(
        &mut self,
        now: Time,
        open: bool,
        dupacks: u32,
        dupthresh: u32,
        cwnd: f64,
    ) {
        let LimitedTransmit::CwndMultiple(k) = self.mode else {
            return;
        };
        let bound = (k * cwnd).floor() as u32;
        let exhausted = open && dupacks > 0 && dupacks >= bound && dupacks < dupthresh;
        if exhausted && self.idle.is_none() {
            self.idle = Some((now, 0));
        }
    }
}
