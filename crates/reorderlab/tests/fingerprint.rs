//! Every registered variant on a fixed set of scenarios, each result hashed
//! and compared with `tests/data/fingerprints.txt`: a refactor or a speed
//! change must leave every line unchanged, and a model change shows exactly
//! which variants and scenarios it moved.
//!
//! After an intended model change, regenerate the file with
//! `REORDERLAB_BLESS=1 cargo test -p reorderlab --test fingerprint` and say
//! in the commit why the lines changed. BBR's pairs are in their own file
//! (`fingerprints-bbr.txt`); to re-bless only those, name their test:
//! `REORDERLAB_BLESS=1 cargo test -p reorderlab --test fingerprint bbr`.
//! The QUIC variants' pairs (issue 38) are in `fingerprints-quic.txt`, on
//! scenarios of their own (`... --test fingerprint quic` re-blesses them).

use reorderlab::quic::variants::QUIC_VARIANTS;
use reorderlab::tcp::variants::VARIANTS;
use reorderlab::Scenario;

/// Scenarios exercising reordering, random and burst loss, tail loss with
/// delayed ACKs, a SYN handshake, ACK-path reordering, finite flows, and
/// the connections traffic generators open (with their per-object records).
const SCENARIOS: &[(&str, &str)] = &[
    (
        "reorder-and-loss",
        r#"{"name": "fp-reorder", "duration": 20.0, "warmup": 2.0,
            "topology": {"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.023,
                         "queue": {"kind": "droptail", "limit_packets": 60}},
            "impairments": [
              {"link": "R1->R2", "kind": "delay", "fraction": 0.1,
               "delay": {"dist": "normal", "mean": 0.025, "sd": 0.008}},
              {"link": "R1->R2", "kind": "loss", "p": 0.005}],
            "flows": [{"src": "S1", "dst": "D", "variant": "VARIANT",
                       "tcp": {"max_window": 50}}]}"#,
    ),
    (
        "bursts-and-ack-reordering",
        r#"{"name": "fp-bursts", "duration": 20.0,
            "topology": {"kind": "chain", "bottleneck_rate": 2e7, "bottleneck_delay": 0.02,
                         "queue": {"kind": "red", "limit_packets": 120, "min_th": 20, "max_th": 60}},
            "impairments": [
              {"link": "R1->R2", "kind": "burst_loss", "q": 0.002,
               "duration": {"dist": "exponential", "mean": 0.01}},
              {"link": "R2->R1", "kind": "delay", "fraction": 0.05,
               "delay": {"dist": "uniform", "low": 0.0, "high": 0.02}}],
            "flows": [{"src": "S1", "dst": "D", "variant": "VARIANT", "cc": "cubic"},
                      {"src": "S1", "dst": "D", "variant": "VARIANT", "start": 1.0}]}"#,
    ),
    (
        "tail-loss-finite",
        r#"{"name": "fp-tail", "duration": 10.0,
            "topology": {"kind": "chain", "bottleneck_rate": 1e7, "bottleneck_delay": 0.05,
                         "queue": {"kind": "droptail", "limit_packets": 100}},
            "impairments": [
              {"link": "R1->R2", "kind": "positioned", "flow": 0, "segments": [17, 18, 19]},
              {"link": "R1->R2", "kind": "gilbert_elliott", "p_gb": 0.01, "p_bg": 0.3}],
            "flows": [{"src": "S1", "dst": "D", "variant": "VARIANT", "segments": 20,
                       "tcp": {"syn": true},
                       "receiver": {"delayed_ack": "rfc1122"}},
                      {"src": "S1", "dst": "D", "variant": "VARIANT", "segments": 400,
                       "start": 0.5}]}"#,
    ),
    (
        "generated-traffic",
        r#"{"name": "fp-traffic", "duration": 15.0, "warmup": 3.0,
            "topology": {"kind": "dumbbell", "pairs": 1, "bottleneck_rate": 1e7,
                         "bottleneck_delay": 0.01,
                         "queue": {"kind": "droptail", "limit_packets": 40}},
            "impairments": [
              {"link": "R1->R2", "kind": "loss", "p": 0.02},
              {"link": "R2->R1", "kind": "delay", "fraction": 0.05,
               "delay": {"dist": "uniform", "low": 0.0, "high": 0.02}}],
            "flows": [{"src": "S0", "dst": "D0", "variant": "VARIANT"}],
            "traffic": [
              {"server": "R1", "client": "R2", "sessions": 20, "variant": "VARIANT",
               "object_size": {"dist": "pareto", "scale": 6000.0, "shape": 1.2},
               "receiver": {"delayed_ack": "rfc1122"}},
              {"kind": "page", "server": "R1", "client": "R2", "sessions": 2,
               "variant": "VARIANT"}],
            "record": {"objects": true}}"#,
    ),
];

/// BBR (issue 37) with pacing beside a paced CUBIC flow, under data
/// reordering and random loss, BBR's state recorded: its pairs are kept in
/// their own file (`tests/data/fingerprints-bbr.txt`), so a change to BBR or
/// pacing shows there and leaves `fingerprints.txt` alone.
const BBR_SCENARIOS: &[(&str, &str)] = &[(
    "bbr-pacing-reordering",
    r#"{"name": "fp-bbr", "duration": 10.0, "warmup": 1.0,
        "topology": {"kind": "chain", "bottleneck_rate": 2e7, "bottleneck_delay": 0.02,
                     "queue": {"kind": "droptail", "limit_packets": 80}},
        "impairments": [
          {"link": "R1->R2", "kind": "delay", "fraction": 0.05,
           "delay": {"dist": "normal", "mean": 0.01, "sd": 0.004}},
          {"link": "R1->R2", "kind": "loss", "p": 0.002}],
        "flows": [{"src": "S1", "dst": "D", "variant": "VARIANT", "cc": "bbr",
                   "tcp": {"syn": true}},
                  {"src": "S1", "dst": "D", "variant": "VARIANT", "cc": "cubic",
                   "tcp": {"pacing": true}, "start": 0.5}],
        "record": {"series": ["cwnd", "pacing_rate", "delivery_rate", "bbr_bw", "bbr_min_rtt"],
                   "interval": 0.5}}"#,
)];

/// QUIC flows (RFC 9002 and the adaptive variants, `docs/quic.md`): the
/// papers' delay-fraction reordering with random loss and a paced CUBIC
/// flow with few ACK ranges; netem reordering (quinn issue 2711's kind)
/// with BBR, a duplicate-detection window and a raised packet threshold;
/// burst loss with ACK-path reordering, RED, finite flows whose last
/// packets are dropped (probe timeouts), and time series.
const QUIC_SCENARIOS: &[(&str, &str)] = &[
    (
        "quic-reorder-and-loss",
        r#"{"name": "fp-quic-reorder", "duration": 20.0, "warmup": 2.0,
            "topology": {"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.023,
                         "queue": {"kind": "droptail", "limit_packets": 60}},
            "impairments": [
              {"link": "R1->R2", "kind": "delay", "fraction": 0.1,
               "delay": {"dist": "normal", "mean": 0.025, "sd": 0.008}},
              {"link": "R1->R2", "kind": "loss", "p": 0.005}],
            "flows": [{"src": "S1", "dst": "D", "variant": "VARIANT"},
                      {"src": "S1", "dst": "D", "variant": "VARIANT", "cc": "cubic",
                       "segments": 3000, "start": 1.0,
                       "quic": {"pacing": true, "max_ack_ranges": 4}}]}"#,
    ),
    (
        "quic-netem-bbr",
        r#"{"name": "fp-quic-netem", "duration": 10.0, "warmup": 1.0,
            "topology": {"kind": "chain", "bottleneck_rate": 2e7, "bottleneck_delay": 0.02,
                         "queue": {"kind": "droptail", "limit_packets": 200}},
            "impairments": [
              {"link": "R1->R2", "kind": "netem", "delay": 0.005, "reorder": 0.25,
               "correlation": 0.5}],
            "flows": [{"src": "S1", "dst": "D", "variant": "VARIANT", "cc": "bbr"},
                      {"src": "S1", "dst": "D", "variant": "VARIANT", "start": 0.5,
                       "quic": {"packet_threshold": 1000, "time_threshold": 1.25,
                                "dedup_window": 3}}],
            "record": {"series": ["cwnd", "ssthresh", "srtt", "delivered"], "interval": 0.5}}"#,
    ),
    (
        "quic-bursts-tail-ack-reordering",
        r#"{"name": "fp-quic-bursts", "duration": 10.0,
            "topology": {"kind": "chain", "bottleneck_rate": 2e7, "bottleneck_delay": 0.02,
                         "queue": {"kind": "red", "limit_packets": 120, "min_th": 20, "max_th": 60}},
            "impairments": [
              {"link": "R1->R2", "kind": "burst_loss", "q": 0.002,
               "duration": {"dist": "exponential", "mean": 0.01}},
              {"link": "R1->R2", "kind": "positioned", "flow": 1, "segments": [17, 18, 19]},
              {"link": "R2->R1", "kind": "delay", "fraction": 0.05,
               "delay": {"dist": "uniform", "low": 0.0, "high": 0.02}}],
            "flows": [{"src": "S1", "dst": "D", "variant": "VARIANT", "cc": "cubic"},
                      {"src": "S1", "dst": "D", "variant": "VARIANT", "segments": 20,
                       "start": 0.3, "quic": {"ack_eliciting_threshold": 1}},
                      {"src": "S1", "dst": "D", "variant": "VARIANT", "segments": 800,
                       "start": 1.0, "quic": {"undo": true, "max_ack_delay": 0.005}}]}"#,
    ),
];

/// FNV-1a, 64 bits: a stable hash with no dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn fingerprints(scenarios: &[(&str, &str)]) -> String {
    let names: Vec<&str> = VARIANTS.iter().map(|v| v.name).collect();
    fingerprints_of(&names, scenarios)
}

/// Each of `variants` on each of `scenarios`, a line per pair.
fn fingerprints_of(variants: &[&str], scenarios: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for name in variants {
        for (label, json) in scenarios {
            let scenario = Scenario::from_json(&json.replace("VARIANT", name))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            let mut result = reorderlab::run(&scenario, Some(7)).expect("valid scenario");
            // The engine version is in the result; the fingerprint is of
            // the model's output only.
            result.engine_version.clear();
            let text = serde_json::to_string(&result).expect("serialisable");
            out += &format!(
                "{:<20} {:<28} {:016x}\n",
                name,
                label,
                fnv1a(text.as_bytes())
            );
        }
    }
    out
}

#[test]
fn every_variant_gives_the_recorded_results() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fingerprints.txt");
    check_or_bless(path, &fingerprints(SCENARIOS));
}

#[test]
fn every_variant_gives_the_recorded_bbr_results() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fingerprints-bbr.txt"
    );
    check_or_bless(path, &fingerprints(BBR_SCENARIOS));
}

#[test]
fn every_quic_variant_gives_the_recorded_quic_results() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fingerprints-quic.txt"
    );
    let names: Vec<&str> = QUIC_VARIANTS.iter().map(|v| v.name).collect();
    check_or_bless(path, &fingerprints_of(&names, QUIC_SCENARIOS));
}

/// Compare `now` with the file at `path` line by line, or rewrite the file
/// with `REORDERLAB_BLESS` set.
fn check_or_bless(path: &str, now: &str) {
    if std::env::var_os("REORDERLAB_BLESS").is_some() {
        std::fs::write(path, now).expect("write fingerprints");
        return;
    }
    let recorded = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let changed: Vec<String> = recorded
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  recorded {a}\n  now      {b}"))
        .collect();
    assert!(
        changed.is_empty() && recorded.lines().count() == now.lines().count(),
        "results changed for {} variant/scenario pairs (REORDERLAB_BLESS=1 to accept):\n{}",
        changed.len(),
        changed.join("\n")
    );
}
