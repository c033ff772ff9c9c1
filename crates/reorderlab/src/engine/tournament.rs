//! A winner tree (tournament tree, Knuth TAOCP Vol. 3, Sec. 5.4.1) over a
//! fixed set of slots, one per link: each slot holds at most one key, and
//! the tree gives the smallest key and its slot.
//!
//! Links are the simulator's busiest event source (one event per packet per
//! hop) and each has at most one pending event, the arrival of its FIFO's
//! head, so the slot of a link never moves. Changing a slot's key replays
//! the matches on its path to the root: one compare per level, no data
//! dependent branch and no event payload to move, where a heap's sift-down
//! chose among children at every level and moved entries around.

/// Key of a slot without a pending event (above every real key).
pub const EMPTY: u128 = u128::MAX;

#[derive(Debug)]
pub struct Tournament {
    /// Number of leaves, a power of two. Node `j` (1-based, children `2j`
    /// and `2j + 1`) holds the smallest key of its subtree and that key's
    /// slot; leaf of slot `s` is node `leaves + s`.
    leaves: usize,
    keys: Vec<u128>,
    slots: Vec<u32>,
    /// Slots holding a key.
    active: usize,
}

impl Default for Tournament {
    fn default() -> Tournament {
        Tournament::with_slots(1)
    }
}

impl Tournament {
    /// A tree for slots `0..n` (it grows if a larger slot is set).
    pub fn with_slots(n: usize) -> Tournament {
        let leaves = n.max(1).next_power_of_two();
        let mut t = Tournament {
            leaves,
            keys: vec![EMPTY; 2 * leaves],
            slots: vec![0; 2 * leaves],
            active: 0,
        };
        for s in 0..leaves {
            t.slots[leaves + s] = s as u32;
        }
        t
    }

    /// The smallest key and its slot; the key is [`EMPTY`] if no slot has one.
    #[inline]
    pub fn top(&self) -> (u128, u32) {
        (self.keys[1], self.slots[1])
    }

    /// Number of slots holding a key.
    pub fn len(&self) -> usize {
        self.active
    }

    pub fn is_empty(&self) -> bool {
        self.active == 0
    }

    /// The key of `slot` ([`EMPTY`] if none).
    pub fn key(&self, slot: u32) -> u128 {
        let s = slot as usize;
        if s < self.leaves {
            self.keys[self.leaves + s]
        } else {
            EMPTY
        }
    }

    /// Give `slot` the key `key` ([`EMPTY`] clears it) and replay its path.
    #[inline(always)]
    pub fn set(&mut self, slot: u32, key: u128) {
        let s = slot as usize;
        if s >= self.leaves {
            self.grow(s + 1);
        }
        let mut j = self.leaves + s;
        if self.keys[j] == EMPTY {
            self.active += 1;
        }
        if key == EMPTY {
            self.active -= 1;
        }
        let (mut k, mut w) = (key, slot);
        let (keys, slots) = (&mut self.keys[..], &mut self.slots[..]);
        // Both lengths are 2 * leaves, a power of two, so every node on the
        // path (j, its sibling j ^ 1 and the ancestors j >> n) is in range:
        // one check here instead of four per level.
        assert!(j < keys.len() && slots.len() == keys.len());
        keys[j] = key;
        while j > 1 {
            // SAFETY: j < keys.len() = slots.len() (asserted above, j only
            // shrinks), and j ^ 1 < keys.len() as that is a power of two.
            let (ks, ws) = unsafe { (*keys.get_unchecked(j ^ 1), *slots.get_unchecked(j ^ 1)) };
            (k, w) = play(k, w, ks, ws);
            j >>= 1;
            // SAFETY: as above.
            unsafe {
                *keys.get_unchecked_mut(j) = k;
                *slots.get_unchecked_mut(j) = w;
            }
        }
    }

    /// Rebuild with room for `n` slots, keeping every key.
    #[cold]
    fn grow(&mut self, n: usize) {
        let mut bigger = Tournament::with_slots(n);
        for s in 0..self.leaves {
            bigger.keys[bigger.leaves + s] = self.keys[self.leaves + s];
        }
        for j in (1..bigger.leaves).rev() {
            let (l, r) = (2 * j, 2 * j + 1);
            (bigger.keys[j], bigger.slots[j]) = play(
                bigger.keys[l],
                bigger.slots[l],
                bigger.keys[r],
                bigger.slots[r],
            );
        }
        bigger.active = self.active;
        *self = bigger;
    }
}

/// One match: the smaller of keys `k` and `ks` with its slot (`k` on a
/// tie; keys are unique anyway). Who wins is a coin toss the branch
/// predictor gets wrong half the time, and LLVM turns selects inside loops
/// back into branches (even `select_unpredictable`), so on x86-64 the
/// compare and the conditional moves are written out.
#[inline(always)]
fn play(k: u128, w: u32, ks: u128, ws: u32) -> (u128, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        let (mut lo, mut hi, mut w) = (k as u64, (k >> 64) as u64, w);
        // SAFETY: register-only instructions, no memory or stack access.
        unsafe {
            std::arch::asm!(
                // carry = ks < k, as 128-bit integers
                "cmp {slo}, {lo}",
                "mov {t}, {shi}",
                "sbb {t}, {hi}",
                "cmovb {lo}, {slo}",
                "cmovb {hi}, {shi}",
                "cmovb {w:e}, {sw:e}",
                slo = in(reg) ks as u64,
                shi = in(reg) (ks >> 64) as u64,
                sw = in(reg) ws,
                t = out(reg) _,
                lo = inout(reg) lo,
                hi = inout(reg) hi,
                w = inout(reg) w,
                options(pure, nomem, nostack),
            );
        }
        (((hi as u128) << 64) | lo as u128, w)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::hint::select_unpredictable(ks < k, (ks, ws), (k, w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random sets and clears against a brute-force minimum, across growth.
    #[test]
    fn top_is_the_smallest_key_of_all_slots() {
        let mut t = Tournament::with_slots(3);
        let mut model: Vec<u128> = Vec::new();
        let mut rng = crate::engine::Rng::from_seed(9);
        for _ in 0..5000 {
            let r = rng.next_u64();
            let slot = (r % 70) as u32;
            let key = if r.is_multiple_of(4) {
                EMPTY
            } else {
                ((r >> 8) % 1000) as u128
            };
            if model.len() <= slot as usize {
                model.resize(slot as usize + 1, EMPTY);
            }
            model[slot as usize] = key;
            t.set(slot, key);
            let best = model.iter().copied().min().unwrap_or(EMPTY);
            let (k, s) = t.top();
            assert_eq!(k, best);
            if k != EMPTY {
                assert_eq!(model[s as usize], k);
            }
            assert_eq!(t.len(), model.iter().filter(|&&k| k != EMPTY).count());
            assert_eq!(t.key(slot), key);
        }
    }

    #[test]
    fn a_match_keeps_the_smaller_128_bit_key() {
        let big = (1u128 << 64) | 5; // high word decides
        assert_eq!(play(big, 1, 7, 2), (7, 2));
        assert_eq!(play(7, 2, big, 1), (7, 2));
        // equal high words: the low word decides
        assert_eq!(play((3 << 64) | 9, 1, (3 << 64) | 8, 2), ((3 << 64) | 8, 2));
        assert_eq!(play((3 << 64) | 8, 1, (3 << 64) | 9, 2), ((3 << 64) | 8, 1));
        // a tie keeps the current winner
        assert_eq!(play(4, 1, 4, 2), (4, 1));
        assert_eq!(play(EMPTY, 1, EMPTY, 2), (EMPTY, 1));
        assert_eq!(play(EMPTY, 1, 0, 2), (0, 2));
    }

    #[test]
    fn empty_tree_has_no_top() {
        let mut t = Tournament::default();
        assert_eq!(t.top().0, EMPTY);
        t.set(5, 42);
        assert_eq!(t.top(), (42, 5));
        t.set(5, EMPTY);
        assert!(t.is_empty());
        assert_eq!(t.top().0, EMPTY);
    }
}
