//! F-RTO (RFC 5682 Sec. 3).

use super::*;

#[test]
fn frto_spurious_timeout_one_retransmission_and_cwnd_restored() {
    // A delay spike, no loss: the timeout retransmits SND.UNA (10); then
    // the delayed originals arrive in order.
    let (mut s, mut out, t) = stalled_until_timeout("Linux");
    assert_eq!(sent(&mut out), vec![10]);
    assert_eq!((s.window().cwnd, s.window().ssthresh), (1.0, 10.0));
    let nxt = s.scoreboard().nxt();
    // Step 2: the ACK of segment 10 (its original) advances SND.UNA; 10
    // was retransmitted, so nothing is known yet. Step 2b: two new
    // segments (cwnd 2 by slow start) instead of retransmissions.
    s.on_packet(&ack(11, &[]), t + ms(50), &mut out);
    assert_eq!(sent(&mut out), vec![nxt, nxt + 1]);
    assert_eq!(s.ca_state(), CaState::Loss);
    // Step 3b: the next ACK covers segment 11, never retransmitted and
    // sent before the timeout: spurious. Linux's undo: cwnd 20 and
    // ssthresh 1000 as before the timeout, nothing lost any more; then the
    // ACK's growth (one segment, slow start): 21.
    s.on_packet(&ack(12, &[]), t + ms(50), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!((s.window().cwnd, s.window().ssthresh), (21.0, 1000.0));
    assert_eq!(s.scoreboard().lost_out(), 0);
    assert_eq!((s.stats().false_timeouts_detected, s.stats().undos), (1, 1));
    // The rest of the window arrives: new data only, the timeout's one
    // retransmission stays the only one; its DSACK does not count twice.
    for a in 13..=nxt {
        s.on_packet(&ack(a, &[]), t + ms(50), &mut out);
    }
    assert!(sent(&mut out).iter().all(|&q| q >= nxt + 2));
    s.on_packet(&ack(nxt, &[(10, 11)]), t + ms(60), &mut out);
    assert_eq!(s.stats().dsacks_received, 1);
    assert_eq!(
        (s.stats().retransmits, s.stats().timeout_retransmits),
        (1, 1)
    );
    assert_eq!((s.stats().false_timeouts_detected, s.stats().undos), (1, 1));
}

#[test]
fn without_frto_the_same_spike_restarts_slow_start() {
    // Linux-ER: conventional RTO recovery retransmits the whole window
    // from cwnd 1 (the same ACKs now ACK originals of retransmitted data).
    let (mut s, mut out, t) = stalled_until_timeout("Linux-ER");
    assert_eq!(sent(&mut out), vec![10]);
    s.on_packet(&ack(11, &[]), t + ms(50), &mut out);
    assert_eq!(sent(&mut out), vec![11, 12]);
    s.on_packet(&ack(12, &[]), t + ms(50), &mut out);
    assert_eq!(sent(&mut out), vec![13, 14]);
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!((s.window().cwnd, s.window().ssthresh), (3.0, 10.0));
    assert_eq!(s.stats().timeout_retransmits, 5);
    assert_eq!((s.stats().false_timeouts_detected, s.stats().undos), (0, 0));
}

#[test]
fn frto_real_loss_falls_back_to_conventional_recovery() {
    // The window was lost: only the retransmission of 10 arrives.
    let (mut s, mut out, t) = stalled_until_timeout("Linux");
    sent(&mut out);
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(11, &[]), t + ms(100), &mut out);
    assert_eq!(sent(&mut out), vec![nxt, nxt + 1]);
    // Step 3a: the next ACK SACKs only the new segments: the loss was
    // real; retransmissions resume from 11 with cwnd <= 3.
    s.on_packet(&ack(11, &[(nxt, nxt + 2)]), t + ms(200), &mut out);
    assert_eq!(sent(&mut out), vec![11, 12]);
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!(s.window().cwnd, 2.0);
    assert_eq!((s.stats().false_timeouts_detected, s.stats().undos), (0, 0));
}

#[test]
fn frto_also_judges_a_recurring_timeout() {
    // RFC 5682 Sec. 3.2 (Linux tcp_enter_loss: new_recovery ||
    // icsk_retransmits): the spike outlasts the first timeout; at the
    // second (backed off) one F-RTO starts again, and the delayed originals
    // then show it spurious.
    let (mut s, mut out, _) = stalled_until_timeout("Linux");
    assert_eq!(sent(&mut out), vec![10]);
    let t2 = s.deadline(TimerKind::Rto).unwrap();
    s.on_timer(TimerKind::Rto, t2, &mut out);
    assert_eq!(s.stats().timeouts, 2);
    assert_eq!(sent(&mut out), vec![10]);
    let nxt = s.scoreboard().nxt();
    // Step 2b on the ACK of 10; step 3b on the ACK of 11 (an original).
    s.on_packet(&ack(11, &[]), t2 + ms(50), &mut out);
    assert_eq!(sent(&mut out), vec![nxt, nxt + 1]);
    s.on_packet(&ack(12, &[]), t2 + ms(50), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!((s.stats().false_timeouts_detected, s.stats().undos), (1, 1));
    assert_eq!(s.window().cwnd, 21.0, "20 restored, + 1 delivered");
}

/// `tcp_process_loss`: the first ACK after the timeout covers the
/// retransmitted SND.UNA and originals sent before the timeout
/// (`FLAG_ORIG_SACK_ACKED`): `tcp_try_undo_loss(sk, true)` at once, the
/// window of before the timeout restored, then grown by the ACK
/// (`tcp_cong_control` after `tcp_fastretrans_alert`), and new data sent
/// (the conformance script frto-spurious-undo).
#[test]
fn frto_undoes_on_the_first_ack_of_never_retransmitted_data() {
    let (mut s, mut out, t) = stalled_until_timeout("Linux");
    assert_eq!(sent(&mut out), vec![10]);
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(15, &[]), t + ms(50), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!((s.stats().false_timeouts_detected, s.stats().undos), (1, 1));
    // Restored to 20, then grown by the five delivered (slow start):
    // `tcp_cong_control` runs after the undo.
    assert_eq!((s.window().cwnd, s.window().ssthresh), (25.0, 1000.0));
    let new = sent(&mut out);
    assert!(!new.is_empty() && new.iter().all(|&q| q >= nxt), "{new:?}");
}
