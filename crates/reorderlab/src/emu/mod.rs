//! Emulation: the scenario's path applied to real packets on the wall clock.
//!
//! Two TUN devices join a sender-side and a receiver-side network namespace
//! (set up by the Python front, `reorderlab emulate`). Every IPv4 packet
//! read from one device enters the scenario's network at its host's node,
//! goes through the simulator's own links, queues, impairment elements,
//! routing and multipath splitters ([`network`]), and is written to the
//! other device when the model delivers it to the destination node. The
//! model runs on the monotonic clock: a packet read at wall time t enters
//! the model at t, and each model event is handled at its own scheduled
//! time; the emulator sleeps (`ppoll`, real-time priority) until the next
//! event or the next packet.
//!
//! What is emulated is only the network: the TCP endpoints are the real
//! kernel's. The emulator reports the path's counters in the simulator's
//! schema (links, impairments), what it saw of each flow (packets,
//! retransmissions, ground-truth spurious retransmissions, reordering at
//! the receiver), and its own precision ([`selfcheck`]). It writes a pcap of
//! each side ([`pcap`]).

pub mod flows;
pub mod network;
pub mod pcap;
pub mod selfcheck;
pub mod sys;
pub mod wire;

mod emulator;

pub use emulator::{run, run_json, EmuConfig, EmuReport};

use crate::spec::{Scenario, SpecError};

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
}
