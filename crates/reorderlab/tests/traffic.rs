//! Generated traffic (HTTP sessions) in whole runs.

mod common;

use common::*;

/// 5 web server/client pairs' worth of sessions at the left and right
/// routers of a 15 Mb/s dumbbell with two long-lived flows (seed 001 Fig. 9).
fn web_dumbbell(duration: f64, sessions: u32) -> reorderlab::spec::Scenario {
    let flows = vec![pair_flow(0, "SACK", 0.0), pair_flow(1, "TCP-PR", 0.5)];
    let mut sc = scenario(duration, dumbbell(2, 15e6, 0.008, 250), flows);
    sc.traffic.push(http("R1", "R2", sessions));
    sc.record.objects = true;
    sc.warmup = duration / 6.0;
    sc
}

#[test]
fn http_objects_open_and_close_flows_and_conserve_packets() {
    let sc = web_dumbbell(30.0, 10);
    let r = run_checked(&sc, 3).result();
    assert_eq!(r.flows.len(), 2, "generated flows are not listed as flows");
    let t = &r.traffic[0];
    // 10 sessions at one page (one object) per second for ~29 s.
    assert!((200..400).contains(&t.objects), "{t:?}");
    assert_eq!(t.pages, t.objects, "one object per page by default");
    assert_eq!(t.objects, t.object_list.len() as u64);
    assert_eq!(t.objects, t.objects_completed + t.active_at_end);
    assert!(t.objects_completed > t.objects * 8 / 10, "{t:?}");
    // Each completed object delivered exactly its segments.
    let completed: u64 = t
        .object_list
        .iter()
        .filter(|o| o.oct.is_some())
        .map(|o| o.segments)
        .sum();
    assert!(t.segments_delivered >= completed);
    let all: u64 = t.object_list.iter().map(|o| o.segments).sum();
    assert!(t.segments_delivered <= all);
    // An object takes at least one RTT (20 ms) plus its serialisation.
    assert!(t.object_list.iter().filter_map(|o| o.oct).all(|o| o > 0.02));
    assert!(t.oct_median.unwrap() <= t.oct_p95.unwrap());
    // The background really shares the bottleneck.
    let fg: f64 = r.flows.iter().map(|f| f.throughput_bps).sum();
    assert!(t.throughput_bps > 0.02 * (fg + t.throughput_bps), "{t:?}");
    // Within the bottleneck rate (plus what the 250-packet queue held when
    // the measurement began).
    let window = 30.0 - sc.warmup;
    let slack = 250.0 * 8000.0 / window;
    assert!(
        fg + t.throughput_bps < 15e6 + slack,
        "{fg} + {}",
        t.throughput_bps
    );
}

#[test]
fn traffic_runs_are_repeatable_and_depend_on_the_seed() {
    let sc = web_dumbbell(10.0, 5);
    let json = |seed| serde_json::to_string(&run_checked(&sc, seed).result()).unwrap();
    assert_eq!(json(4), json(4));
    assert_ne!(json(4), json(5));
}

#[test]
fn a_scenario_of_traffic_alone_is_valid() {
    let mut sc = web_dumbbell(5.0, 3);
    sc.flows.clear();
    let r = run_checked(&sc, 1).result();
    assert!(r.flows.is_empty() && r.fairness.is_none());
    assert!(r.traffic[0].objects > 0);
}

#[test]
fn bad_traffic_fields_are_named() {
    let mut sc = web_dumbbell(5.0, 3);
    sc.traffic[0].client = "Nowhere".into();
    let e = sc.validate().unwrap_err().to_string();
    assert!(
        e.starts_with("traffic[0].client: unknown node 'Nowhere'"),
        "{e}"
    );
    let mut sc = web_dumbbell(5.0, 3);
    sc.traffic[0].sessions = 0;
    let e = sc.validate().unwrap_err().to_string();
    assert_eq!(e, "traffic[0].sessions: must be >= 1, got 0");
    let mut sc = web_dumbbell(5.0, 3);
    sc.traffic[0].object_size = reorderlab::spec::RandomVar::Exponential { mean: -1.0 };
    let e = sc.validate().unwrap_err().to_string();
    assert_eq!(e, "traffic[0].object_size.mean: must be > 0, got -1");
}
