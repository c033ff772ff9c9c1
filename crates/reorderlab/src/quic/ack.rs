//! ACK frames (RFC 9000 Sec. 19.3): the largest acknowledged packet
//! number, the ACK delay and ranges of acknowledged packet numbers; the
//! receiver's record of received packet numbers that they are made from;
//! and the table that carries a frame across the network (a [`Packet`]
//! is 64 bytes and `Copy`: an ACK packet carries its frame's slot).
//!
//! [`Packet`]: crate::net::packet::Packet

use crate::engine::Time;

/// One ACK frame. `ranges` are inclusive `(smallest, largest)` packet
/// number ranges, largest first and disjoint, as the frame's First ACK
/// Range and ACK Range fields encode them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AckFrame {
    pub largest: u64,
    /// Time between the receipt of `largest` and the frame's sending.
    pub ack_delay: Time,
    pub ranges: Vec<(u64, u64)>,
}

/// Received packet numbers as disjoint inclusive ranges, ascending; at
/// most `max` ranges are kept (the lowest are forgotten, as a receiver
/// with a bounded ACK range set does).
#[derive(Debug, Clone)]
pub struct RangeSet {
    ranges: std::collections::VecDeque<(u64, u64)>,
    max: usize,
}

impl RangeSet {
    pub fn new(max: usize) -> RangeSet {
        RangeSet {
            ranges: Default::default(),
            max: max.max(1),
        }
    }

    pub fn largest(&self) -> Option<u64> {
        self.ranges.back().map(|r| r.1)
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn contains(&self, pn: u64) -> bool {
        // new packets land near the top: look from there
        (self.ranges.iter().rev())
            .take_while(|r| r.1 >= pn)
            .any(|r| r.0 <= pn)
    }

    /// Add `pn`; whether it was new.
    pub fn insert(&mut self, pn: u64) -> bool {
        // the index of the first range whose end is >= pn - 1, searched
        // from the top (most arrivals extend the last range)
        let mut i = self.ranges.len();
        while i > 0 && self.ranges[i - 1].1 + 1 >= pn {
            i -= 1;
        }
        // ranges[i] is the first that ends at or after pn - 1
        if let Some(&(lo, hi)) = self.ranges.get(i) {
            if lo <= pn && pn <= hi {
                return false;
            }
            if hi + 1 == pn {
                self.ranges[i].1 = pn;
                // merge with the next if it now touches
                if let Some(&(nlo, nhi)) = self.ranges.get(i + 1) {
                    if nlo == pn + 1 {
                        self.ranges[i].1 = nhi;
                        self.ranges.remove(i + 1);
                    }
                }
                return true;
            }
            if pn + 1 == lo {
                self.ranges[i].0 = pn;
                return true;
            }
        }
        self.ranges.insert(i, (pn, pn));
        if self.ranges.len() > self.max {
            self.ranges.pop_front();
        }
        true
    }

    /// The frame's ranges, largest first, at most `max` of them, without
    /// those wholly below `floor`. The simulator passes the lowest packet
    /// number its sender still tracks (outstanding or kept as lost): the
    /// sender learns nothing from a range below it, when the frame is made
    /// or later (the number only grows), so leaving those ranges out of the
    /// copy changes nothing it sees (`floor` 0 keeps every range).
    pub fn fill(&self, out: &mut Vec<(u64, u64)>, max: usize, floor: u64) {
        out.clear();
        let top = self.ranges.iter().rev().take(max.max(1));
        out.extend(top.take_while(|r| r.1 >= floor).copied());
    }
}

/// ACK frames on their way across the network, by slot; an ACK packet's
/// `seq` names its slot. A slot is freed when its packet arrives or is
/// dropped.
#[derive(Debug, Clone, Default)]
pub struct AckSlab {
    frames: Vec<AckFrame>,
    free: Vec<u32>,
}

impl AckSlab {
    /// A free slot's frame to fill, and its slot.
    pub fn alloc(&mut self) -> (u32, &mut AckFrame) {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.frames.push(AckFrame::default());
                (self.frames.len() - 1) as u32
            }
        };
        (slot, &mut self.frames[slot as usize])
    }

    pub fn get(&self, slot: u32) -> &AckFrame {
        &self.frames[slot as usize]
    }

    pub fn frame_mut(&mut self, slot: u32) -> &mut AckFrame {
        &mut self.frames[slot as usize]
    }

    pub fn release(&mut self, slot: u32) {
        self.free.push(slot);
    }

    /// Slots in use (frames in the network).
    pub fn in_use(&self) -> usize {
        self.frames.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(s: &RangeSet) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        s.fill(&mut v, usize::MAX, 0);
        v
    }

    #[test]
    fn ranges_merge_split_and_cap() {
        let mut s = RangeSet::new(3);
        for pn in [0, 1, 2, 5, 4, 9] {
            assert!(s.insert(pn));
        }
        assert!(!s.insert(4));
        assert_eq!(ranges(&s), vec![(9, 9), (4, 5), (0, 2)]);
        assert!(s.insert(3));
        assert_eq!(ranges(&s), vec![(9, 9), (0, 5)]);
        assert!(s.contains(3) && !s.contains(7) && s.contains(9));
        for pn in [11, 13] {
            s.insert(pn);
        }
        // capped at 3: the lowest range is forgotten
        assert_eq!(ranges(&s), vec![(13, 13), (11, 11), (9, 9)]);
        let mut v = Vec::new();
        s.fill(&mut v, 2, 0);
        assert_eq!(v, vec![(13, 13), (11, 11)]);
        // ranges wholly below the floor are left out, one reaching it kept
        s.fill(&mut v, 3, 11);
        assert_eq!(v, vec![(13, 13), (11, 11)]);
        s.fill(&mut v, 3, 12);
        assert_eq!(v, vec![(13, 13)]);
        assert_eq!(s.largest(), Some(13));
    }

    #[test]
    fn slab_reuses_freed_slots() {
        let mut slab = AckSlab::default();
        let (a, f) = slab.alloc();
        f.largest = 7;
        let (b, _) = slab.alloc();
        assert_ne!(a, b);
        assert_eq!(slab.get(a).largest, 7);
        slab.release(a);
        assert_eq!(slab.alloc().0, a);
        assert_eq!(slab.in_use(), 2);
    }
}
