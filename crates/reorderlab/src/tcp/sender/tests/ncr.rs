//! TCP-NCR (RFC 4653).

use super::*;

#[test]
fn ncr_dupthresh_set_from_flight_size_prev_at_entry() {
    for (variant, expected) in [("TCP-NCR", 20), ("TCP-NCR-aggressive", 15)] {
        let mut s = sender(variant, 30);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(sent(&mut out).len(), 30);
        assert_eq!(s.dupthresh(), 3, "{variant}: 3 outside ELT");
        // First duplicate ACK: FlightSizePrev = 30, DupThresh = LT_F * 30.
        s.on_packet(&ack(0, &[(1, 2)]), ms(50), &mut out);
        assert_eq!(s.dupthresh(), expected, "{variant}");
        assert_eq!(s.ca_state(), CaState::Open);
    }
    // Plain SACK keeps 3.
    let mut s = sender("SACK", 30);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_packet(&ack(0, &[(1, 2)]), ms(50), &mut out);
    assert_eq!(s.dupthresh(), 3);
}

#[test]
fn ncr_careful_sends_one_per_two_dupacks_aggressive_one_per_dupack() {
    let mut c = sender("TCP-NCR", 30);
    let mut out = Vec::new();
    c.start(0, &mut out);
    sent(&mut out);
    let per_ack = ncr_dupacks(&mut c, 10, &mut out);
    // Careful: the 1st, 3rd, 5th, ... duplicate ACK clocks out a segment.
    let counts: Vec<usize> = per_ack.iter().map(Vec::len).collect();
    assert_eq!(counts, vec![1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
    assert_eq!(per_ack.concat(), (30..35).collect::<Vec<_>>());
    // pipe went from 30 to 30 - 10 + 5: the data in flight shrinks.
    assert_eq!(c.scoreboard().pipe(), 25);

    let mut a = sender("TCP-NCR-aggressive", 30);
    a.start(0, &mut out);
    sent(&mut out);
    let per_ack = ncr_dupacks(&mut a, 10, &mut out);
    assert!(per_ack.iter().all(|v| v.len() == 1));
    assert_eq!(per_ack.concat(), (30..40).collect::<Vec<_>>());
    assert_eq!(a.scoreboard().pipe(), 30);
    for s in [&c, &a] {
        assert_eq!(s.stats().retransmits, 0);
        assert_eq!(s.ca_state(), CaState::Open);
        assert_eq!(s.window().cwnd, 30.0, "cwnd untouched during ELT");
    }
}

#[test]
fn ncr_reordering_within_a_window_no_fast_retransmit_window_restored() {
    // (variant, new segments sent during ELT, cwnd right after the exit)
    for (variant, lt_sent, cwnd_exit) in [("TCP-NCR", 4, 16.0), ("TCP-NCR-aggressive", 8, 20.0)] {
        // cwnd 20 in congestion avoidance (ssthresh 10).
        let mut s = sender_with(variant, 20, Some(10));
        let mut out = Vec::new();
        s.start(0, &mut out);
        sent(&mut out);
        // Segment 0 is overtaken by 1..=8: 8 dupacks < DupThresh (13 / 10).
        let new: usize = ncr_dupacks(&mut s, 8, &mut out).iter().map(Vec::len).sum();
        assert_eq!(new, lt_sent, "{variant}");
        // The late segment 0 arrives: cumulative ACK of 0..=8. Termination:
        // cwnd = min(pipe + 1, FlightSizePrev), ssthresh = FlightSizePrev.
        s.on_packet(&ack(9, &[]), ms(70), &mut out);
        let pipe = 20 + lt_sent as u32 - 9;
        assert_eq!(s.window().cwnd, cwnd_exit, "{variant}");
        assert_eq!(s.window().cwnd, (pipe as f64 + 1.0).min(20.0));
        assert_eq!(s.window().ssthresh, 20.0, "{variant}");
        assert_eq!(s.stats().fast_retransmits, 0);
        assert_eq!(s.stats().fast_recoveries, 0);
        assert_eq!(s.stats().elt_terminations, 1);
        assert_eq!(s.dupthresh(), 3, "back to 3 after ELT");
        assert_eq!(s.ca_state(), CaState::Open);
        // Slow start back to FlightSizePrev, then congestion avoidance.
        let mut una = 9;
        while s.window().cwnd < 20.0 {
            una += 1;
            s.on_packet(&ack(una, &[]), ms(80), &mut out);
        }
        assert_eq!(s.window().cwnd, 20.0);
        assert!(una - 9 <= 4, "{variant}: {} ACKs to regain 20", una - 9);
        una += 1;
        s.on_packet(&ack(una, &[]), ms(80), &mut out);
        assert!(s.window().cwnd > 20.0 && s.window().cwnd < 20.1);
    }
}

#[test]
fn ncr_real_loss_retransmits_when_dupthresh_duplicate_acks_arrive() {
    for (variant, at) in [("TCP-NCR", 11), ("TCP-NCR-aggressive", 10)] {
        let mut s = sender(variant, 12);
        let mut out = Vec::new();
        s.start(0, &mut out);
        sent(&mut out);
        // Segment 0 is lost. DupThresh follows FlightSize: at the k-th
        // dupack Careful has FlightSize 12 + ceil((k - 1) / 2), and
        // floor(2/3 * 17) = 11 is reached at k = 11; Aggressive has
        // 12 + k - 1, and floor(21 / 2) = 10 at k = 10: about one
        // FlightSizePrev of duplicate ACKs.
        let mut fired = None;
        for k in 1..=20u32 {
            s.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), &mut out);
            let seqs = sent(&mut out);
            if s.stats().fast_retransmits == 1 {
                assert_eq!(seqs[0], 0, "{variant}: segment 0 resent first");
                fired = Some(k);
                break;
            }
            assert!(!seqs.contains(&0));
        }
        assert_eq!(fired, Some(at), "{variant}");
        assert_eq!(s.stats().last_recovery_dupthresh, at);
        assert_eq!(s.ca_state(), CaState::Recovery);
        // ssthresh from FlightSizePrev (12 / 2), not the grown FlightSize.
        assert_eq!(s.window().ssthresh, 6.0, "{variant}");
        assert_eq!(s.window().cwnd, 6.0);
    }
}

#[test]
fn ncr_restart_keeps_flight_size_prev_as_the_send_limit() {
    // RFC 4653 Sec. 3.2 T.4: an ACK that advances the cumulative point and
    // carries SACK information re-starts ELT with I.2 and I.3 only: E.2
    // still compares with the original FlightSizePrev (20), Skipped = 0.
    // T.1 uses FlightSize (SACKed data included), not pipe; T.2 sets
    // ssthresh = FlightSizePrev even in slow start.
    let mut s = sender("TCP-NCR", 20);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    // Segments 0 and 5 are late. Duplicate ACKs SACK 1, 1-2, 1-4.
    assert_eq!(ncr_dupacks(&mut s, 2, &mut out), vec![vec![20], vec![]]);
    s.on_packet(&ack(0, &[(1, 5)]), ms(53), &mut out);
    assert_eq!(sent(&mut out), vec![21]);
    // Segment 0 arrives; 5 is still missing, 6 and 7 are SACKed.
    s.on_packet(&ack(5, &[(6, 8)]), ms(60), &mut out);
    // FlightSize 22 - 5 = 17: cwnd = min(17 + 1, 20), ssthresh = 20.
    assert_eq!(s.window().cwnd, 18.0);
    assert_eq!(s.window().ssthresh, 20.0);
    assert_eq!(s.stats().elt_terminations, 1);
    // The re-started ELT sends while pipe + Skipped <= FlightSizePrev - 1
    // = 19: from pipe 15, three new segments on this ACK (E.5; Careful
    // counts each in Skipped).
    assert_eq!(sent(&mut out), vec![22, 23, 24]);
    assert_eq!(s.scoreboard().pipe(), 18);
    assert_eq!(s.dupthresh(), 11, "DupThresh from FlightSize 17 (I.3)");
    assert_eq!(s.stats().fast_retransmits, 0);
}

#[test]
fn ncr_holds_dupthresh_until_the_recovery_ends() {
    // RFC 4653 Sec. 3.4: once loss recovery starts, DupThresh stays at the
    // value it had then; segments with fewer SACKed above them are not
    // marked lost by RFC 6675's 3.
    let mut s = sender("TCP-NCR-aggressive", 12);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    // Segment 0 lost: the 10th duplicate ACK reaches DupThresh 10.
    for k in 1..=10u32 {
        s.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), &mut out);
    }
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.stats().last_recovery_dupthresh, 10);
    sent(&mut out);
    // More SACKs in recovery leave segment 11 with 5 SACKed above it
    // (12..=16): below the held DupThresh, it is not lost.
    s.on_packet(&ack(0, &[(12, 17), (1, 11)]), ms(62), &mut out);
    assert_eq!(s.dupthresh(), 10);
    assert!(!s.scoreboard().seg(11).unwrap().lost);
    assert_eq!(s.stats().fast_retransmits, 1);
}
