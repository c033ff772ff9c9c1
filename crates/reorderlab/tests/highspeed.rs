//! High-speed congestion controls on the high-speed paper's gigabit path.

mod common;

use common::*;
use reorderlab::spec::{QueueSpec, Topology};

/// One flow of `cc` alone on 1 Gb/s, 50 ms one-way, 1500-byte packets, a
/// bottleneck queue of one bandwidth-delay product (high-speed Sec. V-A).
fn gigabit_alone(cc: &str, duration: f64) -> reorderlab::RunResult {
    gigabit_alone_with(cc, duration, None)
}

fn gigabit_alone_with(cc: &str, duration: f64, hystart: Option<bool>) -> reorderlab::RunResult {
    let rtt = 2.0 * (0.05 + 2.0 * 0.0005);
    let bdp = (1e9 * rtt / (1500.0 * 8.0)) as u32;
    let topo = Topology::Dumbbell {
        pairs: 1,
        access_rate: 10e9,
        access_delays: vec![0.0005],
        access_delay: 0.0005,
        bottleneck_rate: 1e9,
        bottleneck_delay: 0.05,
        queue: QueueSpec::Droptail {
            limit_packets: Some(bdp),
            limit_bytes: None,
        },
        access_queue: Some(QueueSpec::Droptail {
            limit_packets: Some(100_000),
            limit_bytes: None,
        }),
    };
    let mut f = pair_flow(0, "SACK", 0.0);
    f.cc = cc.into();
    f.tcp.mss = Some(1500);
    f.tcp.max_window = Some(1_000_000);
    f.tcp.hystart = hystart;
    let mut sc = scenario(duration, topo, vec![f]);
    sc.warmup = if duration > 10.0 { 10.0 } else { 0.0 };
    run_checked(&sc, 1).result()
}

/// Issue 8: each controller alone reaches at least 90 % utilisation,
/// averaged after the first 10 s.
#[test]
fn every_high_speed_controller_fills_a_gigabit_path() {
    for cc in ["highspeed", "scalable", "bic", "cubic"] {
        let r = gigabit_alone(cc, 40.0);
        let f = &r.flows[0];
        let utilisation = f.throughput_bps / 1e9;
        assert!(
            utilisation >= 0.9,
            "{cc}: {:.3} of 1 Gb/s (timeouts {}, fast recoveries {})",
            utilisation,
            f.timeouts,
            f.fast_recoveries
        );
    }
}

/// Linux's HyStart ends CUBIC's first slow start before it overruns the
/// bottleneck queue by a window: on this path, without it thousands of
/// segments are lost in the first slow start (and timeouts follow); with
/// it the flow leaves slow start at a fraction of the loss (ns-3's CUBIC,
/// with HyStart, lost about 2,400 here and reached 860 Mb/s over 10 s).
#[test]
fn hystart_ends_cubic_slow_start_before_the_queue_overflows() {
    let plain = gigabit_alone_with("cubic", 10.0, Some(false));
    let hystart = gigabit_alone_with("cubic", 10.0, Some(true));
    let (p, h) = (&plain.flows[0], &hystart.flows[0]);
    assert!(
        p.data_drops > 10_000,
        "without HyStart: {} drops",
        p.data_drops
    );
    assert!(
        h.data_drops * 10 < p.data_drops,
        "{} vs {}",
        h.data_drops,
        p.data_drops
    );
    assert!(h.throughput_bps > 0.8e9, "{:.0} b/s", h.throughput_bps);
    assert!(h.throughput_bps > p.throughput_bps);
}
