//! What a fabric adds beyond routing (`docs/fabrics.md`): ECN marking at a
//! threshold, cables that change during a run, flowlets and REPS, packet
//! trimming; each refused on one line when it cannot apply.

mod common;

use reorderlab::{RunResult, Scenario};

/// Flows `(src, dst)` of `segments` SACK segments on a k=4 fat-tree at
/// 10 Gb/s (`topology`: more of its fields), all from t = 0.
fn fabric(topology: &str, pairs: &[(u32, u32)], segments: u32, duration: f64) -> String {
    let flows: Vec<String> = (pairs.iter())
        .map(|(s, d)| {
            format!(
                r#"{{"src": "h{s}", "dst": "h{d}", "variant": "SACK", "segments": {segments},
                    "tcp": {{"mss": 1460, "max_window": 200}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"name": "fx", "duration": {duration},
            "topology": {{"kind": "fat_tree", "k": 4, "rate": 10e9 {topology}}},
            "flows": [{}]}}"#,
        flows.join(",")
    )
}

/// Host i to host (i + 5) mod 16: every flow crosses pods.
fn permutation() -> Vec<(u32, u32)> {
    (0..16).map(|i| (i, (i + 5) % 16)).collect()
}

fn run(json: &str, seed: u64) -> RunResult {
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

fn link<'r>(r: &'r RunResult, name: &str) -> &'r reorderlab::metrics::LinkResult {
    r.links.iter().find(|l| l.link == name).unwrap()
}

#[test]
fn bad_fabric_options_are_refused_on_one_line() {
    let p = [(0, 15)];
    let cases = [
        (
            r#", "events": [{"at": 0.001, "link": "agg0->core9", "action": "down"}]"#,
            "topology.events[0].link: unknown link 'agg0->core9' (known: h0->edge0,",
        ),
        (
            r#", "events": [{"at": 0.5, "link": "agg0->core0", "action": "down"}]"#,
            "topology.events[0].at: must be < duration (0.1), got 0.5",
        ),
        (
            r#", "events": [{"at": -1, "link": "agg0->core0", "action": "down"}]"#,
            "topology.events[0].at: must be >= 0, got -1",
        ),
        (
            r#", "events": [{"at": 0, "link": "agg0->core0", "action": "rate"}]"#,
            "topology.events[0].factor: is needed by action = \"rate\"",
        ),
        (
            r#", "events": [{"at": 0, "link": "agg0->core0", "action": "down", "factor": 0.5}]"#,
            "topology.events[0].factor: is only used by action = \"rate\"",
        ),
        (
            r#", "events": [{"at": 0, "link": "agg0->core0", "action": "rate", "factor": 2}]"#,
            "topology.events[0].factor: must be in (0, 1], got 2",
        ),
        (
            r#", "events": [{"at": 0, "link": "agg0->core0", "action": "off"}]"#,
            "action must be \"down\", \"up\" or \"rate\", got \"off\"",
        ),
        (
            r#", "ecn_threshold_bytes": 150000"#,
            "topology.ecn_threshold_bytes: must be below topology.buffer_bytes (150000), got 150000",
        ),
        (
            r#", "flowlet_gap": 1e-4"#,
            "topology.flowlet_gap: is only used by load_balancing = \"flowlet\"",
        ),
        (
            r#", "load_balancing": "letflow""#,
            "\"ecmp\", \"spray\", \"round_robin\", \"adaptive\", \"flowlet\" or \"reps\", got \"letflow\"",
        ),
    ];
    for (topology, want) in cases {
        let e = error(&fabric(topology, &p, 10, 0.1));
        assert!(e.contains(want), "{topology}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

/// Eight hosts to h9: the port to h9 fills.
fn incast() -> Vec<(u32, u32)> {
    [0, 1, 2, 3, 4, 5, 6, 7].map(|s| (s, 9)).to_vec()
}

#[test]
fn ecn_marks_data_above_the_threshold_and_is_not_written_without_it() {
    let pairs = incast();
    let plain = run(&fabric("", &pairs, 300, 0.05), 1);
    let json = serde_json::to_string(&plain).unwrap();
    assert!(!json.contains("ce_marks") && !json.contains("ce_received"));
    let marked = run(
        &fabric(r#", "ecn_threshold_bytes": 15000"#, &pairs, 300, 0.05),
        1,
    );
    let marks: u64 = marked.links.iter().map(|l| l.ce_marks).sum();
    let received: u64 = marked.flows.iter().map(|f| f.ce_received).sum();
    assert!(received > 0, "the switches' queues pass 15 kB");
    assert!(received <= marks, "{received} > {marks}");
    // only switch ports mark (a host's own queue does not)
    assert!((marked.links.iter())
        .filter(|l| l.from.starts_with('h'))
        .all(|l| l.ce_marks == 0));
    // the senders do not react to ECN (yet): marking changes no packet's fate
    let fcts = |r: &RunResult| r.flows.iter().map(|f| f.fct).collect::<Vec<_>>();
    assert_eq!(fcts(&plain), fcts(&marked));
}

/// Dixit et al.'s asymmetry arriving mid-run: a core cable goes down, the
/// switches stop using it at once, and use it again when it is back.
#[test]
fn a_cable_down_mid_run_is_routed_around_and_back_up_is_used_again() {
    let pairs = permutation();
    let base = r#", "load_balancing": "spray""#;
    let down = r#", "load_balancing": "spray",
        "events": [{"at": 0.0002, "link": "core0->agg0", "action": "down"}]"#;
    let back = r#", "load_balancing": "spray",
        "events": [{"at": 0.0002, "link": "agg0->core0", "action": "down"},
                   {"at": 0.0004, "link": "agg0->core0", "action": "up"}]"#;
    let [a, b, c] = [base, down, back].map(|t| run(&fabric(t, &pairs, 300, 0.05), 2));
    let used = |r: &RunResult| link(r, "agg0->core0").enqueued + link(r, "core0->agg0").enqueued;
    assert!(used(&b) > 0, "used before it failed");
    assert!(used(&b) < used(&a) / 2, "{} vs {}", used(&b), used(&a));
    assert!(used(&c) > used(&b), "used again once back up");
    for r in [&a, &b, &c] {
        assert!(r.flows.iter().all(|f| f.completed));
    }
    // a host's only cable down: its flow stalls until it is back
    let host = r#", "events": [{"at": 0.0001, "link": "h0->edge0", "action": "down"},
                                {"at": 0.01, "link": "h0->edge0", "action": "up"}]"#;
    // (its retransmission timer, 1 s at least, RFC 6298, ends the stall)
    let r = run(&fabric(host, &[(0, 15)], 300, 3.0), 1);
    let fct = r.flows[0].fct.unwrap();
    assert!(r.flows[0].completed && fct > 1.0, "{fct}");
}

#[test]
fn a_degraded_host_cable_slows_its_flow_tenfold() {
    let fct = |topology: &str| run(&fabric(topology, &[(0, 15)], 1000, 0.1), 1).flows[0].fct;
    let full = fct("").unwrap();
    let slow =
        fct(r#", "events": [{"at": 0, "link": "edge0->h0", "action": "rate", "factor": 0.1}]"#)
            .unwrap();
    // 1000 segments at 1 Gb/s take ~12 ms, at 10 Gb/s ~1.2 ms
    assert!(slow > 8.0 * full && slow > 0.011, "{slow} vs {full}");
}

/// The uplinks of edge0 (h0 and h1 hang from it) that carried data.
fn edge0_uplinks_used(r: &RunResult) -> usize {
    ["edge0->agg0", "edge0->agg1"]
        .iter()
        .filter(|n| link(r, n).enqueued > 50)
        .count()
}

#[test]
fn flowlets_follow_the_gap_and_reps_sprays_one_flow() {
    let one = [(0, 15)];
    let json = |t: &str| fabric(t, &one, 2000, 0.05);
    let ecmp = run(&json(r#", "load_balancing": "ecmp""#), 1);
    assert_eq!(edge0_uplinks_used(&ecmp), 1);
    // a gap longer than the run: one flowlet, one path
    let long = run(
        &json(r#", "load_balancing": "flowlet", "flowlet_gap": 0.04"#),
        1,
    );
    assert_eq!(edge0_uplinks_used(&long), 1);
    // a gap shorter than a packet's time on the wire: every packet a flowlet
    let short = run(
        &json(r#", "load_balancing": "flowlet", "flowlet_gap": 1e-9"#),
        1,
    );
    assert_eq!(edge0_uplinks_used(&short), 2);
    let reps_json = json(r#", "load_balancing": "reps""#);
    let reps = run(&reps_json, 1);
    assert_eq!(edge0_uplinks_used(&reps), 2);
    assert!(reps.flows[0].completed);
    let s = serde_json::to_string(&reps).unwrap();
    assert_eq!(s, serde_json::to_string(&run(&reps_json, 1)).unwrap());
}

/// REPS recycles the values whose ACKs came back without ECN-Echo: with
/// one of h0's two uplinks at a hundredth of its rate, the values through
/// it come back marked and are not reused, so REPS sends little there,
/// where random spraying sends half (a RACK-TLP sender, whose window
/// reordering does not cut, keeps the queue above the threshold).
#[test]
fn reps_with_ecn_steers_away_from_a_slow_uplink() {
    let share = |policy: &str| {
        let t = format!(
            r#", "load_balancing": "{policy}", "ecn_threshold_bytes": 15000,
            "events": [{{"at": 0, "link": "edge0->agg0", "action": "rate", "factor": 0.01}}]"#
        );
        let json = fabric(&t, &[(0, 15)], 3000, 0.2).replace("SACK", "RACK-TLP");
        let r = run(&json, 3);
        let (slow, fast) = (link(&r, "edge0->agg0"), link(&r, "edge0->agg1"));
        assert!(slow.ce_marks > 0, "{policy}");
        slow.enqueued as f64 / (slow.enqueued + fast.enqueued) as f64
    };
    let (spray, reps) = (share("spray"), share("reps"));
    assert!((spray - 0.5).abs() < 0.05, "{spray}");
    assert!(reps < 0.1, "reps {reps} vs spray {spray}");
}

#[test]
fn trimming_turns_switch_drops_into_headers_that_reach_the_receiver() {
    // an incast through a 30 kB port
    let pairs = incast();
    let t = r#", "buffer_bytes": 30000"#;
    let dropped = run(&fabric(t, &pairs, 100, 5.0), 1);
    let port = link(&dropped, "edge4->h9");
    assert!(port.queue_drops > 0 && port.trimmed == 0);
    let trim = run(
        &fabric(&format!("{t}, \"trimming\": true"), &pairs, 100, 5.0),
        1,
    );
    let port = link(&trim, "edge4->h9");
    assert!(port.trimmed > 0, "the full port trims");
    let headers: u64 = trim.flows.iter().map(|f| f.trimmed_received).sum();
    let trimmed: u64 = trim.links.iter().map(|l| l.trimmed).sum();
    assert_eq!(headers, trimmed, "every header reaches its receiver");
    assert!(trim.flows.iter().all(|f| f.completed));
    // a trimmed copy is a loss to these senders: counted as a drop
    let drops: u64 = trim.flows.iter().map(|f| f.data_drops).sum();
    assert!(drops >= headers, "{drops} < {headers}");
}
