//! Retransmission timeout estimation, RFC 6298 (or Linux's rules, or an
//! ns-2 agent's, [`super::ns2`]).
//!
//! Pure state: samples in, RTO out. Karn's rule (Sec. 3: no samples from
//! retransmitted segments) is enforced by the caller, which knows what was
//! retransmitted; the backoff (Sec. 5.5) lives here.

use crate::num::floor;
use std::collections::VecDeque;

use crate::engine::time::{ms, NS_PER_MS};
use crate::engine::Time;
use crate::tcp::timers::ns2::Ns2Estimator;

/// RTT samples of the last `lifetime` in 1 ms bins, for the histogram RTO
/// of DSACK-HG (rr-tcp Sec. 5.3: RTO at the 99.8th percentile of the RTT
/// distribution). The lifetime is not given in the paper; we use the
/// reordering-sample lifetime of Table 2 (80 s).
#[derive(Debug, Clone)]
pub struct RttHistogram {
    pub percentile: f64,
    lifetime: Time,
    samples: VecDeque<(Time, u32)>,
    /// counts[b]: samples in [b, b + 1) ms; the last bin collects the rest.
    counts: Vec<u32>,
    top: usize,
}

const RTT_BINS: usize = 10_000;

impl RttHistogram {
    pub fn new(percentile: f64, lifetime: Time) -> RttHistogram {
        RttHistogram {
            percentile,
            lifetime,
            samples: VecDeque::new(),
            counts: vec![0; RTT_BINS],
            top: 0,
        }
    }

    pub fn insert(&mut self, now: Time, rtt: Time) {
        while let Some(&(t, b)) = self.samples.front() {
            if t + self.lifetime > now {
                break;
            }
            self.counts[b as usize] -= 1;
            self.samples.pop_front();
        }
        let b = ((rtt / NS_PER_MS) as usize).min(RTT_BINS - 1);
        self.counts[b] += 1;
        self.top = self.top.max(b);
        self.samples.push_back((now, b as u32));
    }

    /// Upper edge of the bin holding the percentile, if any sample.
    pub fn value(&self) -> Option<Time> {
        let n = self.samples.len();
        if n == 0 {
            return None;
        }
        // Walk down from the top until more than (1 - p) of the samples lie
        // at or above the bin.
        let allowed_above = floor((1.0 - self.percentile) * n as f64) as u64;
        let mut above = 0u64;
        for b in (0..=self.top).rev() {
            above += self.counts[b] as u64;
            if above > allowed_above {
                return Some(ms(b as u64 + 1));
            }
        }
        Some(ms(1))
    }
}

#[derive(Debug, Clone, Copy)]
pub struct RtoConfig {
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// Clock granularity G.
    pub granularity: Time,
}

#[derive(Debug, Clone)]
pub struct RtoEstimator {
    pub cfg: RtoConfig,
    srtt: Option<Time>,
    rttvar: Time,
    /// Un-backed-off RTO.
    base_rto: Time,
    /// Number of consecutive backoffs.
    backoff: u32,
    min_rtt: Option<Time>,
    /// DSACK-HG: the RTO comes from this histogram instead of SRTT/RTTVAR.
    pub histogram: Option<RttHistogram>,
    /// Linux rules for the variation term, when set ([`LinuxRttvar`]).
    pub linux: Option<LinuxRttvar>,
    /// An ns-2 agent's estimator and timer, when set: it replaces the
    /// RFC 6298 arithmetic, and its backoff is reset by the sender.
    pub ns2: Option<Ns2Estimator>,
}

/// Linux `tcp_rtt_estimator` / `__tcp_set_rto` (net/ipv4/tcp_input.c, as
/// in 3.x-6.x): `mdev` (kept here as 4 x mean deviation) gains 1/4 of a
/// larger error but only 1/32 of a smaller one (an RTT drop barely moves
/// it); `mdev_max` is the largest `mdev` of the current round trip, reset
/// to the minimum RTO at each new round (SND.UNA past `rtt_seq`); `rttvar`
/// follows `mdev_max` up at once and down by 1/4 per round, so it never
/// falls below the minimum RTO. RTO = SRTT + rttvar, i.e. SRTT + max(4
/// mdev, min RTO) in steady state: the minimum RTO is added to SRTT, not a
/// clamp (first sample R: SRTT = R, rttvar = max(2 R, min RTO)).
#[derive(Debug, Clone, Copy, Default)]
pub struct LinuxRttvar {
    /// 4 x mean deviation (Linux `mdev_us`).
    pub mdev: Time,
    pub mdev_max: Time,
    pub rttvar: Time,
    rtt_seq: u32,
    /// SND.UNA and SND.NXT at the sample (set by the sender).
    pub una: u32,
    pub nxt: u32,
}

impl RtoEstimator {
    pub fn new(cfg: RtoConfig) -> RtoEstimator {
        RtoEstimator {
            cfg,
            srtt: None,
            rttvar: 0,
            base_rto: cfg.initial_rto,
            backoff: 0,
            min_rtt: None,
            histogram: None,
            linux: None,
            ns2: None,
        }
    }

    /// Also feed the histogram (if any) with a sample taken at `now`.
    pub fn on_sample_at(&mut self, r: Time, now: Time) {
        if let Some(h) = self.histogram.as_mut() {
            h.insert(now, r);
        }
        if self.ns2.is_some() {
            self.on_sample_ns2(r, now);
            return;
        }
        self.on_sample(r);
    }

    /// The handshake's sample (the SYN's round trip, taken at `now`).
    pub fn on_handshake_sample(&mut self, r: Time, now: Time) {
        if self.ns2.is_some() {
            self.on_sample_ns2(r, now);
            return;
        }
        self.on_sample(r);
    }

    /// [`Ns2Estimator`]: ns-2's `rtt_update` (the backoff is not reset).
    fn on_sample_ns2(&mut self, r: Time, now: Time) {
        if let Some(n) = self.ns2.as_mut() {
            n.on_sample(r, now);
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// The backoff goes (ns-2: `t_backoff_ = 1` when the timed segment is
    /// acknowledged, and at a partial ACK in fast recovery).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
        if let Some(n) = self.ns2.as_mut() {
            n.reset_backoff();
        }
    }

    /// RFC 6298 Sec. 2.2 / 2.3: fold in a measurement `r`.
    pub fn on_sample(&mut self, r: Time) {
        if self.linux.is_some() {
            self.on_sample_linux(r);
            return;
        }
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RTTVAR <- (1 - beta) RTTVAR + beta |SRTT - R'|, beta = 1/4
                let err = srtt.abs_diff(r);
                self.rttvar = self.rttvar - self.rttvar / 4 + err / 4;
                // SRTT <- (1 - alpha) SRTT + alpha R', alpha = 1/8
                self.srtt = Some(srtt - srtt / 8 + r / 8);
            }
        }
        let srtt = self.srtt.unwrap();
        self.base_rto = srtt + self.cfg.granularity.max(4 * self.rttvar);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        // Sec. 5.7 / Karn: a valid sample after a backoff collapses it.
        self.backoff = 0;
    }

    /// [`LinuxRttvar`]: the Linux estimator.
    fn on_sample_linux(&mut self, r: Time) {
        let min_rto = self.cfg.min_rto;
        let Some(l) = self.linux.as_mut() else {
            return;
        };
        match self.srtt {
            None => {
                self.srtt = Some(r);
                l.mdev = 2 * r;
                l.rttvar = l.mdev.max(min_rto);
                l.mdev_max = l.rttvar;
                l.rtt_seq = l.nxt;
            }
            Some(srtt) => {
                self.srtt = Some(srtt - srtt / 8 + r / 8);
                let quarter = l.mdev / 4;
                if r < srtt {
                    // Smaller RTT: a larger error counts with gain 1/32.
                    let err = srtt - r;
                    if err > quarter {
                        l.mdev += (err - quarter) / 8;
                    } else {
                        l.mdev -= quarter - err;
                    }
                } else {
                    let err = r - srtt;
                    l.mdev = l.mdev + err - quarter;
                }
                if l.mdev > l.mdev_max {
                    l.mdev_max = l.mdev;
                    l.rttvar = l.rttvar.max(l.mdev_max);
                }
                if l.una > l.rtt_seq {
                    if l.mdev_max < l.rttvar {
                        l.rttvar -= (l.rttvar - l.mdev_max) / 4;
                    }
                    l.rtt_seq = l.nxt;
                    l.mdev_max = min_rto;
                }
            }
        }
        self.base_rto = self.srtt.unwrap_or(r) + l.rttvar;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.backoff = 0;
    }

    /// Tell the Linux estimator where SND.UNA and SND.NXT are.
    pub fn set_seq(&mut self, una: u32, nxt: u32) {
        if let Some(l) = self.linux.as_mut() {
            l.una = una;
            l.nxt = nxt;
        }
    }

    /// Sec. 5.5: double the timer after an expiry.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
        if let Some(n) = self.ns2.as_mut() {
            n.back_off();
        }
    }

    /// The current RTO, with backoff, clamped to [min_rto, max_rto]
    /// (Sec. 2.4, 2.5).
    pub fn rto(&self) -> Time {
        let histogram = self.histogram.as_ref().and_then(RttHistogram::value);
        if let Some(n) = self.ns2.as_ref() {
            return n.timeout(histogram);
        }
        let base = match histogram {
            Some(v) => v,
            None => self.base_rto,
        };
        let clamped = base.max(self.cfg.min_rto);
        let backed = clamped.saturating_mul(1u64 << self.backoff);
        backed.min(self.cfg.max_rto)
    }

    pub fn srtt(&self) -> Option<Time> {
        match self.ns2.as_ref() {
            Some(n) => n.srtt(),
            None => self.srtt,
        }
    }

    pub fn rttvar(&self) -> Time {
        match self.ns2.as_ref() {
            Some(n) => n.rttvar(),
            None => self.rttvar,
        }
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    fn est(min_rto: Time) -> RtoEstimator {
        RtoEstimator::new(RtoConfig {
            min_rto,
            max_rto: ms(60_000),
            initial_rto: ms(1000),
            granularity: ms(1),
        })
    }

    #[test]
    fn first_and_second_sample_follow_rfc6298() {
        let mut e = est(0);
        assert_eq!(e.rto(), ms(1000));
        e.on_sample(ms(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rto(), ms(300));
        e.on_sample(ms(200));
        // RTTVAR = 3/4 * 50 + 1/4 * 100 = 62.5; SRTT = 7/8 * 100 + 1/8 * 200 = 112.5
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), Some(112_500_000));
        assert_eq!(e.rto(), 112_500_000 + 4 * 62_500_000);
    }

    #[test]
    fn histogram_rto_is_the_998th_percentile() {
        let mut h = RttHistogram::new(0.998, ms(80_000));
        // 1000 samples of 50 ms and 5 of 900 ms: 0.5 % above 50 ms, more
        // than the 0.2 % allowed, so the percentile is in the 900 ms bin.
        for i in 0..1000 {
            h.insert(i, ms(50));
        }
        for i in 0..5 {
            h.insert(1000 + i, ms(900));
        }
        assert_eq!(h.value(), Some(ms(901)));
        // With one slow sample in 1001 (0.1 %), the 50 ms bin holds it.
        let mut g = RttHistogram::new(0.998, ms(80_000));
        for i in 0..1000 {
            g.insert(i, ms(50));
        }
        g.insert(2000, ms(900));
        assert_eq!(g.value(), Some(ms(51)));
        let mut e = est(0);
        e.histogram = Some(g);
        e.on_sample(ms(50));
        assert_eq!(e.rto(), ms(51));
    }

    #[test]
    fn linux_rto_adds_the_minimum_to_srtt() {
        let mut e = est(ms(200));
        e.linux = Some(LinuxRttvar::default());
        e.set_seq(0, 0);
        e.on_sample(ms(80));
        // SRTT 80, mdev = 2 x 80 = 160 < 200: RTO = 80 + 200.
        assert_eq!(e.rto(), ms(280));
        // Equal samples shrink mdev (3/4 each) but rttvar keeps the floor.
        e.set_seq(5, 10);
        for _ in 0..4 {
            e.on_sample(ms(80));
        }
        assert_eq!(e.rto(), ms(280));
        // A 280 ms sample: err 200 - mdev/4 added to mdev (~ 50.6 -> 238).
        e.on_sample(ms(280));
        assert_eq!(e.srtt(), Some(ms(105)));
        let l = e.linux.unwrap();
        assert!(
            (l.rttvar as f64 / 1e6 - 237.97).abs() < 0.01,
            "{}",
            l.rttvar
        );
        assert_eq!(e.rto(), ms(105) + l.rttvar);
    }

    #[test]
    fn min_rto_backoff_and_collapse_on_new_sample() {
        let mut e = est(ms(1000));
        e.on_sample(ms(50));
        assert_eq!(e.rto(), ms(1000));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(4000));
        e.on_sample(ms(50));
        assert_eq!(e.rto(), ms(1000));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), ms(60_000));
    }
}
