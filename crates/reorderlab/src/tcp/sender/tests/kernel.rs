//! The `Linux` variants against the kernel functions they follow
//! ([`crate::tcp::kernel`]), each case one that `reorderlab validate` found
//! differing from the kernel; the other variants keep the RFCs' rules.

use super::*;

/// `tcp_slow_start` / `tcp_cong_avoid_ai`: an ACK for two segments (the
/// receiver delays its ACKs) grows cwnd by two in slow start and by 2 /
/// cwnd in congestion avoidance; RFC 5681 (the other variants) counts the
/// ACK: one, and 1 / cwnd.
#[test]
fn linux_grows_per_segment_acknowledged() {
    for (variant, slow, avoid) in [("Linux", 12.0, 20.1), ("SACK", 11.0, 20.05)] {
        let mut s = sender(variant, 10);
        let mut out = Vec::new();
        s.start(0, &mut out);
        s.on_packet(&ack(2, &[]), ms(50), &mut out);
        assert_eq!(s.window().cwnd, slow, "{variant}");
        let mut s = sender_with(variant, 20, Some(20));
        s.start(0, &mut out);
        s.on_packet(&ack(2, &[]), ms(50), &mut out);
        assert!(
            (s.window().cwnd - avoid).abs() < 1e-9,
            "{variant}: {}",
            s.window().cwnd
        );
    }
    // Slow start ends at ssthresh; the segments left over go to
    // congestion avoidance: 19 + 1, then 1 / 20.
    let mut s = sender_with("Linux", 19, Some(20));
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_packet(&ack(2, &[]), ms(50), &mut out);
    assert!(
        (s.window().cwnd - 20.05).abs() < 1e-9,
        "{}",
        s.window().cwnd
    );
}

/// `tcp_cwnd_reduction`: a 10-segment flow loses its last three; the probe
/// (a copy of 9) is SACKed, RACK marks 7 and 8 lost. That ACK advanced
/// nothing and marked segments lost: Linux sends one repair (7), the next
/// one a round trip later, on the ACK of 7 (the kernel's log at 40 ms: 7
/// and 8 one RTT apart); RFC 6937's PRR-SSRB sends both at once.
#[test]
fn linux_prr_repairs_a_tail_one_segment_per_ack_that_only_sacks() {
    for (variant, first) in [("Linux", vec![7]), ("RACK-TLP", vec![7, 8])] {
        let (mut s, mut out) = tail_sender(variant);
        for a in 1..=7 {
            s.on_packet(&ack(a, &[]), ms(100), &mut out);
        }
        let pto = s.deadline(TimerKind::Aux).unwrap();
        s.on_timer(TimerKind::Aux, pto, &mut out);
        assert_eq!(sent(&mut out), vec![9], "{variant}: the probe");
        s.on_packet(&ack(7, &[(9, 10)]), pto + ms(100), &mut out);
        assert_eq!(s.ca_state(), CaState::Recovery, "{variant}");
        assert_eq!(sent(&mut out), first, "{variant}");
        // The ACK of 7's retransmission echoes its timestamp (no undo).
        let mut of_seven = ack(8, &[(9, 10)]);
        of_seven.ts = pto + ms(100);
        s.on_packet(&of_seven, pto + ms(200), &mut out);
        let second: Vec<u32> = if variant == "Linux" { vec![8] } else { vec![] };
        assert_eq!(sent(&mut out), second, "{variant}");
    }
}

/// `tcp_schedule_loss_probe` and `tcp_rack_mark_lost`: the kernel arms its
/// timers in jiffies (HZ 250: 4 ms) on the timer wheel. SRTT 100 ms, three
/// segments out: the probe timeout 2 SRTT + 2 ms = 51 jiffies, armed at
/// jiffy 25, fires at jiffy 77 (308 ms), not at 300 ms. A reorder timer
/// with 25 ms left: 27 ms = 7 jiffies from jiffy 25, fires at 33 (132 ms),
/// not at 125 ms.
#[test]
fn linux_timers_run_in_jiffies_on_the_timer_wheel() {
    for (variant, probe_at) in [("Linux", ms(308)), ("RACK-TLP", ms(300))] {
        let (mut s, mut out) = tail_sender(variant);
        for a in 1..=7 {
            s.on_packet(&ack(a, &[]), ms(100), &mut out);
        }
        assert_eq!(s.deadline(TimerKind::Aux), Some(probe_at), "{variant}");
    }
    for (variant, reorder_at) in [("Linux", ms(132)), ("RACK-TLP", ms(125))] {
        let (mut s, mut out) = tail_sender(variant);
        s.on_packet(&ack(0, &[(1, 2)]), ms(100), &mut out);
        s.on_packet(&ack(0, &[(1, 3)]), ms(100), &mut out);
        assert_eq!(s.rack().unwrap().reo_wnd, ms(25), "{variant}");
        assert_eq!(s.deadline(TimerKind::Aux), Some(reorder_at), "{variant}");
        s.on_timer(TimerKind::Aux, reorder_at - 1, &mut out);
        assert_eq!(s.scoreboard().lost_out(), 0, "{variant}: not before");
        s.on_timer(TimerKind::Aux, reorder_at, &mut out);
        assert_eq!(s.scoreboard().lost_out(), 1, "{variant}: segment 0");
    }
}

/// `tcp_cong_control`: the window grows by what the ACK newly delivered
/// (`acked_sacked`). Segment 0 held, 1 and 2 SACKed, then 0 arrives: the
/// ACK of 3 delivers one segment, so Linux's slow start adds one, not the
/// three the ACK covers.
#[test]
fn linux_grows_by_what_the_ack_newly_delivered() {
    let (mut s, mut out) = tail_sender("Linux");
    s.on_packet(&ack(0, &[(1, 2)]), ms(50), &mut out);
    s.on_packet(&ack(0, &[(1, 3)]), ms(50), &mut out);
    assert_eq!(s.scoreboard().lost_out(), 0);
    let before = s.window().cwnd;
    s.on_packet(&ack(3, &[]), ms(51), &mut out);
    assert_eq!(s.window().cwnd, before + 1.0);
}

/// `tcp_fastretrans_alert` then `tcp_cong_control`: the ACK of the
/// recovery point ends fast recovery (cwnd = ssthresh) and, no longer in
/// a cwnd reduction, grows the window by the segments it delivered (the
/// conformance script recovery-full-ack: 7 -> 8 with CUBIC). RFC 6937
/// (RACK-TLP) ends at cwnd = ssthresh.
#[test]
fn linux_grows_on_the_ack_that_ends_recovery() {
    for variant in ["Linux", "RACK-TLP"] {
        let (mut s, mut out) = delayed_first_segment(variant);
        assert_eq!(s.ca_state(), CaState::Recovery, "{variant}");
        let ssthresh = s.window().ssthresh;
        let nxt = s.scoreboard().nxt();
        // It echoes the retransmission's timestamp: no undo.
        let mut full = ack(nxt, &[]);
        full.ts = ms(50);
        s.on_packet(&full, ms(100), &mut out);
        assert_eq!(s.ca_state(), CaState::Open, "{variant}");
        assert_eq!(s.stats().undos, 0, "{variant}");
        let cwnd = s.window().cwnd;
        if variant == "Linux" {
            // Reno: ssthresh 5, + the segments delivered (all but the
            // three SACKed) / 5.
            let grown = ssthresh + (nxt - 3) as f64 / ssthresh;
            assert!((cwnd - grown).abs() < 1e-9, "{variant}: {cwnd} vs {grown}");
        } else {
            assert_eq!(cwnd, ssthresh, "{variant}");
        }
    }
}

/// `tcp_ack`'s `no_queue` path -> `tcp_fastretrans_alert` ->
/// `tcp_try_undo_dsack` in the Open state: a 10-segment transfer's fast
/// recovery ended on the full ACK, which acknowledged everything; the
/// DSACK of its one retransmission arrives after (`undo_retrans` 0,
/// `undo_marker` kept): Linux undoes the reduction, the other variants
/// ignore ACKs of a finished transfer (the conformance script
/// dsack-undo-fast-recovery).
#[test]
fn linux_undoes_by_dsack_after_the_transfer_ended() {
    for variant in ["Linux", "RACK-TLP"] {
        let (mut s, mut out) = tail_sender(variant);
        for k in 2..=4 {
            s.on_packet(&ack(0, &[(1, k)]), ms(50), &mut out);
        }
        assert_eq!(sent(&mut out)[0], 0, "{variant}: the fast retransmit");
        let mut full = ack(10, &[]);
        full.ts = ms(50);
        s.on_packet(&full, ms(60), &mut out);
        assert!(s.stats().all_acked_at.is_some(), "{variant}");
        let ssthresh = s.window().ssthresh;
        let mut dsack = ack(10, &[(0, 1)]);
        dsack.ts = ms(50);
        s.on_packet(&dsack, ms(150), &mut out);
        if variant == "Linux" {
            assert_eq!(s.stats().undos, 1, "{variant}");
            assert!(s.window().ssthresh > ssthresh, "{variant}");
        } else {
            assert_eq!(s.stats().undos, 0, "{variant}");
            assert_eq!(s.window().ssthresh, ssthresh, "{variant}");
        }
    }
}

/// `tcp_try_undo_partial` -> `tcp_undo_cwnd_reduction(sk, true)`: segment
/// 9 SACKed, the reorder timer marks 0..8 lost, PRR retransmits 0 only.
/// The partial ACK of 0 echoes the original's timestamp: the hole was
/// reordering; the reduction is undone and every loss mark forgotten. The
/// segments RACK marked left its send-time list and are not examined
/// again: none of 1..8 is retransmitted (the validation matrix's 25 %
/// held cells: the simulator retransmitted them).
#[test]
fn linux_partial_undo_forgets_the_loss_marks() {
    for variant in ["Linux", "RACK-TLP"] {
        let mut s = sender(variant, 10);
        let mut out = Vec::new();
        s.start(0, &mut out);
        sent(&mut out);
        s.on_packet(&ack(0, &[(9, 10)]), ms(50), &mut out);
        assert_eq!(sent(&mut out), vec![10], "{variant}: limited transmit");
        let reo = s.deadline(TimerKind::Aux).unwrap();
        s.on_timer(TimerKind::Aux, reo, &mut out);
        assert_eq!(s.ca_state(), CaState::Recovery, "{variant}");
        let repairs = sent(&mut out);
        assert_eq!(repairs[0], 0, "{variant}");
        if variant == "Linux" {
            // The kernel's PRR: no extra segment on a timer (no SND.UNA
            // advance).
            assert_eq!(repairs, vec![0]);
            assert_eq!(s.scoreboard().lost_out(), 9);
        }
        // Echo of the original of 0 (sent at 0): older than the
        // retransmission.
        let mut partial = ack(1, &[(9, 10)]);
        partial.ts = 0;
        s.on_packet(&partial, reo + ms(5), &mut out);
        let resent: Vec<u32> = sent(&mut out).into_iter().filter(|&q| q < 9).collect();
        if variant == "Linux" {
            assert_eq!(s.stats().undos, 1, "{variant}");
            assert_eq!(s.scoreboard().lost_out(), 0, "{variant}");
            assert!(resent.is_empty(), "{variant}: {resent:?}");
        } else {
            // RFC 8985 alone: no undo by timestamps; repairs go on.
            assert_eq!(s.stats().undos, 0, "{variant}");
            assert!(!resent.is_empty(), "{variant}");
        }
    }
}

/// `tcp_cwnd_test` (tcp_output.c): Linux sends while
/// `tcp_packets_in_flight` (the pipe: SACKed segments are not in flight)
/// is below cwnd, in the Open state too. After the ACK of 0 (cwnd 11, 1..11
/// out), an ACK SACKing 3 and 4 leaves 9 in flight: two new segments. The
/// RFC rule (packets out within cwnd, plus limited transmit's one per
/// duplicate ACK, RFC 3042) sends one (the validation matrix's 25 %-held
/// cells: after a partial undo the simulator sent 0-2 segments per ACK
/// where the kernel sent 2-4).
#[test]
fn linux_sends_by_packets_in_flight_in_the_open_state() {
    for (variant, expected) in [("Linux", vec![12, 13]), ("SACK", vec![12])] {
        let mut s = sender(variant, 10);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(sent(&mut out).len(), 10, "{variant}");
        s.on_packet(&ack(1, &[]), ms(50), &mut out);
        assert_eq!(sent(&mut out), vec![10, 11], "{variant}");
        s.on_packet(&ack(1, &[(3, 5)]), ms(51), &mut out);
        assert_eq!(s.ca_state(), CaState::Open, "{variant}");
        assert_eq!(sent(&mut out), expected, "{variant}");
    }
}

/// `tcp_undo_cwnd_reduction`: cwnd = `tcp_reno_undo_cwnd` = max(cwnd,
/// prior_cwnd) and ssthresh = prior_ssthresh, which `tcp_enter_recovery`
/// took as `tcp_current_ssthresh` = max(ssthresh, 3/4 cwnd). In congestion
/// avoidance at cwnd 20, ssthresh 10: 9 SACKed, the reorder timer marks
/// 0..8 lost, 0 is retransmitted; the partial ACK of 0 echoes the
/// original's timestamp and undoes: ssthresh 15, cwnd 20 (plus the ACK's
/// growth, 1/20). The RFC variants restore ssthresh 10 and give cwnd back
/// what the reduction took from it.
#[test]
fn linux_undo_restores_max_of_cwnd_and_prior_and_three_quarters_ssthresh() {
    let mut s = sender_with("Linux", 20, Some(10));
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out).len(), 20);
    s.on_packet(&ack(0, &[(19, 20)]), ms(50), &mut out);
    sent(&mut out);
    let reo = s.deadline(TimerKind::Aux).unwrap();
    s.on_timer(TimerKind::Aux, reo, &mut out);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.window().ssthresh, 10.0);
    assert_eq!(sent(&mut out)[0], 0);
    let mut partial = ack(1, &[(19, 20)]);
    partial.ts = 0;
    s.on_packet(&partial, reo + ms(5), &mut out);
    assert_eq!(s.stats().undos, 1);
    assert_eq!(s.window().ssthresh, 15.0);
    assert!(
        (s.window().cwnd - 20.05).abs() < 1e-9,
        "{}",
        s.window().cwnd
    );
}

/// `Linux-classic`'s `tcp_dsack = 0` stops the kernel from sending DSACKs
/// (`tcp_dsack_set`, `tcp_send_dupack` read the sysctl); as a sender it
/// still reads those its peer sends (`tcp_sacktag_write_queue` ->
/// `tcp_check_dsack`) and undoes (`tcp_try_undo_dsack`). With a receiver
/// that sends DSACKs (the simulator's default) the spurious fast
/// retransmission of 0 is undone, as by `Linux`; the model ignored them.
#[test]
fn linux_classic_reads_the_dsacks_a_peer_sends() {
    for variant in ["Linux-classic", "Linux"] {
        let (mut s, mut out) = delayed_first_segment(variant);
        assert_eq!(s.ca_state(), CaState::Recovery, "{variant}");
        let nxt = s.scoreboard().nxt();
        s.on_packet(&ack(nxt, &[]), ms(70), &mut out);
        s.on_packet(&ack(nxt, &[(0, 1)]), ms(101), &mut out);
        assert_eq!(s.stats().undos, 1, "{variant}");
        assert!(s.window().ssthresh.is_infinite(), "{variant}");
    }
}

/// `tcp_may_raise_cwnd` / `tcp_cong_control`: once `tp->reordering` is
/// above 3 the kernel grows the window on every ACK that delivers data,
/// one that only SACKs included, by the segments it delivered; and an ACK
/// of new data grows by its newly SACKed segments as well
/// (`tcp_newly_delivered`). Segment 0 held: 5-6 SACKed (reordering 3: no
/// growth), then 1 below them (reordering 6: +1), then 2 (+1), then the
/// ACK of 0-2 that also SACKs 7 (one cumulatively delivered, one newly
/// SACKed: +2). `Linux-classic` (`tcp_max_reordering` 3) grows only on the
/// cumulative ACK, by what it delivered.
#[test]
fn linux_grows_on_sack_only_acks_once_reordering_is_above_three() {
    for (variant, growth) in [
        ("Linux", [0.0, 1.0, 2.0, 4.0]),
        ("Linux-classic", [0.0, 0.0, 0.0, 2.0]),
    ] {
        let mut s = sender(variant, 10);
        let mut out = Vec::new();
        s.start(0, &mut out);
        let base = s.window().cwnd;
        let acks = [
            ack(0, &[(5, 7)]),
            ack(0, &[(1, 2), (5, 7)]),
            ack(0, &[(1, 3), (5, 7)]),
            ack(3, &[(5, 8)]),
        ];
        for (k, a) in acks.iter().enumerate() {
            s.on_packet(a, ms(50), &mut out);
            assert_eq!(s.ca_state(), CaState::Open, "{variant}: ACK {k}");
            assert_eq!(s.window().cwnd - base, growth[k], "{variant}: ACK {k}");
        }
    }
}

/// `tcp_try_undo_partial` with retransmissions out: a partial ACK whose
/// echoed timestamp shows the original filled the hole returns true, and
/// `tcp_fastretrans_alert` returns before `tcp_identify_packet_loss` with
/// no retransmission asked for: that ACK clocks out new data only (the
/// validate cell `Linux/cubic/25%x1rtt`: the kernel sends new segments 14
/// and 15 on such an ACK where the model retransmitted 3 and 4).
#[test]
fn linux_partial_undo_with_retransmissions_out_sends_new_data_only() {
    let mut s = sender("Linux", 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    for k in 5..=7 {
        s.on_packet(&ack(0, &[(4, k)]), ms(50), &mut out);
    }
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.scoreboard().lost_out(), 4, "0-3 lost");
    // PRR: 0 retransmitted, then 1 as more SACKs arrive.
    let mut top = 7;
    while s.scoreboard().retrans_out() < 2 && top < 10 {
        top += 1;
        s.on_packet(&ack(0, &[(4, top)]), ms(51), &mut out);
    }
    let first = sent(&mut out);
    assert_eq!(s.scoreboard().retrans_out(), 2, "sent {first:?}");
    assert_eq!(s.scoreboard().lost_out(), 4, "2 and 3 not yet repaired");
    // The original of 0 arrives: the ACK echoes its timestamp (0); the
    // retransmission of 1 is still out.
    let mut partial = ack(1, &[(4, top)]);
    partial.ts = 0;
    s.on_packet(&partial, ms(60), &mut out);
    let second = sent(&mut out);
    assert!(
        !second.is_empty() && second.iter().all(|&q| q >= 10),
        "first {first:?}, then {second:?}: a retransmission, or nothing"
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
}
