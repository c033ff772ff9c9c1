//! Validation of a [`Scenario`]: every check names the field by its path and
//! the offending value, e.g. `topology.bottleneck_rate: must be > 0, got -5`.
//! The Python front calls this too (`_core.validate`): it is the one place
//! where a scenario's cross-field rules (routes, link names, endpoints,
//! multipath paths) and its limits (`docs/limits.md`) are written.

use std::collections::{HashMap, HashSet};

use super::check_fabric::{check_fabric_options, check_fabric_routes};
use super::check_network::{check_impairment, check_multipath, check_topology, link_ends};
use super::check_quic::{check_quic_flow, check_quic_settings_need_quic, is_quic};
use super::check_uet::{check_uet_flow, is_uet};
use super::check_workload::{check_workload, check_workload_routes};
use super::error::{known_list, num, Check, SpecError};
use super::fields::check_fields;
use super::flow::{FlowSpec, TcpSpec};
use super::impairment::Position;
use super::limits::{check_memory, memory_limit};
use super::network::Topology;
use super::record::{PcapTapSpec, SERIES_NAMES};
use super::scenario::Scenario;
use super::traffic::{TrafficKind, TrafficSpec};
use crate::net::routing::RoutingTable;
use crate::net::topology::expand;
use crate::tcp::cc::CongestionControl;
use crate::tcp::variants;

fn check_endpoints(
    p: &str,
    fields: [(&str, &String); 2],
    nodes: &[String],
    index: &HashMap<&str, u32>,
) -> Check {
    for (field, node) in fields {
        if !index.contains_key(node.as_str()) {
            return Err(SpecError::new(
                format!("{p}.{field}"),
                format!("unknown node '{node}' (known: {})", known_list(nodes)),
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
    if start >= duration {
        return Err(SpecError::new(
            path,
            format!(
                "must be before the end of the run ({} s), got {}",
                num(duration),
                num(start)
            ),
        ));
    }
    Ok(())
}

fn check_flow(i: usize, f: &FlowSpec, duration: f64) -> Check {
    let p = format!("flows[{i}]");
    check_quic_settings_need_quic(&p, f)?;
    if is_quic(f) {
        check_quic_flow(&p, f)?;
    } else if is_uet(f) {
        check_uet_flow(&p, &f.variant, &f.cc, f.tcp.syn)?;
    } else {
        check_transport(&p, &f.variant, &f.cc, &f.tcp)?;
    }
    check_start(&format!("{p}.start"), f.start, duration)
}

/// A UET flow takes its window and RTO from a fat-tree's unloaded round
/// trip (`crate::uet::config::resolve`); elsewhere its fixed 100 us RTO
/// fires on every wide-area round trip, so it is refused there.
fn check_uet_on_fabric(p: &str, f: &FlowSpec, topology: &Topology) -> Check {
    if is_uet(f) && !matches!(topology, Topology::FatTree { .. }) {
        return Err(SpecError::new(
            format!("{p}.variant"),
            format!(
                "{} is a data-center sender (its window and RTO come from a fat-tree's round trip, docs/fabrics.md): use it with topology.kind = \"fat_tree\", got '{}' on another topology",
                f.variant, f.variant
            ),
        ));
    }
    Ok(())
}

fn check_traffic(i: usize, t: &TrafficSpec, duration: f64) -> Check {
    let p = format!("traffic[{i}]");
    check_transport(&p, &t.variant, &t.cc, &t.tcp)?;
    check_start(&format!("{p}.start"), t.start, duration)?;
    if let Some(stop) = t.stop {
        if stop <= t.start {
            return Err(SpecError::new(
                format!("{p}.stop"),
                format!("must be > start ({}), got {}", num(t.start), num(stop)),
            ));
        }
    }
    // A session whose pages all come at once would loop for ever at one instant.
    if t.page_interarrival.mean() == Some(0.0) {
        return Err(SpecError::new(
            format!("{p}.page_interarrival"),
            "must have a mean > 0, got 0",
        ));
    }
    t.page_interarrival
        .validate_gap(&format!("{p}.page_interarrival"))?;
    t.inter_object.validate_time(&format!("{p}.inter_object"))?;
    t.objects_per_page
        .validate(&format!("{p}.objects_per_page"))?;
    t.object_size.validate(&format!("{p}.object_size"))?;
    check_page_fields(&p, t)
}

fn check_page_fields(p: &str, t: &TrafficSpec) -> Check {
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
            if t.object_sizes.as_ref().is_some_and(Vec::is_empty) {
                return Err(SpecError::new(
                    format!("{p}.object_sizes"),
                    "must list at least one object (the HTML), got []",
                ));
            }
        }
    }
    Ok(())
}

/// Variant and congestion control names of a flow or traffic generator.
fn check_names(p: &str, variant: &str, cc: &str) -> Check {
    if variants::find(variant).is_none() {
        return Err(SpecError::new(
            format!("{p}.variant"),
            format!(
                "unknown variant '{}' (known: {}; QUIC, for flows: {}; UET, for flows and workloads: {})",
                variant,
                variants::names().join(", "),
                crate::quic::variants::names().join(", "),
                crate::uet::config::names().join(", ")
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
    Ok(())
}

/// Variant and congestion control of a flow or of a traffic generator's
/// flows, and the sender parameters that depend on the variant; `p` is the
/// owner's path.
fn check_transport(p: &str, variant: &str, cc: &str, t: &TcpSpec) -> Check {
    check_names(p, variant, cc)?;
    let Some(v) = t.max_rto else {
        return Ok(());
    };
    // Compare with the min RTO in force: the scenario's, else the
    // variant's own default.
    let min = t.min_rto.unwrap_or_else(|| {
        variants::resolve(variant, &TcpSpec::default(), 0)
            .map_or(0.0, |c| crate::engine::time::to_secs(c.rto.min_rto))
    });
    if v < min {
        return Err(SpecError::new(
            format!("{p}.tcp.max_rto"),
            format!("must be >= min_rto ({}), got {}", num(min), num(v)),
        ));
    }
    Ok(())
}

fn check_record(s: &Scenario) -> Check {
    let r = &s.record;
    for (i, name) in r.series.iter().enumerate() {
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
    if r.trace_details.is_some() && r.trace_window.is_empty() {
        return Err(SpecError::new(
            "record.trace_details",
            "needs record.trace_window = [from, until] (the details are those of the trace)",
        ));
    }
    // each bound's own range is declared (a time >= 0)
    match r.trace_window.as_slice() {
        [] => {}
        [from, until] if until > from => {}
        w => {
            let shown: Vec<String> = w.iter().map(|x| num(*x)).collect();
            return Err(SpecError::new(
                "record.trace_window",
                format!(
                    "must be [] or [from, until] with 0 <= from < until, got [{}]",
                    shown.join(", ")
                ),
            ));
        }
    }
    for (i, &f) in r.flows.iter().enumerate() {
        if f as usize >= s.flows.len() {
            return Err(SpecError::new(
                format!("record.flows[{i}]"),
                format!("no flow with index {f} ({} flows)", s.flows.len()),
            ));
        }
    }
    Ok(())
}

/// Every flow and traffic generator has known, distinct endpoints with a
/// route each way.
fn check_routes(s: &Scenario, nodes: &[String], pairs: &[(u32, u32)]) -> Check {
    let index: HashMap<&str, u32> = (nodes.iter().enumerate())
        .map(|(i, n)| (n.as_str(), i as u32))
        .collect();
    let mut ends: Vec<(String, [(&str, &String); 2])> = Vec::new();
    for (i, f) in s.flows.iter().enumerate() {
        ends.push((format!("flows[{i}]"), [("src", &f.src), ("dst", &f.dst)]));
    }
    for (i, t) in s.traffic.iter().enumerate() {
        ends.push((
            format!("traffic[{i}]"),
            [("server", &t.server), ("client", &t.client)],
        ));
    }
    for (p, fields) in &ends {
        check_endpoints(p, *fields, nodes, &index)?;
    }
    if let Topology::FatTree { .. } = &s.topology {
        let ends: Vec<(&str, [(&str, u32); 2])> = (ends.iter())
            .map(|(p, [(fa, a), (fb, b)])| {
                (
                    p.as_str(),
                    [(*fa, index[a.as_str()]), (*fb, index[b.as_str()])],
                )
            })
            .collect();
        return check_fabric_routes(&s.topology, &ends);
    }
    let routing = RoutingTable::shortest_paths(nodes.len(), pairs);
    for (p, [(_, a), (_, b)]) in &ends {
        let (s, d) = (index[a.as_str()], index[b.as_str()]);
        if routing.next_link(s, d).is_none() || routing.next_link(d, s).is_none() {
            return Err(SpecError::new(
                p.clone(),
                format!("no route between '{a}' and '{b}' in both directions"),
            ));
        }
    }
    Ok(())
}

impl Scenario {
    /// Check every field, with the memory cap of [`memory_limit`]; the first
    /// problem found is returned.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.validate_with_memory_limit(memory_limit()?)
    }

    /// [`Scenario::validate`] with an explicit memory cap, in bytes.
    pub fn validate_with_memory_limit(&self, limit: u64) -> Result<(), SpecError> {
        check_fields(self)?;
        if self.warmup >= self.duration {
            return Err(SpecError::new(
                "warmup",
                format!(
                    "must be < duration ({}), got {}",
                    num(self.duration),
                    num(self.warmup)
                ),
            ));
        }
        check_topology(&self.topology)?;
        check_fabric_options(&self.topology, self.duration)?;
        if self.flows.is_empty() && self.traffic.is_empty() && self.workloads.is_empty() {
            return Err(SpecError::new(
                "flows",
                "must list at least one flow (or a traffic generator), got []",
            ));
        }
        for (i, f) in self.flows.iter().enumerate() {
            check_flow(i, f, self.duration)?;
            check_uet_on_fabric(&format!("flows[{i}]"), f, &self.topology)?;
        }
        for (i, t) in self.traffic.iter().enumerate() {
            check_traffic(i, t, self.duration)?;
        }
        for (i, w) in self.workloads.iter().enumerate() {
            let p = format!("workloads[{i}]");
            if crate::uet::config::find(&w.variant).is_some() {
                check_uet_flow(&p, &w.variant, &w.cc, w.tcp.syn)?;
            } else {
                check_transport(&p, &w.variant, &w.cc, &w.tcp)?;
            }
            check_workload(i, w, &self.topology, self.duration)?;
        }
        check_record(self)?;
        // before anything sized by the scenario's numbers is allocated
        check_memory(self, limit)?;
        self.check_wiring()
    }

    /// Impairments, multipath splitters and routes against the expanded
    /// topology's nodes and links.
    fn check_wiring(&self) -> Check {
        let (nodes, links) = expand(&self.topology);
        let index: HashMap<&str, u32> = (nodes.iter().enumerate())
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        let mut link_names: Vec<String> = Vec::new();
        let mut pairs = Vec::new();
        for l in &links {
            link_names.push(format!("{}->{}", l.from, l.to));
            pairs.push((index[l.from.as_str()], index[l.to.as_str()]));
        }
        for l in links.iter().filter(|l| l.duplex) {
            link_names.push(format!("{}->{}", l.to, l.from));
            pairs.push((index[l.to.as_str()], index[l.from.as_str()]));
        }
        let known: HashSet<&str> = link_names.iter().map(String::as_str).collect();
        for (i, imp) in self.impairments.iter().enumerate() {
            let p = format!("impairments[{i}]");
            if !known.contains(imp.link.as_str()) {
                return Err(SpecError::new(
                    format!("{p}.link"),
                    format!(
                        "unknown link '{}' (known: {})",
                        imp.link,
                        known_list(&link_names)
                    ),
                ));
            }
            check_impairment(&p, &imp.model, self.flows.len())?;
        }
        let ends = link_ends(&links);
        for (i, mp) in self.multipath.iter().enumerate() {
            check_multipath(i, mp, &index, &ends)?;
        }
        check_routes(self, &nodes, &pairs)?;
        for i in 0..self.workloads.len() {
            check_workload_routes(i, &self.topology)?;
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
                    known_list(link_names)
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
    use crate::spec::{ImpairmentModel, Topology};

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
    fn numbers_are_written_as_python_writes_them() {
        for (v, text) in [
            (-5.0, "-5"),
            (0.0, "0"),
            (1e-12, "1e-12"),
            (1e-4, "0.0001"),
            (9.5e-5, "9.5e-05"),
            (0.1, "0.1"),
            (1e15, "1000000000000000"),
            (1e16, "1e+16"),
            (1.5e300, "1.5e+300"),
            (123.456, "123.456"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(num(v), text);
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
