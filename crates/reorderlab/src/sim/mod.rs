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
/// RTO) - T_last (tail-loss Sec. 2.2-2.3), not min(PTO - T_last, RTO).
/// 11: logarithms, exponentials, powers and cosines from the `libm` crate
/// (`crate::num`), the same bits on every machine, not from the platform's
/// C library (glibc picks FMA variants by CPU), and HighSpeed TCP's p(w) as
/// exp(1.2 log w) (as ns-2 computes it; half the cost of `pow` there): of
/// the full reproduction's 5,884 runs, ten (HighSpeed TCP) end with a cwnd,
/// ssthresh or max_cwnd 1-2 ulps apart; nothing else changed.
pub const MODEL_REVISION: u32 = 11;
/// One flow: its endpoints and timer slots.
#[derive(Debug)]
struct Flow {
    name: String,
    cc_name: String,
    src: u32,
    dst: u32,
    start: Time,
    measure_from: Time,
    ends: Ends,
    /// Packets of this flow in the network: sent by either end and not yet
    /// arrived at the other or dropped (held by an element counts).
    in_network: u32,
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

/// A flow's sender and receiver, or what is left of them once it is over.
#[derive(Debug)]
enum Ends {
    /// Boxed: a flow holds a pointer, so the flows of a run with tens of
    /// thousands of generated connections stay small and a finished
    /// connection's memory goes back for the next one.
    Live(Box<Endpoints>),
    /// A connection a traffic generator opened, over and inert
    /// ([`Simulation::retire_if_over`]): only what its results need.
    Over(ConnSummary),
}

#[derive(Debug)]
struct Endpoints {
    sender: Sender,
    receiver: Receiver,
}

/// What the results and the invariants read of a connection's sender and
/// receiver ([`ConnSummary::of`]).
#[derive(Debug, Clone, PartialEq)]
struct ConnSummary {
    data_packets_sent: u64,
    new_segments_sent: u64,
    retransmits: u64,
    fast_retransmits: u64,
    timeouts: u64,
    dsacks_received: u64,
    min_cwnd: f64,
    spurious_retransmits: u64,
    data_drops: u64,
    /// The transfer's size, and of its last four segments those with a
    /// dropped copy and those sent more than once.
    segments: u64,
    tail_drops: u32,
    tail_retransmits: u32,
    segments_delivered: u64,
    bytes_delivered: u64,
    bytes_delivered_measured: u64,
    order_violations: u64,
    completed_at: Option<Time>,
}

impl ConnSummary {
    fn of(e: &Endpoints) -> ConnSummary {
        let (s, truth, rs) = (e.sender.stats(), e.sender.truth(), &e.receiver.stats);
        let segments = e.sender.cfg().segments.unwrap_or(0);
        let last = segments.min(u32::MAX as u64) as u32;
        let tail = crate::metrics::tail(0, last);
        ConnSummary {
            data_packets_sent: s.data_packets_sent,
            new_segments_sent: s.new_segments_sent,
            retransmits: s.retransmits,
            fast_retransmits: s.fast_retransmits,
            timeouts: s.timeouts,
            dsacks_received: s.dsacks_received,
            min_cwnd: s.min_cwnd,
            spurious_retransmits: truth.spurious_total(),
            data_drops: truth.dropped_copies(),
            segments,
            tail_drops: truth.segments_dropped_in(tail.clone()),
            tail_retransmits: truth.retransmitted_in(tail).0,
            segments_delivered: rs.segments_delivered,
            bytes_delivered: rs.bytes_delivered,
            bytes_delivered_measured: rs.bytes_delivered_measured,
            order_violations: rs.order_violations,
            completed_at: rs.completed_at,
        }
    }
}

impl Flow {
    /// The sender and receiver of a flow that is not over (only a flow
    /// with nothing in the network and no timer armed is ever over, so
    /// no packet or timer reaches one).
    #[inline]
    fn live(&self) -> &Endpoints {
        match &self.ends {
            Ends::Live(e) => e,
            Ends::Over(_) => unreachable!("flow {} is over", self.name),
        }
    }

    #[inline]
    fn live_mut(&mut self) -> &mut Endpoints {
        match &mut self.ends {
            Ends::Live(e) => e,
            Ends::Over(_) => unreachable!("flow {} is over", self.name),
        }
    }

    #[inline]
    fn sender(&self) -> &Sender {
        &self.live().sender
    }

    #[inline]
    fn receiver(&self) -> &Receiver {
        &self.live().receiver
    }

    /// What the results read of its ends, whether live or over.
    fn summary(&self) -> ConnSummary {
        match &self.ends {
            Ends::Live(e) => ConnSummary::of(e),
            Ends::Over(s) => s.clone(),
        }
    }
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
    /// Keep the sender and receiver of every connection to the end, over
    /// or not ([`Simulation::keep_finished_connections`]).
    keep_connections: bool,
}

impl Simulation {
    pub fn now(&self) -> Time {
        self.now
    }

    pub fn counters(&self) -> EngineCounters {
        self.counters
    }

    /// The sender of `flow`. Panics for a connection a traffic generator
    /// opened that is over (its sender is freed; see
    /// [`Simulation::retire_if_over`]): the scenario's own flows never are.
    pub fn sender(&self, flow: usize) -> &Sender {
        self.flows[flow].sender()
    }

    /// Keep the sender and receiver of every connection a traffic
    /// generator opens until the end of the run, to inspect them with
    /// [`Simulation::sender`] afterwards. (By default a connection that is
    /// over gives them up, which changes no result: see
    /// [`Simulation::retire_if_over`].)
    pub fn keep_finished_connections(&mut self) {
        self.keep_connections = true;
    }

    /// Connections of traffic generators that are over and gave up their
    /// sender and receiver.
    pub fn connections_over(&self) -> usize {
        (self.flows.iter())
            .filter(|f| matches!(f.ends, Ends::Over(_)))
            .count()
    }

    /// The receiver of `flow` (panics as [`Simulation::sender`] does).
    pub fn receiver(&self, flow: usize) -> &Receiver {
        self.flows[flow].receiver()
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
