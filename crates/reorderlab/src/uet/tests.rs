//! The UET sender and receiver on scripted packet sequences: each test
//! fails when one of uet-htsim's constants (`config.rs`) changes.

use super::ack::{AckSlab, UetAck};
use super::config::*;
use super::receiver::UetReceiver;
use super::sender::UetSender;
use crate::engine::time::secs;
use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind};

const US: Time = 1000;

/// A sender of `segments` packets with a window of `window` packets
/// (its cap and start) and a base RTT of 10 us.
fn sender(window: u64, segments: Option<u64>) -> UetSender {
    let cfg = UetConfig {
        max_window: window * 1500,
        network_rtt: Some(10 * US),
        target_qdelay: 5 * US,
        segments,
        ..Default::default()
    };
    UetSender::new(cfg, 0, 1)
}

fn data_sent(out: &[Packet]) -> Vec<(u32, u16)> {
    (out.iter().filter(|p| p.is_data()))
        .map(|p| (p.seq, p.copy))
        .collect()
}

fn ack(cack: u32, ooo: u32) -> UetAck {
    UetAck {
        cack,
        ref_psn: cack.saturating_sub(1),
        base: cack,
        ooo,
        ..Default::default()
    }
}

#[test]
fn sleek_waits_for_one_and_a_half_windows_out_of_order() {
    let mut s = sender(40, None);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(out.len(), 40);
    // 1.5 x 40 = 60 packets (below the 40-packet cap? no: min(1.5 cwnd,
    // max window) = 40, and at least 5)
    assert_eq!(s.sleek_threshold(), 40);
    out.clear();
    s.on_ack(&ack(0, 39), 20 * US, &mut out);
    assert!(
        data_sent(&out).iter().all(|&(_, c)| c == 0),
        "below: no loss"
    );
    out.clear();
    s.on_ack(&ack(0, 40), 21 * US, &mut out);
    let rexmit: Vec<_> = data_sent(&out)
        .into_iter()
        .filter(|&(_, c)| c > 0)
        .collect();
    assert_eq!(
        rexmit.first(),
        Some(&(0, 1)),
        "PSN 0 is lost at 40 out of order"
    );
    assert!(s.recovery && s.stats.loss_recoveries == 1);
}

#[test]
fn sleek_threshold_is_one_and_a_half_cwnd_under_the_cap_and_at_least_five() {
    let mut s = sender(100, None);
    let mut out = Vec::new();
    s.start(0, &mut out);
    // a marked ACK of 60 packets: cwnd 100 - 60/3 = 80 packets
    let mut a = ack(60, 0);
    a.ece = true;
    s.on_ack(&a, 20 * US, &mut out);
    assert!((s.cwnd - 80.0 * 1500.0).abs() < 1e-6, "{}", s.cwnd);
    assert_eq!(s.sleek_threshold(), 100, "min(1.5 x 80, 100)");
    let mut wide = sender(1000, None);
    wide.set_window_for_test(40.0 * 1500.0);
    assert_eq!(wide.sleek_threshold(), 60, "1.5 x 40 under the cap");
    let mut tiny = sender(2, None);
    tiny.start(0, &mut out);
    assert_eq!(tiny.sleek_threshold(), MIN_RETX_PACKETS);
}

#[test]
fn an_unmarked_ack_grows_the_window_by_one_mtu_per_window() {
    let mut s = sender(1000, None);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.set_window_for_test(10.0 * 1500.0);
    s.on_ack(&ack(10, 0), 20 * US, &mut out);
    // + acked x MTU / cwnd: 10 packets acked at a 10-packet window
    assert!((s.cwnd / 1500.0 - 11.0).abs() < 1e-9, "{}", s.cwnd / 1500.0);
}

#[test]
fn a_nack_retransmits_its_psn_at_once_and_takes_it_off_the_window() {
    let mut s = sender(10, Some(5));
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(out.len(), 5);
    out.clear();
    // the receiver NACKs PSN 3's trimmed header
    let mut r = UetReceiver::new(&s.cfg, 0, 0, 0);
    let mut slab = AckSlab::default();
    let mut nacks = Vec::new();
    r.on_trimmed(3, 5 * US, &mut slab, &mut nacks);
    assert_eq!(nacks.len(), 1);
    assert_eq!(nacks[0].kind, PacketKind::Ack);
    let frame = slab.take(nacks[0].seq);
    assert!(frame.nack && frame.ref_psn == 3);
    s.on_ack(&frame, 6 * US, &mut out);
    // window 10 - 1 MTU = 9, PSN 3 out of flight: 4 in flight, room for it
    assert_eq!(data_sent(&out), vec![(3, 1)]);
    assert!(
        out[0].immediate,
        "a retransmission asks for an immediate ACK"
    );
    assert_eq!(s.stats.nack_retransmits, 1);
    assert!((s.cwnd / 1500.0 - 9.0).abs() < 1e-9);
}

#[test]
fn probes_follow_three_base_rtts_then_five_and_a_quick_answer_starts_recovery() {
    let mut s = sender(4, None);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_ack(&ack(1, 0), 20 * US, &mut out);
    // data left to send: 3 base RTTs after the ACK
    assert_eq!(
        s.deadline(TimerKind::Aux),
        Some(20 * US + PROBE_FIRST_RTTS * 10 * US)
    );
    out.clear();
    let t = 50 * US;
    s.on_timer(TimerKind::Aux, t, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(
        (out[0].kind, out[0].size as u32),
        (PacketKind::Syn, HEADER_BYTES)
    );
    assert_eq!(
        s.deadline(TimerKind::Aux),
        Some(t + PROBE_RETRY_RTTS * 10 * US)
    );
    // its answer after 12 us (2 us queued, under the 5 us target): the
    // unacknowledged PSNs are lost
    let mut a = ack(1, 0);
    a.probe = true;
    a.ref_psn = 1;
    out.clear();
    s.on_ack(&a, t + 12 * US, &mut out);
    assert_eq!(s.stats.probe_recoveries, 1);
    let rexmit: Vec<_> = data_sent(&out)
        .into_iter()
        .filter(|&(_, c)| c > 0)
        .collect();
    assert_eq!(rexmit, vec![(1, 1), (2, 1), (3, 1), (4, 1)]);
}

#[test]
fn the_last_packet_acked_arms_a_probe_after_base_rtt_plus_target() {
    let mut s = sender(4, Some(4));
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_ack(&ack(2, 0), 20 * US, &mut out);
    assert_eq!(s.deadline(TimerKind::Aux), Some(20 * US + 10 * US + 5 * US));
    s.on_ack(&ack(4, 0), 21 * US, &mut out);
    assert!(s.is_done());
    assert_eq!(s.deadline(TimerKind::Aux), None);
    assert_eq!(s.deadline(TimerKind::Rto), None);
}

#[test]
fn the_rto_is_fixed_from_the_oldest_send_time() {
    let mut s = sender(2, None);
    let mut out = Vec::new();
    s.start(7 * US, &mut out);
    assert_eq!(s.deadline(TimerKind::Rto), Some(7 * US + RTO));
    assert_eq!(RTO, secs(100e-6));
    out.clear();
    s.on_timer(TimerKind::Rto, 7 * US + RTO, &mut out);
    assert_eq!(data_sent(&out), vec![(0, 1)]);
    // no backoff: the next one from PSN 1's send time
    assert_eq!(s.deadline(TimerKind::Rto), Some(7 * US + RTO));
}

fn data(psn: u32, ce: bool, ar: bool) -> Packet {
    let mut p = Packet::data(0, 1, 1500, psn, 0, 0);
    if ce {
        p.marks.set_ce();
    }
    p.immediate = ar;
    p
}

#[test]
fn the_receiver_acks_every_16_kib_and_at_once_on_ce_and_duplicates() {
    let cfg = UetConfig::default();
    let mut r = UetReceiver::new(&cfg, 0, 0, 0);
    let mut slab = AckSlab::default();
    let mut out = Vec::new();
    r.on_data(&data(0, false, false), 0, &mut slab, &mut out);
    assert_eq!(out.len(), 1, "the first packet");
    out.clear();
    // 1500-byte packets: the 11th reaches 16384 bytes
    let per_ack = ACK_BYTES.div_ceil(1500) as u32;
    assert_eq!(per_ack, 11);
    for psn in 1..=per_ack {
        r.on_data(&data(psn, false, false), 0, &mut slab, &mut out);
        assert_eq!(out.len(), (psn == per_ack) as usize, "PSN {psn}");
    }
    out.clear();
    r.on_data(&data(20, true, false), 0, &mut slab, &mut out);
    assert_eq!(out.len(), 1, "CE: at once");
    assert!(out[0].marks.ece());
    let f = slab.take(out[0].seq);
    assert_eq!((f.cack, f.ooo), (12, 1));
    assert!(f.covers(20) && !f.covers(19));
    out.clear();
    r.on_data(&data(5, false, false), 0, &mut slab, &mut out);
    assert_eq!(
        (out.len(), r.stats.duplicates),
        (1, 1),
        "a duplicate: at once"
    );
}

#[test]
fn an_ack_request_is_answered_at_once_and_again_when_the_holes_fill() {
    let cfg = UetConfig::default();
    let mut r = UetReceiver::new(&cfg, 0, 0, 0);
    let mut slab = AckSlab::default();
    let mut out = Vec::new();
    r.on_data(&data(0, false, false), 0, &mut slab, &mut out);
    out.clear();
    r.on_data(&data(2, false, true), 0, &mut slab, &mut out);
    assert_eq!(out.len(), 1);
    out.clear();
    r.on_data(&data(1, false, false), 0, &mut slab, &mut out);
    assert_eq!(
        out.len(),
        1,
        "out-of-order set drained after an ACK request"
    );
    let f = slab.take(out[0].seq);
    assert_eq!((f.cack, f.ooo), (3, 0));
}
