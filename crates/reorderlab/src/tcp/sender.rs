//! The TCP sender: a composition of policies (loss detection, loss
//! response, congestion control, timers, limited transmit) around one
//! scoreboard. Variants differ only in the policies they plug in
//! ([`super::variants`]).
//!
//! States follow Linux's naming: `Open` (normal, possibly seeing duplicate
//! ACKs), `Recovery` (fast recovery after fast retransmit) and `Loss` (after a
//! retransmission timeout, until everything outstanding at the timeout is
//! acknowledged).

use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind};
use crate::tcp::cc::{CongestionControl, Window};
use crate::tcp::policy::{LimitedTransmit, LossDetection, Recovery};
use crate::tcp::rto::{RtoConfig, RtoEstimator};
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::truth::{RetxCause, TruthLedger};

/// Everything that defines a sender, resolved from a variant name plus the
/// scenario's overrides.
#[derive(Debug, Clone)]
pub struct SenderConfig {
    pub variant: String,
    pub detection: LossDetection,
    pub recovery: Recovery,
    pub limited_transmit: LimitedTransmit,
    /// Use the receiver's SACK information.
    pub use_sack: bool,
    pub dupthresh: u32,
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

/// Sender counters.
#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub data_packets_sent: u64,
    pub new_segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeout_retransmits: u64,
    pub probe_retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub dsacks_received: u64,
    pub undos: u64,
    pub acks_received: u64,
    pub syns_sent: u64,
    /// Sum and count of the RTO each time the timer was (re)armed.
    pub rto_sum: f64,
    pub rto_count: u64,
    pub max_cwnd: f64,
    pub min_cwnd: f64,
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
    syn_sent_at: Time,
    syn_retransmitted: bool,
    pub stats: SenderStats,
    pub truth: TruthLedger,
}

impl Sender {
    pub fn new(cfg: SenderConfig, cc: CongestionControl, flow: u32, peer: u32) -> Sender {
        let w = Window {
            cwnd: cfg.initial_window as f64,
            ssthresh: cfg.initial_ssthresh,
        };
        let rtt = RtoEstimator::new(cfg.rto);
        Sender {
            cfg,
            flow,
            peer,
            cc,
            w,
            sb: Scoreboard::new(),
            rtt,
            phase: Phase::NotStarted,
            ca: CaState::Open,
            dupacks: 0,
            recover: None,
            partial_acks: 0,
            rto_deadline: None,
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
    pub fn dupthresh(&self) -> u32 {
        self.cfg.dupthresh
    }
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Deadline of the given timer, if armed.
    pub fn deadline(&self, kind: TimerKind) -> Option<Time> {
        match kind {
            TimerKind::Rto => self.rto_deadline,
            _ => None,
        }
    }

    /// Value of a recorded series (names in [`crate::spec::SERIES_NAMES`]).
    pub fn sample(&self, name: &str) -> f64 {
        match name {
            "cwnd" => self.w.cwnd,
            "ssthresh" => self.w.ssthresh,
            "srtt" => self
                .rtt
                .srtt()
                .map_or(f64::NAN, crate::engine::time::to_secs),
            "rto" => crate::engine::time::to_secs(self.rtt.rto()),
            "dupthresh" => self.cfg.dupthresh as f64,
            "pipe" => self.sb.pipe() as f64,
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
                    self.rtt.on_sample(now - self.syn_sent_at);
                }
                self.rto_deadline = None;
                self.establish(now, out);
            }
            PacketKind::Ack if self.phase == Phase::Established => self.on_ack(pkt, now, out),
            _ => {}
        }
    }

    /// A timer of this sender expired.
    pub fn on_timer(&mut self, kind: TimerKind, now: Time, out: &mut Vec<Packet>) {
        if kind == TimerKind::Rto {
            self.rto_deadline = None;
            self.on_rto(now, out);
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
        if ack > self.sb.nxt() || ack < self.sb.una() {
            return;
        }
        let una_before = self.sb.una();
        let newly_sacked = if self.cfg.use_sack {
            self.process_sack(pkt, ack)
        } else {
            0
        };
        if ack > una_before {
            let info = self.sb.cum_ack(ack);
            // Karn's algorithm (RFC 6298 Sec. 3): no sample from a
            // retransmitted segment.
            if !info.any_retransmitted {
                self.rtt.on_sample(now - info.last_sent_at);
            }
            self.dupacks = 0;
            self.on_new_ack(info.acked, ack, now, out);
            self.restart_rto_after_ack(now);
        } else if self.sb.packets_out() > 0 {
            // RFC 6675 Sec. 2: with SACK, a duplicate ACK is one that SACKs
            // new data; without, any ACK that does not advance SND.UNA.
            let duplicate = !self.cfg.use_sack || newly_sacked > 0;
            if duplicate {
                self.dupacks += 1;
                self.on_dupack(now, out);
            }
        }
        if self.cfg.use_sack && self.ca == CaState::Recovery {
            self.sb.mark_lost_by_dupthresh(self.cfg.dupthresh);
        }
        self.transmit(now, out);
        self.check_done(now);
    }

    /// Apply the SACK blocks; returns the number of newly SACKed segments.
    /// A first block below the cumulative ACK, or inside the second block,
    /// is a DSACK (RFC 2883 Sec. 4).
    fn process_sack(&mut self, pkt: &Packet, ack: u32) -> u32 {
        let blocks = pkt.sack.as_slice();
        let mut first = 0;
        if let Some(&(l, r)) = blocks.first() {
            let inside_second = blocks.get(1).is_some_and(|&(l2, r2)| l2 <= l && r <= r2);
            if r <= ack || inside_second {
                self.stats.dsacks_received += 1;
                first = 1;
            }
        }
        let mut newly = 0;
        for &(l, r) in &blocks[first..] {
            newly += self.sb.sack(l, r, |_, _| {});
        }
        newly
    }

    /// An ACK advanced SND.UNA by `acked` segments to `ack`.
    fn on_new_ack(&mut self, acked: u32, ack: u32, now: Time, out: &mut Vec<Packet>) {
        let recovered = self.recover.is_some_and(|r| ack >= r);
        match self.ca {
            CaState::Open => self.grow(acked, now),
            CaState::Loss => {
                self.grow(acked, now);
                if recovered {
                    self.ca = CaState::Open;
                }
            }
            CaState::Recovery => match self.cfg.recovery {
                Recovery::Reno => {
                    // RFC 5681 Sec. 3.2 step 6: deflate and leave.
                    self.w.cwnd = self.w.ssthresh;
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
                    }
                }
            },
        }
        self.note_cwnd();
    }

    fn on_dupack(&mut self, now: Time, out: &mut Vec<Packet>) {
        match self.ca {
            CaState::Open => {
                if self.cfg.use_sack {
                    self.sb.mark_lost_by_dupthresh(self.cfg.dupthresh);
                }
                if self.time_to_recover() {
                    self.enter_recovery(now, out);
                }
            }
            CaState::Recovery => {
                if self.cfg.recovery != Recovery::Sack {
                    // RFC 5681 step 4 / RFC 6582: inflate by one segment.
                    self.w.cwnd += 1.0;
                    self.note_cwnd();
                }
            }
            CaState::Loss => {}
        }
    }

    /// Loss detection: is it time to start fast recovery?
    fn time_to_recover(&self) -> bool {
        let LossDetection::DupThresh = self.cfg.detection;
        let una = self.sb.una();
        let triggered = self.dupacks >= self.cfg.dupthresh
            || (self.cfg.use_sack && self.sb.is_lost(una, self.cfg.dupthresh));
        // RFC 6582 Sec. 3.2 step 2 / RFC 6675 Sec. 5.1: no new episode until
        // the previous recovery point is acknowledged.
        let allowed = self.cfg.recovery == Recovery::Reno || self.recover.is_none_or(|r| una >= r);
        triggered && allowed
    }

    /// Fast retransmit and enter fast recovery (RFC 5681 Sec. 3.2 steps
    /// 2-3, RFC 6582 Sec. 3.2 step 2, RFC 6675 Sec. 5 steps 4.1-4.3).
    fn enter_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.fast_recoveries += 1;
        let flight = self.sb.packets_out();
        self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, now);
        self.recover = Some(self.sb.nxt());
        self.ca = CaState::Recovery;
        self.partial_acks = 0;
        self.w.cwnd = match self.cfg.recovery {
            Recovery::Sack => self.w.ssthresh,
            Recovery::Reno | Recovery::NewReno => self.w.ssthresh + self.cfg.dupthresh as f64,
        };
        self.note_cwnd();
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
        // ssthresh is reduced only on the first timeout of a segment.
        if !(self.ca == CaState::Loss && self.rtt.backoff() > 0) {
            let flight = self.sb.packets_out();
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, now);
        }
        self.w.cwnd = 1.0;
        self.cc.on_timeout(now);
        self.note_cwnd();
        self.sb.mark_all_lost();
        self.recover = Some(self.sb.nxt());
        self.ca = CaState::Loss;
        self.dupacks = 0;
        self.rtt.back_off();
        self.transmit(now, out);
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
        self.arm_rto(now);
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
            (CaState::Loss, _) | (CaState::Recovery, Recovery::Sack) => {
                // RFC 6675 Sec. 5 step (C): cwnd - pipe >= 1 SMSS.
                self.sb.pipe() as f64 + 1.0 <= cwnd
            }
            (CaState::Recovery, _) => retransmission || self.sb.packets_out() as f64 + 1.0 <= cwnd,
            (CaState::Open, _) => {
                let extra = self.cfg.limited_transmit.allowance(self.dupacks, cwnd) as f64;
                self.sb.packets_out() as f64 + 1.0 <= cwnd.floor().max(1.0) + extra
            }
        }
    }

    /// Send what the window allows: lost segments first (RFC 6675 NextSeg
    /// rule 1), then new data (rule 2).
    fn transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.phase != Phase::Established {
            return;
        }
        loop {
            if self.ca != CaState::Open && self.window_allows(true) {
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
            let room = self.sb.packets_out() < self.cfg.max_window;
            if room && self.has_new_data() && self.window_allows(false) {
                self.send_new(now, out);
                continue;
            }
            break;
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
        let copy = self.sb.retransmit(seq, now, self.w.cwnd);
        self.stats.retransmits += 1;
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
        out.push(Packet::data(
            self.flow,
            self.peer,
            self.cfg.mss,
            seq,
            copy,
            now,
        ));
        // RFC 6298 Sec. 5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
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

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
