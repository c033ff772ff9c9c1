//! Ground truth of a UET flow, which no real sender sees: the lowest copy
//! of each PSN that reached the receiver, and the copies the network
//! dropped (a trimmed copy is a dropped one). A retransmission is
//! spurious when a copy sent before it arrived (before or after it was
//! sent): every copy above the lowest one that arrived.

const NONE: u16 = u16::MAX;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Truth {
    /// Per PSN: copies sent, and the lowest copy index that arrived.
    copies: Vec<u16>,
    arrived: Vec<u16>,
    pub arrivals: u64,
    pub drops: u64,
}

impl Truth {
    pub fn on_sent(&mut self, psn: u32, copy: u16) {
        let i = psn as usize;
        if i >= self.copies.len() {
            self.copies.resize(i + 1, 0);
            self.arrived.resize(i + 1, NONE);
        }
        self.copies[i] = self.copies[i].max(copy + 1);
    }

    pub fn on_arrival(&mut self, psn: u32, copy: u16) {
        self.arrivals += 1;
        let a = &mut self.arrived[psn as usize];
        *a = (*a).min(copy);
    }

    pub fn on_drop(&mut self) {
        self.drops += 1;
    }

    /// Retransmissions of which an earlier copy arrived.
    pub fn spurious_retransmits(&self) -> u64 {
        (self.copies.iter().zip(&self.arrived))
            .filter(|(_, &a)| a != NONE)
            .map(|(&c, &a)| (c - 1 - a) as u64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_copy_above_the_lowest_that_arrived_is_spurious() {
        let mut t = Truth::default();
        for c in 0..3 {
            t.on_sent(0, c); // three copies of PSN 0
        }
        t.on_sent(1, 0);
        t.on_sent(1, 1);
        t.on_arrival(0, 2);
        t.on_arrival(0, 0); // the original arrived late: copies 1, 2 spurious
        t.on_drop(); // PSN 1's original
        t.on_arrival(1, 1); // its retransmission was needed
        assert_eq!(t.spurious_retransmits(), 2);
        assert_eq!((t.arrivals, t.drops), (3, 1));
    }
}
