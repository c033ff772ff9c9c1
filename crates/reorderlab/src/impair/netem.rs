//! Linux netem's reordering, `tc qdisc ... netem delay D reorder P% C%`:
//! each packet is either sent at once (with probability P, correlated by C)
//! or delayed by D; the packets sent at once overtake the delayed ones.
//!
//! As `net/sched/sch_netem.c` (`netem_enqueue`) does it with `gap` 1 (what
//! `tc` sets when `reorder` is given without `gap`): a packet goes to the
//! front of the queue, to leave now, when `q->reorder >=
//! get_crandom(&q->reorder_cor)`, else its time to send is now + D. The
//! correlated draw is `get_crandom`: answer = (value * (2^32 - rho) + last *
//! rho) >> 32 with rho = C * (2^32 - 1) + 1 and value a fresh uniform
//! 32-bit number; `tc` stores P and C as fractions of 2^32 - 1
//! (`percent_to_u32`). With C > 0 the draws are not uniform (they are
//! averages with the last), so the share of packets sent at once is below
//! P: `docs/impairments.md` gives the measured share.

use crate::engine::{Rng, Time};

/// netem's correlated random numbers (`struct crndstate`).
#[derive(Debug, Clone)]
pub struct Crandom {
    rho: u32,
    last: u32,
}

/// A probability as `tc` stores it: a fraction of 2^32 - 1.
pub fn fraction_to_u32(p: f64) -> u32 {
    (p.clamp(0.0, 1.0) * u32::MAX as f64).round() as u32
}

fn uniform_u32(rng: &mut Rng) -> u32 {
    (rng.next_u64() >> 32) as u32
}

impl Crandom {
    /// `init_crandom`: the first `last` is a random number.
    pub fn new(correlation: f64, rng: &mut Rng) -> Crandom {
        Crandom {
            rho: fraction_to_u32(correlation),
            last: uniform_u32(rng),
        }
    }

    /// `get_crandom`.
    pub fn next(&mut self, rng: &mut Rng) -> u32 {
        let value = uniform_u32(rng) as u64;
        if self.rho == 0 {
            return value as u32;
        }
        let rho = self.rho as u64 + 1;
        let answer = (value * ((1u64 << 32) - rho) + self.last as u64 * rho) >> 32;
        self.last = answer as u32;
        self.last
    }
}

/// netem's delay and reordering.
#[derive(Debug, Clone)]
pub struct Netem {
    pub delay: Time,
    reorder: u32,
    cor: Crandom,
    pub sent_at_once: u64,
}

impl Netem {
    pub fn new(delay: Time, reorder: f64, correlation: f64, rng: &mut Rng) -> Netem {
        Netem {
            delay,
            reorder: fraction_to_u32(reorder),
            cor: Crandom::new(correlation, rng),
            sent_at_once: 0,
        }
    }

    /// Whether the next packet leaves at once (else after the delay).
    pub fn at_once(&mut self, rng: &mut Rng) -> bool {
        // `netem_enqueue`: reordering needs a nonzero reorder probability
        // (q->gap is 1 then); `q->reorder < get_crandom()` delays
        if self.reorder == 0 {
            return false;
        }
        let once = self.reorder >= self.cor.next(rng);
        self.sent_at_once += once as u64;
        once
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(p: f64, c: f64, n: u64) -> f64 {
        let mut rng = Rng::from_seed(7);
        let mut q = Netem::new(0, p, c, &mut rng);
        (0..n).filter(|_| q.at_once(&mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn without_correlation_the_share_sent_at_once_is_p() {
        let n = 200_000;
        let s = share(0.25, 0.0, n);
        let se = (0.25 * 0.75 / n as f64).sqrt();
        assert!((s - 0.25).abs() < 5.0 * se, "{s}");
        assert_eq!(share(0.0, 0.5, 1000), 0.0);
        assert_eq!(share(1.0, 0.0, 1000), 1.0);
    }

    #[test]
    fn correlation_averages_with_the_last_draw_and_lowers_the_share() {
        // rho = 2^31: answer is about (value + last) / 2
        let mut rng = Rng::from_seed(3);
        let mut c = Crandom::new(0.5, &mut rng);
        let last = c.last as u64;
        let mut probe = rng.clone();
        let value = probe.next_u64() >> 32;
        let got = c.next(&mut rng) as u64;
        let rho = fraction_to_u32(0.5) as u64 + 1;
        assert_eq!(got, (value * ((1 << 32) - rho) + last * rho) >> 32);
        // the draws average a uniform with the last draw: far fewer fall
        // below 25 %; the share of `delay 5ms reorder 25% 50%` is about
        // 0.070 (the stationary law of X = (U + X') / 2; 10^6 draws)
        let s = share(0.25, 0.5, 1_000_000);
        assert!(s > 0.065 && s < 0.075, "{s}");
    }

    #[test]
    fn an_element_passes_the_chosen_packets_and_holds_the_rest_for_d() {
        use crate::impair::{Element, Verdict};
        use crate::net::packet::Packet;
        use crate::spec::{ImpairmentModel, Position};
        let model = ImpairmentModel::Netem {
            delay: 0.005,
            reorder: 0.25,
            correlation: 0.0,
            data_only: false,
        };
        let mut e = Element::new(0, Position::Ingress, 0, &model, 1, 0);
        let (mut passed, mut held) = (0, 0);
        for i in 0..10_000u32 {
            let now = i as u64 * 1000;
            match e.process(&Packet::data(0, 1, 1500, i, 0, now), now) {
                Verdict::Pass => passed += 1,
                Verdict::Hold => {
                    held += 1;
                    // the earliest held packet leaves D after its arrival
                    assert!(e.deadline().is_some_and(|d| d <= now + 5_000_000));
                }
                Verdict::Drop => panic!("netem drops nothing here"),
            }
        }
        assert_eq!(passed + held, 10_000);
        assert!((passed as f64 / 10_000.0 - 0.25).abs() < 0.03, "{passed}");
        assert_eq!(e.deadline(), Some(5_000_000 + first_held_arrival(&mut e)));
    }

    fn first_held_arrival(e: &mut crate::impair::Element) -> u64 {
        let ts: Vec<u64> = e.held_packets().iter().map(|p| p.ts).collect();
        *ts.iter().min().expect("held packets")
    }
}
