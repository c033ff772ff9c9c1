//! The emulator's loop: read packets from both TUN devices, run the model
//! to the present, write out what it delivered, sleep until the next model
//! event or packet.

use std::io;
use std::os::fd::RawFd;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::flows::{Classified, FlowAddrs, FlowCounts, Flows};
use super::network::{Network, Sink};
use super::pcap::Capture;
use super::selfcheck::{LinkRate, RateMeter, TimingErrors, TimingSummary};
use super::sys::{self, Tun};
use crate::engine::time::{secs, to_secs};
use crate::impair::ElementStats;
use crate::metrics::LinkResult;
use crate::net::packet::Packet;
use crate::spec::{Scenario, SpecError};

/// Side 0: the senders' namespace; side 1: the receivers'.
const SENDER: usize = 0;
const RECEIVER: usize = 1;
/// Packets read from one device before the other gets its turn.
const READ_BATCH: usize = 64;
/// Real-time priority of the emulator's thread (SCHED_FIFO, 1..99).
const PRIORITY: i32 = 20;

/// One side's TUN device.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideConfig {
    pub tun: String,
    /// Network namespace to create the device in (`/run/netns/NAME`).
    #[serde(default)]
    pub netns: Option<String>,
}

/// One flow's addresses (dotted IPv4).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub src: String,
    pub dst: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapConfig {
    pub sender: PathBuf,
    pub receiver: PathBuf,
    pub snaplen: u32,
}

/// What the controlling process asks of the emulator.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmuConfig {
    pub scenario: Scenario,
    pub seed: u64,
    pub sender: SideConfig,
    pub receiver: SideConfig,
    /// Addresses of each flow of the scenario, in order.
    pub flows: Vec<FlowConfig>,
    #[serde(default)]
    pub pcap: Option<PcapConfig>,
    /// Largest packet (the devices' MTU).
    pub max_packet: usize,
    /// Ask for SCHED_FIFO.
    #[serde(default = "yes")]
    pub realtime: bool,
    /// Stop after this many seconds whatever happens (a safety net).
    pub max_seconds: f64,
}

fn yes() -> bool {
    true
}

/// What the emulator reports at the end.
#[derive(Debug, Clone, Serialize)]
pub struct EmuReport {
    pub engine_version: String,
    pub seed: u64,
    /// CLOCK_MONOTONIC and CLOCK_REALTIME at the model's time 0, ns.
    pub start_monotonic_ns: u64,
    pub start_realtime_ns: u64,
    pub seconds: f64,
    /// SCHED_FIFO granted.
    pub realtime: bool,
    pub links: Vec<LinkResult>,
    pub impairments: Vec<ElementStats>,
    pub multipath_routes: Vec<u64>,
    pub flows: Vec<FlowCounts>,
    /// Write time minus scheduled time of every packet written out.
    pub timing: TimingSummary,
    pub rates: Vec<LinkRate>,
    pub packets_read: [u64; 2],
    pub packets_written: [u64; 2],
    /// Not IPv4 or not between the flows' hosts (dropped).
    pub unroutable: u64,
    pub write_errors: u64,
}

/// Packet bytes, indexed by a handle the model packet carries in its `ts`
/// field (the network's elements never read it; TCP endpoints would, and
/// the emulator has none).
struct Buffers {
    bytes: Vec<Vec<u8>>,
    len: Vec<usize>,
    free: Vec<u32>,
    size: usize,
}

impl Buffers {
    fn take(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.bytes.push(vec![0; self.size]);
            self.len.push(0);
            (self.bytes.len() - 1) as u32
        })
    }
}

struct Emulator {
    tuns: [Tun; 2],
    network: Network,
    flows: Flows,
    /// Side of each node's host (`None` for routers).
    node_side: Vec<Option<usize>>,
    buffers: Buffers,
    sink: Sink,
    capture: Option<Capture>,
    timing: TimingErrors,
    meters: Vec<RateMeter>,
    t0: u64,
    t0_real: u64,
    read: [u64; 2],
    written: [u64; 2],
    unroutable: u64,
    write_errors: u64,
}

fn parse_addr(s: &str, field: &str) -> Result<[u8; 4], SpecError> {
    s.parse::<std::net::Ipv4Addr>()
        .map(|a| a.octets())
        .map_err(|_| SpecError::new(field, format!("not an IPv4 address: {s:?}")))
}

fn config_error(e: SpecError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, e.to_string())
}

impl Emulator {
    fn new(cfg: &EmuConfig) -> io::Result<Emulator> {
        super::check::check(&cfg.scenario).map_err(config_error)?;
        let network = Network::new(&cfg.scenario, cfg.seed);
        if cfg.flows.len() != cfg.scenario.flows.len() {
            let msg = format!(
                "{} addresses for {} flows",
                cfg.flows.len(),
                cfg.scenario.flows.len()
            );
            return Err(config_error(SpecError::new("flows", msg)));
        }
        let mut node_side = vec![None; network.graph.node_names.len()];
        let mut addrs = Vec::new();
        for (i, (fc, fs)) in cfg.flows.iter().zip(&cfg.scenario.flows).enumerate() {
            let (src_node, dst_node) = (
                network.graph.node_index[&fs.src],
                network.graph.node_index[&fs.dst],
            );
            node_side[src_node as usize] = Some(SENDER);
            node_side[dst_node as usize] = Some(RECEIVER);
            addrs.push(FlowAddrs {
                src: parse_addr(&fc.src, &format!("flows[{i}].src")).map_err(config_error)?,
                dst: parse_addr(&fc.dst, &format!("flows[{i}].dst")).map_err(config_error)?,
                src_node,
                dst_node,
                max_window: fs.tcp.max_window,
            });
        }
        let capture = match &cfg.pcap {
            Some(p) => Some(Capture::create(
                &[p.sender.as_path(), p.receiver.as_path()],
                p.snaplen,
            )?),
            None => None,
        };
        let tuns = [
            Tun::create(&cfg.sender.tun, cfg.sender.netns.as_deref())?,
            Tun::create(&cfg.receiver.tun, cfg.receiver.netns.as_deref())?,
        ];
        let meters = (network.graph.links.iter())
            .map(|l| RateMeter::new(l.rate))
            .collect();
        Ok(Emulator {
            tuns,
            flows: Flows::new(&addrs),
            node_side,
            buffers: Buffers {
                bytes: Vec::new(),
                len: Vec::new(),
                free: Vec::new(),
                size: cfg.max_packet.max(68),
            },
            sink: Sink::default(),
            capture,
            timing: TimingErrors::default(),
            meters,
            network,
            t0: 0,
            t0_real: 0,
            read: [0; 2],
            written: [0; 2],
            unroutable: 0,
            write_errors: 0,
        })
    }

    /// Nanoseconds since the model's time 0.
    fn now(&self) -> u64 {
        sys::monotonic_ns() - self.t0
    }

    /// Run the model up to `now` and write out what it delivered.
    fn advance(&mut self, now: u64) {
        self.network.run_until(now, &mut self.sink);
        if !self.network.departures.is_empty() {
            let real = self.now();
            for &(link, size, scheduled) in &self.network.departures {
                self.meters[link as usize].on_departure(size, scheduled, real);
            }
            self.network.departures.clear();
        }
        self.flush();
    }

    fn flush(&mut self) {
        let mut sink = std::mem::take(&mut self.sink);
        for (pkt, scheduled) in sink.delivered.drain(..) {
            self.write_out(&pkt, scheduled);
        }
        for pkt in sink.dropped.drain(..) {
            self.flows.on_drop(&pkt);
            self.buffers.free.push(pkt.ts as u32);
        }
        self.sink = sink;
    }

    fn write_out(&mut self, pkt: &Packet, scheduled: u64) {
        let h = pkt.ts as usize;
        let side = self.node_side[pkt.dst as usize].unwrap_or(RECEIVER);
        let bytes = &self.buffers.bytes[h][..self.buffers.len[h]];
        match self.tuns[side].write(bytes) {
            Ok(()) => self.written[side] += 1,
            Err(_) => self.write_errors += 1,
        }
        let t = self.now();
        self.timing.add(t.saturating_sub(scheduled));
        if let Some(c) = &mut self.capture {
            c.record(side, self.t0_real + t, bytes);
        }
        self.flows.on_delivered(pkt, side == RECEIVER);
        self.buffers.free.push(h as u32);
    }

    /// Read what is waiting on `side` (at most a batch).
    fn read_side(&mut self, side: usize) -> io::Result<()> {
        for _ in 0..READ_BATCH {
            let h = self.buffers.take();
            let Some(n) = self.tuns[side].read(&mut self.buffers.bytes[h as usize])? else {
                self.buffers.free.push(h);
                return Ok(());
            };
            let t = self.now();
            self.advance(t);
            self.read[side] += 1;
            self.buffers.len[h as usize] = n;
            let bytes = &mut self.buffers.bytes[h as usize][..n];
            let classified = self.flows.classify(bytes);
            if let Some(c) = &mut self.capture {
                c.record(side, self.t0_real + t, bytes);
            }
            match classified {
                Classified::Packet(mut pkt, node) => {
                    pkt.ts = h as u64;
                    self.network.inject(pkt, node, t, &mut self.sink);
                    self.flush();
                }
                Classified::Unroutable => {
                    self.unroutable += 1;
                    self.buffers.free.push(h);
                }
            }
        }
        Ok(())
    }

    fn run(&mut self, stop_fd: Option<RawFd>, max_seconds: f64) -> io::Result<()> {
        self.t0 = sys::monotonic_ns();
        self.t0_real = sys::realtime_ns();
        let end = secs(max_seconds);
        let mut fds = vec![self.tuns[SENDER].raw(), self.tuns[RECEIVER].raw()];
        fds.extend(stop_fd);
        let mut ready = [false; 3];
        loop {
            let now = self.now();
            self.advance(now);
            if sys::stop_requested() || now >= end {
                return Ok(());
            }
            let next = self.network.next_event().unwrap_or(end).min(end);
            let timeout = next.saturating_sub(self.now());
            sys::wait(&fds, Some(timeout), &mut ready)?;
            if let Some(fd) = stop_fd.filter(|_| ready[2]) {
                // Any byte, or the end of the pipe, means stop.
                let mut b = [0u8; 16];
                if sys::read_fd(fd, &mut b)?.is_some() {
                    return Ok(());
                }
            }
            for side in [SENDER, RECEIVER] {
                if ready[side] {
                    self.read_side(side)?;
                }
            }
        }
    }

    fn report(self, seed: u64, realtime: bool) -> io::Result<EmuReport> {
        let seconds = to_secs(self.now());
        let net = &self.network.graph;
        let links = net
            .links
            .iter()
            .map(|l| l.result(&net.node_names))
            .collect();
        let rates = self
            .meters
            .iter()
            .zip(&net.links)
            .map(|(m, l)| m.clone().summary(&l.name))
            .collect();
        let report = EmuReport {
            engine_version: crate::sim::engine_version(),
            seed,
            start_monotonic_ns: self.t0,
            start_realtime_ns: self.t0_real,
            seconds,
            realtime,
            links,
            impairments: net.elements.iter().map(|e| e.stats.clone()).collect(),
            multipath_routes: net.multipath.route_counts.clone(),
            flows: self.flows.counts(),
            timing: self.timing.summary(),
            rates,
            packets_read: self.read,
            packets_written: self.written,
            unroutable: self.unroutable,
            write_errors: self.write_errors,
        };
        if let Some(c) = self.capture {
            c.finish()?;
        }
        Ok(report)
    }
}

/// Run the emulator: create both devices, call `ready` (the controlling
/// process then configures the namespaces), forward packets until a byte
/// or the end of file arrives on `stop_fd`, SIGTERM, or `max_seconds`.
pub fn run(
    cfg: &EmuConfig,
    stop_fd: Option<RawFd>,
    ready: &mut dyn FnMut(),
) -> io::Result<EmuReport> {
    sys::install_stop_signal();
    let mut emu = Emulator::new(cfg)?;
    // After the pcap thread started: only this thread is real-time.
    let realtime = cfg.realtime && sys::set_realtime(PRIORITY);
    ready();
    emu.run(stop_fd, cfg.max_seconds)?;
    emu.report(cfg.seed, realtime)
}

/// [`run`] with the configuration and the report as JSON; the one-line
/// error of a bad configuration or of a failed system call.
pub fn run_json(
    config: &str,
    stop_fd: Option<RawFd>,
    ready: &mut dyn FnMut(),
) -> Result<String, String> {
    let cfg: EmuConfig =
        serde_json::from_str(config).map_err(|e| format!("emulator configuration: {e}"))?;
    let report = run(&cfg, stop_fd, ready).map_err(|e| e.to_string())?;
    serde_json::to_string(&report).map_err(|e| e.to_string())
}
