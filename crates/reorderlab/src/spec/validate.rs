//! Validation of a [`Scenario`]: every check names the field by its path and
//! the offending value, e.g. `topology.bottleneck_rate: must be > 0, got -5`.

use std::collections::HashSet;
use std::fmt;

use super::{
    FlowSpec, ImpairmentModel, LinkSpec, MultipathSpec, PcapTapSpec, Position, QueueSpec,
    ReceiverSpec, Scenario, TcpSpec, Topology, TrafficKind, TrafficSpec, SERIES_NAMES,
};
use crate::net::routing::RoutingTable;
use crate::net::topology::expand;
use crate::tcp::cc::CongestionControl;
use crate::tcp::variants;

/// A scenario error: the field path and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub path: String,
    pub message: String,
}

impl SpecError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for SpecError {}

type Check = Result<(), SpecError>;

fn positive(path: &str, v: f64) -> Check {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(SpecError::new(path, format!("must be > 0, got {v}")))
    }
}

fn non_negative(path: &str, v: f64) -> Check {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(SpecError::new(path, format!("must be >= 0, got {v}")))
    }
}

fn at_least(path: &str, v: u64, min: u64) -> Check {
    if v >= min {
        Ok(())
    } else {
        Err(SpecError::new(path, format!("must be >= {min}, got {v}")))
    }
}

fn probability(path: &str, v: f64, allow_one: bool) -> Check {
    let ok = v.is_finite() && v >= 0.0 && (v < 1.0 || (allow_one && v == 1.0));
    if ok {
        Ok(())
    } else {
        let hi = if allow_one { "1]" } else { "1)" };
        Err(SpecError::new(
            path,
            format!("must be in [0, {hi}, got {v}"),
        ))
    }
}

fn check_queue(path: &str, q: &QueueSpec) -> Check {
    match *q {
        QueueSpec::Droptail {
            limit_packets,
            limit_bytes,
        } => {
            if let Some(l) = limit_packets {
                at_least(&format!("{path}.limit_packets"), l as u64, 1)?;
            }
            if let Some(l) = limit_bytes {
                at_least(&format!("{path}.limit_bytes"), l, 1)?;
            }
            Ok(())
        }
        QueueSpec::Red {
            limit_packets,
            min_th,
            max_th,
            max_p,
            w_q,
            ..
        } => {
            at_least(&format!("{path}.limit_packets"), limit_packets as u64, 1)?;
            non_negative(&format!("{path}.min_th"), min_th)?;
            if !(max_th.is_finite() && max_th > min_th) {
                return Err(SpecError::new(
                    format!("{path}.max_th"),
                    format!("must be > min_th ({min_th}), got {max_th}"),
                ));
            }
            if !(max_p > 0.0 && max_p <= 1.0) {
                return Err(SpecError::new(
                    format!("{path}.max_p"),
                    format!("must be in (0, 1], got {max_p}"),
                ));
            }
            if !(w_q > 0.0 && w_q <= 1.0) {
                return Err(SpecError::new(
                    format!("{path}.w_q"),
                    format!("must be in (0, 1], got {w_q}"),
                ));
            }
            Ok(())
        }
    }
}

fn check_topology(t: &Topology) -> Check {
    match t {
        Topology::Chain {
            access_rate,
            access_delay,
            bottleneck_rate,
            bottleneck_delay,
            queue,
            access_queue,
        } => {
            positive("topology.access_rate", *access_rate)?;
            non_negative("topology.access_delay", *access_delay)?;
            positive("topology.bottleneck_rate", *bottleneck_rate)?;
            non_negative("topology.bottleneck_delay", *bottleneck_delay)?;
            check_queue("topology.queue", queue)?;
            if let Some(q) = access_queue {
                check_queue("topology.access_queue", q)?;
            }
        }
        Topology::Dumbbell {
            pairs,
            access_rate,
            access_delays,
            access_delay,
            bottleneck_rate,
            bottleneck_delay,
            queue,
            access_queue,
        } => {
            at_least("topology.pairs", *pairs as u64, 1)?;
            if *pairs > 100_000 {
                return Err(SpecError::new(
                    "topology.pairs",
                    format!("must be <= 100000, got {pairs}"),
                ));
            }
            positive("topology.access_rate", *access_rate)?;
            non_negative("topology.access_delay", *access_delay)?;
            if !access_delays.is_empty() && access_delays.len() != *pairs as usize {
                return Err(SpecError::new(
                    "topology.access_delays",
                    format!(
                        "must have one delay per pair ({pairs}), got {}",
                        access_delays.len()
                    ),
                ));
            }
            for (i, d) in access_delays.iter().enumerate() {
                non_negative(&format!("topology.access_delays[{i}]"), *d)?;
            }
            positive("topology.bottleneck_rate", *bottleneck_rate)?;
            non_negative("topology.bottleneck_delay", *bottleneck_delay)?;
            check_queue("topology.queue", queue)?;
            if let Some(q) = access_queue {
                check_queue("topology.access_queue", q)?;
            }
        }
        Topology::ParkingLot {
            hop_rates,
            hop_delay,
            access_rate,
            cross_access_rates,
            access_delay,
            queue,
            access_queue,
        } => {
            if !cross_access_rates.is_empty() && cross_access_rates.len() != hop_rates.len() {
                return Err(SpecError::new(
                    "topology.cross_access_rates",
                    format!(
                        "must list one rate per hop ({}) or none, got {}",
                        hop_rates.len(),
                        cross_access_rates.len()
                    ),
                ));
            }
            for (i, r) in cross_access_rates.iter().enumerate() {
                positive(&format!("topology.cross_access_rates[{i}]"), *r)?;
            }
            if hop_rates.is_empty() {
                return Err(SpecError::new(
                    "topology.hop_rates",
                    "must list at least one hop rate, got []",
                ));
            }
            for (i, r) in hop_rates.iter().enumerate() {
                positive(&format!("topology.hop_rates[{i}]"), *r)?;
            }
            non_negative("topology.hop_delay", *hop_delay)?;
            positive("topology.access_rate", *access_rate)?;
            non_negative("topology.access_delay", *access_delay)?;
            check_queue("topology.queue", queue)?;
            if let Some(q) = access_queue {
                check_queue("topology.access_queue", q)?;
            }
        }
        Topology::Custom { nodes, links } => {
            if nodes.is_empty() {
                return Err(SpecError::new(
                    "topology.nodes",
                    "must not be empty, got []",
                ));
            }
            let mut seen = HashSet::new();
            for (i, n) in nodes.iter().enumerate() {
                if n.is_empty() || !seen.insert(n.as_str()) {
                    return Err(SpecError::new(
                        format!("topology.nodes[{i}]"),
                        format!("node names must be unique and non-empty, got '{n}'"),
                    ));
                }
            }
            let mut names = HashSet::new();
            for (i, l) in links.iter().enumerate() {
                let p = format!("topology.links[{i}]");
                for (field, node) in [("from", &l.from), ("to", &l.to)] {
                    if !seen.contains(node.as_str()) {
                        return Err(SpecError::new(
                            format!("{p}.{field}"),
                            format!("unknown node '{node}'"),
                        ));
                    }
                }
                if l.from == l.to {
                    return Err(SpecError::new(
                        format!("{p}.to"),
                        format!("a link must join two different nodes, got '{}' twice", l.to),
                    ));
                }
                positive(&format!("{p}.rate"), l.rate)?;
                non_negative(&format!("{p}.delay"), l.delay)?;
                check_queue(&format!("{p}.queue"), &l.queue)?;
                let mut dirs = vec![format!("{}->{}", l.from, l.to)];
                if l.duplex {
                    dirs.push(format!("{}->{}", l.to, l.from));
                }
                for d in dirs {
                    if !names.insert(d.clone()) {
                        return Err(SpecError::new(p.clone(), format!("duplicate link '{d}'")));
                    }
                }
            }
        }
    }
    Ok(())
}

fn check_impairment(p: &str, model: &ImpairmentModel, flows: usize) -> Check {
    match model {
        ImpairmentModel::Loss { p: prob, .. } => probability(&format!("{p}.p"), *prob, false),
        ImpairmentModel::Delay {
            fraction, delay, ..
        } => {
            probability(&format!("{p}.fraction"), *fraction, true)?;
            delay.validate(&format!("{p}.delay"))
        }
        ImpairmentModel::BurstLoss { q, duration, .. } => {
            probability(&format!("{p}.q"), *q, false)?;
            duration.validate(&format!("{p}.duration"))
        }
        ImpairmentModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
            ..
        } => {
            probability(&format!("{p}.p_gb"), *p_gb, true)?;
            probability(&format!("{p}.p_bg"), *p_bg, true)?;
            probability(&format!("{p}.loss_good"), *loss_good, true)?;
            probability(&format!("{p}.loss_bad"), *loss_bad, true)
        }
        ImpairmentModel::Positioned { flow, segments, .. } => {
            if *flow as usize >= flows {
                return Err(SpecError::new(
                    format!("{p}.flow"),
                    format!("no flow with index {flow} ({flows} flows)"),
                ));
            }
            if segments.is_empty() {
                return Err(SpecError::new(
                    format!("{p}.segments"),
                    "must list at least one segment, got []",
                ));
            }
            Ok(())
        }
        ImpairmentModel::Swap { period, swaps } => {
            positive(&format!("{p}.period"), *period)?;
            at_least(&format!("{p}.swaps"), *swaps as u64, 1)
        }
        ImpairmentModel::Reorder {
            interval,
            delay,
            delay_packets,
            block,
            max_hold,
            ..
        } => {
            interval.validate(&format!("{p}.interval"))?;
            match (delay, delay_packets) {
                (Some(d), None) => d.validate(&format!("{p}.delay"))?,
                (None, Some(d)) => d.validate(&format!("{p}.delay_packets"))?,
                _ => {
                    return Err(SpecError::new(
                        format!("{p}.delay"),
                        "give exactly one of delay (s) and delay_packets",
                    ))
                }
            }
            block.validate(&format!("{p}.block"))?;
            positive(&format!("{p}.max_hold"), *max_hold)
        }
        ImpairmentModel::Arq {
            frame_error,
            link_rtt,
            max_attempts,
            ..
        } => {
            probability(&format!("{p}.frame_error"), *frame_error, false)?;
            non_negative(&format!("{p}.link_rtt"), *link_rtt)?;
            if let Some(m) = max_attempts {
                at_least(&format!("{p}.max_attempts"), *m as u64, 1)?;
            }
            Ok(())
        }
    }
}

/// A multipath splitter: paths are chains of known links from `at` to `dst`.
fn check_multipath(i: usize, mp: &MultipathSpec, nodes: &[String], links: &[LinkSpec]) -> Check {
    let p = format!("multipath[{i}]");
    for (field, node) in [("at", &mp.at), ("dst", &mp.dst)] {
        if !nodes.contains(node) {
            return Err(SpecError::new(
                format!("{p}.{field}"),
                format!("unknown node '{node}'"),
            ));
        }
    }
    if mp.paths.is_empty() {
        return Err(SpecError::new(
            format!("{p}.paths"),
            "must list at least one path, got []",
        ));
    }
    let endpoints = |name: &str| -> Option<(String, String)> {
        links.iter().find_map(|l| {
            if format!("{}->{}", l.from, l.to) == name {
                Some((l.from.clone(), l.to.clone()))
            } else if l.duplex && format!("{}->{}", l.to, l.from) == name {
                Some((l.to.clone(), l.from.clone()))
            } else {
                None
            }
        })
    };
    for (k, path) in mp.paths.iter().enumerate() {
        let pp = format!("{p}.paths[{k}]");
        if path.is_empty() {
            return Err(SpecError::new(pp, "must list at least one link, got []"));
        }
        let mut at = mp.at.clone();
        for (j, name) in path.iter().enumerate() {
            let Some((from, to)) = endpoints(name) else {
                return Err(SpecError::new(
                    format!("{pp}[{j}]"),
                    format!("unknown link '{name}'"),
                ));
            };
            if from != at {
                return Err(SpecError::new(
                    format!("{pp}[{j}]"),
                    format!("link '{name}' does not start at '{at}'"),
                ));
            }
            at = to;
        }
        if at != mp.dst {
            return Err(SpecError::new(
                pp,
                format!("ends at '{at}', not at dst '{}'", mp.dst),
            ));
        }
    }
    if let Some(e) = mp.epsilon {
        non_negative(&format!("{p}.epsilon"), e)?;
    }
    positive(&format!("{p}.scale"), mp.scale)?;
    if let Some(w) = &mp.weights {
        if w.len() != mp.paths.len() {
            return Err(SpecError::new(
                format!("{p}.weights"),
                format!(
                    "must have one weight per path ({}), got {}",
                    mp.paths.len(),
                    w.len()
                ),
            ));
        }
        if w.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || w.iter().sum::<f64>() <= 0.0 {
            return Err(SpecError::new(
                format!("{p}.weights"),
                format!("must be >= 0 with a positive sum, got {w:?}"),
            ));
        }
    }
    Ok(())
}

fn check_endpoints(p: &str, fields: [(&str, &String); 2], nodes: &HashSet<&str>) -> Check {
    for (field, node) in fields {
        if !nodes.contains(node.as_str()) {
            let mut known: Vec<&str> = nodes.iter().copied().collect();
            known.sort_unstable();
            return Err(SpecError::new(
                format!("{p}.{field}"),
                format!("unknown node '{node}' (known: {})", known.join(", ")),
            ));
        }
    }
    let [(first, a), (field, b)] = fields;
    if a == b {
        return Err(SpecError::new(
            format!("{p}.{field}"),
            format!("must differ from {first}, got '{b}'"),
        ));
    }
    Ok(())
}

fn check_start(path: &str, start: f64, duration: f64) -> Check {
    non_negative(path, start)?;
    if start >= duration {
        return Err(SpecError::new(
            path,
            format!("must be before the end of the run ({duration} s), got {start}"),
        ));
    }
    Ok(())
}

fn check_flow(i: usize, f: &FlowSpec, nodes: &HashSet<&str>, duration: f64) -> Check {
    let p = format!("flows[{i}]");
    check_endpoints(&p, [("src", &f.src), ("dst", &f.dst)], nodes)?;
    check_transport(&p, &f.variant, &f.cc, &f.tcp, &f.receiver)?;
    check_start(&format!("{p}.start"), f.start, duration)
}

fn check_traffic(i: usize, t: &TrafficSpec, nodes: &HashSet<&str>, duration: f64) -> Check {
    let p = format!("traffic[{i}]");
    check_endpoints(&p, [("server", &t.server), ("client", &t.client)], nodes)?;
    check_transport(&p, &t.variant, &t.cc, &t.tcp, &t.receiver)?;
    at_least(&format!("{p}.sessions"), t.sessions as u64, 1)?;
    check_start(&format!("{p}.start"), t.start, duration)?;
    if let Some(stop) = t.stop {
        if !(stop.is_finite() && stop > t.start) {
            return Err(SpecError::new(
                format!("{p}.stop"),
                format!("must be > start ({}), got {stop}", t.start),
            ));
        }
    }
    for (field, var) in [
        ("page_interarrival", &t.page_interarrival),
        ("objects_per_page", &t.objects_per_page),
        ("inter_object", &t.inter_object),
        ("object_size", &t.object_size),
    ] {
        var.validate(&format!("{p}.{field}"))?;
    }
    // A session whose pages all come at once would loop forever at one instant.
    if t.page_interarrival.mean() == Some(0.0) {
        return Err(SpecError::new(
            format!("{p}.page_interarrival"),
            "must have a mean > 0, got 0",
        ));
    }
    match t.kind {
        TrafficKind::Http => {
            for (field, set) in [
                ("connections", t.connections.is_some()),
                ("object_sizes", t.object_sizes.is_some()),
            ] {
                if set {
                    return Err(SpecError::new(
                        format!("{p}.{field}"),
                        "is only used by kind = \"page\", got kind = \"http\"",
                    ));
                }
            }
        }
        TrafficKind::Page => {
            if let Some(c) = t.connections {
                if !(1..=64).contains(&c) {
                    return Err(SpecError::new(
                        format!("{p}.connections"),
                        format!("must be in 1..=64, got {c}"),
                    ));
                }
            }
            if let Some(sizes) = &t.object_sizes {
                if sizes.is_empty() {
                    return Err(SpecError::new(
                        format!("{p}.object_sizes"),
                        "must list at least one object (the HTML), got []",
                    ));
                }
                for (j, &b) in sizes.iter().enumerate() {
                    positive(&format!("{p}.object_sizes[{j}]"), b)?;
                }
            }
        }
    }
    Ok(())
}

/// Variant, congestion control, sender and receiver parameters of a flow or
/// of a traffic generator's flows; `p` is the owner's path.
fn check_transport(p: &str, variant: &str, cc: &str, t: &TcpSpec, r: &ReceiverSpec) -> Check {
    if variants::find(variant).is_none() {
        return Err(SpecError::new(
            format!("{p}.variant"),
            format!(
                "unknown variant '{}' (known: {})",
                variant,
                variants::names().join(", ")
            ),
        ));
    }
    if CongestionControl::by_name(cc).is_none() {
        let known: Vec<&str> = crate::tcp::cc::CONTROLLERS.iter().map(|c| c.name).collect();
        return Err(SpecError::new(
            format!("{p}.cc"),
            format!(
                "unknown congestion control '{}' (known: {})",
                cc,
                known.join(", ")
            ),
        ));
    }
    let tp = format!("{p}.tcp");
    for (field, v) in [("mss", t.mss), ("ack_size", t.ack_size)] {
        if let Some(v) = v {
            if !(1..=65535).contains(&v) {
                return Err(SpecError::new(
                    format!("{tp}.{field}"),
                    format!("must be in 1..=65535 bytes, got {v}"),
                ));
            }
        }
    }
    if let Some(v) = t.max_window {
        at_least(&format!("{tp}.max_window"), v as u64, 1)?;
    }
    if let Some(v) = t.initial_window {
        at_least(&format!("{tp}.initial_window"), v as u64, 1)?;
    }
    if let Some(v) = t.initial_ssthresh {
        at_least(&format!("{tp}.initial_ssthresh"), v as u64, 2)?;
    }
    if let Some(v) = t.dupthresh {
        at_least(&format!("{tp}.dupthresh"), v as u64, 1)?;
    }
    if let Some(v) = t.fa_ratio {
        if !(0.0..=1.0).contains(&v) {
            return Err(SpecError::new(
                format!("{tp}.fa_ratio"),
                format!("must be in [0, 1], got {v}"),
            ));
        }
    }
    if let Some(v) = t.alpha {
        if !(v > 0.0 && v < 1.0) {
            return Err(SpecError::new(
                format!("{tp}.alpha"),
                format!("must be in (0, 1), got {v}"),
            ));
        }
    }
    if let Some(v) = t.beta {
        if !(v.is_finite() && v >= 1.0) {
            return Err(SpecError::new(
                format!("{tp}.beta"),
                format!("must be >= 1, got {v}"),
            ));
        }
    }
    if let Some(v) = t.cwv.as_deref() {
        if crate::tcp::policy::Cwv::parse(v).is_none() {
            return Err(SpecError::new(
                format!("{tp}.cwv"),
                format!("must be \"none\" or \"rfc2861\", got {v:?}"),
            ));
        }
    }
    if let Some(v) = t.limited_transmit_bound {
        non_negative(&format!("{tp}.limited_transmit_bound"), v)?;
    }
    if let Some(v) = t.min_rto {
        positive(&format!("{tp}.min_rto"), v)?;
    }
    if let Some(v) = t.initial_rto {
        positive(&format!("{tp}.initial_rto"), v)?;
    }
    if let Some(v) = t.granularity {
        non_negative(&format!("{tp}.granularity"), v)?;
    }
    if let Some(v) = t.max_rto {
        positive(&format!("{tp}.max_rto"), v)?;
        // Compare with the min RTO in force: the scenario's, else the
        // variant's own default.
        let min = t.min_rto.unwrap_or_else(|| {
            variants::resolve(variant, &TcpSpec::default(), 0)
                .map_or(0.0, |c| crate::engine::time::to_secs(c.rto.min_rto))
        });
        if v < min {
            return Err(SpecError::new(
                format!("{tp}.max_rto"),
                format!("must be >= min_rto ({min}), got {v}"),
            ));
        }
    }
    let rp = format!("{p}.receiver");
    positive(&format!("{rp}.delack_timeout"), r.delack_timeout)?;
    at_least(&format!("{rp}.delack_every"), r.delack_every as u64, 1)?;
    if !(1..=4).contains(&r.max_sack_blocks) {
        return Err(SpecError::new(
            format!("{rp}.max_sack_blocks"),
            format!("must be in 1..=4, got {}", r.max_sack_blocks),
        ));
    }
    Ok(())
}

impl Scenario {
    /// Check every field; the first problem found is returned.
    pub fn validate(&self) -> Result<(), SpecError> {
        positive("duration", self.duration)?;
        non_negative("warmup", self.warmup)?;
        if self.warmup >= self.duration {
            return Err(SpecError::new(
                "warmup",
                format!(
                    "must be < duration ({}), got {}",
                    self.duration, self.warmup
                ),
            ));
        }
        check_topology(&self.topology)?;
        let (nodes, links) = expand(&self.topology);
        let node_set: HashSet<&str> = nodes.iter().map(String::as_str).collect();
        let mut link_names: Vec<String> = Vec::new();
        let mut pairs = Vec::new();
        let index = |n: &str| nodes.iter().position(|x| x == n).unwrap() as u32;
        for l in &links {
            link_names.push(format!("{}->{}", l.from, l.to));
            pairs.push((index(&l.from), index(&l.to)));
        }
        for l in links.iter().filter(|l| l.duplex) {
            link_names.push(format!("{}->{}", l.to, l.from));
            pairs.push((index(&l.to), index(&l.from)));
        }
        for (i, imp) in self.impairments.iter().enumerate() {
            let p = format!("impairments[{i}]");
            if !link_names.contains(&imp.link) {
                return Err(SpecError::new(
                    format!("{p}.link"),
                    format!(
                        "unknown link '{}' (known: {})",
                        imp.link,
                        link_names.join(", ")
                    ),
                ));
            }
            check_impairment(&p, &imp.model, self.flows.len())?;
        }
        for (i, mp) in self.multipath.iter().enumerate() {
            check_multipath(i, mp, &nodes, &links)?;
        }
        if self.flows.is_empty() && self.traffic.is_empty() {
            return Err(SpecError::new(
                "flows",
                "must list at least one flow (or a traffic generator), got []",
            ));
        }
        let routing = RoutingTable::shortest_paths(nodes.len(), &pairs);
        for (i, f) in self.flows.iter().enumerate() {
            check_flow(i, f, &node_set, self.duration)?;
            let (s, d) = (index(&f.src), index(&f.dst));
            if routing.next_link(s, d).is_none() || routing.next_link(d, s).is_none() {
                return Err(SpecError::new(
                    format!("flows[{i}]"),
                    format!(
                        "no route between '{}' and '{}' in both directions",
                        f.src, f.dst
                    ),
                ));
            }
        }
        for (i, t) in self.traffic.iter().enumerate() {
            check_traffic(i, t, &node_set, self.duration)?;
            let (s, d) = (index(&t.server), index(&t.client));
            if routing.next_link(s, d).is_none() || routing.next_link(d, s).is_none() {
                return Err(SpecError::new(
                    format!("traffic[{i}]"),
                    format!(
                        "no route between '{}' and '{}' in both directions",
                        t.server, t.client
                    ),
                ));
            }
        }
        for (i, name) in self.record.series.iter().enumerate() {
            if !SERIES_NAMES.contains(&name.as_str()) {
                return Err(SpecError::new(
                    format!("record.series[{i}]"),
                    format!(
                        "unknown series '{name}' (known: {})",
                        SERIES_NAMES.join(", ")
                    ),
                ));
            }
        }
        positive("record.interval", self.record.interval)?;
        match self.record.trace_window.as_slice() {
            [] => {}
            [from, until] if from.is_finite() && *from >= 0.0 && until > from => {}
            w => {
                return Err(SpecError::new(
                    "record.trace_window",
                    format!("must be [] or [from, until] with 0 <= from < until, got {w:?}"),
                ))
            }
        }
        for (i, &f) in self.record.flows.iter().enumerate() {
            if f as usize >= self.flows.len() {
                return Err(SpecError::new(
                    format!("record.flows[{i}]"),
                    format!("no flow with index {f} ({} flows)", self.flows.len()),
                ));
            }
        }
        check_pcap(&self.record.pcap, &link_names, &pairs)
    }
}

/// `record.pcap`: every tap on a known link, and no capture point twice
/// (`A->B` at `ingress` and `B->A` at `egress` are both node A's end of
/// the same wire). `ends[k]` are the (from, to) nodes of `link_names[k]`.
fn check_pcap(taps: &[PcapTapSpec], link_names: &[String], ends: &[(u32, u32)]) -> Check {
    let mut points: Vec<(u32, u32)> = Vec::with_capacity(taps.len());
    for (i, tap) in taps.iter().enumerate() {
        let Some(k) = link_names.iter().position(|n| *n == tap.link) else {
            return Err(SpecError::new(
                format!("record.pcap[{i}].link"),
                format!(
                    "unknown link '{}' (known: {})",
                    tap.link,
                    link_names.join(", ")
                ),
            ));
        };
        let (from, to) = ends[k];
        let point = match tap.position {
            Position::Ingress => (from, to),
            Position::Egress => (to, from),
        };
        if let Some(j) = points.iter().position(|p| *p == point) {
            return Err(SpecError::new(
                format!("record.pcap[{i}]"),
                format!("captures at the same end of the same link as record.pcap[{j}]"),
            ));
        }
        points.push(point);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Scenario {
        Scenario::from_json(
            r#"{"duration": 10, "topology": {"kind": "chain", "bottleneck_rate": 8e6,
                "bottleneck_delay": 0.023}, "flows": [{"src": "S1", "dst": "D"}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn scenario_numbers_are_parsed_to_the_double_they_name() {
        // 17 significant digits: serde_json's default parser gives
        // 216.30385752329943 for the first (1 ulp off)
        for text in [
            "216.30385752329946",
            "2.1676047016431698e-08",
            "23772757.948139478",
        ] {
            let json = format!(
                r#"{{"duration": {text}, "topology": {{"kind": "chain", "bottleneck_rate": 8e6,
                    "bottleneck_delay": 0.023}}, "flows": [{{"src": "S1", "dst": "D"}}]}}"#
            );
            let s = Scenario::from_json(&json).unwrap();
            assert_eq!(
                s.duration.to_bits(),
                text.parse::<f64>().unwrap().to_bits(),
                "{text}"
            );
        }
    }

    #[test]
    fn valid_base_passes() {
        assert_eq!(base().validate(), Ok(()));
    }

    #[test]
    fn errors_name_field_and_value() {
        let mut s = base();
        if let Topology::Chain {
            bottleneck_rate, ..
        } = &mut s.topology
        {
            *bottleneck_rate = -5.0;
        }
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "topology.bottleneck_rate: must be > 0, got -5"
        );
        let mut s = base();
        s.flows[0].variant = "FOO".into();
        let e = s.validate().unwrap_err().to_string();
        assert!(
            e.starts_with("flows[0].variant: unknown variant 'FOO' (known: Reno"),
            "{e}"
        );
        let mut s = base();
        s.flows[0].dst = "X".into();
        assert!(s
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("flows[0].dst: unknown node 'X'"));
        let mut s = base();
        s.impairments.push(super::super::ImpairmentSpec {
            link: "R1->R2".into(),
            position: None,
            model: ImpairmentModel::Loss {
                p: 1.5,
                data_only: true,
            },
        });
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "impairments[0].p: must be in [0, 1), got 1.5"
        );
    }

    #[test]
    fn unknown_fields_and_bad_types_are_rejected_by_the_parser() {
        let e = Scenario::from_json(r#"{"duration": 1, "bogus": 1}"#).unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
    }
}
