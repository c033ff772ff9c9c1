//! What a scenario may ask of the engine and of the machine
//! (`docs/limits.md`): times within the clock's range and step, rates the
//! links can represent, and a memory estimate of the allocations that grow
//! with the scenario's numbers (sessions, series samples, nodes), refused
//! above a cap ([`memory_limit`]) with a message saying how much it would
//! take.

use super::error::{num, SpecError};
use super::flow::FlowSpec;
use super::network::Topology;
pub use super::ranges::MAX_RATE;
use super::scenario::Scenario;
use super::traffic::TrafficKind;
use crate::engine::time::{MAX_SECONDS, MIN_STEP_SECONDS};

type Check = Result<(), SpecError>;

/// Default cap on the memory estimate of one run: 2 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;

/// Environment variable that sets the cap (bytes, or with a suffix:
/// `512M`, `16G`, `1T`; binary units).
pub const MEMORY_LIMIT_VAR: &str = "REORDERLAB_MEMORY_LIMIT";

/// Estimated bytes of one connection (the flow's sender, receiver and timer
/// state: 2.3 KiB by `size_of`, plus its buffers), for the scenario's flows
/// and every connection a traffic generator opens.
pub const FLOW_BYTES: u64 = 4096;

/// Estimated bytes of one recorded series value: 8 in the core, up to 24
/// as JSON text, 32 as a Python float in a list.
pub const SERIES_VALUE_BYTES: u64 = 64;

/// Estimated bytes of one traced data packet and the ACK it may bring
/// back (`record.trace_window`): five values (send time, segment, copy;
/// ACK time, cumulative ACK) at 32 bytes each. Measured: about 103 bytes
/// of the core's peak per traced packet (`scripts/memory_estimate.py`;
/// 64 a value, as a series value, made the estimate 5x the peak).
pub const TRACE_PACKET_BYTES: u64 = 5 * 32;

/// What `record.trace_details` adds per traced packet, at most: the ACK's
/// four SACK blocks (time, start, end: 12 values), a retransmission
/// (time, segment, copy, cause, spurious) and a drop (time, segment,
/// copy), at [`SERIES_VALUE_BYTES`] each.
pub const TRACE_DETAIL_PACKET_BYTES: u64 = 20 * SERIES_VALUE_BYTES;

/// Segment size of a flow that does not set `tcp.mss` (every registered
/// variant's default), bytes.
const DEFAULT_MSS: u32 = 1000;

/// Estimated bytes of one traffic session's state, its pending events and
/// its records, without its connections. Measured: about 3.0 kB a `page`
/// session (which opens its connections as it requests pages), 7.3 kB an
/// `http` one with its connection ([`FLOW_BYTES`]) open from the start
/// (`scripts/memory_estimate.py`; 64 bytes made the estimate 0.56 of the
/// peak).
pub const SESSION_BYTES: u64 = 3072;

/// Estimated bytes of one link (its state and queue, without packets).
pub const LINK_BYTES: u64 = 512;

/// What every run takes whatever its numbers: the engine's event queue and
/// tables, the result's text, the allocator's arenas. Measured: 2.1-2.9 MB
/// of the core's peak in each of 200 random valid scenarios of the property
/// tests, whose allocations that grow with a number come to 7-35 kB
/// (`scripts/memory_estimate.py --random 200`); without it the estimate of
/// a small run was 1 % of its peak.
pub const ENGINE_BYTES: u64 = 2 << 20;

/// A time field in seconds: finite, within [`MAX_SECONDS`], and `0` only
/// if `zero_ok`; a positive value below the 1 ns step is refused (it would
/// round to 0: a period of 0 loops for ever at one instant).
pub fn time(path: &str, v: f64, zero_ok: bool) -> Check {
    let bad = |msg: String| Err(SpecError::new(path, msg));
    let in_range = v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0));
    if !in_range {
        let bound = if zero_ok { ">= 0" } else { "> 0" };
        return bad(format!("must be {bound}, got {}", num(v)));
    }
    if v > MAX_SECONDS {
        return bad(format!(
            "must be at most 1e9 s (the longest simulated time), got {}",
            num(v)
        ));
    }
    if v > 0.0 && v < MIN_STEP_SECONDS {
        return bad(format!(
            "must be {}at least 1 ns (the engine's time step), got {}",
            if zero_ok { "0 or " } else { "" },
            num(v)
        ));
    }
    Ok(())
}

/// A link rate in bit/s: positive and at most [`MAX_RATE`]. (A very slow
/// link is valid: its packets take up to [`MAX_SECONDS`] to send.)
pub fn rate(path: &str, v: f64) -> Check {
    if !(v.is_finite() && v > 0.0) {
        return Err(SpecError::new(path, format!("must be > 0, got {}", num(v))));
    }
    if v > MAX_RATE {
        return Err(SpecError::new(
            path,
            format!(
                "must be at most 1e12 b/s (a 125-byte packet must take 1 ns, the engine's \
                 time step), got {}",
                num(v)
            ),
        ));
    }
    Ok(())
}

/// The memory cap: [`MEMORY_LIMIT_VAR`] if set, else [`DEFAULT_MEMORY_LIMIT`].
pub fn memory_limit() -> Result<u64, SpecError> {
    match std::env::var(MEMORY_LIMIT_VAR) {
        Err(_) => Ok(DEFAULT_MEMORY_LIMIT),
        Ok(text) => parse_bytes(&text).ok_or_else(|| {
            SpecError::new(
                MEMORY_LIMIT_VAR,
                format!("must be a size in bytes such as 8G or 512M, got '{text}'"),
            )
        }),
    }
}

/// `"512M"` -> 512 MiB; `"16G"`, `"1T"`, `"4096"`, `"1e9"`.
fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return None,
    };
    let v: f64 = digits.trim().parse().ok()?;
    let bytes = v * (1u64 << shift) as f64;
    (bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// `1.5 GB`-style text of a byte count (decimal units, as people read them).
pub fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1000.0 && u < UNITS.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// One allocation that grows with the scenario: its field, what it is, bytes.
struct Item {
    path: String,
    what: String,
    bytes: f64,
}

/// Nodes and links of a topology, without expanding it.
fn topology_size(t: &Topology) -> (f64, f64) {
    match t {
        Topology::Chain { .. } => (4.0, 6.0),
        Topology::Dumbbell { pairs, .. } => {
            let n = *pairs as f64;
            (2.0 * n + 2.0, 4.0 * n + 2.0)
        }
        Topology::ParkingLot { hop_rates, .. } => {
            let h = hop_rates.len() as f64;
            (3.0 * h + 3.0, 2.0 * (3.0 * h + 2.0))
        }
        Topology::FatTree { k, tiers, .. } => {
            let shape = crate::net::fattree::Shape::new(*k, *tiers);
            (shape.nodes() as f64, 2.0 * shape.cables() as f64)
        }
        Topology::Custom { nodes, links } => {
            let duplex = links.iter().filter(|l| l.duplex).count();
            (nodes.len() as f64, (links.len() + duplex) as f64)
        }
    }
}

/// The fastest a flow of the topology can send for long, bit/s: the
/// slowest link every flow crosses (a chain's or dumbbell's access and
/// bottleneck links; in a parking lot, one access link and at least one
/// hop), else the fastest link (a fat tree's one rate; a custom topology,
/// whose routes are not looked at). The fastest link alone made a trace
/// behind an 8 Mb/s bottleneck with a 1 Tb/s access link 80 GB.
fn path_rate(t: &Topology) -> f64 {
    let max = |rates: &[f64]| rates.iter().copied().fold(0.0, f64::max);
    match t {
        Topology::Chain {
            access_rate,
            bottleneck_rate,
            ..
        }
        | Topology::Dumbbell {
            access_rate,
            bottleneck_rate,
            ..
        } => access_rate.min(*bottleneck_rate),
        Topology::ParkingLot {
            hop_rates,
            access_rate,
            cross_access_rates,
            ..
        } => max(hop_rates).min(max(cross_access_rates).max(*access_rate)),
        Topology::FatTree { rate, .. } => *rate,
        Topology::Custom { links, .. } => max(&links.iter().map(|l| l.rate).collect::<Vec<_>>()),
    }
}

/// The shortest round trip of any flow of the topology by propagation
/// delays alone, seconds: a chain's or dumbbell's access, bottleneck and
/// access links both ways (a dumbbell's shortest pair), a parking lot's
/// one hop between two access links; 0 (no bound) for a fat tree or a
/// custom topology, whose routes are not looked at.
fn base_rtt(t: &Topology) -> f64 {
    match t {
        Topology::Chain {
            access_delay,
            bottleneck_delay,
            ..
        } => 2.0 * (2.0 * access_delay + bottleneck_delay),
        Topology::Dumbbell {
            access_delays,
            access_delay,
            bottleneck_delay,
            ..
        } => {
            let access = access_delays.iter().copied().fold(f64::INFINITY, f64::min);
            let access = if access.is_finite() {
                access
            } else {
                *access_delay
            };
            2.0 * (2.0 * access + bottleneck_delay)
        }
        Topology::ParkingLot {
            hop_delay,
            access_delay,
            ..
        } => 2.0 * (2.0 * access_delay + hop_delay),
        Topology::FatTree { .. } | Topology::Custom { .. } => 0.0,
    }
}

/// Data packets one flow can send in `seconds`, at most: one segment per
/// `8 x mss / rate` seconds ([`path_rate`]), and no more than its maximum
/// window (`tcp.max_window` or `quic.max_window`, the variant's default if unset) per round
/// trip ([`base_rtt`]; queueing only makes the round trip longer). The
/// window bound made a 10 Gb/s chain's trace of 2 s (a window of 10,000
/// segments over 24 ms: 3.3 Gb/s) 133 MB rather than 400 MB.
fn flow_packets(f: &FlowSpec, seconds: f64, rate: f64, rtt: f64) -> f64 {
    let sender = crate::tcp::variants::resolve(&f.variant, &f.tcp, f.segments);
    let mss = f
        .tcp
        .mss
        .or(sender.as_ref().map(|c| c.mss))
        .unwrap_or(DEFAULT_MSS);
    let by_rate = seconds * rate / (8.0 * mss.max(1) as f64);
    // a QUIC flow's window is quic.max_window (flow control)
    let quic_window = (f.quic.as_ref()).and_then(|q| q.max_window);
    let quic_window = quic_window.map(|w| u32::try_from(w).unwrap_or(u32::MAX));
    let window = (f.tcp.max_window.or(quic_window)).or(sender.map(|c| c.max_window));
    match window {
        Some(w) if rtt > 0.0 => by_rate.min(seconds * w as f64 / rtt),
        _ => by_rate,
    }
}

/// A time-sequence trace (`record.trace_window`): every data packet the
/// traced flows send within the window (and the ACK each may bring back),
/// as many as [`flow_packets`] allows per flow.
fn trace_item(s: &Scenario) -> Option<Item> {
    let [from, until] = s.record.trace_window.as_slice() else {
        return None;
    };
    let window = (until.min(s.duration) - from).max(0.0);
    let traced: Vec<usize> = if s.record.flows.is_empty() {
        (0..s.flows.len()).collect()
    } else {
        s.record.flows.iter().map(|&f| f as usize).collect()
    };
    let rate = path_rate(&s.topology);
    let rtt = base_rtt(&s.topology);
    let per_packet = match s.record.trace_details {
        Some(true) => TRACE_PACKET_BYTES + TRACE_DETAIL_PACKET_BYTES,
        _ => TRACE_PACKET_BYTES,
    };
    let packets: f64 = traced
        .iter()
        .filter_map(|&i| s.flows.get(i))
        .map(|f| flow_packets(f, window, rate, rtt))
        .sum();
    Some(Item {
        path: "record.trace_window".into(),
        what: format!(
            "a trace of {} flow(s) over {} s at up to {} b/s",
            traced.len(),
            num(window),
            num(rate)
        ),
        bytes: packets * per_packet as f64,
    })
}

fn items(s: &Scenario) -> Vec<Item> {
    let (nodes, links) = topology_size(&s.topology);
    // next hop per (node, destination), and the links; a fat-tree routes
    // by arithmetic on its structure (net/fattree.rs): no table
    let table = match s.topology {
        Topology::FatTree { .. } => 0.0,
        _ => nodes * nodes * 4.0,
    };
    let mut out = vec![Item {
        path: "topology".into(),
        what: format!("a routing table of {} nodes", num(nodes)),
        bytes: table + links * LINK_BYTES as f64,
    }];
    let flows = s.flows.len() as f64;
    out.push(Item {
        path: "flows".into(),
        what: format!("{} flows", num(flows)),
        bytes: flows * FLOW_BYTES as f64,
    });
    if let Some((shape, _)) = super::check_workload::fabric_of(&s.topology) {
        for (i, w) in s.workloads.iter().enumerate() {
            let n = w.flow_count(shape.hosts) as f64;
            out.push(Item {
                path: format!("workloads[{i}]"),
                what: format!("{} flows", num(n)),
                bytes: n * FLOW_BYTES as f64,
            });
        }
    }
    for (i, t) in s.traffic.iter().enumerate() {
        // connections open from the start: an http session's one; a page
        // session opens its own as it requests pages (each then counted
        // as it opens, sim/traffic.rs)
        let conns = match t.kind {
            TrafficKind::Http => 1.0,
            TrafficKind::Page => 0.0,
        };
        out.push(Item {
            path: format!("traffic[{i}].sessions"),
            what: format!("{} sessions", t.sessions),
            bytes: t.sessions as f64 * (SESSION_BYTES as f64 + conns * FLOW_BYTES as f64),
        });
    }
    let r = &s.record;
    if !r.series.is_empty() {
        let samples = (s.duration / r.interval).floor() + 1.0;
        let sampled = if r.flows.is_empty() {
            flows
        } else {
            r.flows.len() as f64
        };
        let values = samples * (1.0 + sampled * r.series.len() as f64);
        out.push(Item {
            path: "record.interval".into(),
            what: format!(
                "{} series of {} flow(s) every {} s for {} s",
                r.series.len(),
                num(sampled),
                num(r.interval),
                num(s.duration)
            ),
            bytes: values * SERIES_VALUE_BYTES as f64,
        });
    }
    out.extend(trace_item(s));
    out
}

/// The estimate of the whole run: [`ENGINE_BYTES`] and every allocation.
fn whole_run(items: &[Item]) -> f64 {
    ENGINE_BYTES as f64 + items.iter().map(|i| i.bytes).sum::<f64>()
}

/// Refuse a scenario whose estimated memory is above `limit` bytes, naming
/// the largest allocation's field. (Time and record fields must have been
/// checked: the series estimate divides by the interval.)
pub fn check_memory(s: &Scenario, limit: u64) -> Check {
    let items = items(s);
    let total = whole_run(&items);
    if total <= limit as f64 {
        return Ok(());
    }
    let big = items
        .iter()
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
        .expect("at least the topology");
    Err(SpecError::new(
        big.path.clone(),
        format!(
            "{} would take about {} (the whole run about {}), above the memory limit of {}; \
             set {MEMORY_LIMIT_VAR} (e.g. 16G) to allow more",
            big.what,
            human_bytes(big.bytes),
            human_bytes(total),
            human_bytes(limit as f64)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("512M"), Some(512 << 20));
        assert_eq!(parse_bytes("16g"), Some(16 << 30));
        assert_eq!(parse_bytes("1.5K"), Some(1536));
        assert_eq!(parse_bytes("1e9"), Some(1_000_000_000));
        for bad in ["", "G", "-1G", "lots", "0", "1e30T", "nan"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn times_are_refused_outside_the_clock() {
        assert!(time("d", 0.0, true).is_ok());
        assert!(time("d", 1e-9, false).is_ok());
        assert!(time("d", 1e9, false).is_ok());
        let msg = |r: Check| r.unwrap_err().to_string();
        assert_eq!(msg(time("d", 0.0, false)), "d: must be > 0, got 0");
        assert_eq!(msg(time("d", -1.0, true)), "d: must be >= 0, got -1");
        assert_eq!(
            msg(time("d", 1e-12, false)),
            "d: must be at least 1 ns (the engine's time step), got 1e-12"
        );
        assert_eq!(
            msg(time("d", 1e-12, true)),
            "d: must be 0 or at least 1 ns (the engine's time step), got 1e-12"
        );
        assert_eq!(
            msg(time("d", 1e12, true)),
            "d: must be at most 1e9 s (the longest simulated time), got 1000000000000"
        );
        assert!(msg(rate("r", 1e13)).starts_with("r: must be at most 1e12 b/s"));
        assert_eq!(msg(rate("r", 0.0)), "r: must be > 0, got 0");
    }

    fn total(json: &str) -> f64 {
        let s = Scenario::from_json(json).expect("a valid scenario");
        whole_run(&items(&s))
    }

    #[test]
    fn a_trace_is_bounded_by_the_window_over_the_round_trip() {
        // a 10 Gb/s chain: the path allows 2.5 million segments in 2 s, a
        // window of 10,000 (the default) over 24 ms only 833,333; of 100, 8,333
        let chain = |tcp: &str| {
            total(&format!(
                r#"{{"duration": 2, "topology": {{"kind": "chain", "bottleneck_rate": 1e10, "bottleneck_delay": 0.01,
                "access_rate": 1e10}}, "flows": [{{"src": "S1", "dst": "D", "tcp": {{{tcp}}}}}],
                "record": {{"trace_window": [0, 2]}}}}"#
            ))
        };
        let fixed =
            ENGINE_BYTES as f64 + 4.0 * 4.0 * 4.0 + 6.0 * LINK_BYTES as f64 + FLOW_BYTES as f64;
        let packets = |v: f64| ((v - fixed) / TRACE_PACKET_BYTES as f64).round();
        assert_eq!(packets(chain("")), 833_333.0);
        assert_eq!(packets(chain(r#""max_window": 10000"#)), 833_333.0);
        assert_eq!(packets(chain(r#""max_window": 100"#)), 8_333.0);
    }

    #[test]
    fn a_trace_is_bounded_by_the_slowest_link_of_the_path() {
        // 2 s behind an 8 Mb/s bottleneck: 2,000 segments of 1000 bytes,
        // whatever the access link (the fastest link made it 80 GB at 1 Tb/s)
        let chain = |access: &str| {
            total(&format!(
                r#"{{"duration": 2, "topology": {{"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.01,
                "access_rate": {access}}}, "flows": [{{"src": "S1", "dst": "D"}}],
                "record": {{"trace_window": [0, 2]}}}}"#
            ))
        };
        assert_eq!(chain("1e12"), chain("8e6"));
        let fixed =
            ENGINE_BYTES as f64 + 4.0 * 4.0 * 4.0 + 6.0 * LINK_BYTES as f64 + FLOW_BYTES as f64;
        assert_eq!(chain("1e12") - fixed, 2000.0 * TRACE_PACKET_BYTES as f64);
    }

    #[test]
    fn a_page_session_opens_its_connections_as_it_goes() {
        let traffic = |kind: &str| {
            total(&format!(
                r#"{{"duration": 2, "topology": {{"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.01}},
                "traffic": [{{"kind": "{kind}", "server": "S1", "client": "D", "sessions": 1000}}]}}"#
            ))
        };
        let per_session = SESSION_BYTES as f64;
        assert_eq!(
            traffic("http") - traffic("page"),
            1000.0 * FLOW_BYTES as f64
        );
        assert!(traffic("page") >= 1000.0 * per_session);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(4.0 * (1u64 << 30) as f64), "4.3 GB");
        assert_eq!(human_bytes(2.75e11), "275.0 GB");
    }
}
