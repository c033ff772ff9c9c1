//! QUIC flows on the engine (`reorderlab::quic`): a clean path, random
//! loss, a finite transfer, and the scenario's errors.

mod common;

use common::{chain, loss_on, run_checked, sack_flow, scenario};
use reorderlab::metrics::FlowResult;
use reorderlab::spec::{FlowSpec, QuicSpec, Scenario};
use reorderlab::Simulation;

fn quic_flow(variant: &str, cc: &str) -> FlowSpec {
    let mut f = sack_flow(10_000);
    f.variant = variant.into();
    f.cc = cc.into();
    f.tcp.max_window = None;
    f
}

fn error(sc: &Scenario) -> String {
    match Simulation::new(sc, 1) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

fn run(sc: &Scenario) -> FlowResult {
    run_checked(sc, 1).result().flows[0].clone()
}

#[test]
fn a_clean_path_fills_the_bottleneck_without_spurious_losses() {
    let sc = scenario(
        30.0,
        chain(10e6, 0.02, 100e6, 100),
        vec![quic_flow("QUIC", "reno")],
    );
    let r = run(&sc);
    let q = r.quic.clone().expect("QUIC results");
    assert!(r.throughput_bps > 0.9 * 10e6, "{}", r.throughput_bps);
    // a droptail queue overflows: real losses, declared, none spurious
    assert!(q.declared_lost > 0 && r.data_drops > 0);
    assert_eq!(q.spuriously_lost, 0, "{q:?}");
    assert!(q.declared_lost <= r.data_drops, "{q:?} {}", r.data_drops);
    assert_eq!(r.variant, "QUIC");
}

#[test]
fn random_loss_is_recovered_and_a_finite_transfer_completes() {
    let mut f = quic_flow("QUIC", "cubic");
    f.segments = 3000;
    let mut sc = scenario(60.0, chain(10e6, 0.02, 100e6, 100), vec![f]);
    sc.impairments.push(loss_on("R1->R2", 0.02));
    let r = run(&sc);
    assert!(r.completed, "{r:?}");
    assert_eq!(r.segments_delivered, 3000);
    let q = r.quic.expect("QUIC results");
    assert!(q.declared_lost >= r.data_drops.saturating_sub(5), "{q:?}");
    assert!(q.congestion_events > 0);
}

fn netem_path(variant: &str, cc: &str, threshold: Option<u64>) -> Scenario {
    let mut f = quic_flow(variant, cc);
    f.tcp.mss = Some(1500);
    f.quic = Some(QuicSpec {
        packet_threshold: threshold,
        ..Default::default()
    });
    let mut sc = scenario(20.0, chain(100e6, 0.018, 1e9, 2000), vec![f]);
    sc.impairments.push(common::on(
        "R1->R2",
        reorderlab::spec::ImpairmentModel::Netem {
            delay: 0.005,
            reorder: 0.25,
            correlation: 0.5,
            data_only: false,
        },
    ));
    sc
}

#[test]
fn bbr_and_cubic_fill_a_clean_path_and_bbr_paces() {
    for cc in ["bbr", "cubic"] {
        let sc = scenario(
            20.0,
            chain(100e6, 0.018, 1e9, 2000),
            vec![quic_flow("QUIC", cc)],
        );
        let r = run(&sc);
        assert!(r.throughput_bps > 0.8 * 100e6, "{cc}: {}", r.throughput_bps);
        assert_eq!(r.cc, cc);
    }
}

#[test]
fn under_netem_reordering_a_packet_threshold_of_3_collapses_and_none_recovers() {
    // quinn issue 2711's effect on a 40 ms, 100 Mb/s path: RFC 9002's
    // threshold declares reordered packets lost; without a packet
    // threshold only the time threshold (9/8 RTT) is left, which still
    // declares some (as quinn's "effectively infinite" row: ~14 %)
    let three = run(&netem_path("QUIC", "bbr", None));
    let off = run(&netem_path("QUIC", "bbr", Some(u32::MAX as u64)));
    let (q3, qoff) = (three.quic.clone().unwrap(), off.quic.clone().unwrap());
    assert!(
        q3.declared_lost > 1000 && q3.spurious_share > 0.99,
        "{q3:?}"
    );
    assert!(qoff.lost_share < q3.lost_share, "{qoff:?} {q3:?}");
    assert!(
        off.throughput_bps > 3.0 * three.throughput_bps,
        "{} {}",
        off.throughput_bps,
        three.throughput_bps
    );
    // the adaptive variants raise their threshold
    let quiche = run(&netem_path("QUIC-quiche", "bbr", None)).quic.unwrap();
    assert_eq!(quiche.packet_threshold, 20);
    assert_eq!(quiche.time_threshold, 1.25);
    let quinn = run(&netem_path("QUIC-quinn2713", "bbr", None))
        .quic
        .unwrap();
    assert!(quinn.packet_threshold > 20, "{quinn:?}");
}

#[test]
fn quic_settings_and_a_bad_cc_are_refused_with_the_field() {
    let mut sc = scenario(1.0, chain(10e6, 0.02, 100e6, 100), vec![sack_flow(100)]);
    sc.flows[0].quic = Some(QuicSpec::default());
    let e = error(&sc);
    assert!(
        e.starts_with("flows[0].quic:") && e.contains("QUIC variant"),
        "{e}"
    );
    let mut sc = scenario(
        1.0,
        chain(10e6, 0.02, 100e6, 100),
        vec![quic_flow("QUIC", "vegas")],
    );
    let e = error(&sc);
    assert!(e.starts_with("flows[0].cc:"), "{e}");
    sc.flows[0] = quic_flow("QUIC-nope", "reno");
    let e = error(&sc);
    assert!(e.contains("QUIC-quiche"), "{e}");
}

#[test]
fn tcp_sender_and_receiver_fields_a_quic_flow_would_ignore_are_refused() {
    let sc = |f: FlowSpec| scenario(1.0, chain(10e6, 0.02, 100e6, 100), vec![f]);
    // the packet sizes are read: accepted
    let mut f = quic_flow("QUIC", "reno");
    f.tcp.mss = Some(1200);
    f.tcp.ack_size = Some(60);
    assert!(Simulation::new(&sc(f.clone()), 1).is_ok());
    let mut g = f.clone();
    g.tcp.max_window = Some(50);
    let e = error(&sc(g));
    assert!(
        e.starts_with("flows[0].tcp.max_window: is for TCP flows") && e.ends_with("got 50"),
        "{e}"
    );
    let mut g = f.clone();
    g.tcp.min_rto = Some(0.2);
    let e = error(&sc(g));
    assert!(
        e.starts_with("flows[0].tcp.min_rto:") && e.ends_with("got 0.2"),
        "{e}"
    );
    let mut g = f.clone();
    g.receiver.delack_every = 4;
    let e = error(&sc(g));
    assert!(
        e.starts_with("flows[0].receiver.delack_every: is for TCP receivers")
            && e.ends_with("got 4"),
        "{e}"
    );
    // one line each
    assert!(!e.contains('\n'));
}
