//! Scalable TCP (T. Kelly, "Scalable TCP: Improving Performance in
//! Highspeed Wide Area Networks", ACM CCR 33(2), April 2003, Sec. 2).
//!
//! Multiplicative increase, multiplicative decrease above the legacy
//! window `lwnd`: for each acknowledged segment in congestion avoidance
//! `cwnd := cwnd + a` with `a = 0.01`, and on a congestion event
//! `cwnd := cwnd - b cwnd` with `b = 0.125`. At or below `lwnd` (16
//! segments) the controller is Reno, so it is no more aggressive than
//! Standard TCP at small windows. Slow start is Reno's.

use super::ops::{CongestionOps, Window};
use super::reno::Reno;
use crate::engine::Time;

/// Scalable TCP (Kelly 2003).
#[derive(Debug, Clone, Copy)]
pub struct Scalable {
    /// Increase per acknowledged segment, `a` (0.01).
    pub a: f64,
    /// Decrease fraction, `b` (0.125).
    pub b: f64,
    /// Legacy window `lwnd` (16 segments): Reno at or below it.
    pub lwnd: f64,
}

impl Default for Scalable {
    fn default() -> Scalable {
        Scalable {
            a: 0.01,
            b: 0.125,
            lwnd: 16.0,
        }
    }
}

impl CongestionOps for Scalable {
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() || w.cwnd <= self.lwnd {
            Reno.on_ack(w, acked, now, srtt);
            return;
        }
        w.cwnd += self.a * acked as f64;
    }

    /// `cwnd - b cwnd` above the legacy window, Reno's rule at or below.
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u32, now: Time) -> f64 {
        if w.cwnd <= self.lwnd {
            return Reno.ssthresh_after_loss(w, flight, now);
        }
        ((1.0 - self.b) * w.cwnd).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() < 1e-9
    }

    #[test]
    fn increase_per_acked_segment() {
        let mut s = Scalable::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        s.on_ack(&mut w, 1, 0, None);
        assert!(close(w.cwnd, 100.01), "{}", w.cwnd);
        s.on_ack(&mut w, 2, 0, None);
        assert!(close(w.cwnd, 100.03), "{}", w.cwnd);
        // One window of ACKs (100 segments) multiplies cwnd by about 1.01.
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        for _ in 0..100 {
            s.on_ack(&mut w, 1, 0, None);
        }
        assert!(close(w.cwnd, 101.0), "{}", w.cwnd);
        // At or below lwnd = 16: Reno's 1/cwnd.
        let mut w = Window {
            cwnd: 16.0,
            ssthresh: 8.0,
        };
        s.on_ack(&mut w, 1, 0, None);
        assert!(close(w.cwnd, 16.0625), "{}", w.cwnd);
        // Slow start: Reno's.
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 1000.0,
        };
        s.on_ack(&mut w, 1, 0, None);
        assert!(close(w.cwnd, 101.0));
    }

    #[test]
    fn decrease_on_loss() {
        let mut s = Scalable::default();
        let w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        assert!(close(s.ssthresh_after_loss(&w, 100, 0), 87.5));
        let w = Window {
            cwnd: 8000.0,
            ssthresh: 50.0,
        };
        assert!(close(s.ssthresh_after_loss(&w, 8000, 0), 7000.0));
        // At or below lwnd: Reno halves the flight.
        let w = Window {
            cwnd: 12.0,
            ssthresh: 50.0,
        };
        assert!(close(s.ssthresh_after_loss(&w, 12, 0), 6.0));
    }
}
