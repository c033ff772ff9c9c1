//! Ground truth about retransmissions, which only a simulator can know.
//!
//! A retransmission (copy k >= 1 of a segment) is *necessary* when every
//! earlier copy 0..k-1 was dropped by the network, and *spurious* otherwise.
//! Drops and retransmissions arrive in any order (a delayed copy can be
//! dropped after the retransmission left), so the ledger keeps, per segment
//! that was ever dropped or retransmitted, the set of dropped copies and the
//! cause of each retransmission, and counts a retransmission necessary as
//! soon as the run of leading dropped copies covers it.

use crate::tcp::seq_map::SeqMap;

/// Why a segment was retransmitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetxCause {
    /// Fast retransmit / loss recovery (dupthresh, SACK, RACK, TCP-PR ...).
    Fast = 0,
    /// Retransmission timeout.
    Timeout = 1,
    /// Tail loss probe.
    Probe = 2,
}

const CAUSES: usize = 3;
/// Copies tracked per segment (more are counted as spurious).
const MAX_COPIES: u16 = 64;

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    copies: u16,
    dropped: u64,
    /// Cause of copy k, two bits per copy, for k < 32.
    causes: u64,
}

impl Entry {
    fn leading_dropped(&self) -> u16 {
        self.dropped.trailing_ones() as u16
    }
    fn cause(&self, copy: u16) -> usize {
        if copy >= 32 {
            return RetxCause::Fast as usize;
        }
        ((self.causes >> (2 * copy)) & 3) as usize
    }
}

/// Per-flow ledger.
#[derive(Debug, Default)]
pub struct TruthLedger {
    entries: SeqMap<Entry>,
    retransmits: [u64; CAUSES],
    necessary: [u64; CAUSES],
    dropped_copies: u64,
}

impl TruthLedger {
    /// Copy `copy` (>= 1) of `seq` was sent for `cause`.
    pub fn on_retransmit(&mut self, seq: u32, copy: u16, cause: RetxCause) {
        self.retransmits[cause as usize] += 1;
        let e = self.entries.entry(seq).or_default();
        e.copies = e.copies.max(copy.saturating_add(1));
        if copy < 32 {
            e.causes |= (cause as u64) << (2 * copy);
        }
        if copy < MAX_COPIES && e.leading_dropped() >= copy {
            self.necessary[cause as usize] += 1;
        }
    }

    /// Copy `copy` of `seq` was dropped by the network.
    pub fn on_drop(&mut self, seq: u32, copy: u16) {
        self.dropped_copies += 1;
        if copy >= MAX_COPIES {
            return;
        }
        let e = self.entries.entry(seq).or_default();
        e.copies = e.copies.max(copy.saturating_add(1));
        let before = e.leading_dropped();
        e.dropped |= 1 << copy;
        let after = e.leading_dropped();
        // Retransmissions already sent whose earlier copies are now all
        // known dropped become necessary.
        for k in (before + 1)..=after {
            if k >= 1 && k < e.copies && k < MAX_COPIES {
                self.necessary[e.cause(k)] += 1;
            }
        }
    }

    pub fn retransmits(&self, cause: RetxCause) -> u64 {
        self.retransmits[cause as usize]
    }

    /// Spurious retransmissions of the given cause.
    pub fn spurious(&self, cause: RetxCause) -> u64 {
        self.retransmits[cause as usize] - self.necessary[cause as usize]
    }

    pub fn spurious_total(&self) -> u64 {
        (0..CAUSES)
            .map(|c| self.retransmits[c] - self.necessary[c])
            .sum()
    }

    pub fn dropped_copies(&self) -> u64 {
        self.dropped_copies
    }

    /// Segments in `range` sent more than once, and the retransmissions of
    /// the segments in `range`.
    pub fn retransmitted_in(&self, range: std::ops::Range<u32>) -> (u32, u64) {
        self.entries
            .iter()
            .filter(|(seq, e)| range.contains(seq) && e.copies > 1)
            .fold((0, 0), |(n, r), (_, e)| (n + 1, r + e.copies as u64 - 1))
    }

    /// Segments in `range` of which at least one copy was dropped (the tail-loss paper
    /// selects flows "with at least one loss in the four last segments").
    pub fn segments_dropped_in(&self, range: std::ops::Range<u32>) -> u32 {
        self.entries
            .iter()
            .filter(|(seq, e)| range.contains(seq) && e.dropped != 0)
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_segments_with_a_drop_in_a_range() {
        let mut t = TruthLedger::default();
        t.on_drop(6, 0);
        t.on_drop(9, 0);
        t.on_drop(9, 1);
        t.on_retransmit(8, 1, RetxCause::Fast); // retransmitted, never dropped
        assert_eq!(t.segments_dropped_in(6..10), 2);
        assert_eq!(t.segments_dropped_in(7..10), 1);
        assert_eq!(t.segments_dropped_in(0..6), 0);
        // 8 once retransmitted, 9 dropped twice (so sent at least twice);
        // 6 dropped once and never resent yet.
        assert_eq!(t.retransmitted_in(6..10), (2, 2));
        t.on_retransmit(9, 2, RetxCause::Timeout);
        assert_eq!(t.retransmitted_in(6..10), (2, 3));
        assert_eq!(t.retransmitted_in(0..8), (0, 0));
    }

    #[test]
    fn retransmission_of_a_dropped_segment_is_necessary() {
        let mut t = TruthLedger::default();
        t.on_drop(5, 0);
        t.on_retransmit(5, 1, RetxCause::Fast);
        assert_eq!(t.spurious_total(), 0);
    }

    #[test]
    fn retransmission_of_a_delayed_segment_is_spurious() {
        let mut t = TruthLedger::default();
        t.on_retransmit(7, 1, RetxCause::Fast);
        assert_eq!(t.spurious(RetxCause::Fast), 1);
    }

    #[test]
    fn drop_after_retransmission_makes_it_necessary() {
        // The original is held by a delay element, retransmitted, then dropped.
        let mut t = TruthLedger::default();
        t.on_retransmit(3, 1, RetxCause::Timeout);
        assert_eq!(t.spurious(RetxCause::Timeout), 1);
        t.on_drop(3, 0);
        assert_eq!(t.spurious(RetxCause::Timeout), 0);
    }

    #[test]
    fn second_retransmission_after_lost_first_is_necessary_by_cause() {
        let mut t = TruthLedger::default();
        t.on_drop(1, 0);
        t.on_retransmit(1, 1, RetxCause::Fast);
        t.on_drop(1, 1);
        t.on_retransmit(1, 2, RetxCause::Timeout);
        // A third copy while the second was still alive is spurious.
        t.on_drop(2, 0);
        t.on_retransmit(2, 1, RetxCause::Fast);
        t.on_retransmit(2, 2, RetxCause::Timeout);
        assert_eq!(t.spurious(RetxCause::Fast), 0);
        assert_eq!(t.spurious(RetxCause::Timeout), 1);
        // ... unless the second copy turns out dropped too.
        t.on_drop(2, 1);
        assert_eq!(t.spurious_total(), 0);
    }
}
