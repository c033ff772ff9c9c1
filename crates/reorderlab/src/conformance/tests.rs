use super::*;
use crate::conformance::info::{CA_DISORDER, CA_LOSS, CA_OPEN, CA_RECOVERY, INFINITE_SSTHRESH};

const MS: Time = 1_000_000;

fn scenario(variant: &str) -> String {
    format!(
        r#"{{"duration": 10,
            "topology": {{"kind": "chain", "bottleneck_rate": 1e9, "bottleneck_delay": 0.01}},
            "flows": [{{"src": "S1", "dst": "D", "variant": "{variant}", "cc": "cubic",
                       "tcp": {{"syn": true}}}}]}}"#
    )
}

/// Opened (passive: the SYN-ACK at 0), the handshake's ACK 100 ms later,
/// then `n` segments written.
fn established(n: u64) -> Harness {
    let mut h = Harness::from_json(&scenario("Linux"), true).expect("valid scenario");
    h.open();
    h.advance(100 * MS).unwrap();
    h.handshake_done();
    h.write(n);
    h
}

fn data(sent: &[Sent]) -> Vec<(Time, u32, u16)> {
    sent.iter()
        .filter(|s| s.kind == PacketKind::Data)
        .map(|s| (s.at, s.seq, s.copy))
        .collect()
}

#[test]
fn handshake_then_initial_window_at_once() {
    let mut h = established(20);
    let sent = h.take_sent();
    assert_eq!(sent[0].kind, PacketKind::Syn);
    assert_eq!(sent[0].at, 0);
    let d = data(&sent);
    assert_eq!(d.len(), 10, "initial window of 10: {d:?}");
    assert!(d.iter().all(|&(t, _, copy)| t == 100 * MS && copy == 0));
    let info = h.info();
    assert_eq!(info.ca_state, CA_OPEN);
    assert_eq!(info.snd_cwnd, 10);
    assert_eq!(info.snd_ssthresh, INFINITE_SSTHRESH);
    assert_eq!(info.unacked, 10);
}

#[test]
fn sacks_above_a_hole_start_recovery_with_a_retransmission() {
    let mut h = established(10);
    h.take_sent();
    h.advance(210 * MS).unwrap();
    for k in 2..=4 {
        h.ack(0, &[(1, k)], 0);
    }
    let d = data(&h.take_sent());
    assert_eq!(d.first().map(|&(_, s, c)| (s, c)), Some((0, 1)), "{d:?}");
    let info = h.info();
    assert_eq!(info.ca_state, CA_RECOVERY);
    assert_eq!(info.sacked, 3);
    assert_eq!(info.retrans, 1);
}

#[test]
fn a_sack_below_the_threshold_is_disorder() {
    let mut h = established(10);
    h.take_sent();
    h.advance(210 * MS).unwrap();
    h.ack(0, &[(1, 2)], 0);
    assert_eq!(h.info().ca_state, CA_DISORDER);
}

#[test]
fn advancing_fires_the_timers_in_time_order() {
    let mut h = established(2);
    h.take_sent();
    // Nothing acknowledged: the probe (TLP), then the RTO, then backoff.
    let first = h.next_deadline().expect("a timer is armed");
    assert!(first > 100 * MS);
    h.advance(first).unwrap();
    let probe = data(&h.take_sent());
    assert_eq!(probe.len(), 1, "one loss probe: {probe:?}");
    assert_eq!(probe[0].0, first);
    h.advance(5_000 * MS).unwrap();
    let later = data(&h.take_sent());
    assert!(!later.is_empty(), "the RTO retransmits");
    assert!(later.windows(2).all(|w| w[0].0 <= w[1].0));
    assert_eq!(h.info().ca_state, CA_LOSS);
    assert!(h.now() == 5_000 * MS);
}

#[test]
fn data_from_the_peer_is_acknowledged_by_the_receiver() {
    let mut h = Harness::from_json(&scenario("Linux"), true).unwrap();
    h.data(0, 7);
    h.data(2, 8);
    let sent = h.take_sent();
    let acks: Vec<_> = sent.iter().filter(|s| s.from == From::Receiver).collect();
    let last = acks.last().expect("an ACK for the out-of-order segment");
    assert_eq!(last.seq, 1);
    assert_eq!(last.sack, vec![(2, 3)]);
}

#[test]
fn a_bad_scenario_is_an_error_naming_the_field() {
    let err = Harness::from_json(&scenario("NoSuchVariant"), true).unwrap_err();
    assert!(err.to_string().contains("variant"), "{err}");
}

/// Recovery, then the full ACK of the flight echoing `tsecr`.
fn full_ack_after_recovery(timestamps: bool, tsecr: Time) -> Info {
    let mut h = Harness::from_json(&scenario("Linux"), timestamps).unwrap();
    h.open();
    h.advance(100 * MS).unwrap();
    h.handshake_done();
    h.write(10);
    h.advance(200 * MS).unwrap();
    for k in 2..=4 {
        h.ack(0, &[(1, k)], 0);
    }
    assert_eq!(h.info().ca_state, CA_RECOVERY);
    h.advance(210 * MS).unwrap();
    h.ack(10, &[], tsecr);
    h.info()
}

#[test]
fn without_timestamps_there_is_no_undo_by_timestamps() {
    // Fails on the harness that left the variant's undo by timestamps on:
    // the missing echo (0) looked older than the retransmission.
    let info = full_ack_after_recovery(false, 0);
    assert_eq!(info.snd_ssthresh, 7, "{info:?}");
    // With timestamps, an echo of the original (sent at 100 ms) undoes.
    let info = full_ack_after_recovery(true, 100 * MS);
    assert_eq!(info.snd_ssthresh, INFINITE_SSTHRESH, "{info:?}");
}

/// frto-spurious-undo (S2): ten segments out, a probe of new data (10),
/// the RTO's retransmission of 0; the first ACK covers 0..4, 1..4 sent
/// once. The kernel (`tcp_process_loss`: FLAG_ORIG_SACK_ACKED ->
/// `tcp_try_undo_loss`) undoes at once and, in the same ACK, grows the
/// restored window by the five delivered (`tcp_cong_control`): 15, nine
/// new segments. RACK marks none of 5..10 lost: its RTT is that of the
/// last segment processed (4, sent at 100 ms), not of the retransmission
/// (`tcp_rack_advance`).
#[test]
fn frto_undo_restores_the_window_then_grows_it() {
    let mut h = established(20);
    h.advance(800 * MS).unwrap();
    let before = data(&h.take_sent());
    assert_eq!(
        before.last().map(|&(_, s, c)| (s, c)),
        Some((0, 1)),
        "{before:?}"
    );
    h.ack(5, &[], 0);
    let after: Vec<(u32, u16)> = data(&h.take_sent())
        .iter()
        .map(|&(_, s, c)| (s, c))
        .collect();
    assert_eq!(after, (11..20).map(|s| (s, 0)).collect::<Vec<_>>());
    let info = h.info();
    assert_eq!((info.ca_state, info.snd_cwnd), (CA_OPEN, 15), "{info:?}");
    assert_eq!(info.snd_ssthresh, INFINITE_SSTHRESH);
}

/// dsack-undo-after-timeout (S6): one segment, probed (TLP) and
/// retransmitted by the RTO; the ACK, then a DSACK of each copy. The
/// kernel counts both copies in `undo_retrans` (`tcp_init_undo` adds the
/// probe's) and counts each DSACK down; at 0, `tcp_try_undo_dsack`.
#[test]
fn dsacks_of_the_probe_and_the_timeout_copy_undo_the_timeout() {
    let mut h = established(1);
    h.advance(800 * MS).unwrap();
    let copies: Vec<u16> = data(&h.take_sent()).iter().map(|&(_, _, c)| c).collect();
    assert_eq!(copies, vec![0, 1, 2]);
    h.ack(1, &[], 0);
    h.advance(810 * MS).unwrap();
    h.ack(1, &[(0, 1)], 0);
    assert_ne!(h.info().snd_ssthresh, INFINITE_SSTHRESH, "one copy left");
    h.advance(820 * MS).unwrap();
    h.ack(1, &[(0, 1)], 0);
    let info = h.info();
    assert_eq!(info.ca_state, CA_OPEN);
    assert_eq!(info.snd_ssthresh, INFINITE_SSTHRESH, "{info:?}");
}
