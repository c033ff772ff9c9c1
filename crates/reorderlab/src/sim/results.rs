//! The run's results and its conservation invariants.

use std::collections::BTreeMap;

use serde::Serialize;

use super::world::{ConnSummary, Endpoints, Ends, Flow, Simulation, Source};
use crate::app::PageObject;
use crate::engine::time::to_secs;
use crate::metrics::{
    fairness, DetailRecorder, FlowResult, FlowTrace, LinkResult, ObjectRecord, SeriesRecorder,
    TraceDetails, TraceRecorder, TrafficResult,
};
use crate::tcp::truth::RetxCause;

/// The full result of a run.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub scenario: String,
    pub seed: u64,
    pub engine_version: String,
    pub duration: f64,
    pub events: u64,
    pub packet_hops: u64,
    /// The scenario's own flows (not those of traffic generators).
    pub flows: Vec<FlowResult>,
    /// Fairness among the scenario's flows over the measurement window
    /// (tcp-pr Sec. V); absent with fewer than two flows.
    pub fairness: Option<fairness::Fairness>,
    /// Totals of each traffic generator, in scenario order.
    pub traffic: Vec<TrafficResult>,
    pub links: Vec<LinkResult>,
    pub series: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
    /// Time-sequence traces (`record.trace_window`), by flow index.
    pub traces: BTreeMap<String, FlowTrace>,
    /// What a time-sequence graph adds to the traces
    /// (`record.trace_details`); absent (not written) without.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_details: Option<TraceDetails>,
    /// RFC 5236 reorder density per flow: fractions at displacements
    /// -DT..=DT (DT = 8).
    pub reorder_density: BTreeMap<String, Vec<f64>>,
    /// Counters of each impairment element, in scenario order.
    pub impairments: Vec<crate::impair::ElementStats>,
    /// Packets that took each multipath route, in scenario order.
    pub multipath_routes: Vec<u64>,
}

impl Simulation {
    /// Violations of the conservation and correctness invariants; empty when
    /// the run is sound. Checked at the end of every scenario test.
    pub fn check_invariants(&self) -> Vec<String> {
        let mut bad = Vec::new();
        for l in &self.graph.links {
            let s = &l.stats;
            let held_ingress: u64 = l
                .ingress
                .iter()
                .map(|&e| self.graph.elements[e as usize].held_packets().len() as u64)
                .sum();
            let admitted = s.enqueued + s.trimmed;
            if s.arrivals != admitted + s.queue_drops + s.ingress_drops + held_ingress {
                bad.push(format!(
                    "{}: arrivals {} != enqueued + drops + held",
                    l.name, s.arrivals
                ));
            }
            if admitted != s.delivered + l.in_system() as u64 {
                bad.push(format!(
                    "{}: enqueued {} != delivered + in system",
                    l.name, s.enqueued
                ));
            }
        }
        // Data packets of each flow still in a link or held by an element.
        let mut in_flight = vec![0u64; self.flows.len()];
        let held = self.graph.elements.iter().flat_map(|e| e.held_packets());
        for p in (self.graph.links.iter())
            .flat_map(|l| l.packets_in_system())
            .cloned()
            .chain(held)
        {
            if p.is_data() {
                in_flight[p.flow as usize] += 1;
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            let c = f.summary();
            if c.order_violations > 0 {
                bad.push(format!(
                    "flow {i}: {} out-of-order deliveries",
                    c.order_violations
                ));
            }
            if c.segments_delivered > c.new_segments_sent {
                bad.push(format!("flow {i}: delivered more segments than sent"));
            }
            if c.min_cwnd < 1.0 {
                bad.push(format!("flow {i}: cwnd fell to {}", c.min_cwnd));
            }
            let in_links = in_flight[i];
            let sent = c.data_packets_sent;
            let drops = c.data_drops;
            if sent != f.data_arrivals + drops + in_links {
                bad.push(format!(
                    "flow {i}: sent {sent} != arrived {} + dropped {drops} + in flight {in_links}",
                    f.data_arrivals
                ));
            }
            if let Ends::Quic(q) = &f.ends {
                bad.extend(q.check().into_iter().map(|b| format!("flow {i}: {b}")));
            }
            if let Ends::Uet(u) = &f.ends {
                bad.extend(u.check().into_iter().map(|b| format!("flow {i}: {b}")));
            }
        }
        bad
    }

    /// Collect the results.
    pub fn result(&self) -> RunResult {
        let mut flows: Vec<FlowResult> = self.flows[..self.scenario_flows]
            .iter()
            .enumerate()
            .map(|(i, f)| self.flow_result(i as u32, f))
            .collect();
        let shares: Vec<(&str, f64)> = flows
            .iter()
            .map(|f| (f.variant.as_str(), f.throughput_bps))
            .collect();
        let fairness = fairness::Fairness::of(&shares);
        if fairness.is_some() {
            let x: Vec<f64> = shares.iter().map(|s| s.1).collect();
            for (f, t) in flows.iter_mut().zip(fairness::normalized(&x)) {
                f.normalized_throughput = Some(t);
            }
        }
        let links = (self.graph.links.iter())
            .map(|l| l.result(&self.graph.node_names))
            .collect();
        RunResult {
            scenario: self.name.clone(),
            seed: self.seed,
            engine_version: super::revision::engine_version(),
            duration: to_secs(self.end),
            events: self.counters.events,
            packet_hops: self.counters.packet_hops,
            flows,
            fairness,
            traffic: (0..self.traffic.len())
                .map(|k| self.traffic_result(k))
                .collect(),
            links,
            series: self
                .recorder
                .clone()
                .map(SeriesRecorder::into_map)
                .unwrap_or_default(),
            traces: self
                .tracer
                .clone()
                .map(TraceRecorder::into_map)
                .unwrap_or_default(),
            trace_details: self.details.clone().map(DetailRecorder::finish),
            reorder_density: self.flows[..self.scenario_flows]
                .iter()
                .enumerate()
                .map(|(i, f)| (i.to_string(), super::quic::reorder_density(f)))
                .collect(),
            impairments: self
                .graph
                .elements
                .iter()
                .map(|e| e.stats.clone())
                .collect(),
            multipath_routes: self.graph.multipath.route_counts.clone(),
        }
    }

    /// Totals over the flows generator `k` opened.
    fn traffic_result(&self, k: usize) -> TrafficResult {
        let t = &self.traffic[k];
        let (pages, pages_completed, objects) = match &t.source {
            Source::Http(h) => (h.pages, 0, h.objects),
            Source::Page(p) => (p.pages, p.pages_completed, p.objects.len() as u64),
        };
        let mut r = TrafficResult {
            name: t.name.clone(),
            kind: t.source.kind().to_string(),
            server: self.graph.node_names[t.server as usize].clone(),
            client: self.graph.node_names[t.client as usize].clone(),
            variant: t.sender.variant.clone(),
            cc: t.cc_name.clone(),
            sessions: t.source.sessions() as u32,
            pages,
            objects,
            objects_completed: 0,
            active_at_end: 0,
            segments_delivered: 0,
            bytes_delivered: 0,
            bytes_delivered_measured: 0,
            throughput_bps: 0.0,
            data_packets_sent: 0,
            retransmits: 0,
            fast_retransmits: 0,
            timeouts: 0,
            spurious_retransmits: 0,
            dsacks_received: 0,
            data_drops: 0,
            connections: 0,
            pages_completed,
            oct_mean: None,
            oct_median: None,
            oct_p95: None,
            object_list: Vec::new(),
        };
        let mut octs = Vec::new();
        let first = self.scenario_flows;
        let mine = self.flows[first..]
            .iter()
            .filter(|f| f.origin.is_some_and(|o| o.source == k as u32));
        for f in mine {
            let c = f.summary();
            add_connection(&mut r, &c);
            if let Source::Http(_) = t.source {
                self.add_http_object(&mut r, &mut octs, f, &c);
            }
        }
        if let Source::Page(p) = &t.source {
            for o in &p.objects {
                self.add_page_object(&mut r, &mut octs, o);
            }
        }
        let span = to_secs(self.end.saturating_sub(self.warmup));
        if span > 0.0 {
            r.throughput_bps = r.bytes_delivered_measured as f64 * 8.0 / span;
        }
        set_oct_statistics(&mut r, octs);
        r
    }

    /// An `http` flow is one object: its completion time from its start.
    fn add_http_object(
        &self,
        r: &mut TrafficResult,
        octs: &mut Vec<f64>,
        f: &Flow,
        c: &ConnSummary,
    ) {
        let oct = c.completed_at.map(|t| to_secs(t - f.start));
        match oct {
            Some(o) => {
                r.objects_completed += 1;
                octs.push(o);
            }
            None => r.active_at_end += 1,
        }
        if !self.record_objects {
            return;
        }
        let origin = f.origin.expect("a generated flow");
        r.object_list.push(ObjectRecord {
            start: to_secs(f.start),
            segments: c.segments,
            oct,
            retransmits: c.retransmits,
            timeouts: c.timeouts,
            tail_drops: c.tail_drops,
            tail_retransmits: c.tail_retransmits,
            session: origin.session,
            page: origin.page,
            index: origin.index,
            connection: origin.index,
        });
    }

    /// A `page` object, one of several on a persistent connection: its
    /// segments are a range of that connection's.
    fn add_page_object(&self, r: &mut TrafficResult, octs: &mut Vec<f64>, o: &PageObject) {
        let oct = o.oct().map(to_secs);
        match oct {
            Some(x) => {
                r.objects_completed += 1;
                octs.push(x);
            }
            None => r.active_at_end += 1,
        }
        if !self.record_objects {
            return;
        }
        // page connections stay live to the end (never retired)
        let sender = self.flows[o.flow as usize].sender();
        let seg = |x: u64| x.min(u32::MAX as u64) as u32;
        let (from, to) = (seg(o.first_segment), seg(o.first_segment + o.segments));
        let tail = crate::metrics::tail(from, to);
        let truth = sender.truth();
        let now_timeouts = sender.stats().timeouts;
        r.object_list.push(ObjectRecord {
            start: to_secs(o.requested.unwrap_or(o.assigned)),
            segments: o.segments,
            oct,
            retransmits: truth.retransmitted_in(from..to).1,
            timeouts: o.timeouts_after.unwrap_or(now_timeouts) - o.timeouts_before,
            tail_drops: truth.segments_dropped_in(tail.clone()),
            tail_retransmits: truth.retransmitted_in(tail).0,
            session: o.session,
            page: o.page,
            index: o.index,
            connection: o.connection,
        });
    }

    fn flow_result(&self, i: u32, f: &Flow) -> FlowResult {
        match &f.ends {
            Ends::Quic(q) => self.quic_flow_result(i, f, q),
            Ends::Uet(u) => self.uet_flow_result(i, f, u),
            _ => self.tcp_flow_result(i, f),
        }
    }

    fn tcp_flow_result(&self, i: u32, f: &Flow) -> FlowResult {
        let Endpoints { sender, receiver } = f.live();
        let s = sender.stats();
        let r = &receiver.stats;
        let t = &sender.truth();
        let rtt = sender.rtt();
        let w = sender.window();
        let end = r.completed_at.unwrap_or(self.end).max(f.measure_from);
        let span = to_secs(end.saturating_sub(f.measure_from));
        let throughput = if span > 0.0 {
            r.bytes_delivered_measured as f64 * 8.0 / span
        } else {
            0.0
        };
        FlowResult {
            flow: i,
            name: f.name.clone(),
            src: self.graph.node_names[f.src as usize].clone(),
            dst: self.graph.node_names[f.dst as usize].clone(),
            variant: sender.cfg().variant.clone(),
            cc: f.cc_name.clone(),
            start: to_secs(f.start),
            segments_sent: s.new_segments_sent,
            data_packets_sent: s.data_packets_sent,
            bytes_sent: s.data_packets_sent * sender.cfg().mss as u64,
            retransmits: s.retransmits,
            fast_retransmits: s.fast_retransmits,
            timeout_retransmits: s.timeout_retransmits,
            probe_retransmits: s.probe_retransmits,
            tlp_probes: s.loss_probes,
            timeouts: s.timeouts,
            fast_recoveries: s.fast_recoveries,
            rack_marked_lost: s.rack_marked_lost,
            rack_reorder_timeouts: s.rack_reorder_timeouts,
            spurious_retransmits: t.spurious_total(),
            spurious_fast_retransmits: t.spurious(RetxCause::Fast),
            spurious_timeout_retransmits: t.spurious(RetxCause::Timeout),
            spurious_probe_retransmits: t.spurious(RetxCause::Probe),
            data_drops: t.dropped_copies(),
            dsacks_received: s.dsacks_received,
            false_fast_retransmits_detected: s.false_fast_retransmits_detected,
            false_timeouts_detected: s.false_timeouts_detected,
            undos: s.undos,
            lt_idle_periods: s.lt_idle_periods,
            dupthresh: sender.dupthresh(),
            fa_ratio: sender.fa_ratio(),
            acks_received: s.acks_received,
            acks_sent: r.acks_sent,
            segments_delivered: r.segments_delivered,
            bytes_delivered: r.bytes_delivered,
            duplicate_segments_received: r.duplicates,
            reordered_ratio: r.reordering.reordered_ratio(),
            reorder_extent_mean: r.reordering.mean_extent(),
            reorder_extent_max: r.reordering.max_extent(),
            throughput_bps: throughput,
            normalized_throughput: None,
            completed: r.completed_at.is_some(),
            fct: r.completed_at.map(|c| to_secs(c - f.start)),
            srtt: sender.srtt().map(to_secs),
            rttvar: to_secs(rtt.rttvar()),
            min_rtt: rtt.min_rtt().map(to_secs),
            rto: to_secs(rtt.rto()),
            rto_mean: if s.rto_count > 0 {
                s.rto_sum / s.rto_count as f64
            } else {
                to_secs(rtt.rto())
            },
            rto_expired_mean: (s.timeouts > 0).then(|| s.rto_expired_sum / s.timeouts as f64),
            cwnd: w.cwnd,
            ssthresh: w.ssthresh.is_finite().then_some(w.ssthresh),
            max_cwnd: s.max_cwnd,
            quic: None,
            ce_received: f.ce_arrivals,
            trimmed_received: f.trimmed_arrivals,
            uet: None,
        }
    }
}

/// A generated connection's counters added to its generator's totals.
fn add_connection(r: &mut TrafficResult, c: &ConnSummary) {
    r.connections += 1;
    r.segments_delivered += c.segments_delivered;
    r.bytes_delivered += c.bytes_delivered;
    r.bytes_delivered_measured += c.bytes_delivered_measured;
    r.data_packets_sent += c.data_packets_sent;
    r.retransmits += c.retransmits;
    r.fast_retransmits += c.fast_retransmits;
    r.timeouts += c.timeouts;
    r.spurious_retransmits += c.spurious_retransmits;
    r.dsacks_received += c.dsacks_received;
    r.data_drops += c.data_drops;
}

/// Mean, median and 95th percentile of the object completion times.
fn set_oct_statistics(r: &mut TrafficResult, mut octs: Vec<f64>) {
    if octs.is_empty() {
        return;
    }
    octs.sort_by(f64::total_cmp);
    let at = |q: f64| octs[((octs.len() - 1) as f64 * q).round() as usize];
    r.oct_mean = Some(octs.iter().sum::<f64>() / octs.len() as f64);
    r.oct_median = Some(at(0.5));
    r.oct_p95 = Some(at(0.95));
}
