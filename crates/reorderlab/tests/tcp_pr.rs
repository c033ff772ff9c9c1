//! TCP-PR in whole runs (seed 001).

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
