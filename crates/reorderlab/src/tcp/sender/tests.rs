//! The sender driven by hand-made ACK sequences: no network involved.

use super::*;
use crate::engine::time::ms;
use crate::net::packet::SackBlocks;
use crate::spec::TcpSpec;
use crate::tcp::variants;

fn sender(variant: &str, iw: u32) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        ..TcpSpec::default()
    };
    let cfg = variants::resolve(variant, &tcp, 0).unwrap();
    Sender::new(cfg, CongestionControl::by_name("reno").unwrap(), 0, 1)
}

fn ack(cum: u32, sack: &[(u32, u32)]) -> Packet {
    let mut p = Packet::control(PacketKind::Ack, 0, 0, 40, 0);
    p.seq = cum;
    let mut b = SackBlocks::default();
    for &(l, r) in sack {
        b.push(l, r);
    }
    p.sack = b;
    p
}

/// Sequence numbers of the data packets in `out` (and clear it).
fn sent(out: &mut Vec<Packet>) -> Vec<u32> {
    out.drain(..).map(|p| p.seq).collect()
}

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

/// Ten segments out, segment 0 delayed: 1, 2, 3 arrive (limited transmit,
/// then a fast retransmit of 0 at the third duplicate ACK).
fn delayed_first_segment(variant: &str) -> (Sender, Vec<Packet>) {
    let mut s = sender(variant, 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    for k in 2..=4 {
        s.on_packet(&ack(0, &[(1, k)]), ms(50), &mut out);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    (s, out)
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

// ----- TCP-NCR (RFC 4653) ---------------------------------------------

fn sender_with(variant: &str, iw: u32, ssthresh: Option<u32>) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        initial_ssthresh: ssthresh,
        ..TcpSpec::default()
    };
    let cfg = variants::resolve(variant, &tcp, 0).unwrap();
    Sender::new(cfg, CongestionControl::by_name("reno").unwrap(), 0, 1)
}

/// A full window of `iw` out, segment 0 missing; `n` duplicate ACKs SACK
/// 1..=n one at a time. Returns the new segments each duplicate ACK sent.
fn ncr_dupacks(s: &mut Sender, n: u32, out: &mut Vec<Packet>) -> Vec<Vec<u32>> {
    (1..=n)
        .map(|k| {
            s.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), out);
            sent(out)
        })
        .collect()
}

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

// ----- TCP-Aix (seed 004 Sec. II; aix.rs) -------------------------------

fn sender_full(variant: &str, iw: u32, ssthresh: Option<u32>, max_window: u32) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        initial_ssthresh: ssthresh,
        max_window: Some(max_window),
        ..TcpSpec::default()
    };
    let cfg = variants::resolve(variant, &tcp, 0).unwrap();
    Sender::new(cfg, CongestionControl::by_name("reno").unwrap(), 0, 1)
}

/// An ACK echoing transmission `copy` of the segment that triggered it.
fn ack_echo(cum: u32, sack: &[(u32, u32)], copy: u16) -> Packet {
    let mut p = ack(cum, sack);
    p.copy = copy;
    p
}

/// SACK blocks (most recent first) for the segments `1..=top` except
/// `missing`.
fn blocks_without(top: u32, missing: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for seq in 1..=top {
        if missing.contains(&seq) {
            continue;
        }
        match out.last_mut() {
            Some((_, r)) if *r == seq => *r += 1,
            _ => out.push((seq, seq + 1)),
        }
    }
    out.reverse();
    out
}

/// Ten segments out in congestion avoidance (cwnd 10, ssthresh 4); segment
/// 0 missing; duplicate ACKs SACK 1, 2, ... one at a time until the sender
/// retransmits 0. Returns the sender, the number of duplicate ACKs, and the
/// highest segment SACKed.
fn aix_until_retransmission() -> (Sender, u32, Vec<Packet>) {
    aix_until_retransmission_with("reno")
}

fn aix_until_retransmission_with(cc: &str) -> (Sender, u32, Vec<Packet>) {
    let tcp = TcpSpec {
        initial_window: Some(10),
        initial_ssthresh: Some(4),
        ..TcpSpec::default()
    };
    let cfg = variants::resolve("TCP-Aix", &tcp, 0).unwrap();
    let mut s = Sender::new(cfg, CongestionControl::by_name(cc).unwrap(), 0, 1);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out), (0..10).collect::<Vec<_>>());
    for k in 1..=40u32 {
        s.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), &mut out);
        let seqs = sent(&mut out);
        if s.stats().fast_retransmits == 1 {
            assert_eq!(seqs[0], 0, "the hole is resent first");
            return (s, k, out);
        }
        // New data only, clocked so that pipe stays at cwnd (one segment
        // per duplicate ACK, two when congestion avoidance adds one).
        assert!(
            !seqs.is_empty() && seqs.iter().all(|&q| q >= 10),
            "dupack {k}"
        );
        assert_eq!(s.scoreboard().pipe(), s.window().cwnd.floor() as u32);
    }
    panic!("no retransmission after 40 duplicate ACKs");
}

#[test]
fn aix_reordering_shorter_than_dupthresh_no_retransmission_no_reduction() {
    let mut s = sender_full("TCP-Aix", 10, Some(4), 10_000);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    // winthresh: min(10000 - 10, 2 x 10) = 20 (bound: two send windows).
    for k in 1..=15u32 {
        s.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), &mut out);
        let seqs = sent(&mut out);
        assert!(
            !seqs.is_empty() && seqs.iter().all(|&q| q >= 10),
            "new data on dupack {k}"
        );
        assert_eq!(s.scoreboard().pipe(), s.window().cwnd.floor() as u32);
        assert_eq!(s.dupthresh(), 20, "held for the run");
    }
    // The late segment 0 arrives: 0..=15 acknowledged.
    let cwnd_before = s.window().cwnd;
    s.on_packet(&ack(16, &[]), ms(70), &mut out);
    assert_eq!(s.stats().retransmits, 0);
    assert_eq!(s.stats().aix_loss_recoveries, 0);
    assert_eq!(s.stats().fast_recoveries, 0);
    assert_eq!(s.ca_state(), CaState::Open);
    assert!(s.window().cwnd >= cwnd_before && cwnd_before > 10.0);
    assert_eq!(s.window().ssthresh, 4.0);
    // The same timeline makes SACK (dupthresh 3) retransmit and cut cwnd.
    let mut r = sender_full("SACK", 10, Some(4), 10_000);
    r.start(0, &mut out);
    for k in 1..=15u32 {
        r.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), &mut out);
    }
    assert_eq!(r.stats().fast_recoveries, 1);
}

#[test]
fn aix_newack_for_the_original_retransmits_but_does_not_reduce() {
    let (mut s, dupacks, mut out) = aix_until_retransmission();
    assert_eq!(dupacks, 20, "winthresh 20");
    assert_eq!(s.stats().last_recovery_dupthresh, 20);
    assert_eq!(s.stats().aix_loss_recoveries, 1);
    // Loss recovery started, the window did not move.
    assert_eq!(s.stats().fast_recoveries, 0);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.window().ssthresh, 4.0);
    let cwnd = s.window().cwnd;
    assert!(cwnd > 10.0);
    // New data keeps flowing on duplicate ACKs while the newACK is awaited.
    let nxt = s.scoreboard().nxt();
    s.on_packet(&ack(0, &[(1, 22)]), ms(80), &mut out);
    assert_eq!(sent(&mut out), vec![nxt]);
    // The newACK answers the original (echoed copy 0): reordering.
    s.on_packet(&ack_echo(22, &[], 0), ms(90), &mut out);
    assert_eq!(s.stats().fast_retransmits, 1, "the retransmission was sent");
    assert_eq!(s.stats().aix_reorderings, 1);
    assert_eq!(s.stats().fast_recoveries, 0);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.window().ssthresh, 4.0);
    assert!(s.window().cwnd >= cwnd);
}

#[test]
fn aix_real_loss_reduces_once_at_the_newack() {
    // Segments 0 and 3 are lost from the same window.
    let mut s = sender_full("TCP-Aix", 10, Some(4), 10_000);
    let mut out = Vec::new();
    s.start(0, &mut out);
    sent(&mut out);
    let mut top = 0;
    let mut k = 0;
    while s.stats().fast_retransmits < 2 {
        top += 1;
        if top == 3 {
            continue;
        }
        k += 1;
        assert!(k < 60, "no retransmission of 3");
        s.on_packet(
            &ack(0, &blocks_without(top, &[3])),
            ms(50 + k as u64),
            &mut out,
        );
        let seqs = sent(&mut out);
        // At dupthresh (20): 0 resent, no reduction.
        assert_eq!(seqs.first() == Some(&0), k == 20, "dupack {k}");
        assert_eq!(s.stats().fast_recoveries, 0);
        if s.stats().fast_retransmits == 2 {
            assert_eq!(seqs[0], 3);
        }
    }
    // 3 is resent once 20 segments above it are SACKed, still no reduction.
    assert_eq!(top, 23);
    assert_eq!(s.stats().fast_recoveries, 0);
    assert_eq!(s.window().ssthresh, 4.0);
    let nxt = s.scoreboard().nxt();
    // The newACK answers the retransmission of 0 (copy 1): 0..=2
    // acknowledged, 3 still missing. One reduction, from the FlightSize at
    // the first duplicate ACK: ssthresh = cwnd = 10 / 2.
    s.on_packet(
        &ack_echo(3, &blocks_without(top, &[1, 2, 3]), 1),
        ms(120),
        &mut out,
    );
    assert_eq!(s.stats().fast_recoveries, 1);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.window().ssthresh, 5.0);
    assert_eq!(s.window().cwnd, 5.0);
    // The retransmission of 3 arrives, then everything else: no second
    // reduction, recovery ends at the recovery point (SND.NXT at the cut).
    s.on_packet(&ack_echo(top + 1, &[], 1), ms(130), &mut out);
    s.on_packet(&ack(nxt, &[]), ms(140), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.stats().fast_recoveries, 1);
    assert_eq!(s.stats().timeouts, 0);
}

#[test]
fn aix_winthresh_from_buffer_space_capped_at_two_send_windows() {
    // Receiver window 30, 20 segments out at the first dupack: the buffers
    // hold 30 - 20 = 10 more, below the bound 2 x 20 = 40.
    let mut s = sender_full("TCP-Aix", 20, Some(4), 30);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out).len(), 20);
    let mut fired = None;
    for k in 1..=20u32 {
        s.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), &mut out);
        assert_eq!(s.dupthresh(), 10, "held for the run at dupack {k}");
        if s.stats().fast_retransmits == 1 {
            fired = Some(k);
            break;
        }
    }
    assert_eq!(fired, Some(10));
    // The new segments filled the receiver window exactly.
    assert_eq!(s.scoreboard().nxt(), 30);
    // With room to spare the bound applies: min(1000 - 20, 2 x 20) = 40.
    let mut b = sender_full("TCP-Aix", 20, Some(4), 1000);
    b.start(0, &mut out);
    b.on_packet(&ack(0, &[(1, 2)]), ms(50), &mut out);
    assert_eq!(b.dupthresh(), 40);
    // A dupthresh given in the scenario replaces winthresh.
    let tcp = TcpSpec {
        initial_window: Some(20),
        dupthresh: Some(7),
        ..TcpSpec::default()
    };
    let cfg = variants::resolve("TCP-Aix", &tcp, 0).unwrap();
    let mut f = Sender::new(cfg, CongestionControl::by_name("cubic").unwrap(), 0, 1);
    f.start(0, &mut out);
    f.on_packet(&ack(0, &[(1, 2)]), ms(50), &mut out);
    assert_eq!(f.dupthresh(), 7);
}

// ----- RFC 2861 congestion window validation ----------------------------

fn finite_sender(variant: &str, iw: u32, ssthresh: u32, segments: u64) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        initial_ssthresh: Some(ssthresh),
        ..TcpSpec::default()
    };
    let cfg = variants::resolve(variant, &tcp, segments).unwrap();
    Sender::new(cfg, CongestionControl::by_name("reno").unwrap(), 0, 1)
}

#[test]
fn cwv_halves_cwnd_per_rto_of_idle_time() {
    for (variant, cwv) in [("SACK-CWV", true), ("SACK", false)] {
        let mut s = finite_sender(variant, 10, 4, 10);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(sent(&mut out).len(), 10);
        s.on_packet(&ack(10, &[]), ms(100), &mut out);
        assert!(s.is_done());
        let w0 = s.window();
        // RTO = 1 s (the minimum). Last send at 0, new data at 3.6 s: three
        // whole RTOs of idle time.
        let rto = s.rtt().rto();
        assert_eq!(rto, ms(1000));
        s.write(20, ms(3600), &mut out);
        if cwv {
            // RFC 2861: ssthresh = max(ssthresh, 3/4 cwnd); cwnd halved
            // once per RTO: cwnd / 2^3 (never below one segment).
            let expected = (w0.cwnd / 8.0).max(1.0);
            assert_eq!(s.window().cwnd, expected);
            assert_eq!(s.window().ssthresh, (0.75 * w0.cwnd).max(4.0));
            assert_eq!(sent(&mut out).len(), expected.floor() as usize);
            assert_eq!(s.stats().cwv_idle_halvings, 3);
        } else {
            assert_eq!(s.window(), w0);
            assert_eq!(sent(&mut out).len(), w0.cwnd.floor() as usize);
        }
    }
}

#[test]
fn cwv_decays_cwnd_during_an_application_limited_period() {
    let mut last = Vec::new();
    for (variant, cwv) in [("SACK-CWV", true), ("SACK", false)] {
        let mut s = finite_sender(variant, 20, 4, 20);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(sent(&mut out).len(), 20);
        // The window was full when the last of the 20 went: T_prev = 0.
        s.on_packet(&ack(20, &[]), ms(50), &mut out);
        let rto = ms(1000);
        let mut t_prev = 0;
        let mut decays = 0;
        let mut max_cwnd = s.window().cwnd;
        // The application writes one segment every 100 ms; each is
        // acknowledged 50 ms later: one segment in flight (W_used = 1).
        for i in 1..=35u64 {
            let now = ms(100 * i);
            let before = s.window();
            s.write(1, now, &mut out);
            assert_eq!(sent(&mut out), vec![19 + i as u32]);
            let after = s.window();
            if cwv && now - t_prev >= rto {
                // RFC 2861: cwnd = (cwnd + W_used) / 2, ssthresh = max(ssthresh, 3/4 cwnd).
                assert_eq!(after.cwnd, (before.cwnd + 1.0) / 2.0, "at {i}");
                assert_eq!(after.ssthresh, before.ssthresh.max(0.75 * before.cwnd));
                t_prev = now;
                decays += 1;
            } else {
                assert_eq!(after, before, "at {i}");
            }
            s.on_packet(&ack(20 + i as u32, &[]), now + ms(50), &mut out);
            max_cwnd = max_cwnd.max(s.window().cwnd);
        }
        if cwv {
            assert_eq!(decays, 3);
            assert_eq!(s.stats().cwv_app_limited_decays, 3);
        } else {
            assert_eq!(s.stats().cwv_app_limited_decays, 0);
        }
        last.push(s.window().cwnd);
    }
    // Between decays the window grows (slow start up to the saved
    // ssthresh): RFC 2861 only decays it.
    assert!(last[0] < last[1] - 5.0, "{last:?}");
}

#[test]
fn aix_decides_when_any_congestion_control_reduces() {
    for cc in ["reno", "cubic", "highspeed", "scalable", "bic"] {
        let (mut s, _, mut out) = aix_until_retransmission_with(cc);
        assert_eq!(s.stats().fast_recoveries, 0, "{cc}");
        let before = s.window();
        // The controller's own reduction for FlightSize 10 at the first
        // duplicate ACK, applied at the newACK.
        let mut probe = CongestionControl::by_name(cc).unwrap();
        let expected = probe.ssthresh_after_loss(&before, 10, ms(90));
        s.on_packet(&ack_echo(22, &[], 1), ms(90), &mut out);
        assert_eq!(s.stats().fast_recoveries, 1, "{cc}");
        assert_eq!(s.window().ssthresh, expected, "{cc}");
        assert!(s.window().cwnd < before.cwnd, "{cc}");
    }
}

// ----- seed 002: RTOR, TLP, RACK-TLP --------------------------------------

/// A 10-segment flow of `variant` (window 10) started at 0 without SYN.
fn tail_sender(variant: &str) -> (Sender, Vec<Packet>) {
    let mut s = finite_sender(variant, 10, 1000, 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out), (0..10).collect::<Vec<_>>());
    (s, out)
}

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

// ----- F-RTO (RFC 5682 Sec. 3) -------------------------------------------

/// Window 20 of a long transfer after one round trip (segments 10..29 out
/// at 100 ms, SRTT 100 ms), then nothing comes back: the timers fire (a
/// probe first where there is one) until the retransmission timeout.
/// Returns the sender at the timeout and the timeout's time.
fn stalled_until_timeout(variant: &str) -> (Sender, Vec<Packet>, Time) {
    let mut s = finite_sender(variant, 10, 1000, 1000);
    let mut out = Vec::new();
    s.start(0, &mut out);
    for a in 1..=10 {
        s.on_packet(&ack(a, &[]), ms(100), &mut out);
    }
    assert_eq!((s.window().cwnd, s.scoreboard().nxt()), (20.0, 30));
    sent(&mut out);
    loop {
        let (aux, rto) = (s.deadline(TimerKind::Aux), s.deadline(TimerKind::Rto));
        match (aux, rto) {
            (Some(a), Some(r)) if r <= a => {
                sent(&mut out);
                s.on_timer(TimerKind::Rto, r, &mut out);
                return (s, out, r);
            }
            (Some(a), _) => s.on_timer(TimerKind::Aux, a, &mut out),
            (None, Some(r)) => {
                sent(&mut out);
                s.on_timer(TimerKind::Rto, r, &mut out);
                return (s, out, r);
            }
            (None, None) => panic!("{variant}: no timer"),
        }
    }
}

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
    // ssthresh 1000 as before the timeout, nothing lost any more.
    s.on_packet(&ack(12, &[]), t + ms(50), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!((s.window().cwnd, s.window().ssthresh), (20.0, 1000.0));
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
