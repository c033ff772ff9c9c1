//! Scripted ACK sequences following RFC 9002 Appendix A: loss by packet
//! threshold, by time threshold, the probe timeout and its backoff,
//! persistent congestion. Each fails when the constant it exercises
//! changes.

use super::ack::AckFrame;
use super::congestion::{
    in_persistent_congestion, initial_window_bytes, persistent_congestion_duration, Congestion,
    LOSS_REDUCTION_FACTOR, MINIMUM_WINDOW,
};
use super::loss::{Expiry, LossDetection, SentPacket, Thresholds, GRANULARITY, PACKET_THRESHOLD};
use super::rtt::INITIAL_RTT;
use crate::engine::time::ms;
use crate::engine::Time;
use crate::tcp::cc::CongestionControl;

const MAD: Time = ms(25);

fn sent(pn: u64, at: Time) -> SentPacket {
    SentPacket {
        pn,
        time_sent: at,
        size: 1000,
        chunk: pn as u32,
    }
}

fn ack(ranges: &[(u64, u64)], delay: Time) -> AckFrame {
    AckFrame {
        largest: ranges[0].1,
        ack_delay: delay,
        ranges: ranges.to_vec(),
    }
}

fn lost(ld: &LossDetection) -> Vec<u64> {
    ld.out.lost.iter().map(|p| p.pn).collect()
}

/// Packets 0..n sent 1 ms apart from t = 0.
fn sender(n: u64) -> LossDetection {
    let mut ld = LossDetection::new(Thresholds::default(), MAD);
    for pn in 0..n {
        ld.on_packet_sent(sent(pn, ms(pn)));
    }
    ld
}

#[test]
fn packet_threshold_declares_packets_three_below_an_acked_one() {
    let mut ld = sender(10);
    // ACK of 0 at 100 ms: the RTT sample (100 ms, no loss yet)
    ld.on_ack(&ack(&[(0, 0)], 0), ms(100));
    assert_eq!(ld.rtt.smoothed, ms(100));
    assert!(lost(&ld).is_empty());
    // 5 acknowledged, 1..=4 not: 5 >= pn + kPacketThreshold for pn <= 2
    ld.on_ack(&ack(&[(5, 5), (0, 0)], 0), ms(105));
    assert_eq!(lost(&ld), (1..=5 - PACKET_THRESHOLD).collect::<Vec<_>>());
    assert_eq!(lost(&ld), vec![1, 2]);
    // 3 and 4 wait for the time threshold: 9/8 x 100 ms after their sending
    assert_eq!(ld.loss_time, Some(ms(3) + ms(100) * 9 / 8));
    assert_eq!(ld.timer(), ld.loss_time);
    assert_eq!(ld.bytes_in_flight, 6 * 1000);
}

#[test]
fn time_threshold_declares_on_the_timer_at_nine_eighths_rtt() {
    let mut ld = sender(2);
    // 1 acknowledged at 100 ms: RTT 99 ms; 0 is within the threshold
    ld.on_ack(&ack(&[(1, 1)], 0), ms(100));
    assert!(lost(&ld).is_empty());
    let delay = ms(99) * 9 / 8;
    assert_eq!(ld.loss_delay(), delay);
    assert_eq!(ld.timer(), Some(delay));
    // the timer fires: a loss, not a probe timeout
    assert_eq!(ld.on_timeout(delay), Expiry::Loss);
    assert_eq!(lost(&ld), vec![0]);
    assert_eq!(ld.pto_count, 0);
    // nothing outstanding: no timer
    assert_eq!(ld.timer(), None);
}

#[test]
fn the_loss_delay_is_at_least_the_granularity_and_uses_latest_rtt() {
    let mut ld = sender(1);
    ld.on_ack(&ack(&[(0, 0)], 0), ms(0) + GRANULARITY / 4);
    assert_eq!(ld.loss_delay(), GRANULARITY);
    // a latest RTT above the smoothed one sets the threshold
    ld.on_packet_sent(sent(1, ms(1)));
    ld.on_ack(&ack(&[(0, 1)], 0), ms(81));
    assert!(ld.rtt.latest > ld.rtt.smoothed);
    assert_eq!(ld.loss_delay(), ms(80) * 9 / 8);
}

#[test]
fn probe_timeout_fires_after_srtt_plus_four_rttvar_plus_max_ack_delay_and_backs_off() {
    let mut ld = sender(1);
    // no RTT sample: kInitialRtt 333 ms, rttvar 166.5 ms
    let pto = INITIAL_RTT + 4 * (INITIAL_RTT / 2) + MAD;
    assert_eq!(ld.timer(), Some(pto));
    assert_eq!(ld.on_timeout(pto), Expiry::Probe);
    assert_eq!(ld.pto_count, 1);
    // backoff: twice the period from the last ack-eliciting packet
    ld.on_packet_sent(sent(1, pto));
    assert_eq!(ld.timer(), Some(pto + 2 * pto));
    assert_eq!(ld.on_timeout(3 * pto), Expiry::Probe);
    assert_eq!(ld.pto(), 4 * pto);
    // an ACK resets the count (A.7)
    ld.on_ack(&ack(&[(1, 1)], 0), 3 * pto + ms(10));
    assert_eq!(ld.pto_count, 0);
    // 0 was sent long before: lost by time
    assert_eq!(lost(&ld), vec![0]);
}

#[test]
fn a_late_ack_of_a_lost_packet_is_reported_spurious() {
    let mut ld = sender(6);
    ld.on_ack(&ack(&[(5, 5)], 0), ms(50));
    assert_eq!(lost(&ld), vec![0, 1, 2]);
    ld.on_ack(&ack(&[(5, 5), (0, 1)], 0), ms(51));
    let sp: Vec<(u64, u64)> = ld
        .out
        .spurious
        .iter()
        .map(|l| (l.pn, l.displacement))
        .collect();
    assert_eq!(sp, vec![(0, 5), (1, 4)]);
    assert!(ld.out.acked.is_empty());
}

#[test]
fn a_congestion_event_halves_the_window_once_per_recovery_period() {
    let mds = 1200;
    let mut c = Congestion::new(CongestionControl::by_name("reno").unwrap(), mds);
    let iw = initial_window_bytes(mds) as f64 / mds as f64;
    assert_eq!(iw, 10.0);
    assert_eq!(initial_window_bytes(1500), 14_720);
    c.on_congestion_event(ms(10), 3, ms(100));
    assert_eq!(c.w.cwnd, iw * LOSS_REDUCTION_FACTOR);
    assert_eq!(c.w.ssthresh, 5.0);
    // a loss of a packet sent before the period began: no second cut
    c.on_congestion_event(ms(99), 4, ms(120));
    assert_eq!(c.w.cwnd, 5.0);
    // packets sent before the period do not grow the window
    c.on_acked(&[sent(5, ms(50))], ms(130), ms(100));
    assert_eq!(c.w.cwnd, 5.0);
    // after: congestion avoidance, one packet per window
    c.on_acked(&[sent(6, ms(110))], ms(140), ms(100));
    assert!((c.w.cwnd - 5.2).abs() < 1e-9, "{}", c.w.cwnd);
    c.on_congestion_event(ms(130), 7, ms(150));
    assert!((c.w.cwnd - 2.6).abs() < 1e-9);
    c.on_congestion_event(ms(151), 8, ms(160));
    assert_eq!(c.w.cwnd, MINIMUM_WINDOW);
}

#[test]
fn persistent_congestion_needs_a_span_over_three_ptos_after_a_sample() {
    let mut ld = sender(1);
    ld.on_ack(&ack(&[(0, 0)], 0), ms(100));
    let d = persistent_congestion_duration(&ld.rtt, MAD);
    // srtt 100, rttvar 50: (100 + 200 + 25) x 3
    assert_eq!(d, ms(975));
    let first = ld.rtt.first_sample_at;
    let batch = |gap: Time| [sent(1, ms(101)), sent(2, ms(101) + gap)];
    assert!(in_persistent_congestion(&batch(ms(976)), first, d));
    assert!(!in_persistent_congestion(&batch(ms(975)), first, d));
    // a packet between them acknowledged (not in the batch): no
    let split = [sent(1, ms(101)), sent(3, ms(2000))];
    assert!(!in_persistent_congestion(&split, first, d));
    // sent before the first RTT sample: no
    assert!(!in_persistent_congestion(
        &[sent(1, 0), sent(2, ms(2000))],
        Some(ms(1)),
        d
    ));
    assert!(!in_persistent_congestion(&batch(ms(976)), None, d));
    let mut c = Congestion::new(CongestionControl::by_name("reno").unwrap(), 1000);
    c.on_congestion_event(ms(2000), 1, ms(2100));
    c.on_persistent_congestion(ms(2100));
    assert_eq!((c.w.cwnd, c.recovery_start), (MINIMUM_WINDOW, None));
}

#[test]
fn adaptive_variants_raise_their_thresholds_on_a_late_ack() {
    use super::adapt::{on_spurious, LateAck, QUICHE_REORDER_TIME_THRESHOLD};
    use super::config::Adapt;
    use super::variants::QUICHE_MAX_PACKET_THRESHOLD;
    let run = |adapt: Adapt| {
        let mut ld = sender(12);
        ld.on_ack(&ack(&[(10, 10)], 0), ms(50));
        assert_eq!(lost(&ld), (0..=7).collect::<Vec<_>>());
        // 11 and the lost 2 acknowledged: 2 was declared 8 below 10
        ld.on_packet_sent(sent(12, ms(51)));
        ld.on_ack(&ack(&[(11, 11), (10, 10), (2, 2)], 0), ms(52));
        let spurious = ld.out.spurious.clone();
        assert_eq!(
            spurious
                .iter()
                .map(|l| (l.pn, l.displacement))
                .collect::<Vec<_>>(),
            vec![(2, 8)]
        );
        let late = LateAck {
            largest: 11,
            ack_delay: 0,
        };
        on_spurious(adapt, &mut ld, &spurious, late, ms(52));
        ld.thresholds
    };
    assert_eq!(run(Adapt::Fixed), Thresholds::default());
    // quinn PR 2713: the displacement when declared (8) + 1
    assert_eq!(run(Adapt::Quinn { max: u64::MAX }).packet, 9);
    // quiche: the largest acknowledged now (11) - 2 + 1 = 10, time 5/4
    let q = run(Adapt::Quiche {
        max: QUICHE_MAX_PACKET_THRESHOLD,
    });
    assert_eq!((q.packet, q.time), (10, QUICHE_REORDER_TIME_THRESHOLD));
    assert_eq!(QUICHE_REORDER_TIME_THRESHOLD, (5, 4));
    // capped at quiche's 20
    assert_eq!(QUICHE_MAX_PACKET_THRESHOLD, 20);
    assert_eq!(run(Adapt::Quiche { max: 4 }).packet, 4);
}

#[test]
fn quic_go_5734_raises_the_threshold_and_a_time_cushion_on_an_in_order_ack() {
    use super::adapt::{on_spurious, LateAck};
    use super::config::Adapt;
    use super::variants::QUICGO_MAX_PACKET_THRESHOLD;
    assert_eq!(QUICGO_MAX_PACKET_THRESHOLD, 64);
    let run = |max: u64, largest: u64, ack_delay: Time| {
        let mut ld = sender(12);
        // RTT 50 ms from packet 0; 10 acknowledged at 60 ms declares 1..=7
        ld.on_ack(&ack(&[(0, 0)], 0), ms(50));
        ld.on_ack(&ack(&[(10, 10), (0, 0)], 0), ms(60));
        assert_eq!(lost(&ld), (1..=7).collect::<Vec<_>>());
        // 12 (sent at 52 ms) and the lost 2 acknowledged at 100 ms
        ld.on_packet_sent(sent(12, ms(52)));
        let frame = ack(&[(12, 12), (10, 10), (2, 2), (0, 0)], ack_delay);
        ld.on_ack(&frame, ms(100));
        let spurious = ld.out.spurious.clone();
        assert_eq!(spurious.iter().map(|l| l.pn).collect::<Vec<_>>(), vec![2]);
        let late = LateAck { largest, ack_delay };
        on_spurious(Adapt::QuicGo { max }, &mut ld, &spurious, late, ms(100));
        (ld.thresholds, ld.rtt.smoothed, ld.time_threshold_delay())
    };
    // packet reordering 12 - 2 = 10: threshold 11
    let (t, srtt, delay) = run(64, 12, 0);
    assert_eq!(t.packet, 11);
    // time reordering: 100 ms - 2 ms (sent) = 98 ms, beyond 9/8 x
    // max(srtt, latest) (about 56 ms), below srtt (about 50 ms)
    assert_eq!(t.cushion, ms(98) - delay);
    assert!(t.cushion > 0 && t.cushion < srtt);
    assert_eq!(t.time, (9, 8));
    // the ACK delay, capped at max_ack_delay (25 ms), is taken off
    let (t2, _, delay2) = run(64, 12, ms(100));
    assert_eq!(t2.cushion, (ms(98 - 25) - delay2).min(srtt));
    // capped at max
    assert_eq!(run(4, 12, 0).0.packet, 4);
    // an ACK whose largest is not the largest acknowledged changes nothing
    assert_eq!(run(64, 10, 0).0, Thresholds::default());
}
