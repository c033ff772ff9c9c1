//! CUBIC, RFC 9438 (Xu, Ha, Rhee, Goel, Eggert, 2023).
//!
//! * Sec. 4.2, window increase function: `W_cubic(t) = C (t - K)^3 +
//!   W_max` with `K = cubic_root((W_max - cwnd_epoch) / C)` (Figure 2),
//!   where t is the time since the current congestion avoidance stage
//!   began (t_epoch, the first ACK in congestion avoidance after a
//!   congestion event) and cwnd_epoch the window then. After a reduction
//!   cwnd_epoch = beta_cubic W_max, so `K = cubic_root(W_max (1 -
//!   beta_cubic) / C)`. Each new ACK aims at `target = W_cubic(t + RTT)`,
//!   bounded to [cwnd, 1.5 cwnd], with RTT the smoothed RTT (the `srtt`
//!   argument; 0 before the first sample).
//! * Sec. 4.3, Reno-friendly region: `W_est` starts at cwnd_epoch and grows
//!   by `alpha_cubic segments_acked / cwnd` per ACK, `alpha_cubic = 3 (1 -
//!   beta_cubic) / (1 + beta_cubic)`, and by 1 once `W_est >= cwnd_prior`.
//!   If `W_cubic(t) < W_est`, cwnd is set to W_est (never lowered).
//! * Sec. 4.4 / 4.5, concave (cwnd < W_max) and convex regions: cwnd grows
//!   by `(target - cwnd) / cwnd` per acknowledged segment (Linux counts
//!   segments, the RFC says "per new ACK"; they agree without delayed
//!   ACKs), never past target.
//! * Sec. 4.6, multiplicative decrease: `ssthresh = max(flight_size
//!   beta_cubic, 2)`, cwnd_prior = cwnd.
//! * Sec. 4.7, fast convergence (on by default, as in Linux; the RFC says
//!   to disable it for a single flow alone): `W_max = cwnd (1 +
//!   beta_cubic) / 2` if cwnd < W_max, else `W_max = cwnd`.
//! * Sec. 4.8, timeout: the epoch is reset; in the first congestion
//!   avoidance stage afterwards K = 0 and W_max = W_est = cwnd_epoch.
//! * Sec. 4.9.2, spurious congestion events: W_max, K, t_epoch, W_est and
//!   cwnd_prior saved at the congestion event are restored by `on_undo`
//!   (the sender restores cwnd and ssthresh).
//! * Sec. 4.10, slow start: Reno's. If congestion avoidance begins before
//!   any congestion event, W_max = cwnd_prior = cwnd_epoch and K = 0.
//!
//! Slow start may end early by Linux's HyStart ([`super::hystart`]) when
//! the sender composition asks for it. Not modelled: excluding
//! application-limited periods from t (Sec. 4.2; the senders here are
//! bulk), RFC 9406's HyStart++.

use super::cubic_kernel::KernelCubic;
use super::hystart::HyStart;
use super::ops::{AckSample, CongestionOps, Window};
use super::reno::Reno;
use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;
use crate::num::cbrt;

/// RFC 9438 Sec. 5.1: C, in segments / second^3.
pub const C: f64 = 0.4;
/// RFC 9438 Sec. 4.6: the multiplicative decrease factor.
pub const BETA_CUBIC: f64 = 0.7;

/// The state of one congestion avoidance epoch (RFC 9438 Sec. 4.1.2).
#[derive(Debug, Clone, Copy, Default)]
struct Epoch {
    /// W_max in segments; 0 before the first congestion event.
    w_max: f64,
    /// K in seconds.
    k: f64,
    /// t_epoch; `None` until the first ACK of the epoch.
    t_epoch: Option<Time>,
    /// cwnd at t_epoch.
    cwnd_epoch: f64,
    /// W_est (Reno-friendly estimate).
    w_est: f64,
    /// cwnd when ssthresh was last set; 0 before.
    cwnd_prior: f64,
    /// The next epoch is the first after a timeout (Sec. 4.8).
    after_timeout: bool,
}

/// CUBIC (RFC 9438).
#[derive(Debug, Clone)]
pub struct Cubic {
    /// C (0.4).
    pub c: f64,
    /// beta_cubic (0.7).
    pub beta_cubic: f64,
    /// Fast convergence (Sec. 4.7).
    pub fast_convergence: bool,
    /// Linux's HyStart, when the sender asks for it.
    pub hystart: Option<HyStart>,
    /// The kernel's integer arithmetic (the `Linux` variants): when set,
    /// congestion avoidance, the decrease and the timeout follow it
    /// instead of the RFC's curve in floating point.
    pub kernel: Option<Box<KernelCubic>>,
    s: Epoch,
    undo: Option<Epoch>,
}

impl Default for Cubic {
    fn default() -> Cubic {
        Cubic {
            c: C,
            beta_cubic: BETA_CUBIC,
            fast_convergence: true,
            hystart: None,
            kernel: None,
            s: Epoch::default(),
            undo: None,
        }
    }
}

fn secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

impl Cubic {
    /// alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic) (Sec. 4.3).
    pub fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.beta_cubic) / (1.0 + self.beta_cubic)
    }

    /// W_cubic(t) = C (t - K)^3 + W_max, t in seconds since t_epoch
    /// (Figure 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.s.k).powi(3) + self.s.w_max
    }

    /// W_max, or `None` before the first congestion event.
    pub fn w_max(&self) -> Option<f64> {
        (self.s.w_max > 0.0).then_some(self.s.w_max)
    }

    /// K in seconds of the current epoch.
    pub fn k(&self) -> f64 {
        self.s.k
    }

    /// W_est, the Reno-friendly estimate.
    pub fn w_est(&self) -> f64 {
        self.s.w_est
    }

    /// t_epoch, the start of the current congestion avoidance stage.
    pub fn t_epoch(&self) -> Option<Time> {
        self.s.t_epoch
    }

    /// Start a congestion avoidance stage at `now` with window `cwnd`.
    fn start_epoch(&mut self, cwnd: f64, now: Time) {
        let s = &mut self.s;
        s.t_epoch = Some(now);
        s.cwnd_epoch = cwnd;
        s.w_est = cwnd;
        if s.cwnd_prior <= 0.0 {
            s.cwnd_prior = cwnd;
        }
        if s.after_timeout || s.w_max <= 0.0 {
            // Sec. 4.8 (after a timeout) and Sec. 4.10 (no congestion
            // event yet): K = 0, W_max = cwnd_epoch.
            s.w_max = cwnd;
            s.k = 0.0;
        } else {
            // Figure 2; negative (a convex start) if cwnd_epoch > W_max.
            s.k = cbrt((s.w_max - cwnd) / self.c);
        }
        s.after_timeout = false;
    }
}

impl CongestionOps for Cubic {
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() {
            Reno.on_ack(w, acked, now, srtt);
            return;
        }
        if let Some(k) = self.kernel.as_mut() {
            k.on_ack(w, acked, now);
            return;
        }
        let t_epoch = match self.s.t_epoch {
            Some(t) => t,
            None => {
                self.start_epoch(w.cwnd, now);
                now
            }
        };
        let t = secs(now.saturating_sub(t_epoch));
        let rtt = srtt.map_or(0.0, secs);
        let segments_acked = acked as f64;

        // Sec. 4.3, Figure 4.
        let alpha = if self.s.w_est >= self.s.cwnd_prior {
            1.0
        } else {
            self.alpha_cubic()
        };
        self.s.w_est += alpha * segments_acked / w.cwnd;

        if self.w_cubic(t) < self.s.w_est {
            // Reno-friendly region.
            w.cwnd = w.cwnd.max(self.s.w_est);
        } else {
            // Concave or convex region (Secs. 4.4, 4.5).
            let target = self.w_cubic(t + rtt).clamp(w.cwnd, 1.5 * w.cwnd);
            w.cwnd += (target - w.cwnd) * (segments_acked / w.cwnd).min(1.0);
        }
    }

    /// Secs. 4.6-4.7: fast convergence, then ssthresh = flight_size
    /// beta_cubic (at least 2). The epoch ends; the next one starts at the
    /// first ACK in congestion avoidance.
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u32, _now: Time) -> f64 {
        if let Some(k) = self.kernel.as_mut() {
            return k.ssthresh_after_loss(w);
        }
        self.undo = Some(self.s);
        let cwnd = w.cwnd;
        let s = &mut self.s;
        s.w_max = if self.fast_convergence && cwnd < s.w_max {
            cwnd * (1.0 + self.beta_cubic) / 2.0
        } else {
            cwnd
        };
        s.cwnd_prior = cwnd;
        s.t_epoch = None;
        (flight as f64 * self.beta_cubic).max(2.0)
    }

    /// Sec. 4.8: reset the epoch; the next one has K = 0 and W_max =
    /// cwnd_epoch.
    fn on_timeout(&mut self, _now: Time) {
        if let Some(k) = self.kernel.as_mut() {
            k.on_timeout();
        }
        self.s.t_epoch = None;
        self.s.after_timeout = true;
        if let Some(h) = self.hystart.as_mut() {
            h.on_timeout();
        }
    }

    /// HyStart's samples; those of the first second of a congestion
    /// avoidance epoch are discarded, as Linux does (`cubictcp_acked`).
    fn on_ack_sample(&mut self, w: &mut Window, s: &AckSample) {
        let recent = match self.kernel.as_mut() {
            Some(k) => k.on_rtt_sample(s.rtt, s.now),
            None => self
                .s
                .t_epoch
                .is_some_and(|t| s.now.saturating_sub(t) < NS_PER_SEC),
        };
        if let Some(h) = self.hystart.as_mut() {
            h.on_ack(w, s, recent);
        }
    }

    /// Sec. 4.9.2: restore the state saved at the congestion event.
    fn on_undo(&mut self) {
        if self.kernel.is_some() {
            // `undo_cwnd` is `tcp_reno_undo_cwnd`: CUBIC's state stays.
            return;
        }
        if let Some(s) = self.undo.take() {
            self.s = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    const SEC: Time = NS_PER_SEC;

    fn close(x: f64, y: f64, tol: f64) -> bool {
        (x - y).abs() <= tol
    }

    /// A loss at window `cwnd` with as much in flight; the sender then sets
    /// cwnd = ssthresh.
    fn loss(c: &mut Cubic, w: &mut Window, cwnd: f64, now: Time) {
        w.cwnd = cwnd;
        w.ssthresh = c.ssthresh_after_loss(w, cwnd as u32, now);
        w.cwnd = w.ssthresh;
    }

    /// Acknowledge one segment per ACK, a window's worth of ACKs spread
    /// evenly over each RTT, from `start` until `end`.
    fn run(c: &mut Cubic, w: &mut Window, start: Time, end: Time, rtt: Time) -> Time {
        let mut now = start;
        while now < end {
            c.on_ack(w, 1, now, Some(rtt));
            now += (rtt as f64 / w.cwnd) as Time;
        }
        now
    }

    #[test]
    fn decrease_to_beta_and_w_cubic_with_rfc_constants() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        loss(&mut c, &mut w, 100.0, 0);
        // Sec. 4.6: cwnd after a loss = 0.7 W.
        assert!(close(w.cwnd, 70.0, 1e-12));
        assert_eq!(c.w_max(), Some(100.0));
        // The epoch starts at the first ACK after the congestion event.
        assert_eq!(c.t_epoch(), None);
        let t0 = 3 * SEC;
        c.on_ack(&mut w, 1, t0, Some(ms(100)));
        assert_eq!(c.t_epoch(), Some(t0));

        let (cc, beta, w_max) = (0.4_f64, 0.7_f64, 100.0_f64);
        let k = cbrt(w_max * (1.0 - beta) / cc);
        assert!(close(k, 4.2172, 1e-4), "{k}");
        assert!(close(c.k(), k, 1e-12));
        assert!(close(c.w_cubic(0.0), 70.0, 1e-9));
        assert!(close(c.w_cubic(k), 100.0, 1e-12));
        for t in [0.5, 1.0, 2.0, 3.0, 5.0, 6.0, 8.0] {
            let expect = cc * (t - k).powi(3) + w_max;
            assert!(close(c.w_cubic(t), expect, 1e-9), "t = {t}");
        }
        // Concave below K, convex above: W(K - 1) = 99.6, W(K + 1) = 100.4.
        assert!(close(c.w_cubic(k - 1.0), 99.6, 1e-9));
        assert!(close(c.w_cubic(k + 1.0), 100.4, 1e-9));
    }

    #[test]
    fn cwnd_follows_w_cubic_over_time() {
        // Long RTT, W_max = 100: the cubic function dominates W_est.
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        loss(&mut c, &mut w, 100.0, 0);
        let rtt = ms(100);
        let t0 = SEC;
        // K is set when the epoch starts, at the first ACK (at t0).
        let k = cbrt(100.0_f64 * 0.3 / 0.4);
        let mut now = t0;
        for t in [1.0, 2.0, k, k + 1.0] {
            let end = t0 + (t * SEC as f64) as Time;
            now = run(&mut c, &mut w, now, end, rtt);
            assert!(close(c.k(), k, 1e-12));
            let t_now = (now - t0) as f64 / SEC as f64;
            let expect = 0.4 * (t_now - k).powi(3) + 100.0;
            assert!(c.w_cubic(t_now) > c.w_est(), "t = {t}: not Reno-friendly");
            assert!(
                close(w.cwnd, expect, 1.0),
                "t = {t}: {} vs {expect}",
                w.cwnd
            );
        }
        // By K + 3 s (about 72 RTTs) W_est, growing 0.53 and then 1
        // segment per RTT from 70, has overtaken the flat part of the curve
        // (W_cubic(K + 3) = 110.8): the Reno-friendly region takes over.
        let end = t0 + ((k + 3.0) * SEC as f64) as Time;
        now = run(&mut c, &mut w, now, end, rtt);
        let t_now = (now - t0) as f64 / SEC as f64;
        assert!(c.w_est() > c.w_cubic(t_now));
        assert!(close(w.cwnd, c.w_est(), 1e-9));
    }

    #[test]
    fn reno_friendly_region_dominates_small_w_max_short_rtt() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        loss(&mut c, &mut w, 10.0, 0);
        assert!(close(w.cwnd, 7.0, 1e-12));
        let rtt = ms(10);
        // One RTT (7 ACKs): W_est grows by alpha_cubic / cwnd per ACK
        // (Figure 4), alpha_cubic = 3 * 0.3 / 1.7, about alpha_cubic per
        // RTT, and cwnd follows it.
        let alpha = 3.0 * (1.0 - 0.7) / (1.0 + 0.7);
        let mut w_est = 7.0;
        let mut now = 0;
        for _ in 0..7 {
            c.on_ack(&mut w, 1, now, Some(rtt));
            w_est += alpha / w_est;
            now += rtt / 7;
        }
        assert!(close(w.cwnd, c.w_est(), 1e-12));
        assert!(close(w.cwnd, w_est, 1e-9), "{} vs {w_est}", w.cwnd);
        assert!(w.cwnd - 7.0 > 0.5 && w.cwnd - 7.0 < alpha);
        // After 1 s (100 RTTs), cwnd is W_est, far above W_cubic(1) ~ 9.65,
        // and grows like Reno: one segment per RTT once W_est >= cwnd_prior.
        now = run(&mut c, &mut w, now, SEC, rtt);
        let t = now as f64 / SEC as f64;
        assert!(c.w_cubic(t) < 10.0);
        assert!(close(w.cwnd, c.w_est(), 1e-12));
        let before = w.cwnd;
        run(&mut c, &mut w, now, now + 10 * rtt, rtt);
        assert!(close(w.cwnd - before, 10.0, 0.5), "{before} -> {}", w.cwnd);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        loss(&mut c, &mut w, 100.0, 0);
        c.on_ack(&mut w, 1, SEC, Some(ms(100)));
        let k1 = c.k();
        let t1 = c.t_epoch();
        // A loss at 90 < W_max: W_max = 90 (1 + 0.7) / 2 = 76.5.
        loss(&mut c, &mut w, 90.0, 2 * SEC);
        assert!(close(c.w_max().unwrap(), 76.5, 1e-9));
        assert!(close(w.cwnd, 63.0, 1e-9));
        c.on_ack(&mut w, 1, 3 * SEC, Some(ms(100)));
        let k = cbrt((76.5_f64 - 63.0) / 0.4);
        assert!(close(c.k(), k, 1e-9), "{} vs {k}", c.k());
        // Without fast convergence W_max is the window before the loss.
        let mut nofc = Cubic {
            fast_convergence: false,
            ..Cubic::default()
        };
        let mut w2 = w;
        loss(&mut nofc, &mut w2, 100.0, 0);
        loss(&mut nofc, &mut w2, 90.0, SEC);
        assert_eq!(nofc.w_max(), Some(90.0));
        // Sec. 4.9.2: undoing the second reduction restores the epoch.
        let mut c = Cubic::default();
        loss(&mut c, &mut w, 100.0, 0);
        c.on_ack(&mut w, 1, SEC, Some(ms(100)));
        loss(&mut c, &mut w, 90.0, 2 * SEC);
        c.on_undo();
        assert_eq!(c.w_max(), Some(100.0));
        assert!(close(c.k(), k1, 1e-12));
        assert_eq!(c.t_epoch(), t1);
    }

    #[test]
    fn timeout_resets_epoch_with_k_zero() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        loss(&mut c, &mut w, 100.0, 0);
        c.on_ack(&mut w, 1, SEC, Some(ms(100)));
        assert!(c.k() > 4.0);
        // RTO: ssthresh from beta_cubic, cwnd = 1, epoch reset.
        w.ssthresh = c.ssthresh_after_loss(&w, 70, 2 * SEC);
        w.cwnd = 1.0;
        c.on_timeout(2 * SEC);
        assert_eq!(c.t_epoch(), None);
        assert!(close(w.ssthresh, 49.0, 1e-9));
        // Slow start (Reno) up to ssthresh, then the first congestion
        // avoidance stage: K = 0, W_max = W_est = cwnd_epoch.
        let mut now = 2 * SEC;
        while w.in_slow_start() {
            c.on_ack(&mut w, 1, now, Some(ms(100)));
            now += ms(1);
        }
        let cwnd_epoch = w.cwnd;
        c.on_ack(&mut w, 1, now, Some(ms(100)));
        assert_eq!(c.t_epoch(), Some(now));
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), Some(cwnd_epoch));
    }
}
