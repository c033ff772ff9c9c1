//! Loss detection of RFC 9002 Sec. 6 in the form of its Appendix A (one
//! packet number space, application data, after the handshake):
//! acknowledgments (A.7 `OnAckReceived`), loss by packet and time
//! threshold (A.10 `DetectAndRemoveLostPackets`), the loss detection
//! timer (A.8 `SetLossDetectionTimer`) and its expiry (A.9
//! `OnLossDetectionTimeout`: a loss, or a probe timeout with backoff).
//!
//! Packets declared lost are kept a while (`lost`) so that an ACK that
//! arrives for one later shows the loss was spurious (RFC 9002 Sec. 6.1.1's
//! "detect spurious retransmissions"), which the adaptive variants use.

use super::ack::AckFrame;
use super::rtt::RttEstimator;
use super::sent::PnQueue;
use crate::engine::time::ms;
use crate::engine::Time;

/// kPacketThreshold (Sec. 6.1.1).
pub const PACKET_THRESHOLD: u64 = 3;
/// kTimeThreshold (Sec. 6.1.2) as a fraction: 9/8.
pub const TIME_THRESHOLD: (u64, u64) = (9, 8);
/// kGranularity (Sec. 6.1.2).
pub const GRANULARITY: Time = ms(1);

/// One sent packet (A.1.1's fields this model needs; every packet is
/// ack-eliciting and in flight: a data packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentPacket {
    pub pn: u64,
    pub time_sent: Time,
    pub size: u32,
    /// The stream chunk it carries.
    pub chunk: u32,
}

/// A packet declared lost, kept to recognise a later ACK of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostPacket {
    pub pn: u64,
    pub time_sent: Time,
    pub declared_at: Time,
    /// Its distance in packet numbers below the largest acknowledged
    /// when declared (quinn PR 2713's reordering measure).
    pub displacement: u64,
}

/// What an ACK or a timer expiry did; filled into reused vectors.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub acked: Vec<SentPacket>,
    pub lost: Vec<SentPacket>,
    /// Packets declared lost earlier that this ACK acknowledged.
    pub spurious: Vec<LostPacket>,
    /// The ACK gave an RTT sample.
    pub rtt_sample: bool,
}

impl Outcome {
    fn clear(&mut self) {
        self.acked.clear();
        self.lost.clear();
        self.spurious.clear();
        self.rtt_sample = false;
    }
}

/// What the loss detection timer did on expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// Time-threshold loss: the packets are in the outcome's `lost`.
    Loss,
    /// A probe timeout: send probes (the count is already raised).
    Probe,
}

/// The thresholds in force (a variant may change them during the run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// Packets; a value beyond any packet number turns packet-threshold
    /// detection off.
    pub packet: u64,
    /// kTimeThreshold as numerator / denominator.
    pub time: (u64, u64),
    /// Added to the loss delay (quic-go PR 5734's time cushion; 0 else).
    pub cushion: Time,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            packet: PACKET_THRESHOLD,
            time: TIME_THRESHOLD,
            cushion: 0,
        }
    }
}

/// The loss detection state of one packet number space (A.2 - A.4).
#[derive(Debug, Clone, Default)]
pub struct LossDetection {
    pub outstanding: PnQueue<SentPacket>,
    pub lost: PnQueue<LostPacket>,
    /// Scratch for the packets an ACK takes out.
    taken: Vec<(u64, SentPacket)>,
    taken_lost: Vec<(u64, LostPacket)>,
    pub largest_acked: Option<u64>,
    pub loss_time: Option<Time>,
    pub pto_count: u32,
    pub time_of_last_ack_eliciting: Option<Time>,
    pub bytes_in_flight: u64,
    pub thresholds: Thresholds,
    pub max_ack_delay: Time,
    pub rtt: RttEstimator,
    pub out: Outcome,
}

impl LossDetection {
    pub fn new(thresholds: Thresholds, max_ack_delay: Time) -> LossDetection {
        LossDetection {
            thresholds,
            max_ack_delay,
            ..Default::default()
        }
    }

    /// A.5 `OnPacketSent` (every packet ack-eliciting and in flight).
    pub fn on_packet_sent(&mut self, p: SentPacket) {
        self.time_of_last_ack_eliciting = Some(p.time_sent);
        self.bytes_in_flight += p.size as u64;
        self.outstanding.push(p.pn, p);
    }

    /// A.7 `OnAckReceived`: the newly acknowledged packets, an RTT sample,
    /// then the lost ones (into [`Self::out`]).
    pub fn on_ack(&mut self, ack: &AckFrame, now: Time) {
        self.out.clear();
        self.largest_acked = Some(
            self.largest_acked
                .map_or(ack.largest, |l| l.max(ack.largest)),
        );
        // The ACK's ranges, ascending, take the packets they cover out of
        // the outstanding ones and out of those kept as lost; the queues
        // skip what was taken before (an ACK frame repeats up to 64 old
        // ranges: a lost packet's number is never acknowledged, so its
        // hole stays in the receiver's ranges).
        let ranges = || ack.ranges.iter().rev().copied();
        let mut taken = std::mem::take(&mut self.taken);
        taken.clear();
        self.outstanding.take_ranges(ranges(), &mut taken);
        for (_, p) in &taken {
            self.bytes_in_flight -= p.size as u64;
        }
        self.out.acked.extend(taken.iter().map(|t| t.1));
        self.taken = taken;
        if !self.lost.is_empty() {
            let mut taken = std::mem::take(&mut self.taken_lost);
            taken.clear();
            self.lost.take_ranges(ranges(), &mut taken);
            self.out.spurious.extend(taken.iter().map(|t| t.1));
            self.taken_lost = taken;
        }
        if self.out.acked.is_empty() {
            return;
        }
        // Sec. 5.1: a sample when the largest acknowledged is newly
        // acknowledged (every packet is ack-eliciting here).
        if let Some(p) = self.out.acked.last().filter(|p| p.pn == ack.largest) {
            let latest = now - p.time_sent;
            self.rtt
                .update(latest, ack.ack_delay, self.max_ack_delay, now);
            self.out.rtt_sample = true;
        }
        self.detect_lost(now);
        // A.7: reset pto_count (the peer's address is validated).
        self.pto_count = 0;
    }

    /// A.10 `DetectAndRemoveLostPackets`. Sent times grow with packet
    /// numbers, so once one packet is not lost none after it is: the
    /// scan stops there and sets `loss_time` from it.
    pub fn detect_lost(&mut self, now: Time) {
        self.loss_time = None;
        let Some(largest) = self.largest_acked else {
            return;
        };
        let delay = self.loss_delay();
        let threshold = self.thresholds.packet;
        while let (Some(pn), Some(p)) = (self.outstanding.first_pn(), self.outstanding.first()) {
            if pn > largest {
                break;
            }
            let by_time = p.time_sent + delay <= now;
            let by_count = largest >= pn.saturating_add(threshold);
            if !(by_time || by_count) {
                self.loss_time = Some(p.time_sent + delay);
                break;
            }
            let p = self.outstanding.pop_first().expect("first").1;
            self.bytes_in_flight -= p.size as u64;
            self.lost.push(
                pn,
                LostPacket {
                    pn,
                    time_sent: p.time_sent,
                    declared_at: now,
                    displacement: largest - pn,
                },
            );
            self.out.lost.push(p);
        }
    }

    /// Sec. 6.1.2: max(kTimeThreshold * max(smoothed_rtt, latest_rtt),
    /// kGranularity) (plus a variant's cushion, 0 else).
    pub fn loss_delay(&self) -> Time {
        (self.time_threshold_delay() + self.thresholds.cushion).max(GRANULARITY)
    }

    /// kTimeThreshold * max(smoothed_rtt, latest_rtt).
    pub fn time_threshold_delay(&self) -> Time {
        let (num, den) = self.thresholds.time;
        self.rtt.smoothed.max(self.rtt.latest) * num / den
    }

    /// Sec. 6.2.1: the probe timeout with its exponential backoff.
    pub fn pto(&self) -> Time {
        let base = self.rtt.pto_base(GRANULARITY, self.max_ack_delay);
        base.saturating_mul(1u64 << self.pto_count.min(30))
    }

    /// A.8 `SetLossDetectionTimer`: the loss time if any, else the probe
    /// timeout from the last ack-eliciting packet while any is in flight.
    pub fn timer(&self) -> Option<Time> {
        if self.loss_time.is_some() {
            return self.loss_time;
        }
        if self.outstanding.is_empty() {
            return None;
        }
        let last = self.time_of_last_ack_eliciting?;
        Some(last.saturating_add(self.pto()))
    }

    /// A.9 `OnLossDetectionTimeout`.
    pub fn on_timeout(&mut self, now: Time) -> Expiry {
        self.out.clear();
        if self.loss_time.is_some() {
            self.detect_lost(now);
            return Expiry::Loss;
        }
        self.pto_count += 1;
        Expiry::Probe
    }

    /// Forget lost packets declared before `before` (nothing can show
    /// them spurious any more that the variants would use).
    pub fn forget_lost_before(&mut self, before: Time) {
        while let Some(l) = self.lost.first() {
            if l.declared_at >= before {
                break;
            }
            self.lost.pop_first();
        }
    }
}
