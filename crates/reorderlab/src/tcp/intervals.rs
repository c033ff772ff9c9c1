//! A set of segment numbers kept as sorted, disjoint, non-adjacent half-open
//! ranges. Used by the receiver (out-of-order data) and by the sender's
//! scoreboard (SACKed segments). Holes are few in practice, so operations
//! cost O(number of ranges touched), not O(window).

/// Sorted disjoint ranges `[start, end)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IntervalSet {
    ranges: Vec<(u32, u32)>,
}

impl IntervalSet {
    pub fn new() -> IntervalSet {
        IntervalSet::default()
    }

    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Index of the first range whose end is >= `x` (may touch `x`).
    fn first_touching(&self, x: u32) -> usize {
        self.ranges.partition_point(|&(_, e)| e < x)
    }

    pub fn contains(&self, x: u32) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        i < self.ranges.len() && self.ranges[i].0 <= x
    }

    /// The range containing `x`, if any.
    pub fn range_containing(&self, x: u32) -> Option<(u32, u32)> {
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        (i < self.ranges.len() && self.ranges[i].0 <= x).then(|| self.ranges[i])
    }

    /// Insert `[start, end)`, calling `on_new` for each sub-range that was not
    /// in the set before. Returns the number of new elements.
    pub fn insert_with(&mut self, start: u32, end: u32, mut on_new: impl FnMut(u32, u32)) -> u32 {
        if start >= end {
            return 0;
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
        self.ranges
            .splice(i..j, std::iter::once((new_start, new_end)));
        added
    }

    pub fn insert(&mut self, start: u32, end: u32) -> u32 {
        self.insert_with(start, end, |_, _| {})
    }

    /// Remove everything below `x`.
    pub fn trim_below(&mut self, x: u32) {
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        self.ranges.drain(..i);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(x);
        }
    }

    /// If the lowest range starts at `x`, remove it and return its end.
    pub fn pop_front_if_starts_at(&mut self, x: u32) -> Option<u32> {
        match self.ranges.first() {
            Some(&(s, e)) if s == x => {
                self.ranges.remove(0);
                Some(e)
            }
            _ => None,
        }
    }

    /// Number of elements `>= x`.
    pub fn count_at_or_above(&self, x: u32) -> u32 {
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        self.ranges[i..].iter().map(|&(s, e)| e - s.max(x)).sum()
    }

    /// The `k`-th highest element (k = 1 is the maximum), if the set has at
    /// least `k` elements.
    pub fn kth_highest(&self, k: u32) -> Option<u32> {
        let mut left = k;
        for &(s, e) in self.ranges.iter().rev() {
            let n = e - s;
            if n >= left {
                return Some(e - left);
            }
            left -= n;
        }
        None
    }

    pub fn highest(&self) -> Option<u32> {
        self.ranges.last().map(|&(_, e)| e - 1)
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
}
