//! TCP-PR in whole runs (the tcp-pr paper).

mod common;

use common::*;
use reorderlab::spec::{ImpairmentModel, RandomVar};

fn persistent_reordering(variant: &str) -> reorderlab::RunResult {
    let mut f = sack_flow(200);
    f.variant = variant.into();
    f.segments = 20_000;
    let mut sc = scenario(150.0, chain(4e6, 0.02, 10e6, 30), vec![f]);
    // 30 % of the packets take a path up to 50 ms longer.
    sc.impairments.push(on(
        "R1->R2",
        ImpairmentModel::Delay {
            fraction: 0.3,
            delay: RandomVar::Uniform {
                low: 0.0,
                high: 0.05,
            },
            data_only: true,
        },
    ));
    sc.impairments.push(loss_on("R1->R2", 0.005));
    run_checked(&sc, 1).result()
}

#[test]
fn tcp_pr_ignores_persistent_reordering_that_cripples_sack() {
    let pr = persistent_reordering("TCP-PR");
    let sack = persistent_reordering("SACK");
    let (p, s) = (&pr.flows[0], &sack.flows[0]);
    assert!(p.completed);
    // TCP-PR reports its own srtt (peaks of the RTT: above the base RTT).
    assert!(p.srtt.is_some_and(|s| s > 0.04), "{:?}", p.srtt);
    // Timer-only detection: retransmissions only for real drops.
    assert!(p.spurious_retransmits * 10 <= p.retransmits.max(1), "{p:?}");
    assert!(s.spurious_fast_retransmits > 100);
    assert!(
        p.throughput_bps > 2.0 * s.throughput_bps,
        "TCP-PR {} vs SACK {}",
        p.throughput_bps,
        s.throughput_bps
    );
}

#[test]
fn tcp_pr_basic_and_full_recover_from_heavy_loss() {
    for v in ["TCP-PR", "TCP-PR-basic"] {
        let mut f = sack_flow(100);
        f.variant = v.into();
        f.segments = 3000;
        let mut sc = scenario(600.0, chain(2e6, 0.02, 10e6, 20), vec![f]);
        sc.impairments.push(loss_on("R1->R2", 0.05));
        let r = run_checked(&sc, 2).result();
        assert!(r.flows[0].completed, "{v}");
        assert!(r.flows[0].retransmits >= r.flows[0].data_drops / 2, "{v}");
    }
}

/// tcp-pr Sec. IV: reordering alone never makes TCP-PR retransmit. Half
/// of the data packets are held 30 ms on a 100 ms path; the window stays
/// below the path's capacity so nothing is dropped.
#[test]
fn reordering_without_loss_causes_no_tcp_pr_retransmission() {
    let mut f = sack_flow(40);
    f.variant = "TCP-PR".into();
    f.segments = 5000;
    // RTT = 2 * (1 + 48 + 1) ms = 100 ms.
    let mut sc = scenario(100.0, chain(8e6, 0.048, 10e6, 200), vec![f]);
    sc.impairments.push(on(
        "R1->R2",
        ImpairmentModel::Delay {
            fraction: 0.5,
            delay: RandomVar::Constant { value: 0.03 },
            data_only: true,
        },
    ));
    let r = run_checked(&sc, 1).result();
    let p = &r.flows[0];
    assert!(p.completed, "{p:?}");
    assert_eq!(p.data_drops, 0);
    assert!(p.reordered_ratio > 0.1, "the path reorders: {p:?}");
    assert_eq!(p.retransmits, 0, "{p:?}");
    assert_eq!(p.timeouts, 0);
}

/// tcp-pr Sec. V (short): 4 TCP-PR and 4 SACK flows sharing a 15 Mb/s
/// dumbbell (20 ms RTT, 250-packet DropTail queue) get mean normalized
/// throughputs within [0.8, 1.2], measured over the last 60 s.
#[test]
fn tcp_pr_and_sack_share_a_dumbbell_fairly() {
    let flows = (0..8)
        .map(|i| {
            pair_flow(
                i,
                if i % 2 == 0 { "TCP-PR" } else { "SACK" },
                0.1 * i as f64,
            )
        })
        .collect();
    let mut sc = scenario(100.0, dumbbell(8, 15e6, 0.008, 250), flows);
    sc.warmup = 40.0;
    let r = run_checked(&sc, 1).result();
    let fair = r.fairness.expect("8 flows");
    assert_eq!(fair.groups.len(), 2);
    for g in &fair.groups {
        assert_eq!(g.flows, 4);
        assert!(
            (0.8..=1.2).contains(&g.mean_normalized_throughput),
            "{} {}",
            g.variant,
            g.mean_normalized_throughput
        );
    }
    // The link is shared, not left idle.
    let total: f64 = r.flows.iter().map(|f| f.throughput_bps).sum();
    assert!(total > 0.9 * 15e6, "{total}");
}

/// TCP-PR's drop deadline time(n) + mxrtt can already have passed when
/// mxrtt shrinks; the timer must then fire at once, not at the past instant
/// (which ran events out of time order: the simulation's debug build
/// asserts that time never goes backwards). The tcp-pr paper's 16-flow dumbbell hit
/// this at 3.87 s.
#[test]
fn an_overdue_tcp_pr_deadline_fires_now_not_in_the_past() {
    let flows = (0..16)
        .map(|i| {
            let mut f = pair_flow(
                i,
                if i % 2 == 0 { "TCP-PR" } else { "SACK" },
                0.3125 * i as f64,
            );
            f.tcp.mss = Some(1000);
            f.tcp.max_window = Some(100_000);
            f
        })
        .collect();
    let sc = scenario(6.0, dumbbell(16, 15e6, 0.008, 250), flows);
    let r = run_checked(&sc, 1).result();
    assert!(r.flows.iter().all(|f| f.segments_delivered > 0));
}
