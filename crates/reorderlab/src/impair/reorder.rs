//! The packet-reordering generator of the high-speed paper (Feng et al., Sec. III):
//! every *reordering interval* a block of *block size* packets is delayed
//! for a *reordering delay time*; all other packets are forwarded at once.
//!
//! The delay time is defined from the departure of the earliest later packet
//! (P_y) to that of the first delayed one (P_x): in time, the block leaves
//! `delay` seconds after P_y was forwarded; in packets, right after the
//! `delay_packets`-th later packet was forwarded. A block held `max_hold`
//! after its first packet arrived leaves then, complete or not, with or
//! without a later packet (our assumption: the paper's generator always
//! sees a continuous stream; a window-limited sender does not, and would
//! otherwise wait forever for the packets that complete the block).
//!
//! The paper also says the block is "delayed for a reordering delay time"
//! (Sec. III-B), which counts the delay from the block's own arrival. With
//! [`ReorderAnchor::BlockArrival`] the complete block leaves `delay` after
//! its last packet arrived, whether or not a later packet has come: on a
//! continuous stream the two anchors differ by one inter-arrival gap, but a
//! block with no packet close behind it leaves unreordered.

use crate::num::round;
use std::collections::VecDeque;

use crate::engine::time::secs;
use crate::engine::{Rng, Time};
use crate::net::packet::Packet;
use crate::spec::{RandomVar, ReorderAnchor};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Forwarding; the next event starts with the first packet at or after
    /// `next_event`.
    Idle,
    /// Collecting `left` more packets into the block, whose first packet
    /// arrived at `since` (it leaves by `since + max_hold` in any case).
    Collecting { left: u32, since: Time },
    /// Block complete; waiting for the first later packet (or `max_hold`).
    Waiting { since: Time },
    /// Time mode: release scheduled.
    Armed,
    /// Packet mode: release after `left` more forwarded packets (or at
    /// `since + max_hold`).
    Counting { left: u32, since: Time },
}

/// What the generator decided for a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReorderVerdict {
    Pass,
    Hold,
}

#[derive(Debug, Clone)]
pub struct ReorderGenerator {
    interval: RandomVar,
    delay: Option<RandomVar>,
    delay_packets: Option<RandomVar>,
    block: RandomVar,
    max_hold: Time,
    anchor: ReorderAnchor,
    next_event: Time,
    phase: Phase,
    /// Delay of the current event (time mode), ns; or packets (packet mode).
    current_delay: Time,
    current_packets: u32,
    block_packets: VecDeque<Packet>,
    /// When the held block leaves, if decided.
    release_at: Option<Time>,
    pub events: u64,
}

impl ReorderGenerator {
    pub fn new(
        interval: RandomVar,
        delay: Option<RandomVar>,
        delay_packets: Option<RandomVar>,
        block: RandomVar,
        max_hold: f64,
        anchor: ReorderAnchor,
        rng: &mut Rng,
    ) -> ReorderGenerator {
        let next_event = secs(interval.sample(rng).max(0.0));
        ReorderGenerator {
            interval,
            delay,
            delay_packets,
            block,
            max_hold: secs(max_hold),
            anchor,
            next_event,
            phase: Phase::Idle,
            current_delay: 0,
            current_packets: 0,
            block_packets: VecDeque::new(),
            release_at: None,
            events: 0,
        }
    }

    /// Time at which the held block is to leave, if any.
    pub fn deadline(&self) -> Option<Time> {
        match self.phase {
            Phase::Collecting { since, .. }
            | Phase::Waiting { since }
            | Phase::Counting { since, .. } => Some(since + self.max_hold),
            _ => self.release_at,
        }
    }

    /// Offer a packet.
    pub fn process(&mut self, pkt: &Packet, now: Time, rng: &mut Rng) -> ReorderVerdict {
        match self.phase {
            Phase::Idle if now >= self.next_event => self.start_event(pkt, now, rng),
            Phase::Idle | Phase::Armed => ReorderVerdict::Pass,
            Phase::Collecting { left, since } => {
                self.block_packets.push_back(*pkt);
                self.phase = if left <= 1 {
                    self.complete(now, since)
                } else {
                    Phase::Collecting {
                        left: left - 1,
                        since,
                    }
                };
                ReorderVerdict::Hold
            }
            Phase::Waiting { since } => {
                // This packet is P_y, the earliest later packet: it goes on.
                if self.delay_packets.is_some() {
                    self.count_forwarded(now, self.current_packets, since);
                } else {
                    self.release_at = Some(now + self.current_delay);
                    self.phase = Phase::Armed;
                }
                ReorderVerdict::Pass
            }
            Phase::Counting { left, since } => {
                self.count_forwarded(now, left, since);
                ReorderVerdict::Pass
            }
        }
    }

    /// The block's last packet arrived at `now`: wait for a later packet,
    /// or (anchored on the block's arrival, time mode) arm its release.
    fn complete(&mut self, now: Time, since: Time) -> Phase {
        match self.anchor {
            ReorderAnchor::BlockArrival if self.delay_packets.is_none() => {
                self.release_at = Some(now + self.current_delay);
                Phase::Armed
            }
            _ => Phase::Waiting { since },
        }
    }

    fn count_forwarded(&mut self, now: Time, left: u32, since: Time) {
        if left <= 1 {
            // Released right after this packet (same time, later event).
            self.release_at = Some(now);
            self.phase = Phase::Armed;
        } else {
            self.phase = Phase::Counting {
                left: left - 1,
                since,
            };
        }
    }

    fn start_event(&mut self, pkt: &Packet, now: Time, rng: &mut Rng) -> ReorderVerdict {
        self.next_event = now + secs(self.interval.sample(rng).max(0.0));
        let block = round(self.block.sample(rng)).max(1.0) as u32;
        let zero_delay = match (&self.delay_packets, &self.delay) {
            (Some(p), _) => {
                self.current_packets = round(p.sample(rng)).max(0.0) as u32;
                self.current_packets == 0
            }
            (None, Some(d)) => {
                self.current_delay = secs(d.sample(rng).max(0.0));
                self.current_delay == 0
            }
            (None, None) => true,
        };
        if zero_delay {
            // A reordering event of zero delay reorders nothing.
            return ReorderVerdict::Pass;
        }
        self.events += 1;
        self.block_packets.push_back(*pkt);
        self.phase = if block <= 1 {
            self.complete(now, now)
        } else {
            Phase::Collecting {
                left: block - 1,
                since: now,
            }
        };
        ReorderVerdict::Hold
    }

    /// Packets of the block being held.
    pub fn held(&self) -> impl Iterator<Item = Packet> + '_ {
        self.block_packets.iter().copied()
    }

    /// The deadline passed: hand out the block (in arrival order).
    pub fn release(&mut self, now: Time, out: &mut Vec<Packet>) {
        let due = match self.phase {
            Phase::Collecting { since, .. }
            | Phase::Waiting { since }
            | Phase::Counting { since, .. } => now >= since + self.max_hold,
            Phase::Armed => self.release_at.is_some_and(|t| now >= t),
            _ => false,
        };
        if !due {
            return;
        }
        out.extend(self.block_packets.drain(..));
        self.release_at = None;
        self.phase = Phase::Idle;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed P1..P8 one microsecond apart with the event starting at P2 and
    /// return the departure order (the paper's Figs. 2 and 3).
    fn departure_order(block: f64, delay_packets: f64) -> Vec<u32> {
        let mut rng = Rng::from_seed(0);
        let mut g = ReorderGenerator::new(
            RandomVar::Constant { value: 2e-6 },
            None,
            Some(RandomVar::Constant {
                value: delay_packets,
            }),
            RandomVar::Constant { value: block },
            0.01,
            ReorderAnchor::LaterPacket,
            &mut rng,
        );
        let mut order = Vec::new();
        let mut out = Vec::new();
        for i in 1..=8u32 {
            let now = i as Time * 1000;
            let p = Packet::data(0, 1, 1000, i, 0, now);
            if g.process(&p, now, &mut rng) == ReorderVerdict::Pass {
                order.push(i);
            }
            // One reordering event in the example: no second one.
            if i == 2 {
                g.next_event = Time::MAX;
            }
            if g.deadline().is_some_and(|d| d <= now) {
                g.release(now, &mut out);
                order.extend(out.drain(..).map(|p| p.seq));
            }
        }
        order
    }

    #[test]
    fn reproduces_fig2_block_1_delay_4_packets() {
        assert_eq!(departure_order(1.0, 4.0), vec![1, 3, 4, 5, 6, 2, 7, 8]);
    }

    #[test]
    fn reproduces_fig3_block_2_delay_4_packets() {
        assert_eq!(departure_order(2.0, 4.0), vec![1, 4, 5, 6, 7, 2, 3, 8]);
    }

    #[test]
    fn time_mode_releases_delay_after_the_first_later_packet() {
        let mut rng = Rng::from_seed(0);
        let mut g = ReorderGenerator::new(
            RandomVar::Constant { value: 1.0 },
            Some(RandomVar::Constant { value: 20e-6 }),
            None,
            RandomVar::Constant { value: 1.0 },
            0.01,
            ReorderAnchor::LaterPacket,
            &mut rng,
        );
        let t0 = secs(1.0);
        let p = |s| Packet::data(0, 1, 1000, s, 0, 0);
        assert_eq!(g.process(&p(0), t0, &mut rng), ReorderVerdict::Hold);
        assert_eq!(
            g.process(&p(1), t0 + 12_000, &mut rng),
            ReorderVerdict::Pass
        );
        assert_eq!(g.deadline(), Some(t0 + 12_000 + 20_000));
        // Without a later packet the block is released after max_hold.
        let mut out = Vec::new();
        g.release(t0 + 32_000, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            g.process(&p(2), t0 + 40_000, &mut rng),
            ReorderVerdict::Pass
        );
    }

    /// A window-limited sender cannot complete a block: it still leaves
    /// `max_hold` after its first packet (no deadlock).
    #[test]
    fn an_incomplete_block_leaves_after_max_hold() {
        let mut rng = Rng::from_seed(0);
        let mut g = ReorderGenerator::new(
            RandomVar::Constant { value: 1.0 },
            Some(RandomVar::Constant { value: 20e-6 }),
            None,
            RandomVar::Constant { value: 10.0 },
            0.01,
            ReorderAnchor::LaterPacket,
            &mut rng,
        );
        let t0 = secs(1.0);
        let p = |s| Packet::data(0, 1, 1000, s, 0, 0);
        for s in 0..3 {
            assert_eq!(
                g.process(&p(s), t0 + s as Time, &mut rng),
                ReorderVerdict::Hold
            );
        }
        assert_eq!(g.deadline(), Some(t0 + secs(0.01)));
        let mut out = Vec::new();
        g.release(t0 + secs(0.005), &mut out);
        assert!(out.is_empty(), "not yet");
        g.release(t0 + secs(0.01), &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(g.deadline(), None);
    }

    /// A time-mode generator with one event at t = 1 s: 20 us delay time,
    /// block `block`, anchored on the block's arrival.
    fn anchored(block: f64) -> (ReorderGenerator, Rng) {
        let mut rng = Rng::from_seed(0);
        let g = ReorderGenerator::new(
            RandomVar::Constant { value: 1.0 },
            Some(RandomVar::Constant { value: 20e-6 }),
            None,
            RandomVar::Constant { value: block },
            0.01,
            ReorderAnchor::BlockArrival,
            &mut rng,
        );
        (g, rng)
    }

    /// Anchored on its own arrival, a lone packet leaves 20 us after it
    /// arrived: overtaken by a later packet 12 us behind it, not by one
    /// 30 us behind (which the default anchor would wait for).
    #[test]
    fn block_arrival_anchor_counts_the_delay_from_the_block() {
        let p = |s| Packet::data(0, 1, 1000, s, 0, 0);
        let t0 = secs(1.0);
        let (mut g, mut rng) = anchored(1.0);
        assert_eq!(g.process(&p(0), t0, &mut rng), ReorderVerdict::Hold);
        assert_eq!(g.deadline(), Some(t0 + 20_000));
        assert_eq!(
            g.process(&p(1), t0 + 12_000, &mut rng),
            ReorderVerdict::Pass
        );
        assert_eq!(g.deadline(), Some(t0 + 20_000), "P_y does not move it");
        let mut out = Vec::new();
        g.release(t0 + 20_000, &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0]);

        let (mut g, mut rng) = anchored(1.0);
        assert_eq!(g.process(&p(0), t0, &mut rng), ReorderVerdict::Hold);
        out.clear();
        g.release(t0 + 20_000, &mut out);
        assert_eq!(out.len(), 1, "left before any later packet came");
        assert_eq!(g.deadline(), None);
        assert_eq!(
            g.process(&p(1), t0 + 30_000, &mut rng),
            ReorderVerdict::Pass
        );
    }

    /// A block of 2 is collected first and leaves 20 us after its last
    /// packet: both later packets 10 us apart overtake it.
    #[test]
    fn block_arrival_anchor_holds_the_whole_block() {
        let p = |s| Packet::data(0, 1, 1000, s, 0, 0);
        let t0 = secs(1.0);
        let (mut g, mut rng) = anchored(2.0);
        assert_eq!(g.process(&p(0), t0, &mut rng), ReorderVerdict::Hold);
        assert_eq!(g.deadline(), Some(t0 + secs(0.01)), "collecting");
        let t1 = t0 + 10_000;
        assert_eq!(g.process(&p(1), t1, &mut rng), ReorderVerdict::Hold);
        assert_eq!(g.deadline(), Some(t1 + 20_000));
        for (i, s) in (2..4).enumerate() {
            let t = t1 + 10_000 * (i as Time + 1) - 1;
            assert_eq!(g.process(&p(s), t, &mut rng), ReorderVerdict::Pass);
        }
        let mut out = Vec::new();
        g.release(t1 + 20_000, &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0, 1]);
    }
}
