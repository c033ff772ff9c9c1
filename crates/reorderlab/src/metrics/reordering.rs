//! Reordering metrics of the segment stream a receiver sees.
//!
//! * RFC 4737 Sec. 3-4: a packet is *reordered* when its sequence number is
//!   below NextExp (one past the highest seen so far); the *reordered
//!   ratio* is reordered / received; the *reordering extent* of a reordered
//!   packet i is i - j, with j the earliest arrival index holding a larger
//!   sequence number.
//! * RFC 5236 Sec. 3: *reorder density* is the distribution of the
//!   displacement D = receive index - expected index, over |D| <= DT.
//!
//! Only the first copy of each segment counts (duplicates are discarded, as
//! both RFCs do). Every segment of a TCP flow eventually arrives, so the
//! expected index of segment s is s itself and RFC 5236's loss-compensating
//! buffer is not needed; a segment that was lost and retransmitted shows up
//! as displaced late by the time its retransmission took.

use std::collections::VecDeque;

/// Displacement threshold DT of the reorder-density histogram.
pub const DENSITY_THRESHOLD: i64 = 8;
/// Arrivals remembered for the extent computation (bounds memory; larger
/// extents are reported as this cap).
const MAX_RECORDS: usize = 1 << 16;

#[derive(Debug, Clone, Default)]
pub struct ReorderingMetrics {
    received: u64,
    reordered: u64,
    extent_sum: u64,
    extent_max: u64,
    next_exp: u32,
    /// (arrival index, sequence) of arrivals that raised NextExp: strictly
    /// increasing in both, so a binary search finds j.
    records: VecDeque<(u64, u32)>,
    /// density[D + DT] for |D| <= DT.
    density: [u64; (2 * DENSITY_THRESHOLD + 1) as usize],
}

impl ReorderingMetrics {
    /// A segment arrived for the first time.
    pub fn on_unique_arrival(&mut self, seq: u32) {
        let i = self.received;
        self.received += 1;
        if seq >= self.next_exp {
            self.next_exp = seq + 1;
            if self.records.len() == MAX_RECORDS {
                self.records.pop_front();
            }
            self.records.push_back((i, seq));
        } else {
            self.reordered += 1;
            let k = self.records.partition_point(|&(_, s)| s <= seq);
            let extent = match self.records.get(k) {
                Some(&(j, _)) => i - j,
                None => MAX_RECORDS as u64,
            };
            self.extent_sum += extent;
            self.extent_max = self.extent_max.max(extent);
        }
        let d = i as i64 - seq as i64;
        if d.abs() <= DENSITY_THRESHOLD {
            self.density[(d + DENSITY_THRESHOLD) as usize] += 1;
        }
    }

    pub fn reordered_ratio(&self) -> f64 {
        if self.received == 0 {
            0.0
        } else {
            self.reordered as f64 / self.received as f64
        }
    }

    pub fn mean_extent(&self) -> f64 {
        if self.reordered == 0 {
            0.0
        } else {
            self.extent_sum as f64 / self.reordered as f64
        }
    }

    pub fn max_extent(&self) -> u64 {
        self.extent_max
    }

    /// Reorder density: fraction of received packets at each displacement
    /// -DT..=DT.
    pub fn density(&self) -> Vec<f64> {
        let n = self.received.max(1) as f64;
        self.density.iter().map(|&c| c as f64 / n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(seqs: &[u32]) -> ReorderingMetrics {
        let mut m = ReorderingMetrics::default();
        for &s in seqs {
            m.on_unique_arrival(s);
        }
        m
    }

    #[test]
    fn rfc4737_ratio_and_extent() {
        // The paper's Fig. 2 order (0-based): 0 2 3 4 5 1 6 7.
        let m = feed(&[0, 2, 3, 4, 5, 1, 6, 7]);
        assert_eq!(m.reordered, 1);
        assert!((m.reordered_ratio() - 1.0 / 8.0).abs() < 1e-12);
        // Segment 1 arrived at index 5; the first larger (2) at index 1.
        assert_eq!(m.max_extent(), 4);
        let in_order = feed(&[0, 1, 2, 3]);
        assert_eq!(in_order.reordered_ratio(), 0.0);
    }

    #[test]
    fn rfc5236_density_of_displacements() {
        let m = feed(&[0, 2, 3, 4, 5, 1, 6, 7]);
        let rd = m.density();
        let at = |d: i64| rd[(d + DENSITY_THRESHOLD) as usize];
        // 0, 6, 7 on time; 2..5 one early; 1 four late.
        assert!((at(0) - 3.0 / 8.0).abs() < 1e-12);
        assert!((at(-1) - 4.0 / 8.0).abs() < 1e-12);
        assert!((at(4) - 1.0 / 8.0).abs() < 1e-12);
        assert!((rd.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
