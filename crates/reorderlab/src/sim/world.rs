//! The simulated world: the network ([`NetGraph`]), the flows with their
//! TCP endpoints, the traffic generators, the recorders, and the event
//! queue. Built by `build.rs`, run by `event_loop.rs`; the other files of
//! [`super`] are its work by concern.

use crate::app::{HttpSource, PageSource};
use crate::engine::event::TIMER_KINDS;
use crate::engine::{EventQueue, Time, TimerSlot};
use crate::metrics::pcap::PcapTaps;
use crate::metrics::{DetailRecorder, EngineCounters, SeriesRecorder, TraceRecorder};
use crate::net::link::Link;
use crate::net::packet::Packet;
use crate::quic::QuicEnds;
use crate::spec::SpecError;
use crate::tcp::cc::CongestionControl;
use crate::tcp::{Receiver, ReceiverConfig, Sender, SenderConfig};
use crate::uet::UetEnds;

use super::graph::NetGraph;
/// One flow: its endpoints and timer slots.
#[derive(Debug)]
pub(super) struct Flow {
    pub(super) name: String,
    pub(super) cc_name: String,
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) start: Time,
    pub(super) measure_from: Time,
    pub(super) ends: Ends,
    /// Packets of this flow in the network: sent by either end and not yet
    /// arrived at the other or dropped (held by an element counts).
    pub(super) in_network: u32,
    pub(super) timers: [TimerSlot; TIMER_KINDS],
    /// Data packets that reached the receiver (any copy).
    pub(super) data_arrivals: u64,
    /// Of them, marked CE on the way; and trimmed headers that arrived
    /// (counted as drops, not in `data_arrivals`).
    pub(super) ce_arrivals: u64,
    pub(super) trimmed_arrivals: u64,
    /// The traffic generator and session that opened this flow; `None` for
    /// the scenario's own flows.
    pub(super) origin: Option<Origin>,
    /// Completion already reported to the generator.
    pub(super) done: bool,
    /// A persistent connection of a page download (`kind = "page"`).
    pub(super) web: Option<WebConn>,
}

/// A flow's sender and receiver, or what is left of them once it is over.
#[derive(Debug)]
pub(super) enum Ends {
    /// Boxed: a flow holds a pointer, so the flows of a run with tens of
    /// thousands of generated connections stay small and a finished
    /// connection's memory goes back for the next one.
    Live(Box<Endpoints>),
    /// A QUIC connection (`crate::quic`): a scenario flow with a QUIC
    /// variant, live to the end of the run.
    Quic(Box<QuicEnds>),
    /// A UET flow (`crate::uet`): a flow with a UET variant, live to the
    /// end of the run.
    Uet(Box<UetEnds>),
    /// A connection a traffic generator opened, over and inert
    /// ([`Simulation::retire_if_over`]): only what its results need.
    Over(ConnSummary),
}

#[derive(Debug)]
pub(super) struct Endpoints {
    pub(super) sender: Sender,
    pub(super) receiver: Receiver,
}

/// What the results and the invariants read of a connection's sender and
/// receiver ([`ConnSummary::of`]).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ConnSummary {
    pub(super) data_packets_sent: u64,
    pub(super) new_segments_sent: u64,
    pub(super) retransmits: u64,
    pub(super) fast_retransmits: u64,
    pub(super) timeouts: u64,
    pub(super) dsacks_received: u64,
    pub(super) min_cwnd: f64,
    pub(super) spurious_retransmits: u64,
    pub(super) data_drops: u64,
    /// The transfer's size, and of its last four segments those with a
    /// dropped copy and those sent more than once.
    pub(super) segments: u64,
    pub(super) tail_drops: u32,
    pub(super) tail_retransmits: u32,
    pub(super) segments_delivered: u64,
    pub(super) bytes_delivered: u64,
    pub(super) bytes_delivered_measured: u64,
    pub(super) order_violations: u64,
    pub(super) completed_at: Option<Time>,
}

impl ConnSummary {
    pub(super) fn of(e: &Endpoints) -> ConnSummary {
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

impl ConnSummary {
    /// What the invariants and the traffic totals read of a QUIC flow.
    pub(super) fn of_quic(q: &QuicEnds) -> ConnSummary {
        let (s, r, t) = (&q.sender.stats, &q.receiver.stats, &q.sender.truth);
        ConnSummary {
            data_packets_sent: s.packets_sent,
            new_segments_sent: s.new_chunks_sent,
            retransmits: s.retransmits,
            fast_retransmits: 0,
            timeouts: s.ptos,
            dsacks_received: 0,
            min_cwnd: s.min_cwnd,
            spurious_retransmits: t.spurious_losses,
            data_drops: t.drops,
            segments: q.sender.cfg.segments.unwrap_or(0),
            tail_drops: 0,
            tail_retransmits: 0,
            segments_delivered: r.chunks_delivered,
            bytes_delivered: r.bytes_delivered,
            bytes_delivered_measured: r.bytes_delivered_measured,
            order_violations: 0,
            completed_at: r.completed_at,
        }
    }
}

impl ConnSummary {
    /// What the invariants and the traffic totals read of a UET flow.
    pub(super) fn of_uet(u: &UetEnds) -> ConnSummary {
        let (s, r) = (&u.sender.stats, &u.receiver.stats);
        ConnSummary {
            data_packets_sent: s.packets_sent,
            new_segments_sent: s.new_sent,
            retransmits: s.retransmits,
            fast_retransmits: 0,
            timeouts: s.timeouts,
            dsacks_received: 0,
            min_cwnd: s.min_cwnd / u.sender.cfg.mss as f64,
            spurious_retransmits: u.sender.truth.spurious_retransmits(),
            data_drops: u.sender.truth.drops,
            segments: u.sender.cfg.segments.unwrap_or(0),
            tail_drops: 0,
            tail_retransmits: 0,
            segments_delivered: r.packets_delivered,
            bytes_delivered: r.bytes_delivered,
            bytes_delivered_measured: r.bytes_delivered_measured,
            order_violations: 0,
            completed_at: r.completed_at,
        }
    }
}

impl Flow {
    /// The sender and receiver of a flow that is not over (only a flow
    /// with nothing in the network and no timer armed is ever over, so
    /// no packet or timer reaches one).
    #[inline]
    pub(super) fn live(&self) -> &Endpoints {
        match &self.ends {
            Ends::Live(e) => e,
            Ends::Over(_) => unreachable!("flow {} is over", self.name),
            Ends::Quic(_) => unreachable!("flow {} is a QUIC flow", self.name),
            Ends::Uet(_) => unreachable!("flow {} is a UET flow", self.name),
        }
    }

    #[inline]
    pub(super) fn live_mut(&mut self) -> &mut Endpoints {
        match &mut self.ends {
            Ends::Live(e) => e,
            Ends::Over(_) => unreachable!("flow {} is over", self.name),
            Ends::Quic(_) => unreachable!("flow {} is a QUIC flow", self.name),
            Ends::Uet(_) => unreachable!("flow {} is a UET flow", self.name),
        }
    }

    #[inline]
    pub(super) fn sender(&self) -> &Sender {
        &self.live().sender
    }

    #[inline]
    pub(super) fn receiver(&self) -> &Receiver {
        &self.live().receiver
    }

    /// The QUIC connection, if this is a QUIC flow.
    #[inline]
    pub(super) fn quic_mut(&mut self) -> Option<&mut QuicEnds> {
        match &mut self.ends {
            Ends::Quic(q) => Some(q),
            _ => None,
        }
    }

    /// The UET connection, if this is a UET flow.
    #[inline]
    pub(super) fn uet_mut(&mut self) -> Option<&mut UetEnds> {
        match &mut self.ends {
            Ends::Uet(u) => Some(u),
            _ => None,
        }
    }

    /// What the results read of its ends, whether live or over.
    pub(super) fn summary(&self) -> ConnSummary {
        match &self.ends {
            Ends::Live(e) => ConnSummary::of(e),
            Ends::Over(s) => s.clone(),
            Ends::Quic(q) => ConnSummary::of_quic(q),
            Ends::Uet(u) => ConnSummary::of_uet(u),
        }
    }
}

/// Where a generated flow comes from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Origin {
    pub(super) source: u32,
    pub(super) session: u32,
    /// `http`: the object's page and position in it.
    pub(super) page: u64,
    pub(super) index: u32,
}

/// State of a page download's persistent connection.
#[derive(Debug, Clone, Copy)]
pub(super) struct WebConn {
    /// The object in transfer (or the last one), an index into the page
    /// source's objects.
    pub(super) object: u32,
    /// Segments delivered once that object is complete.
    pub(super) end: u64,
    pub(super) busy: bool,
    /// Segments of a request on its way to the server.
    pub(super) pending: u64,
}

/// A traffic generator's process.
pub(super) enum Source {
    Http(HttpSource),
    Page(PageSource),
}

impl Source {
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Source::Http(_) => "http",
            Source::Page(_) => "page",
        }
    }
    pub(super) fn sessions(&self) -> usize {
        match self {
            Source::Http(h) => h.sessions(),
            Source::Page(p) => p.sessions(),
        }
    }
}

/// A traffic generator and the transport its objects use.
pub(super) struct Traffic {
    pub(super) name: String,
    pub(super) server: u32,
    pub(super) client: u32,
    pub(super) source: Source,
    /// `page`: one-way latency of a request from client to server.
    pub(super) request_delay: Time,
    /// Sender configuration of every object (its `segments` set per object).
    pub(super) sender: SenderConfig,
    pub(super) cc: CongestionControl,
    pub(super) cc_name: String,
    pub(super) receiver: ReceiverConfig,
}

/// The simulated world.
pub struct Simulation {
    pub(super) name: String,
    pub(super) seed: u64,
    pub(super) now: Time,
    pub(super) end: Time,
    pub(super) events: EventQueue,
    /// Nodes, links, impairment elements, routing, multipath.
    pub(super) graph: NetGraph,
    pub(super) flows: Vec<Flow>,
    /// Flows listed in the scenario; generated ones follow them.
    pub(super) scenario_flows: usize,
    pub(super) traffic: Vec<Traffic>,
    pub(super) warmup: Time,
    pub(super) record_objects: bool,
    /// Scratch buffer for packets produced by an endpoint (reused: no
    /// allocation per packet).
    pub(super) out: Vec<Packet>,
    pub(super) counters: EngineCounters,
    pub(super) recorder: Option<SeriesRecorder>,
    pub(super) tracer: Option<TraceRecorder>,
    /// What a time-sequence graph adds to the trace (`record.trace_details`).
    pub(super) details: Option<DetailRecorder>,
    /// Packet captures ([`Simulation::capture_to`]); boxed: a run without
    /// them carries one pointer.
    pub(super) pcap: Option<Box<PcapTaps>>,
    /// Memory cap of this run (`spec::limits`), for the connections the
    /// traffic generators open.
    pub(super) memory_limit: u64,
    /// Why the run must stop before its end (a limit reached), if it must.
    pub(super) failure: Option<SpecError>,
    /// Keep the sender and receiver of every connection to the end, over
    /// or not ([`Simulation::keep_finished_connections`]).
    pub(super) keep_connections: bool,
    /// REPS (`load_balancing = "reps"`): each flow's entropy values.
    pub(super) reps: Option<Vec<crate::net::reps::Reps>>,
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

    /// The QUIC connection of `flow`, if it is a QUIC flow.
    pub fn quic(&self, flow: usize) -> Option<&QuicEnds> {
        match &self.flows[flow].ends {
            Ends::Quic(q) => Some(q),
            _ => None,
        }
    }

    /// The UET connection of `flow`, if it is a UET flow.
    pub fn uet(&self, flow: usize) -> Option<&UetEnds> {
        match &self.flows[flow].ends {
            Ends::Uet(u) => Some(u),
            _ => None,
        }
    }

    /// The receiver of `flow` (panics as [`Simulation::sender`] does).
    pub fn receiver(&self, flow: usize) -> &Receiver {
        self.flows[flow].receiver()
    }

    pub fn link(&self, name: &str) -> Option<&Link> {
        self.graph.links.iter().find(|l| l.name == name)
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
