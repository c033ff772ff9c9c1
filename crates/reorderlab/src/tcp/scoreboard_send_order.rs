//! The scoreboard's send-time-ordered list of the segments awaiting
//! delivery (RFC 8985 Sec. 6.2 step 5; Linux's `tp->tsorted_sent_queue`):
//! its links live in the segments (`prev_sent`, `next_sent`), its ends and
//! bookmark in the [`Scoreboard`].

use std::collections::VecDeque;

use super::{Scoreboard, SegState, NIL};
use crate::engine::Time;

impl Scoreboard {
    /// The earliest-sent segment awaiting delivery (needs
    /// [`Self::track_send_order`]).
    pub fn first_sent(&self) -> Option<u32> {
        (self.sent_head != NIL).then_some(self.sent_head)
    }

    /// The segment awaiting delivery sent next after `seq` (which must be in
    /// the list).
    pub fn next_sent(&self, seq: u32) -> Option<u32> {
        let n = self.segs[(seq - self.una) as usize].next_sent;
        (n != NIL).then_some(n)
    }

    /// The segment awaiting delivery sent just before `seq` (which must be
    /// in the list).
    pub fn prev_sent(&self, seq: u32) -> Option<u32> {
        let p = self.segs[(seq - self.una) as usize].prev_sent;
        (p != NIL).then_some(p)
    }

    /// The last segment of the send-order list sent at or before `t` (the
    /// list is in nondecreasing send time, so these are a prefix of it).
    /// The search starts from a bookmark left by the previous call: with
    /// `t` nondecreasing from call to call, its cost is amortized over the
    /// segments that join the prefix, plus one step back each time the
    /// bookmarked segment leaves the list.
    pub fn last_sent_at_or_before(&mut self, t: Time) -> Option<u32> {
        let una = self.una;
        let at = |seq: u32| &self.segs[(seq - una) as usize];
        let mut m = self.sent_mark;
        // Back, if `t` went down (not the case in RACK: RACK.xmit_ts only
        // grows).
        while m != NIL && at(m).sent_at > t {
            m = at(m).prev_sent;
        }
        loop {
            let n = if m == NIL {
                self.sent_head
            } else {
                at(m).next_sent
            };
            if n == NIL || at(n).sent_at > t {
                break;
            }
            m = n;
        }
        self.sent_mark = m;
        (m != NIL).then_some(m)
    }

    /// Append `seq` (just sent) at the tail of the send-time-ordered list.
    pub(super) fn link_last(&mut self, seq: u32) {
        let tail = self.sent_tail;
        let una = self.una;
        debug_assert!(
            tail == NIL
                || self.segs[(tail - una) as usize].sent_at
                    <= self.segs[(seq - una) as usize].sent_at
        );
        let s = &mut self.segs[(seq - una) as usize];
        s.prev_sent = tail;
        s.next_sent = NIL;
        if tail == NIL {
            self.sent_head = seq;
        } else {
            self.segs[(tail - una) as usize].next_sent = seq;
        }
        self.sent_tail = seq;
    }

    /// Remove `seq` from the send-time-ordered list.
    pub(super) fn unlink(&mut self, seq: u32) {
        let ends = (&mut self.sent_head, &mut self.sent_tail);
        unlink_in(&mut self.segs, self.una, ends, &mut self.sent_mark, seq);
    }

    /// Relink every segment awaiting delivery by (send time, sequence)
    /// after lost marks were cleared wholesale (rare: an undone timeout).
    pub(super) fn rebuild_send_order(&mut self) {
        let mut buf = std::mem::take(&mut self.sort_buf);
        buf.clear();
        buf.extend(
            self.segs
                .iter()
                .zip(self.una..)
                .filter(|(s, _)| s.awaiting_delivery())
                .map(|(s, seq)| (s.sent_at, seq)),
        );
        buf.sort_unstable();
        self.sent_head = NIL;
        self.sent_tail = NIL;
        self.sent_mark = NIL;
        for &(_, seq) in &buf {
            self.link_last(seq);
        }
        self.sort_buf = buf;
    }
}

/// Remove `seq` from the send-time-ordered list whose head and tail are
/// `ends`, moving its bookmark `mark` back one segment if it is on `seq` (a
/// free function so that [`Scoreboard::sack`] can use it while it borrows
/// the ranges).
pub(super) fn unlink_in(
    segs: &mut VecDeque<SegState>,
    una: u32,
    (head, tail): (&mut u32, &mut u32),
    mark: &mut u32,
    seq: u32,
) {
    let s = &segs[(seq - una) as usize];
    let (p, n) = (s.prev_sent, s.next_sent);
    if *mark == seq {
        *mark = p;
    }
    if p == NIL {
        *head = n;
    } else {
        segs[(p - una) as usize].next_sent = n;
    }
    if n == NIL {
        *tail = p;
    } else {
        segs[(n - una) as usize].prev_sent = p;
    }
}
