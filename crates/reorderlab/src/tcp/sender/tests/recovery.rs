//! Reno, NewReno, SACK recovery, Karn, timeouts, DSACK undo.

use super::*;

#[test]
fn newreno_partial_ack_retransmits_next_hole_and_deflates() {
    let mut s = sender("NewReno", 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out), (0..10).collect::<Vec<_>>());
    // Segments 0 and 1 arrive; 2 and 5 are lost. Slow start: cwnd 12.
    s.on_packet(&ack(1, &[]), ms(100), &mut out);
    s.on_packet(&ack(2, &[]), ms(100), &mut out);
    assert_eq!(sent(&mut out), vec![10, 11, 12, 13]);
    assert_eq!(s.window().cwnd, 12.0);
    // Three duplicate ACKs (for 3, 4, 6): fast retransmit of 2.
    s.on_packet(&ack(2, &[]), ms(101), &mut out);
    s.on_packet(&ack(2, &[]), ms(101), &mut out);
    assert!(sent(&mut out).is_empty(), "no limited transmit for NewReno");
    s.on_packet(&ack(2, &[]), ms(102), &mut out);
    assert_eq!(sent(&mut out), vec![2]);
    assert_eq!(s.ca_state(), CaState::Recovery);
    // ssthresh = FlightSize / 2 = 12 / 2; cwnd = ssthresh + 3.
    assert_eq!(s.window().ssthresh, 6.0);
    assert_eq!(s.window().cwnd, 9.0);
    // More duplicate ACKs inflate the window; 12 outstanding, cwnd 13 lets
    // one new segment out.
    for _ in 0..4 {
        s.on_packet(&ack(2, &[]), ms(103), &mut out);
    }
    assert_eq!(s.window().cwnd, 13.0);
    assert_eq!(sent(&mut out), vec![14]);
    // Partial ACK: 2, 3, 4 delivered, 5 still missing. Retransmit 5 at once,
    // deflate by the 3 acknowledged and add back one: 13 - 3 + 1.
    s.on_packet(&ack(5, &[]), ms(150), &mut out);
    assert_eq!(sent(&mut out)[0], 5);
    assert_eq!(s.window().cwnd, 11.0);
    assert_eq!(s.ca_state(), CaState::Recovery);
    // Full ACK of everything sent before recovery (recover = 14).
    s.on_packet(&ack(14, &[]), ms(200), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    // cwnd = min(ssthresh, FlightSize + 1) with 1 outstanding (segment 14)
    // plus what was sent after the partial ACK.
    assert!(s.window().cwnd <= 6.0);
    assert_eq!(s.stats().fast_retransmits, 2);
    assert_eq!(s.stats().fast_recoveries, 1);
}

#[test]
fn reno_leaves_recovery_on_any_new_ack_with_cwnd_ssthresh() {
    let mut s = sender("Reno", 8);
    let mut out = Vec::new();
    s.start(0, &mut out);
    for _ in 0..3 {
        s.on_packet(&ack(0, &[]), ms(50), &mut out);
    }
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.window().ssthresh, 4.0);
    s.on_packet(&ack(3, &[]), ms(100), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.window().cwnd, 4.0);
}

#[test]
fn sack_recovery_on_three_dupacks_then_pipe_limits_sending() {
    let mut s = sender("SACK", 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    // Segment 0 lost; 1, 2 arrive: limited transmit sends one new segment each.
    s.on_packet(&ack(0, &[(1, 2)]), ms(50), &mut out);
    assert_eq!(sent(&mut out), vec![10]);
    s.on_packet(&ack(0, &[(1, 3)]), ms(50), &mut out);
    assert_eq!(sent(&mut out), vec![11]);
    // Third duplicate ACK: recovery, retransmit 0. ssthresh = FlightSize / 2
    // without the two limited-transmit segments (RFC 5681 Sec. 3.2): 10 / 2.
    s.on_packet(&ack(0, &[(1, 4)]), ms(51), &mut out);
    assert_eq!(sent(&mut out), vec![0]);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.window().cwnd, 5.0);
    // pipe = 12 outstanding - 3 SACKed - 1 lost + 1 retransmitted = 9 > cwnd.
    assert_eq!(s.scoreboard().pipe(), 9);
    // SACKs of 4..8 bring pipe to 5: nothing may be sent yet; the next SACK
    // (pipe 4) lets one new segment out.
    s.on_packet(&ack(0, &[(1, 7)]), ms(52), &mut out);
    s.on_packet(&ack(0, &[(1, 8)]), ms(52), &mut out);
    assert!(sent(&mut out).is_empty());
    s.on_packet(&ack(0, &[(1, 9)]), ms(52), &mut out);
    assert_eq!(sent(&mut out), vec![12]);
    // The retransmission arrives: everything up to 12 acknowledged except
    // what is still in flight, recovery ends at recover = 12.
    s.on_packet(&ack(12, &[]), ms(100), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
}

#[test]
fn karn_no_rtt_sample_from_a_retransmitted_segment() {
    let mut s = sender("SACK", 1);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_packet(&ack(1, &[]), ms(100), &mut out);
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    // Segment 1 (sent at 100 ms) times out and is retransmitted at 1.1 s.
    sent(&mut out);
    let rto_at = s.deadline(TimerKind::Rto).unwrap();
    assert_eq!(rto_at, ms(1100));
    s.on_timer(TimerKind::Rto, rto_at, &mut out);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(sent(&mut out), vec![1]);
    // Its ACK must not produce a sample (the srtt stays at 100 ms) ...
    s.on_packet(&ack(2, &[]), ms(1150), &mut out);
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    // Slow start after the timeout: segment 2 (also marked lost at the
    // timeout) is retransmitted, then new segment 3 goes out.
    assert_eq!(sent(&mut out), vec![2, 3]);
    s.on_packet(&ack(3, &[]), ms(1200), &mut out);
    // ... and the backoff stays until a valid sample arrives.
    assert_eq!(s.rtt().backoff(), 1);
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    // Segment 3 was sent once: its ACK is a valid sample (100 ms again).
    s.on_packet(&ack(4, &[]), ms(1250), &mut out);
    assert_eq!(s.rtt().backoff(), 0);
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    assert_eq!(s.rtt().rto(), ms(1000));
}

#[test]
fn repeated_timeouts_back_off_exponentially_and_cut_cwnd_to_one() {
    let mut s = sender("SACK", 4);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    let mut deadlines = Vec::new();
    for _ in 0..4 {
        let d = s.deadline(TimerKind::Rto).unwrap();
        deadlines.push(d);
        s.on_timer(TimerKind::Rto, d, &mut out);
        assert_eq!(s.window().cwnd, 1.0);
        // Only the first unacknowledged segment is resent each time.
        assert_eq!(sent(&mut out), vec![0]);
    }
    let gaps: Vec<u64> = deadlines.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, vec![ms(2000), ms(4000), ms(8000)]);
    // ssthresh was cut once (FlightSize 4 / 2), not at every expiry.
    assert_eq!(s.window().ssthresh, 2.0);
    assert_eq!(s.stats().timeouts, 4);
}

#[test]
fn dsack_is_recognised_and_not_counted_as_new_sack() {
    let mut s = sender("SACK", 4);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_packet(&ack(4, &[]), ms(50), &mut out);
    // A duplicate of segment 1 (below the cumulative ACK) is reported.
    s.on_packet(&ack(4, &[(1, 2)]), ms(60), &mut out);
    assert_eq!(s.stats().dsacks_received, 1);
    assert_eq!(s.scoreboard().sacked_out(), 0);
}

#[test]
fn dsack_r_undo_restores_cwnd_and_ssthresh_exactly() {
    let (mut s, mut out) = delayed_first_segment("DSACK-R");
    assert_eq!(s.ca_state(), CaState::Recovery);
    let reduced = s.window();
    assert_eq!(reduced.cwnd, 5.0);
    assert_eq!(reduced.ssthresh, 5.0);
    // The delayed original arrives: everything sent is acknowledged.
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(nxt, &[]), ms(70), &mut out);
    assert_eq!(s.stats().undos, 0);
    // Then the retransmission arrives as a duplicate: DSACK for 0.
    s.on_packet(&ack(nxt, &[(0, 1)]), ms(101), &mut out);
    assert_eq!(s.stats().false_fast_retransmits_detected, 1);
    assert_eq!(s.stats().undos, 1);
    // cwnd back to its pre-reduction 10 (duplicate ACKs do not grow it),
    // ssthresh to its initial value.
    assert_eq!(s.window().cwnd, 10.0);
    assert!(s.window().ssthresh.is_infinite());
}

#[test]
fn blanton_allman_undo_slow_starts_back_to_the_old_window() {
    // As dsack_r_undo_restores_cwnd_and_ssthresh_exactly, with the
    // Blanton-Allman schemes' own response (the tcp-pr paper, footnote 2):
    // ssthresh = the cwnd before the reduction (10), cwnd stays at the
    // reduced 5 and grows by slow start from there.
    let tcp = TcpSpec {
        initial_window: Some(10),
        ..TcpSpec::default()
    };
    let (mut s, mut out) = delayed_first_segment_of(sender_from("DSACK-BL-INC", &tcp));
    assert_eq!((s.window().cwnd, s.window().ssthresh), (5.0, 5.0));
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(nxt, &[]), ms(70), &mut out);
    s.on_packet(&ack(nxt, &[(0, 1)]), ms(101), &mut out);
    assert_eq!(s.stats().undos, 1);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!((s.window().cwnd, s.window().ssthresh), (5.0, 10.0));
    // In slow start again: each new ACK adds a segment.
    out.clear();
    let before = s.window().cwnd;
    let next = s.scoreboard().nxt();
    s.on_packet(&ack(nxt + 1, &[]), ms(120), &mut out);
    assert!(next > nxt, "new data went out after the undo");
    assert_eq!(s.window().cwnd, before + 1.0);
}

#[test]
fn blanton_allman_with_rr_tcps_undo_restores_at_once() {
    // `tcp.undo_response = "restore"` gives a Blanton-Allman scheme RR-TCP's
    // undo: cwnd back to 10 at once.
    let tcp = TcpSpec {
        initial_window: Some(10),
        undo_response: Some(crate::spec::UndoResponseSpec::Restore),
        ..TcpSpec::default()
    };
    let (mut s, mut out) = delayed_first_segment_of(sender_from("DSACK-BL-INC", &tcp));
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(nxt, &[]), ms(70), &mut out);
    s.on_packet(&ack(nxt, &[(0, 1)]), ms(101), &mut out);
    assert_eq!(s.stats().undos, 1);
    assert_eq!(s.window().cwnd, 10.0);
}

#[test]
fn dsack_nm_detects_but_does_not_undo() {
    let (mut s, mut out) = delayed_first_segment("DSACK-NM");
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(nxt, &[]), ms(70), &mut out);
    s.on_packet(&ack(nxt, &[(0, 1)]), ms(101), &mut out);
    assert_eq!(s.stats().false_fast_retransmits_detected, 1);
    assert_eq!(s.stats().undos, 0);
    assert_eq!(s.window().ssthresh, 5.0);
}

#[test]
fn dsack_mean_pairing_gives_a_reordering_sample_that_raises_dupthresh() {
    // Segment 0 is delayed past 1..6: fast retransmit at the third dupack.
    let (mut s, mut out) = delayed_first_segment("DSACK-FA");
    assert_eq!(s.dupthresh(), 3);
    s.on_packet(&ack(0, &[(1, 7)]), ms(52), &mut out);
    // The original arrives (m = 6 then): first pairing 6 - 0 = 6.
    s.on_packet(&ack(7, &[]), ms(55), &mut out);
    // Its retransmission's DSACK, still with m = 6: second pairing 6.
    s.on_packet(&ack(7, &[(0, 1)]), ms(101), &mut out);
    assert_eq!(s.stats().false_fast_retransmits_detected, 1);
    // One sample of 6: the 90th percentile is 6, dupthresh 7.
    s.on_packet(&ack(8, &[]), ms(110), &mut out);
    assert_eq!(s.dupthresh(), 7);
}

#[test]
fn dsack_in_a_reordered_old_ack_still_undoes() {
    let (mut s, mut out) = delayed_first_segment("DSACK-R");
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(nxt, &[]), ms(70), &mut out);
    // The DSACK comes in an ACK that was overtaken: its cumulative ACK (1)
    // is below SND.UNA, but its DSACK block still counts (RFC 2883).
    s.on_packet(&ack(1, &[(0, 1)]), ms(101), &mut out);
    assert_eq!(s.stats().false_fast_retransmits_detected, 1);
    assert_eq!(s.stats().undos, 1);
    assert_eq!(s.window().cwnd, 10.0);
}

#[test]
fn tcp_pr_counts_the_dsack_blocks_it_receives() {
    // TCP-PR ignores duplicate ACKs for loss detection, but a DSACK block
    // that reaches it is still counted (it was always reported as 0).
    let mut s = sender("TCP-PR", 4);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out), vec![0, 1, 2, 3]);
    s.on_packet(&ack(2, &[]), ms(100), &mut out);
    // A duplicate of segment 0 arrived: DSACK block [0, 1) below the ACK.
    s.on_packet(&ack(2, &[(0, 1)]), ms(101), &mut out);
    assert_eq!(s.stats().dsacks_received, 1);
    // A DSACK inside the second block (RFC 2883 Sec. 4) counts too.
    s.on_packet(&ack(2, &[(3, 4), (3, 4)]), ms(102), &mut out);
    assert_eq!(s.stats().dsacks_received, 2);
}

#[test]
fn a_dsack_for_a_twice_retransmitted_segment_concludes_nothing() {
    // RFC 3708 Sec. 3 step A.3: segment 0 is fast-retransmitted, then
    // retransmitted again by the timeout; a DSACK for it cannot tell which
    // copy was unneeded: nothing counted as spurious, nothing undone.
    let mut s = sender("DSACK-R", 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    for k in 1..=3 {
        s.on_packet(&ack(0, &[(1, k + 1)]), ms(100), &mut out);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    let rto = s.deadline(TimerKind::Rto).unwrap();
    s.on_timer(TimerKind::Rto, rto, &mut out);
    assert_eq!(s.stats().timeout_retransmits, 1);
    assert_eq!(s.scoreboard().seg(0).unwrap().copies, 3);
    // Everything arrives; the original of 0 came late: DSACK [0, 1).
    s.on_packet(&ack(10, &[(0, 1)]), rto + ms(100), &mut out);
    assert_eq!(s.stats().dsacks_received, 1);
    assert_eq!(s.stats().false_fast_retransmits_detected, 0);
    assert_eq!(s.stats().false_timeouts_detected, 0);
    assert_eq!(s.stats().undos, 0);
}

#[test]
fn limited_transmit_past_the_window_is_capped() {
    // `tcp.limited_transmit_past_window`: RR-TCP's limited transmit may send
    // at most that many segments past max_window (here cwnd = M = 10; one
    // new segment per duplicate ACK otherwise).
    for (cap, want) in [
        (None, vec![10, 11, 12, 13]),
        (Some(2), vec![10, 11]),
        (Some(0), vec![]),
    ] {
        let tcp = TcpSpec {
            initial_window: Some(10),
            max_window: Some(10),
            dupthresh: Some(20),
            limited_transmit_past_window: cap,
            ..TcpSpec::default()
        };
        let mut s = sender_from("DSACK-R", &tcp);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(sent(&mut out).len(), 10);
        for k in 1..=4 {
            s.on_packet(&ack(0, &[(1, 1 + k)]), ms(100 + k as u64), &mut out);
        }
        assert_eq!(sent(&mut out), want, "{cap:?}");
    }
}

#[test]
fn td_fr_and_blanton_allman_limited_transmit_is_rfc3042() {
    // tcp-pr Sec. VI: the methods of Blanton & Allman and TD-FR "use
    // limited transmit [RFC 3042]": one new segment for each of the first
    // two duplicate ACKs, none for the ones TD-FR's timer waits through.
    for variant in ["TD-FR", "DSACK-BL-INC"] {
        let mut s = sender(variant, 10);
        let mut out = Vec::new();
        s.start(0, &mut out);
        sent(&mut out);
        s.on_packet(&ack(1, &[]), ms(100), &mut out);
        assert_eq!(sent(&mut out), vec![10, 11], "{variant}: slow start");
        let mut per_dupack = Vec::new();
        for k in 1..=2 {
            s.on_packet(&ack(1, &[(2, 2 + k)]), ms(110 + k as u64), &mut out);
            per_dupack.push(sent(&mut out));
        }
        assert_eq!(per_dupack, vec![vec![12], vec![13]], "{variant}");
    }
    // TD-FR waits max(SRTT / 2, DT) after the first duplicate ACK: the
    // third and later ones send nothing until then.
    let mut s = sender("TD-FR", 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_packet(&ack(1, &[]), ms(100), &mut out);
    sent(&mut out);
    for k in 1..=6 {
        s.on_packet(&ack(1, &[(2, 2 + k)]), ms(110 + k as u64), &mut out);
    }
    assert_eq!(sent(&mut out), vec![12, 13]);
    assert_eq!(s.stats().fast_retransmits, 0);
}

#[test]
fn the_ns2_estimator_cancels_timing_and_restarts_the_timer_at_a_fast_retransmit() {
    // ns-2's Sack1 agent (`reset_rtx_timer(1, 0)` in `dupack_action`): the
    // segment timed before the fast retransmit gives no sample, and the
    // timer restarts at the retransmission. RFC 6298 mode keeps both.
    let run = |ns2: bool| {
        let tcp = TcpSpec {
            initial_window: Some(10),
            rto_estimator: ns2.then_some(crate::spec::RtoEstimatorSpec::Ns2V21b8),
            ..TcpSpec::default()
        };
        let mut s = sender_from("SACK", &tcp);
        let mut out = Vec::new();
        s.start(0, &mut out);
        sent(&mut out);
        // Segment 0's ACK at 400 ms: the sample (4 ticks), then 10 and 11
        // go out and 10 is timed.
        s.on_packet(&ack(1, &[]), ms(400), &mut out);
        let srtt = s.rtt().srtt().unwrap();
        assert_eq!(sent(&mut out), vec![10, 11]);
        for k in 1..=3 {
            s.on_packet(&ack(1, &[(2, 2 + k)]), ms(410), &mut out);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        let timer = s.deadline(TimerKind::Rto).unwrap() - s.rtt().rto();
        // Everything (10 included) acknowledged at 1 s.
        s.on_packet(&ack(12, &[]), ms(1000), &mut out);
        (srtt, timer, s.rtt().srtt().unwrap())
    };
    let (srtt, timer, after) = run(true);
    assert_eq!(srtt, ms(400));
    assert_eq!(timer, ms(410), "restarted at the fast retransmit");
    assert_eq!(after, ms(400), "no sample from the cancelled measurement");
    let (srtt, timer, after) = run(false);
    assert_eq!(srtt, ms(400));
    assert_eq!(timer, ms(400));
    assert!(after > ms(400), "RFC 6298 mode: the 600 ms sample is taken");
}

#[test]
fn the_ns2_estimator_with_timestamps_ends_the_backoff_at_every_sample() {
    // ns-2 with the timestamp option and `ts_resetRTO_` (the wwan paper's
    // settings): `newack` sets t_backoff_ = 1 after every timestamp sample
    // (the ns-2 estimator's own samples leave the backoff alone).
    let tcp = TcpSpec {
        initial_window: Some(1),
        initial_rto: Some(1.0),
        rtt_timing: Some(crate::spec::RttTimingSpec::PerAck),
        rto_estimator: Some(crate::spec::RtoEstimatorSpec::Ns2V226),
        ..TcpSpec::default()
    };
    let mut s = sender_from("SACK", &tcp);
    let mut out = Vec::new();
    s.start(0, &mut out);
    let at = s.deadline(TimerKind::Rto).unwrap();
    s.on_timer(TimerKind::Rto, at, &mut out);
    assert_eq!(s.rtt().backoff(), 1);
    sent(&mut out);
    // The retransmission's ACK: Karn, no sample, the backoff stays.
    s.on_packet(&ack(1, &[]), at + ms(100), &mut out);
    assert_eq!(s.rtt().backoff(), 1);
    assert_eq!(sent(&mut out), vec![1, 2]);
    // Segment 1's ACK: a timestamp sample.
    s.on_packet(&ack(2, &[]), at + ms(200), &mut out);
    assert_eq!(s.rtt().backoff(), 0);
}
