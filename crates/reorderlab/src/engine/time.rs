//! Simulated time: an integer count of nanoseconds. No floating-point clock,
//! so event order never depends on rounding.

/// Nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_SEC: u64 = 1_000_000_000;
pub const NS_PER_MS: u64 = 1_000_000;

/// Seconds (as given in a scenario) to nanoseconds, rounded to the nearest.
pub fn secs(s: f64) -> Time {
    debug_assert!(s >= 0.0 && s.is_finite());
    (s * NS_PER_SEC as f64).round() as Time
}

/// Nanoseconds to seconds, for reporting.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Milliseconds to nanoseconds.
pub const fn ms(m: u64) -> Time {
    m * NS_PER_MS
}

/// Serialisation time of `bytes` on a link of `rate` bit/s, rounded to the
/// nearest nanosecond.
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    (bytes as f64 * 8.0 * NS_PER_SEC as f64 / rate_bps).round() as Time
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_to_nearest_ns() {
        assert_eq!(secs(0.05), 50_000_000);
        assert_eq!(secs(1e-9 * 0.6), 1);
        assert_eq!(to_secs(1_500_000_000), 1.5);
        assert_eq!(ms(200), 200_000_000);
    }

    #[test]
    fn tx_time_of_1000_bytes_at_8_mbps_is_1_ms() {
        assert_eq!(tx_time(1000, 8e6), 1_000_000);
        assert_eq!(tx_time(1500, 1e9), 12_000);
    }
}
