//! Impairment elements inside whole runs: each model acts, nothing is lost
//! or duplicated that should not be, and every run is repeatable.

mod common;

use common::*;
use reorderlab::spec::{
    ImpairmentModel, LinkSpec, MultipathSpec, Position, QueueSpec, RandomVar, Scenario, Topology,
};

fn finite_flow(segments: u64) -> reorderlab::spec::FlowSpec {
    let mut f = sack_flow(50);
    f.segments = segments;
    f
}

fn base(duration: f64) -> Scenario {
    scenario(
        duration,
        chain(8e6, 0.023, 10e6, 100),
        vec![finite_flow(5000)],
    )
}

fn delay_5pct() -> ImpairmentModel {
    ImpairmentModel::Delay {
        fraction: 0.05,
        delay: RandomVar::Normal {
            mean: 0.025,
            sd: 0.008,
        },
        data_only: false,
    }
}

#[test]
fn delayed_packets_reorder_the_data_stream() {
    let mut sc = base(100.0);
    sc.impairments.push(on("R1->R2", delay_5pct()));
    let r = run_checked(&sc, 1).result();
    let f = &r.flows[0];
    assert!(f.completed);
    assert_eq!(f.data_drops, 0);
    // About 5 % of the segments are held long enough to be overtaken.
    assert!(
        f.reordered_ratio > 0.02 && f.reordered_ratio < 0.08,
        "{}",
        f.reordered_ratio
    );
    // With a fixed dupthresh, some of that reordering fools fast retransmit:
    // every retransmission is spurious (ground truth: nothing was dropped).
    assert!(f.fast_retransmits > 0);
    assert_eq!(f.spurious_retransmits, f.retransmits);
    assert!(r.impairments[0].held > 0);
}

#[test]
fn an_impairment_on_the_ack_path_acts_like_on_the_data_path() {
    let mut sc = base(100.0);
    sc.impairments.push(on("R2->R1", delay_5pct()));
    let r = run_checked(&sc, 1).result();
    let e = &r.impairments[0];
    // It saw the ACKs (the data never crosses R2->R1) and held about 5 %.
    let acks = r.flows[0].acks_sent as f64;
    assert!((e.seen as f64 - acks).abs() <= 1.0);
    let frac = e.held as f64 / e.seen as f64;
    let se = (0.05 * 0.95 / e.seen as f64).sqrt();
    assert!((frac - 0.05).abs() < 5.0 * se, "held fraction {frac}");
    // Data is not reordered; the flow completes.
    assert_eq!(r.flows[0].reordered_ratio, 0.0);
    assert!(r.flows[0].completed);
}

#[test]
fn burst_and_gilbert_losses_drop_and_the_flow_recovers() {
    for model in [
        ImpairmentModel::BurstLoss {
            q: 0.002,
            duration: RandomVar::Uniform {
                low: 0.3,
                high: 0.4,
            },
            data_only: true,
        },
        ImpairmentModel::GilbertElliott {
            p_gb: 0.005,
            p_bg: 0.3,
            loss_good: 0.0,
            loss_bad: 1.0,
            data_only: true,
        },
    ] {
        let mut sc = base(400.0);
        sc.impairments.push(on("R1->R2", model.clone()));
        let r = run_checked(&sc, 3).result();
        assert!(r.flows[0].completed, "{model:?}");
        assert!(r.impairments[0].dropped > 0, "{model:?}");
        assert_eq!(r.flows[0].data_drops, r.impairments[0].dropped);
    }
}

#[test]
fn positioned_loss_drops_exactly_the_tail_segments() {
    let mut f = finite_flow(10);
    f.tcp.initial_window = Some(10);
    let mut sc = scenario(30.0, chain(10e6, 0.02, 10e6, 100), vec![f]);
    sc.impairments.push(on(
        "R1->R2",
        ImpairmentModel::Positioned {
            flow: 0,
            segments: vec![8, 9],
            copies: Default::default(),
        },
    ));
    let r = run_checked(&sc, 1).result();
    let fr = &r.flows[0];
    assert_eq!(fr.data_drops, 2);
    assert!(fr.completed);
    // No dupacks follow a tail loss: the sender needs its timer.
    assert!(fr.timeouts >= 1);
    assert_eq!(fr.spurious_retransmits, 0);
}

#[test]
fn queue_swaps_reorder_without_losing_or_duplicating() {
    let mut f = sack_flow(500);
    f.segments = 20_000;
    let mut sc = scenario(200.0, chain(4e6, 0.03, 100e6, 250), vec![f]);
    sc.impairments.push(on(
        "R1->R2",
        ImpairmentModel::Swap {
            period: 1.0,
            swaps: 5,
        },
    ));
    let r = run_checked(&sc, 2).result();
    assert!(r.impairments[0].swaps > 0);
    assert!(r.flows[0].reordered_ratio > 0.0);
    assert!(r.flows[0].completed);
}

#[test]
fn high_speed_paper_generator_reorders_at_its_interval() {
    // A steady stream: the generator sits after a saturated 10 Mb/s
    // bottleneck (one packet every 0.8 ms) and dupthresh is too high for the
    // sender to react, so events are paced by the generator alone.
    let mut f = sack_flow(200);
    f.tcp.dupthresh = Some(1000);
    let mut sc = scenario(60.0, chain(10e6, 0.02, 1e9, 1000), vec![f]);
    sc.impairments.push(reorderlab::spec::ImpairmentSpec {
        link: "R1->R2".into(),
        position: Some(Position::Egress),
        model: ImpairmentModel::Reorder {
            interval: RandomVar::Exponential { mean: 0.02 },
            delay: None,
            delay_packets: Some(RandomVar::Constant { value: 4.0 }),
            block: RandomVar::Constant { value: 1.0 },
            max_hold: 0.01,
            data_only: true,
            anchor: None,
        },
    });
    let r = run_checked(&sc, 1).result();
    let events = r.impairments[0].events as f64;
    // Events start at the first packet after each exponential interval:
    // about one per 20 ms of the 60 s while packets flow.
    assert!(
        events > 0.5 * 60.0 / 0.02 && events < 1.05 * 60.0 / 0.02,
        "{events}"
    );
    assert!(r.flows[0].reordered_ratio > 0.0);
}

fn arq_run(in_order: bool) -> reorderlab::RunResult {
    let mut f = finite_flow(4000);
    f.tcp.max_window = Some(200);
    f.tcp.min_rto = Some(0.2);
    let mut sc = scenario(200.0, chain(10e6, 0.02, 100e6, 200), vec![f]);
    sc.impairments.push(on(
        "R2->D",
        ImpairmentModel::Arq {
            frame_error: 0.1,
            link_rtt: 0.04,
            in_order,
            max_attempts: None,
        },
    ));
    run_checked(&sc, 4).result()
}

#[test]
fn arq_in_order_never_reorders_and_out_of_order_does_and_nothing_is_lost() {
    let ordered = arq_run(true);
    let free = arq_run(false);
    for r in [&ordered, &free] {
        assert_eq!(r.flows[0].data_drops, 0);
        assert!(r.flows[0].completed);
        assert!(r.impairments[0].held > 0);
        // ARQ is on the last hop: egress by default, after the queue.
        assert_eq!(
            r.links
                .iter()
                .find(|l| l.link == "R2->D")
                .unwrap()
                .egress_drops,
            0
        );
    }
    assert_eq!(ordered.flows[0].reordered_ratio, 0.0);
    assert!(free.flows[0].reordered_ratio > 0.0);
}

#[test]
fn multipath_splits_by_epsilon_and_reorders() {
    // S -> A -> D (2 hops, 10 ms links) and S -> B -> C -> D (3 hops).
    let link = |from: &str, to: &str| LinkSpec {
        from: from.into(),
        to: to.into(),
        rate: 10e6,
        delay: 0.01,
        queue: QueueSpec::Droptail {
            limit_packets: Some(100),
            limit_bytes: None,
        },
        duplex: true,
    };
    let topo = Topology::Custom {
        nodes: ["S", "A", "B", "C", "D"].map(String::from).to_vec(),
        links: vec![
            link("S", "A"),
            link("A", "D"),
            link("S", "B"),
            link("B", "C"),
            link("C", "D"),
        ],
    };
    let mut f = sack_flow(100);
    f.src = "S".into();
    f.dst = "D".into();
    f.segments = 5000;
    let mut sc = scenario(200.0, topo, vec![f]);
    sc.multipath.push(MultipathSpec {
        at: "S".into(),
        dst: "D".into(),
        paths: vec![
            vec!["S->A".into(), "A->D".into()],
            vec!["S->B".into(), "B->C".into(), "C->D".into()],
        ],
        epsilon: Some(1.0),
        scale: 1.0,
        weights: None,
        data_only: true,
    });
    let r = run_checked(&sc, 6).result();
    let counts = &r.multipath_routes;
    let n = (counts[0] + counts[1]) as f64;
    let p_long = reorderlab::num::exp(-1.0) / (1.0 + reorderlab::num::exp(-1.0));
    let se = (p_long * (1.0 - p_long) / n).sqrt();
    assert!(
        (counts[1] as f64 / n - p_long).abs() < 5.0 * se,
        "{counts:?}"
    );
    assert!(r.flows[0].reordered_ratio > 0.05);
    assert!(r.flows[0].completed);
}

#[test]
fn every_model_is_deterministic_and_seed_sensitive() {
    let mut sc = base(60.0);
    sc.impairments = vec![
        on("R1->R2", delay_5pct()),
        on(
            "R1->R2",
            ImpairmentModel::Loss {
                p: 0.005,
                data_only: true,
            },
        ),
        on(
            "R2->D",
            ImpairmentModel::Arq {
                frame_error: 0.05,
                link_rtt: 0.01,
                in_order: false,
                max_attempts: None,
            },
        ),
        reorderlab::spec::ImpairmentSpec {
            link: "S1->R1".into(),
            position: Some(Position::Egress),
            model: ImpairmentModel::Swap {
                period: 0.5,
                swaps: 2,
            },
        },
    ];
    let json = |seed| serde_json::to_string(&reorderlab::run(&sc, Some(seed)).unwrap()).unwrap();
    assert_eq!(json(9), json(9));
    assert_ne!(json(9), json(10));
    // The invariants hold with every model at once.
    run_checked(&sc, 9);
}

#[test]
fn validation_rejects_impossible_impairments() {
    let cases: Vec<(ImpairmentModel, &str)> = vec![
        (
            ImpairmentModel::Delay {
                fraction: 1.5,
                delay: RandomVar::Constant { value: 0.1 },
                data_only: false,
            },
            "impairments[0].fraction: must be in [0, 1], got 1.5",
        ),
        (
            ImpairmentModel::Delay {
                fraction: 0.1,
                delay: RandomVar::Constant { value: -0.1 },
                data_only: false,
            },
            "impairments[0].delay.value: must be >= 0, got -0.1",
        ),
        (
            ImpairmentModel::Arq {
                frame_error: 1.0,
                link_rtt: 0.04,
                in_order: true,
                max_attempts: None,
            },
            "impairments[0].frame_error: must be in [0, 1), got 1",
        ),
    ];
    for (model, message) in cases {
        let mut sc = base(10.0);
        sc.impairments.push(on("R1->R2", model));
        assert_eq!(sc.validate().unwrap_err().to_string(), message);
    }
    let mut sc = base(10.0);
    sc.multipath.push(MultipathSpec {
        at: "S1".into(),
        dst: "D".into(),
        paths: vec![],
        epsilon: None,
        scale: 1.0,
        weights: None,
        data_only: true,
    });
    assert_eq!(
        sc.validate().unwrap_err().to_string(),
        "multipath[0].paths: must list at least one path, got []"
    );
}
