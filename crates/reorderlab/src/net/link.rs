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
/// trimmed + ingress_drops + held at ingress`, `enqueued + trimmed =
/// delivered + in_system` (a trimmed packet's header is delivered).
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
    /// Data packets marked CE on arrival (above the ECN threshold).
    pub ce_marks: u64,
    /// Data packets trimmed to their header instead of dropped.
    pub trimmed: u64,
}

/// Outcome of offering a packet to a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Accepted; if `Some(t)`, the link's FIFO was empty and its head event
    /// must be scheduled at `t`.
    Accepted(Option<Time>),
    /// Dropped by the queue discipline.
    Dropped,
    /// Trimmed: its header went to the priority lane; if `Some(t)`, the
    /// lane was empty and its head event must be scheduled at `t`.
    Trimmed(Option<Time>),
}

/// Bytes a trimmed packet keeps: its headers (NDP trims to the header;
/// Ultra Ethernet to a configured size of at least the headers). Our
/// ACKs are 40-64 bytes; a trimmed header is taken as 64.
pub const TRIMMED_SIZE: u16 = 64;

/// A switch port's priority lane for trimmed headers (NDP, Handley et al.,
/// SIGCOMM 2017, Sec. 3.2: "the header queue has priority over the data
/// queue"). A header waits for the packet in transmission, then goes
/// before every waiting data packet; the few bytes it takes from the data
/// queue's schedule are not charged (the data packets keep the departure
/// times they were given at admission).
#[derive(Debug, Default)]
pub struct HeaderLane {
    fifo: Fifo,
    busy_until: Time,
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
    /// ECN (RFC 3168 Sec. 5; DCTCP's K, Alizadeh et al., SIGCOMM 2010,
    /// Sec. 3.1): a data packet arriving to more than this many bytes
    /// queued is marked CE (`u64::MAX`: never).
    pub ecn_threshold: u64,
    /// Packet trimming on: a data packet the queue would drop leaves its
    /// header on this lane instead.
    pub headers: Option<Box<HeaderLane>>,
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
            ce_marks: st.ce_marks,
            trimmed: st.trimmed,
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
            ecn_threshold: u64::MAX,
            headers: None,
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
        if pkt.marks.trimmed() && self.headers.is_some() {
            // a header trimmed upstream keeps its priority at every hop
            self.stats.enqueued += 1;
            return self.enqueue_header(*pkt, now);
        }
        if self.fits_for_sure(pkt.size) {
            return self.accept(pkt, now);
        }
        let occ = self.occupancy(now);
        if self
            .queue
            .drop_arrival(occ, pkt.size as u32, now, &mut self.rng)
        {
            if self.headers.is_some() && pkt.is_data() && !pkt.marks.trimmed() {
                return self.trim(pkt, now);
            }
            self.stats.queue_drops += 1;
            return Admit::Dropped;
        }
        self.stats.max_queue = self.stats.max_queue.max(occ.packets + 1);
        if occ.bytes > self.ecn_threshold && pkt.is_data() {
            let marked = self.mark_ce(pkt);
            return self.accept(&marked, now);
        }
        self.accept(pkt, now)
    }

    /// Whether a drop-tail queue surely takes a packet of `size` bytes
    /// without a drop, an ECN mark or a new `max_queue`, judged from the
    /// counts as last brought up to date: `tx_pending` and `tx_bytes` count
    /// the transmissions that had not ended then, at least as many as now,
    /// so each is an upper bound of the occupancy [`Link::occupancy`]
    /// would find. Then the queue's occupancy need not be read: that read
    /// walks the transmissions ended since (their times and sizes, long
    /// out of cache at fabric scale), about half of `admit`'s time. The
    /// walk is left to the next full look, which forgets them all at once.
    /// (Exact: the packet's fate is the same either way.)
    #[inline(always)]
    fn fits_for_sure(&self, size: u16) -> bool {
        let QueueDisc::DropTail {
            limit_packets,
            limit_bytes,
        } = &self.queue
        else {
            return false;
        };
        let pending = self.tx_pending as u64;
        pending.max(1) <= self.stats.max_queue as u64
            && limit_packets.is_none_or(|l| pending < l as u64)
            && limit_bytes.is_none_or(|l| self.tx_bytes + size as u64 <= l)
            && self.tx_bytes <= self.ecn_threshold
    }

    /// Queue `pkt` (admitted): its departure and arrival times.
    #[inline(always)]
    fn accept(&mut self, pkt: &Packet, now: Time) -> Admit {
        self.stats.enqueued += 1;
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

    /// The packet marked Congestion Experienced (a copy: the caller's stays).
    #[cold]
    #[inline(never)]
    fn mark_ce(&mut self, pkt: &Packet) -> Packet {
        self.stats.ce_marks += 1;
        let mut p = *pkt;
        p.marks.set_ce();
        p
    }

    /// Trim `pkt` to its header and queue it on the priority lane.
    #[cold]
    #[inline(never)]
    fn trim(&mut self, pkt: &Packet, now: Time) -> Admit {
        self.stats.trimmed += 1;
        let mut h = *pkt;
        h.size = TRIMMED_SIZE;
        h.marks.set_trimmed();
        self.enqueue_header(h, now)
    }

    /// Queue header `h` on the priority lane: it leaves when the packet in
    /// transmission has and the headers before it have, at the link's
    /// rate.
    #[cold]
    #[inline(never)]
    fn enqueue_header(&mut self, h: Packet, now: Time) -> Admit {
        self.expire(now);
        let tx = tx_time(h.size as u32, self.rate);
        // the transmission under way at `now` ends at the first end after it
        let mut in_service_end = now;
        for i in self.in_flight.len() - self.tx_pending..self.in_flight.len() {
            let end = self.in_flight.time(i) - self.delay;
            if end > now {
                in_service_end = end;
                break;
            }
        }
        let delay = self.delay;
        let lane = self.headers.as_mut().expect("trimming on");
        let end = after(lane.busy_until.max(in_service_end), tx);
        lane.busy_until = end;
        lane.fifo.push_back(&h, after(end, delay));
        let first = lane.fifo.len() == 1;
        Admit::Trimmed(first.then_some(after(end, delay)))
    }

    /// Remove the head header of the priority lane (its arrival is now);
    /// the lane's next arrival, if any, comes with it.
    pub fn pop_header(&mut self) -> (Packet, Option<Time>) {
        let lane = self.headers.as_mut().expect("trimming on");
        let h = lane
            .fifo
            .pop_front()
            .expect("HeaderDeliver for an empty lane");
        self.stats.delivered += 1;
        self.stats.bytes_delivered += h.size as u64;
        (h, lane.fifo.front_time())
    }

    /// Set the rate (a degradation or its end): packets accepted from now
    /// on are sent at it; those accepted keep their departure times.
    pub fn set_rate(&mut self, rate: f64) {
        self.rate = rate;
        self.tx_cache = (0, 0);
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

    /// Where the head packet is stored and the next one's arrival time:
    /// prefetch hints (0 if none).
    #[inline]
    pub fn head_addrs(&self) -> [usize; 2] {
        self.in_flight.front_addrs()
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

    /// Packets accepted (or trimmed) and not yet delivered (queued, in
    /// transmission or propagating).
    pub fn in_system(&self) -> usize {
        self.in_flight.len() + self.headers.as_ref().map_or(0, |h| h.fifo.len())
    }

    /// Accepted packets (then trimmed headers) still in the system, oldest
    /// first.
    pub fn packets_in_system(&self) -> impl Iterator<Item = &Packet> {
        let headers = self.headers.as_ref().map(|h| h.fifo.iter());
        self.in_flight.iter().chain(headers.into_iter().flatten())
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

    /// RFC 3168 Sec. 5 with DCTCP's K (Sec. 3.1): a data packet arriving
    /// to more than K bytes queued (behind the one in transmission) is
    /// marked CE in the link, not the caller's copy; pure ACKs never are.
    #[test]
    fn data_above_the_ecn_threshold_is_marked() {
        let mut l = link(100);
        l.ecn_threshold = 2000;
        let mut marked = Vec::new();
        for s in 0..6 {
            let p = pkt(s, 1000);
            l.admit(&p, 0);
            assert!(!p.marks.ce());
        }
        let mut ack = Packet::control(PacketKind::Ack, 0, 1, 1000, 0);
        ack.seq = 99;
        l.admit(&ack, 0);
        while l.in_system() > 0 {
            let p = l.pop_arrival();
            marked.push((p.seq, p.marks.ce()));
        }
        // queued before them: 0, 0, 1000, 2000, 3000, 4000, 5000 bytes
        let want = [0, 1, 2, 3, 4, 5, 99].map(|s| (s, s >= 4 && s != 99));
        assert_eq!(marked, want);
        assert_eq!(l.stats.ce_marks, 2);
    }

    /// NDP Sec. 3.2: at a full queue a data packet's header goes on the
    /// priority lane; it arrives before the data queued ahead of it.
    #[test]
    fn a_trimmed_header_overtakes_the_queued_data() {
        let mut l = link(2);
        l.headers = Some(Box::default());
        for s in 0..3 {
            assert!(matches!(l.admit(&pkt(s, 1000), 0), Admit::Accepted(_)));
        }
        let at = match l.admit(&pkt(3, 1000), 0) {
            Admit::Trimmed(Some(t)) => t,
            other => panic!("{other:?}"),
        };
        // after the packet in service (1 ms at 8 Mb/s) and 64 bytes: 64 us
        assert_eq!(at, ms(1) + 64_000 + ms(10));
        assert!(at < ms(12), "before the second data packet");
        let (h, next) = l.pop_header();
        assert_eq!(
            (h.seq, h.size, h.marks.trimmed(), next),
            (3, 64, true, None)
        );
        assert_eq!((l.stats.trimmed, l.stats.queue_drops), (1, 0));
        // an ACK (not data) is still dropped
        let ack = Packet::control(PacketKind::Ack, 0, 1, 40, 0);
        assert_eq!(l.admit(&ack, 0), Admit::Dropped);
    }

    /// `admit` decides without reading the occupancy when its stale
    /// upper bounds already rule out a drop, a mark and a new maximum
    /// (`fits_for_sure`): against a model that recounts the queue from
    /// scratch at every arrival, over random arrivals and deliveries, every
    /// decision, mark and `max_queue` agrees.
    #[test]
    fn admission_matches_a_queue_recounted_at_every_arrival() {
        let mut rng = Rng::from_seed(11);
        for limits in [
            (Some(8), None),
            (None, Some(9000)),
            (Some(30), Some(20_000)),
        ] {
            let mut l = link(1);
            l.queue = QueueDisc::DropTail {
                limit_packets: limits.0,
                limit_bytes: limits.1,
            };
            l.ecn_threshold = 4000;
            // the model: (transmission end, size) of every accepted packet
            let mut model: Vec<(Time, u64)> = Vec::new();
            let (mut now, mut busy, mut max_queue) = (0, 0, 0u32);
            for seq in 0..20_000u32 {
                now += rng.next_u64() % 1_500_000;
                while l.next_arrival().is_some_and(|t| t <= now)
                    && !rng.next_u64().is_multiple_of(4)
                {
                    l.pop_arrival();
                }
                let size = 40 + (rng.next_u64() % 1460) as u32;
                let waiting: Vec<_> = model.iter().filter(|(end, _)| *end > now).collect();
                let (packets, bytes) = match waiting.split_first() {
                    None => (0, 0),
                    Some((_, rest)) => (rest.len() as u64, rest.iter().map(|p| p.1).sum()),
                };
                let drop = limits.0.is_some_and(|n| packets + 1 > n as u64)
                    || limits.1.is_some_and(|b| bytes + size as u64 > b);
                let got = l.admit(&pkt(seq, size), now);
                assert_eq!(got == Admit::Dropped, drop, "seq {seq}");
                if !drop {
                    max_queue = max_queue.max(packets as u32 + 1);
                    busy = busy.max(now) + tx_time(size, l.rate);
                    model.push((busy, size as u64));
                    if bytes > 4000 {
                        assert_eq!(l.in_flight.get(l.in_flight.len() - 1).seq, seq);
                        assert!(l.in_flight.get(l.in_flight.len() - 1).marks.ce());
                    }
                }
                assert_eq!(l.stats.max_queue, max_queue, "seq {seq}");
            }
            assert!(l.stats.queue_drops > 100 && l.stats.ce_marks > 100);
        }
    }

    #[test]
    fn a_new_rate_applies_to_the_packets_accepted_after_it() {
        let mut l = link(10);
        l.admit(&pkt(0, 1000), 0);
        l.set_rate(0.8e6);
        assert_eq!(l.admit(&pkt(1, 1000), 0), Admit::Accepted(None));
        l.pop_arrival();
        // 1 ms at the old rate, then 10 ms at the new one
        assert_eq!(l.next_arrival(), Some(ms(1) + ms(10) + ms(10)));
    }
}
