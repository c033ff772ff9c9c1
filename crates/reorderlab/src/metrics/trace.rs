//! Time-sequence traces at the sender (wwan Fig. 2): every data packet
//! sent and every ACK received by the traced flows within a time window.
//! Off unless `record.trace_window` is set; a window keeps the memory bounded.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::time::to_secs;
use crate::engine::Time;

/// One flow's trace: parallel columns.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FlowTrace {
    /// Send time (s), segment number and transmission index (0 = original)
    /// of every data packet sent.
    pub send_t: Vec<f64>,
    pub send_seq: Vec<u32>,
    pub send_copy: Vec<u16>,
    /// Arrival time (s) and cumulative ACK (next segment expected) of every
    /// ACK the sender received.
    pub ack_t: Vec<f64>,
    pub ack_seq: Vec<u32>,
}

/// Traces of a set of flows within `[from, until]`.
#[derive(Debug, Clone)]
pub struct TraceRecorder {
    from: Time,
    until: Time,
    /// Trace slot of each flow index, if traced.
    slot: Vec<Option<usize>>,
    flows: Vec<(u32, FlowTrace)>,
}

impl TraceRecorder {
    pub fn new(from: Time, until: Time, flows: &[u32], n_flows: usize) -> TraceRecorder {
        let mut slot = vec![None; n_flows];
        for (i, &f) in flows.iter().enumerate() {
            slot[f as usize] = Some(i);
        }
        TraceRecorder {
            from,
            until,
            slot,
            flows: flows.iter().map(|&f| (f, FlowTrace::default())).collect(),
        }
    }

    fn trace(&mut self, flow: u32, now: Time) -> Option<&mut FlowTrace> {
        if now < self.from || now > self.until {
            return None;
        }
        let i = (*self.slot.get(flow as usize)?)?;
        Some(&mut self.flows[i].1)
    }

    pub fn on_send(&mut self, flow: u32, seq: u32, copy: u16, now: Time) {
        if let Some(t) = self.trace(flow, now) {
            t.send_t.push(to_secs(now));
            t.send_seq.push(seq);
            t.send_copy.push(copy);
        }
    }

    pub fn on_ack(&mut self, flow: u32, ack: u32, now: Time) {
        if let Some(t) = self.trace(flow, now) {
            t.ack_t.push(to_secs(now));
            t.ack_seq.push(ack);
        }
    }

    /// `{flow index: trace}`
    pub fn into_map(self) -> BTreeMap<String, FlowTrace> {
        self.flows
            .into_iter()
            .map(|(f, t)| (f.to_string(), t))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::secs;

    #[test]
    fn records_only_traced_flows_inside_the_window() {
        let mut r = TraceRecorder::new(secs(1.0), secs(2.0), &[1], 3);
        r.on_send(1, 7, 0, secs(0.5)); // before the window
        r.on_send(1, 8, 0, secs(1.5));
        r.on_send(0, 9, 0, secs(1.5)); // not traced
        r.on_ack(1, 8, secs(1.6));
        r.on_send(1, 8, 1, secs(2.0)); // the window includes `until`
        r.on_ack(1, 9, secs(2.1)); // after
        let m = r.into_map();
        assert_eq!(m.len(), 1);
        let t = &m["1"];
        assert_eq!(t.send_seq, vec![8, 8]);
        assert_eq!(t.send_copy, vec![0, 1]);
        assert_eq!(t.ack_seq, vec![8]);
        assert_eq!(t.ack_t, vec![1.6]);
    }
}
