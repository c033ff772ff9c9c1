//! Simulated time: an integer count of nanoseconds. No floating-point clock,
//! so event order never depends on rounding.
//!
//! Limits (`docs/limits.md`): the clock counts to `u64::MAX` ns (about 584
//! years), but a scenario may name no time longer than [`MAX_SECONDS`]
//! (about 31.7 years) and no positive time shorter than the 1 ns step
//! ([`MIN_STEP_SECONDS`]); `spec::validate` refuses both with the field's
//! name. A time drawn at random (a Pareto delay, say) is not refused but
//! clamped to [`MAX_TIME`] by [`secs`]: a packet held that long stays held
//! past the end of any run, as it would with the exact draw. With every
//! term of a sum at most `MAX_TIME` and the clock at most `MAX_TIME` (the
//! end of the run), `now + d` cannot overflow; where an unbounded number of
//! terms add up (a link's backlog) the sum saturates at [`NEVER`], a time
//! after the end of every run.

use crate::num::round;

/// Nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_SEC: u64 = 1_000_000_000;
pub const NS_PER_MS: u64 = 1_000_000;

/// The longest time a scenario may name (a duration, a delay, a timeout),
/// in seconds: 10^9 s, about 31.7 years.
pub const MAX_SECONDS: f64 = 1e9;

/// [`MAX_SECONDS`] in nanoseconds: the end of the longest run, and the
/// largest value [`secs`] and [`tx_time`] return. Sixteen such times add
/// up to less than `u64::MAX`.
pub const MAX_TIME: Time = 1_000_000_000 * NS_PER_SEC;
const _: () = assert!(16 * MAX_TIME < u64::MAX);

/// The clock's step, in seconds: a positive time that would round to 0 ns
/// is refused by validation.
pub const MIN_STEP_SECONDS: f64 = 1e-9;

/// A time after the end of every run ([`after`] saturates here).
pub const NEVER: Time = Time::MAX;

/// Seconds (as given in a scenario, or drawn) to nanoseconds, rounded to
/// the nearest, clamped to `[0, MAX_TIME]` (NaN gives 0).
#[inline]
pub fn secs(s: f64) -> Time {
    debug_assert!(s >= 0.0, "negative time {s}");
    // `as` saturates (and maps NaN to 0); the clamp keeps sums in range
    (round(s * NS_PER_SEC as f64) as Time).min(MAX_TIME)
}

/// Nanoseconds to seconds, for reporting.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Milliseconds to nanoseconds.
pub const fn ms(m: u64) -> Time {
    m * NS_PER_MS
}

/// `t + d`, or [`NEVER`] if that is not representable: for sums with an
/// unbounded number of terms (a link's backlog of transmissions).
#[inline(always)]
pub fn after(t: Time, d: Time) -> Time {
    t.saturating_add(d)
}

/// Serialisation time of `bytes` on a link of `rate` bit/s, rounded to the
/// nearest nanosecond, at least 1 ns (the clock's step: a round trip over
/// links without delay must still take time, or a window of data and its
/// ACKs would go round for ever at one instant) and at most [`MAX_TIME`]
/// (a link slower than that never finishes a packet within a run).
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    (round(bytes as f64 * 8.0 * NS_PER_SEC as f64 / rate_bps) as Time).clamp(1, MAX_TIME)
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

    /// Issue 25 (property test): 1-byte packets at 1e12 b/s over links
    /// without delay took 0 ns, and a flow's data and ACKs went round for
    /// ever at t = 0.
    #[test]
    fn no_transmission_is_shorter_than_the_clock_step() {
        assert_eq!(tx_time(1, 1e12), 1);
        assert_eq!(tx_time(40, 1e12), 1);
        assert_eq!(tx_time(125, 1e12), 1);
        assert_eq!(tx_time(250, 1e12), 2);
    }

    /// Issue 25: a draw of 1e30 s (a Pareto tail) or a 1e-300 b/s link
    /// gave `u64::MAX` ns, and `now + that` wrapped around to the past.
    #[test]
    fn huge_times_clamp_and_sums_of_them_do_not_wrap() {
        assert_eq!(secs(1e30), MAX_TIME);
        assert_eq!(secs(f64::INFINITY), MAX_TIME);
        assert_eq!(secs(MAX_SECONDS), MAX_TIME);
        assert_eq!(tx_time(1500, 1e-300), MAX_TIME);
        assert_eq!(tx_time(1500, 1e-7), MAX_TIME);
        let now = MAX_TIME; // the end of the longest run
        assert!(now + secs(1e30) > now);
        assert_eq!(after(NEVER - 1, MAX_TIME), NEVER);
        assert_eq!(after(5, 7), 12);
    }
}
