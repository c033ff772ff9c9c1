//! Maps keyed by segment number, with a hasher that costs one multiply.
//!
//! The standard map hashes with SipHash, which resists keys chosen by an
//! attacker; segment numbers come from the simulation itself. A multiply by
//! an odd constant is a bijection on the low bits, so consecutive segments
//! fall in distinct buckets. (SipHash was 1.2 % of `ref-tcppr-http`'s
//! instructions, from the retransmission log and the ground-truth ledger.)
//! The maps are never iterated in an order that reaches the results: sums
//! and counts only.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` keyed by segment number.
pub type SeqMap<V> = HashMap<u32, V, BuildHasherDefault<SeqHasher>>;

/// Hashes a `u32` by one multiplication (Knuth's multiplicative hashing,
/// with the 64-bit golden-ratio constant).
#[derive(Debug, Default, Clone, Copy)]
pub struct SeqHasher(u64);

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for SeqHasher {
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(GOLDEN);
    }

    /// Other keys (not used by the simulator) byte by byte.
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(GOLDEN);
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seq_map_is_a_map() {
        let mut m: SeqMap<u32> = SeqMap::default();
        for s in 0..10_000u32 {
            m.insert(s.wrapping_mul(7), s);
        }
        assert_eq!(m.len(), 10_000);
        assert_eq!(m.get(&(5u32 * 7)), Some(&5));
        m.retain(|_, v| *v % 2 == 0);
        assert_eq!(m.len(), 5_000);
        assert!(!m.contains_key(&7));
    }

    #[test]
    fn consecutive_segments_spread_over_the_low_bits() {
        let mut buckets = [0u32; 256];
        for s in 1000..1000 + 256 * 16u32 {
            let mut h = SeqHasher::default();
            h.write_u32(s);
            buckets[(h.finish() & 255) as usize] += 1;
        }
        assert!(buckets.iter().all(|&n| n == 16), "{buckets:?}");
    }
}
