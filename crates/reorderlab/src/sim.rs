//! A simulation: the world built from a validated [`Scenario`], and the event
//! loop that runs it.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::app::{AfterObject, Assign, HttpSource, PageSource};
use crate::engine::event::TIMER_KINDS;
use crate::engine::time::{secs, to_secs, tx_time};
use crate::engine::timer::Fire;
use crate::engine::{Event, EventQueue, Time, TimerKind, TimerSlot};
use crate::impair::{Element, Verdict};
use crate::metrics::{
    fairness, EngineCounters, FlowResult, FlowTrace, LinkResult, ObjectRecord, SeriesRecorder,
    TraceRecorder, TrafficResult,
};
use crate::net::link::Admit;
use crate::net::multipath::{epsilon_probabilities, normalise, Multipath};
use crate::net::packet::{Packet, PacketKind};
use crate::net::topology::build_topology;
use crate::net::{Link, RoutingTable};
use crate::spec::{
    FlowSpec, Position, ReceiverSpec, Scenario, SpecError, TrafficKind, TrafficSpec,
};
use crate::tcp::cc::CongestionControl;
use crate::tcp::truth::RetxCause;
use crate::tcp::variants;
use crate::tcp::{Receiver, ReceiverConfig, Sender, SenderConfig};

/// Bumped whenever a model change can alter results, so cached results of an
/// older engine are not reused. 6: scenario numbers parsed exactly
/// (serde_json's `float_roundtrip`; before, some were 1 ulp off).
pub const MODEL_REVISION: u32 = 6;

/// One flow: its endpoints and timer slots.
#[derive(Debug)]
struct Flow {
    name: String,
    cc_name: String,
    src: u32,
    dst: u32,
    start: Time,
    measure_from: Time,
    sender: Sender,
    receiver: Receiver,
    timers: [TimerSlot; TIMER_KINDS],
    /// Data packets that reached the receiver (any copy).
    data_arrivals: u64,
    /// The traffic generator and session that opened this flow; `None` for
    /// the scenario's own flows.
    origin: Option<Origin>,
    /// Completion already reported to the generator.
    done: bool,
    /// A persistent connection of a page download (`kind = "page"`).
    web: Option<WebConn>,
}

/// Where a generated flow comes from.
#[derive(Debug, Clone, Copy)]
struct Origin {
    source: u32,
    session: u32,
    /// `http`: the object's page and position in it.
    page: u64,
    index: u32,
}

/// State of a page download's persistent connection.
#[derive(Debug, Clone, Copy)]
struct WebConn {
    /// The object in transfer (or the last one), an index into the page
    /// source's objects.
    object: u32,
    /// Segments delivered once that object is complete.
    end: u64,
    busy: bool,
    /// Segments of a request on its way to the server.
    pending: u64,
}

/// A traffic generator's process.
enum Source {
    Http(HttpSource),
    Page(PageSource),
}

impl Source {
    fn kind(&self) -> &'static str {
        match self {
            Source::Http(_) => "http",
            Source::Page(_) => "page",
        }
    }
    fn sessions(&self) -> usize {
        match self {
            Source::Http(h) => h.sessions(),
            Source::Page(p) => p.sessions(),
        }
    }
}

/// A traffic generator and the transport its objects use.
struct Traffic {
    name: String,
    server: u32,
    client: u32,
    source: Source,
    /// `page`: one-way latency of a request from client to server.
    request_delay: Time,
    /// Sender configuration of every object (its `segments` set per object).
    sender: SenderConfig,
    cc: CongestionControl,
    cc_name: String,
    receiver: ReceiverConfig,
}

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
    /// (seed 001 Sec. V); absent with fewer than two flows.
    pub fairness: Option<fairness::Fairness>,
    /// Totals of each traffic generator, in scenario order.
    pub traffic: Vec<TrafficResult>,
    pub links: Vec<LinkResult>,
    pub series: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
    /// Time-sequence traces (`record.trace_window`), by flow index.
    pub traces: BTreeMap<String, FlowTrace>,
    /// RFC 5236 reorder density per flow: fractions at displacements
    /// -DT..=DT (DT = 8).
    pub reorder_density: BTreeMap<String, Vec<f64>>,
    /// Counters of each impairment element, in scenario order.
    pub impairments: Vec<crate::impair::ElementStats>,
    /// Packets that took each multipath route, in scenario order.
    pub multipath_routes: Vec<u64>,
}

fn receiver_config(r: &ReceiverSpec, ack_size: Option<u32>, cfg: &SenderConfig) -> ReceiverConfig {
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
    }
}

/// One of the scenario's flows, not started yet.
fn new_flow(i: u32, fs: &FlowSpec, nodes: &HashMap<String, u32>, warmup: Time) -> Flow {
    let cfg = variants::resolve(&fs.variant, &fs.tcp, fs.segments).expect("validated variant");
    let cc = CongestionControl::by_name(&fs.cc).expect("validated cc");
    let (src, dst) = (nodes[&fs.src], nodes[&fs.dst]);
    let start = secs(fs.start);
    let rcfg = receiver_config(&fs.receiver, fs.tcp.ack_size, &cfg);
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

fn new_traffic(
    k: usize,
    ts: &TrafficSpec,
    nodes: &HashMap<String, u32>,
    seed: u64,
    end: Time,
) -> Traffic {
    let sender = variants::resolve(&ts.variant, &ts.tcp, 1).expect("validated variant");
    let receiver = receiver_config(&ts.receiver, ts.tcp.ack_size, &sender);
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

/// Unloaded one-way latency of a `bytes`-byte packet from `from` to `to`
/// along the routing table: propagation plus serialisation on every hop.
fn one_way_latency(links: &[Link], routing: &RoutingTable, from: u32, to: u32, bytes: u32) -> Time {
    let mut node = from;
    let mut t = 0;
    while node != to {
        let Some(li) = routing.next_link(node, to) else {
            break;
        };
        let l = &links[li as usize];
        t += l.delay + tx_time(bytes, l.rate);
        node = l.to;
    }
    t
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    fn new(
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
        Flow {
            name,
            cc_name,
            src,
            dst,
            start,
            measure_from,
            sender: Sender::new(cfg, cc, i, dst),
            receiver: Receiver::new(rcfg, i, src),
            timers: [TimerSlot::default(); TIMER_KINDS],
            data_arrivals: 0,
            origin,
            done: false,
            web: None,
        }
    }
}

/// The simulated world.
pub struct Simulation {
    name: String,
    seed: u64,
    now: Time,
    end: Time,
    events: EventQueue,
    node_names: Vec<String>,
    links: Vec<Link>,
    routing: RoutingTable,
    elements: Vec<Element>,
    element_timers: Vec<TimerSlot>,
    multipath: Multipath,
    /// Scratch buffer for packets released by an element.
    released: Vec<Packet>,
    flows: Vec<Flow>,
    /// Flows listed in the scenario; generated ones follow them.
    scenario_flows: usize,
    traffic: Vec<Traffic>,
    warmup: Time,
    record_objects: bool,
    /// Scratch buffer for packets produced by an endpoint (reused: no
    /// allocation per packet).
    out: Vec<Packet>,
    counters: EngineCounters,
    recorder: Option<SeriesRecorder>,
    tracer: Option<TraceRecorder>,
}

impl Simulation {
    /// Build the world. Validates the scenario first.
    pub fn new(scenario: &Scenario, seed: u64) -> Result<Simulation, SpecError> {
        scenario.validate()?;
        let topo = build_topology(&scenario.topology, seed);
        let pairs: Vec<(u32, u32)> = topo.links.iter().map(|l| (l.from, l.to)).collect();
        let routing = RoutingTable::shortest_paths(topo.node_names.len(), &pairs);
        let mut links = topo.links;
        let mut elements = Vec::new();
        for (i, imp) in scenario.impairments.iter().enumerate() {
            let li = topo.link_index[&imp.link];
            let link = &mut links[li as usize];
            let position = imp.position();
            let chain = match position {
                Position::Ingress => &mut link.ingress,
                Position::Egress => &mut link.egress,
            };
            let element = Element::new(li, position, chain.len(), &imp.model, seed, i as u64);
            chain.push(elements.len() as u32);
            elements.push(element);
        }
        let mut multipath = Multipath::default();
        for mp in &scenario.multipath {
            let paths: Vec<Vec<(u32, u32)>> = mp
                .paths
                .iter()
                .map(|p| {
                    p.iter()
                        .map(|name| {
                            let l = topo.link_index[name];
                            (links[l as usize].from, l)
                        })
                        .collect()
                })
                .collect();
            let probs = match (&mp.weights, mp.epsilon) {
                (Some(w), _) => normalise(w),
                (None, e) => {
                    let hops: Vec<usize> = mp.paths.iter().map(Vec::len).collect();
                    epsilon_probabilities(&hops, e.unwrap_or(0.0), mp.scale)
                }
            };
            multipath.add(
                topo.node_index[&mp.at],
                topo.node_index[&mp.dst],
                paths,
                &probs,
                mp.data_only,
                seed,
            );
        }
        let mut element_timers = vec![TimerSlot::default(); elements.len()];
        let end = secs(scenario.duration);
        let warmup = secs(scenario.warmup);
        let mut events = EventQueue::with_links(links.len());
        let mut flows = Vec::new();
        for (i, fs) in scenario.flows.iter().enumerate() {
            let i = i as u32;
            let flow = new_flow(i, fs, &topo.node_index, warmup);
            events.schedule(flow.start, Event::FlowStart { flow: i });
            flows.push(flow);
        }
        let mut traffic = Vec::new();
        for (k, ts) in scenario.traffic.iter().enumerate() {
            let mut t = new_traffic(k, ts, &topo.node_index, seed, end);
            let ack = t.receiver.ack_size;
            t.request_delay = one_way_latency(&links, &routing, t.client, t.server, ack);
            for session in 0..t.source.sessions() {
                let first = match &mut t.source {
                    Source::Http(h) => h.first_event(session),
                    Source::Page(p) => p.first_event(),
                };
                if let Some(at) = first {
                    let (source, session) = (k as u32, session as u32);
                    events.schedule(at, Event::Traffic { source, session });
                }
            }
            traffic.push(t);
        }
        let recorder = (!scenario.record.series.is_empty()).then(|| {
            let which = if scenario.record.flows.is_empty() {
                (0..flows.len() as u32).collect()
            } else {
                scenario.record.flows.clone()
            };
            SeriesRecorder::new(
                secs(scenario.record.interval),
                scenario.record.series.clone(),
                which,
            )
        });
        if recorder.is_some() {
            events.schedule(0, Event::Sample);
        }
        let tracer = match scenario.record.trace_window.as_slice() {
            [from, until] => {
                let which: Vec<u32> = if scenario.record.flows.is_empty() {
                    (0..flows.len() as u32).collect()
                } else {
                    scenario.record.flows.clone()
                };
                Some(TraceRecorder::new(
                    secs(*from),
                    secs(*until),
                    &which,
                    flows.len(),
                ))
            }
            _ => None,
        };
        // Elements with a deadline from the start (swap timers).
        for (i, e) in elements.iter().enumerate() {
            if let Some((t, gen)) = element_timers[i].sync(e.deadline(), 0) {
                events.schedule(
                    t,
                    Event::ImpairRelease {
                        element: i as u32,
                        gen,
                    },
                );
            }
        }
        Ok(Simulation {
            name: scenario.name.clone(),
            seed,
            now: 0,
            end,
            events,
            node_names: topo.node_names,
            links,
            routing,
            elements,
            element_timers,
            multipath,
            released: Vec::with_capacity(64),
            scenario_flows: flows.len(),
            flows,
            traffic,
            warmup,
            record_objects: scenario.record.objects,
            out: Vec::with_capacity(256),
            counters: EngineCounters::default(),
            recorder,
            tracer,
        })
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn counters(&self) -> EngineCounters {
        self.counters
    }

    pub fn sender(&self, flow: usize) -> &Sender {
        &self.flows[flow].sender
    }

    pub fn receiver(&self, flow: usize) -> &Receiver {
        &self.flows[flow].receiver
    }

    pub fn link(&self, name: &str) -> Option<&Link> {
        self.links.iter().find(|l| l.name == name)
    }

    /// Run until the end time or until no event is left.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Run events up to and including time `t` (at most the end time).
    pub fn run_until(&mut self, t: Time) {
        let limit = t.min(self.end);
        while let Some((time, event)) = self.events.peek() {
            if time > limit {
                break;
            }
            debug_assert!(
                time >= self.now,
                "event at {time} ns before now {}",
                self.now
            );
            self.now = time;
            self.counters.events += 1;
            self.dispatch(event);
        }
        self.now = self.now.max(limit);
    }

    /// Handle `event`, which is still at the top of the queue: a link head
    /// replaces itself there, every other event is removed first.
    fn dispatch(&mut self, event: Event) {
        if let Event::LinkDeliver { link } = event {
            self.deliver_link_head(link);
            return;
        }
        self.events.pop();
        match event {
            Event::LinkDeliver { .. } => {}
            Event::Timer { flow, kind, gen } => self.fire_timer(flow, kind, gen),
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::ImpairRelease { element, gen } => self.fire_element(element, gen),
            Event::Sample => self.sample(),
            Event::Traffic { source, session } => self.on_traffic(source, session),
            Event::Request { flow } => self.on_request(flow),
        }
    }

    fn start_flow(&mut self, flow: u32) {
        let mut out = std::mem::take(&mut self.out);
        self.flows[flow as usize].sender.start(self.now, &mut out);
        let src = self.flows[flow as usize].src;
        self.send_all(&mut out, src);
        self.out = out;
        self.sync_timers(flow);
    }

    /// A traffic session is due: open a flow for its next object and
    /// schedule the session's following event.
    fn on_traffic(&mut self, source: u32, session: u32) {
        let t = &mut self.traffic[source as usize];
        let src = match &mut t.source {
            Source::Http(h) => h,
            Source::Page(p) => {
                let html = p.begin_page(session as usize, self.now);
                self.open_connection(source, session, html);
                return;
            }
        };
        let object = src.on_event(session as usize, self.now);
        let mut cfg = t.sender.clone();
        cfg.segments = Some(object.segments);
        let mut rcfg = t.receiver.clone();
        rcfg.expected_segments = cfg.segments;
        let i = self.flows.len() as u32;
        let flow = Flow::new(
            i,
            String::new(),
            String::new(),
            (t.server, t.client),
            (cfg, t.cc.clone(), rcfg),
            self.now,
            self.warmup,
            Some(Origin {
                source,
                session,
                page: object.page,
                index: object.index,
            }),
        );
        self.flows.push(flow);
        if let Some(next) = object.next {
            self.events
                .schedule(next, Event::Traffic { source, session });
        }
        self.start_flow(i);
    }

    /// A page download opens a persistent connection for `first`: the
    /// server's side starts (SYN) one request delay later (see
    /// [`crate::app::web`] for why this matches a client-opened connection).
    fn open_connection(&mut self, source: u32, session: u32, first: Assign) {
        let t = &mut self.traffic[source as usize];
        let mut cfg = t.sender.clone();
        cfg.segments = Some(first.segments);
        cfg.syn = true;
        let mut rcfg = t.receiver.clone();
        rcfg.expected_segments = None;
        let i = self.flows.len() as u32;
        let start = self.now + t.request_delay;
        let mut flow = Flow::new(
            i,
            String::new(),
            String::new(),
            (t.server, t.client),
            (cfg, t.cc.clone(), rcfg),
            start,
            self.warmup,
            Some(Origin {
                source,
                session,
                page: 0,
                index: 0,
            }),
        );
        flow.web = Some(WebConn {
            object: first.object,
            end: first.segments,
            busy: true,
            pending: 0,
        });
        if let Source::Page(p) = &mut t.source {
            let o = &mut p.objects[first.object as usize];
            o.flow = i;
            o.first_segment = 0;
        }
        self.flows.push(flow);
        self.events.schedule(start, Event::FlowStart { flow: i });
    }

    /// The last segment of the object on page connection `fi` arrived:
    /// the connection takes its next object (the request carries the ACK
    /// the client was delaying), new connections open after the HTML, and
    /// a complete page schedules the session's next one.
    fn web_object_done(&mut self, fi: usize, out: &mut Vec<Packet>) {
        let f = &mut self.flows[fi];
        let (Some(mut w), Some(origin)) = (f.web, f.origin) else {
            return;
        };
        w.busy = false;
        let t = &mut self.traffic[origin.source as usize];
        let Source::Page(p) = &mut t.source else {
            return;
        };
        let after: AfterObject = p.on_object_done(w.object, self.now);
        p.objects[w.object as usize].timeouts_after = Some(f.sender.stats.timeouts);
        if let Some(next) = after.next_on_connection {
            let o = &mut p.objects[next.object as usize];
            o.flow = fi as u32;
            o.first_segment = w.end;
            o.timeouts_before = f.sender.stats.timeouts;
            w.object = next.object;
            w.end += next.segments;
            w.busy = true;
            w.pending += next.segments;
            f.receiver.flush_delayed_ack(self.now, out);
            let at = self.now + t.request_delay;
            self.events.schedule(at, Event::Request { flow: fi as u32 });
        }
        self.flows[fi].web = Some(w);
        for a in after.open {
            self.open_connection(origin.source, origin.session, a);
        }
        if let Some(at) = after.next_page {
            let (source, session) = (origin.source, origin.session);
            self.events.schedule(at, Event::Traffic { source, session });
        }
    }

    /// A request reached the server of a persistent connection: its sender
    /// gets the object's segments.
    fn on_request(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let Some(w) = f.web.as_mut() else {
            return;
        };
        let n = std::mem::take(&mut w.pending);
        let mut out = std::mem::take(&mut self.out);
        f.sender.write(n, self.now, &mut out);
        let src = f.src;
        self.send_all(&mut out, src);
        self.out = out;
        self.sync_timers(flow);
    }

    /// Deliver the head packet of `link`, whose event is at the top of the
    /// queue: the link's next head takes that event's place (one path of
    /// the link-head tree replayed), then the packet moves on.
    fn deliver_link_head(&mut self, link: u32) {
        let (mut pkt, next) = self.links[link as usize].pop_arrival();
        match next {
            Some(t) => self.events.replace_top(t, Event::LinkDeliver { link }),
            None => {
                self.events.pop();
            }
        }
        self.counters.packet_hops += 1;
        self.leave_link(&mut pkt, link, 0);
    }

    fn fire_timer(&mut self, flow: u32, kind: TimerKind, gen: u32) {
        let f = &mut self.flows[flow as usize];
        let deadline = match kind {
            TimerKind::DelAck => f.receiver.deadline(),
            _ => f.sender.deadline(kind),
        };
        match f.timers[kind as usize].on_fire(gen, self.now, deadline) {
            Fire::Ignore => {}
            Fire::Requeue(t) => {
                let gen = f.timers[kind as usize].generation();
                self.events.schedule(t, Event::Timer { flow, kind, gen });
            }
            Fire::Expire => {
                let mut out = std::mem::take(&mut self.out);
                let node = if kind == TimerKind::DelAck {
                    f.receiver.on_timer(self.now, &mut out);
                    f.dst
                } else {
                    f.sender.on_timer(kind, self.now, &mut out);
                    f.src
                };
                self.send_all(&mut out, node);
                self.out = out;
                if kind == TimerKind::DelAck {
                    self.sync_receiver_timer(flow);
                } else {
                    self.sync_sender_timers(flow);
                }
            }
        }
    }

    /// Queue events for any timer of `flow` whose deadline moved earlier.
    fn sync_timers(&mut self, flow: u32) {
        self.sync_sender_timers(flow);
        self.sync_receiver_timer(flow);
    }

    /// The sender's timers (after it handled an ACK or a timer): the
    /// receiver's state did not change, so its timer needs no look.
    fn sync_sender_timers(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        for kind in [TimerKind::Rto, TimerKind::Aux] {
            if let Some((t, gen)) = f.timers[kind as usize].sync(f.sender.deadline(kind), self.now)
            {
                self.events.schedule(t, Event::Timer { flow, kind, gen });
            }
        }
    }

    /// The receiver's delayed-ACK timer (after it handled data or a timer).
    fn sync_receiver_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let kind = TimerKind::DelAck;
        if let Some((t, gen)) = f.timers[kind as usize].sync(f.receiver.deadline(), self.now) {
            self.events.schedule(t, Event::Timer { flow, kind, gen });
        }
    }

    /// A packet reached `node`. (Packets go down a hop by reference: a
    /// 64-byte copy per call level was a measurable share of each event.)
    fn arrive(&mut self, pkt: &mut Packet, node: u32) {
        if node != pkt.dst {
            self.forward(pkt, node);
            return;
        }
        let fi = pkt.flow as usize;
        let mut out = std::mem::take(&mut self.out);
        let f = &mut self.flows[fi];
        let at_receiver = matches!(pkt.kind, PacketKind::Data | PacketKind::Syn);
        let from = match pkt.kind {
            PacketKind::Data => {
                f.data_arrivals += 1;
                f.receiver.on_data(pkt, self.now, &mut out);
                if f.origin.is_some() && !f.done && f.receiver.stats.completed_at.is_some() {
                    f.done = true;
                    self.object_done(fi);
                } else if f
                    .web
                    .is_some_and(|w| w.busy && f.receiver.stats.segments_delivered >= w.end)
                {
                    self.web_object_done(fi, &mut out);
                }
                self.flows[fi].dst
            }
            PacketKind::Syn => {
                f.receiver.on_syn(self.now, &mut out);
                if let (Some(w), Some(o)) = (f.web, f.origin) {
                    // The browser's request goes out with the handshake.
                    if let Source::Page(p) = &mut self.traffic[o.source as usize].source {
                        p.on_handshake(w.object, self.now);
                    }
                }
                self.flows[fi].dst
            }
            PacketKind::Ack | PacketKind::SynAck => {
                if let Some(t) = self.tracer.as_mut() {
                    t.on_ack(pkt.flow, pkt.seq, self.now);
                }
                f.sender.on_packet(pkt, self.now, &mut out);
                f.src
            }
        };
        self.send_all(&mut out, from);
        self.out = out;
        if at_receiver {
            self.sync_receiver_timer(pkt.flow);
        } else {
            self.sync_sender_timers(pkt.flow);
        }
    }

    /// A generated flow delivered its whole object: tell its session.
    fn object_done(&mut self, flow: usize) {
        let Some(Origin {
            source, session, ..
        }) = self.flows[flow].origin
        else {
            return;
        };
        let Source::Http(src) = &mut self.traffic[source as usize].source else {
            return;
        };
        if let Some(next) = src.on_object_done(session as usize, self.now) {
            self.events
                .schedule(next, Event::Traffic { source, session });
        }
    }

    fn send_all(&mut self, out: &mut Vec<Packet>, node: u32) {
        if let Some(t) = self.tracer.as_mut() {
            for p in out.iter().filter(|p| p.is_data()) {
                t.on_send(p.flow, p.seq, p.copy, self.now);
            }
        }
        for mut pkt in out.drain(..) {
            self.forward(&mut pkt, node);
        }
    }

    /// Send a packet from `node` towards its destination: choose the link
    /// (multipath route, else the routing table), then offer it.
    fn forward(&mut self, pkt: &mut Packet, node: u32) {
        let Some(li) = self.next_link(pkt, node) else {
            // Validation guarantees routes for every flow; count as a drop.
            self.on_drop(pkt);
            return;
        };
        self.links[li as usize].stats.arrivals += 1;
        self.enter_link(pkt, li, 0);
    }

    fn next_link(&mut self, pkt: &mut Packet, node: u32) -> Option<u32> {
        if self.multipath.is_empty() {
            return self.routing.next_link(node, pkt.dst);
        }
        if pkt.route != 0 {
            match self.multipath.next_link(pkt.route, node) {
                Some(l) => return Some(l),
                None => pkt.route = 0,
            }
        }
        if let Some(route) = self.multipath.choose(node, pkt) {
            pkt.route = route;
            return self.multipath.next_link(route, node);
        }
        self.routing.next_link(node, pkt.dst)
    }

    /// Run the link's ingress elements from `from` on, then its queue.
    fn enter_link(&mut self, pkt: &Packet, li: u32, from: usize) {
        let n = self.links[li as usize].ingress.len();
        for k in from..n {
            let e = self.links[li as usize].ingress[k];
            let verdict = self.elements[e as usize].process(pkt, self.now);
            // A passing packet can move a deadline too (the reordering
            // generator arms its release on the first later packet).
            self.sync_element(e);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.links[li as usize].stats.ingress_drops += 1;
                    self.on_drop(pkt);
                    return;
                }
                Verdict::Hold => return,
            }
        }
        match self.links[li as usize].admit(pkt, self.now) {
            Admit::Accepted(Some(t)) => self.events.schedule(t, Event::LinkDeliver { link: li }),
            Admit::Accepted(None) => {}
            Admit::Dropped => self.on_drop(pkt),
        }
    }

    /// Run the link's egress elements from `from` on, then hand the packet
    /// to the far node.
    fn leave_link(&mut self, pkt: &mut Packet, li: u32, from: usize) {
        let n = self.links[li as usize].egress.len();
        for k in from..n {
            let e = self.links[li as usize].egress[k];
            let verdict = self.elements[e as usize].process(pkt, self.now);
            self.sync_element(e);
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.links[li as usize].stats.egress_drops += 1;
                    self.on_drop(pkt);
                    return;
                }
                Verdict::Hold => return,
            }
        }
        let node = self.links[li as usize].to;
        self.arrive(pkt, node);
    }

    fn sync_element(&mut self, e: u32) {
        let deadline = self.elements[e as usize].deadline();
        if let Some((t, gen)) = self.element_timers[e as usize].sync(deadline, self.now) {
            self.events
                .schedule(t, Event::ImpairRelease { element: e, gen });
        }
    }

    /// An element's deadline: release what is due and continue each packet
    /// after that element.
    fn fire_element(&mut self, e: u32, gen: u32) {
        let deadline = self.elements[e as usize].deadline();
        match self.element_timers[e as usize].on_fire(gen, self.now, deadline) {
            Fire::Ignore => return,
            Fire::Requeue(t) => {
                let gen = self.element_timers[e as usize].generation();
                self.events
                    .schedule(t, Event::ImpairRelease { element: e, gen });
                return;
            }
            Fire::Expire => {}
        }
        let el = &mut self.elements[e as usize];
        let (li, position, next) = (el.link, el.position, el.chain_index + 1);
        let mut batch = std::mem::take(&mut self.released);
        el.on_deadline(self.now, &mut self.links[li as usize], &mut batch);
        for mut pkt in batch.drain(..) {
            match position {
                Position::Ingress => self.enter_link(&pkt, li, next),
                Position::Egress => self.leave_link(&mut pkt, li, next),
            }
        }
        self.released = batch;
        self.sync_element(e);
    }

    fn on_drop(&mut self, pkt: &Packet) {
        if pkt.is_data() {
            self.flows[pkt.flow as usize]
                .sender
                .on_drop(pkt.seq, pkt.copy);
        }
    }

    fn sample(&mut self) {
        let Some(rec) = self.recorder.as_mut() else {
            return;
        };
        let flows = &self.flows;
        rec.sample(to_secs(self.now), |f, name| {
            let fl = &flows[f as usize];
            if name == "delivered" {
                fl.receiver.stats.segments_delivered as f64
            } else {
                fl.sender.sample(name)
            }
        });
        let next = self.now + rec.interval;
        if next <= self.end {
            self.events.schedule(next, Event::Sample);
        }
    }

    /// Violations of the conservation and correctness invariants; empty when
    /// the run is sound. Checked at the end of every scenario test.
    pub fn check_invariants(&self) -> Vec<String> {
        let mut bad = Vec::new();
        for l in &self.links {
            let s = &l.stats;
            let held_ingress: u64 = l
                .ingress
                .iter()
                .map(|&e| self.elements[e as usize].held_packets().len() as u64)
                .sum();
            if s.arrivals != s.enqueued + s.queue_drops + s.ingress_drops + held_ingress {
                bad.push(format!(
                    "{}: arrivals {} != enqueued + drops + held",
                    l.name, s.arrivals
                ));
            }
            if s.enqueued != s.delivered + l.in_system() as u64 {
                bad.push(format!(
                    "{}: enqueued {} != delivered + in system",
                    l.name, s.enqueued
                ));
            }
        }
        // Data packets of each flow still in a link or held by an element.
        let mut in_flight = vec![0u64; self.flows.len()];
        let held = self.elements.iter().flat_map(|e| e.held_packets());
        for p in self
            .links
            .iter()
            .flat_map(|l| l.packets_in_system())
            .cloned()
            .chain(held)
        {
            if p.is_data() {
                in_flight[p.flow as usize] += 1;
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            let rs = &f.receiver.stats;
            if rs.order_violations > 0 {
                bad.push(format!(
                    "flow {i}: {} out-of-order deliveries",
                    rs.order_violations
                ));
            }
            if rs.segments_delivered > f.sender.stats.new_segments_sent {
                bad.push(format!("flow {i}: delivered more segments than sent"));
            }
            if f.sender.stats.min_cwnd < 1.0 {
                bad.push(format!(
                    "flow {i}: cwnd fell to {}",
                    f.sender.stats.min_cwnd
                ));
            }
            let in_links = in_flight[i];
            let sent = f.sender.stats.data_packets_sent;
            let drops = f.sender.truth.dropped_copies();
            if sent != f.data_arrivals + drops + in_links {
                bad.push(format!(
                    "flow {i}: sent {sent} != arrived {} + dropped {drops} + in flight {in_links}",
                    f.data_arrivals
                ));
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
        let links = self.links.iter().map(|l| self.link_result(l)).collect();
        RunResult {
            scenario: self.name.clone(),
            seed: self.seed,
            engine_version: crate::engine_version(),
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
            reorder_density: self.flows[..self.scenario_flows]
                .iter()
                .enumerate()
                .map(|(i, f)| (i.to_string(), f.receiver.stats.reordering.density()))
                .collect(),
            impairments: self.elements.iter().map(|e| e.stats.clone()).collect(),
            multipath_routes: self.multipath.route_counts.clone(),
        }
    }

    fn link_result(&self, l: &Link) -> LinkResult {
        LinkResult {
            link: l.name.clone(),
            from: self.node_names[l.from as usize].clone(),
            to: self.node_names[l.to as usize].clone(),
            rate: l.rate,
            delay: to_secs(l.delay),
            arrivals: l.stats.arrivals,
            enqueued: l.stats.enqueued,
            queue_drops: l.stats.queue_drops,
            impairment_drops: l.stats.ingress_drops + l.stats.egress_drops,
            egress_drops: l.stats.egress_drops,
            delivered: l.stats.delivered,
            bytes_delivered: l.stats.bytes_delivered,
            in_system_at_end: l.in_system() as u64,
            max_queue: l.stats.max_queue,
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
            server: self.node_names[t.server as usize].clone(),
            client: self.node_names[t.client as usize].clone(),
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
            let (s, rs) = (&f.sender.stats, &f.receiver.stats);
            r.connections += 1;
            r.segments_delivered += rs.segments_delivered;
            r.bytes_delivered += rs.bytes_delivered;
            r.bytes_delivered_measured += rs.bytes_delivered_measured;
            r.data_packets_sent += s.data_packets_sent;
            r.retransmits += s.retransmits;
            r.fast_retransmits += s.fast_retransmits;
            r.timeouts += s.timeouts;
            r.spurious_retransmits += f.sender.truth.spurious_total();
            r.dsacks_received += s.dsacks_received;
            r.data_drops += f.sender.truth.dropped_copies();
            let Source::Http(_) = t.source else {
                continue;
            };
            let oct = rs.completed_at.map(|c| to_secs(c - f.start));
            match oct {
                Some(o) => {
                    r.objects_completed += 1;
                    octs.push(o);
                }
                None => r.active_at_end += 1,
            }
            if self.record_objects {
                let segments = f.sender.cfg.segments.unwrap_or(0);
                let last = segments.min(u32::MAX as u64) as u32;
                let tail = last.saturating_sub(4)..last;
                let origin = f.origin.expect("a generated flow");
                r.object_list.push(ObjectRecord {
                    start: to_secs(f.start),
                    segments,
                    oct,
                    retransmits: s.retransmits,
                    timeouts: s.timeouts,
                    tail_drops: f.sender.truth.segments_dropped_in(tail.clone()),
                    tail_retransmits: f.sender.truth.retransmitted_in(tail).0,
                    session: origin.session,
                    page: origin.page,
                    index: origin.index,
                    connection: origin.index,
                });
            }
        }
        if let Source::Page(p) = &t.source {
            for o in &p.objects {
                let oct = o.oct().map(to_secs);
                match oct {
                    Some(x) => {
                        r.objects_completed += 1;
                        octs.push(x);
                    }
                    None => r.active_at_end += 1,
                }
                if !self.record_objects {
                    continue;
                }
                let f = &self.flows[o.flow as usize];
                let seg = |x: u64| x.min(u32::MAX as u64) as u32;
                let (from, to) = (seg(o.first_segment), seg(o.first_segment + o.segments));
                let tail = to.saturating_sub(4).max(from)..to;
                let truth = &f.sender.truth;
                let now_timeouts = f.sender.stats.timeouts;
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
        }
        let span = to_secs(self.end.saturating_sub(self.warmup));
        if span > 0.0 {
            r.throughput_bps = r.bytes_delivered_measured as f64 * 8.0 / span;
        }
        if !octs.is_empty() {
            octs.sort_by(f64::total_cmp);
            let at = |q: f64| octs[((octs.len() - 1) as f64 * q).round() as usize];
            r.oct_mean = Some(octs.iter().sum::<f64>() / octs.len() as f64);
            r.oct_median = Some(at(0.5));
            r.oct_p95 = Some(at(0.95));
        }
        r
    }

    fn flow_result(&self, i: u32, f: &Flow) -> FlowResult {
        let s = &f.sender.stats;
        let r = &f.receiver.stats;
        let t = &f.sender.truth;
        let rtt = f.sender.rtt();
        let w = f.sender.window();
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
            src: self.node_names[f.src as usize].clone(),
            dst: self.node_names[f.dst as usize].clone(),
            variant: f.sender.cfg.variant.clone(),
            cc: f.cc_name.clone(),
            start: to_secs(f.start),
            segments_sent: s.new_segments_sent,
            data_packets_sent: s.data_packets_sent,
            bytes_sent: s.data_packets_sent * f.sender.cfg.mss as u64,
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
            dupthresh: f.sender.dupthresh(),
            fa_ratio: f.sender.fa_ratio(),
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
            srtt: f.sender.srtt().map(to_secs),
            rttvar: to_secs(rtt.rttvar()),
            min_rtt: rtt.min_rtt().map(to_secs),
            rto: to_secs(rtt.rto()),
            rto_mean: if s.rto_count > 0 {
                s.rto_sum / s.rto_count as f64
            } else {
                to_secs(rtt.rto())
            },
            cwnd: w.cwnd,
            ssthresh: w.ssthresh.is_finite().then_some(w.ssthresh),
            max_cwnd: s.max_cwnd,
        }
    }
}
