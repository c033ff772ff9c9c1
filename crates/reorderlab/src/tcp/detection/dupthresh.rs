//! Adaptive dupthresh policies: RR-TCP's FA / TA (rr-tcp Sec. 4.2-4.3),
//! the Blanton-Allman schemes (rr-tcp Sec. 3; Blanton & Allman, CCR
//! 2002) and AVG-DEV (Ma & Leung, GLOBECOM 2004), plus the fast-retransmit
//! delay of the timer-based schemes and of TD-FR.

use crate::engine::time::{ms, secs, to_secs};
use crate::engine::Time;
use crate::num::{ceil, floor, log2, round};
use crate::tcp::detection::reordering::{ReorderHistogram, MAX_LENGTH};
use crate::tcp::detection::winthresh::Winthresh;
use crate::tcp::policy::MIN_DUPTHRESH;

// ----- RR-TCP cost functions (Sec. 4.3) -------------------------------

/// Sec. 4.3.1: extra cost (packets) of a true timeout over a fast
/// retransmit: the idle period W T / R - W (1 + k) plus slow start up to
/// W / 2, W (log2 W - 1) + 1, i.e. W (T / R + log2 W - k - 2) + 1.
pub fn cost_timeout(w: f64, rto_over_rtt: f64, k: f64) -> f64 {
    let w = w.max(2.0);
    (w * (rto_over_rtt + log2(w) - k - 2.0) + 1.0).max(1.0)
}

/// Sec. 4.3.2: cost of a false fast retransmit whose reduced window lasted
/// D = `d_over_r` RTTs: k (W - k + 1) / 2 for k = D / R rounds, with k
/// capped at W / 2 and interpolated linearly between floor and ceil.
pub fn cost_false_fast_retransmit(w: f64, d_over_r: f64) -> f64 {
    let cap = (w / 2.0).max(1.0);
    let d = d_over_r.clamp(1.0, cap);
    let c = |k: f64| k * (w - k + 1.0) / 2.0;
    let (lo, hi) = (floor(d), ceil(d));
    if hi == lo {
        c(lo)
    } else {
        c(lo) + (c(hi) - c(lo)) * (d - lo)
    }
}

/// Sec. 4.3.3: cost of an idle period I after limited transmit ran out:
/// I / R W - d, with d the duplicate ACKs that arrived meanwhile.
pub fn cost_limited_transmit(idle_over_rtt: f64, w: f64, dupacks: u32) -> f64 {
    idle_over_rtt * w - dupacks as f64
}

/// RR-TCP dupthresh: the FA-ratio percentile of the reordering histogram
/// (DSACK-FA), optionally with the FA ratio adapted by the cost functions
/// (DSACK-TA).
#[derive(Debug, Clone)]
pub struct RrTcp {
    pub fa_ratio: f64,
    pub adaptive: bool,
    /// Step S of the FA-ratio control loop.
    pub step: f64,
    /// Limited-transmit bound k (windows), used in the timeout cost.
    pub lt_bound: f64,
    /// dupthresh = the percentile + `offset` (Sec. 4.2's example: 1).
    pub offset: u32,
    pub histogram: ReorderHistogram,
    /// EWMA (gain 1/8) of the false-fast-retransmit duration D, seconds.
    ffr_duration: Option<f64>,
    dupthresh: u32,
}

impl RrTcp {
    pub fn new(fa_ratio: f64, adaptive: bool, lt_bound: f64, lifetime: Time) -> RrTcp {
        RrTcp {
            fa_ratio,
            adaptive,
            step: 0.01,
            lt_bound,
            offset: 1,
            histogram: ReorderHistogram::new(lifetime),
            ffr_duration: None,
            dupthresh: MIN_DUPTHRESH,
        }
    }

    fn recompute(&mut self) {
        // "If 90 % of reordering events are of 8 packets or fewer, a
        // dupthresh of 9 avoids 90 % of false fast retransmits" (Sec. 4.2):
        // the offset 1.
        self.dupthresh = self
            .histogram
            .percentile(self.fa_ratio)
            .map_or(MIN_DUPTHRESH, |l| {
                (l + self.offset).clamp(MIN_DUPTHRESH, MAX_LENGTH)
            });
    }

    /// Current dupthresh (expiring old samples first).
    pub fn dupthresh(&mut self, now: Time) -> u32 {
        let before = self.histogram.len();
        self.histogram.expire(now);
        if self.histogram.len() != before {
            self.recompute();
        }
        self.dupthresh
    }

    pub fn on_sample(&mut self, len: u32, now: Time) {
        self.histogram.insert(len, now);
        self.recompute();
    }

    fn c_ffr(&self, w: f64, srtt: f64) -> f64 {
        let d = self.ffr_duration.unwrap_or(srtt);
        cost_false_fast_retransmit(w, d / srtt.max(1e-9))
    }

    fn adjust(&mut self, delta: f64) {
        if self.adaptive {
            self.fa_ratio = (self.fa_ratio + delta).clamp(0.0, 1.0);
            self.recompute();
        }
    }

    /// A false fast retransmit was detected: fold its duration into D and
    /// raise the FA ratio by S.
    pub fn on_false_fast_retransmit(&mut self, duration: Time) {
        let d = to_secs(duration);
        self.ffr_duration = Some(match self.ffr_duration {
            None => d,
            Some(old) => old + (d - old) / 8.0,
        });
        self.adjust(self.step);
    }

    /// A timeout: lower the FA ratio by C(timeout) / C(FFR) x S.
    pub fn on_timeout(&mut self, w: f64, rto: Time, srtt: Time) {
        let r = to_secs(srtt).max(1e-9);
        let ratio = cost_timeout(w, to_secs(rto) / r, self.lt_bound) / self.c_ffr(w, r);
        self.adjust(-ratio * self.step);
    }

    /// An idle period after limited transmit ran out; lowers the FA ratio
    /// only when it cost more than a false fast retransmit would.
    pub fn on_limited_transmit_idle(&mut self, idle: Time, dupacks: u32, w: f64, srtt: Time) {
        let r = to_secs(srtt).max(1e-9);
        let c_lt = cost_limited_transmit(to_secs(idle) / r, w, dupacks);
        let c_ffr = self.c_ffr(w, r);
        if c_lt > c_ffr {
            self.adjust(-(c_lt / c_ffr) * self.step);
        }
    }
}

/// The Blanton-Allman reactions to a false fast retransmit (the rr-tcp paper
/// Sec. 3), and the tcp-pr paper's "Inc by N".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlScheme {
    /// Undo only; dupthresh stays 3 (DSACK-BL-R).
    Restore,
    /// dupthresh += 1 (DSACK-BL-INC, the tcp-pr paper "Inc by 1").
    Increment,
    /// dupthresh := the reordering just seen + 1, so that this false fast
    /// retransmit would not have happened (the tcp-pr paper "Inc by N").
    IncrementByN,
    /// dupthresh := (dupthresh + dupacks of the false episode) / 2.
    Average,
    /// dupthresh := EWMA of the dupacks of false episodes.
    Ewma,
    /// Delay fast retransmit by a timer set to the time from the first
    /// duplicate ACK to the ACK of the delayed segment.
    TimeDelay,
    /// Delay fast retransmit by a timer grown by 10 ms per false one.
    TimeIncrement,
}

/// Gain of the Blanton-Allman EWMA scheme. The rr-tcp paper does not give it; we
/// assume 1/4 (documented in `docs/variants.md`).
pub const BL_EWMA_GAIN: f64 = 0.25;

#[derive(Debug, Clone)]
pub struct BlantonAllman {
    pub scheme: BlScheme,
    dupthresh: f64,
    /// Fast-retransmit delay of the timer schemes.
    timer: Time,
}

impl BlantonAllman {
    pub fn new(scheme: BlScheme) -> BlantonAllman {
        BlantonAllman {
            scheme,
            dupthresh: MIN_DUPTHRESH as f64,
            timer: 0,
        }
    }

    /// dupthresh, capped at 0.9 cwnd (never below 3).
    pub fn dupthresh(&self, cwnd: f64) -> u32 {
        let cap = floor(0.9 * cwnd).max(MIN_DUPTHRESH as f64);
        round(self.dupthresh.min(cap)).max(MIN_DUPTHRESH as f64) as u32
    }

    /// Fast-retransmit delay, capped at srtt / 2 (timer schemes only).
    pub fn delay(&self, srtt: Time) -> Time {
        match self.scheme {
            BlScheme::TimeDelay | BlScheme::TimeIncrement => self.timer.min(srtt / 2),
            _ => 0,
        }
    }

    /// A false fast retransmit: `dupacks` that triggered it, the reordering
    /// length measured, and the time from the first duplicate ACK to the ACK
    /// of the delayed segment.
    pub fn on_false_fast_retransmit(
        &mut self,
        dupacks: u32,
        reordering: Option<u32>,
        first_dupack_to_ack: Option<Time>,
    ) {
        let n = dupacks as f64;
        match self.scheme {
            BlScheme::Restore => {}
            BlScheme::Increment => self.dupthresh += 1.0,
            BlScheme::IncrementByN => {
                let seen = reordering.unwrap_or(dupacks) as f64;
                self.dupthresh = self.dupthresh.max(seen + 1.0);
            }
            BlScheme::Average => self.dupthresh = (self.dupthresh + n) / 2.0,
            BlScheme::Ewma => self.dupthresh += BL_EWMA_GAIN * (n - self.dupthresh),
            // The timer is never reduced.
            BlScheme::TimeDelay => {
                if let Some(t) = first_dupack_to_ack {
                    self.timer = self.timer.max(t);
                }
            }
            BlScheme::TimeIncrement => self.timer += ms(10),
        }
        self.dupthresh = self
            .dupthresh
            .clamp(MIN_DUPTHRESH as f64, MAX_LENGTH as f64 * 16.0);
    }

    /// "Reset to three upon a timeout."
    pub fn on_timeout(&mut self) {
        self.dupthresh = MIN_DUPTHRESH as f64;
    }
}

/// AVG-DEV (Ma & Leung, "Improving TCP robustness under reordering network
/// environment", IEEE GLOBECOM 2004): dupthresh from the average and the
/// mean deviation of the measured reordering lengths.
///
/// No primary text was available (docs/sources.md). Two
/// readings are implemented, [`AvgDevFormula`]:
///
/// * [`AvgDevFormula::Sources`], what the secondary sources agree on (the
///   JCN 2005 abstract, a summary of the LCN 2004 paper, the Linux
///   re-implementation `tcp_leungma.c`): an EWMA and a mean deviation of
///   the lengths, dupthresh = avg + dev (the summary's "average + mean
///   deviation"), an adaptive upper bound that keeps waiting for dupthresh
///   duplicate ACKs shorter than the RTO, and a multiplicative decrease on
///   a timeout (the abstract's "reduced exponentially"). The sources give
///   no gains, bound or decrease factors but the Linux module's, which are
///   used: gains 19/64 for both (first sample: avg = L, dev = 0), bound
///   cwnd x (0.7 RTO / SRTT - 2), and avg / 2, dev / 4 on the first
///   timeout of a segment.
/// * [`AvgDevFormula::K4`], the formula assumed before the sources were
///   checked, after RFC 6298's estimator: gains 1/8 and 1/4 (first sample:
///   dev = L / 2), dupthresh = floor(avg + 4 dev) + 1 (the smallest one
///   above avg + 4 dev: a reordering of length L gives L duplicate ACKs),
///   capped at 0.9 cwnd as the Blanton-Allman schemes, no reaction to
///   timeouts.
///
/// Both clamp to at least 3. Samples come from the sender
/// ([`super::reordering`]): a late original that closes exactly one hole,
/// r = m - h (rr-tcp Sec. 4.1.1), and the DSACK of a spurious
/// retransmission (the pairing of [`crate::tcp::dsack`]).
#[derive(Debug, Clone)]
pub struct AvgDev {
    pub formula: AvgDevFormula,
    /// Average reordering length, segments (`None` before any sample).
    avg: Option<f64>,
    /// Mean deviation of the reordering length, segments.
    dev: f64,
    pub samples: u64,
    /// The last RTO and SRTT the bound was asked for, and RTO / SRTT: they
    /// change far less often than once per ACK (an ns-2 estimator's are
    /// whole ticks), and the division was the costliest step.
    ratio: (Time, Time, f64),
}

/// Which reading of AVG-DEV ([`AvgDev`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AvgDevFormula {
    /// avg + dev, gains 19/64, RTO-based bound, decrease on timeouts.
    Sources,
    /// floor(avg + 4 dev) + 1, gains 1/8 and 1/4, 0.9 cwnd cap.
    K4,
}

impl AvgDevFormula {
    /// The EWMA gains of avg and dev.
    fn gains(self) -> (f64, f64) {
        match self {
            AvgDevFormula::Sources => (19.0 / 64.0, 19.0 / 64.0),
            AvgDevFormula::K4 => (0.125, 0.25),
        }
    }
}

impl AvgDev {
    pub fn new(formula: AvgDevFormula) -> AvgDev {
        AvgDev {
            formula,
            avg: None,
            dev: 0.0,
            samples: 0,
            ratio: (0, 0, f64::NAN),
        }
    }

    /// Fold one reordering length (segments) into avg and dev (the
    /// deviation against the old avg).
    pub fn on_sample(&mut self, len: u32) {
        let l = len as f64;
        self.samples += 1;
        let (g_avg, g_dev) = self.formula.gains();
        match self.avg {
            None => {
                self.avg = Some(l);
                self.dev = match self.formula {
                    AvgDevFormula::Sources => 0.0,
                    AvgDevFormula::K4 => l / 2.0,
                };
            }
            Some(avg) => {
                self.dev += g_dev * ((avg - l).abs() - self.dev);
                self.avg = Some(avg + g_avg * (l - avg));
            }
        }
    }

    /// The first timeout of a segment: avg halved, dev quartered
    /// ([`AvgDevFormula::Sources`] only).
    pub fn on_timeout(&mut self) {
        if self.formula == AvgDevFormula::Sources {
            self.avg = self.avg.map(|a| a / 2.0);
            self.dev /= 4.0;
        }
    }

    pub fn avg(&self) -> Option<f64> {
        self.avg
    }

    pub fn dev(&self) -> f64 {
        self.dev
    }

    /// dupthresh for congestion window `cwnd` and, for the RTO-based bound,
    /// RTO / SRTT (`None` before an RTT sample: no bound beyond cwnd); 3
    /// before any reordering sample.
    pub fn dupthresh(&self, cwnd: f64, rto_over_srtt: Option<f64>) -> u32 {
        let Some(avg) = self.avg else {
            return MIN_DUPTHRESH;
        };
        let (raw, cap) = match self.formula {
            AvgDevFormula::Sources => {
                let raw = floor(avg + self.dev);
                let bound = rto_over_srtt.map_or(f64::INFINITY, |r| cwnd * (0.7 * r - 2.0));
                // An integer raw at or below the bound is at or below its
                // floor too: the floor only matters below raw (or with a
                // NaN raw, which min drops).
                if !(bound < raw || raw.is_nan()) {
                    return raw.max(MIN_DUPTHRESH as f64) as u32;
                }
                (raw, floor(bound))
            }
            AvgDevFormula::K4 => (floor(avg + 4.0 * self.dev) + 1.0, floor(0.9 * cwnd)),
        };
        raw.min(cap).max(MIN_DUPTHRESH as f64) as u32
    }

    /// [`Self::dupthresh`] with the bound's RTO and SRTT (`None` before an
    /// RTT sample), their ratio remembered.
    pub fn dupthresh_at(&mut self, cwnd: f64, rto_and_srtt: Option<(Time, Time)>) -> u32 {
        let ratio = rto_and_srtt.map(|(rto, srtt)| {
            if (rto, srtt) != (self.ratio.0, self.ratio.1) {
                self.ratio = (rto, srtt, rto as f64 / srtt as f64);
            }
            self.ratio.2
        });
        self.dupthresh(cwnd, ratio)
    }
}

/// Time-delayed fast retransmit (TD-FR; Paxson 1997, tcp-pr Sec. II,
/// rr-tcp Sec. 5.7): fast retransmit once dupthresh duplicate ACKs have
/// arrived and max(srtt / 2, DT) has passed since the first, DT being the
/// time between the first and the third duplicate ACK.
pub fn td_fr_deadline(first_dupack: Time, third_dupack: Time, srtt: Time) -> Time {
    first_dupack + (srtt / 2).max(third_dupack - first_dupack)
}

/// Linux's `sysctl_tcp_max_reordering` (Linux 3.15 and later; 3.17 for
/// the tail-loss paper).
pub const LINUX_MAX_REORDERING: u32 = 300;

/// Linux 3.17's `tp->reordering` as the duplicate-ACK threshold
/// (`net/ipv4/tcp_input.c`, `tcp_update_reordering`): 3 at first
/// (`sysctl_tcp_reordering`), raised to each larger reordering distance
/// measured (segments from a never-retransmitted segment delivered late to
/// the highest SACKed one), at most [`LINUX_MAX_REORDERING`]; on a timeout
/// in the Open state after at least 3 SACKed segments, back to at most 3
/// (`tcp_enter_loss`: "the degree of reordering is over-estimated").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinuxReordering {
    pub reordering: u32,
}

impl LinuxReordering {
    pub fn new() -> LinuxReordering {
        LinuxReordering {
            reordering: MIN_DUPTHRESH,
        }
    }

    /// `tcp_update_reordering`: a measured distance `metric`. Returns
    /// whether it raised the threshold.
    pub fn on_measured(&mut self, metric: u32) -> bool {
        if metric <= self.reordering {
            return false;
        }
        self.reordering = metric.min(LINUX_MAX_REORDERING);
        true
    }
}

impl Default for LinuxReordering {
    fn default() -> Self {
        LinuxReordering::new()
    }
}

/// The dupthresh policy of a sender.
#[derive(Debug, Clone)]
pub enum DupthreshPolicy {
    Fixed(u32),
    RrTcp(Box<RrTcp>),
    BlantonAllman(BlantonAllman),
    AvgDev(AvgDev),
    /// Linux 3.17's adaptive `tp->reordering` ([`LinuxReordering`]).
    Linux(LinuxReordering),
    /// TCP-Aix's winthresh ([`crate::tcp::detection::winthresh::Winthresh`]): from the buffer
    /// space, held for a duplicate-ACK run. It needs the flight size and
    /// the receiver window, so the sender computes it; [`Self::value`]
    /// returns the floor of 3.
    Winthresh(Winthresh),
}

impl DupthreshPolicy {
    /// RR-TCP with Table 2's parameters.
    pub fn rr_tcp(fa_ratio: f64, adaptive: bool, lt_bound: f64) -> DupthreshPolicy {
        DupthreshPolicy::RrTcp(Box::new(RrTcp::new(
            fa_ratio,
            adaptive,
            lt_bound,
            secs(80.0),
        )))
    }

    /// The threshold now, for congestion window `cwnd` and RTO / SRTT (the
    /// bound of AVG-DEV's [`AvgDevFormula::Sources`]).
    pub fn value(
        &mut self,
        cwnd: f64,
        rto_and_srtt: impl FnOnce() -> Option<(Time, Time)>,
        now: Time,
    ) -> u32 {
        match self {
            DupthreshPolicy::Fixed(d) => *d,
            DupthreshPolicy::RrTcp(rr) => rr.dupthresh(now),
            DupthreshPolicy::BlantonAllman(bl) => bl.dupthresh(cwnd),
            DupthreshPolicy::AvgDev(ad) => {
                // RTO and SRTT only where the formula reads them
                let bounded = ad.avg.is_some() && ad.formula == AvgDevFormula::Sources;
                ad.dupthresh_at(cwnd, if bounded { rto_and_srtt() } else { None })
            }
            DupthreshPolicy::Linux(l) => l.reordering,
            DupthreshPolicy::Winthresh(_) => MIN_DUPTHRESH,
        }
    }

    /// A measured reordering length (for the policies that learn from
    /// them: RR-TCP's histogram, AVG-DEV's estimator).
    pub fn on_reordering_sample(&mut self, len: u32, now: Time) {
        match self {
            DupthreshPolicy::RrTcp(rr) => rr.on_sample(len, now),
            DupthreshPolicy::AvgDev(ad) => ad.on_sample(len),
            DupthreshPolicy::Fixed(_)
            | DupthreshPolicy::BlantonAllman(_)
            | DupthreshPolicy::Linux(_)
            | DupthreshPolicy::Winthresh(_) => {}
        }
    }

    pub fn fa_ratio(&self) -> Option<f64> {
        match self {
            DupthreshPolicy::RrTcp(rr) => Some(rr.fa_ratio),
            _ => None,
        }
    }

    /// RR-TCP: the `q` percentile of the reordering histogram (for traces).
    pub fn reorder_percentile(&self, q: f64) -> Option<u32> {
        match self {
            DupthreshPolicy::RrTcp(rr) => rr.histogram.percentile(q),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "dupthresh_tests.rs"]
mod tests;
