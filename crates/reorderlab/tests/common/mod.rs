//! Helpers shared by the scenario tests.
#![allow(dead_code)]

use reorderlab::num::powf;
use reorderlab::spec::{
    FlowSpec, ImpairmentModel, ImpairmentSpec, QueueSpec, Scenario, TcpSpec, Topology,
};
use reorderlab::Simulation;

/// Round-trip time of the rr-tcp chain for a full-size segment and its ACK:
/// propagation both ways plus the serialisation of the data packet and the
/// ACK on each of the three hops.
pub fn chain_rtt(access_rate: f64, access_delay: f64, rate: f64, delay: f64) -> f64 {
    let data = 1000.0 * 8.0;
    let ack = 40.0 * 8.0;
    2.0 * (2.0 * access_delay + delay) + (data + ack) * (2.0 / access_rate + 1.0 / rate)
}

/// The bottleneck rate S (bit/s) at which a window of `m` segments exactly
/// fills the rr-tcp chain: S = M / R with R depending on S itself.
pub fn chain_rate_for_window(m: f64, access_rate: f64, access_delay: f64, delay: f64) -> f64 {
    let data = 1000.0 * 8.0;
    let ack = 40.0 * 8.0;
    let r0 = 2.0 * (2.0 * access_delay + delay) + (data + ack) * 2.0 / access_rate;
    // rate = m * data / (r0 + (data + ack) / rate)  =>  rate * r0 = m * data - (data + ack)
    (m * data - (data + ack)) / r0
}

pub fn sack_flow(max_window: u32) -> FlowSpec {
    FlowSpec {
        name: None,
        src: "S1".into(),
        dst: "D".into(),
        variant: "SACK".into(),
        cc: "reno".into(),
        start: 0.0,
        segments: 0,
        tcp: TcpSpec {
            max_window: Some(max_window),
            ..TcpSpec::default()
        },
        receiver: Default::default(),
        quic: None,
    }
}

pub fn chain(rate: f64, delay: f64, access_rate: f64, queue: u32) -> Topology {
    Topology::Chain {
        access_rate,
        access_delay: 0.001,
        bottleneck_rate: rate,
        bottleneck_delay: delay,
        queue: QueueSpec::Droptail {
            limit_packets: Some(queue),
            limit_bytes: None,
        },
        access_queue: None,
    }
}

pub fn scenario(duration: f64, topology: Topology, flows: Vec<FlowSpec>) -> Scenario {
    Scenario {
        name: "test".into(),
        duration,
        seed: 1,
        warmup: 0.0,
        topology,
        impairments: vec![],
        multipath: vec![],
        traffic: vec![],
        workloads: vec![],
        flows,
        record: Default::default(),
    }
}

pub fn loss_on(link: &str, p: f64) -> ImpairmentSpec {
    ImpairmentSpec {
        link: link.into(),
        position: None,
        model: ImpairmentModel::Loss { p, data_only: true },
    }
}

/// An impairment element of any model on a link.
pub fn on(link: &str, model: ImpairmentModel) -> ImpairmentSpec {
    ImpairmentSpec {
        link: link.into(),
        position: None,
        model,
    }
}

/// Run to the end and assert the invariants hold.
pub fn run_checked(sc: &Scenario, seed: u64) -> Simulation {
    let mut sim = Simulation::new(sc, seed).expect("valid scenario");
    sim.run();
    let bad = sim.check_invariants();
    assert!(bad.is_empty(), "invariants violated: {bad:?}");
    sim
}

/// Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), the full model, eq. (31):
/// send rate in packets/s for loss probability `p`, round-trip `rtt`,
/// timeout `t0`, `b` packets per ACK and maximum window `wmax`.
pub fn pftk_full(p: f64, rtt: f64, t0: f64, b: f64, wmax: f64) -> f64 {
    let q = 1.0 - p;
    let f = 1.0
        + p
        + 2.0 * p.powi(2)
        + 4.0 * p.powi(3)
        + 8.0 * p.powi(4)
        + 16.0 * p.powi(5)
        + 32.0 * p.powi(6);
    let qhat = |w: f64| -> f64 {
        let num = (1.0 - q.powi(3)) * (1.0 + q.powi(3) * (1.0 - powf(q, w - 3.0)));
        let den = 1.0 - powf(q, w);
        (num / den).min(1.0)
    };
    let c = (2.0 + b) / (3.0 * b);
    let w = c + (8.0 * q / (3.0 * b * p) + c * c).sqrt();
    if w < wmax {
        (q / p + w + qhat(w) / q) / (rtt * (b / 2.0 * w + 1.0) + qhat(w) * t0 * f / q)
    } else {
        (q / p + wmax + qhat(wmax) / q)
            / (rtt * (b / 8.0 * wmax + q / (p * wmax) + 2.0) + qhat(wmax) * t0 * f / q)
    }
}

/// The tcp-pr paper's dumbbell: `pairs` sender/receiver pairs on 100 Mb/s, 1 ms
/// access links around a bottleneck of `rate` bit/s and one-way `delay`,
/// DropTail `queue` packets.
pub fn dumbbell(pairs: u32, rate: f64, delay: f64, queue: u32) -> Topology {
    Topology::Dumbbell {
        pairs,
        access_rate: 100e6,
        access_delays: vec![],
        access_delay: 0.001,
        bottleneck_rate: rate,
        bottleneck_delay: delay,
        queue: QueueSpec::Droptail {
            limit_packets: Some(queue),
            limit_bytes: None,
        },
        access_queue: None,
    }
}

/// A bulk flow of `variant` from `S{pair}` to `D{pair}` starting at `start`.
pub fn pair_flow(pair: u32, variant: &str, start: f64) -> FlowSpec {
    FlowSpec {
        src: format!("S{pair}"),
        dst: format!("D{pair}"),
        variant: variant.into(),
        start,
        tcp: TcpSpec {
            max_window: Some(10_000),
            ..TcpSpec::default()
        },
        ..sack_flow(10_000)
    }
}

/// HTTP traffic from `server` to `client` with the tcp-pr paper's defaults.
pub fn http(server: &str, client: &str, sessions: u32) -> reorderlab::spec::TrafficSpec {
    reorderlab::spec::TrafficSpec::http(server, client, sessions)
}

/// A count from the environment (a fuzz campaign's budget), or `default`
/// when unset or not a number.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
