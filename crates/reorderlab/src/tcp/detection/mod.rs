//! Loss detection: which outstanding segments are deemed lost, and when
//! (DESIGN.md, "TCP"). One component of the sender, an enum dispatched by
//! `match` so the hot path allocates nothing:
//!
//! * [`Detection::DupAck`]: duplicate ACKs and `IsLost` (RFC 5681, RFC
//!   6675), with adaptive thresholds, delays, early retransmit and FACK
//!   ([`dupack`]);
//! * [`Detection::Rack`]: RACK's time-based detection and reorder timer
//!   (RFC 8985 Sec. 6, [`rack`]);
//! * [`Detection::TcpPr`]: TCP-PR's per-segment timers, which also make
//!   its window changes (seed 001 Tables I and III, [`tcp_pr`]).
//!
//! The sender calls the hooks below in the order of its ACK path
//! ([`crate::tcp::sender`]); a new detector is one file here plus one arm
//! in each hook.

pub mod dupack;
pub mod dupthresh;
pub mod er;
pub mod rack;
pub mod reordering;
pub mod tcp_pr;

use crate::engine::Time;
use crate::tcp::policy::{LossDetection, MIN_DUPTHRESH};
use crate::tcp::scoreboard::SegState;
use crate::tcp::sender::tcb::{CaState, Tcb};
use crate::tcp::sender::SenderConfig;
use crate::tcp::timers::rto::RtoEstimator;

use dupack::{DupAck, DupackVerdict};
use dupthresh::DupthreshPolicy;
use rack::Rack;
use tcp_pr::TcpPr;

#[derive(Debug, Clone)]
pub enum Detection {
    DupAck(DupAck),
    Rack(Box<RackDetection>),
    TcpPr(Box<TcpPrDetection>),
}

/// RACK and the fixed DupThresh it reports (RFC 8985 has no duplicate-ACK
/// threshold of its own; Linux's adaptive one is inside [`Rack`]).
#[derive(Debug, Clone)]
pub struct RackDetection {
    pub rack: Rack,
    dupthresh: u32,
}

/// TCP-PR, its next deadline (computed after each transmission: finding it
/// drops stale entries), and a scratch list of the send times of this
/// ACK's newly acknowledged segments.
#[derive(Debug, Clone)]
pub struct TcpPrDetection {
    pub pr: TcpPr,
    deadline: Option<Time>,
    acked: Vec<Time>,
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
    /// Its reordering length, if measurable (seed 000 Sec. 4.1.1).
    pub reordering: Option<u32>,
    /// Time from the retransmission to the DSACK.
    pub since_retransmit: Time,
    /// Duplicate ACKs of its episode and first-dupack-to-ACK time, if the
    /// episode is still remembered.
    pub episode: Option<(u32, Option<Time>)>,
}

impl Detection {
    pub fn new(cfg: &SenderConfig, tcb: &mut Tcb) -> Detection {
        match cfg.detection {
            LossDetection::DupThresh => Detection::DupAck(DupAck::new(cfg.dupthresh.clone())),
            LossDetection::Rack {
                adaptive_reordering,
            } => {
                // RACK walks the segments in the order they were sent.
                tcb.sb.track_send_order();
                let mut policy = cfg.dupthresh.clone();
                Detection::Rack(Box::new(RackDetection {
                    rack: Rack::new(adaptive_reordering),
                    dupthresh: policy.value(tcb.w.cwnd, 0),
                }))
            }
            LossDetection::TcpPr {
                alpha,
                beta,
                extreme,
            } => Detection::TcpPr(Box::new(TcpPrDetection {
                pr: TcpPr::new(alpha, beta, extreme, cfg.rto.initial_rto),
                deadline: None,
                acked: Vec::new(),
            })),
        }
    }

    // ----- observation ---------------------------------------------------

    /// The duplicate-ACK threshold in force (reported per flow).
    #[inline]
    pub fn dupthresh(&self) -> u32 {
        match self {
            Detection::DupAck(d) => d.dupthresh,
            Detection::Rack(r) => r.dupthresh,
            Detection::TcpPr(_) => MIN_DUPTHRESH,
        }
    }

    /// RR-TCP's FA ratio, when the threshold comes from it.
    pub fn fa_ratio(&self) -> Option<f64> {
        match self {
            Detection::DupAck(d) => d.policy.fa_ratio(),
            _ => None,
        }
    }

    /// The smoothed RTT the detection uses (TCP-PR keeps its own).
    pub fn srtt(&self, rtt: &RtoEstimator) -> Option<Time> {
        match self {
            Detection::TcpPr(p) => p.pr.srtt(),
            _ => rtt.srtt(),
        }
    }

    /// The detector's timer (delayed fast retransmit, RACK reorder timer,
    /// TCP-PR's oldest segment or end of waiting).
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        match self {
            Detection::DupAck(d) => d.fr_deadline,
            Detection::Rack(r) => r.rack.deadline,
            Detection::TcpPr(p) => p.deadline,
        }
    }

    /// A delayed fast retransmit is pending.
    #[inline]
    pub fn fast_retransmit_pending(&self) -> bool {
        matches!(self, Detection::DupAck(d) if d.fr_deadline.is_some())
    }

    /// RACK's reorder timer is armed.
    #[inline]
    pub fn reorder_timer_pending(&self) -> bool {
        matches!(self, Detection::Rack(r) if r.rack.deadline.is_some())
    }

    /// RACK state (RFC 8985), for tests and traces.
    pub fn rack(&self) -> Option<&Rack> {
        match self {
            Detection::Rack(r) => Some(&r.rack),
            _ => None,
        }
    }

    /// Whether ACKs below SND.UNA are read at all. TCP-PR, as its ns-2
    /// agent, discards them (seed 001 Sec. III: an ACK only tells which
    /// packets left the network); the others read their SACK and DSACK
    /// blocks, as Linux `tcp_ack` does.
    #[inline]
    pub fn reads_old_acks(&self) -> bool {
        !matches!(self, Detection::TcpPr(_))
    }

    /// May a segment go out now? TCP-PR sends nothing while it waits out an
    /// emulated timeout (seed 001 Table III).
    #[inline]
    pub fn allows_sending(&self) -> bool {
        match self {
            Detection::TcpPr(p) => !p.pr.waiting(),
            _ => true,
        }
    }

    // ----- the ACK path, in order -----------------------------------------

    /// Thresholds for this ACK: dupthresh (with TCP-NCR's during ELT,
    /// `elt`), RACK.min_RTT (RFC 8985 Sec. 6.2 step 1).
    #[inline]
    pub fn before_ack(&mut self, tcb: &Tcb, elt: Option<u32>, now: Time) {
        match self {
            Detection::DupAck(d) => d.refresh(tcb, elt, now),
            Detection::Rack(r) => {
                if let Some(m) = tcb.rtt.min_rtt() {
                    r.rack.min_rtt = Some(r.rack.min_rtt.map_or(m, |x| x.min(m)));
                }
            }
            Detection::TcpPr(_) => {}
        }
    }

    /// A segment was newly delivered (cumulatively or by SACK): RFC 8985
    /// Sec. 6.2 steps 2-3; TCP-PR notes its send time.
    #[inline]
    pub fn on_delivered(&mut self, seq: u32, seg: &SegState, now: Time) {
        match self {
            Detection::DupAck(_) => {}
            Detection::Rack(r) => r.rack.on_delivered(seq, seg, now),
            Detection::TcpPr(p) => p.acked.push(seg.sent_at),
        }
    }

    /// Every delivery of the ACK is known: the end of RFC 8985 Sec. 6.2
    /// step 2; TCP-PR's per-segment srtt / mxrtt update and window growth
    /// (seed 001 Table I lines 14-23).
    #[inline]
    pub fn after_deliveries(&mut self, tcb: &mut Tcb, now: Time) {
        match self {
            Detection::DupAck(_) => {}
            Detection::Rack(r) => r.rack.finish_ack(now),
            Detection::TcpPr(p) => {
                for &sent_at in &p.acked {
                    p.pr.on_acked(sent_at, now, &mut tcb.w, &tcb.sb);
                }
                p.acked.clear();
                tcb.w.cwnd = tcb.w.cwnd.min(tcb.cfg.max_window as f64);
                tcb.note_cwnd();
            }
        }
    }

    /// A duplicate ACK in the Open state: is it time for a fast
    /// retransmit? RACK and TCP-PR do not count duplicate ACKs.
    #[inline]
    pub fn on_dupack(&mut self, tcb: &mut Tcb, allowed: bool, pending: bool, now: Time) -> bool {
        match self {
            Detection::DupAck(d) => {
                d.on_dupack(tcb, allowed, pending, now) == DupackVerdict::Recover
            }
            Detection::Rack(_) | Detection::TcpPr(_) => false,
        }
    }

    /// After the ACK's deliveries and duplicate-ACK accounting: RFC 6675
    /// re-marking in recovery, or RACK's steps 4-5 (reo_wnd, then every
    /// segment whose time is up is lost). Returns whether RACK ran (the
    /// sender then enters recovery if something is marked lost).
    #[inline]
    pub fn detect(&mut self, tcb: &mut Tcb, dsack: bool, now: Time) -> bool {
        match self {
            Detection::DupAck(d) => {
                d.mark_in_recovery(tcb);
                false
            }
            Detection::Rack(r) => {
                let (una, nxt, sacked) = (tcb.sb.una(), tcb.sb.nxt(), tcb.sb.sacked_out());
                let in_recovery = tcb.ca != CaState::Open;
                let srtt = tcb.rtt.srtt();
                r.rack
                    .update_reo_wnd(una, nxt, dsack, in_recovery, sacked, srtt);
                let marked = r.rack.detect_loss(&mut tcb.sb, now);
                tcb.stats.rack_marked_lost += marked as u64;
                true
            }
            Detection::TcpPr(_) => false,
        }
    }

    /// The detector's timer fired.
    pub fn on_timer(&mut self, tcb: &mut Tcb, now: Time) -> TimerVerdict {
        match self {
            Detection::DupAck(d) => match d.on_timer(tcb, now) {
                DupackVerdict::Recover => TimerVerdict::FastRetransmit,
                DupackVerdict::Wait => TimerVerdict::Nothing,
            },
            Detection::Rack(r) if r.rack.deadline.is_some_and(|t| t <= now) => {
                // RFC 8985 Sec. 6.3, the reorder timer.
                tcb.stats.rack_timer_expiries += 1;
                let marked = r.rack.detect_loss(&mut tcb.sb, now);
                tcb.stats.rack_marked_lost += marked as u64;
                if marked > 0 {
                    tcb.stats.rack_reorder_timeouts += 1;
                }
                TimerVerdict::LossMarked
            }
            Detection::Rack(_) => TimerVerdict::Nothing,
            Detection::TcpPr(p) => {
                p.on_timer(tcb, now);
                TimerVerdict::Send
            }
        }
    }

    // ----- episodes ------------------------------------------------------

    /// A fast recovery starts. Returns whether the sender retransmits
    /// SND.UNA at once (RFC 5681 / 6675 fast retransmit); RACK has marked
    /// what is lost and the response paces the retransmissions.
    pub fn on_enter_recovery(&mut self) -> bool {
        match self {
            Detection::DupAck(d) => {
                d.fr_deadline = None;
                true
            }
            Detection::Rack(_) => false,
            Detection::TcpPr(_) => true,
        }
    }

    /// A fast recovery or RTO recovery ended (RFC 8985 Sec. 6.2 step 4:
    /// reo_wnd's persistence counts recoveries).
    pub fn on_recovery_exit(&mut self) {
        if let Detection::Rack(r) = self {
            r.rack.on_recovery_exit();
        }
    }

    /// SND.UNA advanced: a duplicate-ACK run is over.
    #[inline]
    pub fn on_window_advance(&mut self) {
        if let Detection::DupAck(d) = self {
            d.fr_deadline = None;
        }
    }

    /// A retransmission timeout (`prior_cwnd` before it): the thresholds
    /// that learn from timeouts (RR-TCP Sec. 4.3.1, Blanton-Allman), and
    /// pending detection timers are dropped.
    pub fn on_timeout(&mut self, prior_cwnd: f64, rto: Time, srtt: Option<Time>) {
        match self {
            Detection::DupAck(d) => {
                match &mut d.policy {
                    DupthreshPolicy::RrTcp(rr) => {
                        if let Some(srtt) = srtt {
                            rr.on_timeout(prior_cwnd, rto, srtt);
                        }
                    }
                    DupthreshPolicy::BlantonAllman(bl) => bl.on_timeout(),
                    DupthreshPolicy::Fixed(_)
                    | DupthreshPolicy::AvgDev(_)
                    | DupthreshPolicy::Winthresh(_) => {}
                }
                d.fr_deadline = None;
            }
            Detection::Rack(r) => r.rack.deadline = None,
            Detection::TcpPr(_) => {}
        }
    }

    // ----- learning ------------------------------------------------------

    /// Seed 000 Sec. 4.1.1: a reordering length measured when an ACK closed
    /// one hole (RR-TCP's histogram, AVG-DEV's estimator).
    pub fn on_reordering_sample(&mut self, len: u32, now: Time) {
        if let Detection::DupAck(d) = self {
            d.policy.on_reordering_sample(len, now);
        }
    }

    /// RR-TCP Sec. 4.3.3: limited transmit ran out and the sender stayed
    /// idle for `idle` while `dupacks` duplicate ACKs arrived.
    pub fn on_limited_transmit_idle(&mut self, idle: Time, dupacks: u32, cwnd: f64, srtt: Time) {
        if let Detection::DupAck(DupAck {
            policy: DupthreshPolicy::RrTcp(rr),
            ..
        }) = self
        {
            rr.on_limited_transmit_idle(idle, dupacks, cwnd, srtt);
        }
    }

    /// A retransmission was spurious (DSACK): RR-TCP's histogram and cost
    /// of a false fast retransmit (Sec. 4.1-4.3), the Blanton-Allman
    /// schemes, AVG-DEV.
    pub fn on_spurious(&mut self, s: &Spurious, now: Time) {
        let Detection::DupAck(d) = self else {
            return;
        };
        match &mut d.policy {
            DupthreshPolicy::RrTcp(rr) => {
                if let Some(len) = s.reordering {
                    rr.on_sample(len, now);
                }
                if s.fast {
                    rr.on_false_fast_retransmit(s.since_retransmit);
                }
            }
            DupthreshPolicy::BlantonAllman(bl) => {
                if s.fast {
                    let dupacks = s.episode.map_or(d.dupthresh, |e| e.0);
                    bl.on_false_fast_retransmit(dupacks, s.reordering, s.episode.and_then(|e| e.1));
                }
            }
            DupthreshPolicy::AvgDev(ad) => {
                if let Some(len) = s.reordering {
                    ad.on_sample(len);
                }
            }
            DupthreshPolicy::Fixed(_) | DupthreshPolicy::Winthresh(_) => {}
        }
    }

    /// ELT ended at a cumulative ACK (RFC 4653 Sec. 4, Termination):
    /// dupthresh is TCP-NCR's again (`elt`: a re-started ELT's) or the
    /// policy's.
    pub fn after_elt(&mut self, elt: Option<u32>, cwnd: f64, now: Time) {
        if let Detection::DupAck(d) = self {
            d.dupthresh = match elt {
                Some(t) => t,
                None => d.policy.value(cwnd, now),
            };
        }
    }

    /// TCP-NCR's DupThresh changed during ELT (RFC 4653 Sec. 4, E steps).
    pub fn set_elt_dupthresh(&mut self, t: u32) {
        if let Detection::DupAck(d) = self {
            d.dupthresh = t;
        }
    }

    // ----- transmission --------------------------------------------------

    /// A (re)transmission of `seq` left: TCP-PR's to-be-ack list.
    #[inline]
    pub fn on_sent(&mut self, seq: u32, now: Time) {
        if let Detection::TcpPr(p) = self {
            p.pr.on_send(seq, now);
        }
    }

    /// After the sender's transmissions: TCP-PR leaves its loss state once
    /// nothing is marked dropped, and finds its next deadline.
    #[inline]
    pub fn after_transmit(&mut self, tcb: &mut Tcb) {
        if let Detection::TcpPr(p) = self {
            if tcb.sb.lost_out() == 0 && tcb.ca != CaState::Open {
                tcb.ca = CaState::Open;
            }
            p.deadline = p.pr.deadline(&tcb.sb);
        }
    }

    /// Linux 3.17 early retransmit is due ([`DupAck::early_retransmit_due`]).
    pub fn is_early_retransmit(&self, tcb: &Tcb) -> bool {
        matches!(self, Detection::DupAck(d) if d.is_early_retransmit(tcb))
    }
}

impl TcpPrDetection {
    /// TCP-PR's timer: drops older than mxrtt (each halving the window,
    /// or an emulated timeout), or the end of waiting.
    fn on_timer(&mut self, tcb: &mut Tcb, now: Time) {
        let outcome = self.pr.on_timer(now, &mut tcb.w, &mut tcb.sb);
        tcb.stats.fast_recoveries += outcome.halvings as u64;
        tcb.stats.timeouts += outcome.extreme as u64;
        if outcome.extreme > 0 {
            tcb.ca = CaState::Loss;
        } else if outcome.drops > 0 && tcb.ca == CaState::Open {
            tcb.ca = CaState::Recovery;
        }
        tcb.note_cwnd();
    }
}
