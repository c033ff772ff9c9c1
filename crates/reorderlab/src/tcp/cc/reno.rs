//! Reno window growth, RFC 5681 Sec. 3.1.

use super::ops::{CongestionOps, Window};
use crate::engine::Time;

/// Standard TCP congestion control.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reno;

impl CongestionOps for Reno {
    /// Slow start: cwnd += min(N, SMSS) per ACK (eq. 2, N counted in
    /// segments, so at most one segment per ACK). Congestion avoidance:
    /// cwnd += SMSS * SMSS / cwnd per ACK (eq. 3).
    fn on_ack(&mut self, w: &mut Window, acked: u32, _now: Time, _srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() {
            w.cwnd += 1.0;
        } else {
            w.cwnd += 1.0 / w.cwnd;
        }
    }

    /// ssthresh = max(FlightSize / 2, 2 * SMSS) (eq. 4).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight: u32, _now: Time) -> f64 {
        (flight as f64 / 2.0).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_additive_increase() {
        let mut r = Reno;
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: 4.0,
        };
        for _ in 0..3 {
            r.on_ack(&mut w, 1, 0, None);
        }
        assert_eq!(w.cwnd, 4.0);
        // One window of ACKs in congestion avoidance adds about one segment.
        for _ in 0..4 {
            r.on_ack(&mut w, 1, 0, None);
        }
        assert!(w.cwnd > 4.8 && w.cwnd < 5.0, "{}", w.cwnd);
        assert_eq!(r.ssthresh_after_loss(&w, 10, 0), 5.0);
        assert_eq!(r.ssthresh_after_loss(&w, 3, 0), 2.0);
    }
}
