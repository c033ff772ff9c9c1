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
