//! Packets by packet number: a deque indexed by packet number from the
//! lowest one still held, with links that skip the stretches already
//! taken out (acknowledged, declared lost or forgotten).
//!
//! Packet numbers only grow (RFC 9000 Sec. 12.3), so a sender's packets
//! are appended in order and leave from anywhere: an ACK frame's ranges
//! take out runs of them, loss detection takes them from the front. A
//! taken slot stays in the deque as a hole until the front passes it;
//! each hole records how far the next slot that may still hold a packet
//! is, and a search compresses those links as it walks (the
//! "find the next free slot" structure with path compression), so an
//! ACK that repeats old ranges costs a step or two per range, not a walk
//! over every packet they cover.

use std::collections::VecDeque;

#[derive(Debug, Clone)]
struct Slot<T> {
    val: Option<T>,
    /// For a hole: the distance to a later slot with no hole between
    /// (at least 1); unused while the slot holds a value.
    skip: u32,
}

/// Values keyed by packet number, appended in ascending order.
#[derive(Debug, Clone)]
pub struct PnQueue<T> {
    slots: VecDeque<Slot<T>>,
    /// The packet number of `slots[0]` (the next one to append when
    /// empty).
    base: u64,
    len: usize,
}

impl<T> Default for PnQueue<T> {
    fn default() -> Self {
        PnQueue {
            slots: VecDeque::new(),
            base: 0,
            len: 0,
        }
    }
}

impl<T: Copy> PnQueue<T> {
    /// Values held.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The lowest packet number held, if any.
    pub fn first_pn(&self) -> Option<u64> {
        (self.len > 0).then_some(self.base)
    }

    /// The value with the lowest packet number.
    pub fn first(&self) -> Option<&T> {
        self.slots.front().and_then(|s| s.val.as_ref())
    }

    /// Append `val` under `pn`, above every number held or taken before.
    pub fn push(&mut self, pn: u64, val: T) {
        if self.len == 0 {
            // nothing held: restart at pn (the holes are gone)
            self.slots.clear();
            self.base = pn;
        }
        let end = self.base + self.slots.len() as u64;
        assert!(pn >= end, "packet number {pn} below {end}");
        for _ in end..pn {
            self.slots.push_back(Slot { val: None, skip: 1 });
        }
        self.slots.push_back(Slot {
            val: Some(val),
            skip: 1,
        });
        self.len += 1;
    }

    /// Take the value with the lowest packet number.
    pub fn pop_first(&mut self) -> Option<(u64, T)> {
        let v = self.slots.front_mut()?.val.take()?;
        let pn = self.base;
        self.len -= 1;
        self.trim_front();
        Some((pn, v))
    }

    /// Drop the holes at the front (so that the front holds a value).
    fn trim_front(&mut self) {
        while self.slots.front().is_some_and(|s| s.val.is_none()) {
            self.slots.pop_front();
            self.base += 1;
        }
        if self.len == 0 {
            self.base += self.slots.len() as u64;
            self.slots.clear();
        }
    }

    /// The index of the first slot at or after `i` that holds a value
    /// (`slots.len()` if none), compressing the links walked.
    fn find(&mut self, i: usize) -> usize {
        let n = self.slots.len();
        let mut j = i;
        while j < n && self.slots[j].val.is_none() {
            j += self.slots[j].skip as usize;
        }
        let mut k = i;
        while k < j.min(n) {
            let s = &mut self.slots[k];
            let next = k + s.skip as usize;
            s.skip = (j - k) as u32;
            k = next;
        }
        j
    }

    /// Take every value whose packet number is in one of `ranges`
    /// (inclusive, disjoint, ascending), in ascending order, into `out`.
    pub fn take_ranges<I>(&mut self, ranges: I, out: &mut Vec<(u64, T)>)
    where
        I: Iterator<Item = (u64, u64)>,
    {
        if self.len == 0 {
            return;
        }
        let n = self.slots.len();
        let start = out.len();
        for (lo, hi) in ranges {
            if hi < self.base {
                continue;
            }
            let lo = (lo.max(self.base) - self.base) as usize;
            if lo >= n {
                break;
            }
            let hi = ((hi - self.base) as usize).min(n - 1);
            let mut i = self.find(lo);
            while i <= hi {
                let v = self.slots[i].val.take().expect("found");
                self.slots[i].skip = 1;
                out.push((self.base + i as u64, v));
                i = self.find(i + 1);
            }
        }
        self.len -= out.len() - start;
        self.trim_front();
    }

    /// The values in ascending packet number.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> {
        let base = self.base;
        (self.slots.iter().enumerate())
            .filter_map(move |(i, s)| Some((base + i as u64, s.val.as_ref()?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pns(q: &PnQueue<u64>) -> Vec<u64> {
        q.iter().map(|(pn, _)| pn).collect()
    }

    #[test]
    fn ranges_take_what_is_held_in_order_and_skip_the_rest() {
        let mut q = PnQueue::default();
        for pn in 0..20u64 {
            q.push(pn, pn * 10);
        }
        let mut out = Vec::new();
        q.take_ranges([(2, 4), (8, 8)].into_iter(), &mut out);
        assert_eq!(out, vec![(2, 20), (3, 30), (4, 40), (8, 80)]);
        // the same ranges again take nothing; a wider one takes the rest
        out.clear();
        q.take_ranges([(2, 4), (8, 8)].into_iter(), &mut out);
        assert!(out.is_empty());
        q.take_ranges([(1, 9)].into_iter(), &mut out);
        assert_eq!(
            out.iter().map(|p| p.0).collect::<Vec<_>>(),
            vec![1, 5, 6, 7, 9]
        );
        assert_eq!(q.len(), 20 - 9);
        assert_eq!(q.first_pn(), Some(0));
        assert_eq!(q.pop_first(), Some((0, 0)));
        // the front skips the holes: 10 is next
        assert_eq!(q.first_pn(), Some(10));
        assert_eq!(pns(&q), (10..20).collect::<Vec<_>>());
        // ranges below the front or beyond the end take nothing
        out.clear();
        q.take_ranges([(0, 9), (25, 30)].into_iter(), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn gaps_in_pushes_are_holes_and_an_empty_queue_restarts() {
        let mut q = PnQueue::default();
        q.push(3, 1u64);
        q.push(7, 2);
        assert_eq!(pns(&q), vec![3, 7]);
        let mut out = Vec::new();
        q.take_ranges([(0, 5)].into_iter(), &mut out);
        assert_eq!(out, vec![(3, 1)]);
        assert_eq!(q.first_pn(), Some(7));
        q.take_ranges([(7, 7)].into_iter(), &mut out);
        assert!(q.is_empty() && q.first_pn().is_none());
        q.push(100, 3);
        assert_eq!(pns(&q), vec![100]);
    }

    #[test]
    fn compressed_links_stay_correct_when_holes_grow_on_both_sides() {
        // a model check against a plain set, on a scripted pattern
        let mut q = PnQueue::default();
        let mut model = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for pn in 0..200u64 {
            q.push(pn, pn);
            model.insert(pn);
        }
        let mut x = 12345u64;
        for _ in 0..300 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let lo = (x >> 33) % 200;
            let hi = (lo + (x >> 20) % 7).min(199);
            out.clear();
            q.take_ranges(std::iter::once((lo, hi)), &mut out);
            let want: Vec<u64> = model.range(lo..=hi).copied().collect();
            for pn in &want {
                model.remove(pn);
            }
            assert_eq!(out.iter().map(|p| p.0).collect::<Vec<_>>(), want);
            assert_eq!(q.len(), model.len());
            assert_eq!(q.first_pn(), model.first().copied());
        }
    }
}
