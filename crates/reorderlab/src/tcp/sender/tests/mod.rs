//! The sender driven by hand-made ACK sequences: no network involved.
//! Shared helpers here; the tests by subject in the files beside.

mod aix_cwv;
mod frto;
mod kernel;
mod ncr;
mod recovery;
mod tail;

use super::*;
use crate::engine::time::ms;
use crate::net::packet::SackBlocks;
use crate::spec::TcpSpec;
use crate::tcp::variants;

pub(super) fn sender(variant: &str, iw: u32) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        ..TcpSpec::default()
    };
    sender_from(variant, &tcp)
}

/// A Reno sender of `variant` with the scenario's `tcp` overrides.
pub(super) fn sender_from(variant: &str, tcp: &TcpSpec) -> Sender {
    let cfg = variants::resolve(variant, tcp, 0).unwrap();
    Sender::new(cfg, CongestionControl::by_name("reno").unwrap(), 0, 1)
}

pub(super) fn ack(cum: u32, sack: &[(u32, u32)]) -> Packet {
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
pub(super) fn sent(out: &mut Vec<Packet>) -> Vec<u32> {
    out.drain(..).map(|p| p.seq).collect()
}

/// Ten segments out, segment 0 delayed: 1, 2, 3 arrive (limited transmit,
/// then a fast retransmit of 0 at the third duplicate ACK).
pub(super) fn delayed_first_segment(variant: &str) -> (Sender, Vec<Packet>) {
    delayed_first_segment_of(sender(variant, 10))
}

/// [`delayed_first_segment`] with a sender of one's own (initial window 10).
pub(super) fn delayed_first_segment_of(mut s: Sender) -> (Sender, Vec<Packet>) {
    let mut out = Vec::new();
    s.start(0, &mut out);
    for k in 2..=4 {
        s.on_packet(&ack(0, &[(1, k)]), ms(50), &mut out);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    (s, out)
}

pub(super) fn sender_with(variant: &str, iw: u32, ssthresh: Option<u32>) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        initial_ssthresh: ssthresh,
        ..TcpSpec::default()
    };
    sender_from(variant, &tcp)
}

/// A full window of `iw` out, segment 0 missing; `n` duplicate ACKs SACK
/// 1..=n one at a time. Returns the new segments each duplicate ACK sent.
pub(super) fn ncr_dupacks(s: &mut Sender, n: u32, out: &mut Vec<Packet>) -> Vec<Vec<u32>> {
    (1..=n)
        .map(|k| {
            s.on_packet(&ack(0, &[(1, k + 1)]), ms(50 + k as u64), out);
            sent(out)
        })
        .collect()
}

pub(super) fn sender_full(
    variant: &str,
    iw: u32,
    ssthresh: Option<u32>,
    max_window: u32,
) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        initial_ssthresh: ssthresh,
        max_window: Some(max_window),
        ..TcpSpec::default()
    };
    sender_from(variant, &tcp)
}

/// An ACK echoing transmission `copy` of the segment that triggered it.
pub(super) fn ack_echo(cum: u32, sack: &[(u32, u32)], copy: u16) -> Packet {
    let mut p = ack(cum, sack);
    p.copy = copy;
    p
}

/// SACK blocks (most recent first) for the segments `1..=top` except
/// `missing`.
pub(super) fn blocks_without(top: u32, missing: &[u32]) -> Vec<(u32, u32)> {
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
pub(super) fn aix_until_retransmission() -> (Sender, u32, Vec<Packet>) {
    aix_until_retransmission_with("reno")
}

pub(super) fn aix_until_retransmission_with(cc: &str) -> (Sender, u32, Vec<Packet>) {
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

pub(super) fn finite_sender(variant: &str, iw: u32, ssthresh: u32, segments: u64) -> Sender {
    let tcp = TcpSpec {
        initial_window: Some(iw),
        initial_ssthresh: Some(ssthresh),
        ..TcpSpec::default()
    };
    let cfg = variants::resolve(variant, &tcp, segments).unwrap();
    Sender::new(cfg, CongestionControl::by_name("reno").unwrap(), 0, 1)
}

/// A 10-segment flow of `variant` (window 10) started at 0 without SYN.
pub(super) fn tail_sender(variant: &str) -> (Sender, Vec<Packet>) {
    let mut s = finite_sender(variant, 10, 1000, 10);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(sent(&mut out), (0..10).collect::<Vec<_>>());
    (s, out)
}

/// Window 20 of a long transfer after one round trip (segments 10..29 out
/// at 100 ms, SRTT 100 ms), then nothing comes back: the timers fire (a
/// probe first where there is one) until the retransmission timeout.
/// Returns the sender at the timeout and the timeout's time.
pub(super) fn stalled_until_timeout(variant: &str) -> (Sender, Vec<Packet>, Time) {
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
