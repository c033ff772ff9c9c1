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
        s.on_packet(&ack(8, &[(9, 10)]), pto + ms(200), &mut out);
        let second: Vec<u32> = if variant == "Linux" { vec![8] } else { vec![] };
        assert_eq!(sent(&mut out), second, "{variant}");
    }
}
