//! The TCP receiver: cumulative ACK, SACK (RFC 2018), DSACK (RFC 2883),
//! delayed ACK (RFC 1122 / RFC 5681 Sec. 4.2, or Linux-style quickack) and
//! timestamp echo (RFC 7323 Sec. 4.3).

use crate::engine::Time;
use crate::metrics::ReorderingMetrics;
use crate::net::packet::{Packet, PacketKind, SackBlocks};
use crate::spec::DelayedAck;
use crate::tcp::intervals::IntervalSet;
use crate::tcp::paws::Paws;

/// Quick ACKs granted in quickack mode (Linux `TCP_MAX_QUICKACKS`).
pub const MAX_QUICKACKS: u32 = 16;

#[derive(Debug, Clone)]
pub struct ReceiverConfig {
    pub delayed_ack: DelayedAck,
    pub delack_timeout: Time,
    pub delack_every: u32,
    pub sack: bool,
    pub dsack: bool,
    pub max_sack_blocks: u8,
    pub ack_size: u32,
    /// Data bytes per segment (for delivered-byte accounting).
    pub mss: u32,
    /// Segments of a finite flow; the flow completes when all are delivered.
    pub expected_segments: Option<u64>,
    /// Delivered bytes are counted towards throughput from this time on.
    pub measure_from: Time,
    /// The Linux receiver's PAWS with timestamps ([`crate::tcp::paws`]).
    pub paws: bool,
    /// DCTCP's receiver (RFC 8257 Sec. 3.2): ECN-Echo by its two-state
    /// machine (a flow whose sender runs `cc = "dctcp"`).
    pub dctcp: bool,
}

/// Receiver counters.
#[derive(Debug, Clone, Default)]
pub struct ReceiverStats {
    pub segments_delivered: u64,
    pub bytes_delivered: u64,
    pub bytes_delivered_measured: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
    pub acks_sent: u64,
    pub dsacks_sent: u64,
    pub completed_at: Option<Time>,
    /// In-order check: every delivered segment was exactly `previous + 1`.
    pub order_violations: u64,
    /// RFC 4737 / RFC 5236 metrics of the arriving segment stream.
    pub reordering: ReorderingMetrics,
}

#[derive(Debug)]
pub struct Receiver {
    cfg: ReceiverConfig,
    flow: u32,
    /// Node of the sender (destination of ACKs).
    peer: u32,
    rcv_nxt: u32,
    ooo: IntervalSet,
    /// Most recently received out-of-order segments, newest first (RFC 2018
    /// Sec. 4: the first block holds the newest segment, later blocks repeat
    /// the most recently reported ones).
    recent: Recent,
    /// Full segments received and not yet acknowledged.
    unacked: u32,
    delack_deadline: Option<Time>,
    quick_left: u32,
    ts_recent: Time,
    /// PAWS and its TS.Recent rule, if on.
    paws: Option<Paws>,
    /// Transmission index of the segment that triggered the next ACK,
    /// echoed like the RTX bit of Ludwig's proposal (rr-tcp Sec. 3); only
    /// the `-RTX` sender variants read it.
    echo_copy: u16,
    last_delivered: Option<u32>,
    /// DCTCP: the last data segment arrived with CE.
    ce_state: bool,
    pub stats: ReceiverStats,
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig, flow: u32, peer: u32) -> Receiver {
        let paws = cfg.paws.then(Paws::default);
        Receiver {
            cfg,
            flow,
            peer,
            rcv_nxt: 0,
            ooo: IntervalSet::new(),
            recent: Recent::default(),
            unacked: 0,
            delack_deadline: None,
            quick_left: MAX_QUICKACKS,
            ts_recent: 0,
            paws,
            echo_copy: 0,
            last_delivered: None,
            ce_state: false,
            stats: ReceiverStats::default(),
        }
    }

    /// The receiver echoes CE itself (DCTCP's state machine), not the
    /// host per marked segment (`sim/path.rs`).
    pub fn echoes_ce(&self) -> bool {
        self.cfg.dctcp
    }

    /// DCTCP's CE state machine (RFC 8257 Sec. 3.2; Linux
    /// `dctcp_ece_ack_update`): when a segment's CE differs from the
    /// last one's, a delayed ACK is sent first with the old state's
    /// ECN-Echo, and this segment is acknowledged at once. Whether it must.
    fn dctcp_ce_event(&mut self, ce: bool, now: Time, out: &mut Vec<Packet>) -> bool {
        if !self.cfg.dctcp || ce == self.ce_state {
            return false;
        }
        if self.unacked > 0 {
            self.send_ack(now, None, out);
        }
        self.ce_state = ce;
        true
    }

    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    /// Deadline of the delayed-ACK timer.
    pub fn deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// A SYN arrived: answer with a SYN-ACK (again, if it is a repeat).
    pub fn on_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        out.push(Packet::control(
            PacketKind::SynAck,
            self.flow,
            self.peer,
            self.cfg.ack_size,
            now,
        ));
    }

    /// A data segment arrived.
    pub fn on_data(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        let s = pkt.seq;
        let ce_changed = self.dctcp_ce_event(pkt.marks.ce(), now, out);
        self.echo_copy = pkt.copy;
        if let Some(p) = self.paws.as_mut() {
            if p.rejects(pkt.ts) {
                // tcp_paws_discard: dropped; tcp_send_dupack answers at
                // once, with a DSACK (and quickack) only below RCV.NXT.
                let below = (s < self.rcv_nxt).then_some(s);
                if below.is_some() {
                    self.quick_left = MAX_QUICKACKS;
                }
                self.send_ack(now, below, out);
                return;
            }
            if p.replace(s, pkt.ts) {
                self.ts_recent = pkt.ts;
            }
        }
        // Above RCV.NXT, one search both tells a duplicate and inserts a
        // new segment (the out-of-order set never holds RCV.NXT itself).
        let ooo_range = if s > self.rcv_nxt {
            self.ooo.insert_with_range(s, s + 1, |_, _| {})
        } else {
            (0, (0, 0))
        };
        if s < self.rcv_nxt || (s > self.rcv_nxt && ooo_range.0 == 0) {
            // Duplicate: ACK at once, reporting it with DSACK (RFC 2883 Sec. 4).
            self.stats.duplicates += 1;
            // Linux re-enters quickack mode on a duplicate (a sign of loss
            // recovery at the sender).
            self.quick_left = MAX_QUICKACKS;
            self.send_ack(now, Some(s), out);
        } else if s == self.rcv_nxt {
            self.stats.reordering.on_unique_arrival(s);
            if self.unacked == 0 && self.paws.is_none() {
                // RFC 7323 Sec. 4.3: echo the earliest unacknowledged
                // in-sequence segment.
                self.ts_recent = pkt.ts;
            }
            let filled_hole = !self.ooo.is_empty();
            self.advance(now);
            self.unacked += 1;
            let ack_now = filled_hole
                || ce_changed
                || self.wants_immediate_ack()
                || self.unacked >= self.cfg.delack_every;
            if ack_now {
                self.send_ack(now, None, out);
            } else if self.delack_deadline.is_none() {
                self.delack_deadline = Some(now + self.cfg.delack_timeout);
            }
        } else {
            // Out of order: above a hole. ACK at once (RFC 5681 Sec. 4.2).
            self.stats.out_of_order += 1;
            self.stats.reordering.on_unique_arrival(s);
            self.recent.remember(s, ooo_range.1);
            self.send_ack(now, None, out);
        }
    }

    /// The delayed-ACK timer expired.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.delack_deadline = None;
        if self.unacked > 0 {
            self.send_ack(now, None, out);
        }
    }

    /// Send the ACK being delayed, if any, at once: the client is sending a
    /// data-carrying segment (a web request), which carries the current
    /// ACK (RFC 1122 Sec. 4.2.3.2: delaying an ACK is to piggyback it).
    pub fn flush_delayed_ack(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.unacked > 0 {
            self.send_ack(now, None, out);
        }
    }

    fn wants_immediate_ack(&mut self) -> bool {
        match self.cfg.delayed_ack {
            DelayedAck::None => true,
            DelayedAck::Rfc1122 => false,
            DelayedAck::Quickack => {
                if self.quick_left > 0 {
                    self.quick_left -= 1;
                    true
                } else {
                    false
                }
            }
        }
    }

    /// Deliver `rcv_nxt` and any out-of-order data now contiguous.
    fn advance(&mut self, now: Time) {
        let old = self.rcv_nxt;
        self.rcv_nxt += 1;
        if let Some(end) = self.ooo.pop_front_if_starts_at(self.rcv_nxt) {
            self.rcv_nxt = end;
        }
        let nxt = self.rcv_nxt;
        self.recent.forget_below(nxt);
        self.stats.reordering.forget_below(nxt);
        for seq in old..self.rcv_nxt {
            self.deliver(seq, now);
        }
    }

    fn deliver(&mut self, seq: u32, now: Time) {
        if self.last_delivered.map_or(seq != 0, |l| seq != l + 1) {
            self.stats.order_violations += 1;
        }
        self.last_delivered = Some(seq);
        self.stats.segments_delivered += 1;
        self.stats.bytes_delivered += self.cfg.mss as u64;
        if now >= self.cfg.measure_from {
            self.stats.bytes_delivered_measured += self.cfg.mss as u64;
        }
        if self.cfg.expected_segments == Some(self.stats.segments_delivered) {
            self.stats.completed_at = Some(now);
        }
    }

    /// Build the SACK option: an optional DSACK block first (RFC 2883), then
    /// the blocks holding the most recently received segments (RFC 2018).
    fn sack_blocks(&self, dup: Option<u32>) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        if !self.cfg.sack {
            return blocks;
        }
        let max = (self.cfg.max_sack_blocks as usize).min(SackBlocks::MAX);
        let mut used: [(u32, u32); SackBlocks::MAX] = [(0, 0); SackBlocks::MAX];
        let mut n_used = 0;
        if let (Some(d), true) = (dup, self.cfg.dsack) {
            blocks.push(d, d + 1);
            // A duplicate inside a SACKed range: that range comes next.
            if let Some(r) = self.ooo.range_containing(d) {
                if blocks.len() < max {
                    blocks.push(r.0, r.1);
                    used[n_used] = r;
                    n_used += 1;
                }
            }
        }
        // Each recent segment's block is kept with it: the ranges of the
        // set are disjoint, so a segment inside a reported block has that
        // block as its own.
        for &r in self.recent.ranges_newest_first() {
            if blocks.len() >= max {
                break;
            }
            if !used[..n_used].contains(&r) {
                blocks.push(r.0, r.1);
                used[n_used] = r;
                n_used += 1;
            }
        }
        #[cfg(test)]
        self.recent.check(&self.ooo);
        blocks
    }

    fn send_ack(&mut self, now: Time, dup: Option<u32>, out: &mut Vec<Packet>) {
        let mut ack = Packet::control(
            PacketKind::Ack,
            self.flow,
            self.peer,
            self.cfg.ack_size,
            now,
        );
        ack.seq = self.rcv_nxt;
        if let Some(p) = self.paws.as_mut() {
            p.rcv_wup = self.rcv_nxt;
        }
        ack.ts = self.ts_recent;
        ack.copy = self.echo_copy;
        ack.immediate = dup.is_some() || !self.ooo.is_empty();
        ack.sack = self.sack_blocks(dup);
        if self.cfg.dctcp && self.ce_state {
            ack.marks.set_ece();
        }
        if dup.is_some() && self.cfg.dsack && self.cfg.sack {
            self.stats.dsacks_sent += 1;
        }
        self.unacked = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        out.push(ack);
    }
}

/// The last [`Recent::CAP`] out-of-order segments received, newest first,
/// without repeats, each with the range of the out-of-order set holding it
/// (so that the SACK blocks need no search of the set): a small array (a
/// deque's bookkeeping cost more than the eight moves).
#[derive(Debug, Clone, Default)]
struct Recent {
    seqs: [u32; Recent::CAP],
    ranges: [(u32, u32); Recent::CAP],
    len: usize,
}

impl Recent {
    const CAP: usize = 8;

    /// `seq` arrived and the set's range holding it is now `range`: it
    /// moves (or enters) at the front; the oldest of a full list leaves.
    /// Ranges only merge as segments arrive, so a remembered range inside
    /// `range` was merged into it.
    fn remember(&mut self, seq: u32, range: (u32, u32)) {
        let live = &self.seqs[..self.len];
        let end = match live.iter().position(|&r| r == seq) {
            Some(i) => i,
            None if self.len < Self::CAP => {
                self.len += 1;
                self.len - 1
            }
            None => Self::CAP - 1,
        };
        self.seqs.copy_within(0..end, 1);
        self.ranges.copy_within(0..end, 1);
        self.seqs[0] = seq;
        self.ranges[0] = range;
        for r in &mut self.ranges[1..self.len] {
            if range.0 <= r.0 && r.1 <= range.1 {
                *r = range;
            }
        }
    }

    /// Drop the segments below `seq` (now delivered), keeping the order:
    /// only the range delivered left the set, so the others' ranges stay.
    fn forget_below(&mut self, seq: u32) {
        let mut kept = 0;
        for i in 0..self.len {
            let r = self.seqs[i];
            if r >= seq {
                self.seqs[kept] = r;
                self.ranges[kept] = self.ranges[i];
                kept += 1;
            }
        }
        self.len = kept;
    }

    #[cfg(test)]
    fn newest_first(&self) -> &[u32] {
        &self.seqs[..self.len]
    }

    fn ranges_newest_first(&self) -> &[(u32, u32)] {
        &self.ranges[..self.len]
    }

    /// The kept ranges are the set's ranges holding the segments.
    #[cfg(test)]
    fn check(&self, ooo: &IntervalSet) {
        for (&seq, &r) in self.seqs[..self.len].iter().zip(&self.ranges) {
            assert_eq!(ooo.range_containing(seq), Some(r), "segment {seq}");
        }
    }
}

#[cfg(test)]
#[path = "receiver_tests.rs"]
mod tests;
