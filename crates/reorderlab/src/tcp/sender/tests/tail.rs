//! The tail-loss paper: RTO restart, TLP, RACK-TLP, PRR.

use super::*;

#[test]
fn rtor_inactive_with_four_or_more_segments_outstanding() {
    let (mut s, mut out) = tail_sender("RTOR");
    // ACKs for 0..5 at 100 ms: 4 segments (6..9) still out.
    for a in 1..=6 {
        s.on_packet(&ack(a, &[]), ms(100), &mut out);
    }
    let rto = s.rtt().rto();
    assert_eq!(s.scoreboard().packets_out(), 4);
    // Plain RFC 6298 restart: RTO from now.
    assert_eq!(s.deadline(TimerKind::Rto), Some(ms(100) + rto));
    // One more ACK at 110 ms: 3 out (< rrthresh), nothing unsent: the
    // timer runs from the earliest outstanding transmission (0 ms).
    s.on_packet(&ack(7, &[]), ms(110), &mut out);
    let rto = s.rtt().rto();
    assert_eq!(s.deadline(TimerKind::Rto), Some(rto));
    // Linux-ER (no RTOR) restarts from now.
    let (mut b, mut out) = tail_sender("Linux-ER");
    for a in 1..=7 {
        b.on_packet(&ack(a, &[]), ms(110), &mut out);
    }
    assert_eq!(b.deadline(TimerKind::Rto), Some(ms(110) + b.rtt().rto()));
}

#[test]
fn rtor_uses_the_full_rto_when_the_earliest_segment_is_older_than_it() {
    // RFC 7765 Sec. 4 step 3b. Segments 0..9 at 0 ms; ACKs for 0..6 at
    // 100-110 ms (SRTT about 100 ms, Linux RTO about 300 ms); the timer,
    // restarted at RTO - T_earliest, fires RTO after 0 ms and 7 is
    // retransmitted.
    let (mut s, mut out) = tail_sender("RTOR");
    for a in 1..=6 {
        s.on_packet(&ack(a, &[]), ms(100), &mut out);
    }
    s.on_packet(&ack(7, &[]), ms(110), &mut out);
    let at = s.deadline(TimerKind::Rto).unwrap();
    assert_eq!(at, s.rtt().rto());
    s.on_timer(TimerKind::Rto, at, &mut out);
    assert_eq!(sent(&mut out), vec![7]);
    // The ACK for the retransmission comes late, at 850 ms: 8 and 9 (sent
    // at 0 ms) are out, T_earliest = 850 ms > RTO (about 600 ms, backed
    // off). The timer runs the full RTO from now; before step 3b it fired
    // at once.
    s.on_packet(&ack(8, &[]), ms(850), &mut out);
    let rto = s.rtt().rto();
    assert!(rto < ms(850) && rto > ms(500), "{rto}");
    assert_eq!(s.deadline(TimerKind::Rto), Some(ms(850) + rto));
}

#[test]
fn tlp_sends_at_most_one_probe_per_tail_episode() {
    let (mut s, mut out) = tail_sender("TLP");
    for a in 1..=9 {
        s.on_packet(&ack(a, &[]), ms(100), &mut out);
    }
    // SRTT 100 ms, one segment out: PTO = max(200, 150 + 200) = 350 ms,
    // later than the RTO (Linux: SRTT + max(2 R, 200) = 300 ms, armed at
    // 100), so the probe takes the RTO's place at 400 ms.
    let pto = s.deadline(TimerKind::Aux).unwrap();
    assert_eq!(pto, ms(100) + ms(300).min(ms(350)));
    assert_eq!(s.deadline(TimerKind::Rto), None, "the PTO replaces the RTO");
    s.on_timer(TimerKind::Aux, pto, &mut out);
    assert_eq!(sent(&mut out), vec![9], "probe = the last segment again");
    assert_eq!(s.stats().loss_probes, 1);
    // The episode is open: no second probe, only the RTO remains.
    assert_eq!(s.deadline(TimerKind::Aux), None);
    let rto_at = s.deadline(TimerKind::Rto).unwrap();
    assert_eq!(rto_at, pto + s.rtt().rto());
    // A pure duplicate ACK neither ends the episode nor re-arms a probe
    // (it is not a SACK for new data).
    s.on_packet(&ack(9, &[]), pto + ms(10), &mut out);
    assert_eq!(s.deadline(TimerKind::Aux), None);
    s.on_timer(TimerKind::Rto, rto_at, &mut out);
    assert_eq!(s.stats().loss_probes, 1);
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn tlp_probe_not_needed_changes_neither_cwnd_nor_ssthresh() {
    for variant in ["TLP", "TLPR", "RACK-TLP"] {
        let (mut s, mut out) = tail_sender(variant);
        for a in 1..=9 {
            s.on_packet(&ack(a, &[]), ms(100), &mut out);
        }
        let before = s.window();
        let pto = s.deadline(TimerKind::Aux).unwrap();
        s.on_timer(TimerKind::Aux, pto, &mut out);
        assert_eq!(sent(&mut out), vec![9], "{variant}");
        // Segment 9 was only slow: its ACK comes, then the probe's
        // duplicate is reported by a DSACK.
        s.on_packet(&ack(10, &[]), pto + ms(1), &mut out);
        // The application writes more (a persistent connection), then the
        // DSACK of the probe arrives.
        s.write(5, pto + ms(2), &mut out);
        assert_eq!(sent(&mut out), (10..15).collect::<Vec<_>>());
        s.on_packet(&ack(10, &[(9, 10)]), pto + ms(50), &mut out);
        assert_eq!(s.stats().tlp_no_loss, 1, "{variant}");
        assert_eq!(s.stats().tlp_recoveries, 0, "{variant}");
        // Slow start grew cwnd by one per ACKed segment; the probe and its
        // DSACK changed nothing.
        assert_eq!(s.window().cwnd, before.cwnd + 1.0, "{variant}");
        assert_eq!(s.window().ssthresh, before.ssthresh, "{variant}");
        assert_eq!(s.stats().fast_recoveries + s.stats().timeouts, 0);
    }
}

#[test]
fn rack_marks_lost_only_after_a_later_segment_and_the_reordering_window() {
    let (mut s, mut out) = tail_sender("RACK-TLP");
    // Segment 0 delayed: 1 and 2 SACKed at 100 ms (RACK.rtt 100 ms,
    // min_RTT 100): 0 is not lost yet, reo_wnd = min_RTT / 4 = 25 ms.
    s.on_packet(&ack(0, &[(1, 2)]), ms(100), &mut out);
    s.on_packet(&ack(0, &[(1, 3)]), ms(100), &mut out);
    assert_eq!(s.scoreboard().lost_out(), 0);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.rack().unwrap().reo_wnd, ms(25));
    // The reorder timer: 0 + 100 + 25 ms.
    assert_eq!(s.deadline(TimerKind::Aux), Some(ms(125)));
    s.on_timer(TimerKind::Aux, ms(125), &mut out);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(sent(&mut out), vec![0]);
    // Only 0 is lost: 3..9 were sent no earlier than the RACK segment.
    assert_eq!(s.stats().fast_recoveries, 1);
}

#[test]
fn rack_an_ack_advancing_and_sacking_above_a_hole_is_not_reordering() {
    // A delayed-ACK receiver's first out-of-order arrival: segments 0-1 in
    // order, 2 lost, 3 arrives: ACK 2 with SACK [3, 4). RFC 8985 Sec. 6.2
    // step 3 (ascending end_seq) sees no segment delivered below RACK.fack.
    let (mut s, mut out) = tail_sender("RACK-TLP");
    s.on_packet(&ack(2, &[(3, 4)]), ms(100), &mut out);
    assert!(!s.rack().unwrap().reordering_seen);
    // Segment 2 arriving after 3 is reordering.
    s.on_packet(&ack(4, &[]), ms(101), &mut out);
    assert!(s.rack().unwrap().reordering_seen);
}

#[test]
fn rack_three_sacks_without_reordering_mark_at_once() {
    // With no reordering seen and DupThresh (3) segments SACKed, reo_wnd
    // is 0: the hole is lost as soon as RACK.rtt has passed since it was
    // sent (RFC 8985 Sec. 6.2 step 4).
    let (mut s, mut out) = tail_sender("RACK-TLP");
    for k in 2..=4 {
        s.on_packet(&ack(0, &[(1, k)]), ms(100), &mut out);
    }
    assert_eq!(s.rack().unwrap().reo_wnd, 0);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert!(sent(&mut out).contains(&0));
}

#[test]
fn prr_recovery_sends_rfc6937_quota_per_ack() {
    // Window 20, segment 0 lost: SACKs of 1.. arrive one per ACK. After
    // RACK marks 0 lost (3 SACKed, reo_wnd 0), PRR paces sending: with
    // ssthresh = 10 (Reno halves 20) and RecoverFS = 20, while pipe >
    // ssthresh each ACK may send CEIL(prr_delivered * 10 / 20) - prr_out.
    let mut s = finite_sender("RACK-TLP", 20, 10_000, 100);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out).len(), 20);
    let mut per_ack = Vec::new();
    for k in 2..=12 {
        s.on_packet(&ack(0, &[(1, k)]), ms(100), &mut out);
        per_ack.push(sent(&mut out).len());
    }
    let p = s.prr().unwrap();
    // ACKs 1-2: RFC 3042 limited transmit sends one new segment each, so
    // RecoverFS = snd.nxt - snd.una = 22 while ssthresh comes from the 20
    // segments out before limited transmit (RFC 5681 Sec. 3.2): 10.
    assert_eq!((p.recover_fs, p.ssthresh), (22, 10.0));
    assert_eq!(per_ack[..2], [1, 1]);
    // From ACK 3 (recovery) on, pipe stays above ssthresh, so the quota is
    // sndcnt = CEIL(prr_delivered * 10 / 22) - prr_out with prr_delivered
    // = 1, 2, 3, ...: 1 (the retransmission of 0), then 0, 1, 0, 1, ...
    let mut prr_out = 0;
    for (k, &n) in per_ack[2..].iter().enumerate() {
        let quota = ((k as f64 + 1.0) * 10.0 / 22.0).ceil() as usize - prr_out;
        assert_eq!(n, quota, "ACK {}", k + 3);
        prr_out += n;
    }
    assert_eq!(per_ack[2..], [1, 0, 1, 0, 1, 0, 1, 0, 1]);
    assert!(s.scoreboard().pipe() > 10);
    assert_eq!(p.prr_out as usize, per_ack[2..].iter().sum::<usize>());
}

#[test]
fn linux_er_disables_early_retransmit_once_reordering_is_measured() {
    // Linux 3.17 tcp_update_reordering: any measured reordering disables
    // early retransmit for the connection (RFC 5827 Appendix A.1).
    let er_timer_after = |reorder_first: bool| {
        let (mut s, mut out) = tail_sender("Linux-ER");
        if reorder_first {
            // Segment 1 arrives after 2: a hole filled by an original.
            s.on_packet(&ack(1, &[(2, 3)]), ms(100), &mut out);
            s.on_packet(&ack(3, &[]), ms(101), &mut out);
        } else {
            s.on_packet(&ack(3, &[]), ms(101), &mut out);
        }
        // A tail: 8 and 9 out, then a duplicate ACK SACKs 9, nothing new
        // to send: RFC 5827's case, delayed by SRTT / 4 as Linux does.
        s.on_packet(&ack(8, &[]), ms(150), &mut out);
        s.on_packet(&ack(8, &[(9, 10)]), ms(151), &mut out);
        s.deadline(TimerKind::Aux)
    };
    assert!(er_timer_after(false).is_some());
    assert_eq!(er_timer_after(true), None);
}

#[test]
fn linux_er_raises_tp_reordering_and_turns_fack_off() {
    // Segment 6 SACKed first: FACK (fackets_out 6 > 3) starts recovery and
    // marks 1-3 lost; PRR lets only 1 be retransmitted. The original 2 is
    // then SACKed, 5 segments below the highest SACKed one: tp->reordering
    // = 5 (tcp_update_reordering), and FACK is off.
    let (mut s, mut out) = tail_sender("Linux-ER");
    s.on_packet(&ack(1, &[]), ms(100), &mut out);
    s.on_packet(&ack(1, &[(6, 7)]), ms(100), &mut out);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(sent(&mut out), vec![1]);
    assert_eq!(s.dupthresh(), 3);
    s.on_packet(&ack(1, &[(2, 3), (6, 7)]), ms(101), &mut out);
    assert_eq!(s.dupthresh(), 5);
    // Without FACK, 3 (one SACKed segment above it below 6, two in all)
    // is not re-marked: only IsLost with tp->reordering = 5 marks now.
    let lost: Vec<u32> = (1..10)
        .filter(|&q| s.scoreboard().seg(q).unwrap().lost)
        .collect();
    assert!(!lost.contains(&4) && !lost.contains(&5), "{lost:?}");
}

/// Segments 0..9 sent at 0 ms; 0 is late: 1..4 SACKed at 100 ms (RACK
/// marks 0 lost, reo_wnd 0 with no reordering seen yet) and 0 is
/// retransmitted; then the ACK for 0 comes back echoing `tsecr`.
fn hole_filled_at_110ms(variant: &str, tsecr: Time) -> Sender {
    let mut s = finite_sender(variant, 10, 1000, 100);
    let mut out = Vec::new();
    s.start(0, &mut out);
    for k in 2..=5 {
        s.on_packet(&ack(0, &[(1, k)]), ms(100), &mut out);
    }
    assert_eq!(s.ca_state(), CaState::Recovery, "{variant}");
    assert!(sent(&mut out).contains(&0), "{variant}");
    let mut filled = ack(5, &[]);
    filled.ts = tsecr;
    s.on_packet(&filled, ms(110), &mut out);
    s
}

#[test]
fn linux_undoes_by_timestamps_when_the_original_fills_the_hole() {
    // The ACK echoes the original's TSval (0 ms), older than the
    // retransmission (100 ms): Linux's tcp_try_undo_partial records the
    // reordering (5 segments deep) and, no retransmission being out, undoes
    // the reduction at once, without waiting for the DSACK.
    for variant in ["Linux", "Linux-ER"] {
        let s = hole_filled_at_110ms(variant, 0);
        assert_eq!(s.ca_state(), CaState::Open, "{variant}");
        assert_eq!(s.stats().undos, 1, "{variant}");
        // tp->reordering: RACK's DupThresh (Linux), DupAck's (3.17).
        let reordering = s.rack().map_or(s.dupthresh(), |r| r.dupthresh);
        assert_eq!(reordering, 5, "{variant}");
    }
    let s = hole_filled_at_110ms("Linux", 0);
    assert!(s.rack().unwrap().reordering_seen);
    // Echoing the retransmission: the hole was a loss, recovery goes on.
    let s = hole_filled_at_110ms("Linux", ms(100));
    assert_eq!((s.ca_state(), s.stats().undos), (CaState::Recovery, 0));
    assert!(!s.rack().unwrap().reordering_seen);
    // RACK-TLP (RFC 8985 with RFC 3708 undo) waits for the DSACK.
    let s = hole_filled_at_110ms("RACK-TLP", 0);
    assert_eq!((s.ca_state(), s.stats().undos), (CaState::Recovery, 0));
}

#[test]
fn linux_er_runs_early_retransmit_on_an_ack_that_also_advances_snd_una() {
    // Linux 3.17 tcp_ack: an ACK that SACKs new data is "dubious"
    // (tcp_ack_is_dubious, FLAG_DATA_SACKED) even when it advances
    // SND.UNA, and tcp_fastretrans_alert asks tcp_time_to_recover, whose
    // early retransmit (trick #6) is due here: the first ACK of a
    // delayed-ACK receiver after a hole acknowledges the segment it held
    // and SACKs the one that arrived out of order.
    let (mut s, mut out) = tail_sender("Linux-ER");
    s.on_packet(&ack(7, &[]), ms(100), &mut out);
    // 7 is acknowledged late with 9 SACKed: 8 is the only hole, 2 out.
    s.on_packet(&ack(8, &[(9, 10)]), ms(150), &mut out);
    assert!(sent(&mut out).is_empty());
    let er = s.deadline(TimerKind::Aux).expect("early retransmit armed");
    assert_eq!(er, ms(150) + s.rtt().srtt().unwrap() / 4);
    s.on_timer(TimerKind::Aux, er, &mut out);
    assert_eq!(sent(&mut out), vec![8]);
    // RFC 6675 SACK (not Linux 3.17) decides on duplicate ACKs only.
    let (mut r, mut out) = tail_sender("SACK");
    r.on_packet(&ack(7, &[]), ms(100), &mut out);
    r.on_packet(&ack(8, &[(9, 10)]), ms(150), &mut out);
    assert!(sent(&mut out).is_empty());
    assert_eq!(r.deadline(TimerKind::Aux), None);
}
