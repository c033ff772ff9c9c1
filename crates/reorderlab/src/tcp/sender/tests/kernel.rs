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
