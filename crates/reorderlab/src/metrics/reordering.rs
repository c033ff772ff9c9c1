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
    /// (arrival index, sequence, push number) of arrivals that raised
    /// NextExp: strictly increasing in all three, so a binary search finds
    /// j. Only the last [`MAX_RECORDS`] pushes are remembered, and of those
    /// only the ones that can still be some arrival's j (see
    /// [`Self::forget_below`]): a long flow keeps about a window of them,
    /// not 64 k.
    records: VecDeque<(u64, u32, u64)>,
    /// Records pushed so far.
    pushes: u64,
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
            // Remember the last MAX_RECORDS pushes (the oldest is dropped).
            self.pushes += 1;
            if self
                .records
                .front()
                .is_some_and(|&(_, _, p)| p + MAX_RECORDS as u64 <= self.pushes)
            {
                self.records.pop_front();
            }
            self.records.push_back((i, seq, self.pushes));
        } else {
            self.reordered += 1;
            let k = self.records.partition_point(|&(_, s, _)| s <= seq);
            let extent = match self.records.get(k) {
                Some(&(j, _, _)) => i - j,
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

    /// No later arrival will be below `seq` (the receiver's RCV.NXT): the
    /// records below it can never be the first larger arrival of one, so
    /// they are dropped. The extents stay exactly those computed against
    /// every one of the last [`MAX_RECORDS`] pushes.
    pub fn forget_below(&mut self, seq: u32) {
        while self.records.front().is_some_and(|&(_, s, _)| s < seq) {
            self.records.pop_front();
        }
    }

    /// Records held (for tests of the memory bound).
    pub fn records_held(&self) -> usize {
        self.records.len()
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

    /// The metrics as computed before records were forgotten: every one of
    /// the last MAX_RECORDS pushes kept.
    #[derive(Default)]
    struct Unforgetting {
        received: u64,
        next_exp: u32,
        records: VecDeque<(u64, u32)>,
        extents: Vec<u64>,
    }

    impl Unforgetting {
        fn on_unique_arrival(&mut self, seq: u32) {
            let i = self.received;
            self.received += 1;
            if seq >= self.next_exp {
                self.next_exp = seq + 1;
                if self.records.len() == MAX_RECORDS {
                    self.records.pop_front();
                }
                self.records.push_back((i, seq));
            } else {
                let k = self.records.partition_point(|&(_, s)| s <= seq);
                let extent = match self.records.get(k) {
                    Some(&(j, _)) => i - j,
                    None => MAX_RECORDS as u64,
                };
                self.extents.push(extent);
            }
        }
    }

    /// Forgetting the records below RCV.NXT changes no extent, also past
    /// the 64 k cap: segments held back for up to 100 k arrivals.
    #[test]
    fn forgetting_below_rcv_nxt_keeps_every_extent() {
        let mut rng = crate::engine::Rng::from_seed(12);
        let n = 300_000u32;
        // Arrival order: most in order, some held back far.
        let mut order: Vec<(u64, u32)> = (0..n)
            .map(|s| {
                let r = rng.next_u64();
                let late = match r % 1000 {
                    0 => 70_000 + r % 30_000,
                    1..=20 => r % 50,
                    _ => 0,
                };
                (s as u64 + late, s)
            })
            .collect();
        order.sort_unstable();
        let (mut m, mut reference) = (ReorderingMetrics::default(), Unforgetting::default());
        let mut received = vec![false; n as usize];
        let (mut rcv_nxt, mut extent_sum, mut held_max) = (0u32, 0u64, 0usize);
        for &(_, s) in &order {
            m.on_unique_arrival(s);
            reference.on_unique_arrival(s);
            received[s as usize] = true;
            while rcv_nxt < n && received[rcv_nxt as usize] {
                rcv_nxt += 1;
            }
            m.forget_below(rcv_nxt);
            held_max = held_max.max(m.records_held());
        }
        for e in &reference.extents {
            extent_sum += e;
        }
        assert!(reference
            .extents
            .iter()
            .any(|&e| e >= MAX_RECORDS as u64 / 2));
        assert_eq!(m.reordered, reference.extents.len() as u64);
        assert_eq!(m.extent_sum, extent_sum);
        assert_eq!(
            m.extent_max,
            reference.extents.iter().copied().max().unwrap()
        );
        assert_eq!(m.records_held(), 0);
        assert!(held_max <= MAX_RECORDS);
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
