//! DCTCP (RFC 8257) on the TCP sender: the receiver's ECN-Echo state
//! machine (Sec. 3.2), and the window on a fabric that marks CE (Sec.
//! 3.1, 3.3): an incast keeps the switch queue near the threshold
//! instead of overflowing it.

mod common;

use reorderlab::net::packet::Packet;
use reorderlab::spec::{DelayedAck, Scenario};
use reorderlab::tcp::{Receiver, ReceiverConfig};

fn receiver() -> Receiver {
    let cfg = ReceiverConfig {
        delayed_ack: DelayedAck::Rfc1122,
        delack_timeout: 1_000_000,
        delack_every: 2,
        sack: true,
        dsack: true,
        max_sack_blocks: 4,
        ack_size: 40,
        mss: 1000,
        expected_segments: None,
        measure_from: 0,
        paws: false,
        dctcp: true,
    };
    Receiver::new(cfg, 0, 0)
}

/// Feed in-order segments with their CE marks; the ACKs as (ack, ECE).
fn feed(r: &mut Receiver, marks: &[bool]) -> Vec<(u32, bool)> {
    let mut out = Vec::new();
    for (s, &ce) in marks.iter().enumerate() {
        let mut p = Packet::data(0, 1, 1000, s as u32, 0, 0);
        if ce {
            p.marks.set_ce();
        }
        r.on_data(&p, 0, &mut out);
    }
    out.iter().map(|a| (a.seq, a.marks.ece())).collect()
}

#[test]
fn the_receiver_echoes_ce_by_rfc_8257s_two_state_machine() {
    let mut r = receiver();
    assert!(r.echoes_ce());
    // 0: delayed; 1 (CE, a change): the delayed ACK first with ECE = 0,
    // then 1 at once with ECE = 1; 2, 3 (CE): one delayed ACK, ECE = 1;
    // 4 (no CE, a change): nothing delayed, 4 at once with ECE = 0;
    // 5: delayed, 6 (no CE): every second segment, ECE = 0
    let acks = feed(&mut r, &[false, true, true, true, false, false, false]);
    assert_eq!(
        acks,
        vec![(1, false), (2, true), (4, true), (5, false), (7, false)]
    );
}

fn incast(cc: &str) -> Scenario {
    Scenario::from_json(&format!(
        r#"{{"name": "incast", "duration": 0.2, "topology": {{"kind": "fat_tree", "k": 4,
            "rate": 10e9, "hop_delay": 1e-6, "buffer_bytes": 100000,
            "ecn_threshold_bytes": 30000}},
            "workloads": [{{"pattern": "incast", "fan_in": 8, "target": "h0",
            "flow_size": {{"dist": "constant", "value": 2000000}}, "variant": "SACK",
            "cc": "{cc}", "tcp": {{"mss": 1500, "min_rto": 0.01, "initial_rto": 0.01}}}}]}}"#
    ))
    .expect("valid scenario")
}

#[test]
fn dctcp_holds_an_incast_below_the_buffer_where_reno_overflows_it() {
    let run = |cc: &str| common::run_checked(&incast(cc), 1).result();
    let (reno, dctcp) = (run("reno"), run("dctcp"));
    let drops = |r: &reorderlab::RunResult| r.flows.iter().map(|f| f.data_drops).sum::<u64>();
    let marked = |r: &reorderlab::RunResult| r.flows.iter().map(|f| f.ce_received).sum::<u64>();
    for (name, r) in [("reno", &reno), ("dctcp", &dctcp)] {
        let fct = r.flows.iter().filter_map(|f| f.fct).fold(0.0, f64::max);
        eprintln!(
            "{name}: drops {} marked {} last FCT {fct:.4} s",
            drops(r),
            marked(r)
        );
    }
    assert!(dctcp.flows.iter().all(|f| f.completed && f.cc == "dctcp"));
    assert!(reno.flows.iter().all(|f| f.completed));
    assert!(
        marked(&dctcp) > 0 && marked(&reno) > 0,
        "the queue crosses K"
    );
    // Reno ignores ECN-Echo and fills the 100 kB buffer; DCTCP's cuts by
    // alpha/2 keep the queue near K = 30 kB
    assert!(drops(&reno) > 0, "reno: {}", drops(&reno));
    assert!(
        drops(&dctcp) * 10 < drops(&reno),
        "{} vs {}",
        drops(&dctcp),
        drops(&reno)
    );
    let min_cwnd = dctcp.flows.iter().map(|f| f.cwnd).fold(f64::MAX, f64::min);
    assert!(min_cwnd >= 2.0, "{min_cwnd}");
}
