//! A winner tree (tournament tree, Knuth TAOCP Vol. 3, Sec. 5.4.1) of the
//! links' head events: each link has at most one pending event, the arrival
//! of its FIFO's head, keyed by (time, insertion number); the tree gives the
//! smallest key and its link.
//!
//! Links are the simulator's busiest event source (one event per packet per
//! hop). Changing a leaf's key replays the matches on its path to the root:
//! one compare per level, no data-dependent branch and no event payload to
//! move, where a heap's sift-down chose among children at every level and
//! moved entries around.
//!
//! Two things keep the path short and each match cheap:
//!
//! * **Only links with a pending event hold a leaf.** A link takes a free
//!   leaf when its FIFO fills and gives it back when it empties, and the
//!   tree has as many leaves as the busiest moment needed (a power of two,
//!   shrunk again when three quarters stand empty). A 64-pair dumbbell has
//!   258 links, but a handful of them carry packets at any moment: 3-5
//!   levels instead of 9.
//! * **A match compares times only.** Times are 64-bit; the insertion
//!   number decides only between equal times. A match whose two times are
//!   equal then compares the two insertion numbers, at that level. Every
//!   node therefore always holds the exact winner of its subtree, and the
//!   order is exactly that of the full keys. (Links of equal delay meet
//!   equal times often: 8 % of the replays of `ref-gigabit` meet one, which
//!   a second, exact replay of the whole path, as before, cost 4 % of the
//!   run's time.) A free leaf holds a time above every real one (real times
//!   are below 2^63) and distinct per leaf, so free leaves never tie.

use super::time::Time;

/// No leaf / no link.
const NONE: u32 = u32::MAX;
/// Times at or above this mark a free leaf (`FREE - leaf`).
const FREE: u64 = u64::MAX;
const FREE_FLOOR: u64 = 1 << 63;
const MIN_LEAVES: usize = 4;

/// A node of the tree: the smallest time of its subtree and the leaf
/// holding it (a leaf: its own time and index). Time and winner side by
/// side, so a match reads its sibling from one place.
#[derive(Debug, Clone, Copy)]
struct Node {
    time: u64,
    winner: u32,
}

#[derive(Debug)]
pub struct Tournament {
    /// Number of leaves, a power of two. Node `j` (1-based, children `2j`
    /// and `2j + 1`) holds the smallest time of its subtree and the leaf
    /// holding it; leaf `i` is node `leaves + i`.
    leaves: usize,
    /// log2(leaves): the number of matches on a path.
    depth: u32,
    nodes: Vec<Node>,
    /// Per leaf: the insertion number of its key, and its link.
    seqs: Vec<u64>,
    leaf_link: Vec<u32>,
    /// Per link: its leaf, or [`NONE`].
    link_leaf: Vec<u32>,
    /// Free leaves (a stack).
    free: Vec<u32>,
}

impl Default for Tournament {
    fn default() -> Tournament {
        Tournament::with_slots(0)
    }
}

impl Tournament {
    /// A tree for links `0..n` (it grows if a larger link is set).
    pub fn with_slots(n: usize) -> Tournament {
        let mut t = Tournament {
            leaves: 0,
            depth: 0,
            nodes: Vec::new(),
            seqs: Vec::new(),
            leaf_link: Vec::new(),
            link_leaf: vec![NONE; n],
            free: Vec::new(),
        };
        t.rebuild(MIN_LEAVES);
        t
    }

    /// The smallest key: (time, insertion number, link), if any link has one.
    #[inline(always)]
    pub fn top(&self) -> Option<(Time, u64, u32)> {
        let Node { time, winner } = self.nodes[1];
        if time >= FREE_FLOOR {
            return None;
        }
        let leaf = winner as usize;
        Some((time, self.seqs[leaf], self.leaf_link[leaf]))
    }

    /// The smallest key as one 128-bit number `(time << 64) | insertion`
    /// (`u128::MAX` if none), to compare with other queues' keys.
    #[inline(always)]
    pub fn top_key(&self) -> u128 {
        match self.top() {
            Some((t, seq, _)) => ((t as u128) << 64) | seq as u128,
            None => u128::MAX,
        }
    }

    /// Number of links holding a key.
    pub fn len(&self) -> usize {
        self.leaves - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of `link`, if it has one.
    pub fn key(&self, link: u32) -> Option<(Time, u64)> {
        let leaf = *self.link_leaf.get(link as usize)?;
        (leaf != NONE).then(|| {
            (
                self.nodes[self.leaves + leaf as usize].time,
                self.seqs[leaf as usize],
            )
        })
    }

    /// Give `link` the key (`time`, `seq`) and replay its path.
    #[inline(always)]
    pub fn set(&mut self, link: u32, time: Time, seq: u64) {
        debug_assert!(time < FREE_FLOOR, "time {time} out of range");
        let leaf = match self.link_leaf.get(link as usize) {
            Some(&l) if l != NONE => l,
            _ => self.take_leaf(link),
        };
        self.seqs[leaf as usize] = seq;
        // Paths of the usual depths are replayed by straight-line code (no
        // loop counter or exit test per match: ~4 instructions per level).
        match self.depth {
            2 => self.replay_levels(leaf, time, 2),
            3 => self.replay_levels(leaf, time, 3),
            4 => self.replay_levels(leaf, time, 4),
            5 => self.replay_levels(leaf, time, 5),
            _ => self.replay(leaf, time),
        }
    }

    /// Remove `link`'s key (it has one) and free its leaf.
    #[inline]
    pub fn clear(&mut self, link: u32) {
        let leaf = self.link_leaf[link as usize];
        debug_assert_ne!(leaf, NONE, "link {link} has no key");
        self.link_leaf[link as usize] = NONE;
        self.leaf_link[leaf as usize] = NONE;
        self.free.push(leaf);
        self.replay(leaf, FREE - leaf as u64);
        if self.leaves > MIN_LEAVES && self.len() * 4 < self.leaves {
            self.rebuild(self.leaves / 2);
        }
    }

    /// A free leaf for `link` (the tree doubles when none is left).
    #[cold]
    fn take_leaf(&mut self, link: u32) -> u32 {
        if link as usize >= self.link_leaf.len() {
            self.link_leaf.resize(link as usize + 1, NONE);
        }
        if self.free.is_empty() {
            self.rebuild(self.leaves * 2);
        }
        let leaf = self.free.pop().expect("a free leaf after growing");
        self.link_leaf[link as usize] = leaf;
        self.leaf_link[leaf as usize] = link;
        leaf
    }

    /// Set leaf `leaf`'s time and replay the matches up to the root.
    #[inline(always)]
    fn replay(&mut self, leaf: u32, time: u64) {
        self.replay_levels(leaf, time, self.depth);
    }

    /// [`Tournament::replay`], the path's `levels` matches (the tree's
    /// depth) given: inlined with a constant, the loop is unrolled.
    #[inline(always)]
    fn replay_levels(&mut self, leaf: u32, time: u64, levels: u32) {
        debug_assert_eq!(self.depth, levels);
        let mut j = self.leaves + leaf as usize;
        let (nodes, seqs) = (&mut self.nodes[..], &self.seqs[..]);
        // There are 2 * leaves = 2^(levels + 1) nodes, so every node on the
        // path (j, its sibling j ^ 1 and the ancestors j >> n) is in range:
        // one check here instead of two per level.
        assert!(j < nodes.len() && nodes.len() == 2 << levels);
        nodes[j].time = time;
        let (mut k, mut w) = (time, leaf);
        for _ in 0..levels {
            // SAFETY: j < nodes.len() (asserted, j only shrinks), j ^ 1 <
            // nodes.len() (a power of two), and j >= 2 before each of the
            // `levels` = log2(nodes.len() / 2) matches.
            let sibling = unsafe { *nodes.get_unchecked(j ^ 1) };
            let (ks, ws) = (sibling.time, sibling.winner);
            let equal;
            (k, w, equal) = play(k, w, ks, ws);
            if equal && seqs[ws as usize] < seqs[w as usize] {
                w = ws;
            }
            j >>= 1;
            // SAFETY: as above.
            unsafe {
                *nodes.get_unchecked_mut(j) = Node { time: k, winner: w };
            }
        }
        debug_assert_eq!(j, 1);
    }

    /// Rebuild with `leaves` leaves (a power of two, at least the links
    /// holding keys), the links with keys in the first leaves.
    #[cold]
    fn rebuild(&mut self, leaves: usize) {
        let leaves = leaves.max(MIN_LEAVES).next_power_of_two();
        let mut held: Vec<(u32, u64, u64)> = (0..self.leaves)
            .filter(|&l| self.leaf_link[l] != NONE)
            .map(|l| {
                (
                    self.leaf_link[l],
                    self.nodes[self.leaves + l].time,
                    self.seqs[l],
                )
            })
            .collect();
        // Leaves in link order: the layout does not depend on history.
        held.sort_unstable();
        assert!(held.len() <= leaves);
        self.leaves = leaves;
        self.depth = leaves.trailing_zeros();
        self.nodes = vec![Node { time: 0, winner: 0 }; 2 * leaves];
        self.seqs = vec![0; leaves];
        self.leaf_link = vec![NONE; leaves];
        for (leaf, &(link, time, seq)) in held.iter().enumerate() {
            self.link_leaf[link as usize] = leaf as u32;
            self.leaf_link[leaf] = link;
            self.seqs[leaf] = seq;
            self.nodes[leaves + leaf].time = time;
        }
        for leaf in held.len()..leaves {
            self.nodes[leaves + leaf].time = FREE - leaf as u64;
        }
        // Lowest free leaf on top of the stack.
        self.free = (held.len() as u32..leaves as u32).rev().collect();
        for j in 0..leaves {
            self.nodes[leaves + j].winner = j as u32;
        }
        for j in (1..leaves).rev() {
            let (l, r) = (2 * j, 2 * j + 1);
            let (a, b) = (self.nodes[l], self.nodes[r]);
            let left = (a.time, self.seqs[a.winner as usize]);
            let right = (b.time, self.seqs[b.winner as usize]);
            let from = if right < left { r } else { l };
            self.nodes[j] = self.nodes[from];
        }
    }
}

/// One match: the earlier of times `k` and `ks` with its leaf (`k` on a
/// tie), and whether the times were equal (then the insertion numbers
/// decide: see [`Tournament::replay`]). Who wins is a coin toss the
/// branch predictor gets wrong half the time, and LLVM turns selects inside
/// loops back into branches (even `select_unpredictable`), so on x86-64 the
/// compare and the conditional moves are written out.
#[inline(always)]
fn play(k: u64, w: u32, ks: u64, ws: u32) -> (u64, u32, bool) {
    #[cfg(target_arch = "x86_64")]
    {
        let (mut k, mut w) = (k, w);
        let equal: u8;
        // SAFETY: register-only instructions, no memory or stack access.
        unsafe {
            std::arch::asm!(
                "cmp {k}, {ks}",
                "sete {eq}",
                "cmova {k}, {ks}",
                "cmova {w:e}, {ws:e}",
                ks = in(reg) ks,
                ws = in(reg) ws,
                eq = out(reg_byte) equal,
                k = inout(reg) k,
                w = inout(reg) w,
                options(pure, nomem, nostack),
            );
        }
        (k, w, equal != 0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (k2, w2) = std::hint::select_unpredictable(ks < k, (ks, ws), (k, w));
        (k2, w2, ks == k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random sets and clears against a brute-force minimum of the full
    /// keys, across growth and shrinking, with many equal times.
    #[test]
    fn top_is_the_smallest_key_of_all_links() {
        let mut t = Tournament::with_slots(3);
        let mut model: Vec<Option<(u64, u64)>> = Vec::new();
        let mut rng = crate::engine::Rng::from_seed(9);
        let mut seq = 0u64;
        for step in 0..20_000 {
            let r = rng.next_u64();
            // Phases of many and of few links, so the tree grows and shrinks.
            let span = if (step / 2000) % 2 == 0 { 70 } else { 6 };
            let link = (r % span) as u32;
            if model.len() <= link as usize {
                model.resize(link as usize + 1, None);
            }
            let clear = r.is_multiple_of(3) || (span == 6 && r % 5 == 1);
            if clear {
                if model[link as usize].is_some() {
                    t.clear(link);
                    model[link as usize] = None;
                }
            } else {
                // Few distinct times: ties are common.
                let time = (r >> 8) % 40;
                t.set(link, time, seq);
                model[link as usize] = Some((time, seq));
                seq += 1;
            }
            let best = model
                .iter()
                .enumerate()
                .filter_map(|(l, k)| k.map(|(tm, s)| (tm, s, l as u32)))
                .min();
            assert_eq!(t.top(), best, "step {step}");
            assert_eq!(t.len(), model.iter().filter(|k| k.is_some()).count());
            assert_eq!(t.key(link), model[link as usize]);
        }
    }

    #[test]
    fn equal_times_go_to_the_lower_insertion_number() {
        let mut t = Tournament::with_slots(8);
        t.set(5, 100, 7);
        t.set(2, 100, 9);
        t.set(6, 100, 3);
        assert_eq!(t.top(), Some((100, 3, 6)));
        t.set(6, 100, 11);
        assert_eq!(t.top(), Some((100, 7, 5)));
        t.clear(5);
        assert_eq!(t.top(), Some((100, 9, 2)));
    }

    #[test]
    fn a_match_keeps_the_earlier_time_and_notes_ties() {
        assert_eq!(play(9, 1, 7, 2), (7, 2, false));
        assert_eq!(play(7, 2, 9, 1), (7, 2, false));
        assert_eq!(play(4, 1, 4, 2), (4, 1, true));
        assert_eq!(play(FREE, 1, 0, 2), (0, 2, false));
        assert_eq!(play(FREE - 1, 1, FREE - 2, 2), (FREE - 2, 2, false));
    }

    #[test]
    fn empty_tree_has_no_top() {
        let mut t = Tournament::default();
        assert_eq!(t.top(), None);
        assert_eq!(t.top_key(), u128::MAX);
        t.set(5, 42, 0);
        assert_eq!(t.top(), Some((42, 0, 5)));
        t.clear(5);
        assert!(t.is_empty());
        assert_eq!(t.top(), None);
    }

    /// A link that held many leaves' worth of neighbours and is alone again
    /// sits in a small tree: the tree shrinks.
    #[test]
    fn the_tree_shrinks_when_links_go_quiet() {
        let mut t = Tournament::with_slots(300);
        for l in 0..300 {
            t.set(l, 1000 + l as u64, l as u64);
        }
        assert!(t.leaves >= 300);
        for l in 1..300 {
            t.clear(l);
        }
        assert!(t.leaves <= 8, "{} leaves", t.leaves);
        assert_eq!(t.top(), Some((1000, 0, 0)));
    }
}
