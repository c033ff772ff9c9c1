//! Fat-tree fabrics in whole runs: bad input refused on one line,
//! determinism, and what each load-balancing policy does to the links.

mod common;

use reorderlab::Scenario;

/// The fat-tree fields every test starts from.
const FABRIC: &str = r#""k": 4, "rate": 10e9"#;

/// A permutation on a k=4 fat-tree (`topology`: its fields after the
/// kind): host i sends 300 segments to host (i + 5) mod 16, across pods,
/// every flow from t = 0.
fn permutation(policy: &str, topology: &str) -> String {
    let flows: Vec<String> = (0..16)
        .map(|i| {
            format!(
                r#"{{"src": "h{i}", "dst": "h{}", "variant": "SACK", "segments": 300,
                    "tcp": {{"mss": 1460, "max_window": 200}}}}"#,
                (i + 5) % 16
            )
        })
        .collect();
    format!(
        r#"{{"name": "fabric", "duration": 0.05,
            "topology": {{"kind": "fat_tree", {topology}, "load_balancing": "{policy}"}},
            "flows": [{}]}}"#,
        flows.join(",")
    )
}

fn error(json: &str) -> String {
    match Scenario::from_json(json) {
        Err(e) => e.to_string(),
        Ok(s) => s.validate().unwrap_err().to_string(),
    }
}

#[test]
fn inconsistent_fabrics_are_refused_on_one_line() {
    let cases = [
        (
            r#""k": 5"#,
            "topology.k: must be even (k/2 ports down, k/2 up), got 5",
        ),
        (
            r#""k": 4, "oversubscription": 0.5"#,
            "topology.oversubscription: must be >= 1, got 0.5",
        ),
        (
            r#""k": 4, "tiers": 4"#,
            "topology.tiers: must be in 2..=3, got 4",
        ),
        (r#""k": 4, "rate": 0"#, "topology.rate: must be > 0"),
        (
            r#""k": 4, "buffer_bytes": 0"#,
            "topology.buffer_bytes: must be >= 1, got 0",
        ),
        (
            r#""k": 4, "failed_links": ["agg0->core0", "agg0->core9"]"#,
            "topology.failed_links[1]: unknown link 'agg0->core9' (known: h0->edge0,",
        ),
        (
            r#""k": 4, "failed_links": ["h3->edge1"]"#,
            "flows[3]: no route between 'h3' and 'h8'",
        ),
    ];
    for (fields, want) in cases {
        let e = error(&permutation("ecmp", fields));
        assert!(e.starts_with(want), "{fields}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let e = error(&permutation("ecmp", FABRIC).replace(r#""dst": "h5""#, r#""dst": "edge0""#));
    assert_eq!(
        e,
        "flows[0].dst: must be a host of the fat-tree (h0..h15), got 'edge0'"
    );
    let e = error(&permutation("hash", FABRIC));
    assert_eq!(
        e,
        r#"topology: load_balancing must be "ecmp", "spray", "round_robin", "adaptive", "flowlet" or "reps", got "hash""#
    );
}

fn run(json: &str, seed: u64) -> reorderlab::RunResult {
    let sc = Scenario::from_json(json).unwrap();
    let mut r = common::run_checked(&sc, seed).result();
    r.engine_version.clear();
    r
}

/// Same scenario and seed, same bytes out, for every policy.
#[test]
fn fabric_runs_are_deterministic() {
    for policy in ["ecmp", "spray", "round_robin", "adaptive"] {
        let json = permutation(policy, FABRIC);
        let a = serde_json::to_string(&run(&json, 3)).unwrap();
        let b = serde_json::to_string(&run(&json, 3)).unwrap();
        assert!(a == b, "{policy}: two runs differ");
        let r = run(&json, 3);
        let done = r.flows.iter().filter(|f| f.completed).count();
        assert_eq!(done, 16, "{policy}: every flow completes in 50 ms");
    }
}

/// Uplinks from one edge switch: under random spraying the packets of
/// its hosts split as a fair coin would; under round robin exactly.
#[test]
fn spraying_and_round_robin_share_the_uplinks_evenly() {
    let arrivals = |policy: &str, link: &str| {
        let r = run(&permutation(policy, FABRIC), 1);
        let l = r.links.iter().find(|l| l.link == link).unwrap();
        l.arrivals
    };
    // edge0 has hosts h0, h1 (flows 0 and 1) and uplinks to agg0, agg1
    let sprayed = [
        arrivals("spray", "edge0->agg0"),
        arrivals("spray", "edge0->agg1"),
    ];
    let total = (sprayed[0] + sprayed[1]) as f64;
    assert!(total > 600.0, "{sprayed:?}");
    // binomial(total, 1/2): within 4 standard deviations of half
    let dev = (sprayed[0] as f64 - total / 2.0).abs();
    assert!(dev < 4.0 * (total / 4.0).sqrt(), "{sprayed:?}");
    let rr = [
        arrivals("round_robin", "edge0->agg0"),
        arrivals("round_robin", "edge0->agg1"),
    ];
    assert!(rr[0].abs_diff(rr[1]) <= 1, "{rr:?}");
}

/// A 1,024-host fabric (k = 16, 6,144 links) with a flow from every host:
/// every flow completes.
#[test]
fn a_1024_host_permutation_completes() {
    let flows: Vec<String> = (0..1024)
        .map(|i| {
            format!(
                r#"{{"src": "h{i}", "dst": "h{}", "segments": 20}}"#,
                (i + 517) % 1024
            )
        })
        .collect();
    let json = format!(
        r#"{{"duration": 0.01, "topology": {{"kind": "fat_tree", "k": 16,
             "rate": 100e9, "load_balancing": "spray"}}, "flows": [{}]}}"#,
        flows.join(",")
    );
    let sc = Scenario::from_json(&json).unwrap();
    let r = common::run_checked(&sc, 1).result();
    assert_eq!(r.links.len(), 2 * 3 * 16 * 16 * 16 / 4);
    assert_eq!(r.flows.iter().filter(|f| f.completed).count(), 1024);
}

/// Routing memory is proportional to the fabric: a 65,536-host fat-tree
/// (k = 64, 71,680 nodes; a next-hop table would be 20 GB) passes the
/// memory check under 1 GB.
#[test]
fn a_65536_host_fabric_needs_no_table() {
    let json = r#"{"duration": 0.01, "topology": {"kind": "fat_tree", "k": 64},
                   "flows": [{"src": "h0", "dst": "h65535"}]}"#;
    let sc = Scenario::from_json(json).unwrap();
    assert_eq!(sc.validate_with_memory_limit(1 << 30), Ok(()));
}
