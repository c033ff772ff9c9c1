//! The TCP sender: a composition of policies (loss detection, loss
//! response, congestion control, timers, limited transmit) around one
//! scoreboard. Variants differ only in the policies they plug in
//! ([`super::variants`]).
//!
//! States follow Linux's naming: `Open` (normal, possibly seeing duplicate
//! ACKs), `Recovery` (fast recovery after fast retransmit) and `Loss` (after a
//! retransmission timeout, until everything outstanding at the timeout is
//! acknowledged).

use std::collections::VecDeque;

use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind};
use crate::tcp::aix::{Aix, AixVerdict};
use crate::tcp::cc::{CongestionControl, Window};
use crate::tcp::cwv::Rfc2861;
use crate::tcp::dsack::{Pairing, RetxEntry, RetxLog, SpuriousRetransmission};
use crate::tcp::dupthresh::{td_fr_deadline, DupthreshPolicy, MIN_DUPTHRESH};
use crate::tcp::er::{er_delay, er_thresh, ER_MAX_OUTSTANDING};
use crate::tcp::frto::{self, FrtoAck, FrtoStep, FrtoVerdict};
use crate::tcp::ncr::{EltEnd, Ncr};
use crate::tcp::policy::{
    CongestionResponse, Cwv, DsackResponse, EarlyRetransmit, FastRetransmitDelay, LimitedTransmit,
    LossDetection, Recovery, RtoRecovery, RtoRestart, RttSampling, RttTiming, TailLossProbe,
};
use crate::tcp::prr::Prr;
use crate::tcp::rack::Rack;
use crate::tcp::reordering::HoleScan;
use crate::tcp::rto::{LinuxRttvar, RtoConfig, RtoEstimator, RttHistogram};
use crate::tcp::rtor::restart_deadline;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::tcp_pr::TcpPr;
use crate::tcp::tlp::{EpisodeEnd, Tlp};
use crate::tcp::truth::{RetxCause, TruthLedger};

/// Everything that defines a sender, resolved from a variant name plus the
/// scenario's overrides.
#[derive(Debug, Clone)]
pub struct SenderConfig {
    pub variant: String,
    pub detection: LossDetection,
    pub recovery: Recovery,
    pub limited_transmit: LimitedTransmit,
    /// When a loss episode reduces the window (TCP-Aix: at the newACK).
    pub response: CongestionResponse,
    /// Congestion Window Validation.
    pub cwv: Cwv,
    /// Use the receiver's SACK information.
    pub use_sack: bool,
    /// How dupthresh is set (fixed, RR-TCP FA / TA, Blanton-Allman).
    pub dupthresh: DupthreshPolicy,
    pub fr_delay: FastRetransmitDelay,
    pub dsack: DsackResponse,
    pub rtt_sampling: RttSampling,
    pub rtt_timing: RttTiming,
    /// Pairing of transmissions with ACKs after a DSACK (`-MEAN` / `-RTX`).
    pub pairing: Pairing,
    /// DSACK-HG: RTO from the 99.8th percentile of an RTT histogram.
    pub rto_histogram: bool,
    /// Linux RTT variation rules ([`LinuxRttvar`]): RTO = SRTT + max(4
    /// mdev, min RTO). Also makes fast recovery reduce from cwnd rather
    /// than FlightSize, as Linux congestion controls do.
    pub linux_rto: bool,
    /// Early retransmit (RFC 5827).
    pub early_retransmit: EarlyRetransmit,
    /// RTO restart (RFC 7765).
    pub rto_restart: RtoRestart,
    /// What follows a timeout: conventional recovery or F-RTO (RFC 5682).
    pub rto_recovery: RtoRecovery,
    /// Tail loss probe (draft-01, TLPR, RFC 8985).
    pub tlp: TailLossProbe,
    /// RFC 6675 NextSeg rule 3 during recovery (Linux "forward
    /// retransmission"): with nothing lost and nothing new to send, resend
    /// the lowest un-SACKed, not yet retransmitted segment below the
    /// highest SACKed one.
    pub forward_retransmit: bool,
    /// FACK (Mathis & Mahdavi 1996; Linux `tcp_fack`, on in 3.17): loss
    /// recovery once fackets_out (SND.UNA to the highest SACKed segment)
    /// exceeds dupthresh, the head fackets_out - dupthresh segments lost.
    pub fack: bool,
    /// Data packet size, bytes.
    pub mss: u32,
    /// Size of SYN packets, bytes.
    pub syn_size: u32,
    /// Receiver window, segments.
    pub max_window: u32,
    pub initial_window: u32,
    pub initial_ssthresh: f64,
    pub rto: RtoConfig,
    /// Open the connection with a SYN handshake.
    pub syn: bool,
    /// Segments the application sends; `None` = unlimited.
    pub segments: Option<u64>,
}

/// Congestion-avoidance state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    NotStarted,
    SynSent,
    Established,
    Done,
}

/// One window reduction (a fast-recovery or timeout episode), kept until
/// its retransmissions are all found spurious (then the reduction is added
/// back: seed 000 Sec. 4.1 records "each fast retransmit's starting time and
/// window reduction amount") or it is too old.
#[derive(Debug, Clone, Copy)]
struct Undo {
    episode: u32,
    prior_cwnd: f64,
    prior_ssthresh: f64,
    /// The window the reduction went down to.
    reduced_to: f64,
    /// Retransmissions of the episode not yet reported by a DSACK.
    retrans: u32,
    /// Duplicate ACKs of the episode up to the first ACK advancing SND.UNA.
    dupacks: u32,
    /// First duplicate ACK to first ACK advancing SND.UNA.
    first_dupack_to_ack: Option<Time>,
    first_dupack_at: Option<Time>,
    advanced: bool,
}

/// Reductions remembered for undo.
const MAX_EPISODES: usize = 16;

/// Sender counters.
#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub data_packets_sent: u64,
    pub new_segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeout_retransmits: u64,
    pub probe_retransmits: u64,
    /// Tail loss probes sent (new data or retransmission).
    pub loss_probes: u64,
    pub loss_probes_new_data: u64,
    /// TLP episodes whose probe repaired a loss (window reduced once).
    pub tlp_recoveries: u64,
    /// TLP episodes ended without a loss (probe not needed).
    pub tlp_no_loss: u64,
    /// Early retransmits (RFC 5827) and RACK reorder-timer expiries.
    pub early_retransmits: u64,
    pub rack_timer_expiries: u64,
    /// Reorder-timer expiries that marked a segment lost (RFC 8985 Sec.
    /// 6.3).
    pub rack_reorder_timeouts: u64,
    /// Segments (or retransmissions) RACK marked lost (RFC 8985 Sec. 6.2
    /// step 5), on ACKs and on the reorder timer.
    pub rack_marked_lost: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub dsacks_received: u64,
    /// Spurious retransmissions the sender itself detected via DSACK.
    pub false_fast_retransmits_detected: u64,
    pub false_timeouts_detected: u64,
    pub undos: u64,
    /// Idle periods after limited transmit ran out (RR-TCP Sec. 4.3.3).
    pub lt_idle_periods: u64,
    pub acks_received: u64,
    pub syns_sent: u64,
    /// Sum and count of the RTO each time the timer was (re)armed.
    pub rto_sum: f64,
    pub rto_count: u64,
    pub max_cwnd: f64,
    pub min_cwnd: f64,
    /// TCP-NCR Extended Limited Transmit phases ended by a cumulative ACK
    /// (reordering, no window reduction; RFC 4653 Sec. 4 Termination).
    pub elt_terminations: u64,
    /// TCP-Aix: loss recoveries started (retransmission at dupthresh, no
    /// window reduction yet).
    pub aix_loss_recoveries: u64,
    /// TCP-Aix: newACKs that answered the original, not the
    /// retransmission (reordering: no window reduction).
    pub aix_reorderings: u64,
    /// RFC 2861 decays: halvings after idle periods and application-limited
    /// decays.
    pub cwv_idle_halvings: u64,
    pub cwv_app_limited_decays: u64,
    /// When the latest fast recovery began, and the dupthresh in force at
    /// that moment (the sender's timeline, for tests and traces).
    pub last_recovery_at: Option<Time>,
    pub last_recovery_dupthresh: u32,
    pub started_at: Option<Time>,
    pub established_at: Option<Time>,
    pub all_acked_at: Option<Time>,
}

#[derive(Debug)]
pub struct Sender {
    pub cfg: SenderConfig,
    flow: u32,
    /// Node of the receiver.
    peer: u32,
    cc: CongestionControl,
    w: Window,
    sb: Scoreboard,
    rtt: RtoEstimator,
    phase: Phase,
    ca: CaState,
    dupacks: u32,
    /// Recovery point (RFC 6675 `RecoveryPoint`, RFC 6582 `recover` + 1):
    /// the episode ends when SND.UNA reaches it.
    recover: Option<u32>,
    /// Partial ACKs seen in the current NewReno recovery.
    partial_acks: u32,
    rto_deadline: Option<Time>,
    /// Delayed fast retransmit (TD-FR, Blanton-Allman timers): Aux timer.
    fr_deadline: Option<Time>,
    dupthresh_policy: DupthreshPolicy,
    /// Current dupthresh.
    dupthresh: u32,
    /// TCP-NCR Extended Limited Transmit, when that is the limited transmit.
    ncr: Option<Ncr>,
    /// TCP-Aix, when the congestion response waits for the newACK.
    aix: Option<Aix>,
    /// RFC 2861 state, when CWV is on.
    cwv: Option<Rfc2861>,
    retx_log: RetxLog,
    episode: u32,
    /// Recent reductions, oldest first (at most [`MAX_EPISODES`]).
    episodes: VecDeque<Undo>,
    /// Highest segment cumulatively ACKed or SACKed so far (m of Sec. 4.1.1).
    highest_acked: Option<u32>,
    first_dupack_at: Option<Time>,
    third_dupack_at: Option<Time>,
    /// Limited transmit ran out at this time with this many dupacks.
    lt_idle: Option<(Time, u32)>,
    /// Segments sent beyond cwnd by limited transmit in this dupack run.
    lt_sent: u32,
    /// The segment being timed and its send time ([`RttTiming::PerRtt`]).
    timed: Option<(u32, Time)>,
    /// TCP-PR timer-only loss detection, when that is the variant.
    pr: Option<Box<TcpPr>>,
    /// TCP-PR's next drop check / end of waiting.
    pr_deadline: Option<Time>,
    /// Scratch list of send times of newly acknowledged segments.
    pr_acked: Vec<Time>,
    /// Tail loss probe state, when the variant probes.
    tlp: Option<Tlp>,
    /// RACK loss detection (RFC 8985), when that is the variant.
    rack: Option<Box<Rack>>,
    /// PRR state of the current recovery (RFC 6937).
    prr: Option<Prr>,
    /// F-RTO after a timeout (RFC 5682 Sec. 3): the step, and the undo
    /// episode of the timeout.
    frto: Option<(FrtoStep, u32)>,
    /// Forward retransmission cursor (no segment below it qualifies).
    fwd_hint: u32,
    syn_sent_at: Time,
    syn_retransmitted: bool,
    pub stats: SenderStats,
    pub truth: TruthLedger,
}

/// The earlier of two optional deadlines.
#[inline]
fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

impl Sender {
    pub fn new(cfg: SenderConfig, cc: CongestionControl, flow: u32, peer: u32) -> Sender {
        let w = Window {
            cwnd: cfg.initial_window as f64,
            ssthresh: cfg.initial_ssthresh,
        };
        let mut rtt = RtoEstimator::new(cfg.rto);
        if cfg.rto_histogram {
            rtt.histogram = Some(RttHistogram::new(
                0.998,
                80 * crate::engine::time::NS_PER_SEC,
            ));
        }
        let dupthresh_policy = cfg.dupthresh.clone();
        let pr = match cfg.detection {
            LossDetection::TcpPr {
                alpha,
                beta,
                extreme,
            } => Some(Box::new(TcpPr::new(
                alpha,
                beta,
                extreme,
                cfg.rto.initial_rto,
            ))),
            LossDetection::DupThresh | LossDetection::Rack { .. } => None,
        };
        if cfg.linux_rto {
            rtt.linux = Some(LinuxRttvar::default());
        }
        let rack = match cfg.detection {
            LossDetection::Rack {
                adaptive_reordering,
            } => Some(Box::new(Rack::new(adaptive_reordering))),
            _ => None,
        };
        let tlp = (cfg.tlp != TailLossProbe::Off).then(|| Tlp::new(cfg.tlp));
        let ncr = match cfg.limited_transmit {
            LimitedTransmit::Extended(mode) => Some(Ncr::new(mode)),
            _ => None,
        };
        let aix = (cfg.response == CongestionResponse::AtNewAck).then(Aix::new);
        let cwv = (cfg.cwv == Cwv::Rfc2861).then(|| Rfc2861::new(0));
        let mut sb = Scoreboard::new();
        if rack.is_some() {
            sb.track_send_order();
        }
        Sender {
            ncr,
            aix,
            cwv,
            cfg,
            flow,
            peer,
            cc,
            w,
            sb,
            rtt,
            phase: Phase::NotStarted,
            ca: CaState::Open,
            dupacks: 0,
            recover: None,
            partial_acks: 0,
            rto_deadline: None,
            fr_deadline: None,
            dupthresh_policy,
            dupthresh: MIN_DUPTHRESH,
            retx_log: RetxLog::default(),
            episode: 0,
            episodes: VecDeque::new(),
            highest_acked: None,
            first_dupack_at: None,
            third_dupack_at: None,
            lt_idle: None,
            lt_sent: 0,
            timed: None,
            pr,
            pr_deadline: None,
            pr_acked: Vec::new(),
            tlp,
            rack,
            prr: None,
            frto: None,
            fwd_hint: 0,
            syn_sent_at: 0,
            syn_retransmitted: false,
            stats: SenderStats {
                min_cwnd: f64::INFINITY,
                ..SenderStats::default()
            },
            truth: TruthLedger::default(),
        }
    }

    // ----- observation -------------------------------------------------

    pub fn window(&self) -> Window {
        self.w
    }
    pub fn ca_state(&self) -> CaState {
        self.ca
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }
    pub fn rtt(&self) -> &RtoEstimator {
        &self.rtt
    }
    /// The smoothed RTT the loss detection uses (TCP-PR keeps its own).
    pub fn srtt(&self) -> Option<Time> {
        match &self.pr {
            Some(p) => p.srtt(),
            None => self.rtt.srtt(),
        }
    }
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh
    }
    pub fn fa_ratio(&self) -> Option<f64> {
        self.dupthresh_policy.fa_ratio()
    }
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Deadline of the given timer, if armed. A pending probe timeout
    /// replaces the retransmission timer (Linux: one timer, `icsk_pending`
    /// = `ICSK_TIME_LOSS_PROBE`); the PTO is never later than the RTO.
    pub fn deadline(&self, kind: TimerKind) -> Option<Time> {
        match kind {
            TimerKind::Rto if self.pto_deadline().is_some() => None,
            TimerKind::Rto => self.rto_deadline,
            TimerKind::Aux => match &self.pr {
                Some(_) => self.pr_deadline,
                // Plain matches: this runs after every packet a flow handles,
                // and an iterator chain here compiled to a costly loop.
                None => earliest(
                    earliest(self.fr_deadline, self.pto_deadline()),
                    self.rack_deadline(),
                ),
            },
            _ => None,
        }
    }

    #[inline]
    fn pto_deadline(&self) -> Option<Time> {
        self.tlp.as_ref().and_then(|t| t.deadline)
    }

    #[inline]
    fn rack_deadline(&self) -> Option<Time> {
        self.rack.as_ref().and_then(|r| r.deadline)
    }

    /// RACK state (RFC 8985), for tests and traces.
    pub fn rack(&self) -> Option<&Rack> {
        self.rack.as_deref()
    }

    /// PRR state of the current recovery (RFC 6937).
    pub fn prr(&self) -> Option<&Prr> {
        self.prr.as_ref()
    }

    /// Value of a recorded series (names in [`crate::spec::SERIES_NAMES`]).
    pub fn sample(&self, name: &str) -> f64 {
        match name {
            "cwnd" => self.w.cwnd,
            "ssthresh" => self.w.ssthresh,
            "srtt" => match &self.pr {
                Some(p) => p.srtt(),
                None => self.rtt.srtt(),
            }
            .map_or(f64::NAN, crate::engine::time::to_secs),
            "rto" => crate::engine::time::to_secs(self.rtt.rto()),
            "dupthresh" => self.dupthresh as f64,
            "fa_ratio" => self.fa_ratio().unwrap_or(f64::NAN),
            "pipe" => self.sb.pipe() as f64,
            "sent" => self.stats.data_packets_sent as f64,
            _ => f64::NAN,
        }
    }

    // ----- events from the engine --------------------------------------

    /// The application starts.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.started_at = Some(now);
        if self.cfg.syn {
            self.phase = Phase::SynSent;
            self.send_syn(now, out);
        } else {
            self.establish(now, out);
        }
    }

    /// An ACK or SYN-ACK arrived.
    pub fn on_packet(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::SynAck if self.phase == Phase::SynSent => {
                if !self.syn_retransmitted {
                    self.rtt.set_seq(0, 0);
                    self.rtt.on_sample(now - self.syn_sent_at);
                }
                self.rto_deadline = None;
                self.establish(now, out);
            }
            PacketKind::Ack if self.phase == Phase::Established => self.on_ack(pkt, now, out),
            _ => {}
        }
    }

    /// The application hands `segments` more segments to a finite transfer
    /// (an unlimited one has all it needs); a finished connection resumes.
    pub fn write(&mut self, segments: u64, now: Time, out: &mut Vec<Packet>) {
        let Some(n) = self.cfg.segments.as_mut() else {
            return;
        };
        *n += segments;
        if self.phase == Phase::Done {
            self.phase = Phase::Established;
            self.stats.all_acked_at = None;
        }
        self.transmit(now, out);
    }

    /// A timer of this sender expired.
    pub fn on_timer(&mut self, kind: TimerKind, now: Time, out: &mut Vec<Packet>) {
        match kind {
            TimerKind::Rto => {
                self.rto_deadline = None;
                self.on_rto(now, out);
            }
            TimerKind::Aux if self.pr.is_some() => self.on_pr_timer(now, out),
            TimerKind::Aux => {
                if self.fr_deadline.is_some_and(|t| t <= now) {
                    self.fr_deadline = None;
                    // The wait is over and the hole is still there.
                    let due = self.dupacks >= self.dupthresh || self.linux_er_due();
                    if self.ca == CaState::Open && due {
                        self.enter_recovery(now, out);
                        self.transmit(now, out);
                    }
                }
                if self.rack_deadline().is_some_and(|t| t <= now) {
                    self.on_rack_timer(now, out);
                }
                if self.pto_deadline().is_some_and(|t| t <= now) {
                    self.on_pto(now, out);
                }
            }
            TimerKind::DelAck => {}
        }
    }

    /// Ground truth: copy `copy` of segment `seq` was dropped in the network.
    pub fn on_drop(&mut self, seq: u32, copy: u16) {
        self.truth.on_drop(seq, copy);
    }

    // ----- connection ---------------------------------------------------

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.syn_sent_at = now;
        self.stats.syns_sent += 1;
        out.push(Packet::control(
            PacketKind::Syn,
            self.flow,
            self.peer,
            self.cfg.syn_size,
            now,
        ));
        self.arm_rto(now);
    }

    fn establish(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.phase = Phase::Established;
        self.stats.established_at = Some(now);
        if let Some(c) = self.cwv.as_mut() {
            *c = Rfc2861::new(now);
        }
        // RFC 5681 Sec. 3.1: after a lost SYN the initial window is one segment.
        if self.syn_retransmitted {
            self.w.cwnd = 1.0;
        }
        self.note_cwnd();
        self.transmit(now, out);
    }

    // ----- ACK processing ------------------------------------------------

    fn on_ack(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        self.stats.acks_received += 1;
        let ack = pkt.seq;
        if ack > self.sb.nxt() {
            return;
        }
        if self.pr.is_some() {
            if ack >= self.sb.una() {
                self.on_ack_pr(pkt, now, out);
            }
            return;
        }
        if ack < self.sb.una() {
            // An old (reordered) ACK: its cumulative ACK says nothing new,
            // but its SACK / DSACK blocks still do (as Linux tcp_ack does).
            if self.cfg.use_sack {
                let m = self.highest_acked;
                let mut scan = HoleScan::default();
                let newly = self.process_sack(pkt, ack, m, &mut scan, now).newly;
                if self.ncr.as_ref().is_some_and(Ncr::active) {
                    self.ncr_on_sacked(newly);
                }
                self.transmit(now, out);
            }
            return;
        }
        self.dupthresh = match &mut self.dupthresh_policy {
            // winthresh holds for a duplicate-ACK run (FlightSize and cwnd
            // at its first duplicate ACK).
            DupthreshPolicy::Winthresh(_) if self.dupacks > 0 => self.dupthresh,
            DupthreshPolicy::Winthresh(wt) => {
                wt.dupthresh(self.cfg.max_window, self.sb.packets_out(), self.w.cwnd)
            }
            p => p.value(self.w.cwnd, now),
        };
        if let Some(d) = self.ncr.as_ref().and_then(Ncr::dup_thresh) {
            self.dupthresh = d;
        }
        // RFC 5827 Sec. 3.2: ER_thresh with a small flight and nothing new
        // to send.
        if self.cfg.early_retransmit == EarlyRetransmit::Rfc5827 && self.ca == CaState::Open {
            if let Some(t) = er_thresh(self.sb.packets_out(), self.can_send_new()) {
                self.dupthresh = self.dupthresh.min(t);
            }
        }
        if let (Some(r), Some(m)) = (self.rack.as_mut(), self.rtt.min_rtt()) {
            r.min_rtt = Some(r.min_rtt.map_or(m, |x| x.min(m)));
        }
        let dsack = self.cfg.use_sack && dsack_block(pkt, ack).is_some();
        let una_before = self.sb.una();
        let m_before = self.highest_acked;
        let mut scan = HoleScan::default();
        let sacked = if self.cfg.use_sack {
            self.process_sack(pkt, ack, m_before, &mut scan, now)
        } else {
            SackOutcome::default()
        };
        let newly_sacked = sacked.newly;
        let mut original_acked = sacked.original_acked;
        let mut delivered = newly_sacked;
        if ack > una_before {
            let frto_point = self.frto_recovery_point();
            let log = &mut self.retx_log;
            let mut rack = self.rack.as_deref_mut();
            let echo = pkt.copy;
            let info = self.sb.cum_ack_with(ack, |seq, seg| {
                if !seg.sacked {
                    scan.note(seq);
                    if seg.copies > 1 {
                        log.on_first_ack(seq, now, m_before, echo);
                    }
                    if let Some(r) = rack.as_deref_mut() {
                        r.on_delivered(seq, seg, now);
                    }
                    original_acked |= seg.copies == 1 && frto_point.is_some_and(|p| seq < p);
                }
            });
            delivered += info.acked - info.were_sacked;
            self.rtt.set_seq(ack, self.sb.nxt());
            // Karn's algorithm (RFC 6298 Sec. 3): no sample when a
            // retransmitted segment is acknowledged. The sample times the
            // oldest newly acknowledged segment (as Linux `first_ackt`), so a
            // delayed segment that closes a hole contributes its long RTT.
            match self.cfg.rtt_timing {
                RttTiming::PerAck if !info.any_retransmitted => {
                    let sent = info.first_sent_at.unwrap_or(info.last_sent_at);
                    self.rtt.on_sample_at(now - sent, now);
                }
                RttTiming::PerAck => {}
                RttTiming::PerRtt => {
                    if let Some((_, at)) = self.timed.filter(|&(seq, _)| ack > seq) {
                        self.rtt.on_sample_at(now - at, now);
                        self.timed = None;
                    }
                }
            }
            self.on_window_advance(now);
            self.on_new_ack(info.acked, info.were_sacked, ack, echo, now, out);
            self.restart_rto_after_ack(now);
        }
        if let Some(r) = self.rack.as_mut() {
            r.finish_ack(now);
        }
        if ack <= una_before && self.sb.packets_out() > 0 {
            // RFC 6675 Sec. 2: with SACK, a duplicate ACK is one that SACKs
            // new data; without, any ACK that does not advance SND.UNA.
            let duplicate = !self.cfg.use_sack || newly_sacked > 0;
            if duplicate {
                self.dupacks += 1;
                self.on_dupack(newly_sacked, now, out);
            }
        }
        self.frto_on_ack(FrtoAck {
            advanced: ack > una_before,
            newly_sacked,
            original_acked,
        });
        self.measure_reordering(&scan, m_before, now);
        let highest_in_ack = ack.checked_sub(1).into_iter().chain(
            pkt.sack
                .as_slice()
                .iter()
                .filter(|&&(_, r)| r > ack)
                .map(|&(_, r)| r - 1),
        );
        self.highest_acked = highest_in_ack.chain(m_before).max();
        if self.cfg.use_sack && self.ca == CaState::Recovery && self.rack.is_none() {
            self.sb.mark_lost_by_dupthresh(self.dupthresh);
            self.fack_mark_lost();
        }
        let entered = self.rack_detect(dsack, now, out);
        self.tlp_on_ack(pkt, ack, ack > una_before, newly_sacked, now);
        self.prr_on_ack(delivered, entered);
        self.transmit(now, out);
        if ack > una_before || matches!(self.cfg.tlp, TailLossProbe::Draft01 { .. }) {
            self.schedule_tlp(now);
        } else if !self.tlp_allowed() {
            if let Some(t) = self.tlp.as_mut() {
                t.deadline = None;
            }
        }
        self.check_done(now);
    }

    // ----- F-RTO -----------------------------------------------------------

    /// RecoveryPoint while F-RTO runs: segments below it were sent before
    /// the timeout (or before step 2b's new data).
    fn frto_recovery_point(&self) -> Option<u32> {
        self.frto.and(self.recover)
    }

    /// RFC 5682 Sec. 3 steps 2-3 for an ACK of the Loss state
    /// ([`crate::tcp::frto`]).
    fn frto_on_ack(&mut self, ack: FrtoAck) {
        let Some((step, episode)) = self.frto else {
            return;
        };
        if self.ca != CaState::Loss {
            // Step 2a (the ACK covered RecoveryPoint), or a DSACK undo.
            self.frto = None;
            return;
        }
        match frto::on_ack(step, ack) {
            FrtoVerdict::Wait => {}
            FrtoVerdict::SendNewData => {
                // Step 2b: RecoveryPoint = SND.NXT, then new data instead
                // of retransmissions (sent by `transmit`), if there is any.
                let can_send = self.has_new_data() && self.sb.packets_out() < self.cfg.max_window;
                if can_send {
                    self.recover = Some(self.sb.nxt());
                    self.frto = Some((FrtoStep::NewDataSent, episode));
                } else {
                    self.frto = None;
                }
            }
            FrtoVerdict::Conventional => {
                // Step 3a: cwnd <= 3 segments, retransmissions resume.
                self.frto = None;
                self.w.cwnd = self.w.cwnd.min(3.0);
                self.note_cwnd();
            }
            FrtoVerdict::Spurious => self.frto_undo(episode),
        }
    }

    /// Step 3b: the timeout was spurious. Undo as Linux's
    /// `tcp_try_undo_loss`: lost marks cleared (nothing more is
    /// retransmitted), cwnd = max(cwnd, cwnd before the timeout), ssthresh
    /// = max(ssthresh, ssthresh before), back to Open. The timeout's
    /// retransmission is forgotten so that its DSACK does not count the
    /// same spurious timeout again.
    fn frto_undo(&mut self, episode: u32) {
        self.frto = None;
        self.stats.false_timeouts_detected += 1;
        self.stats.undos += 1;
        if let Some(i) = self.episodes.iter().position(|u| u.episode == episode) {
            if let Some(u) = self.episodes.remove(i) {
                self.w.cwnd = self.w.cwnd.max(u.prior_cwnd);
                self.w.ssthresh = self.w.ssthresh.max(u.prior_ssthresh);
            }
        }
        self.w.cwnd = self.w.cwnd.min(self.cfg.max_window as f64);
        self.retx_log.forget_episode(episode);
        self.cc.on_undo();
        self.sb.clear_lost_marks();
        self.ca = CaState::Open;
        self.recover = None;
        self.prr = None;
        self.note_cwnd();
    }

    // ----- RACK, TLP, PRR, early retransmit ------------------------------

    /// RFC 8985 Sec. 6.2 steps 4-5 after this ACK's deliveries; enters
    /// fast recovery when a segment is found lost. Returns whether it did.
    fn rack_detect(&mut self, dsack: bool, now: Time, out: &mut Vec<Packet>) -> bool {
        let (una, nxt, sacked) = (self.sb.una(), self.sb.nxt(), self.sb.sacked_out());
        let in_recovery = self.ca != CaState::Open;
        let srtt = self.rtt.srtt();
        let Some(r) = self.rack.as_mut() else {
            return false;
        };
        r.update_reo_wnd(una, nxt, dsack, in_recovery, sacked, srtt);
        let marked = r.detect_loss(&mut self.sb, now);
        self.stats.rack_marked_lost += marked as u64;
        self.rack_maybe_recover(now, out)
    }

    /// Fast recovery once RACK marked something lost (RFC 8985 Sec. 6.2:
    /// "If any segment is marked lost, enter fast recovery").
    fn rack_maybe_recover(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        let allowed = self.recover.is_none_or(|r| self.sb.una() >= r);
        if self.ca == CaState::Open && self.sb.lost_out() > 0 && allowed {
            self.enter_recovery(now, out);
            return true;
        }
        false
    }

    /// The RACK reorder timer (RFC 8985 Sec. 6.3).
    fn on_rack_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.rack_timer_expiries += 1;
        let Some(r) = self.rack.as_mut() else {
            return;
        };
        let marked = r.detect_loss(&mut self.sb, now);
        self.stats.rack_marked_lost += marked as u64;
        if marked > 0 {
            self.stats.rack_reorder_timeouts += 1;
        }
        // Linux `tcp_rack_reo_timeout`: entering recovery here counts as one
        // segment delivered for PRR.
        if self.rack_maybe_recover(now, out) {
            self.prr_on_ack(1, true);
        }
        self.transmit(now, out);
    }

    /// cwnd = ssthresh when a recovery ends. A DSACK undo inside the
    /// recovery may have restored the unbounded ssthresh of slow start; the
    /// restored cwnd then stays.
    fn deflate_to_ssthresh(&mut self) {
        if self.w.ssthresh.is_finite() {
            self.w.cwnd = self.w.ssthresh;
        }
    }

    /// RFC 6937: cwnd = pipe + sndcnt on an ACK during recovery (not the
    /// one that ends it). The ACK that starts recovery sends at least one
    /// segment (the fast retransmit), as Linux does.
    fn prr_on_ack(&mut self, delivered: u32, entered: bool) {
        if self.ca != CaState::Recovery {
            return;
        }
        let pipe = self.sb.pipe();
        let Some(p) = self.prr.as_mut() else {
            return;
        };
        let Some(mut sndcnt) = p.on_ack(delivered.max(entered as u32), pipe) else {
            return;
        };
        if p.prr_out == 0 {
            sndcnt = sndcnt.max(1);
        }
        self.w.cwnd = (pipe + sndcnt) as f64;
        self.note_cwnd();
    }

    /// Linux 3.17 early retransmit (`tcp_time_to_recover`, trick #6):
    /// fewer than 4 segments out, at least one SACKed, no retransmission
    /// outstanding, nothing new sendable.
    fn linux_er_due(&self) -> bool {
        self.cfg.early_retransmit == EarlyRetransmit::Linux
            && self.ca == CaState::Open
            && self.rack.is_none()
            && self.sb.packets_out() < ER_MAX_OUTSTANDING
            && self.sb.sacked_out() > 0
            && self.sb.packets_out() > self.sb.sacked_out()
            && self.sb.retrans_out() == 0
            && !self.can_send_new()
    }

    /// Could a new segment go out now (RFC 5827 "previously unsent data
    /// cannot be transmitted")?
    fn can_send_new(&self) -> bool {
        self.has_new_data()
            && self.sb.packets_out() < self.cfg.max_window
            && self.sb.packets_out() as f64 + 1.0 <= self.w.cwnd.floor().max(1.0)
    }

    /// May a probe timeout be armed now? draft-01 Sec. 2 / Linux 3.17
    /// `tcp_schedule_loss_probe`: SACK, Open state, an RTT sample, data
    /// outstanding, no early-retransmit timer pending, cwnd- or
    /// application-limited; RFC 8985 Sec. 7.2: also nothing SACKed and no
    /// reorder timer. One probe per episode (TLP.end_seq).
    fn tlp_allowed(&self) -> bool {
        let Some(t) = self.tlp.as_ref() else {
            return false;
        };
        let basic = self.phase == Phase::Established
            && self.cfg.use_sack
            && self.ca == CaState::Open
            && self.rtt.srtt().is_some()
            && self.sb.packets_out() > 0
            && self.fr_deadline.is_none()
            && !t.episode_open();
        basic
            && match t.mode {
                TailLossProbe::Rfc8985 => {
                    self.sb.sacked_out() == 0 && self.rack_deadline().is_none()
                }
                _ => !(self.w.cwnd > self.sb.pipe() as f64 && self.has_new_data()),
            }
    }

    /// (Re)arm the PTO (after new data went out, or on an ACK).
    fn schedule_tlp(&mut self, now: Time) {
        let allowed = self.tlp_allowed();
        let (srtt, out) = (self.rtt.srtt().unwrap_or(0), self.sb.packets_out());
        let last_sent = self
            .sb
            .nxt()
            .checked_sub(1)
            .and_then(|s| self.sb.seg(s))
            .map_or(now, |s| s.sent_at);
        let rto = self.rto_deadline;
        let Some(t) = self.tlp.as_mut() else {
            return;
        };
        if allowed {
            t.arm(now, srtt, out, last_sent, rto);
        } else {
            t.deadline = None;
        }
    }

    /// The probe timeout fired (draft-01 Sec. 2.1, RFC 8985 Sec. 7.3): a
    /// new segment if one is ready and the receiver window allows, else the
    /// highest segment sent again; cwnd unchanged; then the RTO is re-armed.
    fn on_pto(&mut self, now: Time, out: &mut Vec<Packet>) {
        let ok = self.tlp_allowed();
        if let Some(t) = self.tlp.as_mut() {
            t.deadline = None;
        }
        if !ok {
            self.arm_rto(now);
            return;
        }
        self.stats.loss_probes += 1;
        let is_retrans = !(self.has_new_data() && self.sb.packets_out() < self.cfg.max_window);
        if is_retrans {
            let seq = self.sb.nxt() - 1;
            self.send_retransmission(seq, RetxCause::Probe, now, out);
        } else {
            self.stats.loss_probes_new_data += 1;
            self.send_new(now, out);
        }
        let (seq, nxt) = (self.sb.nxt() - 1, self.sb.nxt());
        if let Some(t) = self.tlp.as_mut() {
            t.on_probe(seq, nxt, is_retrans);
        }
        self.arm_rto(now);
    }

    /// RFC 8985 Sec. 7.4 on every ACK: has the TLP episode ended, and did
    /// its probe repair a loss?
    fn tlp_on_ack(&mut self, pkt: &Packet, ack: u32, advanced: bool, newly: u32, now: Time) {
        let Some(t) = self.tlp.as_mut() else {
            return;
        };
        let probe = t.probe_seq;
        let block = dsack_block(pkt, ack);
        let dsack_probe = block.is_some_and(|(l, r)| l <= probe && probe < r);
        let pure_dup = !advanced && newly == 0 && block.is_none();
        match t.on_ack(ack, dsack_probe, pure_dup) {
            EpisodeEnd::Open => {}
            EpisodeEnd::NoLoss => self.stats.tlp_no_loss += 1,
            EpisodeEnd::Repaired => {
                // The retransmitted probe repaired a loss: one window
                // reduction (draft-01 Sec. 3, Linux `tcp_process_tlp_ack`:
                // CWR with ssthresh from the congestion control, cwnd =
                // ssthresh).
                self.stats.tlp_recoveries += 1;
                let flight = self.w.cwnd.floor().max(1.0) as u32;
                self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, now);
                self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
                self.note_cwnd();
            }
        }
    }

    /// TCP-PR: every newly acknowledged segment (cumulatively or by SACK)
    /// updates srtt / mxrtt and grows cwnd; duplicate ACKs mean nothing.
    fn on_ack_pr(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        if dsack_block(pkt, pkt.seq).is_some() {
            self.stats.dsacks_received += 1;
        }
        let mut acked = std::mem::take(&mut self.pr_acked);
        for &(l, r) in pkt.sack.as_slice() {
            if r > pkt.seq {
                self.sb.sack(l, r, |_, seg| acked.push(seg.sent_at));
            }
        }
        if pkt.seq > self.sb.una() {
            self.sb.cum_ack_with(pkt.seq, |_, seg| {
                if !seg.sacked {
                    acked.push(seg.sent_at);
                }
            });
        }
        if let Some(pr) = self.pr.as_mut() {
            for &sent_at in &acked {
                pr.on_acked(sent_at, now, &mut self.w, &self.sb);
            }
        }
        acked.clear();
        self.pr_acked = acked;
        self.w.cwnd = self.w.cwnd.min(self.cfg.max_window as f64);
        self.note_cwnd();
        self.transmit(now, out);
        self.check_done(now);
    }

    /// TCP-PR's timer: drops older than mxrtt, or the end of waiting.
    fn on_pr_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(pr) = self.pr.as_mut() else {
            return;
        };
        let outcome = pr.on_timer(now, &mut self.w, &mut self.sb);
        self.stats.fast_recoveries += outcome.halvings as u64;
        self.stats.timeouts += outcome.extreme as u64;
        if outcome.extreme > 0 {
            self.ca = CaState::Loss;
        } else if outcome.drops > 0 && self.ca == CaState::Open {
            self.ca = CaState::Recovery;
        }
        self.note_cwnd();
        self.transmit(now, out);
    }

    /// SND.UNA advanced: the end of a run of duplicate ACKs.
    fn on_window_advance(&mut self, now: Time) {
        if let Some(u) = self.episodes.back_mut().filter(|u| !u.advanced) {
            u.advanced = true;
            u.first_dupack_to_ack = u.first_dupack_at.map(|t| now - t);
        }
        if let Some((since, d)) = self.lt_idle.take() {
            self.stats.lt_idle_periods += 1;
            if let (DupthreshPolicy::RrTcp(rr), Some(srtt)) =
                (&mut self.dupthresh_policy, self.rtt.srtt())
            {
                rr.on_limited_transmit_idle(now - since, d, self.w.cwnd, srtt);
            }
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        self.first_dupack_at = None;
        self.third_dupack_at = None;
        self.fr_deadline = None;
    }

    /// Seed 000 Sec. 4.1.1: one reordering-length sample when this ACK
    /// closed exactly one hole below the highest segment acknowledged. A
    /// retransmitted hole is measured later, when its DSACK arrives.
    fn measure_reordering(&mut self, scan: &HoleScan, m_before: Option<u32>, now: Time) {
        let Some(len) = scan.sample(m_before) else {
            return;
        };
        if !self.retx_log.contains(scan.hole) {
            self.dupthresh_policy.on_reordering_sample(len, now);
        }
    }

    /// Apply the SACK blocks; returns the number of newly SACKed segments.
    /// A first block below the cumulative ACK, or inside the second block,
    /// is a DSACK (RFC 2883 Sec. 4).
    fn process_sack(
        &mut self,
        pkt: &Packet,
        ack: u32,
        m_before: Option<u32>,
        scan: &mut HoleScan,
        now: Time,
    ) -> SackOutcome {
        let blocks = pkt.sack.as_slice();
        let mut first = 0;
        if let Some(&(l, r)) = blocks.first() {
            let inside_second = blocks.get(1).is_some_and(|&(l2, r2)| l2 <= l && r <= r2);
            if r <= ack || inside_second {
                self.stats.dsacks_received += 1;
                first = 1;
                for seq in l..r.min(l + 64) {
                    self.on_dsack(seq, pkt.copy, now, m_before);
                }
            }
        }
        let mut newly = 0;
        let mut original_acked = false;
        let frto_point = self.frto_recovery_point();
        let echo = pkt.copy;
        for &(l, r) in &blocks[first..] {
            let log = &mut self.retx_log;
            let mut rack = self.rack.as_deref_mut();
            newly += self.sb.sack(l, r, |seq, seg| {
                scan.note(seq);
                if seg.copies > 1 {
                    log.on_first_ack(seq, now, m_before, echo);
                }
                if let Some(r) = rack.as_deref_mut() {
                    r.on_delivered(seq, seg, now);
                }
                original_acked |= seg.copies == 1 && frto_point.is_some_and(|p| seq < p);
            });
        }
        SackOutcome {
            newly,
            original_acked,
        }
    }

    /// A DSACK reported a duplicate of `seq`: if we retransmitted it, the
    /// retransmission was spurious (RFC 3708). Count it, learn from it
    /// (DSACK-ES RTT sample, reordering length, dupthresh policies) and undo
    /// the window reduction once every retransmission of the episode is
    /// known spurious (DSACK-R).
    fn on_dsack(&mut self, seq: u32, echo: u16, now: Time, m: Option<u32>) {
        if self.cfg.dsack == DsackResponse::Ignore {
            return;
        }
        let Some(sp) = self.retx_log.on_dsack(seq, now, m, echo, self.cfg.pairing) else {
            return;
        };
        let SpuriousRetransmission {
            entry,
            rtt_sample,
            reordering,
        } = sp;
        match entry.cause {
            RetxCause::Fast => self.stats.false_fast_retransmits_detected += 1,
            RetxCause::Timeout => self.stats.false_timeouts_detected += 1,
            RetxCause::Probe => {}
        }
        if self.cfg.dsack == DsackResponse::Detect {
            return;
        }
        if let (RttSampling::DsackEnhanced, Some(r)) = (self.cfg.rtt_sampling, rtt_sample) {
            self.rtt.on_sample_at(r, now);
        }
        let undo = self
            .episodes
            .iter()
            .find(|u| u.episode == entry.episode)
            .copied();
        match &mut self.dupthresh_policy {
            DupthreshPolicy::RrTcp(rr) => {
                if let Some(len) = reordering {
                    rr.on_sample(len, now);
                }
                if entry.cause == RetxCause::Fast {
                    rr.on_false_fast_retransmit(now.saturating_sub(entry.retransmit_sent));
                }
            }
            DupthreshPolicy::BlantonAllman(bl) => {
                if entry.cause == RetxCause::Fast {
                    let dupacks = undo.map_or(self.dupthresh, |u| u.dupacks);
                    bl.on_false_fast_retransmit(
                        dupacks,
                        reordering,
                        undo.and_then(|u| u.first_dupack_to_ack),
                    );
                }
            }
            DupthreshPolicy::AvgDev(ad) => {
                if let Some(len) = reordering {
                    ad.on_sample(len);
                }
            }
            DupthreshPolicy::Fixed(_) | DupthreshPolicy::Winthresh(_) => {}
        }
        if let Some(i) = self
            .episodes
            .iter()
            .position(|u| u.episode == entry.episode)
        {
            let u = &mut self.episodes[i];
            u.retrans = u.retrans.saturating_sub(1);
            if u.retrans == 0 {
                self.undo_reduction(i);
            }
        }
    }

    /// Restore the window of before the reduction (seed 000 Sec. 2.1,
    /// RFC 3708 / Blanton-Allman): the reduction was caused by reordering,
    /// not loss.
    fn undo_reduction(&mut self, i: usize) {
        let Some(u) = self.episodes.remove(i) else {
            return;
        };
        let latest = i == self.episodes.len();
        let delta = (u.prior_cwnd - u.reduced_to).max(0.0);
        self.w.cwnd = (self.w.cwnd + delta).min(self.cfg.max_window as f64);
        self.w.ssthresh = self.w.ssthresh.max(u.prior_ssthresh);
        self.cc.on_undo();
        self.stats.undos += 1;
        if latest && self.ca != CaState::Open {
            if self.ca == CaState::Loss {
                self.sb.clear_lost_marks();
            }
            self.ca = CaState::Open;
            self.recover = None;
            self.prr = None;
        }
        self.note_cwnd();
    }

    /// An ACK advanced SND.UNA by `acked` segments to `ack`.
    /// `were_sacked` of them had been SACKed; the ACK echoed transmission
    /// `echo` of the segment that triggered it.
    fn on_new_ack(
        &mut self,
        acked: u32,
        were_sacked: u32,
        ack: u32,
        echo: u16,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        let recovered = self.recover.is_some_and(|r| ack >= r);
        match self.ca {
            CaState::Open => {
                if let Some(verdict) = self.aix.as_mut().and_then(|a| a.on_new_ack(ack, echo)) {
                    self.aix_congestion_response(verdict, acked - were_sacked, now);
                } else if !self.end_extended_limited_transmit(now) {
                    self.grow(acked, now);
                }
            }
            CaState::Loss => {
                self.grow(acked, now);
                if recovered {
                    self.ca = CaState::Open;
                    self.on_recovery_exit();
                }
            }
            CaState::Recovery => match self.cfg.recovery {
                Recovery::Reno => {
                    // RFC 5681 Sec. 3.2 step 6: deflate and leave.
                    self.deflate_to_ssthresh();
                    self.ca = CaState::Open;
                }
                Recovery::NewReno if recovered => {
                    // RFC 6582 Sec. 3.2 step 3, option (1).
                    let flight = self.sb.packets_out().max(1) as f64;
                    self.w.cwnd = self.w.ssthresh.min(flight + 1.0);
                    self.ca = CaState::Open;
                }
                Recovery::NewReno => {
                    // Step 4: partial ACK: retransmit the next hole, deflate by
                    // the amount acknowledged, add back one segment.
                    self.partial_acks += 1;
                    let una = self.sb.una();
                    self.sb.mark_lost(una);
                    self.retransmit_if_lost(una, RetxCause::Fast, now, out);
                    self.w.cwnd = (self.w.cwnd - acked as f64 + 1.0).max(1.0);
                }
                Recovery::Sack => {
                    if recovered {
                        self.ca = CaState::Open;
                        self.on_recovery_exit();
                    }
                }
                Recovery::Prr => {
                    if recovered {
                        // RFC 6937: at the end of recovery cwnd = ssthresh.
                        self.deflate_to_ssthresh();
                        self.ca = CaState::Open;
                        self.on_recovery_exit();
                    }
                }
            },
        }
        self.note_cwnd();
    }

    /// Leaving fast or RTO recovery.
    fn on_recovery_exit(&mut self) {
        self.prr = None;
        if let Some(r) = self.rack.as_mut() {
            r.on_recovery_exit();
        }
    }

    /// A duplicate ACK that SACKed `newly` segments (RFC 6675 Sec. 2).
    fn on_dupack(&mut self, newly: u32, now: Time, out: &mut Vec<Packet>) {
        match self.dupacks {
            1 => self.first_dupack_at = Some(now),
            3 => self.third_dupack_at = Some(now),
            _ => {}
        }
        if let Some(u) = self.episodes.back_mut().filter(|u| !u.advanced) {
            u.dupacks += 1;
        }
        if let Some((_, d)) = self.lt_idle.as_mut() {
            *d += 1;
        }
        match self.ca {
            CaState::Open => {
                self.extended_limited_transmit(newly);
                self.aix_on_dupack(newly, now);
                if self.rack.is_some() {
                    // RACK replaces the duplicate-ACK threshold (RFC 8985).
                    return;
                }
                if self.cfg.use_sack {
                    self.sb.mark_lost_by_dupthresh(self.dupthresh);
                    self.fack_mark_lost();
                }
                let pending = self.aix.as_ref().is_some_and(Aix::recovering);
                let due = self.time_to_recover() || self.linux_er_due();
                if !pending && due && self.fr_deadline.is_none() {
                    match self.fast_retransmit_wait(now) {
                        Some(t) if t > now => self.fr_deadline = Some(t),
                        _ => self.enter_recovery(now, out),
                    }
                }
            }
            CaState::Recovery => {
                if matches!(self.cfg.recovery, Recovery::Reno | Recovery::NewReno) {
                    // RFC 5681 step 4 / RFC 6582: inflate by one segment.
                    self.w.cwnd += 1.0;
                    self.note_cwnd();
                }
            }
            CaState::Loss => {}
        }
    }

    /// TCP-Aix ([`crate::tcp::aix`], rule 2): a duplicate ACK opens a run
    /// (FlightSize saved) and its SACKed segments count as delivered for
    /// window growth.
    fn aix_on_dupack(&mut self, newly: u32, now: Time) {
        let flight = self.sb.packets_out();
        let Some(aix) = self.aix.as_mut() else {
            return;
        };
        aix.on_dupack(flight);
        let recovering = aix.recovering();
        if newly > 0 {
            if !self.w.in_slow_start() {
                self.grow(newly, now);
                self.note_cwnd();
            }
            // SACKed data restart the retransmission timer until loss
            // recovery starts, so that winthresh (up to two windows of
            // duplicate ACKs) is not cut short by it; from the
            // retransmission on, the timer runs as usual (assumption, see
            // aix.rs).
            if !recovering {
                self.arm_rto(now);
            }
        }
    }

    /// TCP-Aix, rule 1: dupthresh reached. SND.UNA is retransmitted at once;
    /// the window waits for the newACK.
    fn aix_start_loss_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        let (una, flight) = (self.sb.una(), self.sb.packets_out());
        let Some(aix) = self.aix.as_mut() else {
            return;
        };
        aix.on_loss_recovery(una, flight);
        self.stats.aix_loss_recoveries += 1;
        self.stats.last_recovery_dupthresh = self.dupthresh;
        self.fr_deadline = None;
        self.sb.mark_lost(una);
        self.retransmit_if_lost(una, RetxCause::Fast, now, out);
    }

    /// TCP-Aix, rule 1: the run ended at a cumulative ACK that newly
    /// acknowledged `unsacked` segments not SACKed before (the SACKed ones
    /// already grew the window).
    fn aix_congestion_response(&mut self, verdict: AixVerdict, unsacked: u32, now: Time) {
        match verdict {
            AixVerdict::ShortReordering | AixVerdict::Reordering => {
                if verdict == AixVerdict::Reordering {
                    self.stats.aix_reorderings += 1;
                }
                self.grow(unsacked, now);
            }
            AixVerdict::Loss { flight_prev } => {
                // The reduction of a fast recovery, entered now.
                self.stats.fast_recoveries += 1;
                self.stats.last_recovery_at = Some(now);
                self.begin_reduction();
                self.w.ssthresh = self
                    .cc
                    .ssthresh_after_loss(&self.w, flight_prev.max(1), now);
                self.w.cwnd = self.w.ssthresh;
                self.end_reduction(self.w.ssthresh);
                self.recover = Some(self.sb.nxt());
                self.ca = CaState::Recovery;
                self.partial_acks = 0;
                self.lt_sent = 0;
            }
        }
    }

    /// RFC 4653 Sec. 4 (Initialization, then the E steps): a duplicate ACK
    /// outside recovery starts Extended Limited Transmit if it is not
    /// running (saving FlightSizePrev), and every one updates skipped and
    /// DupThresh from the current FlightSize.
    fn extended_limited_transmit(&mut self, newly: u32) {
        let flight = self.sb.packets_out();
        let Some(ncr) = self.ncr.as_mut() else {
            return;
        };
        if !ncr.active() {
            ncr.initialize(flight);
        }
        self.ncr_on_sacked(newly);
    }

    /// RFC 4653 Sec. 4, E steps: `newly` segments left the network.
    fn ncr_on_sacked(&mut self, newly: u32) {
        let flight = self.sb.packets_out();
        if let Some(ncr) = self.ncr.as_mut() {
            ncr.on_sacked(newly, flight);
            if let Some(d) = ncr.dup_thresh() {
                self.dupthresh = d;
            }
        }
    }

    /// RFC 4653 Sec. 4, Termination: a cumulative ACK during ELT shows the
    /// duplicate ACKs came from reordering; cwnd and ssthresh are set by
    /// [`Ncr::terminate`] instead of growing. Returns whether ELT was on.
    fn end_extended_limited_transmit(&mut self, now: Time) -> bool {
        let (pipe, flight, sacked) = (self.sb.pipe(), self.sb.packets_out(), self.sb.sacked_out());
        let Some(ncr) = self.ncr.as_mut().filter(|n| n.active()) else {
            return false;
        };
        self.stats.elt_terminations += 1;
        self.dupthresh = match ncr.terminate(&mut self.w, pipe, flight, sacked) {
            EltEnd::Restarted => ncr.dup_thresh().unwrap_or(self.dupthresh),
            EltEnd::Done => self.dupthresh_policy.value(self.w.cwnd, now),
        };
        true
    }

    /// SND.UNA to the end of the highest SACKed segment (Linux
    /// `fackets_out`).
    fn fackets_out(&self) -> u32 {
        self.sb
            .sacked_ranges()
            .last()
            .map_or(0, |&(_, r)| r.saturating_sub(self.sb.una()))
    }

    /// FACK loss marking: the head fackets_out - dupthresh segments.
    fn fack_mark_lost(&mut self) {
        if !self.cfg.fack {
            return;
        }
        let (una, f) = (self.sb.una(), self.fackets_out());
        if f > self.dupthresh {
            for seq in una..una + (f - self.dupthresh) {
                self.sb.mark_lost(seq);
            }
        }
    }

    /// Loss detection: is it time to start fast recovery?
    fn time_to_recover(&self) -> bool {
        let una = self.sb.una();
        let triggered = self.dupacks >= self.dupthresh
            || (self.cfg.use_sack && self.sb.is_lost(una, self.dupthresh))
            || (self.cfg.fack && self.fackets_out() > self.dupthresh);
        // RFC 6582 Sec. 3.2 step 2 / RFC 6675 Sec. 5.1: no new episode until
        // the previous recovery point is acknowledged.
        let allowed = self.cfg.recovery == Recovery::Reno || self.recover.is_none_or(|r| una >= r);
        triggered && allowed
    }

    /// When a delayed fast retransmit may go (TD-FR, Blanton-Allman timers).
    fn fast_retransmit_wait(&self, now: Time) -> Option<Time> {
        let srtt = self.rtt.srtt()?;
        let first = self.first_dupack_at.unwrap_or(now);
        let bl_delay = match &self.dupthresh_policy {
            DupthreshPolicy::BlantonAllman(bl) => bl.delay(srtt),
            _ => 0,
        };
        if self.linux_er_due() && self.dupacks < self.dupthresh {
            // RFC 5827 Appendix A.3 as Linux: wait SRTT / 4.
            return Some(now + er_delay(srtt));
        }
        let td = match self.cfg.fr_delay {
            FastRetransmitDelay::TdFr => {
                td_fr_deadline(first, self.third_dupack_at.unwrap_or(now), srtt)
            }
            FastRetransmitDelay::Dcr => first + srtt,
            FastRetransmitDelay::None => first,
        };
        Some(td.max(first + bl_delay))
    }

    /// Start (or continue) an undo episode before a window reduction.
    fn begin_reduction(&mut self) {
        if !self.episodes.is_empty() && self.ca != CaState::Open {
            // A timeout inside a recovery episode: the same episode.
            return;
        }
        self.episode += 1;
        if self.episodes.len() == MAX_EPISODES {
            self.episodes.pop_front();
        }
        self.episodes.push_back(Undo {
            episode: self.episode,
            prior_cwnd: self.w.cwnd,
            prior_ssthresh: self.w.ssthresh,
            reduced_to: self.w.cwnd,
            retrans: 0,
            dupacks: self.dupacks,
            first_dupack_to_ack: None,
            first_dupack_at: self.first_dupack_at,
            advanced: false,
        });
    }

    /// Record the window a reduction went down to.
    fn end_reduction(&mut self, to: f64) {
        if let Some(u) = self.episodes.back_mut() {
            u.reduced_to = u.reduced_to.min(to);
        }
    }

    /// Fast retransmit and enter fast recovery (RFC 5681 Sec. 3.2 steps
    /// 2-3, RFC 6582 Sec. 3.2 step 2, RFC 6675 Sec. 5 steps 4.1-4.3).
    fn enter_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.aix.is_some() {
            self.aix_start_loss_recovery(now, out);
            return;
        }
        if self.linux_er_due() && self.dupacks < self.dupthresh {
            self.stats.early_retransmits += 1;
        }
        self.stats.fast_recoveries += 1;
        self.stats.last_recovery_at = Some(now);
        self.stats.last_recovery_dupthresh = self.dupthresh;
        self.fr_deadline = None;
        if let Some(t) = self.tlp.as_mut() {
            t.deadline = None;
        }
        self.fwd_hint = self.sb.una();
        self.begin_reduction();
        // RFC 5681 Sec. 3.2 step 2: data sent by limited transmit is not
        // counted in FlightSize here; TCP-NCR uses FlightSizePrev, the
        // FlightSize before Extended Limited Transmit (RFC 4653 Sec. 4).
        let flight = match self.ncr.as_mut().and_then(Ncr::on_loss) {
            Some(prev) => prev.max(1),
            // Linux congestion controls reduce from cwnd, not FlightSize
            // (`tcp_reno_ssthresh`: max(cwnd / 2, 2)).
            None if self.cfg.linux_rto => self.w.cwnd.floor().max(1.0) as u32,
            None => self.sb.packets_out().saturating_sub(self.lt_sent).max(1),
        };
        self.lt_sent = 0;
        self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, now);
        self.recover = Some(self.sb.nxt());
        self.ca = CaState::Recovery;
        self.partial_acks = 0;
        self.end_reduction(self.w.ssthresh);
        self.w.cwnd = match self.cfg.recovery {
            Recovery::Sack => self.w.ssthresh,
            // RFC 6937: cwnd follows pipe + sndcnt from this ACK on.
            Recovery::Prr => {
                self.prr = Some(Prr::start(self.sb.packets_out(), self.w.ssthresh));
                self.w.cwnd
            }
            Recovery::Reno | Recovery::NewReno => self.w.ssthresh + self.dupthresh as f64,
        };
        self.note_cwnd();
        if self.rack.is_some() {
            // RACK marked what is lost; PRR paces the retransmissions.
            return;
        }
        let una = self.sb.una();
        self.sb.mark_lost(una);
        // The first retransmission goes out regardless of the window.
        self.retransmit_if_lost(una, RetxCause::Fast, now, out);
    }

    /// Window growth outside recovery, clamped to the receiver window.
    fn grow(&mut self, acked: u32, now: Time) {
        self.cc.on_ack(&mut self.w, acked, now, self.rtt.srtt());
        self.w.cwnd = self.w.cwnd.min(self.cfg.max_window as f64);
    }

    // ----- timeout -----------------------------------------------------

    /// Retransmission timeout (RFC 6298 Sec. 5.4-5.6, RFC 5681 Sec. 3.1).
    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.phase == Phase::SynSent {
            self.syn_retransmitted = true;
            self.rtt.back_off();
            self.send_syn(now, out);
            return;
        }
        if self.phase != Phase::Established || self.sb.packets_out() == 0 {
            return;
        }
        self.stats.timeouts += 1;
        let first_timeout = !(self.ca == CaState::Loss && self.rtt.backoff() > 0);
        // RFC 5682 Sec. 3 step 1: F-RTO only when no loss recovery is
        // under way (RecoveryPoint below SND.UNA); a repeated timeout, or
        // one inside a recovery, is handled conventionally.
        let frto = self.cfg.rto_recovery == RtoRecovery::Frto && self.ca == CaState::Open;
        self.frto = None;
        let (prior_cwnd, srtt) = (self.w.cwnd, self.rtt.srtt());
        match &mut self.dupthresh_policy {
            DupthreshPolicy::RrTcp(rr) => {
                if let Some(srtt) = srtt {
                    rr.on_timeout(prior_cwnd, self.rtt.rto(), srtt);
                }
            }
            DupthreshPolicy::BlantonAllman(bl) => bl.on_timeout(),
            DupthreshPolicy::Fixed(_)
            | DupthreshPolicy::AvgDev(_)
            | DupthreshPolicy::Winthresh(_) => {}
        }
        self.lt_idle = None;
        self.fr_deadline = None;
        self.prr = None;
        if let Some(t) = self.tlp.as_mut() {
            t.reset();
        }
        if let Some(r) = self.rack.as_mut() {
            r.deadline = None;
        }
        if let Some(ncr) = self.ncr.as_mut() {
            ncr.reset();
        }
        if let Some(aix) = self.aix.as_mut() {
            aix.reset();
        }
        if first_timeout {
            self.begin_reduction();
        }
        // ssthresh is reduced only on the first timeout of a segment. RFC
        // 5681 eq. (4) uses FlightSize; after a stalled SACK recovery the
        // data outstanding can be many windows (new data went out as SACKed
        // segments left the pipe), and that would set ssthresh far above
        // any window the path carried. FlightSize is therefore bounded by
        // the window in force before the loss: cwnd, or inside a recovery
        // the cwnd the recovery started from.
        if first_timeout {
            let window = match (self.ca, self.episodes.back()) {
                (CaState::Recovery, Some(u)) => u.prior_cwnd.max(self.w.cwnd),
                _ => self.w.cwnd,
            };
            let flight = self.sb.packets_out().min(window.ceil() as u32).max(1);
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, now);
        }
        self.w.cwnd = 1.0;
        self.end_reduction(1.0);
        self.cc.on_timeout(now);
        self.note_cwnd();
        self.sb.mark_all_lost();
        self.recover = Some(self.sb.nxt());
        self.ca = CaState::Loss;
        self.dupacks = 0;
        self.rtt.back_off();
        self.transmit(now, out);
        if frto {
            let episode = self.episodes.back().map_or(0, |u| u.episode);
            self.frto = Some((FrtoStep::AwaitingAck, episode));
        }
        self.arm_rto(now);
    }

    fn arm_rto(&mut self, now: Time) {
        let rto = self.rtt.rto();
        self.rto_deadline = Some(now + rto);
        self.stats.rto_sum += crate::engine::time::to_secs(rto);
        self.stats.rto_count += 1;
    }

    /// RFC 6298 Sec. 5.2-5.3 after an ACK of new data. NewReno restarts the
    /// timer only on the first partial ACK (RFC 6582 Sec. 3.2 step 4).
    fn restart_rto_after_ack(&mut self, now: Time) {
        if self.sb.packets_out() == 0 {
            self.rto_deadline = None;
            return;
        }
        let in_newreno_recovery =
            self.ca == CaState::Recovery && self.cfg.recovery == Recovery::NewReno;
        if in_newreno_recovery && self.partial_acks > 1 {
            return;
        }
        let RtoRestart::Rfc7765 { rrthresh } = self.cfg.rto_restart else {
            self.arm_rto(now);
            return;
        };
        // RFC 7765 Sec. 4: RTO - T_earliest, T_earliest from the earliest
        // transmission among the (fewer than rrthresh) outstanding segments.
        let out = self.sb.packets_out();
        let earliest = if out < rrthresh {
            (self.sb.una()..self.sb.nxt())
                .filter_map(|s| self.sb.seg(s))
                .filter(|s| !s.sacked)
                .map(|s| s.sent_at)
                .min()
                .unwrap_or(now)
        } else {
            now
        };
        let rto = self.rtt.rto();
        let at = restart_deadline(now, rto, out, self.has_new_data(), rrthresh, earliest);
        self.rto_deadline = Some(at);
        self.stats.rto_sum += crate::engine::time::to_secs(rto);
        self.stats.rto_count += 1;
    }

    // ----- transmission ------------------------------------------------

    fn has_new_data(&self) -> bool {
        self.cfg.segments.is_none_or(|n| (self.sb.nxt() as u64) < n)
    }

    /// Can one more segment go out now? `retransmission` distinguishes the
    /// Reno/NewReno case where retransmissions ignore the inflated window.
    fn window_allows(&self, retransmission: bool) -> bool {
        let cwnd = self.w.cwnd;
        match (self.ca, self.cfg.recovery) {
            (CaState::Loss, _) | (CaState::Recovery, Recovery::Sack | Recovery::Prr) => {
                // RFC 6675 Sec. 5 step (C): cwnd - pipe >= 1 SMSS.
                self.sb.pipe() as f64 + 1.0 <= cwnd
            }
            (CaState::Recovery, _) => retransmission || self.sb.packets_out() as f64 + 1.0 <= cwnd,
            (CaState::Open, _) if self.dupack_send_limit().is_some() => {
                // RFC 4653 Sec. 4, E steps: ELT clocks on pipe, not cwnd
                // (pipe + 1 <= limit); so does a TCP-Aix run.
                self.dupack_send_limit()
                    .is_some_and(|limit| self.sb.pipe() < limit)
            }
            (CaState::Open, _) => {
                let extra = self.cfg.limited_transmit.allowance(self.dupacks, cwnd) as f64;
                self.sb.packets_out() as f64 + 1.0 <= cwnd.floor().max(1.0) + extra
            }
        }
    }

    /// The pipe limit of a running TCP-NCR Extended Limited Transmit.
    fn elt_send_limit(&self) -> Option<u32> {
        self.ncr.as_ref().and_then(Ncr::send_limit)
    }

    /// The pipe limit while duplicate ACKs clock out new data: TCP-NCR's
    /// ELT, or a TCP-Aix run (pipe + 1 <= cwnd: SACKed segments have left
    /// the network; [`crate::tcp::aix`] rule 2).
    fn dupack_send_limit(&self) -> Option<u32> {
        self.elt_send_limit().or_else(|| {
            self.aix
                .as_ref()
                .filter(|a| a.active())
                .map(|_| self.w.cwnd.floor().max(1.0) as u32)
        })
    }

    /// Loss recovery is under way: lost segments are resent first. TCP-Aix
    /// resends from dupthresh on, while still in the Open state.
    fn retransmitting(&self) -> bool {
        self.ca != CaState::Open || self.aix.as_ref().is_some_and(Aix::recovering)
    }

    /// Send what the window allows: lost segments first (RFC 6675 NextSeg
    /// rule 1), then new data (rule 2).
    fn transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.phase != Phase::Established {
            return;
        }
        if self.pr.is_some() {
            self.transmit_pr(now, out);
            return;
        }
        self.cwv_before_send(now);
        let mut sent_new = false;
        loop {
            // F-RTO (RFC 5682 Sec. 3 steps 2-3) holds retransmissions back
            // until the timeout is judged.
            if self.retransmitting() && self.frto.is_none() && self.window_allows(true) {
                if let Some(seq) = self.sb.next_lost() {
                    let cause = if self.ca == CaState::Loss {
                        RetxCause::Timeout
                    } else {
                        RetxCause::Fast
                    };
                    self.send_retransmission(seq, cause, now, out);
                    continue;
                }
            }
            // The window cap bounds cwnd; limited transmit may go beyond it
            // (RR-TCP Sec. 2.3: up to k more congestion windows).
            let extra = match self.ca {
                // ELT bounds pipe by the window cap (SACKed segments have
                // left the network).
                CaState::Open if self.elt_send_limit().is_some() => self.sb.sacked_out(),
                CaState::Open => self
                    .cfg
                    .limited_transmit
                    .allowance(self.dupacks, self.w.cwnd),
                _ => 0,
            };
            let room = self.sb.packets_out() < self.cfg.max_window + extra;
            if room && self.has_new_data() && self.window_allows(false) {
                if extra > 0 && self.sb.packets_out() as f64 + 1.0 > self.w.cwnd.floor() {
                    self.lt_sent += 1;
                }
                self.send_new(now, out);
                sent_new = true;
                continue;
            }
            if self.ca == CaState::Recovery && self.window_allows(true) {
                if let Some(seq) = self.next_forward_retransmission() {
                    self.send_retransmission(seq, RetxCause::Fast, now, out);
                    continue;
                }
            }
            break;
        }
        self.note_limited_transmit_exhausted(now);
        if sent_new {
            self.schedule_tlp(now);
        }
    }

    /// RFC 6675 NextSeg rule 3 ([`SenderConfig::forward_retransmit`]).
    fn next_forward_retransmission(&mut self) -> Option<u32> {
        if !self.cfg.forward_retransmit {
            return None;
        }
        let &(_, highest) = self.sb.sacked_ranges().last()?;
        let mut seq = self.fwd_hint.max(self.sb.una());
        while seq < highest {
            let s = self.sb.seg(seq)?;
            if !s.sacked && !s.retrans && !s.lost {
                self.fwd_hint = seq;
                return Some(seq);
            }
            seq += 1;
        }
        self.fwd_hint = seq;
        None
    }

    /// TCP-PR flush-cwnd (Table I lines 24-28): while cwnd > |to-be-ack|,
    /// send the lowest segment of to-be-sent (dropped ones first).
    fn transmit_pr(&mut self, now: Time, out: &mut Vec<Packet>) {
        loop {
            let may = self
                .pr
                .as_ref()
                .is_some_and(|p| p.may_send(&self.w, self.sb.pipe()));
            if !may {
                break;
            }
            let seq = if let Some(seq) = self.sb.next_lost() {
                let cause = if self.ca == CaState::Loss {
                    RetxCause::Timeout
                } else {
                    RetxCause::Fast
                };
                self.send_retransmission(seq, cause, now, out);
                seq
            } else if self.has_new_data() && self.sb.packets_out() < self.cfg.max_window {
                self.send_new(now, out);
                self.sb.nxt() - 1
            } else {
                break;
            };
            if let Some(p) = self.pr.as_mut() {
                p.on_send(seq, now);
            }
        }
        if self.sb.lost_out() == 0 && self.ca != CaState::Open {
            self.ca = CaState::Open;
        }
        self.pr_deadline = self.pr.as_mut().and_then(|p| p.deadline(&self.sb));
    }

    /// RR-TCP Sec. 4.3.3: remember when limited transmit ran out while
    /// duplicate ACKs were still below dupthresh.
    fn note_limited_transmit_exhausted(&mut self, now: Time) {
        let LimitedTransmit::CwndMultiple(k) = self.cfg.limited_transmit else {
            return;
        };
        let bound = (k * self.w.cwnd).floor() as u32;
        let exhausted = self.ca == CaState::Open
            && self.dupacks > 0
            && self.dupacks >= bound
            && self.dupacks < self.dupthresh
            && self.has_new_data();
        if exhausted && self.lt_idle.is_none() {
            self.lt_idle = Some((now, 0));
        }
    }

    fn retransmit_if_lost(&mut self, seq: u32, cause: RetxCause, now: Time, out: &mut Vec<Packet>) {
        let eligible = self
            .sb
            .seg(seq)
            .is_some_and(|s| s.lost && !s.sacked && !s.retrans);
        if eligible {
            self.send_retransmission(seq, cause, now, out);
        }
    }

    fn send_new(&mut self, now: Time, out: &mut Vec<Packet>) {
        let seq = self.sb.send_new(now, self.w.cwnd);
        if self.timed.is_none() {
            self.timed = Some((seq, now));
        }
        self.stats.new_segments_sent += 1;
        self.emit(seq, 0, now, out);
    }

    fn send_retransmission(
        &mut self,
        seq: u32,
        cause: RetxCause,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        let original_sent = self.sb.seg(seq).map_or(now, |s| s.first_sent_at);
        // Karn: a retransmitted segment is never timed.
        if self.timed.is_some_and(|(t, _)| t == seq) {
            self.timed = None;
        }
        let copy = self.sb.retransmit(seq, now, self.w.cwnd);
        self.stats.retransmits += 1;
        let episode = match self.episodes.back_mut() {
            Some(u) if self.ca != CaState::Open => {
                u.retrans += 1;
                u.episode
            }
            _ => 0,
        };
        self.retx_log.on_retransmit(RetxEntry {
            seq,
            cause,
            episode,
            original_sent,
            retransmit_sent: now,
            first_ack: None,
        });
        match cause {
            RetxCause::Fast => self.stats.fast_retransmits += 1,
            RetxCause::Timeout => self.stats.timeout_retransmits += 1,
            RetxCause::Probe => self.stats.probe_retransmits += 1,
        }
        self.truth.on_retransmit(seq, copy, cause);
        self.emit(seq, copy, now, out);
    }

    fn emit(&mut self, seq: u32, copy: u16, now: Time, out: &mut Vec<Packet>) {
        self.stats.data_packets_sent += 1;
        if self.ca == CaState::Recovery {
            if let Some(p) = self.prr.as_mut() {
                p.on_sent();
            }
        }
        out.push(Packet::data(
            self.flow,
            self.peer,
            self.cfg.mss,
            seq,
            copy,
            now,
        ));
        self.cwv_after_send(now);
        // RFC 6298 Sec. 5.1: start the timer if it is not running. TCP-PR
        // has no retransmission timer: its per-segment timers replace it.
        if self.rto_deadline.is_none() && self.pr.is_none() {
            self.arm_rto(now);
        }
    }

    /// RFC 2861 idle rule ([`crate::tcp::cwv`]), before new data goes out.
    fn cwv_before_send(&mut self, now: Time) {
        if self.ca != CaState::Open || !self.has_new_data() {
            return;
        }
        let (rto, rwnd) = (self.rtt.rto(), self.cfg.max_window);
        let Some(c) = self.cwv.as_mut() else {
            return;
        };
        let halvings = c.before_send(&mut self.w, now, rto, rwnd);
        if halvings > 0 {
            self.stats.cwv_idle_halvings += halvings as u64;
            self.note_cwnd();
        }
    }

    /// RFC 2861 application-limited rule, after each data segment.
    fn cwv_after_send(&mut self, now: Time) {
        if self.cwv.is_none() {
            return;
        }
        let open = self.ca == CaState::Open;
        let window_full = self.sb.pipe() as f64 + 1.0 > self.w.cwnd;
        let app_limited = !self.has_new_data();
        let (rto, in_flight) = (self.rtt.rto(), self.sb.packets_out());
        let Some(c) = self.cwv.as_mut() else {
            return;
        };
        if !open {
            c.t_last = now;
            return;
        }
        if c.after_send(&mut self.w, now, rto, window_full, app_limited, in_flight) {
            self.stats.cwv_app_limited_decays += 1;
            self.note_cwnd();
        }
    }

    fn note_cwnd(&mut self) {
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.w.cwnd);
        self.stats.min_cwnd = self.stats.min_cwnd.min(self.w.cwnd);
    }

    fn check_done(&mut self, now: Time) {
        if let Some(n) = self.cfg.segments {
            if self.sb.una() as u64 >= n && self.phase == Phase::Established {
                self.phase = Phase::Done;
                self.stats.all_acked_at = Some(now);
                self.rto_deadline = None;
            }
        }
    }
}

/// Result of applying an ACK's SACK blocks.
#[derive(Debug, Clone, Copy, Default)]
struct SackOutcome {
    /// Segments newly SACKed.
    newly: u32,
    /// One of them was never retransmitted and lies below F-RTO's
    /// RecoveryPoint (RFC 5682 Sec. 3 step 3b).
    original_acked: bool,
}

/// The DSACK block of an ACK, if it carries one (RFC 2883 Sec. 4: a first
/// block below the cumulative ACK or inside the second block).
fn dsack_block(pkt: &Packet, ack: u32) -> Option<(u32, u32)> {
    let blocks = pkt.sack.as_slice();
    let &(l, r) = blocks.first()?;
    let inside_second = blocks.get(1).is_some_and(|&(l2, r2)| l2 <= l && r <= r2);
    (r <= ack || inside_second).then_some((l, r))
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
