//! The emulator measuring itself: how late each packet is written out
//! against the time the model scheduled it (timing error), and the rate at
//! which each link really delivered back-to-back packets (achieved rate).

use serde::Serialize;

use crate::engine::time::tx_time;
use crate::engine::Time;

/// Histogram bins of 1 us, up to this many microseconds (later: overflow).
const BINS_US: usize = 100_000;
/// A run of back-to-back departures counts for the rate with at least this
/// many packets (the two ends' timing errors then matter little).
const MIN_RUN: u64 = 10;

/// Distribution of the timing error (write time - scheduled time).
#[derive(Debug, Clone)]
pub struct TimingErrors {
    bins: Vec<u64>,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
    over_1ms: u64,
}

/// Summary of [`TimingErrors`], in microseconds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimingSummary {
    pub packets: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
    /// Packets written more than 1 ms after their time.
    pub over_1ms: u64,
}

impl Default for TimingErrors {
    fn default() -> Self {
        TimingErrors {
            bins: vec![0; BINS_US + 1],
            count: 0,
            sum_ns: 0,
            max_ns: 0,
            over_1ms: 0,
        }
    }
}

impl TimingErrors {
    pub fn add(&mut self, error_ns: u64) {
        let us = (error_ns / 1000) as usize;
        self.bins[us.min(BINS_US)] += 1;
        self.count += 1;
        self.sum_ns += error_ns as u128;
        self.max_ns = self.max_ns.max(error_ns);
        if error_ns > 1_000_000 {
            self.over_1ms += 1;
        }
    }

    /// Upper edge (us) of the bin holding quantile `q`.
    fn quantile_us(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((self.count as f64 * q).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return if i == BINS_US {
                    self.max_ns as f64 / 1000.0
                } else {
                    (i + 1) as f64
                };
            }
        }
        self.max_ns as f64 / 1000.0
    }

    pub fn summary(&self) -> TimingSummary {
        TimingSummary {
            packets: self.count,
            mean_us: if self.count == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.count as f64 / 1000.0
            },
            p50_us: self.quantile_us(0.5),
            p90_us: self.quantile_us(0.9),
            p99_us: self.quantile_us(0.99),
            p999_us: self.quantile_us(0.999),
            max_us: self.max_ns as f64 / 1000.0,
            over_1ms: self.over_1ms,
        }
    }
}

/// Achieved rate of one link over its runs of back-to-back packets.
#[derive(Debug, Clone, Default)]
pub struct RateMeter {
    rate: f64,
    /// Scheduled and real time of the previous departure.
    last: Option<(Time, u64)>,
    run_first_real: u64,
    run_bytes: u64,
    run_packets: u64,
    bytes: u64,
    real_ns: u64,
    runs: u64,
    packets: u64,
}

/// Summary of a [`RateMeter`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LinkRate {
    pub link: String,
    pub rate_bps: f64,
    /// Bits of back-to-back runs (each but its first packet) over the real
    /// time between their first and last delivery; `None` without a run.
    pub achieved_bps: Option<f64>,
    pub runs: u64,
    pub packets: u64,
    pub seconds: f64,
}

impl RateMeter {
    pub fn new(rate: f64) -> RateMeter {
        RateMeter {
            rate,
            ..RateMeter::default()
        }
    }

    /// A packet of `size` bytes scheduled to arrive at `scheduled` was
    /// handled at `real` (both ns, on the emulator's clock). It followed the
    /// previous one back to back when their arrivals are exactly one
    /// serialisation time apart.
    pub fn on_departure(&mut self, size: u16, scheduled: Time, real: u64) {
        let back_to_back = self.last.is_some_and(|(s, _)| {
            scheduled.checked_sub(s) == Some(tx_time(size as u32, self.rate))
        });
        if back_to_back {
            self.run_bytes += size as u64;
            self.run_packets += 1;
        } else {
            self.close_run();
            self.run_first_real = real;
        }
        self.last = Some((scheduled, real));
    }

    fn close_run(&mut self) {
        if let Some((_, last_real)) = self.last {
            if self.run_packets + 1 >= MIN_RUN && last_real > self.run_first_real {
                self.bytes += self.run_bytes;
                self.real_ns += last_real - self.run_first_real;
                self.runs += 1;
                self.packets += self.run_packets + 1;
            }
        }
        self.run_bytes = 0;
        self.run_packets = 0;
    }

    pub fn summary(mut self, link: &str) -> LinkRate {
        self.close_run();
        LinkRate {
            link: link.to_string(),
            rate_bps: self.rate,
            achieved_bps: (self.real_ns > 0)
                .then(|| self.bytes as f64 * 8.0 * 1e9 / self.real_ns as f64),
            runs: self.runs,
            packets: self.packets,
            seconds: self.real_ns as f64 / 1e9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_come_from_one_microsecond_bins() {
        let mut t = TimingErrors::default();
        for us in 0..1000u64 {
            t.add(us * 1000 + 500);
        }
        t.add(250_000_000); // one 250 ms outlier, past the bins
        let s = t.summary();
        assert_eq!(s.packets, 1001);
        assert_eq!(s.p50_us, 501.0);
        assert_eq!(s.p99_us, 991.0);
        assert_eq!(s.max_us, 250_000.0);
        assert_eq!(s.over_1ms, 1);
    }

    #[test]
    fn achieved_rate_counts_back_to_back_runs_only() {
        let rate = 8e6; // 1 ms per 1000 bytes
        let mut m = RateMeter::new(rate);
        // A run of 11 packets handled 10 us late each: 10 ms of real time.
        for k in 0..11u64 {
            let s = 5_000_000 + k * 1_000_000;
            m.on_departure(1000, s, s + 10_000);
        }
        // A gap, then a run of 3 (too short to count).
        for k in 0..3u64 {
            let s = 50_000_000 + k * 1_000_000;
            m.on_departure(1000, s, s);
        }
        // A run whose last packet was handled 0.5 ms late: 10.5 ms.
        for k in 0..11u64 {
            let s = 100_000_000 + k * 1_000_000;
            let late = if k == 10 { 500_000 } else { 0 };
            m.on_departure(1000, s, s + late);
        }
        let r = m.summary("R1->R2");
        assert_eq!((r.runs, r.packets), (2, 22));
        let want = 20_000.0 * 8.0 / 0.0205;
        assert!((r.achieved_bps.unwrap() - want).abs() < 1e-6, "{r:?}");
    }
}
