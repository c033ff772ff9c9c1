//! Reference benchmark scenarios (the engine issue's speed targets). Each is
//! a plain [`Scenario`]; [`run_bench`] times one run and reports simulated
//! events and packet-hops per wall-clock second.

use std::time::Instant;

use serde::Serialize;

use crate::spec::{
    FlowSpec, ImpairmentModel, ImpairmentSpec, QueueSpec, RandomVar, Scenario, TcpSpec, Topology,
    TrafficSpec,
};

/// Names of the reference scenarios.
pub fn bench_names() -> Vec<&'static str> {
    vec![
        "ref-rrtcp",
        "ref-rrtcp-nodelay",
        "ref-gigabit",
        "ref-gigabit-rack",
        "ref-gigabit-linux",
        "ref-gigabit-bbr",
        "ref-gigabit-quic",
        "ref-tcppr-http",
        "ref-highspeed",
        "ref-highspeed-rack",
    ]
}

fn flow(src: &str, dst: &str, tcp: TcpSpec) -> FlowSpec {
    FlowSpec {
        name: None,
        src: src.into(),
        dst: dst.into(),
        variant: "SACK".into(),
        cc: "reno".into(),
        start: 0.0,
        segments: 0,
        tcp,
        receiver: Default::default(),
        quic: None,
    }
}

/// The rr-tcp chain, P = 50 ms, one SACK flow, M = 50, 1000 s, with 5 %
/// of the packets delayed by Normal(25 ms, 8 ms) on the bottleneck.
pub fn ref_rrtcp() -> Scenario {
    let mut sc = ref_rrtcp_nodelay();
    sc.name = "ref-rrtcp".into();
    sc.impairments.push(ImpairmentSpec {
        link: "R1->R2".into(),
        position: None,
        model: ImpairmentModel::Delay {
            fraction: 0.05,
            delay: RandomVar::Normal {
                mean: 0.025,
                sd: 0.008,
            },
            data_only: false,
        },
    });
    sc
}

/// [`ref_rrtcp`] without the delay element.
pub fn ref_rrtcp_nodelay() -> Scenario {
    Scenario {
        name: "ref-rrtcp-nodelay".into(),
        duration: 1000.0,
        seed: 1,
        warmup: 0.0,
        topology: Topology::Chain {
            access_rate: 10e6,
            access_delay: 0.001,
            bottleneck_rate: 8e6,
            bottleneck_delay: 0.023,
            queue: QueueSpec::default(),
            access_queue: None,
        },
        impairments: vec![],
        multipath: vec![],
        traffic: vec![],
        workloads: vec![],
        flows: vec![flow(
            "S1",
            "D",
            TcpSpec {
                max_window: Some(50),
                ..TcpSpec::default()
            },
        )],
        record: Default::default(),
    }
}

/// The 1 Gb/s, 50 ms one-way dumbbell of the high-speed paper (10 Gb/s access links
/// with the given one-way delays, one pair each; a bottleneck queue of
/// `queue_packets`).
fn gigabit_dumbbell(access_delays: Vec<f64>, queue_packets: u32) -> Topology {
    Topology::Dumbbell {
        pairs: access_delays.len() as u32,
        access_rate: 10e9,
        access_delays,
        access_delay: 0.0005,
        bottleneck_rate: 1e9,
        bottleneck_delay: 0.05,
        queue: QueueSpec::Droptail {
            limit_packets: Some(queue_packets),
            limit_bytes: None,
        },
        access_queue: Some(QueueSpec::Droptail {
            limit_packets: Some(100_000),
            limit_bytes: None,
        }),
    }
}

/// Dumbbell, 1 Gb/s bottleneck, 50 ms one-way, 1500-byte packets, queue of
/// one bandwidth-delay product, 8 SACK flows, 60 s.
pub fn ref_gigabit() -> Scenario {
    let pairs = 8;
    // Round trip ~ 2 * (50 + 2 * 0.5) ms; BDP = 1e9 * 0.102 / (1500 * 8).
    let bdp_packets = (1e9 * 0.102 / (1500.0 * 8.0)) as u32;
    let access_delays = (0..pairs).map(|i| 0.0001 + 0.0001 * i as f64).collect();
    Scenario {
        name: "ref-gigabit".into(),
        duration: 60.0,
        seed: 1,
        warmup: 0.0,
        topology: gigabit_dumbbell(access_delays, bdp_packets),
        impairments: vec![],
        multipath: vec![],
        traffic: vec![],
        workloads: vec![],
        flows: (0..pairs)
            .map(|i| {
                let mut f = flow(
                    &format!("S{i}"),
                    &format!("D{i}"),
                    TcpSpec {
                        mss: Some(1500),
                        max_window: Some(100_000),
                        ..TcpSpec::default()
                    },
                );
                f.start = 0.01 * i as f64;
                f
            })
            .collect(),
        record: Default::default(),
    }
}

/// [`ref_gigabit`] with every flow over `variant`: the same path and
/// traffic, so its cost per event compares with SACK's.
fn gigabit_with(name: &str, variant: &str) -> Scenario {
    let mut sc = ref_gigabit();
    sc.name = name.into();
    for f in &mut sc.flows {
        f.variant = variant.into();
    }
    sc
}

/// [`ref_gigabit`] over RACK-TLP (RFC 8985).
pub fn ref_gigabit_rack() -> Scenario {
    gigabit_with("ref-gigabit-rack", "RACK-TLP")
}

/// [`ref_gigabit`] over `Linux` (RACK-TLP, PRR, Linux's RTO rules and
/// adaptive reordering).
pub fn ref_gigabit_linux() -> Scenario {
    gigabit_with("ref-gigabit-linux", "Linux")
}

/// [`ref_gigabit_linux`] with BBR (issue 37: delivery-rate samples on
/// every ACK, pacing on every transmission): its cost per event compares
/// with `ref-gigabit`'s.
pub fn ref_gigabit_bbr() -> Scenario {
    let mut sc = gigabit_with("ref-gigabit-bbr", "Linux");
    for f in &mut sc.flows {
        f.cc = "bbr".into();
    }
    sc
}

/// [`ref_gigabit`] over QUIC (RFC 9002, NewReno; issue 38: ACK frames
/// with ranges, loss detection by packet and time threshold): its cost per
/// event compares with `ref-gigabit`'s.
pub fn ref_gigabit_quic() -> Scenario {
    let mut sc = gigabit_with("ref-gigabit-quic", "QUIC");
    for f in &mut sc.flows {
        f.tcp.max_window = None;
    }
    sc
}

/// The tcp-pr paper's heaviest fairness setting: 64 flows (32 TCP-PR, 32 SACK) on
/// the 15 Mb/s dumbbell (20 ms RTT, 250-packet DropTail queue) with 50
/// closed-loop HTTP sessions from R1 to R2, 200 s.
pub fn ref_tcppr_http() -> Scenario {
    let pairs = 64;
    let web = TrafficSpec {
        closed_loop: true,
        ..TrafficSpec::http("R1", "R2", 50)
    };
    Scenario {
        name: "ref-tcppr-http".into(),
        duration: 200.0,
        seed: 1,
        warmup: 140.0,
        topology: Topology::Dumbbell {
            pairs,
            access_rate: 100e6,
            access_delays: vec![],
            access_delay: 0.001,
            bottleneck_rate: 15e6,
            bottleneck_delay: 0.008,
            queue: QueueSpec::Droptail {
                limit_packets: Some(250),
                limit_bytes: None,
            },
            access_queue: None,
        },
        impairments: vec![],
        multipath: vec![],
        traffic: vec![web],
        workloads: vec![],
        flows: (0..pairs)
            .map(|i| {
                let mut f = flow(
                    &format!("S{i}"),
                    &format!("D{i}"),
                    TcpSpec {
                        max_window: Some(100_000),
                        ..TcpSpec::default()
                    },
                );
                f.variant = if i % 2 == 0 { "TCP-PR" } else { "SACK" }.into();
                f.start = 5.0 * i as f64 / pairs as f64;
                f
            })
            .collect(),
        record: Default::default(),
    }
}

/// The high-speed paper's setting without reordering (its heaviest run): one BIC/SACK
/// flow on the 1 Gb/s, 50 ms dumbbell (queue of one bandwidth-delay
/// product, 1500-byte packets) with HTTP background both ways, 100 s.
pub fn ref_highspeed() -> Scenario {
    let web = |server: &str, client: &str| TrafficSpec {
        tcp: TcpSpec {
            mss: Some(1500),
            max_window: Some(1_000_000),
            ..TcpSpec::default()
        },
        ..TrafficSpec::http(server, client, 50)
    };
    let delays = [0.00047, 0.00081, 0.00019];
    let bdp_packets = (1e9 * 2.0 * (0.05 + 2.0 * delays[0]) / (1500.0 * 8.0)) as u32;
    let mut f = flow(
        "S0",
        "D0",
        TcpSpec {
            mss: Some(1500),
            max_window: Some(1_000_000),
            ..TcpSpec::default()
        },
    );
    f.cc = "bic".into();
    Scenario {
        name: "ref-highspeed".into(),
        duration: 100.0,
        seed: 1,
        warmup: 10.0,
        topology: gigabit_dumbbell(delays.to_vec(), bdp_packets),
        impairments: vec![],
        multipath: vec![],
        traffic: vec![web("S1", "D1"), web("D2", "S2")],
        workloads: vec![],
        flows: vec![f],
        record: Default::default(),
    }
}

/// [`ref_highspeed`] with the studied flow BIC over RACK-TLP behind the
/// high-speed paper's reordering generator on its access link S0 -> R1 (the
/// `high-speed` recipes' defaults: exponential interval of mean 0.02 s,
/// exponential delay time of mean 20 us, block of 1 packet), 30 s. RACK's
/// loss detection runs on every ACK of an ~8000-segment window.
pub fn ref_highspeed_rack() -> Scenario {
    let mut sc = ref_highspeed();
    sc.name = "ref-highspeed-rack".into();
    sc.duration = 30.0;
    sc.flows[0].variant = "RACK-TLP".into();
    sc.impairments.push(ImpairmentSpec {
        link: "S0->R1".into(),
        position: None,
        model: ImpairmentModel::Reorder {
            interval: RandomVar::Exponential { mean: 0.02 },
            delay: Some(RandomVar::Exponential { mean: 20e-6 }),
            delay_packets: None,
            block: RandomVar::Constant { value: 1.0 },
            max_hold: 0.01,
            data_only: true,
            anchor: None,
        },
    });
    sc
}

/// The scaling benchmark's run: `flows` SACK/Reno flows on a dumbbell
/// whose bottleneck has `rate` bit/s and a round trip of `rtt` s (access
/// links 10x faster with 0.1 ms, the bottleneck queue one bandwidth-delay
/// product, 1500-byte packets, no receiver-window limit), flows starting
/// 1 ms apart, for `duration` simulated seconds.
pub fn scaling_scenario(rate: f64, flows: u32, rtt: f64, duration: f64) -> Scenario {
    let access_delay = 0.0001;
    let bottleneck_delay = (rtt / 2.0 - 2.0 * access_delay).max(access_delay);
    let mss = 1500.0;
    let bdp_packets = ((rate * rtt / (mss * 8.0)) as u32).max(10);
    Scenario {
        name: format!("scale-{rate}-{flows}"),
        duration,
        seed: 1,
        warmup: 0.0,
        topology: Topology::Dumbbell {
            pairs: flows,
            access_rate: 10.0 * rate,
            access_delays: vec![],
            access_delay,
            bottleneck_rate: rate,
            bottleneck_delay,
            queue: QueueSpec::Droptail {
                limit_packets: Some(bdp_packets),
                limit_bytes: None,
            },
            access_queue: Some(QueueSpec::Droptail {
                limit_packets: Some(bdp_packets.max(1000)),
                limit_bytes: None,
            }),
        },
        impairments: vec![],
        multipath: vec![],
        traffic: vec![],
        workloads: vec![],
        flows: (0..flows)
            .map(|i| {
                let mut f = flow(
                    &format!("S{i}"),
                    &format!("D{i}"),
                    TcpSpec {
                        mss: Some(mss as u32),
                        max_window: Some(10_000_000),
                        ..TcpSpec::default()
                    },
                );
                f.start = 0.001 * i as f64;
                f
            })
            .collect(),
        record: Default::default(),
    }
}

/// Run and time one [`scaling_scenario`].
pub fn run_scaling(rate: f64, flows: u32, rtt: f64, duration: f64) -> Result<BenchReport, String> {
    let sc = scaling_scenario(rate, flows, rtt, duration);
    time_run(&sc.name.clone(), &sc)
}

/// One benchmark measurement.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub name: String,
    pub wall_s: f64,
    pub sim_s: f64,
    pub events: u64,
    pub packet_hops: u64,
    pub events_per_s: f64,
    pub packet_hops_per_s: f64,
    /// Simulated seconds per wall-clock second.
    pub realtime_factor: f64,
}

/// The named reference scenario.
pub fn scenario(name: &str) -> Option<Scenario> {
    match name {
        "ref-rrtcp" => Some(ref_rrtcp()),
        "ref-rrtcp-nodelay" => Some(ref_rrtcp_nodelay()),
        "ref-gigabit" => Some(ref_gigabit()),
        "ref-gigabit-rack" => Some(ref_gigabit_rack()),
        "ref-gigabit-linux" => Some(ref_gigabit_linux()),
        "ref-gigabit-bbr" => Some(ref_gigabit_bbr()),
        "ref-gigabit-quic" => Some(ref_gigabit_quic()),
        "ref-tcppr-http" => Some(ref_tcppr_http()),
        "ref-highspeed" => Some(ref_highspeed()),
        "ref-highspeed-rack" => Some(ref_highspeed_rack()),
        _ => None,
    }
}

/// Run and time one reference scenario.
pub fn run_bench(name: &str) -> Result<BenchReport, String> {
    run_bench_for(name, None)
}

/// [`run_bench`], optionally cut to `seconds` of simulated time (for
/// profilers, which run 20-50x slower; the figures to report are the full
/// runs').
pub fn run_bench_for(name: &str, seconds: Option<f64>) -> Result<BenchReport, String> {
    let mut sc = scenario(name).ok_or_else(|| {
        format!(
            "unknown benchmark '{name}' (known: {})",
            bench_names().join(", ")
        )
    })?;
    if let Some(s) = seconds {
        if !(s > 0.0 && s.is_finite()) {
            return Err(format!("--seconds: must be > 0, got {s}"));
        }
        sc.duration = s;
        // A cut run keeps a valid warm-up (it only moves the measurement
        // window, not the events).
        sc.warmup = sc.warmup.min(s / 2.0);
    }
    time_run(name, &sc)
}

/// Build, run and time `sc`.
fn time_run(name: &str, sc: &Scenario) -> Result<BenchReport, String> {
    let t0 = Instant::now();
    let mut sim = crate::Simulation::new(sc, sc.seed).map_err(|e| e.to_string())?;
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let c = sim.counters();
    Ok(BenchReport {
        name: name.to_string(),
        wall_s: wall,
        sim_s: sc.duration,
        events: c.events,
        packet_hops: c.packet_hops,
        events_per_s: c.events as f64 / wall,
        packet_hops_per_s: c.packet_hops as f64 / wall,
        realtime_factor: sc.duration / wall,
    })
}

/// [`run_bench`] as JSON.
pub fn bench_json(name: &str) -> Result<String, String> {
    let r = run_bench(name)?;
    serde_json::to_string(&r).map_err(|e| e.to_string())
}

/// The phases of one run of a scenario given as JSON ([`time_scenario`]).
#[derive(Debug, Clone, Serialize)]
pub struct PhaseReport {
    pub name: String,
    pub events: u64,
    /// Parse, validate and build the simulation.
    pub build_s: f64,
    /// The event loop.
    pub run_s: f64,
    /// Collect the result (flows, links, per-object records, series).
    pub result_s: f64,
    /// Write the result as JSON (what the Python front receives).
    pub json_s: f64,
    pub json_bytes: usize,
}

/// Run `scenario_json` once (with `seed`, else its own) and time each phase.
pub fn time_scenario(scenario_json: &str, seed: Option<u64>) -> Result<PhaseReport, String> {
    let t0 = Instant::now();
    let sc = Scenario::from_json(scenario_json).map_err(|e| e.to_string())?;
    let mut sim =
        crate::Simulation::new(&sc, seed.unwrap_or(sc.seed)).map_err(|e| e.to_string())?;
    let t1 = Instant::now();
    sim.run();
    let t2 = Instant::now();
    let result = sim.result();
    let t3 = Instant::now();
    let json = serde_json::to_string(&result).map_err(|e| e.to_string())?;
    let t4 = Instant::now();
    Ok(PhaseReport {
        name: sc.name.clone(),
        events: sim.counters().events,
        build_s: (t1 - t0).as_secs_f64(),
        run_s: (t2 - t1).as_secs_f64(),
        result_s: (t3 - t2).as_secs_f64(),
        json_s: (t4 - t3).as_secs_f64(),
        json_bytes: json.len(),
    })
}
