//! UET flows on a fabric (`reorderlab::uet`): a sprayed permutation
//! completes with the ground truth's counters, trimming turns drops into
//! NACKs, and the scenario's errors name the field.

mod common;

use reorderlab::metrics::FlowResult;
use reorderlab::spec::Scenario;
use reorderlab::Simulation;

fn fabric(variant: &str, policy: &str, extra: &str) -> Scenario {
    fabric_n(variant, policy, extra, 3)
}

/// `perms` permutations at once of 1 MB flows on the k = 4 fat-tree of
/// the `spraying` recipe.
fn fabric_n(variant: &str, policy: &str, extra: &str, perms: u32) -> Scenario {
    let w = |i: u32| {
        format!(
            r#"{{"pattern": "permutation", "flow_size": {{"dist": "constant", "value": 1000000}},
                "jitter": 10e-6, "variant": "{variant}", "tcp": {{"mss": 1500, "min_rto": 0.01,
                "initial_rto": 0.01}}, "name": "p{i}"}}"#
        )
    };
    Scenario::from_json(&format!(
        r#"{{"name": "uet", "duration": 0.5, "topology": {{"kind": "fat_tree", "k": 4,
            "tiers": 3, "rate": 10e9, "hop_delay": 1e-6,
            "load_balancing": "{policy}"{extra}}}, "workloads": [{}]}}"#,
        (0..perms).map(w).collect::<Vec<_>>().join(", ")
    ))
    .expect("valid scenario")
}

fn fabric_with(variant: &str, policy: &str, extra: &str) -> Scenario {
    if extra.contains("buffer_bytes") {
        fabric(variant, policy, extra)
    } else {
        fabric(
            variant,
            policy,
            &format!(r#", "buffer_bytes": 150000{extra}"#),
        )
    }
}

fn run(sc: &Scenario) -> Vec<FlowResult> {
    common::run_checked(sc, 1).result().flows
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn summary(name: &str, flows: &[FlowResult]) -> (f64, u64) {
    let mut fct: Vec<f64> = flows.iter().filter_map(|f| f.fct).collect();
    let done = fct.len();
    let spurious: u64 = flows.iter().map(|f| f.spurious_retransmits).sum();
    let rexmit: u64 = flows.iter().map(|f| f.retransmits).sum();
    let drops: u64 = flows.iter().map(|f| f.data_drops).sum();
    let p99 = pct(&mut fct, 0.99);
    if flows[0].uet.is_some() {
        let u: Vec<_> = flows.iter().filter_map(|f| f.uet.clone()).collect();
        let sum = |g: fn(&reorderlab::uet::UetFlowResult) -> u64| u.iter().map(g).sum::<u64>();
        eprintln!(
            "  sleek {} nack {} rto {} recoveries {} (probe {}) probes {} probe_acks {} timeouts {} ooo {}",
            sum(|x| x.sleek_retransmits),
            sum(|x| x.nack_retransmits),
            sum(|x| x.rto_retransmits),
            sum(|x| x.loss_recoveries),
            sum(|x| x.probe_recoveries),
            sum(|x| x.probes_sent),
            sum(|x| x.probe_acks),
            sum(|x| x.timeouts),
            sum(|x| x.out_of_order)
        );
    }
    eprintln!(
        "{name}: {done}/{} done, fct p50 {:.0} us p99 {:.0} us, rexmit {rexmit} spurious {spurious} drops {drops}",
        flows.len(),
        pct(&mut fct, 0.5) * 1e6,
        p99 * 1e6
    );
    (p99, spurious)
}

#[test]
fn a_sprayed_permutation_completes_with_few_spurious_retransmissions() {
    let flows = run(&fabric_with("UET", "spray", ""));
    assert_eq!(flows.len(), 48);
    assert!(flows.iter().all(|f| f.completed), "{flows:?}");
    let u: Vec<_> = flows
        .iter()
        .map(|f| f.uet.clone().expect("UET results"))
        .collect();
    let (p99, spurious) = summary("UET spray", &flows);
    let rack = run(&fabric_with("RACK-TLP", "spray", ""));
    let (rack_p99, rack_spurious) = summary("RACK-TLP spray", &rack);
    let drops: u64 = flows.iter().map(|f| f.data_drops).sum();
    assert_eq!(drops, 0, "the window (1.5 BDP) stays within the buffers");
    // SLEEK waits for 1.5 windows of out-of-order data: spraying's
    // reordering never reaches it here; every recovery is a probe's
    let sum = |g: fn(&reorderlab::uet::UetFlowResult) -> u64| u.iter().map(g).sum::<u64>();
    assert_eq!(sum(|x| x.loss_recoveries), sum(|x| x.probe_recoveries));
    assert!(sum(|x| x.out_of_order) > 1000, "spraying reorders");
    assert!(
        spurious * 2 < rack_spurious,
        "{spurious} vs RACK-TLP {rack_spurious}"
    );
    assert!(p99 < rack_p99, "{p99} vs RACK-TLP {rack_p99}");
    let sent: u64 = sum(|x| x.packets_sent);
    assert_eq!(sent, 48 * 667 + sum(|x| x.retransmits));
    assert!(
        u.iter().all(|x| x.nacks_received == 0),
        "no trimming: no NACK"
    );
}

#[test]
fn trimming_turns_drops_into_nacks_and_immediate_retransmissions() {
    // one flow per host (no queue at the hosts' own interfaces), small
    // switch buffers
    let extra = r#", "trimming": true, "buffer_bytes": 15000"#;
    let flows = run(&fabric_n("UET", "spray", extra, 1));
    summary("UET spray trimming", &flows);
    assert!(flows.iter().all(|f| f.completed));
    let trimmed: u64 = flows.iter().map(|f| f.trimmed_received).sum();
    let nacks: u64 = flows
        .iter()
        .map(|f| f.uet.as_ref().unwrap().nacks_received)
        .sum();
    let by_nack: u64 = flows
        .iter()
        .map(|f| f.uet.as_ref().unwrap().nack_retransmits)
        .sum();
    assert!(trimmed > 0, "the buffers overflow");
    // one NACK per trimmed header that arrived (none is lost on the way
    // back: ACKs are small and the reverse queues short)
    assert_eq!(nacks, trimmed);
    assert!(by_nack > 0 && by_nack <= nacks, "{by_nack} of {nacks}");
}

#[test]
#[ignore]
fn explore() {
    for policy in ["ecmp", "spray", "adaptive"] {
        for extra in [
            "",
            r#", "trimming": true, "buffer_bytes": 20000"#,
            r#", "buffer_bytes": 20000"#,
            r#", "ecn_threshold_bytes": 30000"#,
            r#", "failed_links": ["agg0->core0"]"#,
        ] {
            for v in ["UET", "SACK", "RACK-TLP", "NewReno"] {
                summary(
                    &format!("{v} {policy} {extra}"),
                    &run(&fabric_with(v, policy, extra)),
                );
            }
        }
    }
}

#[test]
fn bad_uet_settings_are_refused_on_one_line() {
    let mut sc = fabric_with("UET", "spray", "");
    sc.workloads[0].cc = "cubic".into();
    let e = Simulation::new(&sc, 1).err().expect("refused").to_string();
    assert!(
        e.starts_with("workloads[0].cc: the UET sender has its own window"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    let mut sc = fabric_with("UET", "spray", "");
    sc.workloads[1].variant = "UET-x".into();
    let e = Simulation::new(&sc, 1).err().expect("refused").to_string();
    assert!(
        e.starts_with("workloads[1].variant: unknown variant 'UET-x'"),
        "{e}"
    );
}

#[test]
fn a_uet_flow_off_a_fabric_is_refused_on_one_line() {
    // its window and RTO come from a fat-tree's round trip: on a wide-area
    // chain its fixed 100 us RTO would fire on every round trip
    let sc = Scenario::from_json(
        r#"{"duration": 1, "topology": {"kind": "chain", "bottleneck_rate": 8e6,
            "bottleneck_delay": 0.02}, "flows": [{"src": "S", "dst": "D", "variant": "UET"}]}"#,
    )
    .expect("parses");
    let e = Simulation::new(&sc, 1).err().expect("refused").to_string();
    assert!(
        e.starts_with("flows[0].variant: UET is a data-center sender"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}
