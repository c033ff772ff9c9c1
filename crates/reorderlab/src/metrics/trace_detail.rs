//! What a time-sequence graph shows beyond the trace of
//! [`super::trace`] (`record.trace_details`, `reorderlab plot`): the SACK
//! blocks of every ACK, each retransmission's cause and whether the
//! ground truth calls it spurious, the copies the network dropped, the
//! receiver window, and every link's queue at each sample of the series.
//!
//! Off unless asked for: a run without `record.trace_details` records and
//! writes nothing of this (its result is the same, byte for byte).
//!
//! Spurious is the ground truth of [`crate::tcp::truth`]: copy k of a
//! segment was necessary when the network dropped every earlier copy
//! 0..k-1, whenever that drop happened (a held copy can be dropped after
//! the retransmission left), and spurious otherwise; so it is decided at
//! the end of the run, from the drops of the whole run.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::engine::time::to_secs;
use crate::engine::Time;
use crate::net::packet::Packet;

/// Causes of a retransmission, in the order of the counters
/// [`Retransmits`] holds (`crate::tcp::truth::RetxCause`'s).
pub const CAUSES: [&str; 3] = ["fast", "timeout", "probe"];

/// A sender's retransmissions so far, by cause ([`CAUSES`]).
pub type Retransmits = [u64; 3];

/// Copies a ground-truth mask tracks per segment (the ledger's limit:
/// later copies count as spurious there too).
const MAX_COPIES: u16 = 64;

/// One flow's details: parallel columns.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FlowDetail {
    /// The receiver window, segments (the sender's `max_window`).
    pub rwnd: u32,
    /// Every SACK block `[start, end)` of every ACK the sender received,
    /// with that ACK's arrival time, and whether it is a DSACK block
    /// (RFC 2883 Sec. 4: the first block, when it lies below the ACK's
    /// cumulative point or inside the ACK's second block).
    pub sack_t: Vec<f64>,
    pub sack_start: Vec<u32>,
    pub sack_end: Vec<u32>,
    pub sack_dsack: Vec<bool>,
    /// Every retransmission sent: time, segment, copy, cause ([`CAUSES`]),
    /// and whether it was spurious by the ground truth.
    pub retx_t: Vec<f64>,
    pub retx_seq: Vec<u32>,
    pub retx_copy: Vec<u16>,
    pub retx_cause: Vec<&'static str>,
    pub retx_spurious: Vec<bool>,
    /// Every copy of a data segment the network dropped.
    pub drop_t: Vec<f64>,
    pub drop_seq: Vec<u32>,
    pub drop_copy: Vec<u16>,
}

/// The details of a run: by flow index, and the queue of every link.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TraceDetails {
    pub flows: BTreeMap<String, FlowDetail>,
    /// Sample times of the queues (those of `record.series`; none without).
    pub queue_t: Vec<f64>,
    /// Packets in each link (queued or being sent) at each sample, by link name.
    pub queues: BTreeMap<String, Vec<u32>>,
}

/// One traced flow as it is recorded.
#[derive(Debug, Clone, Default)]
struct Traced {
    detail: FlowDetail,
    /// The sender's counters at its previous send.
    seen: Retransmits,
    /// Dropped copies of each segment, bit k = copy k (the whole run).
    dropped: HashMap<u32, u64>,
}

/// Records [`TraceDetails`] for the flows of a trace within `[from, until]`.
#[derive(Debug, Clone)]
pub struct DetailRecorder {
    from: Time,
    until: Time,
    slot: Vec<Option<usize>>,
    flows: Vec<(u32, Traced)>,
    queue_t: Vec<f64>,
    queues: Vec<(String, Vec<u32>)>,
}

impl DetailRecorder {
    pub fn new(from: Time, until: Time, flows: &[u32], n_flows: usize) -> DetailRecorder {
        let mut slot = vec![None; n_flows];
        for (i, &f) in flows.iter().enumerate() {
            slot[f as usize] = Some(i);
        }
        DetailRecorder {
            from,
            until,
            slot,
            flows: flows.iter().map(|&f| (f, Traced::default())).collect(),
            queue_t: Vec::new(),
            queues: Vec::new(),
        }
    }

    fn inside(&self, now: Time) -> bool {
        self.from <= now && now <= self.until
    }

    fn traced(&mut self, flow: u32) -> Option<&mut Traced> {
        let i = (*self.slot.get(flow as usize)?)?;
        Some(&mut self.flows[i].1)
    }

    /// Is `flow` traced (its sender's counters are wanted at each send)?
    pub fn wants(&self, flow: u32) -> bool {
        matches!(self.slot.get(flow as usize), Some(Some(_)))
    }

    /// The packets a traced flow's end just produced, with its sender's
    /// retransmission counters now and its receiver window. The
    /// retransmissions among them are those the counters grew by; the
    /// sender's code paths give one event's retransmissions one cause
    /// (were they mixed, they are listed fast, timeout, probe, in turn).
    pub fn on_sent(
        &mut self,
        flow: u32,
        out: &[Packet],
        now_counts: Retransmits,
        rwnd: u32,
        now: Time,
    ) {
        let inside = self.inside(now);
        let Some(f) = self.traced(flow) else {
            return;
        };
        f.detail.rwnd = rwnd;
        let mut grew = [0u64; 3];
        for (c, g) in grew.iter_mut().enumerate() {
            *g = now_counts[c].saturating_sub(f.seen[c]);
        }
        f.seen = now_counts;
        if !inside {
            return;
        }
        let mut cause = 0;
        for p in out.iter().filter(|p| p.is_data() && p.copy >= 1) {
            while cause < 2 && grew[cause] == 0 {
                cause += 1;
            }
            grew[cause] = grew[cause].saturating_sub(1);
            let d = &mut f.detail;
            d.retx_t.push(to_secs(now));
            d.retx_seq.push(p.seq);
            d.retx_copy.push(p.copy);
            d.retx_cause.push(CAUSES[cause]);
        }
    }

    /// An ACK of a traced flow (cumulative point `ack`) reached its sender.
    pub fn on_ack(&mut self, flow: u32, ack: u32, sack: &[(u32, u32)], now: Time) {
        if !self.inside(now) {
            return;
        }
        if let Some(f) = self.traced(flow) {
            for (i, &(start, end)) in sack.iter().enumerate() {
                let inside_second = sack.get(1).is_some_and(|&(s, e)| s <= start && end <= e);
                f.detail.sack_t.push(to_secs(now));
                f.detail.sack_start.push(start);
                f.detail.sack_end.push(end);
                f.detail
                    .sack_dsack
                    .push(i == 0 && (end <= ack || inside_second));
            }
        }
    }

    /// The network dropped copy `copy` of segment `seq` of a traced flow.
    pub fn on_drop(&mut self, flow: u32, seq: u32, copy: u16, now: Time) {
        let inside = self.inside(now);
        let Some(f) = self.traced(flow) else {
            return;
        };
        if copy < MAX_COPIES {
            *f.dropped.entry(seq).or_default() |= 1 << copy;
        }
        if inside {
            f.detail.drop_t.push(to_secs(now));
            f.detail.drop_seq.push(seq);
            f.detail.drop_copy.push(copy);
        }
    }

    /// One sample of every link's queue (`(name, packets)`, in link order).
    pub fn sample_queues<'a>(&mut self, now: Time, links: impl Iterator<Item = (&'a str, usize)>) {
        self.queue_t.push(to_secs(now));
        for (i, (name, packets)) in links.enumerate() {
            if i == self.queues.len() {
                self.queues.push((name.to_string(), Vec::new()));
            }
            self.queues[i].1.push(packets as u32);
        }
    }

    /// The details, each retransmission judged by the drops of the whole run.
    pub fn finish(self) -> TraceDetails {
        let flows = self
            .flows
            .into_iter()
            .map(|(flow, mut t)| {
                let d = &mut t.detail;
                d.retx_spurious = (d.retx_seq.iter().zip(&d.retx_copy))
                    .map(|(seq, &copy)| {
                        let leading = t.dropped.get(seq).map_or(0, |m| m.trailing_ones() as u16);
                        !(copy < MAX_COPIES && leading >= copy)
                    })
                    .collect();
                (flow.to_string(), t.detail)
            })
            .collect();
        TraceDetails {
            flows,
            queue_t: self.queue_t,
            queues: self.queues.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::secs;

    fn data(seq: u32, copy: u16) -> Packet {
        Packet::data(0, 1, 1500, seq, copy, 0)
    }

    #[test]
    fn causes_follow_the_counters_and_truth_follows_the_drops() {
        let mut r = DetailRecorder::new(secs(1.0), secs(5.0), &[0], 2);
        // before the window: counted, not listed
        r.on_sent(0, &[data(3, 1)], [1, 0, 0], 20, secs(0.5));
        r.on_drop(0, 7, 0, secs(0.9)); // before the window, still ground truth
        r.on_sent(0, &[data(7, 1), data(8, 0)], [2, 0, 0], 20, secs(1.5));
        r.on_sent(0, &[data(9, 1)], [2, 1, 0], 20, secs(2.0));
        r.on_sent(1, &[data(9, 1)], [9, 9, 9], 20, secs(2.0)); // not traced
        r.on_drop(0, 9, 0, secs(6.0)); // after the window: 9's copy 1 was necessary
        r.on_sent(0, &[data(10, 2)], [2, 1, 1], 20, secs(3.0)); // copy 1 never dropped
        r.on_drop(0, 10, 0, secs(3.5));
        r.on_ack(0, 10, &[(4, 6), (12, 13)], secs(4.0)); // a DSACK below the ACK
        r.on_ack(0, 10, &[(14, 15), (12, 16)], secs(4.1)); // one inside the second block
        r.on_ack(0, 10, &[(12, 13), (14, 15)], secs(4.2)); // plain SACK
        let d = r.finish();
        let f = &d.flows["0"];
        assert_eq!(f.retx_seq, vec![7, 9, 10]);
        assert_eq!(f.retx_cause, vec!["fast", "timeout", "probe"]);
        assert_eq!(f.retx_spurious, vec![false, false, true]);
        assert_eq!(f.drop_seq, vec![10]);
        assert_eq!(f.sack_start, vec![4, 12, 14, 12, 12, 14]);
        assert_eq!(f.sack_end, vec![6, 13, 15, 16, 13, 15]);
        let dsack = vec![true, false, true, false, false, false];
        assert_eq!(f.sack_dsack, dsack);
        assert_eq!(f.rwnd, 20);
        assert!(!d.flows.contains_key("1"));
    }

    #[test]
    fn queues_are_sampled_by_link_name() {
        let mut r = DetailRecorder::new(0, secs(1.0), &[0], 1);
        r.sample_queues(0, [("a", 1), ("b", 2)].into_iter());
        r.sample_queues(secs(0.1), [("a", 3), ("b", 0)].into_iter());
        let d = r.finish();
        assert_eq!(d.queue_t, vec![0.0, 0.1]);
        assert_eq!(d.queues["a"], vec![1, 3]);
        assert_eq!(d.queues["b"], vec![2, 0]);
    }
}
