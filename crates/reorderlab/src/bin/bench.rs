//! `reorderlab-bench [NAME...] [--json] [--seconds=S]`: run the reference
//! benchmarks and print wall time, events/s, packet-hops/s and peak memory
//! (max RSS). `--seconds` cuts each run short, for profiling.
//! `--scale=RATE,FLOWS,RTT,SECONDS` runs one point of the scaling table.
//! `--scenario=FILE[:SEED]` times a scenario of your own (JSON, as the
//! Python front writes it, e.g. a store's `scenario_json`), phase by phase.

use std::io::Write;

use reorderlab::bench::{bench_names, run_bench_for};

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// `--scale=RATE,FLOWS,RTT,SECONDS`: one run of the scaling benchmark
/// (BENCHMARKS.md's table; `scripts/scaling.py` runs the grid, one process
/// per run so that each peak RSS is its own).
fn scale(spec: &str, json: bool) {
    let parts: Vec<f64> = spec.split(',').filter_map(|p| p.parse().ok()).collect();
    let &[rate, flows, rtt, seconds] = parts.as_slice() else {
        eprintln!("error: --scale: expected RATE,FLOWS,RTT,SECONDS (numbers), got '{spec}'");
        std::process::exit(2);
    };
    let bad = if rate <= 0.0 || rate.is_nan() {
        Some(("RATE", rate, "> 0"))
    } else if !(1.0..=100_000.0).contains(&flows) {
        Some(("FLOWS", flows, "1-100000"))
    } else if rtt <= 0.0 || rtt.is_nan() {
        Some(("RTT", rtt, "> 0"))
    } else if seconds.is_nan() || seconds <= rtt {
        Some(("SECONDS", seconds, "> RTT"))
    } else {
        None
    };
    if let Some((field, value, range)) = bad {
        eprintln!("error: --scale: {field} must be {range}, got {value}");
        std::process::exit(2);
    }
    match reorderlab::bench::run_scaling(rate, flows as u32, rtt, seconds) {
        Ok(r) => {
            let mut v = serde_json::to_value(&r).expect("serialisable");
            v["peak_rss_mb"] = serde_json::json!(peak_rss_mb());
            if json {
                println!("{v}");
            } else {
                println!(
                    "{}: {} events in {:.3} s, {:.2} M ev/s, peak RSS {:.1} MB",
                    r.name,
                    r.events,
                    r.wall_s,
                    r.events_per_s / 1e6,
                    peak_rss_mb().unwrap_or(0.0)
                );
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}

/// `--scenario=FILE[:SEED]`: the time of each phase of one run (build the
/// simulation, run it, build the result, write the result JSON), so that
/// a user can see where a run of their own goes.
fn scenario(spec: &str, json: bool) {
    let (path, seed) = match spec.rsplit_once(':') {
        Some((p, s)) if s.parse::<u64>().is_ok() => (p, s.parse().ok()),
        _ => (spec, None),
    };
    let fail = |what: String| -> ! {
        eprintln!("error: --scenario: {what}");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    match reorderlab::bench::time_scenario(&text, seed) {
        Ok(r) => {
            if json {
                let mut v = serde_json::to_value(&r).expect("serialisable");
                v["peak_rss_mb"] = serde_json::json!(peak_rss_mb());
                println!("{v}");
            } else {
                println!(
                    "{}: build {:.3} s, run {:.3} s ({} events, {:.2} M ev/s), result {:.3} s, \
                     JSON {:.3} s ({:.1} MB), peak RSS {:.1} MB",
                    r.name,
                    r.build_s,
                    r.run_s,
                    r.events,
                    r.events as f64 / r.run_s / 1e6,
                    r.result_s,
                    r.json_s,
                    r.json_bytes as f64 / 1e6,
                    peak_rss_mb().unwrap_or(0.0)
                );
            }
        }
        Err(e) => fail(format!("{path}: {e}")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let seconds = match args.iter().find_map(|a| a.strip_prefix("--seconds=")) {
        None => None,
        Some(v) => match v.parse::<f64>() {
            Ok(s) => Some(s),
            Err(_) => {
                eprintln!("error: --seconds: must be a number, got '{v}'");
                std::process::exit(2);
            }
        },
    };
    if let Some(spec) = args.iter().find_map(|a| a.strip_prefix("--scale=")) {
        scale(spec, json);
        return;
    }
    if let Some(spec) = args.iter().find_map(|a| a.strip_prefix("--scenario=")) {
        scenario(spec, json);
        return;
    }
    let mut names: Vec<String> = args.into_iter().filter(|a| !a.starts_with("--")).collect();
    if names.is_empty() {
        names = bench_names().into_iter().map(String::from).collect();
    }
    let mut reports = Vec::new();
    for n in &names {
        match run_bench_for(n, seconds) {
            Ok(r) => reports.push(r),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    }
    let rss = peak_rss_mb();
    let mut out = std::io::stdout().lock();
    if json {
        let v: Vec<serde_json::Value> = reports
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).expect("serialisable");
                v["peak_rss_mb"] = serde_json::json!(rss);
                v
            })
            .collect();
        // A closed pipe (`| head`) ends the output quietly, not in a panic.
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&v).expect("serialisable")
        );
    } else {
        for r in &reports {
            let _ = writeln!(
                out,
                "{:<12} wall {:>7.3} s  sim {:>6.0} s  events {:>11}  {:>6.2} M ev/s  {:>6.2} M hops/s",
                r.name,
                r.wall_s,
                r.sim_s,
                r.events,
                r.events_per_s / 1e6,
                r.packet_hops_per_s / 1e6
            );
        }
        if let Some(m) = rss {
            let _ = writeln!(out, "peak RSS {m:.1} MB (whole process)");
        }
    }
}
