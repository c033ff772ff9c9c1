//! A UET sender (the PDS initiator of one flow) after uet-htsim's
//! `UecSrc` with sender-based congestion control and SLEEK (read for its
//! rules, no code copied):
//!
//! * every packet has a PSN; a retransmission repeats it (copy index for
//!   the ground truth only) and asks for an immediate ACK;
//! * ACKs carry the cumulative ACK, a 64-PSN SACK bitmap and the
//!   receiver's out-of-order count;
//! * SLEEK (`runSleek`): when the out-of-order count reaches
//!   max(min(1.5 cwnd, max window), 5 packets) / MTU, the sender enters
//!   loss recovery until the cumulative ACK passes the highest PSN sent
//!   at entry, and retransmits every PSN from the cumulative ACK not
//!   acknowledged, within one window of it, once per recovery;
//!   retransmissions then go out whatever the window (`can_send_NSCC`);
//! * a NACK (a trimmed header, `processNack`) queues its PSN for
//!   retransmission at once and takes its bytes off the window;
//! * probes (`sendProbe`): after each ACK, while PSNs are unacknowledged
//!   or data is left, a probe is due in base RTT + target queueing delay
//!   (nothing left to send) or 3 base RTTs; then every 5 base RTTs. A
//!   probe's answer with a queueing delay below the target means the
//!   missing PSNs are lost: loss recovery as above;
//! * the RTO, 100 us from the oldest outstanding send time, no backoff,
//!   retransmits that packet (in loss recovery it leaves it to SLEEK);
//! * the window: uet-htsim's DCTCP rule (`updateCwndOnAck_DCTCP`): per
//!   ACK, plus acked x MTU / cwnd without ECN-Echo, minus acked / 3 with
//!   it, and minus the packet's bytes per NACK; at least one MTU, at most
//!   the max window, where it starts. NSCC is not modelled.

use std::collections::BTreeSet;

use super::ack::UetAck;
use super::config::*;
use super::truth::Truth;
use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind};

#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    at: Time,
    copies: u16,
    acked: bool,
    in_flight: bool,
    queued: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SendStats {
    pub packets_sent: u64,
    pub new_sent: u64,
    pub retransmits: u64,
    pub sleek_retransmits: u64,
    pub nack_retransmits: u64,
    pub rto_retransmits: u64,
    pub acks_received: u64,
    pub ece_received: u64,
    pub nacks_received: u64,
    pub probes_sent: u64,
    pub probe_acks: u64,
    pub loss_recoveries: u64,
    /// Of them, entries by a probe's answer.
    pub probe_recoveries: u64,
    pub timeouts: u64,
    pub max_cwnd: f64,
    pub min_cwnd: f64,
}

#[derive(Debug, Clone)]
pub struct UetSender {
    pub cfg: UetConfig,
    flow: u32,
    dst: u32,
    pub cwnd: f64,
    pub in_flight: u64,
    /// The next new PSN (uet-htsim `_highest_sent`).
    pub next_psn: u32,
    pub cack: u32,
    pkts: Vec<Sent>,
    /// In-flight packets by send time (the RTO's oldest).
    send_times: BTreeSet<(Time, u32)>,
    rtx: BTreeSet<u32>,
    pub recovery: bool,
    recovery_psn: u32,
    highest_rtx: u32,
    pub base_rtt: Option<Time>,
    pub srtt: Option<Time>,
    probe_at: Option<Time>,
    probe_sent_at: Time,
    pub stats: SendStats,
    pub truth: Truth,
}

impl UetSender {
    pub fn new(cfg: UetConfig, flow: u32, dst: u32) -> UetSender {
        let cwnd = cfg.max_window as f64;
        UetSender {
            base_rtt: cfg.network_rtt,
            cfg,
            flow,
            dst,
            cwnd,
            in_flight: 0,
            next_psn: 0,
            cack: 0,
            pkts: Vec::new(),
            send_times: BTreeSet::new(),
            rtx: BTreeSet::new(),
            recovery: false,
            recovery_psn: 0,
            highest_rtx: 0,
            srtt: None,
            probe_at: None,
            probe_sent_at: 0,
            stats: SendStats {
                max_cwnd: cwnd,
                min_cwnd: cwnd,
                ..Default::default()
            },
            truth: Truth::default(),
        }
    }

    fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    fn more_new(&self) -> bool {
        self.cfg.segments.is_none_or(|n| (self.next_psn as u64) < n)
    }

    pub fn is_done(&self) -> bool {
        self.cfg.segments.is_some_and(|n| self.cack as u64 >= n)
    }

    /// SLEEK's threshold in packets: max(min(1.5 cwnd, max window),
    /// 5 MTUs) / MTU.
    pub fn sleek_threshold(&self) -> u64 {
        let w = (LOSS_RETX_FACTOR * self.cwnd).min(self.cfg.max_window as f64) as u64;
        w.max(MIN_RETX_PACKETS * self.mss()) / self.mss()
    }

    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.send(now, out);
    }

    pub fn deadline(&self, kind: TimerKind) -> Option<Time> {
        match kind {
            TimerKind::Rto => self.send_times.first().map(|&(t, _)| t + self.cfg.rto),
            TimerKind::Aux => self.probe_at,
            TimerKind::DelAck => None,
        }
    }

    #[cfg(test)]
    pub(super) fn set_window_for_test(&mut self, w: f64) {
        self.cwnd = w;
    }

    fn set_cwnd(&mut self, w: f64) {
        self.cwnd = w.clamp(self.mss() as f64, self.cfg.max_window as f64);
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.cwnd);
        self.stats.min_cwnd = self.stats.min_cwnd.min(self.cwnd);
    }

    /// An ACK or NACK frame arrived.
    pub fn on_ack(&mut self, a: &UetAck, now: Time, out: &mut Vec<Packet>) {
        if a.nack {
            self.on_nack(a.ref_psn);
            self.send(now, out);
            return;
        }
        self.stats.acks_received += 1;
        self.stats.ece_received += a.ece as u64;
        self.stats.probe_acks += a.probe as u64;
        if !a.probe {
            self.rtt_sample(a.ref_psn, now);
        }
        let mut newly = 0;
        for psn in self.cack..a.cack.min(self.next_psn) {
            newly += self.ack_psn(psn);
        }
        self.cack = self.cack.max(a.cack);
        for i in 0..SACK_BITS {
            let psn = a.base.wrapping_add(i);
            if a.bitmap >> i & 1 == 1 && psn < self.next_psn {
                newly += self.ack_psn(psn);
            }
        }
        if newly > 0 {
            let (w, m) = (self.cwnd, self.mss() as f64);
            let n = newly as f64;
            self.set_cwnd(if a.ece { w - n / 3.0 } else { w + n * m / w });
        }
        self.arm_probe(now);
        // only the answer to the last probe sent (uet-htsim: `_probe_seqno`)
        if a.probe && self.cfg.sleek && a.ref_psn as u64 == self.stats.probes_sent {
            let delay = now - self.probe_sent_at;
            let queued = delay.saturating_sub(self.base_rtt.unwrap_or(delay));
            if queued < self.cfg.target_qdelay {
                self.stats.probe_recoveries += 1;
                self.enter_recovery();
                self.highest_rtx = self.cack;
            }
        }
        if self.cfg.sleek {
            self.run_sleek(a.ooo);
        }
        if self.is_done() {
            self.probe_at = None;
            return;
        }
        self.send(now, out);
    }

    fn rtt_sample(&mut self, psn: u32, now: Time) {
        let Some(s) = self.pkts.get(psn as usize) else {
            return;
        };
        if s.copies != 1 || s.acked {
            return; // ambiguous, or already counted
        }
        let rtt = now - s.at;
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.srtt = Some(self.srtt.map_or(rtt, |s| (7 * s + rtt) / 8));
    }

    /// Bytes newly acknowledged by the ACK of `psn`.
    fn ack_psn(&mut self, psn: u32) -> u64 {
        let s = &mut self.pkts[psn as usize];
        if s.acked {
            return 0;
        }
        s.acked = true;
        if s.in_flight {
            s.in_flight = false;
            self.in_flight -= self.cfg.mss as u64;
            self.send_times.remove(&(s.at, psn));
        }
        if s.queued {
            s.queued = false;
            self.rtx.remove(&psn);
        }
        self.mss()
    }

    /// Take `psn` out of flight and queue it for retransmission.
    fn queue(&mut self, psn: u32) {
        let s = &mut self.pkts[psn as usize];
        if s.in_flight {
            s.in_flight = false;
            self.in_flight -= self.cfg.mss as u64;
            self.send_times.remove(&(s.at, psn));
        }
        s.queued = true;
        self.rtx.insert(psn);
    }

    fn on_nack(&mut self, psn: u32) {
        self.stats.nacks_received += 1;
        let Some(s) = self.pkts.get(psn as usize) else {
            return;
        };
        if s.acked || !s.in_flight {
            return; // acknowledged meanwhile, or already queued
        }
        self.set_cwnd(self.cwnd - self.mss() as f64);
        self.stats.nack_retransmits += 1;
        self.queue(psn);
    }

    fn enter_recovery(&mut self) {
        self.recovery = true;
        self.recovery_psn = self.next_psn;
        self.stats.loss_recoveries += 1;
    }

    /// SLEEK on an ACK reporting `ooo` packets out of order.
    fn run_sleek(&mut self, ooo: u32) {
        if self.recovery && self.cack >= self.recovery_psn {
            self.recovery = false;
        }
        if (ooo as u64) < self.sleek_threshold() && !self.recovery {
            return;
        }
        if !self.recovery && self.rtx.is_empty() {
            self.enter_recovery();
        }
        let window = (self.cwnd as u64 / self.mss()) as u32;
        let end = self.recovery_psn.min(self.cack.saturating_add(window));
        for psn in self.cack.max(self.highest_rtx)..end {
            let s = self.pkts[psn as usize];
            if s.acked || s.queued {
                continue;
            }
            self.highest_rtx = psn + 1;
            self.stats.sleek_retransmits += 1;
            self.queue(psn);
        }
    }

    pub fn on_timer(&mut self, kind: TimerKind, now: Time, out: &mut Vec<Packet>) {
        match kind {
            TimerKind::Rto => self.on_rto(now),
            TimerKind::Aux => self.on_probe_timer(now, out),
            TimerKind::DelAck => {}
        }
        self.send(now, out);
    }

    fn on_rto(&mut self, now: Time) {
        let Some(&(at, psn)) = self.send_times.first() else {
            return;
        };
        if at + self.cfg.rto > now {
            return;
        }
        self.stats.timeouts += 1;
        self.send_times.remove(&(at, psn));
        if self.recovery && self.cfg.sleek {
            // uet-htsim leaves the packet to SLEEK: a packet already
            // retransmitted becomes SLEEK's next candidate again
            if self.pkts[psn as usize].copies > 1 {
                self.highest_rtx = psn;
            }
            return;
        }
        self.stats.rto_retransmits += 1;
        self.queue(psn);
    }

    fn arm_probe(&mut self, now: Time) {
        self.probe_at = None;
        let (Some(base), true) = (self.base_rtt, self.cfg.probes) else {
            return;
        };
        if self.cack < self.next_psn || self.more_new() {
            let wait = if self.more_new() {
                PROBE_FIRST_RTTS * base
            } else {
                base + self.cfg.target_qdelay
            };
            self.probe_at = Some(now + wait);
        }
    }

    fn on_probe_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        match (self.probe_at, self.base_rtt) {
            (Some(t), Some(base)) if t <= now && !self.is_done() => {
                self.stats.probes_sent += 1;
                self.probe_sent_at = now;
                self.probe_at = Some(now + PROBE_RETRY_RTTS * base);
                let mut p =
                    Packet::control(PacketKind::Syn, self.flow, self.dst, HEADER_BYTES, now);
                p.seq = self.stats.probes_sent as u32;
                out.push(p);
            }
            _ => {}
        }
    }

    /// Send what the window (and, in loss recovery, the retransmission
    /// queue) allows.
    fn send(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mss = self.mss();
        loop {
            let room = self.cwnd >= (self.in_flight + mss) as f64;
            if let Some(&psn) = self.rtx.first() {
                if !(room || self.recovery) {
                    return;
                }
                self.rtx.remove(&psn);
                self.stats.retransmits += 1;
                self.transmit(psn, now, out);
            } else if room && self.more_new() {
                let psn = self.next_psn;
                self.next_psn += 1;
                self.pkts.push(Sent::default());
                self.stats.new_sent += 1;
                self.transmit(psn, now, out);
            } else {
                return;
            }
        }
    }

    fn transmit(&mut self, psn: u32, now: Time, out: &mut Vec<Packet>) {
        let s = &mut self.pkts[psn as usize];
        let copy = s.copies;
        s.copies += 1;
        s.at = now;
        s.in_flight = true;
        s.queued = false;
        self.in_flight += self.cfg.mss as u64;
        self.send_times.insert((now, psn));
        self.truth.on_sent(psn, copy);
        self.stats.packets_sent += 1;
        let mut p = Packet::data(self.flow, self.dst, self.cfg.mss, psn, copy, now);
        // ACK-request: a retransmission, and the message's last packet
        let last = self.cfg.segments.is_some_and(|n| psn as u64 + 1 == n);
        p.immediate = copy > 0 || last;
        out.push(p);
    }

    /// A time series value.
    pub fn sample(&self, name: &str) -> f64 {
        match name {
            "cwnd" => self.cwnd / self.mss() as f64,
            "inflight" | "pipe" => self.in_flight as f64 / self.mss() as f64,
            "retransmits" => self.stats.retransmits as f64,
            "srtt" => self.srtt.map_or(0.0, crate::engine::time::to_secs),
            _ => 0.0,
        }
    }
}
