//! Fabric workloads in whole runs (`docs/fabrics.md`): a permutation,
//! an incast and an all-to-all expand into flows that complete, the same
//! for the same seed; bad workloads are refused on one line.

mod common;

use reorderlab::Scenario;

fn scenario(workload: &str, topology: &str) -> String {
    format!(
        r#"{{"name": "w", "duration": 0.2,
            "topology": {{"kind": "fat_tree", "k": 4, "rate": 10e9, {topology}}},
            "workloads": [{workload}]}}"#
    )
}

fn run(json: &str, seed: u64) -> reorderlab::RunResult {
    let sc = Scenario::from_json(json).unwrap();
    let mut r = common::run_checked(&sc, seed).result();
    r.engine_version.clear();
    r
}

fn error(json: &str) -> String {
    match Scenario::from_json(json) {
        Err(e) => e.to_string(),
        Ok(s) => s.validate().unwrap_err().to_string(),
    }
}

#[test]
fn a_permutation_runs_every_host_once_and_repeats_itself() {
    let json = scenario(
        r#"{"pattern": "permutation", "flow_size": {"dist": "constant", "value": 146000},
            "jitter": 1e-5, "tcp": {"mss": 1460}}"#,
        r#""load_balancing": "spray""#,
    );
    let r = run(&json, 5);
    assert_eq!(r.flows.len(), 16);
    assert!(r.flows.iter().all(|f| f.completed), "every flow completes");
    assert!(r.flows.iter().all(|f| f.segments_delivered == 100));
    let mut dsts: Vec<&str> = r.flows.iter().map(|f| f.dst.as_str()).collect();
    dsts.sort_unstable();
    dsts.dedup();
    assert_eq!(dsts.len(), 16, "each host receives once");
    assert_eq!(r.flows[3].name, "w0.3");
    let starts: Vec<f64> = r.flows.iter().map(|f| f.start).collect();
    assert!(starts.iter().all(|s| (0.0..1e-5).contains(s)), "{starts:?}");
    let a = serde_json::to_string(&r).unwrap();
    assert_eq!(a, serde_json::to_string(&run(&json, 5)).unwrap());
    assert_ne!(a, serde_json::to_string(&run(&json, 6)).unwrap());
}

#[test]
fn an_incast_converges_on_its_target_and_all_to_all_covers_every_pair() {
    let json = scenario(
        r#"{"pattern": "incast", "fan_in": 8, "target": "h9", "flow_size": {"dist": "constant", "value": 20000}}"#,
        r#""buffer_bytes": 30000"#,
    );
    // a loss costs a retransmission timeout (1 s at least, RFC 6298)
    let r = run(&json.replace("0.2,", "5.0,"), 1);
    assert_eq!(r.flows.len(), 8);
    assert!(r.flows.iter().all(|f| f.dst == "h9" && f.completed));
    // eight senders at line rate into one port of 30 kB: the port overflows
    let port = r.links.iter().find(|l| l.link == "edge4->h9").unwrap();
    assert!(port.queue_drops > 0, "incast overflows the target's port");
    let json = scenario(
        r#"{"pattern": "all_to_all", "distribution": "web_search", "name": "a2a"}"#,
        r#""load_balancing": "ecmp""#,
    );
    let r = run(&json.replace("0.2,", "2.0,"), 2);
    assert_eq!(r.flows.len(), 240);
    assert!(r.flows.iter().all(|f| f.completed));
    assert_eq!(r.flows[239].name, "a2a.239");
}

#[test]
fn a_workload_flows_after_the_scenarios_own() {
    let json = scenario(r#"{"pattern": "permutation"}"#, r#""tiers": 2"#).replace(
        r#""workloads""#,
        r#""flows": [{"src": "h0", "dst": "h1", "segments": 10}], "workloads""#,
    );
    let r = run(&json, 1);
    assert_eq!(r.flows.len(), 1 + 8);
    assert_eq!(r.flows[0].name, "f0");
    assert_eq!(r.flows[1].name, "w0.0");
}

#[test]
fn bad_workloads_are_refused_on_one_line() {
    let cases = [
        (
            r#"{"pattern": "incast", "fan_in": 16}"#,
            "",
            "workloads[0].fan_in: must be below the fabric's 16 hosts (the target receives), got 16",
        ),
        (
            r#"{"pattern": "incast", "target": "edge0"}"#,
            "",
            "workloads[0].target: must be a host of the fat-tree (h0..h15), got 'edge0'",
        ),
        (
            r#"{"pattern": "permutation", "fan_in": 3}"#,
            "",
            "workloads[0].fan_in: is only used by pattern = \"incast\"",
        ),
        (
            r#"{"pattern": "permutation", "distribution": "web_search", "flow_size": {"dist": "constant", "value": 1}}"#,
            "",
            "workloads[0].distribution: cannot be set with flow_size (one law of sizes)",
        ),
        (
            r#"{"pattern": "ring"}"#,
            "",
            "workloads[0].pattern: unknown variant `ring`",
        ),
        (
            r#"{"pattern": "permutation", "start": 5}"#,
            "",
            "workloads[0].start: must be before the end of the run (0.2 s), got 5",
        ),
        (
            r#"{"pattern": "permutation", "variant": "Nope"}"#,
            "",
            "workloads[0].variant: unknown variant 'Nope'",
        ),
        (
            r#"{"pattern": "permutation", "jitter": -1}"#,
            "",
            "workloads[0].jitter: must be >= 0, got -1",
        ),
        (
            r#"{"pattern": "permutation"}"#,
            r#""failed_links": ["h3->edge1"]"#,
            "workloads[0]: no route between 'h3' and 'h0' in both directions (topology.failed_links)",
        ),
        (
            r#"{"pattern": "permutation"}"#,
            r#""failed_links": ["edge0->agg0", "edge0->agg1"]"#,
            "workloads[0]: no route between 'h0' and 'h2' in both directions (topology.failed_links)",
        ),
    ];
    for (workload, topology, want) in cases {
        let topology = if topology.is_empty() {
            r#""tiers": 3"#
        } else {
            topology
        };
        let e = error(&scenario(workload, topology));
        assert!(e.starts_with(want), "{workload}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let chain = r#"{"duration": 1, "topology": {"kind": "chain", "bottleneck_rate": 8e6,
        "bottleneck_delay": 0.02}, "workloads": [{"pattern": "permutation"}]}"#;
    assert_eq!(
        error(chain),
        "workloads[0]: runs between the hosts of a fat-tree: needs topology.kind = \"fat_tree\""
    );
}
