//! A set of segment numbers kept as sorted, disjoint, non-adjacent half-open
//! ranges. Used by the receiver (out-of-order data) and by the sender's
//! scoreboard (SACKed segments). Holes are few in practice, so operations
//! cost O(number of ranges touched), not O(window).

/// Sorted disjoint ranges `[start, end)`.
///
/// The live ranges are `ranges[head..]`: removing from the front (the
/// cumulative ACK passing a range) only moves `head`, and the dead prefix is
/// dropped once it is half the vector, so a front removal costs O(1)
/// amortized even with hundreds of holes (a `Vec::remove(0)` would move
/// every range behind it).
#[derive(Debug, Clone, Default)]
pub struct IntervalSet {
    ranges: Vec<(u32, u32)>,
    head: usize,
}

impl PartialEq for IntervalSet {
    fn eq(&self, other: &IntervalSet) -> bool {
        self.ranges() == other.ranges()
    }
}

impl Eq for IntervalSet {}

impl IntervalSet {
    pub fn new() -> IntervalSet {
        IntervalSet::default()
    }

    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges[self.head..]
    }

    pub fn is_empty(&self) -> bool {
        self.head == self.ranges.len()
    }

    /// Absolute index of the first live range whose end is >= `x` (may
    /// touch `x`).
    fn first_touching(&self, x: u32) -> usize {
        self.head + self.ranges().partition_point(|&(_, e)| e < x)
    }

    pub fn contains(&self, x: u32) -> bool {
        self.range_containing(x).is_some()
    }

    /// The range containing `x`, if any.
    pub fn range_containing(&self, x: u32) -> Option<(u32, u32)> {
        let live = self.ranges();
        let i = live.partition_point(|&(_, e)| e <= x);
        (i < live.len() && live[i].0 <= x).then(|| live[i])
    }

    /// Forget the first `n` live ranges.
    fn advance_head(&mut self, n: usize) {
        self.head += n;
        if self.head == self.ranges.len() {
            self.ranges.clear();
            self.head = 0;
        } else if self.head >= 16 && 2 * self.head >= self.ranges.len() {
            self.ranges.drain(..self.head);
            self.head = 0;
        }
    }

    /// Insert `[start, end)`, calling `on_new` for each sub-range that was not
    /// in the set before. Returns the number of new elements.
    #[inline]
    pub fn insert_with(&mut self, start: u32, end: u32, on_new: impl FnMut(u32, u32)) -> u32 {
        if start >= end {
            return 0;
        }
        self.insert_with_range(start, end, on_new).0
    }

    /// [`Self::insert_with`] of a non-empty `[start, end)`, also returning
    /// the range of the set that holds it afterwards.
    pub fn insert_with_range(
        &mut self,
        start: u32,
        end: u32,
        mut on_new: impl FnMut(u32, u32),
    ) -> (u32, (u32, u32)) {
        debug_assert!(start < end);
        // Most insertions are at the top: a new segment above every range
        // (the receiver), or a SACK block that extends the highest range
        // (the sender). Same result as the general case, without its
        // search.
        if let Some(last) = self.ranges.get_mut(self.head..).and_then(|r| r.last_mut()) {
            if start > last.1 {
                self.ranges.push((start, end));
                on_new(start, end);
                return (end - start, (start, end));
            }
            if start >= last.0 {
                if end <= last.1 {
                    return (0, *last);
                }
                let from = last.1;
                last.1 = end;
                let range = *last;
                on_new(from, end);
                return (end - from, range);
            }
        }
        let i = self.first_touching(start);
        let mut j = i;
        let mut cursor = start;
        let mut added = 0;
        let mut new_start = start;
        let mut new_end = end;
        while j < self.ranges.len() && self.ranges[j].0 <= end {
            let (s, e) = self.ranges[j];
            if s > cursor {
                on_new(cursor, s.min(end));
                added += s.min(end) - cursor;
            }
            cursor = cursor.max(e);
            new_start = new_start.min(s);
            new_end = new_end.max(e);
            j += 1;
        }
        if cursor < end {
            on_new(cursor, end);
            added += end - cursor;
        }
        self.replace(i, j, (new_start, new_end));
        (added, (new_start, new_end))
    }

    /// Replace the ranges `i..j` (absolute indices; `i == j` inserts) by
    /// `new`, moving whichever side of the vector is shorter: retransmissions
    /// fill holes from the front, and with thousands of holes (a 1 Gb/s
    /// window after a loss burst) moving the tail each time costs O(n^2).
    fn replace(&mut self, i: usize, j: usize, new: (u32, u32)) {
        let front = i - self.head;
        let back = self.ranges.len() - j;
        if j > i {
            let extra = j - i - 1;
            if front < back && extra > 0 {
                self.ranges.copy_within(self.head..i, self.head + extra);
                self.head += extra;
                self.ranges[j - 1] = new;
            } else {
                self.ranges[i] = new;
                self.ranges.drain(i + 1..j);
            }
        } else if self.head > 0 && front < back {
            self.ranges.copy_within(self.head..i, self.head - 1);
            self.head -= 1;
            self.ranges[i - 1] = new;
        } else {
            self.ranges.insert(i, new);
        }
    }

    pub fn insert(&mut self, start: u32, end: u32) -> u32 {
        self.insert_with(start, end, |_, _| {})
    }

    /// Remove everything below `x`.
    pub fn trim_below(&mut self, x: u32) {
        let i = self.ranges().partition_point(|&(_, e)| e <= x);
        self.advance_head(i);
        if let Some(first) = self.ranges.get_mut(self.head) {
            first.0 = first.0.max(x);
        }
    }

    /// If the lowest range starts at `x`, remove it and return its end.
    pub fn pop_front_if_starts_at(&mut self, x: u32) -> Option<u32> {
        match self.ranges().first() {
            Some(&(s, e)) if s == x => {
                self.advance_head(1);
                Some(e)
            }
            _ => None,
        }
    }

    /// Number of elements `>= x`.
    pub fn count_at_or_above(&self, x: u32) -> u32 {
        let live = self.ranges();
        let i = live.partition_point(|&(_, e)| e <= x);
        live[i..].iter().map(|&(s, e)| e - s.max(x)).sum()
    }

    /// The `k`-th highest element (k = 1 is the maximum), if the set has at
    /// least `k` elements.
    pub fn kth_highest(&self, k: u32) -> Option<u32> {
        let mut left = k;
        for &(s, e) in self.ranges().iter().rev() {
            let n = e - s;
            if n >= left {
                return Some(e - left);
            }
            left -= n;
        }
        None
    }

    pub fn highest(&self) -> Option<u32> {
        self.ranges().last().map(|&(_, e)| e - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_reports_only_new_parts() {
        let mut s = IntervalSet::new();
        assert_eq!(s.insert(5, 7), 2);
        assert_eq!(s.insert(10, 12), 2);
        let mut new = Vec::new();
        let added = s.insert_with(4, 11, |a, b| new.push((a, b)));
        assert_eq!(added, 4);
        assert_eq!(new, vec![(4, 5), (7, 10)]);
        assert_eq!(s.ranges(), &[(4, 12)]);
        // Adjacent ranges merge.
        s.insert(12, 13);
        assert_eq!(s.ranges(), &[(4, 13)]);
        assert_eq!(s.insert(6, 8), 0);
    }

    #[test]
    fn counting_and_kth_highest() {
        let mut s = IntervalSet::new();
        s.insert(2, 4);
        s.insert(6, 9);
        assert_eq!(s.count_at_or_above(0), 5);
        assert_eq!(s.count_at_or_above(3), 4);
        assert_eq!(s.count_at_or_above(7), 2);
        assert_eq!(s.kth_highest(1), Some(8));
        assert_eq!(s.kth_highest(3), Some(6));
        assert_eq!(s.kth_highest(4), Some(3));
        assert_eq!(s.kth_highest(6), None);
        assert!(s.contains(7) && !s.contains(5) && !s.contains(9));
        assert_eq!(s.range_containing(3), Some((2, 4)));
        s.trim_below(3);
        assert_eq!(s.ranges(), &[(3, 4), (6, 9)]);
        s.trim_below(7);
        assert_eq!(s.ranges(), &[(7, 9)]);
        assert_eq!(s.pop_front_if_starts_at(7), Some(9));
        assert!(s.is_empty());
    }

    /// Inserts around the highest range (the fast path: above it, touching
    /// it, inside it, reaching below it) report exactly the new elements,
    /// as maximal runs in increasing order, and keep the set right.
    #[test]
    fn inserts_at_the_top_report_the_new_runs() {
        use std::collections::BTreeSet;
        let mut rng = crate::engine::Rng::from_seed(8);
        let mut s = IntervalSet::new();
        let mut reference: BTreeSet<u32> = BTreeSet::new();
        for step in 0..20_000u32 {
            let r = rng.next_u64();
            let top = reference.last().copied().unwrap_or(0);
            let start = (top + 6).saturating_sub((r % 14) as u32);
            let end = start + 1 + (r >> 8) as u32 % 6;
            let mut got = Vec::new();
            let added = s.insert_with(start, end, |a, b| got.push((a, b)));
            let mut want: Vec<(u32, u32)> = Vec::new();
            for x in (start..end).filter(|x| !reference.contains(x)) {
                match want.last_mut() {
                    Some(run) if run.1 == x => run.1 += 1,
                    _ => want.push((x, x + 1)),
                }
            }
            assert_eq!(got, want, "step {step}");
            assert_eq!(added, want.iter().map(|&(a, b)| b - a).sum::<u32>());
            reference.extend(start..end);
            let flat: Vec<u32> = s.ranges().iter().flat_map(|&(a, b)| a..b).collect();
            assert!(flat.iter().copied().eq(reference.iter().copied()));
            assert!(s.ranges().windows(2).all(|w| w[0].1 < w[1].0));
            if r.is_multiple_of(50) {
                let low = top.saturating_sub(20);
                s.trim_below(low);
                reference.retain(|&x| x >= low);
            }
        }
    }

    /// Random inserts and front removals (enough ranges for the dead prefix
    /// to be dropped several times) agree with a plain set of numbers.
    #[test]
    fn matches_a_plain_set_under_random_inserts_and_trims() {
        use std::collections::BTreeSet;
        let mut rng = crate::engine::Rng::from_seed(5);
        let mut s = IntervalSet::new();
        let mut reference: BTreeSet<u32> = BTreeSet::new();
        let mut low = 0u32;
        for step in 0..5_000u32 {
            let r = rng.next_u64();
            match r % 10 {
                0 => {
                    low += (r >> 8) as u32 % 7;
                    s.trim_below(low);
                    reference.retain(|&x| x >= low);
                }
                1 => {
                    if let Some(e) = s.pop_front_if_starts_at(low) {
                        assert!((low..e).all(|x| reference.remove(&x)));
                        low = e;
                        s.trim_below(low);
                        reference.retain(|&x| x >= low);
                    }
                }
                _ => {
                    let start = low + (r >> 8) as u32 % 3000;
                    let end = start + 1 + (r >> 24) as u32 % 3;
                    let new = (start..end).filter(|x| !reference.contains(x)).count() as u32;
                    assert_eq!(s.insert(start, end), new, "step {step}");
                    reference.extend(start..end);
                }
            }
            let flat: Vec<u32> = s.ranges().iter().flat_map(|&(a, b)| a..b).collect();
            assert!(
                flat.iter().copied().eq(reference.iter().copied()),
                "step {step}"
            );
            assert!(
                s.ranges().windows(2).all(|w| w[0].1 < w[1].0),
                "disjoint, non-adjacent"
            );
            assert_eq!(s.is_empty(), reference.is_empty());
        }
    }
}
