//! A simulation: the world built from a validated [`Scenario`], and the event
//! loop that runs it.
//!
//! * [`build`]: the world from the scenario (topology, impairments, flows,
//!   traffic generators, recorders);
//! * [`event_loop`]: the loop, its dispatch and the endpoints' timers;
//! * [`path`]: a packet's way through links, impairment elements and nodes;
//! * [`traffic`]: flows opened during the run by traffic generators;
//! * [`results`]: the run's results and its conservation invariants;
//! * [`capture`]: packet captures (`record.pcap`).

pub(crate) mod build;
mod capture;
pub mod event_loop;
mod path;
mod results;
mod traffic;

use crate::app::{HttpSource, PageSource};
use crate::engine::event::TIMER_KINDS;
use crate::engine::{EventQueue, Time, TimerSlot};
use crate::impair::Element;
use crate::metrics::pcap::PcapTaps;
use crate::metrics::{EngineCounters, SeriesRecorder, TraceRecorder};
use crate::net::multipath::Multipath;
use crate::net::packet::Packet;
use crate::net::{Link, RoutingTable};
use crate::spec::SpecError;
use crate::tcp::cc::CongestionControl;
use crate::tcp::{Receiver, ReceiverConfig, Sender, SenderConfig};
pub use event_loop::Stopped;
pub use results::RunResult;

/// Bumped whenever a model change can alter results, so cached results of an
/// older engine are not reused. 6: scenario numbers parsed exactly
/// (serde_json's `float_roundtrip`; before, some were 1 ulp off). 7: TCP-PR
/// counts the DSACK blocks it receives (`dsacks_received` was always 0).
/// 8: the algorithms checked against their sources (issue 19): RFC 4653
/// TCP-NCR, RFC 7765 step 3b, RFC 8985 step 3, Linux 3.17's reordering
/// measurement and RTO rules for the Linux family, F-RTO on recurring
/// timeouts, RFC 3708 A.3, RFC 3042 for the Blanton-Allman schemes and
/// TD-FR, AVG-DEV from its sources, HyStart, the ns-2 estimator mode, and
/// `rto_expired_mean` in the flow results. 9: the Linux family (Linux-ER,
/// RTOR, TLP, TLPR, Linux) undoes by timestamps (`tcp_packet_delayed`)
/// and measures the reordering it reveals. 10: TLPR's timer is min(PTO,
/// RTO) - T_last (seed 002 Sec. 2.2-2.3), not min(PTO - T_last, RTO).
pub const MODEL_REVISION: u32 = 10;
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
    /// Packet captures ([`Simulation::capture_to`]); boxed: a run without
    /// them carries one pointer.
    pcap: Option<Box<PcapTaps>>,
    /// Memory cap of this run (`spec::limits`), for the connections the
    /// traffic generators open.
    memory_limit: u64,
    /// Why the run must stop before its end (a limit reached), if it must.
    failure: Option<SpecError>,
}

impl Simulation {
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
        // never stopped early: a generated flow over the memory limit is
        // not opened, and the reason is kept for `run_checked`
        let _ = self.run_until_checked(t, &mut || false);
    }
}
