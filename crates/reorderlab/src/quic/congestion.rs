//! The congestion response of RFC 9002 Sec. 7 (Appendix B) around the
//! project's controllers ([`CongestionControl`]): the window in packets of
//! the maximum datagram size, the recovery period (one reduction per
//! round trip: Sec. 7.3.2), persistent congestion (Sec. 7.6) and an
//! optional undo of a reduction a spurious loss caused.
//!
//! NewReno (Sec. 7.3) is the `reno` controller: slow start adds every
//! acknowledged packet, congestion avoidance one packet per window
//! (B.5 `OnPacketsAcked`), and a congestion event halves the window
//! (B.6, kLossReductionFactor). Other window-based controllers keep their
//! own growth and reduction.

use super::loss::{LostPacket, SentPacket, GRANULARITY};
use super::rtt::RttEstimator;
use crate::engine::Time;
use crate::tcp::cc::{CongestionControl, Window};

/// kInitialWindow (Sec. 7.2): min(10 * max_datagram_size, max(14720,
/// 2 * max_datagram_size)) bytes.
pub fn initial_window_bytes(mds: u32) -> u64 {
    let mds = mds as u64;
    (10 * mds).min(14_720u64.max(2 * mds))
}
/// kMinimumWindow (Sec. 7.2), packets.
pub const MINIMUM_WINDOW: f64 = 2.0;
/// kLossReductionFactor (Sec. 7.3.2 / B.1).
pub const LOSS_REDUCTION_FACTOR: f64 = 0.5;
/// kPersistentCongestionThreshold (Sec. 7.6.1).
pub const PERSISTENT_CONGESTION_THRESHOLD: u64 = 3;

/// The controller and its window.
#[derive(Debug, Clone)]
pub struct Congestion {
    pub cc: CongestionControl,
    pub w: Window,
    /// `congestion_recovery_start_time` (B.2); none: not in recovery.
    pub recovery_start: Option<Time>,
    /// The window before the current recovery period's reduction, and the
    /// first packet declared lost that started it (for an undo).
    before: Option<(Window, u64)>,
    pub reductions: u64,
    pub persistent_congestions: u64,
    pub undos: u64,
}

impl Congestion {
    pub fn new(cc: CongestionControl, mds: u32) -> Congestion {
        let iw = initial_window_bytes(mds) as f64 / mds as f64;
        Congestion {
            cc,
            w: Window {
                cwnd: iw,
                ssthresh: f64::INFINITY,
            },
            recovery_start: None,
            before: None,
            reductions: 0,
            persistent_congestions: 0,
            undos: 0,
        }
    }

    /// B.4 `InCongestionRecovery`.
    pub fn in_recovery(&self, sent: Time) -> bool {
        self.recovery_start.is_some_and(|r| sent <= r)
    }

    /// B.5 `OnPacketsAcked`: growth for the packets sent after the start
    /// of the recovery period.
    pub fn on_acked(&mut self, acked: &[SentPacket], now: Time, srtt: Time) {
        let n = acked
            .iter()
            .filter(|p| !self.in_recovery(p.time_sent))
            .count() as u32;
        if n > 0 {
            (self.cc).on_ack_per_segment(&mut self.w, n, now, Some(srtt));
        }
    }

    /// B.6 `OnCongestionEvent`, for a packet sent at `sent` (the last one
    /// declared lost): at most one reduction per recovery period; whether
    /// one began. (BBR keeps its window: [`super::rate`].)
    pub fn on_congestion_event(&mut self, sent: Time, first_lost: u64, now: Time) -> bool {
        if self.in_recovery(sent) {
            return false;
        }
        self.recovery_start = Some(now);
        self.before = Some((self.w, first_lost));
        self.reductions += 1;
        if self.cc.is_rate_based() {
            return true;
        }
        let ssthresh = match self.cc {
            CongestionControl::Reno(_) => self.w.cwnd * LOSS_REDUCTION_FACTOR,
            _ => {
                let flight = self.w.cwnd.floor() as u32;
                self.cc.ssthresh_after_loss(&self.w, flight, now)
            }
        };
        self.w.ssthresh = ssthresh;
        self.w.cwnd = ssthresh.max(MINIMUM_WINDOW);
        true
    }

    /// B.8 `OnPacketsLost`'s persistent congestion: the window collapses
    /// to kMinimumWindow and the recovery period ends.
    pub fn on_persistent_congestion(&mut self, now: Time) {
        self.w.cwnd = MINIMUM_WINDOW;
        self.recovery_start = None;
        self.before = None;
        self.cc.on_timeout(now);
        self.persistent_congestions += 1;
    }

    /// A spurious loss was found (`spurious`, acknowledged after being
    /// declared lost): if it started the current recovery period, restore
    /// the window from before it (the undo some stacks do; an option).
    pub fn undo_if_started_by(&mut self, spurious: &[LostPacket]) -> bool {
        let Some((w, first)) = self.before else {
            return false;
        };
        if !spurious.iter().any(|l| l.pn == first) {
            return false;
        }
        if !self.cc.is_rate_based() {
            self.w.cwnd = self.w.cwnd.max(w.cwnd);
            self.w.ssthresh = w.ssthresh;
        }
        self.recovery_start = None;
        self.before = None;
        self.cc.on_undo();
        self.undos += 1;
        true
    }
}

/// Sec. 7.6.1: (smoothed_rtt + max(4 * rttvar, kGranularity) +
/// max_ack_delay) * kPersistentCongestionThreshold.
pub fn persistent_congestion_duration(rtt: &RttEstimator, max_ack_delay: Time) -> Time {
    rtt.pto_base(GRANULARITY, max_ack_delay) * PERSISTENT_CONGESTION_THRESHOLD
}

/// Sec. 7.6.2 within one batch of newly lost packets (ascending packet
/// numbers): two lost packets, both sent after the first RTT sample, with
/// no packet between them acknowledged (here: consecutive packet numbers,
/// all in the batch) sent further apart than `duration`.
pub fn in_persistent_congestion(
    lost: &[SentPacket],
    first_sample: Option<Time>,
    duration: Time,
) -> bool {
    let Some(first_sample) = first_sample else {
        return false;
    };
    let mut start: Option<&SentPacket> = None;
    let mut prev: Option<u64> = None;
    for p in lost.iter().filter(|p| p.time_sent > first_sample) {
        if prev.is_none_or(|q| q + 1 != p.pn) {
            start = Some(p);
        }
        prev = Some(p.pn);
        if start.is_some_and(|s| p.time_sent - s.time_sent > duration) {
            return true;
        }
    }
    false
}

/// Whether the QUIC sender drives controller `cc`: the window-based ones
/// and BBR (through delivery-rate samples, [`super::rate`]).
pub fn drives(cc: &CongestionControl) -> bool {
    // (DCTCP needs ECN-Echo, which the QUIC model does not carry)
    !matches!(cc, CongestionControl::Dctcp(_)) && (!cc.is_rate_based() || cc.bbr().is_some())
}
