//! What the emulator can apply of a scenario (checked before any device is
//! opened).

use crate::spec::{LoadBalancing, Scenario, SpecError, Topology};

/// Check that the emulator can apply `scenario`'s network: one TCP
/// connection per flow between end hosts, senders and receivers on
/// different nodes, no generated traffic, no packet trace. The kernel side
/// (sender variants, TCP options) is checked by the Python front, which
/// configures the kernel. Errors name the field.
pub fn check(scenario: &Scenario) -> Result<(), SpecError> {
    scenario.validate()?;
    if !scenario.traffic.is_empty() {
        return Err(SpecError::new(
            "traffic",
            "the emulator runs the scenario's flows only, not traffic generators",
        ));
    }
    if scenario.flows.is_empty() {
        return Err(SpecError::new("flows", "at least one flow is needed"));
    }
    if !scenario.record.pcap.is_empty() {
        return Err(SpecError::new(
            "record.pcap",
            "link taps are the simulator's; emulation captures each side itself (--out)",
        ));
    }
    if !scenario.record.trace_window.is_empty() {
        return Err(SpecError::new(
            "record.trace_window",
            "not available in emulation (the pcap of each side has every packet)",
        ));
    }
    fabric_only(&scenario.topology)?;
    let senders: Vec<&str> = scenario.flows.iter().map(|f| f.src.as_str()).collect();
    for (i, f) in scenario.flows.iter().enumerate() {
        if senders.contains(&f.dst.as_str()) {
            return Err(SpecError::new(
                format!("flows[{i}].dst"),
                format!(
                    "node {:?} also sends a flow; senders and receivers are two network namespaces",
                    f.dst
                ),
            ));
        }
    }
    Ok(())
}

/// A fabric's ECN marks, trimmed headers, REPS values and cable changes
/// are the simulator's (the kernel's packets do not carry them).
fn fabric_only(t: &Topology) -> Result<(), SpecError> {
    let Topology::FatTree {
        ecn_threshold_bytes,
        trimming,
        events,
        load_balancing,
        ..
    } = t
    else {
        return Ok(());
    };
    let field = [
        (
            "topology.ecn_threshold_bytes",
            ecn_threshold_bytes.is_some(),
        ),
        ("topology.trimming", *trimming),
        ("topology.events", !events.is_empty()),
        (
            "topology.load_balancing",
            *load_balancing == LoadBalancing::Reps,
        ),
    ]
    .into_iter()
    .find(|(_, set)| *set);
    match field {
        Some((f, _)) => Err(SpecError::new(
            f,
            "is the simulator's alone: not applied in emulation",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> Scenario {
        let text = format!(
            r#"{{"duration": 10, "topology": {{"kind": "dumbbell", "pairs": 2,
                "bottleneck_rate": 8e6, "bottleneck_delay": 0.02}} {extra}}}"#
        );
        Scenario::from_json(&text).unwrap()
    }

    #[test]
    fn refuses_what_it_cannot_emulate_naming_the_field() {
        let flows = r#", "flows": [{"src": "S0", "dst": "D0"}, {"src": "S1", "dst": "D1"}]"#;
        assert!(check(&scenario(flows)).is_ok());
        let err = |extra: &str| check(&scenario(extra)).unwrap_err().to_string();
        assert!(err("").starts_with("flows:"));
        let back = r#", "flows": [{"src": "S0", "dst": "D0"}, {"src": "D0", "dst": "S1"}]"#;
        assert!(err(back).starts_with("flows[0].dst:"), "{}", err(back));
        let traffic = format!(r#"{flows}, "traffic": [{{"server": "S1", "client": "D1"}}]"#);
        assert!(err(&traffic).starts_with("traffic:"));
        let trace = format!(r#"{flows}, "record": {{"trace_window": [0, 1]}}"#);
        assert!(err(&trace).starts_with("record.trace_window:"));
        let taps = format!(r#"{flows}, "record": {{"pcap": [{{"link": "R1->R2"}}]}}"#);
        assert!(err(&taps).starts_with("record.pcap:"));
    }

    #[test]
    fn a_fabric_s_marks_and_changes_are_refused() {
        let fabric = |extra: &str| {
            let text = format!(
                r#"{{"duration": 1, "topology": {{"kind": "fat_tree", "k": 4 {extra}}},
                    "flows": [{{"src": "h0", "dst": "h5"}}]}}"#
            );
            check(&Scenario::from_json(&text).unwrap())
        };
        assert!(fabric("").is_ok());
        for (extra, field) in [
            (
                r#", "ecn_threshold_bytes": 1000"#,
                "topology.ecn_threshold_bytes:",
            ),
            (r#", "trimming": true"#, "topology.trimming:"),
            (r#", "load_balancing": "reps""#, "topology.load_balancing:"),
            (
                r#", "events": [{"at": 0, "link": "h0->edge0", "action": "down"}]"#,
                "topology.events:",
            ),
        ] {
            let e = fabric(extra).unwrap_err().to_string();
            assert!(e.starts_with(field), "{e}");
        }
    }
}
