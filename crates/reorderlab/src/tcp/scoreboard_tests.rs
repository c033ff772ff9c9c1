//! Tests of [`super`] (scoreboard.rs).

use super::*;

fn board(n: u32) -> Scoreboard {
    let mut sb = Scoreboard::new();
    for _ in 0..n {
        sb.send_new(0, 10.0);
    }
    sb
}

#[test]
fn rfc6675_islost_and_pipe_worked_example() {
    // Ten segments out; segments 2, 3, 4 and 6 SACKed; DupThresh 3.
    let mut sb = board(10);
    assert_eq!(sb.sack(2, 5, |_, _| {}), 3);
    assert_eq!(sb.sack(6, 7, |_, _| {}), 1);
    // IsLost: 0 and 1 have four SACKed segments above, 5 has one.
    assert!(sb.is_lost(0, 3) && sb.is_lost(1, 3));
    assert!(!sb.is_lost(5, 3) && !sb.is_lost(7, 3));
    // Pipe before marking: every un-SACKed segment counts (6 of them).
    assert_eq!(sb.pipe(), 6);
    assert_eq!(sb.mark_lost_by_dupthresh(3), 2);
    // After marking: 5, 7, 8, 9 remain in the pipe (RFC 6675 SetPipe).
    assert_eq!(sb.pipe(), 4);
    assert_eq!(sb.next_lost(), Some(0));
    sb.retransmit(0, 1, 5.0);
    assert_eq!(sb.pipe(), 5);
    assert_eq!(sb.next_lost(), Some(1));
    sb.retransmit(1, 1, 5.0);
    assert_eq!(sb.next_lost(), None);
    // Cumulative ACK of the retransmitted 0 and 1 and the SACKed 2..5.
    let info = sb.cum_ack(5);
    assert_eq!(info.acked, 5);
    assert!(info.any_retransmitted);
    assert_eq!(info.were_sacked, 3);
    assert_eq!(
        (sb.sacked_out(), sb.lost_out(), sb.retrans_out()),
        (1, 0, 0)
    );
    assert_eq!(sb.pipe(), 4);
}

#[test]
fn sack_of_a_retransmitted_lost_segment_clears_both_marks() {
    let mut sb = board(6);
    sb.sack(1, 6, |_, _| {});
    sb.mark_lost_by_dupthresh(3);
    assert_eq!(sb.lost_out(), 1);
    sb.retransmit(0, 5, 3.0);
    let mut seen = Vec::new();
    sb.sack(0, 1, |s, st| seen.push((s, st.copies)));
    assert_eq!(seen, vec![(0, 2)]);
    assert_eq!((sb.lost_out(), sb.retrans_out(), sb.pipe()), (0, 0, 0));
}

#[test]
fn send_order_follows_sacks_losses_and_retransmissions() {
    let mut sb = Scoreboard::new();
    sb.track_send_order();
    for t in 0..6 {
        sb.send_new(t, 10.0);
    }
    assert_eq!(sb.checked_send_order(), vec![0, 1, 2, 3, 4, 5]);
    sb.sack(2, 4, |_, _| {});
    sb.mark_lost(0);
    assert_eq!(sb.checked_send_order(), vec![1, 4, 5]);
    // The retransmission of 0 goes to the tail; so does 5's (a probe:
    // not marked lost).
    sb.retransmit(0, 10, 1.0);
    sb.retransmit(5, 11, 1.0);
    assert_eq!(sb.checked_send_order(), vec![1, 4, 0, 5]);
    // A lost retransmission leaves; so does a cumulatively ACKed head.
    sb.mark_retransmission_lost(0);
    sb.cum_ack(2);
    assert_eq!(sb.checked_send_order(), vec![4, 5]);
    // A timeout empties the list; undoing it brings back, by send time,
    // every segment not retransmitted since.
    sb.mark_all_lost();
    assert!(sb.checked_send_order().is_empty());
    sb.retransmit(4, 20, 1.0);
    sb.clear_lost_marks();
    assert_eq!(sb.checked_send_order(), vec![5, 4]);
    assert_eq!(sb.first_sent(), Some(5));
    assert_eq!(sb.next_sent(5), Some(4));
    assert_eq!(sb.next_sent(4), None);
}

#[test]
fn timeout_marks_everything_unsacked_lost() {
    let mut sb = board(5);
    sb.sack(3, 4, |_, _| {});
    sb.retransmit(0, 1, 1.0);
    sb.mark_all_lost();
    assert_eq!((sb.lost_out(), sb.retrans_out()), (4, 0));
    let order: Vec<u32> = std::iter::from_fn(|| {
        let s = sb.next_lost()?;
        sb.retransmit(s, 2, 1.0);
        Some(s)
    })
    .collect();
    assert_eq!(order, vec![0, 1, 2, 4]);
}

impl Scoreboard {
    /// `found` ([`Scoreboard::next_lost`]) must be the lowest segment lost,
    /// not SACKed and not retransmitted: a scan of the whole window (of
    /// windows over 1,000 segments, one SND.UNA in 16, to keep the
    /// simulated runs of the tests short).
    pub(super) fn check_next_lost(&self, found: Option<u32>) {
        if self.nxt - self.una > 1000 && !self.una.is_multiple_of(16) {
            return;
        }
        let lowest = (self.una..self.nxt).find(|&q| {
            let s = self.seg(q).unwrap();
            s.lost && !s.sacked && !s.retrans
        });
        assert_eq!(found, lowest, "next_lost");
    }

    /// The send-time-ordered list, head to tail, after checking that it
    /// holds exactly the segments awaiting delivery, in nondecreasing send
    /// time, with consistent back links.
    pub(crate) fn checked_send_order(&self) -> Vec<u32> {
        let mut order = Vec::new();
        let mut prev = NIL;
        let mut cur = self.sent_head;
        while cur != NIL {
            let s = self.seg(cur).expect("listed segment is outstanding");
            assert_eq!(s.prev_sent, prev, "back link of {cur}");
            assert!(
                s.awaiting_delivery(),
                "{cur} listed but not awaiting delivery"
            );
            if prev != NIL {
                assert!(
                    self.seg(prev).unwrap().sent_at <= s.sent_at,
                    "{prev} sent after {cur}"
                );
            }
            order.push(cur);
            prev = cur;
            cur = s.next_sent;
        }
        assert_eq!(self.sent_tail, prev);
        assert!(
            self.sent_mark == NIL || order.contains(&self.sent_mark),
            "bookmark {} not in the list",
            self.sent_mark
        );
        let members = (self.una..self.nxt)
            .filter(|&q| self.seg(q).unwrap().awaiting_delivery())
            .count();
        assert_eq!(order.len(), members, "list {order:?}");
        order
    }
}

#[test]
fn next_lost_finds_segments_marked_below_its_scan() {
    // 0..10 out; 2 and 7 lost and retransmitted: the scan has passed 7.
    let mut sb = board(10);
    sb.mark_lost(2);
    sb.mark_lost(7);
    for want in [2, 7] {
        assert_eq!(sb.next_lost(), Some(want));
        sb.retransmit(want, 1, 1.0);
    }
    assert_eq!(sb.next_lost(), None);
    // 2's retransmission is lost, then 5 (never retransmitted), then 7's.
    sb.mark_retransmission_lost(2);
    sb.mark_lost(5);
    sb.mark_retransmission_lost(7);
    assert_eq!(sb.next_lost(), Some(2));
    // 2 is acknowledged, 5 SACKed: 7 is next, then nothing.
    sb.cum_ack(3);
    sb.sack(5, 6, |_, _| {});
    assert_eq!(sb.next_lost(), Some(7));
    sb.retransmit(7, 2, 1.0);
    assert_eq!(sb.next_lost(), None);
    // A timeout: everything not SACKed, from SND.UNA.
    sb.mark_all_lost();
    assert_eq!(sb.next_lost(), Some(3));
}

/// Random SACK blocks of a receiver reporting its recent ranges (repeated
/// over several ACKs, some reordered, some above SND.NXT), cumulative ACKs
/// and timeouts: every block reports exactly the segments a plain set of
/// SACKed numbers says are new (so the remembered ranges skip only blocks
/// that hold nothing new), and `IsLost(SND.UNA)` counts as a walk of the
/// SACKed ranges does.
#[test]
fn sack_with_known_ranges_matches_a_plain_set() {
    use std::collections::BTreeSet;
    let mut rng = crate::engine::Rng::from_seed(31);
    let mut sb = Scoreboard::new();
    let mut sacked: BTreeSet<u32> = BTreeSet::new();
    let mut blocks: Vec<(u32, u32)> = Vec::new();
    for step in 0..40_000u32 {
        let r = rng.next_u64();
        while sb.nxt() < sb.una() + 300 {
            sb.send_new(0, 10.0);
        }
        match r % 20 {
            0 => {
                let ack = sb.una() + (r >> 8) as u32 % 20;
                let ack = ack.min(sb.nxt());
                sb.cum_ack(ack);
                sacked.retain(|&x| x >= ack);
            }
            1 if r % 1000 == 1 => sb.mark_all_lost(),
            _ => {
                // a new block, or one of the last ones again (possibly
                // grown, or as an old ACK sent before SND.UNA moved)
                let base = sb.una().saturating_sub(5);
                if blocks.len() < 8 || r.is_multiple_of(3) {
                    let start = base + (r >> 8) as u32 % 320;
                    blocks.push((start, start + 1 + (r >> 24) as u32 % 4));
                } else {
                    let i = blocks.len() - 1 - (r >> 8) as usize % 8;
                    if r.is_multiple_of(5) {
                        blocks[i].1 += 1;
                    }
                    blocks.push(blocks[i]);
                }
                let (l, e) = *blocks.last().unwrap();
                let mut got = Vec::new();
                let n = sb.sack(l, e, |seq, _| got.push(seq));
                let want: Vec<u32> = (l.max(sb.una())..e.min(sb.nxt()))
                    .filter(|x| !sacked.contains(x))
                    .collect();
                assert_eq!(got, want, "step {step}: block {l}..{e}");
                assert_eq!(n as usize, want.len());
                sacked.extend(want);
            }
        }
        assert_eq!(sb.sacked_out() as usize, sacked.len(), "step {step}");
        let above_una = sacked.range(sb.una() + 1..).count() as u32;
        for k in [1, 3, above_una, above_una + 1, (r >> 40) as u32 % 50] {
            assert_eq!(sb.is_lost(sb.una(), k), above_una >= k, "step {step}");
        }
    }
}
