//! The event queue: a binary heap of plain-data events ordered by
//! (time, insertion counter), so equal-time events run in the order they were
//! scheduled and a run is bit-for-bit repeatable.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::time::Time;

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
    /// An impairment element releases the head of its held packets.
    ImpairRelease { element: u32 },
    /// Time-series sampling tick.
    Sample,
}

#[derive(Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// Min-queue of events with a deterministic tie-break.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    pub fn schedule(&mut self, time: Time, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Remove and return the earliest event.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
