//! The sender's scoreboard: per-segment state in a ring indexed by sequence
//! number, the SACKed ranges, and the counters from which the pipe estimate
//! is computed (RFC 6675 Sec. 2-4, in the Linux formulation
//! `in_flight = packets_out - (sacked_out + lost_out) + retrans_out`).
//!
//! Nothing here walks the window per ACK: a cumulative ACK costs the number
//! of segments it acknowledges, a SACK block the number of segments it newly
//! covers, loss marking the number of segments newly marked, and the
//! retransmission cursor only moves forward within an episode.
//!
//! For RACK (RFC 8985 Sec. 6.2 step 5) the scoreboard can also keep the
//! outstanding segments that are neither SACKed nor marked lost (or whose
//! retransmission is outstanding) in the order they were last sent, as
//! Linux's `tp->tsorted_sent_queue`: a segment leaves the list when it is
//! acknowledged, SACKed or marked lost, and re-enters at the tail when it is
//! retransmitted. The links live in the segments themselves (no allocation
//! per packet); see [`Scoreboard::track_send_order`]. A bookmark in the list
//! finds the last segment sent at or before a time that only grows (RACK's
//! RACK.xmit_ts) without walking the list from its head
//! ([`Scoreboard::last_sent_at_or_before`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::engine::Time;
use crate::tcp::intervals::IntervalSet;

use send_order::unlink_in;

#[path = "scoreboard_send_order.rs"]
mod send_order;

/// What the sender knows about one segment.
#[derive(Debug, Clone, Copy, Default)]
pub struct SegState {
    /// Time of the latest transmission.
    pub sent_at: Time,
    /// Time of the first transmission.
    pub first_sent_at: Time,
    /// Transmissions so far (1 = never retransmitted).
    pub copies: u16,
    /// Covered by a SACK block.
    pub sacked: bool,
    /// Deemed lost (Linux `TCPCB_LOST`).
    pub lost: bool,
    /// A retransmission is outstanding (Linux `TCPCB_SACKED_RETRANS`).
    pub retrans: bool,
    /// Congestion window when last sent (TCP-PR halves from it).
    pub cwnd_at_send: f32,
    /// Its lost mark was undone while it was out of the send-order list
    /// ([`Scoreboard::unmark_lost_out_of_order`]): it stays out until
    /// retransmitted or marked lost again.
    pub unlisted: bool,
    /// Neighbours in the send-time-ordered list ([`NIL`] = none); valid
    /// only while the segment is in it.
    prev_sent: u32,
    next_sent: u32,
}

/// No segment (end of the send-time-ordered list).
const NIL: u32 = u32::MAX;

impl SegState {
    /// Member of the send-time-ordered list: not SACKed, and either not
    /// marked lost or with a retransmission outstanding (the segments RFC
    /// 8985 Sec. 6.2 step 5 examines).
    #[inline]
    pub fn awaiting_delivery(&self) -> bool {
        !self.sacked && !self.unlisted && (!self.lost || self.retrans)
    }
}

/// Summary of a cumulative ACK.
#[derive(Debug, Clone, Copy, Default)]
pub struct CumAck {
    /// Segments newly acknowledged.
    pub acked: u32,
    /// Some of them were sent more than once (Karn: no RTT sample).
    pub any_retransmitted: bool,
    /// Send time of the highest newly acknowledged segment.
    pub last_sent_at: Time,
    /// Send time of the lowest newly acknowledged segment that had not been
    /// SACKed (the one whose arrival produced this ACK; a hole closed late
    /// carries its whole delay), else of the lowest acknowledged.
    pub first_sent_at: Option<Time>,
    /// Of those acknowledged, how many had been SACKed before.
    pub were_sacked: u32,
}

#[derive(Debug)]
pub struct Scoreboard {
    /// SND.UNA: lowest unacknowledged segment.
    una: u32,
    /// SND.NXT: one past the highest segment sent (HighData + 1).
    nxt: u32,
    segs: VecDeque<SegState>,
    sacked: IntervalSet,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
    /// Segments below this have been considered by the dupthresh marking.
    lost_hi: u32,
    /// One past the highest segment ever marked lost (scan bound).
    lost_max: u32,
    /// No segment below this is lost and not yet retransmitted, but for
    /// those in `lost_below`; it only moves up, but at a timeout.
    retx_hint: u32,
    /// Segments marked lost below `retx_hint` (a min-heap; an entry is
    /// dropped when found acknowledged, SACKed or retransmitted).
    lost_below: BinaryHeap<Reverse<u32>>,
    /// The send-time-ordered list is kept ([`Self::track_send_order`]).
    send_order: bool,
    /// Its first (earliest sent) and last segments, [`NIL`] when empty.
    sent_head: u32,
    sent_tail: u32,
    /// A segment of the list, or [`NIL`] for "before the head"; when its
    /// segment leaves the list it moves to the one sent before it, so the
    /// segments up to it keep their order and it stays in the list
    /// ([`Self::last_sent_at_or_before`]).
    sent_mark: u32,
    /// Scratch for [`Self::rebuild_send_order`].
    sort_buf: Vec<(Time, u32)>,
    /// Ranges of `sacked` that the last SACK blocks fell in, in a ring
    /// (`known_next` is the next to replace). SACKed segments leave the set
    /// only below SND.UNA, so whatever lies in one of them at or above
    /// SND.UNA is SACKed: a block repeated by the next ACKs (RFC 2018 Sec.
    /// 4 reports each range up to three times) needs no search.
    known: [(u32, u32); KNOWN_RANGES],
    known_next: usize,
}

/// Ranges remembered in [`Scoreboard::known`].
const KNOWN_RANGES: usize = 8;

impl Default for Scoreboard {
    fn default() -> Scoreboard {
        Scoreboard::new()
    }
}

impl Scoreboard {
    pub fn new() -> Scoreboard {
        Scoreboard {
            una: 0,
            nxt: 0,
            segs: VecDeque::new(),
            sacked: IntervalSet::new(),
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            lost_hi: 0,
            lost_max: 0,
            retx_hint: 0,
            lost_below: BinaryHeap::new(),
            send_order: false,
            sent_head: NIL,
            sent_tail: NIL,
            sent_mark: NIL,
            sort_buf: Vec::new(),
            known: [(0, 0); KNOWN_RANGES],
            known_next: 0,
        }
    }

    /// Keep the send-time-ordered list of the segments awaiting delivery
    /// ([`SegState::awaiting_delivery`]) from now on. Call before anything
    /// is sent.
    pub fn track_send_order(&mut self) {
        debug_assert!(self.segs.is_empty());
        self.send_order = true;
    }

    pub fn una(&self) -> u32 {
        self.una
    }
    pub fn nxt(&self) -> u32 {
        self.nxt
    }
    /// Segments sent and not cumulatively acknowledged (FlightSize).
    pub fn packets_out(&self) -> u32 {
        self.nxt - self.una
    }
    pub fn sacked_out(&self) -> u32 {
        self.sacked_out
    }
    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }
    pub fn retrans_out(&self) -> u32 {
        self.retrans_out
    }
    pub fn sacked_ranges(&self) -> &[(u32, u32)] {
        self.sacked.ranges()
    }

    /// RFC 6675 `pipe`: segments believed to be in the network.
    pub fn pipe(&self) -> u32 {
        self.packets_out() + self.retrans_out - self.sacked_out - self.lost_out
    }

    pub fn seg(&self, seq: u32) -> Option<&SegState> {
        if seq < self.una {
            return None;
        }
        self.segs.get((seq - self.una) as usize)
    }

    fn seg_mut(&mut self, seq: u32) -> &mut SegState {
        let i = (seq - self.una) as usize;
        &mut self.segs[i]
    }

    /// Record the first transmission of the next new segment.
    pub fn send_new(&mut self, now: Time, cwnd: f64) -> u32 {
        let seq = self.nxt;
        self.segs.push_back(SegState {
            sent_at: now,
            first_sent_at: now,
            copies: 1,
            cwnd_at_send: cwnd as f32,
            ..SegState::default()
        });
        self.nxt += 1;
        if self.send_order {
            self.link_last(seq);
        }
        seq
    }

    /// Record a retransmission of `seq`; returns its copy index.
    pub fn retransmit(&mut self, seq: u32, now: Time, cwnd: f64) -> u16 {
        if self.send_order && self.seg_mut(seq).awaiting_delivery() {
            self.unlink(seq);
        }
        let s = self.seg_mut(seq);
        s.unlisted = false;
        let copy = s.copies;
        s.copies = s.copies.saturating_add(1);
        s.sent_at = now;
        s.cwnd_at_send = cwnd as f32;
        let newly = !s.retrans;
        s.retrans = true;
        let queued = s.awaiting_delivery();
        if newly {
            self.retrans_out += 1;
        }
        if self.send_order && queued {
            self.link_last(seq);
        }
        copy
    }

    /// Apply a cumulative ACK: everything below `ack` is acknowledged.
    pub fn cum_ack(&mut self, ack: u32) -> CumAck {
        self.cum_ack_with(ack, |_, _| {})
    }

    /// [`Self::cum_ack`], calling `on_acked(seq, state)` for each segment.
    pub fn cum_ack_with(&mut self, ack: u32, mut on_acked: impl FnMut(u32, &SegState)) -> CumAck {
        let mut info = CumAck::default();
        while self.una < ack {
            if self.send_order && self.segs.front().is_some_and(SegState::awaiting_delivery) {
                self.unlink(self.una);
            }
            let s = self.segs.pop_front().expect("ack beyond snd_nxt");
            on_acked(self.una, &s);
            info.acked += 1;
            info.any_retransmitted |= s.copies > 1;
            info.last_sent_at = s.sent_at;
            if info.first_sent_at.is_none() && !s.sacked {
                info.first_sent_at = Some(s.sent_at);
            }
            if s.sacked {
                self.sacked_out -= 1;
                info.were_sacked += 1;
            }
            if s.lost && !s.sacked {
                self.lost_out -= 1;
            }
            if s.retrans {
                self.retrans_out -= 1;
            }
            self.una += 1;
        }
        self.sacked.trim_below(self.una);
        self.lost_hi = self.lost_hi.max(self.una);
        self.retx_hint = self.retx_hint.max(self.una);
        info
    }

    /// Apply one SACK block `[start, end)`; returns the segments newly SACKed
    /// and calls `on_new` for each of them.
    // Out of line: inlined into the ACK path, it moved other calls out of
    // line there (+0.3 % instructions on ref-highspeed).
    #[inline(never)]
    pub fn sack(&mut self, start: u32, end: u32, mut on_new: impl FnMut(u32, &SegState)) -> u32 {
        let start = start.max(self.una);
        let end = end.min(self.nxt);
        // (every entry compared, without early exit: branch-free)
        let known = (self.known.iter()).fold(false, |k, &(a, b)| k | ((a <= start) & (end <= b)));
        if start >= end || known {
            return 0;
        }
        let una = self.una;
        let Scoreboard {
            segs,
            sacked,
            sacked_out,
            lost_out,
            retrans_out,
            send_order,
            sent_head,
            sent_tail,
            sent_mark,
            ..
        } = self;
        let (newly, range) = sacked.insert_with_range(start, end, |a, b| {
            for seq in a..b {
                if *send_order && segs[(seq - una) as usize].awaiting_delivery() {
                    unlink_in(segs, una, (sent_head, sent_tail), sent_mark, seq);
                }
                let s = &mut segs[(seq - una) as usize];
                s.sacked = true;
                if s.lost {
                    *lost_out -= 1;
                }
                if s.retrans {
                    *retrans_out -= 1;
                }
                s.retrans = false;
                *sacked_out += 1;
                on_new(seq, s);
            }
        });
        self.known[self.known_next] = range;
        self.known_next = (self.known_next + 1) % KNOWN_RANGES;
        newly
    }

    /// RFC 6675 `IsLost(seq)`: at least `dupthresh` SACKed segments above it
    /// (segment granularity makes the byte and block criteria coincide).
    pub fn is_lost(&self, seq: u32, dupthresh: u32) -> bool {
        if seq == self.una {
            // Every SACKed segment is at or above SND.UNA: no walk.
            let at_una = self.segs.front().is_some_and(|s| s.sacked) as u32;
            return self.sacked_out - at_una >= dupthresh;
        }
        self.sacked.count_at_or_above(seq + 1) >= dupthresh
    }

    /// Mark every un-SACKed segment for which `IsLost` holds. Returns the
    /// number newly marked.
    pub fn mark_lost_by_dupthresh(&mut self, dupthresh: u32) -> u32 {
        let Some(limit) = self.sacked.kth_highest(dupthresh.max(1)) else {
            return 0;
        };
        let mut marked = 0;
        let from = self.lost_hi.max(self.una);
        for seq in from..limit {
            if self.mark_lost(seq) {
                marked += 1;
            }
        }
        self.lost_hi = self.lost_hi.max(limit);
        marked
    }

    /// Mark one segment lost (if un-SACKed and not already lost).
    pub fn mark_lost(&mut self, seq: u32) -> bool {
        if seq < self.una || seq >= self.nxt {
            return false;
        }
        let s = self.seg_mut(seq);
        if s.sacked || s.lost {
            return false;
        }
        s.lost = true;
        let left = !s.retrans && !std::mem::take(&mut s.unlisted);
        if self.send_order && left {
            self.unlink(seq);
        }
        self.lost_out += 1;
        self.note_lost(seq);
        true
    }

    /// `seq` was just marked lost: NextSeg rule 1 may pick it.
    #[inline]
    fn note_lost(&mut self, seq: u32) {
        if seq < self.retx_hint {
            self.push_lost_below(seq);
        }
        self.lost_max = self.lost_max.max(seq + 1);
    }

    #[inline(never)]
    fn push_lost_below(&mut self, seq: u32) {
        self.lost_below.push(Reverse(seq));
    }

    /// A retransmission of `seq` is itself deemed lost: make it eligible for
    /// another retransmission.
    pub fn mark_retransmission_lost(&mut self, seq: u32) {
        if seq < self.una || seq >= self.nxt {
            return;
        }
        let s = self.seg_mut(seq);
        if s.sacked || !s.retrans {
            return;
        }
        // Not SACKed with a retransmission out: in the send-order list.
        if self.send_order {
            self.unlink(seq);
        }
        let s = self.seg_mut(seq);
        s.retrans = false;
        let was_lost = std::mem::replace(&mut s.lost, true);
        self.retrans_out -= 1;
        if !was_lost {
            self.lost_out += 1;
        }
        self.note_lost(seq);
    }

    /// Forget lost marks of segments not retransmitted (after an undo of a
    /// timeout found spurious: they were not lost after all).
    pub fn clear_lost_marks(&mut self) {
        for s in self.segs.iter_mut() {
            s.unlisted = false;
            if s.lost && !s.sacked && !s.retrans {
                s.lost = false;
                self.lost_out -= 1;
            }
        }
        self.lost_hi = self.una;
        if self.send_order {
            self.rebuild_send_order();
        }
    }

    /// Linux `tcp_undo_cwnd_reduction(sk, true)` (a partial undo in fast
    /// recovery, `tcp_try_undo_partial`): the lost marks of segments not
    /// retransmitted are cleared, but RACK marked them and took them off
    /// its send-time list (`tcp_rack_detect_loss`), and nothing puts them
    /// back: RACK does not examine them again until they are retransmitted
    /// or a timeout marks them.
    pub fn unmark_lost_out_of_order(&mut self) {
        for s in self.segs.iter_mut() {
            if s.lost && !s.sacked && !s.retrans {
                s.lost = false;
                s.unlisted = self.send_order;
                self.lost_out -= 1;
            }
        }
        self.lost_hi = self.una;
    }

    /// On a retransmission timeout: every un-SACKed outstanding segment is
    /// lost and earlier retransmissions are forgotten (RFC 6675 Sec. 5.1;
    /// as Linux `tcp_enter_loss`, SACK information is kept).
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.unlisted = false;
            if s.retrans {
                s.retrans = false;
            }
            if !s.sacked && !s.lost {
                s.lost = true;
                self.lost_out += 1;
            }
        }
        self.retrans_out = 0;
        // Nothing awaits delivery any more.
        self.sent_head = NIL;
        self.sent_tail = NIL;
        self.sent_mark = NIL;
        self.lost_hi = self.nxt;
        self.lost_max = self.nxt;
        self.retx_hint = self.una;
        self.lost_below.clear();
    }

    /// The lowest segment that is lost, not SACKed and not already
    /// retransmitted (RFC 6675 NextSeg rule 1). Segments marked lost below
    /// the scan's hint (lost retransmissions, RACK's marks in send order)
    /// are taken from `lost_below`, so the scan never goes back over the
    /// window: each segment is passed over once per episode.
    #[inline]
    pub fn next_lost(&mut self) -> Option<u32> {
        let found = if self.lost_below.is_empty() {
            self.scan_lost()
        } else {
            self.lost_below_or_scan()
        };
        // The crate's tests check it against a scan of the whole window.
        #[cfg(test)]
        self.check_next_lost(found);
        found
    }

    /// Every entry of `lost_below` is below `retx_hint`: the lowest one
    /// still lost and not retransmitted is the lowest lost segment.
    #[inline(never)]
    fn lost_below_or_scan(&mut self) -> Option<u32> {
        while let Some(&Reverse(seq)) = self.lost_below.peek() {
            let s = self.seg(seq);
            if s.is_some_and(|s| s.lost && !s.sacked && !s.retrans) {
                return Some(seq);
            }
            self.lost_below.pop();
        }
        self.scan_lost()
    }

    /// The lowest lost segment at or above `retx_hint`.
    #[inline]
    fn scan_lost(&mut self) -> Option<u32> {
        let mut seq = self.retx_hint.max(self.una);
        let end = self.lost_max.min(self.nxt);
        while seq < end {
            let s = &self.segs[(seq - self.una) as usize];
            if s.lost && !s.sacked && !s.retrans {
                self.retx_hint = seq;
                return Some(seq);
            }
            seq += 1;
        }
        self.retx_hint = seq;
        None
    }
}

#[cfg(test)]
#[path = "scoreboard_tests.rs"]
mod tests;
