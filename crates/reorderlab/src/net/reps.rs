//! REPS, the sender's half (Bonato et al., "REPS: Recycled Entropy Packet
//! Spraying for adaptive load balancing and failure mitigation"; the
//! Ultra Ethernet transport's load balancing; uet-htsim's description of
//! it, read, not copied): every data packet carries an entropy value (EV)
//! that the switches hash with the flow (`net/balance.rs`), so a value
//! names a path. The sender keeps the values whose ACKs came back without
//! ECN-Echo, a ring of the last [`RING`]; a new packet reuses the oldest
//! of them, or, with none left, explores a value drawn at random. A value
//! whose packet met a congested queue (ECE) is not reused.
//!
//! **Freezing mode** (the REPS paper's failure mitigation): a
//! retransmission timeout says a path may have failed. The sender then
//! stops exploring: for [`FREEZE`] it sends on the values it holds, round
//! robin, without using them up (a good ACK still replaces the oldest), so
//! no packet is sent on a fresh, possibly broken, path; with none held it
//! draws at random. When the freeze is over the ring is emptied and the
//! next [`EXPLORE_AFTER`] packets explore fresh values, which finds the
//! fabric as it is now. A timeout during that exploration does not freeze
//! again. (The 10 ms freeze and the 16 explorations are uet-htsim's
//! defaults; there a freeze is left at the first ACK after it ends, here at
//! the first ACK or packet.)
//!
//! The NIC's side: the echo of the EV and of CE in the ACK is done where
//! the ACK leaves the receiving host (`sim/path.rs`), not by the TCP
//! receiver.

use crate::engine::rng::Component;
use crate::engine::time::ms;
use crate::engine::{Rng, Time};

/// Values kept for reuse (uet-htsim's default buffer).
pub const RING: usize = 8;
/// How long a freeze lasts after a timeout (uet-htsim: 10 ms).
pub const FREEZE: Time = ms(10);
/// Packets that explore fresh values when a freeze ends (uet-htsim: 16).
pub const EXPLORE_AFTER: u8 = 16;

/// One flow's REPS state.
#[derive(Debug, Clone)]
pub struct Reps {
    ring: [u16; RING],
    head: u8,
    len: u8,
    /// Frozen until then (after a timeout); `None`: not frozen.
    frozen_until: Option<Time>,
    /// The next held value a frozen sender uses (an offset from `head`).
    cursor: u8,
    /// Packets left that explore fresh values after a freeze.
    explore: u8,
    rng: Rng,
}

impl Reps {
    /// Flow `flow`'s state, drawing from its own stream of the run's seed.
    pub fn new(seed: u64, flow: u32) -> Reps {
        Reps {
            ring: [0; RING],
            head: 0,
            len: 0,
            frozen_until: None,
            cursor: 0,
            explore: 0,
            rng: Rng::for_component(seed, Component::Entropy, flow as u64),
        }
    }

    /// Whether the sender is frozen (at the last look).
    pub fn is_frozen(&self) -> bool {
        self.frozen_until.is_some()
    }

    /// A fresh value at random (never 0, which marks "no EV").
    fn fresh(&mut self) -> u16 {
        1 + (self.rng.next_u64() % u16::MAX as u64) as u16
    }

    /// Leave a freeze that is over: forget the values held and explore.
    fn thaw(&mut self, now: Time) {
        if self.frozen_until.is_some_and(|t| now > t) {
            self.frozen_until = None;
            self.len = 0;
            self.head = 0;
            self.explore = EXPLORE_AFTER;
        }
    }

    /// The EV of the next data packet sent at `now`: exploring after a
    /// freeze, a fresh one; frozen, the next held one (kept); else the
    /// oldest recycled one (used up), or a fresh one with none left.
    pub fn next_value(&mut self, now: Time) -> u16 {
        self.thaw(now);
        if self.explore > 0 {
            self.explore -= 1;
            return self.fresh();
        }
        if self.len == 0 {
            return self.fresh();
        }
        if self.is_frozen() {
            let at = (self.head as usize + (self.cursor % self.len) as usize) % RING;
            self.cursor = (self.cursor + 1) % self.len;
            return self.ring[at];
        }
        let ev = self.ring[self.head as usize];
        self.head = (self.head + 1) % RING as u8;
        self.len -= 1;
        ev
    }

    /// An ACK came back at `now` echoing `ev`; `ece`: its segment was
    /// marked CE. A good value is kept (the oldest forgotten when the ring
    /// is full), frozen or not.
    pub fn on_ack(&mut self, ev: u16, ece: bool, now: Time) {
        self.thaw(now);
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

    /// The sender's retransmission timer expired at `now`: freeze, unless
    /// already frozen or exploring after a freeze.
    pub fn on_timeout(&mut self, now: Time) {
        self.thaw(now);
        if self.frozen_until.is_none() && self.explore == 0 {
            self.frozen_until = Some(now + FREEZE);
            self.cursor = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_values_are_reused_oldest_first_and_marked_ones_never() {
        let mut r = Reps::new(1, 0);
        let (a, b) = (r.next_value(0), r.next_value(0));
        assert!(a != 0 && b != 0);
        r.on_ack(a, false, 0);
        r.on_ack(b, true, 0);
        r.on_ack(7, false, 0);
        assert_eq!(r.next_value(0), a);
        assert_eq!(r.next_value(0), 7);
        // empty again: a fresh value, not b
        let c = r.next_value(0);
        assert_ne!(c, 0);
    }

    #[test]
    fn a_full_ring_forgets_its_oldest() {
        let mut r = Reps::new(1, 0);
        for ev in 1..=(RING as u16 + 2) {
            r.on_ack(ev, false, 0);
        }
        let got: Vec<u16> = (0..RING).map(|_| r.next_value(0)).collect();
        assert_eq!(got, (3..=RING as u16 + 2).collect::<Vec<_>>());
    }

    /// Freezing mode: after a timeout the held values are sent round robin
    /// and not used up, for FREEZE; no fresh value is explored.
    #[test]
    fn a_timeout_freezes_the_held_values_until_the_freeze_ends() {
        let mut r = Reps::new(1, 0);
        for ev in [11, 12, 13] {
            r.on_ack(ev, false, 0);
        }
        r.on_timeout(ms(1));
        assert!(r.is_frozen());
        let got: Vec<u16> = (0..7).map(|_| r.next_value(ms(2))).collect();
        assert_eq!(got, [11, 12, 13, 11, 12, 13, 11]);
        // a second timeout while frozen does not extend the freeze
        r.on_timeout(ms(5));
        assert_eq!(r.next_value(ms(1) + FREEZE), 12, "still frozen at its end");
        // after it: the ring is emptied and EXPLORE_AFTER fresh values follow
        r.on_ack(11, false, ms(1) + FREEZE + 1);
        assert!(!r.is_frozen());
        let mut fresh: Vec<u16> = (1..EXPLORE_AFTER).map(|_| r.next_value(ms(12))).collect();
        // a timeout while exploring does not freeze
        r.on_timeout(ms(13));
        assert!(!r.is_frozen());
        fresh.push(r.next_value(ms(13)));
        assert!(fresh.iter().all(|&v| v != 0 && v != 11), "{fresh:?}");
        // then the value kept during the exploration is recycled
        assert_eq!(r.next_value(ms(13)), 11);
    }

    #[test]
    fn a_frozen_sender_without_values_draws_at_random() {
        let mut r = Reps::new(1, 0);
        r.on_timeout(0);
        let (a, b) = (r.next_value(1), r.next_value(2));
        assert!(a != 0 && b != 0 && a != b);
        // a good ACK while frozen is held and then reused
        r.on_ack(9, false, 3);
        assert_eq!((r.next_value(4), r.next_value(5)), (9, 9));
    }
}
