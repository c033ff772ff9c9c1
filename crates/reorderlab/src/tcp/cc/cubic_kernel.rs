//! CUBIC in the kernel's integer arithmetic, for the `Linux` variants
//! (net/ipv4/tcp_cubic.c of 6.x, read for this model: `bictcp_update`,
//! `cubic_root`, `cubictcp_recalc_ssthresh`, `cubictcp_acked`,
//! `cubictcp_state`; net/ipv4/tcp_cong.c `tcp_cong_avoid_ai`).
//!
//! The curve is RFC 9438's ([`super::cubic`]), computed the way the kernel
//! does, which moves a whole window at small windows:
//! * time in jiffies (the timer tick, HZ 250 here) since the epoch began,
//!   plus the minimum RTT rounded up to jiffies, in units of 1/1024 s
//!   (`BICTCP_HZ`);
//! * K = cubic_root(2^40 / 410 x (W_max - cwnd)) by a 64-entry table and one
//!   Newton step (about 0.2 % off), W_max and the origin point in whole
//!   segments;
//! * target = origin -/+ (410 x |t - K|^3 >> 40), `cnt = cwnd / (target -
//!   cwnd)` (integer division; 100 cwnd at or above the target, at most 20
//!   before the first loss, at least 2), recomputed at most once per jiffy;
//! * the Reno-friendly estimate counts `cwnd x 15 / 8` acknowledged segments
//!   per segment of growth (beta 717 / 1024);
//! * cwnd grows by one every `cnt` acknowledged segments (`snd_cwnd_cnt`,
//!   `tcp_cong_avoid_ai`), so it stays a whole number;
//! * a loss: ssthresh = max(cwnd x 717 / 1024, 2), W_max = cwnd (fast
//!   convergence: cwnd x 1741 / 2048 below the old W_max), the epoch ends;
//!   a timeout (`cubictcp_state`, `TCP_CA_Loss`) forgets everything; an
//!   undo restores nothing here (`undo_cwnd` is `tcp_reno_undo_cwnd`).

use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;

use super::ops::Window;

/// `beta` / `BICTCP_BETA_SCALE`.
const BETA: u64 = 717;
const BETA_SCALE: u64 = 1024;
/// `bic_scale` x 10: C / RTT scaled by 1024 (`cube_rtt_scale`).
const CUBE_RTT_SCALE: u64 = 41 * 10;
/// 2^(10 + 3 BICTCP_HZ) / (bic_scale x 10) (`cube_factor`).
const CUBE_FACTOR: u64 = (1 << 40) / (41 * 10);
/// 8 (1024 + 717) / 3 / (1024 - 717) = 15 (`beta_scale`, TCP friendliness).
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);

/// cbrt(x << 18) - 1 for x in 0..64 (the kernel's table).
const CBRT_TABLE: [u8; 64] = [
    0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168,
    170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213,
    215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245,
    246, 248, 250, 251, 252, 254,
];

/// The cube root as the kernel computes it: the table on the top bits,
/// then one Newton-Raphson step x = (2x + a / x^2) / 3 (with x (x - 1) for
/// x^2 and x 341 / 1024 for / 3).
pub fn cubic_root(a: u64) -> u32 {
    let bits = 64 - a.leading_zeros();
    if bits < 7 {
        return (CBRT_TABLE[a as usize] as u32 + 35) >> 6;
    }
    let b = ((bits * 84) >> 8) - 1;
    let top = (a >> (b * 3)) as usize;
    let x = ((CBRT_TABLE[top] as u32 + 10) << b) >> 6;
    let x = (2 * x).wrapping_add((a / (x as u64 * (x as u64 - 1))) as u32);
    ((x as u64 * 341) >> 10) as u32
}

/// The kernel CUBIC's state (`struct bictcp` without HyStart's part,
/// which [`super::hystart`] keeps) and `snd_cwnd_cnt`.
#[derive(Debug, Clone, Copy)]
pub struct KernelCubic {
    /// The timer tick (`HZ`).
    pub hz: u32,
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u64,
    origin: u32,
    /// K in 1/1024 s.
    k: u64,
    /// The least RTT seen, microseconds (0: none).
    delay_min: u64,
    /// The epoch's first jiffy (`epoch_start`; `None` for 0).
    epoch_start: Option<u64>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// `tp->snd_cwnd_cnt`.
    cwnd_cnt: u32,
}

impl KernelCubic {
    pub fn new(hz: u32) -> KernelCubic {
        KernelCubic {
            hz: hz.max(1),
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin: 0,
            k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            cwnd_cnt: 0,
        }
    }

    fn jiffies(&self, now: Time) -> u64 {
        now / (NS_PER_SEC / self.hz as u64)
    }

    /// W_max in segments (0 before the first loss).
    pub fn last_max_cwnd(&self) -> u32 {
        self.last_max_cwnd
    }

    /// Segments acknowledged per segment of growth, as last computed.
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// `cubictcp_cong_avoid` past slow start: `bictcp_update`, then
    /// `tcp_cong_avoid_ai(tp, cnt, acked)`.
    pub fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time) {
        let cwnd = w.cwnd.max(1.0) as u32;
        self.update(cwnd, acked, self.jiffies(now));
        let step = self.cnt.max(1);
        let mut cwnd = cwnd;
        if self.cwnd_cnt >= step {
            self.cwnd_cnt = 0;
            cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= step {
            let more = self.cwnd_cnt / step;
            self.cwnd_cnt -= more * step;
            cwnd += more;
        }
        w.cwnd = cwnd as f64;
    }

    /// `bictcp_update`: the segments per growth step (`cnt`) for `cwnd`.
    fn update(&mut self, cwnd: u32, acked: u32, now_j: u64) {
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        if self.last_cwnd == cwnd && now_j.saturating_sub(self.last_time) <= (self.hz / 32) as u64 {
            return;
        }
        // At most once per jiffy, unless a reduction ended the epoch.
        if !(self.epoch_start.is_some() && now_j == self.last_time) {
            self.curve(cwnd, acked, now_j);
        }
        self.friendliness(cwnd);
        self.cnt = self.cnt.max(2);
    }

    /// The cubic function's part of `bictcp_update`.
    fn curve(&mut self, cwnd: u32, acked: u32, now_j: u64) {
        self.last_cwnd = cwnd;
        self.last_time = now_j;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now_j);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin = cwnd;
                } else {
                    let gap = (self.last_max_cwnd - cwnd) as u64;
                    self.k = cubic_root(CUBE_FACTOR * gap) as u64;
                    self.origin = self.last_max_cwnd;
                }
                now_j
            }
        };
        let hz = self.hz as u64;
        // usecs_to_jiffies(delay_min), then jiffies to 1/1024 s.
        let min_rtt_j = (self.delay_min * hz).div_ceil(1_000_000);
        let t = ((now_j - start + min_rtt_j) << 10) / hz;
        let offs = t.abs_diff(self.k);
        let delta = ((CUBE_RTT_SCALE * offs * offs * offs) >> 40) as u32;
        let target = if t < self.k {
            self.origin.wrapping_sub(delta)
        } else {
            self.origin.wrapping_add(delta)
        };
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }
    }

    /// `bictcp_update`'s TCP friendliness: the Reno estimate grows one
    /// segment per `cwnd x 15 / 8` acknowledged; if it is above cwnd, cwnd
    /// grows at least as fast.
    fn friendliness(&mut self, cwnd: u32) {
        let per = ((cwnd as u64 * FRIENDLY_SCALE) >> 3).max(1) as u32;
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
    }

    /// `cubictcp_recalc_ssthresh` (and `snd_cwnd_cnt = 0`,
    /// `tcp_init_cwnd_reduction` / `tcp_enter_loss`).
    pub fn ssthresh_after_loss(&mut self, w: &Window) -> f64 {
        let cwnd = w.cwnd.max(0.0) as u64;
        self.epoch_start = None;
        self.cwnd_cnt = 0;
        self.last_max_cwnd = if (cwnd as u32) < self.last_max_cwnd {
            (cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)) as u32
        } else {
            cwnd as u32
        };
        ((cwnd * BETA / BETA_SCALE).max(2)) as f64
    }

    /// `cubictcp_state(TCP_CA_Loss)` -> `bictcp_reset`: everything goes.
    pub fn on_timeout(&mut self) {
        *self = KernelCubic::new(self.hz);
    }

    /// `cubictcp_acked`: the least RTT (samples in the first second of an
    /// epoch are discarded). Returns whether the sample is that recent.
    pub fn on_rtt_sample(&mut self, rtt: Option<Time>, now: Time) -> bool {
        let now_j = self.jiffies(now);
        let recent = self
            .epoch_start
            .is_some_and(|s| now_j.saturating_sub(s) < self.hz as u64);
        if let (Some(r), false) = (rtt, recent) {
            let us = (r / 1000).max(1);
            if self.delay_min == 0 || us < self.delay_min {
                self.delay_min = us;
            }
        }
        recent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;
    use crate::num::cbrt;

    /// The table and Newton step against the true cube root: within 1 %
    /// on the arguments K is taken of (2^40 / 410 x a window gap of at
    /// least one segment; the kernel documents about 0.2 % on average),
    /// exact on small cubes, coarse in between (cubic_root(100) = 5).
    #[test]
    fn cubic_root_is_close_to_the_real_one() {
        for (a, r) in [(0u64, 0u32), (1, 1), (8, 2), (27, 3), (64, 4), (100, 5)] {
            assert_eq!(cubic_root(a), r, "{a}");
        }
        for gap in [1u64, 3, 30, 700, 3000, 100_000] {
            let a = CUBE_FACTOR * gap;
            let exact = cbrt(a as f64);
            let got = cubic_root(a) as f64;
            assert!((got - exact).abs() / exact < 0.01, "{a}: {got} vs {exact}");
        }
    }

    /// The conformance script recovery-full-ack: after a loss at cwnd 10
    /// (W_max 10, ssthresh 7) and the recovery's end at cwnd 7, the ACK
    /// of 9 segments in congestion avoidance grows cwnd to 8 (the float
    /// curve gives 7.44): target = 10 - floor(delta) = 8 with t about one
    /// RTT, cnt = 7 / (8 - 7) = 7, 9 segments >= 7.
    #[test]
    fn a_small_window_grows_by_a_whole_segment() {
        let mut c = KernelCubic::new(250);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        assert!(!c.on_rtt_sample(Some(ms(100)), ms(100)));
        w.ssthresh = c.ssthresh_after_loss(&w);
        assert_eq!(w.ssthresh, 7.0);
        assert_eq!(c.last_max_cwnd(), 10);
        w.cwnd = 7.0;
        c.on_ack(&mut w, 9, ms(300));
        assert_eq!(c.cnt(), 7);
        assert_eq!(w.cwnd, 8.0);
    }

    /// Fast convergence: a loss below the last W_max remembers 1741 / 2048
    /// of cwnd; a timeout forgets W_max.
    #[test]
    fn fast_convergence_and_timeout() {
        let mut c = KernelCubic::new(250);
        let w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        assert_eq!(c.ssthresh_after_loss(&w), 70.0);
        assert_eq!(c.last_max_cwnd(), 100);
        let w = Window {
            cwnd: 80.0,
            ssthresh: 70.0,
        };
        assert_eq!(c.ssthresh_after_loss(&w), 56.0);
        assert_eq!(c.last_max_cwnd(), 68);
        c.on_timeout();
        assert_eq!(c.last_max_cwnd(), 0);
    }
}
