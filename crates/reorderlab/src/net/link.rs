//! A unidirectional link: a FIFO queue, a transmitter of fixed rate and a
//! constant propagation delay.
//!
//! Departure times are computed arithmetically when a packet is accepted
//! (`start = max(now, busy_until)`, `end = start + size / rate`), so a packet
//! costs one event per hop: its arrival at the far node. Packets leave in
//! the order they were accepted and the delay is constant, so they also
//! arrive in that order: they wait in the link's own FIFO and only the head is
//! in the global event queue (docs/architecture.md, "Layers").

use serde::Serialize;

use super::fifo::Fifo;
use super::packet::Packet;
use super::queue::{Occupancy, QueueDisc};
use crate::engine::time::{after, to_secs, tx_time};
use crate::engine::{Rng, Time};
use crate::metrics::LinkResult;

/// Counters of one link. Conservation: `arrivals = enqueued + queue_drops +
/// ingress_drops + held at ingress`, `enqueued = delivered + in_system`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LinkStats {
    pub arrivals: u64,
    pub enqueued: u64,
    pub queue_drops: u64,
    /// Dropped by impairment elements before the queue.
    pub ingress_drops: u64,
    /// Dropped by impairment elements after the link (counted in
    /// `delivered`, since they left the link's FIFO).
    pub egress_drops: u64,
    pub delivered: u64,
    pub bytes_delivered: u64,
    pub max_queue: u32,
}

/// Outcome of offering a packet to a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Accepted; if `Some(t)`, the link's FIFO was empty and its head event
    /// must be scheduled at `t`.
    Accepted(Option<Time>),
    /// Dropped by the queue discipline.
    Dropped,
}

#[derive(Debug)]
pub struct Link {
    pub name: String,
    pub from: u32,
    pub to: u32,
    /// bit/s
    pub rate: f64,
    pub delay: Time,
    pub queue: QueueDisc,
    /// Impairment elements applied, in order, to every packet offered to
    /// this link before its queue (indices into the simulation's elements).
    pub ingress: Vec<u32>,
    /// Impairment elements applied after the link, before the next node.
    pub egress: Vec<u32>,
    pub stats: LinkStats,
    rng: Rng,
    /// Last (size, serialisation time) computed: links carry mostly one
    /// packet size, so this saves a division and a rounding per packet.
    tx_cache: (u32, Time),
    busy_until: Time,
    /// Packets not yet fully transmitted (waiting or in service): the last
    /// `tx_pending` of `in_flight`, with `tx_bytes` bytes in all. (A packet
    /// finishes its transmission `delay` before its arrival.)
    tx_pending: usize,
    tx_bytes: u64,
    /// When the first of them finishes its transmission (`Time::MAX` if
    /// none): until then the occupancy cannot change but by admissions.
    tx_next_end: Time,
    /// Every accepted packet not yet delivered, with its arrival time at the
    /// far node; arrival times are non-decreasing.
    in_flight: Fifo,
}

impl Link {
    /// The link's counters as reported (simulation and emulation alike);
    /// `node_names` names its ends.
    pub fn result(&self, node_names: &[String]) -> LinkResult {
        let st = &self.stats;
        LinkResult {
            link: self.name.clone(),
            from: node_names[self.from as usize].clone(),
            to: node_names[self.to as usize].clone(),
            rate: self.rate,
            delay: to_secs(self.delay),
            arrivals: st.arrivals,
            enqueued: st.enqueued,
            queue_drops: st.queue_drops,
            impairment_drops: st.ingress_drops + st.egress_drops,
            egress_drops: st.egress_drops,
            delivered: st.delivered,
            bytes_delivered: st.bytes_delivered,
            in_system_at_end: self.in_system() as u64,
            max_queue: st.max_queue,
        }
    }

    pub fn new(
        name: String,
        from: u32,
        to: u32,
        rate: f64,
        delay: Time,
        queue: QueueDisc,
        rng: Rng,
    ) -> Link {
        Link {
            name,
            from,
            to,
            rate,
            delay,
            queue,
            ingress: Vec::new(),
            egress: Vec::new(),
            stats: LinkStats::default(),
            rng,
            tx_cache: (0, 0),
            busy_until: 0,
            tx_pending: 0,
            tx_bytes: 0,
            tx_next_end: Time::MAX,
            in_flight: Fifo::new(),
        }
    }

    /// Index in `in_flight` of the first packet still being transmitted.
    fn tx_head(&self) -> usize {
        self.in_flight.len() - self.tx_pending
    }

    /// Forget transmissions that finished by `now`.
    #[inline]
    fn expire(&mut self, now: Time) {
        if now < self.tx_next_end {
            return;
        }
        self.expire_from_head(now);
    }

    fn expire_from_head(&mut self, now: Time) {
        while self.tx_pending > 0 {
            let i = self.tx_head();
            let end = self.in_flight.time(i) - self.delay;
            if end > now {
                self.tx_next_end = end;
                return;
            }
            self.tx_bytes -= self.in_flight.size(i) as u64;
            self.tx_pending -= 1;
        }
        self.tx_next_end = Time::MAX;
    }

    /// Queue occupancy at `now`, not counting the packet in transmission.
    ///
    /// The first unfinished transmission is always in service: it started
    /// at max(its acceptance, the previous packet's end), both <= `now`.
    #[inline(always)]
    pub fn occupancy(&mut self, now: Time) -> Occupancy {
        self.expire(now);
        if self.tx_pending == 0 {
            return Occupancy {
                packets: 0,
                bytes: 0,
                idle_since: Some(self.busy_until),
            };
        }
        let head = self.in_flight.size(self.tx_head()) as u64;
        Occupancy {
            packets: self.tx_pending as u32 - 1,
            bytes: self.tx_bytes - head,
            idle_since: None,
        }
    }

    /// Bytes queued at `now` behind the packet in transmission:
    /// [`Link::occupancy`]'s bytes, read without forgetting the finished
    /// transmissions (an adaptive switch reads its uplinks' queues).
    pub fn queued_bytes(&self, now: Time) -> u64 {
        let (mut bytes, mut pending) = (self.tx_bytes, self.tx_pending);
        while pending > 0 {
            let i = self.in_flight.len() - pending;
            let size = self.in_flight.size(i) as u64;
            if self.in_flight.time(i) - self.delay > now {
                return bytes - size;
            }
            bytes -= size;
            pending -= 1;
        }
        0
    }

    /// Offer a packet that passed the impairments to the queue.
    #[inline]
    pub fn admit(&mut self, pkt: &Packet, now: Time) -> Admit {
        let occ = self.occupancy(now);
        if self
            .queue
            .drop_arrival(occ, pkt.size as u32, now, &mut self.rng)
        {
            self.stats.queue_drops += 1;
            return Admit::Dropped;
        }
        self.stats.enqueued += 1;
        self.stats.max_queue = self.stats.max_queue.max(occ.packets + 1);
        let start = self.busy_until.max(now);
        if self.tx_cache.0 != pkt.size as u32 {
            self.tx_cache = (pkt.size as u32, tx_time(pkt.size as u32, self.rate));
        }
        // saturating: a backlog on an absurdly slow link ends after the run
        let end = after(start, self.tx_cache.1);
        self.busy_until = end;
        if self.tx_pending == 0 {
            self.tx_next_end = end;
        }
        self.tx_pending += 1;
        self.tx_bytes += pkt.size as u64;
        let arrival = after(end, self.delay);
        self.in_flight.push_back(pkt, arrival);
        if self.in_flight.len() == 1 {
            Admit::Accepted(Some(arrival))
        } else {
            Admit::Accepted(None)
        }
    }

    /// Remove the head packet (its arrival time is now) and return it; the
    /// new head's arrival is [`Link::next_arrival`]. (Returned alone, the
    /// packet is copied out of the ring once: returned with that time as a
    /// pair, it was copied twice.)
    #[inline]
    pub fn pop_arrival(&mut self) -> Packet {
        let pkt = self
            .in_flight
            .pop_front()
            .expect("LinkDeliver event for an empty link");
        if self.tx_pending > self.in_flight.len() {
            // its transmission ended `delay` ago; `expire` had not run since
            // (the next `expire` finds the new first end)
            self.tx_pending -= 1;
            self.tx_bytes -= pkt.size as u64;
            self.tx_next_end = 0;
        }
        self.stats.delivered += 1;
        self.stats.bytes_delivered += pkt.size as u64;
        pkt
    }

    /// Arrival time of the head packet, if any.
    #[inline]
    pub fn next_arrival(&self) -> Option<Time> {
        self.in_flight.front_time()
    }

    /// Exchange two packets waiting in the queue (not in transmission),
    /// chosen at random; they keep their slots' departure times, so only
    /// packets of equal size are swapped. Returns false when fewer than two
    /// are waiting or the sizes differ. Nothing is lost or duplicated.
    pub fn swap_random_waiting(&mut self, now: Time, rng: &mut Rng) -> bool {
        let waiting = self.occupancy(now).packets as usize;
        if waiting < 2 {
            return false;
        }
        let base = self.in_flight.len() - waiting;
        let i = base + (rng.next_u64() % waiting as u64) as usize;
        let mut j = base + (rng.next_u64() % (waiting as u64 - 1)) as usize;
        if j >= i {
            j += 1;
        }
        if self.in_flight.size(i) != self.in_flight.size(j) {
            return false;
        }
        self.in_flight.swap_packets(i, j);
        true
    }

    /// Packets accepted and not yet delivered (queued, in transmission or
    /// propagating).
    pub fn in_system(&self) -> usize {
        self.in_flight.len()
    }

    /// Accepted packets still in the system, oldest first.
    pub fn packets_in_system(&self) -> impl Iterator<Item = &Packet> {
        self.in_flight.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;
    use crate::net::packet::PacketKind;

    fn pkt(seq: u32, size: u32) -> Packet {
        let mut p = Packet::data(0, 1, size, seq, 0, 0);
        p.kind = PacketKind::Data;
        p
    }

    fn link(limit: u32) -> Link {
        Link::new(
            "A->B".into(),
            0,
            1,
            8e6,
            ms(10),
            QueueDisc::DropTail {
                limit_packets: Some(limit),
                limit_bytes: None,
            },
            Rng::from_seed(0),
        )
    }

    #[test]
    fn departures_are_back_to_back_and_arrivals_add_delay() {
        let mut l = link(10);
        assert_eq!(l.admit(&pkt(0, 1000), 0), Admit::Accepted(Some(ms(11))));
        assert_eq!(l.admit(&pkt(1, 1000), 0), Admit::Accepted(None));
        let p0 = l.pop_arrival();
        let next = l.next_arrival();
        assert_eq!(p0.seq, 0);
        assert_eq!(next, Some(ms(12)));
        // After the link drained, a new packet starts at once.
        let _ = l.pop_arrival();
        assert_eq!(
            l.admit(&pkt(2, 1000), ms(50)),
            Admit::Accepted(Some(ms(61)))
        );
    }

    #[test]
    fn swaps_exchange_waiting_packets_without_loss_or_duplication() {
        let mut l = link(100);
        for s in 0..20 {
            l.admit(&pkt(s, 1000), 0);
        }
        let mut rng = Rng::from_seed(3);
        let mut swapped = 0;
        for _ in 0..50 {
            swapped += l.swap_random_waiting(0, &mut rng) as u32;
        }
        assert_eq!(swapped, 50);
        let mut seqs: Vec<u32> = l.packets_in_system().map(|p| p.seq).collect();
        // The packet in transmission (0) never moves.
        assert_eq!(seqs[0], 0);
        assert_ne!(seqs, (0..20).collect::<Vec<_>>());
        seqs.sort_unstable();
        assert_eq!(seqs, (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn droptail_counts_waiting_packets_not_the_one_in_service() {
        let mut l = link(2);
        // First goes into service, two wait, the fourth is dropped.
        for s in 0..3 {
            assert!(matches!(l.admit(&pkt(s, 1000), 0), Admit::Accepted(_)));
        }
        assert_eq!(l.admit(&pkt(3, 1000), 0), Admit::Dropped);
        // After one transmission time, one slot has freed.
        assert!(matches!(l.admit(&pkt(4, 1000), ms(1)), Admit::Accepted(_)));
        assert_eq!(l.stats.queue_drops, 1);
        assert_eq!(l.stats.enqueued, 4);
        assert_eq!(l.in_system(), 4);
    }
}
