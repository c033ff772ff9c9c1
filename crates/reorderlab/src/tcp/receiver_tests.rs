//! Tests of the TCP receiver (`receiver.rs`).

use super::*;

/// The list behaves as the deque it replaced: retain(!= s),
/// push_front(s), truncate(8); retain(>= nxt).
#[test]
fn recent_matches_a_deque_model() {
    let mut r = Recent::default();
    let mut model: std::collections::VecDeque<u32> = Default::default();
    let mut rng = crate::engine::Rng::from_seed(4);
    for _ in 0..20_000 {
        let x = rng.next_u64();
        let seq = (x % 40) as u32;
        if x.is_multiple_of(7) {
            r.forget_below(seq);
            model.retain(|&m| m >= seq);
        } else {
            r.remember(seq, (seq, seq + 1));
            model.retain(|&m| m != seq);
            model.push_front(seq);
            model.truncate(8);
        }
        assert_eq!(r.newest_first(), model.iter().copied().collect::<Vec<_>>());
    }
}

/// The SACK option as it was built before the blocks were kept with
/// the recent segments: a search of the out-of-order set for each.
fn sack_blocks_by_search(r: &Receiver, dup: Option<u32>) -> Vec<(u32, u32)> {
    let max = (r.cfg.max_sack_blocks as usize).min(SackBlocks::MAX);
    let mut blocks: Vec<(u32, u32)> = Vec::new();
    if let Some(d) = dup {
        blocks.push((d, d + 1));
    }
    let mut used: Vec<(u32, u32)> = dup
        .and_then(|d| r.ooo.range_containing(d))
        .into_iter()
        .collect();
    if let Some(&u) = used.first() {
        if blocks.len() < max {
            blocks.push(u);
        }
    }
    for &seq in r.recent.newest_first() {
        if blocks.len() >= max {
            break;
        }
        if used.iter().any(|&(a, b)| a <= seq && seq < b) {
            continue;
        }
        if let Some(range) = r.ooo.range_containing(seq) {
            if !used.contains(&range) {
                blocks.push(range);
                used.push(range);
            }
        }
    }
    blocks
}

/// Random arrivals (reordered by up to 60 segments, 3 % lost until a
/// retransmission, 2 % duplicated): every ACK's blocks are those the
/// searches give.
#[test]
fn kept_blocks_match_a_search_of_the_set() {
    let mut rng = crate::engine::Rng::from_seed(24);
    for round in 0..40u64 {
        let mut c = cfg(DelayedAck::None);
        c.max_sack_blocks = 1 + (round % 4) as u8;
        let mut r = Receiver::new(c, 0, 0);
        let mut order: Vec<(u64, u32)> = Vec::new();
        for s in 0..3_000u32 {
            let x = rng.next_u64();
            let at = s as u64 + x % (1 + round % 60);
            order.push((at, s));
            if x % 100 < 3 {
                order.last_mut().unwrap().0 += 200; // lost, resent later
            }
            if x % 100 >= 98 {
                order.push((at + (x >> 20) % 50, s)); // a duplicate
            }
        }
        order.sort_unstable();
        let mut out = Vec::new();
        for &(_, s) in &order {
            let dup = s < r.rcv_nxt || r.ooo.contains(s);
            out.clear();
            r.on_data(&data(s, 0), 0, &mut out);
            let want = sack_blocks_by_search(&r, dup.then_some(s));
            assert_eq!(out[0].sack.as_slice(), want, "round {round} segment {s}");
        }
        assert_eq!(r.rcv_nxt(), 3_000);
    }
}

fn cfg(mode: DelayedAck) -> ReceiverConfig {
    ReceiverConfig {
        delayed_ack: mode,
        delack_timeout: 200,
        delack_every: 2,
        sack: true,
        dsack: true,
        max_sack_blocks: 4,
        ack_size: 40,
        mss: 1000,
        expected_segments: None,
        measure_from: 0,
        paws: false,
        dctcp: false,
    }
}

fn data(seq: u32, ts: Time) -> Packet {
    Packet::data(0, 1, 1000, seq, 0, ts)
}

/// Feed segments, return the ACKs as (ack, blocks).
fn feed(r: &mut Receiver, seqs: &[u32]) -> Vec<(u32, Vec<(u32, u32)>)> {
    let mut out = Vec::new();
    for &s in seqs {
        r.on_data(&data(s, 0), 0, &mut out);
    }
    out.iter()
        .map(|a| (a.seq, a.sack.as_slice().to_vec()))
        .collect()
}

#[test]
fn sack_blocks_newest_first_and_at_most_four() {
    let mut r = Receiver::new(cfg(DelayedAck::None), 0, 0);
    let acks = feed(&mut r, &[0, 2, 4, 6, 8, 10, 5]);
    assert_eq!(acks[0], (1, vec![]));
    assert_eq!(acks[1], (1, vec![(2, 3)]));
    assert_eq!(acks[2], (1, vec![(4, 5), (2, 3)]));
    assert_eq!(acks[5], (1, vec![(10, 11), (8, 9), (6, 7), (4, 5)]));
    // 5 joins 4 and 6: the merged block containing it comes first.
    assert_eq!(acks[6], (1, vec![(4, 7), (10, 11), (8, 9), (2, 3)]));
    // Filling the first hole delivers 1..3 only.
    let acks = feed(&mut r, &[1]);
    assert_eq!(acks[0], (3, vec![(4, 7), (10, 11), (8, 9)]));
    assert_eq!(r.stats.segments_delivered, 3);
}

#[test]
fn dsack_reports_duplicate_first_then_its_enclosing_block() {
    let mut r = Receiver::new(cfg(DelayedAck::None), 0, 0);
    feed(&mut r, &[0, 1, 2]);
    // Duplicate below the cumulative ACK (RFC 2883 Sec. 4.1.1).
    let acks = feed(&mut r, &[1]);
    assert_eq!(acks[0], (3, vec![(1, 2)]));
    // Duplicate inside a SACKed block (Sec. 4.1.2 style).
    feed(&mut r, &[5, 6]);
    let acks = feed(&mut r, &[5]);
    assert_eq!(acks[0], (3, vec![(5, 6), (5, 7)]));
    assert_eq!(r.stats.duplicates, 2);
    assert_eq!(r.stats.dsacks_sent, 2);
}

#[test]
fn every_byte_delivered_once_in_order() {
    let mut r = Receiver::new(cfg(DelayedAck::None), 0, 0);
    feed(&mut r, &[3, 1, 0, 2, 2, 5, 4, 0]);
    assert_eq!(r.stats.segments_delivered, 6);
    assert_eq!(r.stats.order_violations, 0);
    assert_eq!(r.rcv_nxt(), 6);
}

#[test]
fn rfc1122_acks_every_second_segment_or_on_timer() {
    let mut r = Receiver::new(cfg(DelayedAck::Rfc1122), 0, 0);
    let mut out = Vec::new();
    r.on_data(&data(0, 10), 0, &mut out);
    assert!(out.is_empty());
    assert_eq!(r.deadline(), Some(200));
    r.on_data(&data(1, 20), 5, &mut out);
    assert_eq!(out.len(), 1);
    // Echoes the earliest unacknowledged segment's timestamp.
    assert_eq!(out[0].ts, 10);
    assert_eq!(r.deadline(), None);
    r.on_data(&data(2, 30), 10, &mut out);
    r.on_timer(210, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].seq, 3);
    // Out-of-order data is ACKed at once.
    r.on_data(&data(4, 40), 300, &mut out);
    assert_eq!(out.len(), 3);
    // And so is the segment filling the hole.
    r.on_data(&data(3, 50), 310, &mut out);
    assert_eq!(out.len(), 4);
    assert_eq!(out[3].seq, 5);
}

#[test]
fn quickack_acks_first_segments_at_once_then_delays() {
    let mut r = Receiver::new(cfg(DelayedAck::Quickack), 0, 0);
    let mut out = Vec::new();
    for s in 0..MAX_QUICKACKS {
        r.on_data(&data(s, 0), 0, &mut out);
    }
    assert_eq!(out.len(), MAX_QUICKACKS as usize);
    r.on_data(&data(MAX_QUICKACKS, 0), 0, &mut out);
    assert_eq!(out.len(), MAX_QUICKACKS as usize);
    assert!(r.deadline().is_some());
}
