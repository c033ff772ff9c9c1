//! BIC, Binary Increase Congestion control (L. Xu, K. Harfoush, I. Rhee,
//! "Binary Increase Congestion Control for Fast, Long Distance Networks",
//! IEEE INFOCOM 2004, Sec. III), with the parameter values of Linux
//! `tcp_bic.c` (beta = 819/1024 ~ 0.8, low_window = 14, fast convergence
//! on) and S_max = 32, the paper's value and Linux's original
//! `max_increment` (later Linux versions use 16; set [`Bic::s_max`]).
//!
//! Window growth is stated per RTT (Sec. III):
//!
//! * **Binary search increase**: after a loss, W_max is the window just
//!   before the reduction and W_min the window just after it; each RTT
//!   without loss sets W_min := cwnd and moves cwnd to the midpoint
//!   (W_max + W_min) / 2, i.e. increases it by (W_max - cwnd) / 2.
//! * **Additive increase**: the per-RTT increase is capped at S_max, so a
//!   window far below W_max grows linearly.
//! * The increase is at least S_min (0.01 segments per RTT), so the search
//!   ends by crossing W_max.
//! * **Max probing** (cwnd >= W_max): the growth mirrors the search, slow
//!   at first and then faster: the per-RTT increase is cwnd - W_max
//!   (clamped to [S_min, S_max]), which doubles the distance above W_max
//!   each RTT ("slow start" beyond W_max) until it reaches S_max, then
//!   additive increase.
//! * **Fast convergence**: at a loss with cwnd < W_max (a downward trend),
//!   W_max := (W_max' + W_min') / 2 = cwnd (1 + beta) / 2 with beta the
//!   multiplicative factor 0.8 (the paper's (2 - beta)/2 with its decrease
//!   fraction), otherwise W_max := cwnd. Then cwnd := beta cwnd.
//! * At or below low_window (14 segments) BIC is Reno.
//!
//! The per-RTT increase is applied per acknowledged segment as
//! `increase / cwnd`, both fixed at the start of a round of `ceil(cwnd)`
//! acknowledged segments (one RTT's worth; the divisor is rounded up to
//! the same whole number), so a round adds exactly the per-RTT increase.
//! With W_max unknown (before the first loss, and after a timeout, which
//! like Linux resets W_max) the per-RTT increase is S_max, as with the
//! paper's initial W_max of "a large value".

use super::ops::{CongestionOps, Window};
use super::reno::Reno;
use crate::engine::Time;
use crate::num::ceil;

/// BIC (Xu, Harfoush, Rhee, INFOCOM 2004).
#[derive(Debug, Clone, Copy)]
pub struct Bic {
    /// Multiplicative decrease factor: cwnd := beta cwnd on loss (0.8).
    pub beta: f64,
    /// Maximum increase per RTT, S_max (32 segments).
    pub s_max: f64,
    /// Minimum increase per RTT, S_min (0.01 segments).
    pub s_min: f64,
    /// Reno at or below this window (14 segments).
    pub low_window: f64,
    /// Fast convergence (Sec. III), on by default.
    pub fast_convergence: bool,
    /// W_max: the window before the last reduction, 0 when unknown.
    w_max: f64,
    /// Per-segment increase in the current round (one RTT of ACKs).
    round_step: f64,
    /// Segments still to be acknowledged in the current round.
    round_left: u64,
    /// W_max before the last reduction, restored by `on_undo`.
    undo_w_max: Option<f64>,
}

impl Default for Bic {
    fn default() -> Bic {
        Bic {
            beta: 0.8,
            s_max: 32.0,
            s_min: 0.01,
            low_window: 14.0,
            fast_convergence: true,
            w_max: 0.0,
            round_step: 0.0,
            round_left: 0,
            undo_w_max: None,
        }
    }
}

impl Bic {
    /// W_max, or `None` while unknown.
    pub fn w_max(&self) -> Option<f64> {
        (self.w_max > 0.0).then_some(self.w_max)
    }

    /// The per-RTT increase at window `cwnd` (Sec. III): binary search
    /// toward W_max, capped by S_max (additive increase), at least S_min;
    /// max probing above W_max.
    pub fn increase_per_rtt(&self, cwnd: f64) -> f64 {
        if self.w_max <= 0.0 {
            return self.s_max;
        }
        let inc = if cwnd < self.w_max {
            // Midpoint of W_min = cwnd and W_max.
            (self.w_max - cwnd) / 2.0
        } else {
            // Max probing: mirror image of the binary search.
            cwnd - self.w_max
        };
        inc.clamp(self.s_min, self.s_max)
    }

    fn end_round(&mut self) {
        self.round_left = 0;
    }
}

impl CongestionOps for Bic {
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() || w.cwnd <= self.low_window {
            self.end_round();
            Reno.on_ack(w, acked, now, srtt);
            return;
        }
        let mut left = u64::from(acked);
        while left > 0 {
            if self.round_left == 0 {
                // A round is one window of segments, ceil(cwnd) of them.
                let len = ceil(w.cwnd).max(1.0);
                self.round_step = self.increase_per_rtt(w.cwnd) / len;
                self.round_left = len as u64;
            }
            let n = left.min(self.round_left);
            w.cwnd += n as f64 * self.round_step;
            self.round_left -= n;
            left -= n;
        }
    }

    /// W_max update with fast convergence, then cwnd := beta cwnd (Reno's
    /// rule at or below low_window, where W_max is still recorded, as in
    /// Linux).
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u32, now: Time) -> f64 {
        self.undo_w_max = Some(self.w_max);
        self.end_round();
        let cwnd = w.cwnd;
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        if cwnd <= self.low_window {
            return Reno.ssthresh_after_loss(w, flight, now);
        }
        (self.beta * cwnd).max(2.0)
    }

    /// Like Linux `bictcp_state(TCP_CA_Loss)`: forget W_max.
    fn on_timeout(&mut self, _now: Time) {
        self.w_max = 0.0;
        self.end_round();
    }

    fn on_undo(&mut self) {
        if let Some(w_max) = self.undo_w_max.take() {
            self.w_max = w_max;
        }
        self.end_round();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(x: f64, y: f64, tol: f64) -> bool {
        (x - y).abs() <= tol
    }

    /// Acknowledge one round (one RTT: `ceil(cwnd)` segments, one per ACK)
    /// and return the new window.
    fn one_rtt(bic: &mut Bic, w: &mut Window) -> f64 {
        let n = w.cwnd.ceil() as u32;
        for _ in 0..n {
            bic.on_ack(w, 1, 0, None);
        }
        w.cwnd
    }

    /// A loss at `cwnd`; the sender then sets cwnd = ssthresh.
    fn loss(bic: &mut Bic, w: &mut Window, cwnd: f64) {
        w.cwnd = cwnd;
        w.ssthresh = bic.ssthresh_after_loss(w, cwnd as u32, 0);
        w.cwnd = w.ssthresh;
    }

    #[test]
    fn binary_search_halves_distance_to_w_max() {
        let mut bic = Bic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 1.0,
        };
        loss(&mut bic, &mut w, 100.0);
        assert_eq!(bic.w_max(), Some(100.0));
        assert!(close(w.cwnd, 80.0, 1e-12));
        // Each RTT moves cwnd to the midpoint of cwnd and W_max: the
        // per-RTT increments are 10, 5, 2.5, ...
        let mut dist = 20.0;
        for _ in 0..8 {
            let before = w.cwnd;
            let after = one_rtt(&mut bic, &mut w);
            assert!(
                close(after - before, dist / 2.0, 1e-9),
                "{before} -> {after}"
            );
            dist /= 2.0;
            assert!(close(100.0 - after, dist, 1e-9));
        }
    }

    #[test]
    fn additive_increase_caps_at_s_max() {
        let mut bic = Bic::default();
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: 1.0,
        };
        loss(&mut bic, &mut w, 1000.0);
        assert!(close(w.cwnd, 800.0, 1e-9));
        // Distance 200: half of it (100) is capped at S_max = 32 until the
        // distance falls below 64, then binary search.
        let expected = [832.0, 864.0, 896.0, 928.0, 960.0, 980.0, 990.0, 995.0];
        for e in expected {
            let got = one_rtt(&mut bic, &mut w);
            assert!(close(got, e, 1e-6), "{got} vs {e}");
        }
    }

    #[test]
    fn max_probing_above_w_max() {
        let mut bic = Bic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 1.0,
        };
        loss(&mut bic, &mut w, 100.0);
        // Start probing from exactly W_max: S_min, then the distance above
        // W_max doubles each RTT (slow start), then S_max per RTT.
        w.cwnd = 100.0;
        let mut inc = 0.01;
        while inc < 32.0 {
            let before = w.cwnd;
            let after = one_rtt(&mut bic, &mut w);
            assert!(close(after - before, inc, 1e-9), "{before} -> {after}");
            inc = (after - 100.0).min(32.0);
        }
        for _ in 0..3 {
            let before = w.cwnd;
            let after = one_rtt(&mut bic, &mut w);
            assert!(close(after - before, 32.0, 1e-9));
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut bic = Bic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 1.0,
        };
        loss(&mut bic, &mut w, 100.0);
        // Second loss below W_max: W_max := 90 (1 + 0.8) / 2 = 81.
        loss(&mut bic, &mut w, 90.0);
        assert!(close(bic.w_max().unwrap(), 81.0, 1e-9));
        assert!(close(w.cwnd, 72.0, 1e-9));
        // Undo restores the previous W_max.
        bic.on_undo();
        assert_eq!(bic.w_max(), Some(100.0));
        // Without fast convergence W_max is the window before the loss.
        let mut bic = Bic {
            fast_convergence: false,
            ..Bic::default()
        };
        loss(&mut bic, &mut w, 100.0);
        loss(&mut bic, &mut w, 90.0);
        assert_eq!(bic.w_max(), Some(90.0));
    }

    #[test]
    fn reno_below_low_window_and_timeout_reset() {
        let mut bic = Bic::default();
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        bic.on_ack(&mut w, 1, 0, None);
        assert!(close(w.cwnd, 10.1, 1e-12));
        assert_eq!(bic.ssthresh_after_loss(&w, 10, 0), 5.0);
        // W_max unknown: S_max per RTT.
        let mut bic = Bic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 1.0,
        };
        loss(&mut bic, &mut w, 100.0);
        bic.on_timeout(0);
        assert_eq!(bic.w_max(), None);
        let got = one_rtt(&mut bic, &mut w);
        assert!(close(got, 112.0, 1e-9), "{got}");
    }
}
