//! Reordering-length measurement on the scoreboard and the reordering
//! histogram of RR-TCP (the rr-tcp paper, Sec. 4.1.1 and 4.1.2).
//!
//! The reordering length of a segment is measured when an ACK closes a
//! hole: with c the highest contiguously acknowledged segment, m the
//! highest segment acknowledged or SACKed so far and i the highest in the
//! new ACK, the segments in (c, i] that this ACK newly covers are counted;
//! if exactly one (h) was newly covered (the n == 1 rule, robust to lost and
//! reordered ACKs), the sample is r = m - h. Samples are kept with their
//! time in a histogram and expire after a lifetime.

use crate::num::ceil;
use std::collections::VecDeque;

use crate::engine::Time;

/// Largest reordering length tracked (the maximum dupthresh of Table 2).
pub const MAX_LENGTH: u32 = 64;

/// What one ACK newly covered between c and i (Sec. 4.1.1).
#[derive(Debug, Clone, Copy, Default)]
pub struct HoleScan {
    /// Number of newly ACKed or SACKed segments (n).
    pub newly_covered: u32,
    /// The last such segment (h).
    pub hole: u32,
}

impl HoleScan {
    pub fn note(&mut self, seq: u32) {
        self.newly_covered += 1;
        self.hole = seq;
    }

    /// The reordering length sample, if the ACK closed exactly one hole
    /// below `m`, the highest segment acknowledged before this ACK.
    pub fn sample(&self, m: Option<u32>) -> Option<u32> {
        let m = m?;
        (self.newly_covered == 1 && self.hole < m).then(|| m - self.hole)
    }
}

/// What becomes of a reordering length above [`MAX_LENGTH`]: the paper's
/// bins run "between one and a configurable maximum" (Sec. 4.1.2) and do
/// not say which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongSamples {
    /// Counted in the top bin.
    Clamp,
    /// Not counted.
    Discard,
}

/// Reordering lengths seen recently, with their arrival times.
#[derive(Debug, Clone)]
pub struct ReorderHistogram {
    pub long: LongSamples,
    lifetime: Time,
    events: VecDeque<(Time, u32)>,
    /// counts[len] for len in 1..=MAX_LENGTH (longer ones are clamped).
    counts: [u32; MAX_LENGTH as usize + 1],
}

impl ReorderHistogram {
    pub fn new(lifetime: Time) -> ReorderHistogram {
        ReorderHistogram {
            long: LongSamples::Clamp,
            lifetime,
            events: VecDeque::new(),
            counts: [0; MAX_LENGTH as usize + 1],
        }
    }

    /// Drop samples older than the lifetime.
    pub fn expire(&mut self, now: Time) {
        while let Some(&(t, len)) = self.events.front() {
            if t + self.lifetime > now {
                break;
            }
            self.counts[len as usize] -= 1;
            self.events.pop_front();
        }
    }

    /// Enter a sample; whether it was counted ([`LongSamples`]).
    pub fn insert(&mut self, len: u32, now: Time) -> bool {
        self.expire(now);
        if len > MAX_LENGTH && self.long == LongSamples::Discard {
            return false;
        }
        let len = len.clamp(1, MAX_LENGTH);
        self.counts[len as usize] += 1;
        self.events.push_back((now, len));
        true
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The smallest length L such that at least `ratio` of the samples are
    /// <= L; `None` when empty.
    pub fn percentile(&self, ratio: f64) -> Option<u32> {
        let total = self.events.len() as f64;
        if total == 0.0 {
            return None;
        }
        let need = ceil(ratio.clamp(0.0, 1.0) * total).max(1.0);
        let mut acc = 0.0;
        for len in 1..=MAX_LENGTH {
            acc += self.counts[len as usize] as f64;
            if acc >= need {
                return Some(len);
            }
        }
        Some(MAX_LENGTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::secs;

    #[test]
    fn fig2_example_gives_length_four() {
        // Segments 2..5 SACKed (m = 5), then the cumulative ACK covers 1:
        // only 1 is newly covered in (0, 5].
        let mut scan = HoleScan::default();
        scan.note(1);
        assert_eq!(scan.sample(Some(5)), Some(4));
    }

    #[test]
    fn n_equals_one_rule_discards_an_ack_closing_two_holes() {
        let mut scan = HoleScan::default();
        scan.note(1);
        scan.note(3);
        assert_eq!(scan.sample(Some(6)), None);
        // In-order progress (h above m) is not reordering.
        let mut next = HoleScan::default();
        next.note(7);
        assert_eq!(next.sample(Some(6)), None);
    }

    #[test]
    fn percentile_and_expiry() {
        let mut h = ReorderHistogram::new(secs(80.0));
        for (i, len) in [1u32, 2, 2, 3, 4, 5, 6, 7, 8, 9].iter().enumerate() {
            h.insert(*len, secs(i as f64));
        }
        // 90 % of ten samples are <= 8.
        assert_eq!(h.percentile(0.9), Some(8));
        assert_eq!(h.percentile(0.3), Some(2));
        assert_eq!(h.percentile(1.0), Some(9));
        // At t = 82 s the samples taken at 0, 1 and 2 s have expired.
        h.expire(secs(82.0));
        assert_eq!(h.len(), 7);
        assert_eq!(h.percentile(0.0), Some(3));
        h.expire(secs(1000.0));
        assert_eq!(h.percentile(0.9), None);
    }

    #[test]
    fn long_samples_are_clamped_or_discarded() {
        let mut h = ReorderHistogram::new(secs(80.0));
        assert!(h.insert(MAX_LENGTH + 30, 0));
        assert_eq!(h.percentile(0.5), Some(MAX_LENGTH));
        let mut d = ReorderHistogram::new(secs(80.0));
        d.long = LongSamples::Discard;
        assert!(!d.insert(MAX_LENGTH + 1, 0));
        assert!(d.insert(MAX_LENGTH, 0));
        assert_eq!((d.len(), d.percentile(0.0)), (1, Some(MAX_LENGTH)));
    }
}
