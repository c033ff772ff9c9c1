//! Building the world from a validated scenario.

use std::collections::HashMap;

use super::graph::NetGraph;
use super::world::{Endpoints, Ends, Flow, Origin, Simulation, Source, Traffic};
use crate::app::{HttpSource, PageSource};
use crate::engine::event::TIMER_KINDS;
use crate::engine::time::{after, secs, tx_time};
use crate::engine::{Event, EventQueue, Time, TimerSlot};
use crate::metrics::{DetailRecorder, EngineCounters, SeriesRecorder, TraceRecorder};
use crate::net::fattree::Shape;
use crate::net::reps::Reps;
use crate::net::{Link, Routes};
use crate::spec::{
    FlowSpec, LoadBalancing, ReceiverSpec, Scenario, SpecError, Topology, TrafficKind, TrafficSpec,
};
use crate::tcp::cc::CongestionControl;
use crate::tcp::variants;
use crate::tcp::{Receiver, ReceiverConfig, Sender, SenderConfig};

pub(crate) fn receiver_config(
    r: &ReceiverSpec,
    ack_size: Option<u32>,
    cfg: &SenderConfig,
) -> ReceiverConfig {
    ReceiverConfig {
        delayed_ack: r.delayed_ack,
        delack_timeout: secs(r.delack_timeout),
        delack_every: r.delack_every,
        sack: r.sack,
        dsack: r.dsack,
        max_sack_blocks: r.max_sack_blocks,
        ack_size: ack_size.unwrap_or(40),
        mss: cfg.mss,
        expected_segments: cfg.segments,
        measure_from: 0,
        // The Linux variants with timestamps (not Linux-classic) stand
        // for a Linux peer: its receiver applies PAWS.
        paws: cfg.linux.is_some() && cfg.undo_by_timestamps,
        dctcp: false,
    }
}

/// One of the scenario's flows, not started yet.
fn new_flow(i: u32, fs: &FlowSpec, sc: &Scenario, nodes: &HashMap<String, u32>) -> Flow {
    let warmup = secs(sc.warmup);
    if crate::spec::check_quic::is_quic(fs) {
        return new_quic_flow(i, fs, nodes, warmup);
    }
    if crate::spec::check_uet::is_uet(fs) {
        return super::uet::new_uet_flow(i, fs, sc, nodes);
    }
    let cfg = variants::resolve(&fs.variant, &fs.tcp, fs.segments).expect("validated variant");
    let cc = CongestionControl::by_name(&fs.cc).expect("validated cc");
    let (src, dst) = (nodes[&fs.src], nodes[&fs.dst]);
    let start = secs(fs.start);
    let mut rcfg = receiver_config(&fs.receiver, fs.tcp.ack_size, &cfg);
    rcfg.dctcp = matches!(cc, CongestionControl::Dctcp(_));
    let name = fs.name.clone().unwrap_or_else(|| format!("f{i}"));
    let cc_name = fs.cc.to_ascii_lowercase();
    Flow::new(
        i,
        name,
        cc_name,
        (src, dst),
        (cfg, cc, rcfg),
        start,
        warmup,
        None,
    )
}

/// A flow with a QUIC variant (`crate::quic`).
fn new_quic_flow(i: u32, fs: &FlowSpec, nodes: &HashMap<String, u32>, warmup: Time) -> Flow {
    let q = fs.quic.clone().unwrap_or_default();
    let sizes = (fs.tcp.mss, fs.tcp.ack_size);
    let cfg = crate::quic::variants::resolve(&fs.variant, &q, sizes, fs.segments)
        .expect("validated QUIC variant");
    let cc = CongestionControl::by_name(&fs.cc).expect("validated cc");
    let (src, dst) = (nodes[&fs.src], nodes[&fs.dst]);
    let start = secs(fs.start);
    let measure_from = start.max(warmup);
    let ends = crate::quic::QuicEnds::new(cfg, cc, i, (src, dst), measure_from);
    Flow::with_ends(
        (
            fs.name.clone().unwrap_or_else(|| format!("f{i}")),
            fs.cc.to_ascii_lowercase(),
        ),
        (src, dst),
        (start, measure_from),
        Ends::Quic(Box::new(ends)),
        None,
    )
}

fn new_traffic(
    k: usize,
    ts: &TrafficSpec,
    nodes: &HashMap<String, u32>,
    seed: u64,
    end: Time,
) -> Traffic {
    let sender = variants::resolve(&ts.variant, &ts.tcp, 1).expect("validated variant");
    let mut receiver = receiver_config(&ts.receiver, ts.tcp.ack_size, &sender);
    receiver.dctcp = ts.cc.eq_ignore_ascii_case("dctcp");
    Traffic {
        name: ts.name.clone().unwrap_or_else(|| format!("traffic{k}")),
        server: nodes[&ts.server],
        client: nodes[&ts.client],
        source: match ts.kind {
            TrafficKind::Http => Source::Http(HttpSource::new(ts, k as u64, sender.mss, seed, end)),
            TrafficKind::Page => Source::Page(PageSource::new(ts, k as u64, sender.mss, seed, end)),
        },
        request_delay: 0,
        cc: CongestionControl::by_name(&ts.cc).expect("validated cc"),
        cc_name: ts.cc.to_ascii_lowercase(),
        sender,
        receiver,
    }
}

/// The flows of the scenario's fabric workloads, after its own flows, in
/// workload order (`spec/workload.rs`).
fn expand_workloads(scenario: &Scenario, seed: u64) -> Vec<FlowSpec> {
    let Topology::FatTree { k, tiers, .. } = scenario.topology else {
        return Vec::new();
    };
    let hosts = Shape::new(k, tiers).hosts;
    (scenario.workloads.iter().enumerate())
        .flat_map(|(w, ws)| {
            // (a UET workload sends tcp.mss-byte packets, 1500 by default)
            let mss = variants::resolve(&ws.variant, &ws.tcp, 1)
                .map_or(ws.tcp.mss.unwrap_or(1500), |c| c.mss);
            ws.expand(w, hosts, seed, mss)
        })
        .collect()
}

/// Unloaded one-way latency of a `bytes`-byte packet from `from` to `to`
/// along the routing table: propagation plus serialisation on every hop.
fn one_way_latency(links: &[Link], routing: &Routes, from: u32, to: u32, bytes: u32) -> Time {
    let mut node = from;
    let mut t = 0;
    while node != to {
        let Some(li) = routing.next_link(node, to) else {
            break;
        };
        let l = &links[li as usize];
        t = after(t, after(l.delay, tx_time(bytes, l.rate)));
        node = l.to;
    }
    t
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        i: u32,
        name: String,
        cc_name: String,
        (src, dst): (u32, u32),
        (cfg, cc, mut rcfg): (SenderConfig, CongestionControl, ReceiverConfig),
        start: Time,
        warmup: Time,
        origin: Option<Origin>,
    ) -> Flow {
        let measure_from = start.max(warmup);
        rcfg.measure_from = measure_from;
        let ends = Ends::Live(Box::new(Endpoints {
            sender: Sender::new(cfg, cc, i, dst),
            receiver: Receiver::new(rcfg, i, src),
        }));
        Flow::with_ends(
            (name, cc_name),
            (src, dst),
            (start, measure_from),
            ends,
            origin,
        )
    }

    /// A flow of any kind around its `ends`: nothing in the network yet, no
    /// timer armed, nothing counted.
    pub(super) fn with_ends(
        (name, cc_name): (String, String),
        (src, dst): (u32, u32),
        (start, measure_from): (Time, Time),
        ends: Ends,
        origin: Option<Origin>,
    ) -> Flow {
        Flow {
            name,
            cc_name,
            src,
            dst,
            start,
            measure_from,
            ends,
            in_network: 0,
            timers: [TimerSlot::default(); TIMER_KINDS],
            data_arrivals: 0,
            ce_arrivals: 0,
            trimmed_arrivals: 0,
            origin,
            done: false,
            web: None,
        }
    }
}

impl Simulation {
    /// Build the world. Validates the scenario first.
    pub fn new(scenario: &Scenario, seed: u64) -> Result<Simulation, SpecError> {
        let memory_limit = crate::spec::limits::memory_limit()?;
        scenario.validate_with_memory_limit(memory_limit)?;
        let graph = NetGraph::new(scenario, seed);
        let end = secs(scenario.duration);
        let warmup = secs(scenario.warmup);
        let expanded = expand_workloads(scenario, seed);
        let flows: Vec<Flow> = (scenario.flows.iter().chain(&expanded).enumerate())
            .map(|(i, fs)| {
                let mut f = new_flow(i as u32, fs, scenario, &graph.node_index);
                match &mut f.ends {
                    Ends::Live(e) => e.sender.seed(seed),
                    Ends::Quic(q) => q.seed(seed),
                    Ends::Uet(_) | Ends::Over(_) => {}
                }
                f
            })
            .collect();
        let traffic = (scenario.traffic.iter().enumerate())
            .map(|(k, ts)| {
                let mut t = new_traffic(k, ts, &graph.node_index, seed, end);
                let ack = t.receiver.ack_size;
                let (links, routing) = (&graph.links, &graph.routing);
                t.request_delay = one_way_latency(links, routing, t.client, t.server, ack);
                t
            })
            .collect();
        let (recorder, tracer) = recorders(scenario, flows.len());
        let details = detail_recorder(scenario, flows.len());
        let mut sim = Simulation {
            name: scenario.name.clone(),
            seed,
            now: 0,
            end,
            events: EventQueue::with_links(graph.links.len()),
            graph,
            scenario_flows: flows.len(),
            flows,
            traffic,
            warmup,
            record_objects: scenario.record.objects,
            out: Vec::with_capacity(256),
            counters: EngineCounters::default(),
            recorder,
            tracer,
            details,
            pcap: None,
            memory_limit,
            failure: None,
            keep_connections: false,
            reps: None,
        };
        sim.reps = reps_states(scenario, seed, sim.flows.len());
        sim.schedule_initial_events();
        Ok(sim)
    }

    /// The events known at time 0, in a fixed order (ties run in insertion
    /// order): flow starts, each traffic session's first event, the first
    /// sample, then elements with a deadline from the start (swap timers).
    fn schedule_initial_events(&mut self) {
        for (i, f) in self.flows.iter().enumerate() {
            let flow = i as u32;
            self.events.schedule(f.start, Event::FlowStart { flow });
        }
        for (k, t) in self.traffic.iter_mut().enumerate() {
            for session in 0..t.source.sessions() {
                let first = match &mut t.source {
                    Source::Http(h) => h.first_event(session),
                    Source::Page(p) => p.first_event(),
                };
                if let Some(at) = first {
                    let (source, session) = (k as u32, session as u32);
                    self.events.schedule(at, Event::Traffic { source, session });
                }
            }
        }
        if self.recorder.is_some() {
            self.events.schedule(0, Event::Sample);
        }
        for (i, c) in self.graph.changes.iter().enumerate() {
            let index = i as u32;
            self.events.schedule(c.at, Event::LinkChange { index });
        }
        let graph = &mut self.graph;
        for (i, e) in graph.elements.iter().enumerate() {
            if let Some((t, gen)) = graph.element_timers[i].sync(e.deadline(), 0) {
                let element = i as u32;
                self.events
                    .schedule(t, Event::ImpairRelease { element, gen });
            }
        }
    }
}

/// REPS's per-flow state, when the fabric balances by it.
fn reps_states(scenario: &Scenario, seed: u64, flows: usize) -> Option<Vec<Reps>> {
    let Topology::FatTree {
        load_balancing: LoadBalancing::Reps,
        ..
    } = scenario.topology
    else {
        return None;
    };
    Some((0..flows as u32).map(|f| Reps::new(seed, f)).collect())
}

/// The time-series recorder and the time-sequence tracer the scenario's
/// `record` section asks for.
fn recorders(scenario: &Scenario, flows: usize) -> (Option<SeriesRecorder>, Option<TraceRecorder>) {
    let record = &scenario.record;
    let which: Vec<u32> = if record.flows.is_empty() {
        (0..flows as u32).collect()
    } else {
        record.flows.clone()
    };
    let recorder = (!record.series.is_empty())
        .then(|| SeriesRecorder::new(secs(record.interval), record.series.clone(), which.clone()));
    let tracer = match record.trace_window.as_slice() {
        [from, until] => Some(TraceRecorder::new(secs(*from), secs(*until), &which, flows)),
        _ => None,
    };
    (recorder, tracer)
}

/// The recorder of what a time-sequence graph adds to the trace, if the
/// scenario asks for it (`record.trace_details`, with a `trace_window`).
fn detail_recorder(scenario: &Scenario, flows: usize) -> Option<DetailRecorder> {
    let record = &scenario.record;
    let [from, until] = record.trace_window.as_slice() else {
        return None;
    };
    if record.trace_details != Some(true) {
        return None;
    }
    let which: Vec<u32> = if record.flows.is_empty() {
        (0..flows as u32).collect()
    } else {
        record.flows.clone()
    };
    Some(DetailRecorder::new(
        secs(*from),
        secs(*until),
        &which,
        flows,
    ))
}
