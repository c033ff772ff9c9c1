//! The QUIC sender: stream data in chunks of one packet, packet numbers
//! that are never reused (a lost chunk goes out again in a new packet:
//! RFC 9000 Sec. 13.3, RFC 9002 Sec. 2), loss detection ([`super::loss`]),
//! the congestion response ([`super::congestion`]), probes on a probe
//! timeout (RFC 9002 Sec. 6.2.4), optional pacing (Sec. 7.7) and the
//! threshold adaptation of a variant ([`super::adapt`]).

use std::collections::VecDeque;

use super::ack::AckFrame;
use super::adapt;
use super::config::QuicConfig;
use super::congestion::{in_persistent_congestion, persistent_congestion_duration, Congestion};
use super::loss::{Expiry, LossDetection, SentPacket};
use super::rate::RateState;
use super::truth::Truth;
use crate::engine::{Time, TimerKind};
use crate::net::packet::Packet;
use crate::tcp::cc::CongestionControl;
use crate::tcp::pacing::Pacer;

/// Sec. 7.7: pace at N * cwnd / smoothed_rtt, N = 1.25.
const PACING_GAIN: f64 = 1.25;
/// Sec. 6.2.4: a probe timeout sends up to two ack-eliciting packets.
const PROBES_PER_PTO: u32 = 2;

/// The sender's counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuicStats {
    pub packets_sent: u64,
    /// Chunks sent for the first time.
    pub new_chunks_sent: u64,
    /// Chunks sent again (after a loss or as a probe).
    pub retransmits: u64,
    /// Packets declared lost.
    pub declared_lost: u64,
    /// Packets declared lost and acknowledged afterwards (the sender sees
    /// these; ground truth is in [`Truth`]).
    pub late_acked: u64,
    pub ptos: u64,
    pub probes_sent: u64,
    pub acks_received: u64,
    pub min_cwnd: f64,
    pub max_cwnd: f64,
}

#[derive(Debug, Clone)]
pub struct QuicSender {
    pub cfg: QuicConfig,
    flow: u32,
    dst: u32,
    pub ld: LossDetection,
    pub cc: Congestion,
    pacer: Option<Pacer>,
    /// BBR's delivery-rate state (none for a window-based controller).
    rate: Option<Box<RateState>>,
    next_pn: u64,
    next_chunk: u64,
    /// Chunks to send again, oldest first.
    retx: VecDeque<u32>,
    /// Acknowledged chunks (a bit per chunk).
    chunk_acked: Vec<u64>,
    chunks_acked: u64,
    probes: u32,
    started: bool,
    pub stats: QuicStats,
    pub truth: Truth,
}

impl QuicSender {
    pub fn new(cfg: QuicConfig, mut cc: CongestionControl, flow: u32, dst: u32) -> QuicSender {
        let rate = RateState::for_bbr(&mut cc, cfg.mss, flow, 0);
        let cc = Congestion::new(cc, cfg.mss);
        // BBR always paces at its own rate
        let pacer = (cfg.pacing || rate.is_some()).then(|| Pacer::new(cfg.mss));
        QuicSender {
            ld: LossDetection::new(cfg.thresholds, cfg.max_ack_delay),
            stats: QuicStats {
                min_cwnd: cc.w.cwnd,
                max_cwnd: cc.w.cwnd,
                ..Default::default()
            },
            cc,
            pacer,
            rate,
            cfg,
            flow,
            dst,
            next_pn: 0,
            next_chunk: 0,
            retx: VecDeque::new(),
            chunk_acked: Vec::new(),
            chunks_acked: 0,
            probes: 0,
            started: false,
            truth: Truth::default(),
        }
    }

    /// BBR's random stream: the flow's stream of run `seed`.
    pub fn seed(&mut self, seed: u64) {
        if self.rate.is_some() {
            self.rate = RateState::for_bbr(&mut self.cc.cc, self.cfg.mss, self.flow, seed);
        }
    }

    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.started = true;
        if let Some(r) = self.rate.as_deref_mut() {
            r.start(&mut self.cc, now, self.pacer.as_mut());
        }
        self.send(now, out);
    }

    /// The lowest packet number this sender still tracks (outstanding or
    /// kept as lost; the next to send when none): an ACK range below it
    /// tells it nothing. It never decreases.
    pub fn ack_floor(&self) -> u64 {
        let ld = &self.ld;
        let lowest = [ld.outstanding.first_pn(), ld.lost.first_pn()];
        lowest.into_iter().flatten().min().unwrap_or(self.next_pn)
    }

    /// All data acknowledged.
    pub fn is_done(&self) -> bool {
        self.cfg.segments.is_some_and(|n| self.chunks_acked >= n)
    }

    fn is_acked(&self, chunk: u32) -> bool {
        let (w, b) = (chunk as usize / 64, chunk % 64);
        self.chunk_acked.get(w).is_some_and(|x| x >> b & 1 == 1)
    }

    fn mark_acked(&mut self, chunk: u32) {
        let (w, b) = (chunk as usize / 64, chunk % 64);
        if w >= self.chunk_acked.len() {
            self.chunk_acked.resize(w + 1, 0);
        }
        if self.chunk_acked[w] >> b & 1 == 0 {
            self.chunk_acked[w] |= 1 << b;
            self.chunks_acked += 1;
        }
    }

    /// The window in bytes.
    fn cwnd_bytes(&self) -> u64 {
        (self.cc.w.cwnd * self.cfg.mss as f64) as u64
    }

    /// The next chunk to send: one to resend first, else new data.
    fn next_chunk(&mut self) -> Option<(u32, bool)> {
        while let Some(&c) = self.retx.front() {
            self.retx.pop_front();
            if !self.is_acked(c) {
                return Some((c, true));
            }
        }
        if self.cfg.segments.is_some_and(|n| self.next_chunk >= n) {
            return None;
        }
        let c = self.next_chunk;
        self.next_chunk += 1;
        Some((c as u32, false))
    }

    /// A probe's chunk (Sec. 6.2.4): new data if any, else the oldest
    /// unacknowledged chunk in flight.
    fn probe_chunk(&mut self) -> Option<(u32, bool)> {
        if let Some(c) = self.next_chunk() {
            return Some(c);
        }
        let c = self.ld.outstanding.first()?.chunk;
        Some((c, true))
    }

    /// Send what the window, the pacer and the probes allow.
    pub fn send(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.started {
            return;
        }
        self.update_pacing_rate();
        loop {
            let chunk = if self.probes > 0 {
                self.probes -= 1;
                self.stats.probes_sent += 1;
                self.probe_chunk()
            } else {
                if self.ld.bytes_in_flight + self.cfg.mss as u64 > self.cwnd_bytes() {
                    break;
                }
                if self.pacer.as_ref().is_some_and(|p| !p.may_send(now)) {
                    break;
                }
                self.next_chunk()
            };
            let Some((chunk, again)) = chunk else {
                if self.probes == 0 {
                    break;
                }
                continue;
            };
            self.emit(chunk, again, now, out);
        }
        if let Some(p) = self.pacer.as_mut() {
            p.end_burst();
        }
    }

    fn emit(&mut self, chunk: u32, again: bool, now: Time, out: &mut Vec<Packet>) {
        let pn = self.next_pn;
        self.next_pn += 1;
        let size = self.cfg.mss;
        if let Some(r) = self.rate.as_deref_mut() {
            r.on_sent(pn, now, self.ld.outstanding.len() as u32);
        }
        self.ld.on_packet_sent(SentPacket {
            pn,
            time_sent: now,
            size,
            chunk,
        });
        if let Some(p) = self.pacer.as_mut() {
            p.on_sent(now);
        }
        self.stats.packets_sent += 1;
        if again {
            self.stats.retransmits += 1;
        } else {
            self.stats.new_chunks_sent += 1;
        }
        self.truth.on_sent(pn);
        out.push(data_packet(self.flow, self.dst, size, pn, chunk, now));
    }

    fn update_pacing_rate(&mut self) {
        let Some(p) = self.pacer.as_mut() else {
            return;
        };
        if self.rate.is_some() {
            return; // BBR sets it
        }
        let srtt = self.ld.rtt.smoothed.max(1) as f64 / 1e9;
        let bytes = self.cc.w.cwnd * self.cfg.mss as f64;
        p.rate = (PACING_GAIN * bytes / srtt) as u64;
    }

    /// An ACK frame arrived.
    pub fn on_ack(&mut self, frame: &AckFrame, now: Time, out: &mut Vec<Packet>) {
        self.stats.acks_received += 1;
        if let Some(r) = self.rate.as_deref_mut() {
            r.begin_ack(self.ld.outstanding.len() as u32);
        }
        self.ld.on_ack(frame, now);
        let acked = std::mem::take(&mut self.ld.out.acked);
        for p in &acked {
            self.mark_acked(p.chunk);
        }
        (self.cc).on_acked(&acked, now, self.ld.rtt.smoothed);
        if !self.ld.out.spurious.is_empty() {
            let late = adapt::LateAck {
                largest: frame.largest,
                ack_delay: frame.ack_delay,
            };
            self.on_spurious(late, now);
        }
        let lost = self.on_lost(now);
        if let Some(r) = self.rate.as_deref_mut() {
            let ld = &self.ld;
            let lowest = ld.outstanding.first_pn().unwrap_or(self.next_pn);
            let flight = (ld.outstanding.len() as u32, lowest);
            let srtt = ld.rtt.smoothed;
            r.finish_ack(
                &mut self.cc,
                &acked,
                lost,
                flight,
                srtt,
                now,
                self.pacer.as_mut(),
            );
            self.track_cwnd();
        }
        self.ld.out.acked = acked;
        // lost packets are kept about three probe timeouts to recognise a
        // late ACK (as the stacks keep them a few RTTs)
        let keep = 3 * self
            .ld
            .rtt
            .pto_base(super::loss::GRANULARITY, self.cfg.max_ack_delay);
        self.ld.forget_lost_before(now.saturating_sub(keep));
        self.send(now, out);
    }

    fn on_spurious(&mut self, late: adapt::LateAck, now: Time) {
        let spurious = std::mem::take(&mut self.ld.out.spurious);
        self.stats.late_acked += spurious.len() as u64;
        adapt::on_spurious(self.cfg.adapt, &mut self.ld, &spurious, late, now);
        if self.cfg.undo && self.cc.undo_if_started_by(&spurious) {
            if let Some(r) = self.rate.as_deref_mut() {
                r.on_undo(&mut self.cc);
            }
        }
        self.ld.out.spurious = spurious;
    }

    /// The packets in the outcome's `lost`: their chunks to send again,
    /// the congestion event, persistent congestion (B.8 `OnPacketsLost`);
    /// how many.
    fn on_lost(&mut self, now: Time) -> usize {
        let lost = std::mem::take(&mut self.ld.out.lost);
        if let (Some(first), Some(last)) = (lost.first(), lost.last()) {
            for p in &lost {
                if !self.is_acked(p.chunk) {
                    self.retx.push_back(p.chunk);
                }
                self.truth.on_declared_lost(p.pn);
            }
            self.stats.declared_lost += lost.len() as u64;
            let began = self.cc.on_congestion_event(last.time_sent, first.pn, now);
            if let (true, Some(r)) = (began, self.rate.as_deref_mut()) {
                r.on_recovery(&mut self.cc);
            }
            let duration = persistent_congestion_duration(&self.ld.rtt, self.cfg.max_ack_delay);
            if in_persistent_congestion(&lost, self.ld.rtt.first_sample_at, duration) {
                self.cc.on_persistent_congestion(now);
                let flight = self.ld.outstanding.len() as u32;
                if let Some(r) = self.rate.as_deref_mut() {
                    r.on_persistent_congestion(&mut self.cc, flight, now);
                }
            }
            self.track_cwnd();
        }
        let n = lost.len();
        self.ld.out.lost = lost;
        n
    }

    fn track_cwnd(&mut self) {
        let c = self.cc.w.cwnd;
        self.stats.min_cwnd = self.stats.min_cwnd.min(c);
        self.stats.max_cwnd = self.stats.max_cwnd.max(c);
    }

    /// The sender's timers: the loss detection timer (`Rto` slot) and the
    /// pacer's wake-up (`Aux`).
    pub fn deadline(&self, kind: TimerKind) -> Option<Time> {
        match kind {
            TimerKind::Rto => self.ld.timer(),
            TimerKind::Aux => {
                let p = self.pacer.as_ref()?;
                let window_open =
                    self.ld.bytes_in_flight + self.cfg.mss as u64 <= self.cwnd_bytes();
                let more =
                    !self.retx.is_empty() || self.cfg.segments.is_none_or(|n| self.next_chunk < n);
                (self.started && window_open && more)
                    .then_some(p.next_departure)
                    .filter(|_| p.rate > 0)
            }
            TimerKind::DelAck => None,
        }
    }

    pub fn on_timer(&mut self, kind: TimerKind, now: Time, out: &mut Vec<Packet>) {
        if kind == TimerKind::Rto {
            match self.ld.on_timeout(now) {
                Expiry::Loss => {
                    let n = self.on_lost(now);
                    if let Some(r) = self.rate.as_deref_mut() {
                        r.lost += n as u64;
                    }
                }
                Expiry::Probe => {
                    self.stats.ptos += 1;
                    self.probes = PROBES_PER_PTO;
                }
            }
        }
        self.send(now, out);
    }

    /// A time series value (`record.series`), by name.
    pub fn sample(&self, name: &str) -> f64 {
        match name {
            "cwnd" => self.cc.w.cwnd,
            "ssthresh" => self.cc.w.ssthresh,
            "in_flight" | "flight" => (self.ld.bytes_in_flight / self.cfg.mss as u64) as f64,
            "srtt" => self.ld.rtt.smoothed as f64 / 1e9,
            "pacing_rate" => {
                (self.pacer.as_ref()).map_or(f64::NAN, |p| p.rate as f64 / self.cfg.mss as f64)
            }
            "bbr_bw" => self
                .cc
                .cc
                .bbr()
                .map_or(f64::NAN, |b| b.bw_segments_per_sec()),
            "bbr_min_rtt" => (self.cc.cc.bbr().and_then(|b| b.min_rtt_us))
                .map_or(f64::NAN, |us| us as f64 * 1e-6),
            _ => 0.0,
        }
    }
}

/// A data packet: its packet number in `seq`, and the STREAM frame's
/// chunk as the one block of `sack` (`[chunk, chunk + 1)`).
pub fn data_packet(flow: u32, dst: u32, size: u32, pn: u64, chunk: u32, now: Time) -> Packet {
    debug_assert!(
        pn <= u32::MAX as u64,
        "packet number {pn} beyond the packet's field"
    );
    let mut p = Packet::data(flow, dst, size, pn as u32, 0, now);
    p.sack.push(chunk, chunk + 1);
    p
}

/// The chunk a data packet carries.
pub fn chunk_of(p: &Packet) -> u32 {
    p.sack.as_slice().first().map_or(0, |b| b.0)
}
