//! Generated traffic (HTTP sessions) in whole runs.

mod common;

use common::*;

/// 5 web server/client pairs' worth of sessions at the left and right
/// routers of a 15 Mb/s dumbbell with two long-lived flows (tcp-pr Fig. 9).
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

/// A connection that is over gives up its sender and receiver (memory
/// stays that of the open connections) without changing a byte of the
/// results: the same run keeping every connection to the end gives the
/// same JSON, under loss and delayed ACKs alike.
#[test]
fn finished_connections_are_freed_without_changing_results() {
    let mut sc = web_dumbbell(30.0, 20);
    sc.impairments.push(loss_on("R1->R2", 0.02));
    for (seed, delayed) in [(1, false), (2, true)] {
        sc.traffic[0].receiver.delayed_ack = if delayed {
            reorderlab::spec::DelayedAck::Rfc1122
        } else {
            reorderlab::spec::DelayedAck::None
        };
        let freed = run_checked(&sc, seed);
        let mut kept = reorderlab::Simulation::new(&sc, seed).unwrap();
        kept.keep_finished_connections();
        kept.run();
        assert!(kept.check_invariants().is_empty());
        let objects = freed.result().traffic[0].objects as usize;
        assert!(
            freed.connections_over() > objects * 8 / 10,
            "{} of {objects} freed",
            freed.connections_over()
        );
        assert_eq!(kept.connections_over(), 0);
        let json = |sim: &reorderlab::Simulation| serde_json::to_string(&sim.result()).unwrap();
        assert_eq!(json(&freed), json(&kept), "seed {seed}");
    }
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

// ---------------------------------------------------------------------------
// Page downloads over persistent connections (kind = "page", the tail-loss paper
// Sec. 3.3)
// ---------------------------------------------------------------------------

use reorderlab::metrics::ObjectRecord;
use reorderlab::spec::{ImpairmentModel, RandomVar, TrafficKind, TrafficSpec};

/// Access links 100 Mb/s, 1 ms; bottleneck 10 Mb/s, 10 ms; 1000-byte data
/// packets and 40-byte ACKs: every serialisation time is a whole number of
/// ns (80 us and 3.2 us per access hop, 800 us and 32 us at the bottleneck).
fn page_scenario(duration: f64, sizes: &[f64]) -> reorderlab::spec::Scenario {
    let mut topo = chain(10e6, 0.010, 100e6, 1000);
    if let reorderlab::spec::Topology::Chain { access_delay, .. } = &mut topo {
        *access_delay = 0.001;
    }
    let mut sc = scenario(duration, topo, vec![]);
    let mut t: TrafficSpec = http("S1", "D", 1);
    t.name = Some("page".into());
    t.kind = TrafficKind::Page;
    t.object_sizes = Some(sizes.to_vec());
    t.page_interarrival = RandomVar::Constant { value: 1.0 };
    t.tcp.initial_window = Some(10);
    sc.traffic.push(t);
    sc.record.objects = true;
    sc
}

fn objects(
    sc: &reorderlab::spec::Scenario,
    seed: u64,
) -> (reorderlab::RunResult, Vec<ObjectRecord>) {
    let r = run_checked(sc, seed).result();
    let list = r.traffic[0].object_list.clone();
    (r, list)
}

#[test]
fn page_octs_on_an_unloaded_path_match_the_hand_derivation() {
    // One page: a 2-segment HTML and one 3-segment resource, which reuses
    // the first connection. No loss, every segment ACKed.
    let (r, list) = objects(&page_scenario(1.9, &[2000.0, 3000.0]), 1);
    assert_eq!(
        r.traffic[0].pages, 1,
        "the second page would start at 2.0 + 1 s"
    );
    assert_eq!(list.len(), 2);
    // Request delay (client -> server, a 40-byte packet):
    //   D->R2 1 ms + 3.2 us, R2->R1 10 ms + 32 us, R1->S1 1 ms + 3.2 us
    //   = 12.0384 ms.
    // Data of n 1000-byte segments sent back to back (the window of 10
    // holds them): the first crosses S1->R1 in 80 us + 1 ms; the bottleneck
    // serialises them one after another (800 us each; the access link
    // feeds it faster than that) and the last needs 10 ms to R2 and
    // 80 us + 1 ms to D:
    //   80 us + 1 ms + n x 800 us + 10 ms + 80 us + 1 ms = 12.16 ms + n x 0.8 ms.
    // HTML: the request goes out when the handshake reaches the client (the
    // SYN arriving at D in the simulation), reaches the server one request
    // delay later (with the SYN-ACK), and its 2 segments follow:
    //   OCT = 12.0384 + 12.16 + 1.6 = 25.7984 ms.
    // Resource: requested when the HTML's last segment arrives, on the same
    // connection: OCT = 12.0384 + 12.16 + 2.4 = 26.5984 ms.
    let html = list[0];
    assert_eq!((html.index, html.connection, html.segments), (0, 0, 2));
    assert!((html.oct.unwrap() - 0.0257984).abs() < 1e-9, "{html:?}");
    let res = list[1];
    assert_eq!((res.index, res.connection, res.segments), (1, 0, 3));
    assert!((res.oct.unwrap() - 0.0265984).abs() < 1e-9, "{res:?}");
    // The resource is requested the instant the HTML completes.
    assert!((res.start - (html.start + html.oct.unwrap())).abs() < 1e-9);
    // The page starts one think time (1 s) after the start; the request for
    // the HTML leaves once the handshake has reached the client: a request
    // delay plus the SYN's 40-byte trip (also 12.0384 ms) after that.
    assert!(
        (html.start - (1.0 + 2.0 * 0.0120384)).abs() < 1e-9,
        "{html:?}"
    );
    assert_eq!(
        r.traffic[0].connections, 1,
        "one resource: no new connection"
    );
}

#[test]
fn a_page_uses_at_most_six_connections_and_delivers_every_object_once() {
    // 20 objects, no loss, a few pages back to back; no page starts after
    // 15 s, so every page completes by the end.
    let sizes: Vec<f64> = (0..20).map(|i| 1000.0 * (1 + i % 7) as f64).collect();
    let mut sc = page_scenario(20.0, &sizes);
    sc.traffic[0].stop = Some(15.0);
    let (r, list) = objects(&sc, 2);
    let t = &r.traffic[0];
    assert!(t.pages >= 3, "{t:?}");
    assert_eq!((t.pages_completed, t.active_at_end), (t.pages, 0), "{t:?}");
    assert_eq!(t.objects, list.len() as u64);
    assert_eq!(t.objects, t.objects_completed + t.active_at_end);
    // Connections: the first one plus five more per page, never a seventh.
    assert!(list.iter().all(|o| o.connection < 6));
    assert_eq!(t.connections, 6 * t.pages);
    for page in 0..t.pages_completed {
        let objs: Vec<&ObjectRecord> = list.iter().filter(|o| o.page == page).collect();
        assert_eq!(objs.len(), 20);
        let mut conns: Vec<u32> = objs.iter().map(|o| o.connection).collect();
        conns.sort_unstable();
        conns.dedup();
        assert_eq!(conns, (0..6).collect::<Vec<u32>>());
        // The HTML (index 0) completes before any other object is requested.
        let html = objs.iter().find(|o| o.index == 0).unwrap();
        let html_done = html.start + html.oct.unwrap();
        assert!(
            objs.iter()
                .filter(|o| o.index > 0)
                .all(|o| o.start >= html_done - 1e-12),
            "page {page}"
        );
        // Sizes in page order, as listed.
        let mut by_index: Vec<(u32, u64)> = objs.iter().map(|o| (o.index, o.segments)).collect();
        by_index.sort_unstable();
        let want: Vec<(u32, u64)> = (0..20).map(|i| (i, 1 + i as u64 % 7)).collect();
        assert_eq!(by_index, want);
    }
    // Without loss every segment is sent once and delivered once.
    let all: u64 = list.iter().map(|o| o.segments).sum();
    let per_page: u64 = sizes.iter().map(|b| (b / 1000.0) as u64).sum();
    assert_eq!(all, per_page * t.pages);
    assert_eq!(
        (t.segments_delivered, t.data_packets_sent),
        (all, all),
        "{t:?}"
    );
    assert_eq!((t.retransmits, t.spurious_retransmits), (0, 0));
}

#[test]
fn under_bursty_loss_every_object_still_arrives_exactly_once() {
    // Gilbert-Elliott loss of about 5 % on the data path: objects are
    // repaired by retransmissions; the segment boundaries of the objects on
    // each persistent connection still add up.
    let sizes: Vec<f64> = (0..12).map(|i| 1000.0 * (3 + 5 * (i % 4)) as f64).collect();
    let mut sc = page_scenario(60.0, &sizes);
    sc.traffic[0].stop = Some(40.0);
    sc.traffic[0].variant = "TLP".into();
    sc.impairments.push(on(
        "R1->R2",
        ImpairmentModel::GilbertElliott {
            p_gb: 0.025,
            p_bg: 0.5,
            loss_good: 0.0,
            loss_bad: 1.0,
            data_only: true,
        },
    ));
    let (r, list) = objects(&sc, 3);
    let t = &r.traffic[0];
    assert!(t.pages >= 10 && t.active_at_end == 0, "{t:?}");
    assert!(
        t.data_drops > 20 && t.retransmits >= t.data_drops / 2,
        "{t:?}"
    );
    let all: u64 = list.iter().map(|o| o.segments).sum();
    assert_eq!(t.segments_delivered, all);
    assert_eq!(
        t.data_packets_sent,
        all + t.retransmits,
        "each segment sent once, plus the retransmissions"
    );
    // Per-object retransmissions add up to the senders' count.
    let per_object: u64 = list.iter().map(|o| o.retransmits).sum();
    assert_eq!(per_object, t.retransmits);
    assert!(list.iter().any(|o| o.tail_retransmits > 0));
    assert!(list
        .iter()
        .all(|o| o.tail_retransmits <= 4 && o.tail_drops <= 4));
}

#[test]
fn page_runs_are_repeatable_and_depend_on_the_seed() {
    let mut sc = page_scenario(30.0, &[1000.0]);
    let t = &mut sc.traffic[0];
    t.object_sizes = None;
    t.objects_per_page = RandomVar::Constant { value: 12.0 };
    t.object_size = RandomVar::Exponential { mean: 24_000.0 };
    t.page_interarrival = RandomVar::Exponential { mean: 1.0 };
    sc.impairments.push(on(
        "R1->R2",
        ImpairmentModel::GilbertElliott {
            p_gb: 0.0076,
            p_bg: 0.5,
            loss_good: 0.0,
            loss_bad: 1.0,
            data_only: true,
        },
    ));
    let run = |seed| objects(&sc, seed).1;
    let a = run(7);
    assert!(a.len() > 24);
    assert_eq!(a, run(7));
    assert_ne!(a, run(8));
}

#[test]
fn bad_page_fields_are_named() {
    let sc = page_scenario(5.0, &[1000.0]);
    let check = |f: &dyn Fn(&mut TrafficSpec)| {
        let mut s = sc.clone();
        f(&mut s.traffic[0]);
        s.validate().unwrap_err().to_string()
    };
    assert_eq!(
        check(&|t| t.object_sizes = Some(vec![])),
        "traffic[0].object_sizes: must list at least one object (the HTML), got []"
    );
    assert_eq!(
        check(&|t| t.object_sizes = Some(vec![1000.0, -2.0])),
        "traffic[0].object_sizes[1]: must be > 0, got -2"
    );
    assert_eq!(
        check(&|t| t.connections = Some(0)),
        "traffic[0].connections: must be in 1..=64, got 0"
    );
    assert_eq!(
        check(&|t| {
            t.kind = TrafficKind::Http;
            t.object_sizes = None;
            t.connections = Some(6);
        }),
        "traffic[0].connections: is only used by kind = \"page\", got kind = \"http\""
    );
}

#[test]
fn a_request_carries_the_ack_the_client_was_delaying() {
    // Delayed ACKs (every second segment or 200 ms): the 3-segment HTML
    // leaves its last segment unacknowledged at the client. The request for
    // the next object carries that ACK at once; after the page's last
    // object no request follows, so its ACK waits for the timer.
    let mut sc = page_scenario(1.9, &[3000.0, 1000.0]);
    sc.traffic[0].receiver.delayed_ack = reorderlab::spec::DelayedAck::Rfc1122;
    let mut sim = reorderlab::Simulation::new(&sc, 1).unwrap();
    // As derived above: page at 1 s, SYN at the client 2 x 12.0384 ms
    // later, HTML (3 segments) complete 12.0384 + 12.16 + 2.4 ms after that.
    let ns = |s: f64| (s * 1e9).round() as u64;
    let html_done = 1.0 + 3.0 * 0.0120384 + 0.01216 + 0.0024;
    sim.run_until(ns(html_done) - 1);
    assert_eq!(sim.receiver(0).stats.segments_delivered, 2);
    sim.run_until(ns(html_done));
    let rx = sim.receiver(0);
    assert_eq!(rx.stats.segments_delivered, 3);
    assert_eq!(
        rx.stats.acks_sent, 2,
        "the ACK of segments 1-2, then the one the request carries"
    );
    assert_eq!(rx.deadline(), None);
    // The 1-segment resource: requested then, complete 12.0384 + 12.16 +
    // 0.8 ms later; its ACK is delayed by the 200 ms timer.
    let res_done = html_done + 0.0120384 + 0.01216 + 0.0008;
    sim.run_until(ns(res_done));
    let rx = sim.receiver(0);
    assert_eq!(rx.stats.segments_delivered, 4);
    assert_eq!(rx.deadline(), Some(ns(res_done) + ns(0.2)));
}
