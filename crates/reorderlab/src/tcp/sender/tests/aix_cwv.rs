//! TCP-Aix (wwan Sec. II) and RFC 2861 congestion window validation.

use super::*;

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
