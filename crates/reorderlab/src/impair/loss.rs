//! Loss models: i.i.d., bursty drop episodes, Gilbert-Elliott and positioned
//! loss. Each decides per packet, from its own random stream.

use crate::engine::time::secs;
use crate::engine::{Rng, Time};
use crate::net::packet::Packet;
use crate::spec::{CopiesDropped, RandomVar};

/// Drop episodes (rr-tcp Sec. 5.8, Table 4): outside an episode each
/// packet starts one with probability `q`; during it every packet is lost.
#[derive(Debug, Clone)]
pub struct BurstLoss {
    pub q: f64,
    pub duration: RandomVar,
    until: Time,
    pub episodes: u64,
}

impl BurstLoss {
    pub fn new(q: f64, duration: RandomVar) -> BurstLoss {
        BurstLoss {
            q,
            duration,
            until: 0,
            episodes: 0,
        }
    }

    pub fn drops(&mut self, now: Time, rng: &mut Rng) -> bool {
        if now < self.until {
            return true;
        }
        if rng.bernoulli(self.q) {
            self.episodes += 1;
            self.until = now + secs(self.duration.sample(rng).max(0.0));
            return true;
        }
        false
    }
}

/// Gilbert-Elliott channel: a two-state Markov chain stepped once per packet.
/// Stationary loss rate: (p_bg loss_good + p_gb loss_bad) / (p_gb + p_bg).
#[derive(Debug, Clone)]
pub struct GilbertElliott {
    pub p_gb: f64,
    pub p_bg: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    bad: bool,
}

impl GilbertElliott {
    pub fn new(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64) -> GilbertElliott {
        GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
            bad: false,
        }
    }

    pub fn drops(&mut self, rng: &mut Rng) -> bool {
        let flip = if self.bad { self.p_bg } else { self.p_gb };
        if rng.bernoulli(flip) {
            self.bad = !self.bad;
        }
        rng.bernoulli(if self.bad {
            self.loss_bad
        } else {
            self.loss_good
        })
    }

    /// Long-run fraction of packets lost.
    pub fn stationary_loss(&self) -> f64 {
        let total = self.p_gb + self.p_bg;
        if total == 0.0 {
            return self.loss_good;
        }
        (self.p_bg * self.loss_good + self.p_gb * self.loss_bad) / total
    }
}

/// Drop chosen segments of one flow (tail-loss experiments of the tail-loss paper).
#[derive(Debug, Clone)]
pub struct Positioned {
    pub flow: u32,
    /// Sorted segment numbers.
    segments: Vec<u32>,
    copies: CopiesDropped,
}

impl Positioned {
    pub fn new(flow: u32, mut segments: Vec<u32>, copies: CopiesDropped) -> Positioned {
        segments.sort_unstable();
        segments.dedup();
        Positioned {
            flow,
            segments,
            copies,
        }
    }

    pub fn drops(&self, pkt: &Packet) -> bool {
        pkt.is_data()
            && pkt.flow == self.flow
            && (self.copies == CopiesDropped::All || pkt.copy == 0)
            && self.segments.binary_search(&pkt.seq).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    #[test]
    fn burst_episodes_start_at_rate_q_and_last_their_duration() {
        let mut b = BurstLoss::new(
            0.01,
            RandomVar::Uniform {
                low: 0.3,
                high: 0.4,
            },
        );
        let mut rng = Rng::from_seed(4);
        // One packet per ms for 2000 s.
        let n = 2_000_000u64;
        let mut dropped = 0u64;
        for i in 0..n {
            if b.drops(ms(i), &mut rng) {
                dropped += 1;
            }
        }
        // Cycle: a geometric wait of mean 1/q = 100 packets, then an episode
        // of mean 350 packets; the episode count is binomial-like with mean
        // n / 450.
        let expected_episodes = n as f64 / 450.0;
        let sd = expected_episodes.sqrt();
        assert!(
            (b.episodes as f64 - expected_episodes).abs() < 5.0 * sd,
            "episodes {}",
            b.episodes
        );
        let frac = dropped as f64 / n as f64;
        assert!(
            (frac - 350.0 / 450.0).abs() < 0.02,
            "dropped fraction {frac}"
        );
    }

    #[test]
    fn gilbert_elliott_reaches_its_stationary_loss() {
        let mut g = GilbertElliott::new(0.005, 0.3, 0.0, 1.0);
        let mut rng = Rng::from_seed(8);
        let n = 1_000_000;
        let lost = (0..n).filter(|_| g.drops(&mut rng)).count() as f64 / n as f64;
        let pi = g.stationary_loss();
        // Bursts have mean length 1/p_bg; variance inflates by about
        // (1 + 2 (1 - p_bg - p_gb) / (p_bg + p_gb)); use it for the tolerance.
        let rho = 1.0 - 0.3 - 0.005;
        let inflation = 1.0 + 2.0 * rho / (1.0 - rho);
        let se = (pi * (1.0 - pi) * inflation / n as f64).sqrt();
        assert!((lost - pi).abs() < 5.0 * se, "lost {lost} vs {pi}");
    }

    #[test]
    fn positioned_loss_hits_listed_segments_of_its_flow_only() {
        let p = Positioned::new(1, vec![9, 8], CopiesDropped::Original);
        let seg = |flow, seq, copy| Packet::data(flow, 0, 1000, seq, copy, 0);
        assert!(p.drops(&seg(1, 8, 0)) && p.drops(&seg(1, 9, 0)));
        assert!(!p.drops(&seg(1, 7, 0)) && !p.drops(&seg(0, 9, 0)));
        assert!(!p.drops(&seg(1, 9, 1)));
        let all = Positioned::new(1, vec![9], CopiesDropped::All);
        assert!(all.drops(&seg(1, 9, 3)));
    }
}
