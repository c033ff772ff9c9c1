//! Delivery-rate estimation (`tcp/rate.rs`): each rule of tcp_rate.c on a
//! hand-made flight.

use super::*;
use crate::engine::time::ms;

/// Send `n` segments from `first`, `gap` apart from `t0`, counting the
/// outstanding ones as a sender would.
fn send(r: &mut DeliveryRate, first: u32, n: u32, t0: Time, gap: Time, out: &mut u32) {
    for k in 0..n {
        r.on_sent(first + k, t0 + k as Time * gap, *out);
        *out += 1;
    }
}

/// One ACK delivering `segs` (sent at `sent[i]`), cumulatively.
fn ack(r: &mut DeliveryRate, now: Time, segs: &[(u32, Time)], out: &mut u32) -> RateSample {
    r.begin_ack(*out);
    for &(s, at) in segs {
        r.on_delivered(s, at, false, false);
    }
    *out -= segs.len() as u32;
    let rs = *r.finish_ack(now, segs.len() as u32, 0);
    r.release_below(segs.last().map_or(0, |&(s, _)| s + 1));
    rs
}

/// The first ACK of a flight sent at once: the interval is the ACK phase,
/// from the flight's start (`delivered_mstamp` reset when nothing was
/// outstanding) to the ACK: 1 segment in 100 ms.
#[test]
fn the_first_sample_spans_send_to_ack() {
    let mut r = DeliveryRate::new();
    let mut out = 0;
    send(&mut r, 0, 4, ms(10), 0, &mut out);
    let rs = ack(&mut r, ms(110), &[(0, ms(10))], &mut out);
    assert_eq!(rs.delivered, Some(1));
    assert_eq!(rs.interval, Some(ms(100)));
    assert_eq!(rs.rtt, Some(ms(100)));
    assert_eq!(r.min_rtt(), Some(ms(100)));
    assert!((rs.bw().unwrap() - 10.0).abs() < 1e-9);
}

/// Steady state: segments sent 10 ms apart and acknowledged 10 ms apart,
/// 100 ms later. A sample covers the segments delivered since the
/// acknowledged one was sent: 10 segments over 100 ms, 100 segments/s.
#[test]
fn a_steady_flow_measures_its_rate() {
    let mut r = DeliveryRate::new();
    let mut out = 0;
    let mut last = RateSample::default();
    for k in 0..30u32 {
        let now = k as Time * ms(10);
        if k >= 10 {
            last = ack(&mut r, now, &[(k - 10, now - ms(100))], &mut out);
        }
        send(&mut r, k, 1, now, 0, &mut out);
    }
    assert_eq!(last.delivered, Some(10));
    assert_eq!(last.interval, Some(ms(100)));
    assert!((last.bw().unwrap() - 100.0).abs() < 1e-9);
    assert!((r.delivery_rate() - 100.0).abs() < 1e-9);
}

/// ACK compression: a segment whose ACK comes back faster than the one
/// delivered before it was sent (RTT 30 ms after 100 ms) would show an ACK
/// phase (30 ms since that delivery) shorter than its send phase (100 ms
/// since the delivered segment was sent); the longer one is used, so the
/// rate is not overestimated.
#[test]
fn compressed_acks_use_the_send_phase() {
    let mut r = DeliveryRate::new();
    r.on_sent(0, 0, 0);
    r.on_sent(1, ms(50), 1);
    r.begin_ack(2);
    r.on_delivered(0, 0, false, false);
    r.finish_ack(ms(100), 1, 0);
    r.on_sent(2, ms(100), 1);
    r.begin_ack(2);
    r.on_delivered(1, ms(50), false, false);
    r.finish_ack(ms(120), 1, 0);
    r.begin_ack(1);
    r.on_delivered(2, ms(100), false, false);
    let rs = *r.finish_ack(ms(130), 1, 0);
    assert_eq!(rs.prior_delivered, 1);
    assert_eq!(rs.delivered, Some(2));
    assert_eq!(rs.snd_interval, ms(100));
    assert_eq!(rs.rcv_interval, ms(30));
    assert_eq!(rs.interval, Some(ms(100)));
    assert_eq!(rs.rtt, Some(ms(30)));
    assert_eq!(r.min_rtt(), Some(ms(30)));
}

/// Of the segments an ACK delivers, the record of the most recently sent
/// (the highest `delivered` at its send) makes the sample.
#[test]
fn the_latest_sent_record_makes_the_sample() {
    let mut r = DeliveryRate::new();
    r.on_sent(0, 0, 0);
    r.begin_ack(1);
    r.on_delivered(0, 0, false, false);
    r.finish_ack(ms(100), 1, 0);
    r.on_sent(1, ms(100), 0);
    r.on_sent(2, ms(105), 1);
    r.begin_ack(2);
    r.on_delivered(1, ms(100), false, false);
    r.finish_ack(ms(200), 1, 0);
    r.on_sent(3, ms(200), 1);
    // 2 and 3 delivered together: 3 was sent after 1 was delivered
    r.begin_ack(2);
    r.on_delivered(2, ms(105), false, false);
    r.on_delivered(3, ms(200), false, false);
    let rs = *r.finish_ack(ms(300), 2, 0);
    assert_eq!(rs.prior_delivered, 2);
    assert_eq!(rs.prior_at, ms(200));
    assert_eq!(rs.delivered, Some(2));
    assert_eq!(rs.interval, Some(ms(100)));
}

/// A SACKed segment's record is spent: when the cumulative ACK covers it
/// later it gives no second sample.
#[test]
fn a_sacked_segment_counts_once() {
    let mut r = DeliveryRate::new();
    let mut out = 0;
    send(&mut r, 0, 3, 0, ms(1), &mut out);
    r.begin_ack(3);
    r.on_delivered(2, ms(2), false, true);
    let rs = *r.finish_ack(ms(100), 1, 0);
    assert_eq!(rs.delivered, Some(1));
    r.begin_ack(2);
    r.on_delivered(2, ms(2), false, false);
    let rs = *r.finish_ack(ms(101), 0, 0);
    assert_eq!(rs.delivered, None, "no record left: an invalid sample");
}

/// A sample whose interval is shorter than the min RTT is invalid
/// (`tcp_rate_gen`: "Normally we expect interval_us >= min-rtt").
#[test]
fn an_interval_below_min_rtt_is_invalid() {
    let mut r = DeliveryRate::new();
    let mut out = 0;
    send(&mut r, 0, 1, 0, 0, &mut out);
    ack(&mut r, ms(100), &[(0, 0)], &mut out);
    // a retransmission-free segment sent at 100 ms, but the record says
    // the flight began at 100 ms and the last delivery was at 100 ms:
    // ACKed at 150 ms, 50 ms < min RTT 100 ms is not possible for a
    // fresh send, so fake an early ACK: the interval 50 ms is refused
    send(&mut r, 1, 1, ms(100), 0, &mut out);
    r.begin_ack(1);
    r.on_delivered(1, ms(100), true, false);
    let rs = *r.finish_ack(ms(150), 1, 0);
    assert_eq!(rs.interval, None);
    assert_eq!(rs.delivered, Some(1));
    assert_eq!(rs.rtt, None, "Karn: a retransmitted segment gives no RTT");
}

/// `tcp_rate_check_app_limited` marks the samples of what is in flight as
/// application-limited; the mark clears once that is delivered.
#[test]
fn the_app_limited_bubble_clears_when_delivered() {
    let mut r = DeliveryRate::new();
    let mut out = 0;
    send(&mut r, 0, 2, 0, 0, &mut out);
    r.check_app_limited(true, false, false, 2);
    assert_eq!(r.app_limited, 2);
    send(&mut r, 2, 1, ms(1), 0, &mut out);
    let a = ack(&mut r, ms(100), &[(0, 0), (1, 0)], &mut out);
    assert!(!a.is_app_limited, "sent before the mark");
    assert_eq!(r.app_limited, 2, "not past the bubble yet");
    let b = ack(&mut r, ms(101), &[(2, ms(1))], &mut out);
    assert!(b.is_app_limited, "sent while application-limited");
    assert_eq!(r.app_limited, 0, "delivered 3 > 2: cleared");
    // cwnd-limited or with losses to resend: not application-limited
    r.check_app_limited(true, true, false, 0);
    r.check_app_limited(true, false, true, 0);
    r.check_app_limited(false, false, false, 0);
    assert_eq!(r.app_limited, 0);
}

#[test]
fn losses_and_deliveries_accumulate() {
    let mut r = DeliveryRate::new();
    let mut out = 0;
    send(&mut r, 0, 4, 0, 0, &mut out);
    r.begin_ack(4);
    r.on_delivered(3, 0, false, true);
    let rs = *r.finish_ack(ms(50), 1, 2);
    assert_eq!((rs.acked_sacked, rs.losses, rs.prior_in_flight), (1, 2, 4));
    assert_eq!((r.delivered, r.lost), (1, 2));
}
