//! Flow control as a window (`quic.max_window`, RFC 9000 Sec. 4.1): new
//! stream data only below the in-order acknowledged point plus the window,
//! under ACKs that arrive out of order.

use std::collections::BTreeSet;

use super::ack::AckFrame;
use super::config::QuicConfig;
use super::sender::{chunk_of, QuicSender};
use crate::engine::time::ms;
use crate::net::packet::Packet;
use crate::tcp::cc::CongestionControl;

fn sender(max_window: Option<u64>) -> QuicSender {
    let cfg = QuicConfig {
        max_window,
        ..Default::default()
    };
    let cc = CongestionControl::by_name("reno").expect("reno is a controller");
    QuicSender::new(cfg, cc, 0, 1)
}

/// The lowest chunk not in `acked`.
fn in_order(acked: &BTreeSet<u32>) -> u32 {
    (0..)
        .find(|c| !acked.contains(c))
        .expect("a chunk is missing")
}

/// Runs `rounds` rounds: each acknowledges the packets sent in the round
/// before, newest first (so the in-order point moves last), one ACK frame
/// per packet, 1 ms apart. Returns, for every new chunk sent, how far it
/// lies beyond the in-order acknowledged point when it was sent (1 = the
/// chunk at the point), and the chunks sent in all.
fn run(max_window: Option<u64>, rounds: u32) -> (Vec<u32>, usize) {
    let mut s = sender(max_window);
    let (mut acked, mut seen) = (BTreeSet::new(), BTreeSet::new());
    let mut beyond = Vec::new();
    let mut note = |out: &[Packet], acked: &BTreeSet<u32>, beyond: &mut Vec<u32>| {
        for p in out {
            let c = chunk_of(p);
            if seen.insert(c) {
                beyond.push(c + 1 - in_order(acked));
            }
        }
    };
    let mut out = Vec::new();
    s.start(0, &mut out);
    note(&out, &acked, &mut beyond);
    let mut now = ms(100);
    for _ in 0..rounds {
        let flight = std::mem::take(&mut out);
        for p in flight.iter().rev() {
            let pn = p.seq as u64;
            let frame = AckFrame {
                largest: pn,
                ack_delay: 0,
                ranges: vec![(pn, pn)],
            };
            acked.insert(chunk_of(p));
            let mut sent = Vec::new();
            s.on_ack(&frame, now, &mut sent);
            note(&sent, &acked, &mut beyond);
            out.extend(sent);
            now += ms(1);
        }
        now += ms(100);
    }
    let total = beyond.len();
    (beyond, total)
}

#[test]
fn a_window_of_four_never_sends_new_data_four_beyond_the_in_order_point() {
    let (beyond, total) = run(Some(4), 30);
    assert!(total > 40, "the transfer moves on: {total} chunks");
    let most = beyond.iter().copied().max().unwrap_or(0);
    assert!(
        most <= 4,
        "a new chunk {most} chunks from the in-order point"
    );
    // the window is used, not just respected
    assert_eq!(most, 4);
}

#[test]
fn without_a_window_the_same_acks_send_further_ahead() {
    // the initial window alone (RFC 9002 Sec. 7.2: ten packets at most)
    // goes past four chunks: the test above would fail without the cap
    let (beyond, _) = run(None, 30);
    assert!(beyond.iter().copied().max().unwrap_or(0) > 4);
}
