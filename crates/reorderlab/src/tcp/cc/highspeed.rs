//! HighSpeed TCP, RFC 3649 (Floyd, 2003).
//!
//! The response function (RFC 3649 Sec. 5) is a straight line on a log-log
//! plot through (Low_P, Low_Window) and (High_P, High_Window); with the
//! RFC's parameters it is `w = 0.12 / p^0.835`, i.e. the packet drop rate
//!
//! ```text
//! p(w) = 0.078 / w^1.2
//! ```
//!
//! The decrease parameter is interpolated on a log scale between 0.5 at
//! Low_Window and High_Decrease at High_Window,
//!
//! ```text
//! b(w) = (High_Decrease - 0.5) (log w - log Low_Window)
//!        / (log High_Window - log Low_Window) + 0.5
//! ```
//!
//! and the increase parameter follows from the AIMD steady state,
//!
//! ```text
//! a(w) = w^2 p(w) 2 b(w) / (2 - b(w)).
//! ```
//!
//! In congestion avoidance `w += a(w) / w` per acknowledged segment, and a
//! congestion event sets `w := (1 - b(w)) w`. For `w <= Low_Window` the
//! controller is Reno (a = 1, b = 0.5). These closed forms reproduce the
//! table of RFC 3649 Appendix B (e.g. a = 8, b = 0.33 at w = 1058).
//!
//! Slow start is Reno's, or optionally Limited Slow-Start (RFC 3742 Sec. 3,
//! the companion proposal for large windows); it is off by default.

use super::ops::{CongestionOps, Window};
use super::reno::Reno;
use crate::engine::Time;
use crate::num::{exp, floor, ln};

/// RFC 3649 Sec. 5: below this window HighSpeed TCP is Standard TCP.
pub const LOW_WINDOW: f64 = 38.0;
/// RFC 3649 Sec. 5: the window reached at drop rate `HIGH_P`.
pub const HIGH_WINDOW: f64 = 83_000.0;
/// RFC 3649 Sec. 5: the drop rate at `HIGH_WINDOW`.
pub const HIGH_P: f64 = 1e-7;
/// RFC 3649 Sec. 5: b(w) at `HIGH_WINDOW`.
pub const HIGH_DECREASE: f64 = 0.1;

/// RFC 3649 Sec. 5: the packet drop rate of the HighSpeed response function
/// at window `w`, `p(w) = 0.078 / w^1.2` (the RFC's closed form of the
/// log-scale line through (Low_Window, ~1e-3) and (High_Window, High_P)).
pub fn p(w: f64) -> f64 {
    p_of_ln(ln(w))
}

/// RFC 3649 Sec. 5: the decrease parameter b(w); 0.5 at or below
/// Low_Window.
pub fn b(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    b_of_ln(ln(w))
}

/// RFC 3649 Sec. 5: the increase parameter a(w) = w^2 p(w) 2 b(w) /
/// (2 - b(w)) in segments per RTT; 1 at or below Low_Window.
pub fn a(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    // asked on every ACK in congestion avoidance: one logarithm serves
    // p(w) and b(w)
    let ln_w = ln(w);
    let bw = b_of_ln(ln_w);
    w * w * p_of_ln(ln_w) * 2.0 * bw / (2.0 - bw)
}

/// p(w) from log w: w^1.2 as exp(1.2 log w), which is within a few ulps
/// of `pow(w, 1.2)` for the windows TCP reaches and, with the logarithm
/// that b(w) needs anyway, costs a third of a `pow` (`crate::num`'s
/// portable `pow` is five times glibc's).
fn p_of_ln(ln_w: f64) -> f64 {
    0.078 / exp(1.2 * ln_w)
}

/// b(w) from log w, for w above Low_Window.
fn b_of_ln(ln_w: f64) -> f64 {
    (HIGH_DECREASE - 0.5) * (ln_w - ln(LOW_WINDOW)) / (ln(HIGH_WINDOW) - ln(LOW_WINDOW)) + 0.5
}

/// HighSpeed TCP (RFC 3649).
#[derive(Debug, Clone, Copy, Default)]
pub struct HighSpeed {
    /// RFC 3742 `max_ssthresh` for Limited Slow-Start (the RFC suggests
    /// 100 segments); `None` (default) keeps Reno's slow start.
    pub max_ssthresh: Option<f64>,
}

impl HighSpeed {
    /// HighSpeed TCP with RFC 3742 Limited Slow-Start above `max_ssthresh`.
    pub fn with_limited_slow_start(max_ssthresh: f64) -> HighSpeed {
        HighSpeed {
            max_ssthresh: Some(max_ssthresh),
        }
    }
}

impl CongestionOps for HighSpeed {
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() {
            match self.max_ssthresh {
                // RFC 3742 Sec. 3: above max_ssthresh, grow by 1/K per ACK
                // with K = int(cwnd / (0.5 max_ssthresh)).
                Some(max_ssthresh) if w.cwnd > max_ssthresh => {
                    let k = floor(w.cwnd / (0.5 * max_ssthresh)).max(1.0);
                    w.cwnd += 1.0 / k;
                }
                _ => Reno.on_ack(w, acked, now, srtt),
            }
            return;
        }
        if w.cwnd <= LOW_WINDOW {
            Reno.on_ack(w, acked, now, srtt);
            return;
        }
        // RFC 3649 Sec. 5: w = w + a(w)/w for each acknowledged segment.
        w.cwnd += acked as f64 * a(w.cwnd) / w.cwnd;
    }

    /// RFC 3649 Sec. 5: w = (1 - b(w)) w, with w the congestion window;
    /// Reno's rule at or below Low_Window.
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u32, now: Time) -> f64 {
        if w.cwnd <= LOW_WINDOW {
            return Reno.ssthresh_after_loss(w, flight, now);
        }
        ((1.0 - b(w.cwnd)) * w.cwnd).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a(w) and b(w) recomputed here from the RFC 3649 Sec. 5 formulas,
    /// independently of the module's functions.
    fn rfc_b(w: f64) -> f64 {
        let (lw, hw, hd) = (38.0_f64, 83_000.0_f64, 0.1);
        (hd - 0.5) * (ln(w) - ln(lw)) / (ln(hw) - ln(lw)) + 0.5
    }
    fn rfc_a(w: f64) -> f64 {
        let pw = 0.078 / crate::num::powf(w, 1.2);
        w * w * pw * 2.0 * rfc_b(w) / (2.0 - rfc_b(w))
    }

    fn close(x: f64, y: f64, tol: f64) -> bool {
        (x - y).abs() <= tol
    }

    #[test]
    fn a_and_b_match_rfc_formulas_and_table() {
        // w = 38: Standard TCP (Appendix B first row: 38, a = 1, b = 0.50).
        assert_eq!(a(38.0), 1.0);
        assert_eq!(b(38.0), 0.5);
        assert!(close(rfc_b(38.0), 0.5, 1e-12));
        // The formula is continuous there: a(38) from Sec. 5 is ~0.95.
        assert!(close(rfc_a(38.0), 1.0, 0.06), "{}", rfc_a(38.0));

        // w = 1000.
        assert!(close(a(1000.0), rfc_a(1000.0), 1e-12));
        assert!(close(b(1000.0), rfc_b(1000.0), 1e-12));
        // Appendix B brackets w = 1000 between the rows (851, a = 7,
        // b = 0.34) and (1058, a = 8, b = 0.33).
        assert!(a(1000.0) > 7.0 && a(1000.0) < 8.0, "{}", a(1000.0));
        assert!(close(b(1000.0), 0.33, 0.005), "{}", b(1000.0));
        // The table rows themselves.
        assert!(close(a(1058.0), 8.0, 0.02), "{}", a(1058.0));
        assert!(close(b(1058.0), 0.33, 0.005));
        assert!(close(a(118.0), 2.0, 0.02), "{}", a(118.0));
        assert!(close(b(118.0), 0.44, 0.005));

        // w = 83000 = High_Window: b = High_Decrease, p ~ High_P.
        assert!(close(b(83_000.0), 0.1, 1e-12));
        assert!(close(a(83_000.0), rfc_a(83_000.0), 1e-9));
        assert!(close(p(83_000.0) / HIGH_P, 1.0, 0.03), "{}", p(83_000.0));
        // Appendix B: a = 70 at w = 79517 and a = 71 at w = 84035.
        assert!(a(83_000.0) > 70.0 && a(83_000.0) < 71.0, "{}", a(83_000.0));
        assert!(close(a(84_035.0), 71.0, 0.1), "{}", a(84_035.0));
    }

    #[test]
    fn window_after_one_loss_from_1000() {
        let mut hs = HighSpeed::default();
        let w = Window {
            cwnd: 1000.0,
            ssthresh: 500.0,
        };
        let ss = hs.ssthresh_after_loss(&w, 1000, 0);
        let expected = (1.0 - rfc_b(1000.0)) * 1000.0;
        assert!(close(ss, expected, 1e-9), "{ss} vs {expected}");
        assert!(ss > 665.0 && ss < 675.0, "{ss}");
        // At or below Low_Window: Reno's halving of the flight.
        let small = Window {
            cwnd: 30.0,
            ssthresh: 10.0,
        };
        assert_eq!(hs.ssthresh_after_loss(&small, 30, 0), 15.0);
    }

    #[test]
    fn congestion_avoidance_increase() {
        let mut hs = HighSpeed::default();
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: 100.0,
        };
        hs.on_ack(&mut w, 1, 0, None);
        assert!(close(w.cwnd, 1000.0 + rfc_a(1000.0) / 1000.0, 1e-12));
        // Two segments in one ACK: twice the increase.
        let before = w.cwnd;
        hs.on_ack(&mut w, 2, 0, None);
        assert!(close(w.cwnd - before, 2.0 * rfc_a(before) / before, 1e-12));
        // One window of ACKs adds about a(w) segments.
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: 100.0,
        };
        for _ in 0..1000 {
            hs.on_ack(&mut w, 1, 0, None);
        }
        assert!(close(w.cwnd - 1000.0, rfc_a(1000.0), 0.05), "{}", w.cwnd);
        // Below Low_Window: Reno.
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: 10.0,
        };
        hs.on_ack(&mut w, 1, 0, None);
        assert!(close(w.cwnd, 20.05, 1e-12));
    }

    #[test]
    fn limited_slow_start_is_optional() {
        let mut w = Window {
            cwnd: 400.0,
            ssthresh: 1e9,
        };
        HighSpeed::default().on_ack(&mut w, 1, 0, None);
        assert_eq!(w.cwnd, 401.0);
        // RFC 3742: max_ssthresh 100, cwnd 400 -> K = int(400 / 50) = 8.
        let mut w = Window {
            cwnd: 400.0,
            ssthresh: 1e9,
        };
        HighSpeed::with_limited_slow_start(100.0).on_ack(&mut w, 1, 0, None);
        assert_eq!(w.cwnd, 400.125);
        let mut w = Window {
            cwnd: 50.0,
            ssthresh: 1e9,
        };
        HighSpeed::with_limited_slow_start(100.0).on_ack(&mut w, 1, 0, None);
        assert_eq!(w.cwnd, 51.0);
    }
}
