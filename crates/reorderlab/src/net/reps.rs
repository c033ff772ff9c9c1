//! REPS, the sender's half (Bonato et al., "REPS: Recycled Entropy Packet
//! Spraying for adaptive load balancing and failure mitigation"; the
//! Ultra Ethernet transport's load balancing; uet-htsim's description of
//! it, read, not copied): every data packet carries an entropy value (EV)
//! that the switches hash with the flow (`net/balance.rs`), so a value
//! names a path. The sender keeps the values whose ACKs came back without
//! ECN-Echo, a ring of the last [`RING`]; a new packet reuses the oldest
//! of them, or, with none left, explores a value drawn at random. A value
//! whose packet met a congested queue (ECE) is not reused. (REPS's
//! freezing mode after timeouts, for failures, is not modelled.)
//!
//! The NIC's side: the echo of the EV and of CE in the ACK is done where
//! the ACK leaves the receiving host (`sim/path.rs`), not by the TCP
//! receiver.

use crate::engine::rng::Component;
use crate::engine::Rng;

/// Values kept for reuse (uet-htsim's default buffer).
pub const RING: usize = 8;

/// One flow's REPS state.
#[derive(Debug, Clone)]
pub struct Reps {
    ring: [u16; RING],
    head: u8,
    len: u8,
    rng: Rng,
}

impl Reps {
    /// Flow `flow`'s state, drawing from its own stream of the run's seed.
    pub fn new(seed: u64, flow: u32) -> Reps {
        Reps {
            ring: [0; RING],
            head: 0,
            len: 0,
            rng: Rng::for_component(seed, Component::Entropy, flow as u64),
        }
    }

    /// The EV of the next data packet: the oldest recycled one, else a
    /// fresh one at random (never 0, which marks "no EV").
    pub fn next_value(&mut self) -> u16 {
        if self.len == 0 {
            return 1 + (self.rng.next_u64() % u16::MAX as u64) as u16;
        }
        let ev = self.ring[self.head as usize];
        self.head = (self.head + 1) % RING as u8;
        self.len -= 1;
        ev
    }

    /// An ACK came back echoing `ev`; `ece`: its segment was marked CE.
    /// A good value is kept (the oldest forgotten when the ring is full).
    pub fn on_ack(&mut self, ev: u16, ece: bool) {
        if ev == 0 || ece {
            return;
        }
        let tail = (self.head as usize + self.len as usize) % RING;
        self.ring[tail] = ev;
        if (self.len as usize) < RING {
            self.len += 1;
        } else {
            self.head = (self.head + 1) % RING as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_values_are_reused_oldest_first_and_marked_ones_never() {
        let mut r = Reps::new(1, 0);
        let (a, b) = (r.next_value(), r.next_value());
        assert!(a != 0 && b != 0);
        r.on_ack(a, false);
        r.on_ack(b, true);
        r.on_ack(7, false);
        assert_eq!(r.next_value(), a);
        assert_eq!(r.next_value(), 7);
        // empty again: a fresh value, not b
        let c = r.next_value();
        assert_ne!(c, 0);
    }

    #[test]
    fn a_full_ring_forgets_its_oldest() {
        let mut r = Reps::new(1, 0);
        for ev in 1..=(RING as u16 + 2) {
            r.on_ack(ev, false);
        }
        let got: Vec<u16> = (0..RING).map(|_| r.next_value()).collect();
        assert_eq!(got, (3..=RING as u16 + 2).collect::<Vec<_>>());
    }
}
