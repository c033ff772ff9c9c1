//! DCTCP (RFC 8257; Linux `net/ipv4/tcp_dctcp.c`): Reno's growth, and a
//! reduction by the fraction of marked data instead of a halving.
//!
//! * alpha, the estimate of that fraction, starts at 1 (Linux
//!   `dctcp_alpha_on_init` = `DCTCP_MAX_ALPHA`) and is updated once per
//!   window of data, when SND.UNA passes the SND.NXT recorded at the
//!   last update: alpha = (1 - g) alpha + g F with g = 1/16 and F the
//!   share of the acknowledged data that carried ECN-Echo (RFC 8257
//!   Sec. 3.3; Linux `dctcp_update_alpha`, `dctcp_shift_g` = 4). Kept in
//!   the kernel's fixed point: 1024 = 1, `alpha -= alpha >> g`, then
//!   `+ (marked << (10 - g)) / acked`, at most 1024.
//! * on ECN-Echo, at most once per window: ssthresh = cwnd = max(cwnd x
//!   (1 - alpha / 2), 2) (RFC 8257 Sec. 3.3; Linux `dctcp_ssthresh`:
//!   `cwnd - ((cwnd * alpha) >> 11)`, at least 2).
//! * on a loss, Reno's halving (RFC 8257 Sec. 3.4; Linux
//!   `dctcp_react_to_loss`: `max(cwnd >> 1, 2)`).

use super::ops::{CongestionOps, Window};
use crate::engine::Time;

/// alpha's fixed point: 1024 is 1 (Linux `DCTCP_MAX_ALPHA`).
pub const MAX_ALPHA: u32 = 1024;
/// g = 1 / 2^SHIFT_G (Linux `dctcp_shift_g`, RFC 8257 Sec. 4.2: 1/16).
pub const SHIFT_G: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dctcp {
    /// The fraction of marked data, over 1024.
    pub alpha: u32,
    /// Segments acknowledged in this window, and of them with ECN-Echo.
    acked: u64,
    marked: u64,
    /// The window ends when SND.UNA reaches it (`next_seq`); none before
    /// the first ACK.
    next_seq: Option<u32>,
    /// The last reduction's window: no other until SND.UNA passes it.
    cwr_high: Option<u32>,
    /// Reductions on ECN-Echo.
    pub reductions: u64,
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp {
            alpha: MAX_ALPHA,
            acked: 0,
            marked: 0,
            next_seq: None,
            cwr_high: None,
            reductions: 0,
        }
    }
}

impl Dctcp {
    /// An ACK that acknowledged `acked` segments (a duplicate ACK counts
    /// one, as Linux counts it one MSS), with or without ECN-Echo; SND.UNA
    /// and SND.NXT after it. Updates alpha at the end of a window.
    pub fn on_ack_ecn(&mut self, acked: u32, ece: bool, una: u32, nxt: u32) {
        let acked = acked.max(1) as u64;
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
        let Some(end) = self.next_seq else {
            self.next_seq = Some(nxt);
            return;
        };
        if una >= end {
            self.update_alpha();
            self.next_seq = Some(nxt);
        }
    }

    /// alpha = (1 - g) alpha + g F, in the kernel's fixed point.
    fn update_alpha(&mut self) {
        let mut a = self.alpha - (self.alpha >> SHIFT_G);
        if self.marked > 0 {
            let f = (self.marked << (10 - SHIFT_G)) / self.acked.max(1);
            a = (a + f as u32).min(MAX_ALPHA);
        }
        self.alpha = a;
        self.acked = 0;
        self.marked = 0;
    }

    /// The window after ECN-Echo: max(cwnd (1 - alpha / 2), 2).
    pub fn reduced(&self, cwnd: f64) -> f64 {
        (cwnd - cwnd * self.alpha as f64 / (2 * MAX_ALPHA) as f64).max(2.0)
    }

    /// ECN-Echo on an ACK (SND.UNA `una`, SND.NXT `nxt`): reduce the
    /// window unless this window was reduced already. Whether it did.
    pub fn on_ece(&mut self, w: &mut Window, una: u32, nxt: u32) -> bool {
        if self.cwr_high.is_some_and(|h| una < h) {
            return false;
        }
        let c = self.reduced(w.cwnd);
        w.cwnd = c;
        w.ssthresh = c;
        self.cwr_high = Some(nxt);
        self.reductions += 1;
        true
    }
}

impl CongestionOps for Dctcp {
    /// Reno's growth (DCTCP runs over Reno).
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>) {
        super::Reno.on_ack(w, acked, now, srtt);
    }

    /// A loss: halve (RFC 8257 Sec. 3.4; Linux `dctcp_react_to_loss`).
    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u32, _now: Time) -> f64 {
        (w.cwnd / 2.0).floor().max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(cwnd: f64) -> Window {
        Window {
            cwnd,
            ssthresh: f64::INFINITY,
        }
    }

    #[test]
    fn alpha_starts_at_one_and_decays_by_a_sixteenth_per_unmarked_window() {
        let mut d = Dctcp::default();
        assert_eq!(d.alpha, 1024);
        d.on_ack_ecn(1, false, 1, 10); // the first ACK opens a window ending at 10
        d.on_ack_ecn(9, false, 10, 20); // window over, nothing marked
        assert_eq!(d.alpha, 1024 - 64);
        d.on_ack_ecn(10, false, 20, 30);
        assert_eq!(d.alpha, 960 - 60);
    }

    #[test]
    fn alpha_moves_a_sixteenth_toward_the_marked_fraction() {
        let mut d = Dctcp {
            alpha: 0,
            ..Default::default()
        };
        d.on_ack_ecn(1, false, 1, 11); // opens the window (one unmarked)
                                       // 10 segments in the window, 5 marked: F = 1/2, alpha = 1/32
        for i in 0..9 {
            d.on_ack_ecn(1, i % 2 == 0, 3 + i, 21 + i);
        }
        assert_eq!(d.alpha, 32, "{}", d.alpha);
        // the next window ends at 29: fully marked, + 1/16 of 1024, less
        // 1/16 of 32
        for i in 0..10 {
            d.on_ack_ecn(1, true, 20 + i, 31 + i);
        }
        assert_eq!(d.alpha, 32 - 2 + 64);
    }

    #[test]
    fn ece_reduces_by_half_alpha_once_per_window() {
        let mut d = Dctcp {
            alpha: 512, // a quarter of the data marked, steadily
            ..Default::default()
        };
        let mut w = window(40.0);
        assert!(d.on_ece(&mut w, 100, 140));
        assert_eq!((w.cwnd, w.ssthresh), (30.0, 30.0), "40 x (1 - 1/4)");
        assert!(!d.on_ece(&mut w, 120, 150), "same window: no second cut");
        assert_eq!(w.cwnd, 30.0);
        assert!(d.on_ece(&mut w, 140, 170));
        assert_eq!(w.cwnd, 22.5);
        let full = Dctcp::default();
        assert_eq!(full.reduced(40.0), 20.0, "alpha 1: halve");
        assert_eq!(full.reduced(3.0), 2.0, "at least 2");
    }

    #[test]
    fn a_loss_halves_and_growth_is_renos() {
        let mut d = Dctcp::default();
        let w = window(41.0);
        assert_eq!(d.ssthresh_after_loss(&w, 41, 0), 20.0);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        d.on_ack(&mut w, 1, 0, None);
        assert!((w.cwnd - 10.1).abs() < 1e-12);
    }
}
