//! Deterministic random streams.
//!
//! Every component (a link's RED queue, an impairment element, a flow) draws
//! from its own stream whose seed is derived from (run seed, component kind,
//! component index). Adding a flow therefore never perturbs the draws of an
//! impairment or of another flow. The generator is xoshiro256** (Blackman &
//! Vigna 2018), seeded through SplitMix64 as its authors recommend.

use crate::num::{cos, ln};

/// Kinds of component that own a random stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Component {
    Link = 1,
    Impairment = 2,
    Flow = 3,
    Topology = 4,
    Traffic = 5,
    /// A fabric switch's load balancing (`net/balance.rs`).
    Switch = 6,
    /// A sender's REPS entropy values (`net/reps.rs`), per flow.
    Entropy = 7,
}

/// SplitMix64 step: a bijective 64-bit mixer.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A xoshiro256** generator.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Generator seeded directly from a 64-bit seed.
    pub fn from_seed(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// The stream of one component of a run.
    pub fn for_component(run_seed: u64, kind: Component, index: u64) -> Rng {
        let mut sm = run_seed;
        let a = splitmix64(&mut sm);
        let mut sm2 = a ^ (kind as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let b = splitmix64(&mut sm2);
        Rng::from_seed(b ^ index.wrapping_mul(0xA076_1D64_78BD_642F))
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the log is finite.
        -mean * ln(1.0 - self.uniform())
    }

    /// Standard normal draw (Box-Muller; one of the pair is discarded so the
    /// stream position does not depend on call history).
    pub fn standard_normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * ln(u1)).sqrt() * cos(std::f64::consts::TAU * u2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_components_differ() {
        let mut a = Rng::for_component(7, Component::Flow, 0);
        let mut b = Rng::for_component(7, Component::Flow, 0);
        let mut c = Rng::for_component(7, Component::Flow, 1);
        let mut d = Rng::for_component(7, Component::Link, 0);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        let xd: Vec<u64> = (0..8).map(|_| d.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
        assert_ne!(xa, xd);
    }

    #[test]
    fn uniform_mean_within_sampling_error() {
        let mut r = Rng::from_seed(42);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        // sd of U(0,1) is 1/sqrt(12); allow 5 standard errors.
        let se = (1.0 / 12.0f64).sqrt() / (n as f64).sqrt();
        assert!((mean - 0.5).abs() < 5.0 * se, "mean {mean}");
    }

    #[test]
    fn exponential_and_normal_moments() {
        let mut r = Rng::from_seed(3);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| r.exponential(2.0)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 5.0 * 2.0 / (n as f64).sqrt());
        let zs: Vec<f64> = (0..n).map(|_| r.standard_normal()).collect();
        let m = zs.iter().sum::<f64>() / n as f64;
        let v = zs.iter().map(|z| (z - m) * (z - m)).sum::<f64>() / n as f64;
        assert!(m.abs() < 5.0 / (n as f64).sqrt());
        // var of sample variance of N(0,1) is 2/n.
        assert!((v - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt());
    }
}
