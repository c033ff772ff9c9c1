//! Link-layer ARQ as the error module of the wwan paper (Sec. III) models it: a
//! frame is retried until it gets through, each attempt failing with the
//! same probability, with one link round-trip time between attempts. As in
//! that ns-2 module, retries delay the frame but do not occupy the link.
//!
//! * out-of-order delivery: each frame is passed on as soon as it gets
//!   through;
//! * in-order delivery: a frame is passed on only after every frame that
//!   arrived before it (the receiver holds frames behind a gap), so its
//!   release time is the maximum of its own and its predecessor's.

use crate::engine::time::after;
use crate::engine::{Rng, Time};

#[derive(Debug, Clone)]
pub struct Arq {
    pub frame_error: f64,
    pub link_rtt: Time,
    pub in_order: bool,
    pub max_attempts: Option<u32>,
    /// Release time of the latest frame (in-order mode).
    last_release: Time,
    pub retransmissions: u64,
}

impl Arq {
    pub fn new(frame_error: f64, link_rtt: Time, in_order: bool, max_attempts: Option<u32>) -> Arq {
        Arq {
            frame_error,
            link_rtt,
            in_order,
            max_attempts,
            last_release: 0,
            retransmissions: 0,
        }
    }

    /// When a frame that arrived at `now` leaves the ARQ receiver, or `None`
    /// if it exhausted its attempts (dropped). `nothing_held` tells whether
    /// earlier frames are still held.
    pub fn release_time(&mut self, now: Time, nothing_held: bool, rng: &mut Rng) -> Option<Time> {
        let mut failures = 0u32;
        while rng.bernoulli(self.frame_error) {
            failures += 1;
            if self.max_attempts.is_some_and(|m| failures >= m) {
                self.retransmissions += failures.saturating_sub(1) as u64;
                return None;
            }
        }
        self.retransmissions += failures as u64;
        let ready = after(now, (failures as Time).saturating_mul(self.link_rtt));
        if !self.in_order {
            return Some(ready);
        }
        let release = if nothing_held {
            ready
        } else {
            ready.max(self.last_release)
        };
        self.last_release = release;
        Some(release)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    fn run(in_order: bool) -> (Vec<(Time, Time)>, u64) {
        let mut arq = Arq::new(0.1, ms(40), in_order, None);
        let mut rng = Rng::from_seed(12);
        let mut out = Vec::new();
        let mut last = 0;
        for i in 0..100_000u64 {
            let now = i * 1_000_000;
            // "nothing held" approximated by: the previous release is past.
            let r = arq.release_time(now, last <= now, &mut rng).unwrap();
            last = last.max(r);
            out.push((now, r));
        }
        (out, arq.retransmissions)
    }

    #[test]
    fn in_order_never_overtakes_and_out_of_order_never_waits() {
        let (ordered, _) = run(true);
        assert!(ordered.windows(2).all(|w| w[0].1 <= w[1].1));
        let (free, retx) = run(false);
        // Each frame leaves after a whole number of link RTTs.
        assert!(free.iter().all(|(a, r)| (r - a) % ms(40) == 0));
        // Geometric retries: mean p / (1 - p) per frame.
        let mean = retx as f64 / free.len() as f64;
        let expect = 0.1 / 0.9;
        let sd = (0.1f64).sqrt() / 0.9; // sd of a geometric count
        assert!((mean - expect).abs() < 5.0 * sd / (free.len() as f64).sqrt());
        // Some frames overtake in out-of-order mode.
        assert!(free.windows(2).any(|w| w[1].1 < w[0].1));
    }

    #[test]
    fn max_attempts_drops_the_frame() {
        let mut arq = Arq::new(1.0 - 1e-12, ms(40), false, Some(3));
        let mut rng = Rng::from_seed(1);
        assert_eq!(arq.release_time(0, true, &mut rng), None);
    }
}
