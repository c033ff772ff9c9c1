//! The event queue: plain-data events ordered by (time, insertion counter),
//! so equal-time events run in the order they were scheduled and a run is
//! bit-for-bit repeatable.

use super::time::Time;
use super::tournament::Tournament;

/// Key of an empty queue (above every real key).
const EMPTY: u128 = u128::MAX;

/// Timers a flow can arm. Each has one [`super::TimerSlot`] per flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TimerKind {
    /// Sender retransmission timer (RFC 6298).
    Rto = 0,
    /// Sender auxiliary timer: loss probe, reorder timer, TCP-PR deadline.
    Aux = 1,
    /// Receiver delayed-ACK timer.
    DelAck = 2,
}

pub const TIMER_KINDS: usize = 3;

/// Everything that can happen. Small and `Copy`: no boxed closures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The packet at the head of a link's in-flight FIFO reaches the far node.
    LinkDeliver { link: u32 },
    /// A flow timer; stale if `gen` is not the slot's current generation.
    Timer {
        flow: u32,
        kind: TimerKind,
        gen: u32,
    },
    /// A flow's application starts.
    FlowStart { flow: u32 },
    /// An impairment element's deadline (release of held packets, swap);
    /// stale if `gen` is not the element's current timer generation.
    ImpairRelease { element: u32, gen: u32 },
    /// Time-series sampling tick.
    Sample,
    /// A traffic generator's session has its next object (or page) due.
    Traffic { source: u32, session: u32 },
    /// A web client's request for its next object reaches the server of a
    /// persistent connection ([`crate::app::web`]).
    Request { flow: u32 },
    /// The head of a link's priority lane (a trimmed header) reaches the
    /// far node.
    HeaderDeliver { link: u32 },
    /// A fabric's cable changes (`topology.events[index]`).
    LinkChange { index: u32 },
}

/// The event queue: events ordered by `(time, insertion counter)`.
///
/// Link heads (most events: one per packet per hop) and everything else
/// (timers, mostly: hundreds when many flows are open, each due far ahead)
/// are kept apart, sharing one insertion counter. A link has at most one
/// pending event, the arrival of its FIFO's head, so link heads sit in a
/// winner tree with one fixed slot per link; the rest is a 4-ary heap. The
/// earliest event is the smaller of the two tops, so the order is exactly
/// that of one queue.
#[derive(Debug, Default)]
pub struct EventQueue {
    links: Tournament,
    others: Heap,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// A queue with room for link heads of links `0..links` (it grows if
    /// needed).
    pub fn with_links(links: usize) -> EventQueue {
        EventQueue {
            links: Tournament::with_slots(links),
            ..EventQueue::default()
        }
    }

    /// The next insertion number.
    #[inline]
    fn next_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    #[inline]
    fn key(&mut self, time: Time) -> u128 {
        ((time as u128) << 64) | self.next_seq() as u128
    }

    /// Whether the earliest event is a link head (`None`: queue empty).
    #[inline]
    fn earliest_is_link(&self) -> Option<bool> {
        let (l, o) = (self.links.top_key(), self.others.top_key());
        // Keys are unique, so equal keys can only be two empty queues.
        if l < o {
            Some(true)
        } else if o != EMPTY {
            Some(false)
        } else {
            None
        }
    }

    /// Schedule `event` at `time`. A link may have only one pending
    /// [`Event::LinkDeliver`] (its FIFO's head).
    pub fn schedule(&mut self, time: Time, event: Event) {
        match event {
            Event::LinkDeliver { link } => {
                debug_assert!(
                    self.links.key(link).is_none(),
                    "link {link} already has a head event"
                );
                let seq = self.next_seq();
                self.links.set(link, time, seq);
            }
            _ => {
                let key = self.key(time);
                self.others.push(key, event)
            }
        }
    }

    /// Remove and return the earliest event.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if self.earliest_is_link()? {
            let (time, _, link) = self.links.top()?;
            self.links.clear(link);
            Some((time, Event::LinkDeliver { link }))
        } else {
            let (key, event) = self.others.pop();
            Some(((key >> 64) as Time, event))
        }
    }

    /// The link whose head is the earliest event, if it is a link head.
    #[inline(always)]
    pub fn next_link(&self) -> Option<u32> {
        match self.earliest_is_link() {
            Some(true) => self.links.top().map(|(_, _, link)| link),
            _ => None,
        }
    }

    /// The earliest event, left in the queue.
    #[inline]
    pub fn peek(&self) -> Option<(Time, Event)> {
        let l = self.links.top();
        let o = self.others.top_key();
        match l {
            Some((time, seq, link)) if (((time as u128) << 64) | seq as u128) < o => {
                Some((time, Event::LinkDeliver { link }))
            }
            _ if o != EMPTY => Some(((o >> 64) as Time, self.others.events[0])),
            _ => None,
        }
    }

    /// The earliest event is `link`'s head, delivered now: its next head
    /// (at `next`, which takes the next insertion number as if scheduled
    /// now) takes its place, or the link leaves the tree.
    #[inline]
    pub fn replace_link_head(&mut self, link: u32, next: Option<Time>) {
        debug_assert_eq!(
            self.peek().map(|(_, e)| e),
            Some(Event::LinkDeliver { link })
        );
        match next {
            Some(time) => {
                let seq = self.next_seq();
                self.links.set(link, time, seq);
            }
            None => self.links.clear(link),
        }
    }

    /// Replace the earliest event by `event` at `time` (>= the earliest
    /// time): a link head replacing itself replays one path of the winner
    /// tree. It takes the next insertion number, exactly as if it had been
    /// scheduled now.
    #[inline]
    pub fn replace_top(&mut self, time: Time, event: Event) {
        let top_is_link = self
            .earliest_is_link()
            .expect("replace_top on an empty queue");
        match (top_is_link, event) {
            (true, Event::LinkDeliver { link })
                if self.links.top().is_some_and(|(_, _, l)| l == link) =>
            {
                let seq = self.next_seq();
                self.links.set(link, time, seq);
            }
            (false, e) if !matches!(e, Event::LinkDeliver { .. }) => {
                let key = self.key(time);
                self.others.replace_top(key, event);
            }
            _ => {
                self.pop();
                self.schedule(time, event);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.links.len() + self.others.keys.len()
    }

    /// Events scheduled so far.
    pub fn scheduled(&self) -> u64 {
        self.next_seq
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A 4-ary min-heap keyed by `(time << 64) | insertion counter`. Keys and
/// events live in separate arrays so the sift loops touch only the keys;
/// a 4-ary heap halves the depth of a binary one, and with the combined key
/// every comparison is one integer compare.
#[derive(Debug, Default)]
struct Heap {
    keys: Vec<u128>,
    events: Vec<Event>,
}

const ARITY: usize = 4;

impl Heap {
    /// The smallest key, or [`EMPTY`].
    #[inline]
    fn top_key(&self) -> u128 {
        self.keys.first().copied().unwrap_or(EMPTY)
    }

    fn push(&mut self, key: u128, event: Event) {
        self.keys.push(key);
        self.events.push(event);
        self.sift_up(self.keys.len() - 1);
    }

    /// Remove the top (the heap must not be empty).
    fn pop(&mut self) -> (u128, Event) {
        let n = self.keys.len();
        let key = self.keys.swap_remove(0);
        let event = self.events.swap_remove(0);
        if n > 2 {
            self.sift_down(0);
        }
        (key, event)
    }

    #[inline]
    fn replace_top(&mut self, key: u128, event: Event) {
        self.keys[0] = key;
        self.events[0] = event;
        self.sift_down(0);
    }

    fn sift_up(&mut self, mut i: usize) {
        let key = self.keys[i];
        let event = self.events[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.keys[parent] <= key {
                break;
            }
            self.keys[i] = self.keys[parent];
            self.events[i] = self.events[parent];
            i = parent;
        }
        self.keys[i] = key;
        self.events[i] = event;
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.keys.len();
        let key = self.keys[i];
        let event = self.events[i];
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            let (best, best_key) = match self.keys.get(first..first + ARITY) {
                Some(children) => {
                    let (k, c) = min_of_four(children);
                    (first + c, k)
                }
                None => self.min_child(first, n),
            };
            if key <= best_key {
                break;
            }
            self.keys[i] = best_key;
            self.events[i] = self.events[best];
            i = best;
        }
        self.keys[i] = key;
        self.events[i] = event;
    }

    /// The smallest of the children `first..n` of a node with fewer than
    /// ARITY children (the last internal node).
    fn min_child(&self, first: usize, n: usize) -> (usize, u128) {
        let mut best = first;
        for c in first + 1..n {
            if self.keys[c] < self.keys[best] {
                best = c;
            }
        }
        (best, self.keys[best])
    }
}

/// The smallest of four keys and its index, as a tournament of selects
/// rather than a loop of branches: which child is smallest is a coin toss
/// the branch predictor gets wrong half the time. Ties go to the lower index
/// (keys are unique anyway: each holds its insertion number).
#[inline(always)]
fn min_of_four(k: &[u128]) -> (u128, usize) {
    let (a, ia) = if k[1] < k[0] { (k[1], 1) } else { (k[0], 0) };
    let (b, ib) = if k[3] < k[2] { (k[3], 3) } else { (k[2], 2) };
    if b < a {
        (b, ib)
    } else {
        (a, ia)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_schedule_pops_in_key_order() {
        let mut q = EventQueue::new();
        let mut rng = crate::engine::Rng::from_seed(11);
        let mut expected = Vec::new();
        for i in 0..2000u32 {
            let t = rng.next_u64() % 500;
            q.schedule(t, Event::LinkDeliver { link: i });
            expected.push((t, i));
            if i % 3 == 0 {
                let (t0, e0) = q.pop().unwrap();
                expected.sort();
                let (et, ei) = expected.remove(0);
                assert_eq!((t0, e0), (et, Event::LinkDeliver { link: ei }));
            }
        }
        expected.sort();
        for (et, ei) in expected {
            assert_eq!(q.pop(), Some((et, Event::LinkDeliver { link: ei })));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn replace_top_orders_like_pop_then_schedule() {
        let mut a = EventQueue::new();
        let mut b = EventQueue::new();
        for (t, l) in [(5, 0), (3, 1), (9, 2), (3, 3)] {
            a.schedule(t, Event::LinkDeliver { link: l });
            b.schedule(t, Event::LinkDeliver { link: l });
        }
        assert_eq!(a.peek(), Some((3, Event::LinkDeliver { link: 1 })));
        a.replace_top(7, Event::LinkDeliver { link: 9 });
        b.pop();
        b.schedule(7, Event::LinkDeliver { link: 9 });
        let da: Vec<_> = std::iter::from_fn(|| a.pop()).collect();
        let db: Vec<_> = std::iter::from_fn(|| b.pop()).collect();
        assert_eq!(da, db);
    }

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::LinkDeliver { link: 0 });
        q.schedule(3, Event::LinkDeliver { link: 1 });
        q.schedule(5, Event::LinkDeliver { link: 2 });
        q.schedule(3, Event::Sample);
        let order: Vec<(Time, Event)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (3, Event::LinkDeliver { link: 1 }),
                (3, Event::Sample),
                (5, Event::LinkDeliver { link: 0 }),
                (5, Event::LinkDeliver { link: 2 }),
            ]
        );
    }

    /// Link heads and other events live in two heaps; schedules, pops and
    /// replacements of either kind by either kind come out exactly in
    /// (time, insertion) order, as from one sorted list.
    #[test]
    fn two_heaps_order_like_one_sorted_list() {
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64, Event)> = Vec::new();
        let mut seq = 0u64;
        let mut rng = crate::engine::Rng::from_seed(7);
        let mut now: Time = 0;
        for i in 0..5000u32 {
            let r = rng.next_u64();
            let t = now + r % 300;
            let event = if r.is_multiple_of(3) {
                Event::Sample
            } else if r % 3 == 1 {
                Event::LinkDeliver { link: i }
            } else {
                Event::Timer {
                    flow: i,
                    kind: TimerKind::Rto,
                    gen: 0,
                }
            };
            match (r >> 32) % 4 {
                0 | 1 => {
                    q.schedule(t, event);
                    reference.push((t, seq, event));
                    seq += 1;
                }
                2 if !reference.is_empty() => {
                    reference.sort_by_key(|&(t, s, _)| (t, s));
                    let (rt, _, re) = reference.remove(0);
                    assert_eq!(q.pop(), Some((rt, re)));
                    now = rt;
                }
                _ if !reference.is_empty() => {
                    reference.sort_by_key(|&(t, s, _)| (t, s));
                    let (rt, _, re) = reference.remove(0);
                    assert_eq!(q.peek(), Some((rt, re)));
                    let t = t.max(rt);
                    q.replace_top(t, event);
                    reference.push((t, seq, event));
                    seq += 1;
                    now = rt;
                }
                _ => {}
            }
            assert_eq!(q.len(), reference.len());
        }
        reference.sort_by_key(|&(t, s, _)| (t, s));
        let rest: Vec<(Time, Event)> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<(Time, Event)> = reference.iter().map(|&(t, _, e)| (t, e)).collect();
        assert_eq!(rest, want);
    }
}
