//! Ground truth of a QUIC flow, which no real sender sees: which packets
//! reached the receiver, which the network dropped, and so which declared
//! losses were spurious (the packet had arrived, or arrived later).

/// Flags per packet number.
const ARRIVED: u8 = 1;
const DECLARED_LOST: u8 = 2;
const DROPPED: u8 = 4;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Truth {
    flags: Vec<u8>,
    pub arrivals: u64,
    pub drops: u64,
    /// Packets declared lost that reached the receiver (before or after).
    pub spurious_losses: u64,
    /// Declarations of a packet already declared lost (an invariant: 0).
    pub declared_twice: u64,
}

impl Truth {
    pub fn on_sent(&mut self, pn: u64) {
        debug_assert_eq!(pn as usize, self.flags.len());
        self.flags.push(0);
    }

    fn flag(&mut self, pn: u64) -> &mut u8 {
        &mut self.flags[pn as usize]
    }

    pub fn on_arrival(&mut self, pn: u64) {
        self.arrivals += 1;
        let f = self.flag(pn);
        *f |= ARRIVED;
        if *f & DECLARED_LOST != 0 {
            self.spurious_losses += 1;
        }
    }

    pub fn on_drop(&mut self, pn: u64) {
        self.drops += 1;
        *self.flag(pn) |= DROPPED;
    }

    pub fn on_declared_lost(&mut self, pn: u64) {
        let f = self.flag(pn);
        if *f & DECLARED_LOST != 0 {
            self.declared_twice += 1;
            return;
        }
        *f |= DECLARED_LOST;
        if *f & ARRIVED != 0 {
            self.spurious_losses += 1;
        }
    }

    pub fn arrived(&self, pn: u64) -> bool {
        self.flags
            .get(pn as usize)
            .is_some_and(|f| f & ARRIVED != 0)
    }

    pub fn sent(&self) -> u64 {
        self.flags.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_is_spurious_if_the_packet_arrived_before_or_after() {
        let mut t = Truth::default();
        for pn in 0..4 {
            t.on_sent(pn);
        }
        t.on_arrival(0);
        t.on_declared_lost(0); // arrived before: spurious
        t.on_declared_lost(1);
        t.on_arrival(1); // arrived after: spurious
        t.on_drop(2);
        t.on_declared_lost(2); // really lost
        assert_eq!(t.spurious_losses, 2);
        t.on_declared_lost(2);
        assert_eq!(t.declared_twice, 1);
        assert_eq!((t.arrivals, t.drops, t.sent()), (2, 1, 4));
    }
}
