//! Tests of [`super`] (rack.rs).

use super::*;
use crate::engine::time::ms;

fn board(n: u32, gap: Time) -> Scoreboard {
    let mut sb = Scoreboard::new();
    sb.track_send_order();
    for i in 0..n {
        sb.send_new(i as Time * gap, 10.0);
    }
    sb
}

/// SACK segment `seq` and feed RACK.
fn sack(r: &mut Rack, sb: &mut Scoreboard, seq: u32, now: Time) {
    sb.sack(seq, seq + 1, |s, st| r.on_delivered(s, st, now));
    r.finish_ack(now);
}

#[test]
fn lost_only_after_a_later_segment_is_delivered_and_reo_wnd_passed() {
    // Segments 0..4 sent 1 ms apart; min_RTT 40 ms, SRTT 40 ms.
    let mut sb = board(4, ms(1));
    let mut r = Rack::new(false);
    r.min_rtt = Some(ms(40));
    // Nothing delivered: nothing lost however late it is.
    assert_eq!(r.detect_loss(&mut sb, ms(500)), 0);
    // Segment 1 SACKed at 41 ms (sent at 1 ms): RACK.rtt = 40 ms.
    // Reordering seen? Not yet, and 1 SACKed < DupThresh, outside
    // recovery: reo_wnd = min_RTT / 4 = 10 ms.
    sack(&mut r, &mut sb, 1, ms(41));
    assert_eq!(r.rtt, ms(40));
    let w = r.update_reo_wnd(0, 4, false, false, 1, Some(ms(40)));
    assert_eq!(w, ms(10));
    // Segment 0 (sent 0 ms) is lost at 0 + 40 + 10 = 50 ms; the timer
    // is armed for it. Segments 2, 3 were sent after segment 1.
    assert_eq!(r.detect_loss(&mut sb, ms(41)), 0);
    assert_eq!(r.deadline, Some(ms(50)));
    assert_eq!(r.detect_loss(&mut sb, ms(49)), 0);
    assert_eq!(r.detect_loss(&mut sb, ms(50)), 1);
    assert!(sb.seg(0).unwrap().lost);
    assert!(!sb.seg(2).unwrap().lost && !sb.seg(3).unwrap().lost);
    assert_eq!(r.deadline, None);
}

#[test]
fn dsack_widens_the_window_by_one_step_per_round() {
    let mut r = Rack::new(false);
    r.min_rtt = Some(ms(40));
    r.reordering_seen = true;
    assert_eq!(
        r.update_reo_wnd(0, 10, false, false, 0, Some(ms(100))),
        ms(10)
    );
    // A DSACK: one step (mult 2), the round ends at SND.NXT = 10.
    assert_eq!(
        r.update_reo_wnd(0, 10, true, false, 0, Some(ms(100))),
        ms(20)
    );
    // More DSACKs in the same round: no further step.
    assert_eq!(
        r.update_reo_wnd(5, 12, true, false, 0, Some(ms(100))),
        ms(20)
    );
    // Next round: another step; capped at SRTT.
    assert_eq!(
        r.update_reo_wnd(10, 14, true, false, 0, Some(ms(100))),
        ms(30)
    );
    assert_eq!(
        r.update_reo_wnd(14, 20, true, false, 0, Some(ms(25))),
        ms(25)
    );
    // 16 recoveries without DSACK: back to one step.
    for _ in 0..REO_WND_PERSIST {
        r.on_recovery_exit();
    }
    assert_eq!(r.reo_wnd_mult, 1);
}

#[test]
fn window_is_zero_in_recovery_without_reordering() {
    let mut r = Rack::new(false);
    r.min_rtt = Some(ms(40));
    assert_eq!(r.update_reo_wnd(0, 10, false, true, 0, Some(ms(40))), 0);
    assert_eq!(r.update_reo_wnd(0, 10, false, false, 3, Some(ms(40))), 0);
    assert_eq!(
        r.update_reo_wnd(0, 10, false, false, 2, Some(ms(40))),
        ms(10)
    );
    // Once reordering was seen (a never-retransmitted segment delivered
    // below RACK.fack), the window stays open in recovery.
    let mut sb = board(3, ms(1));
    sack(&mut r, &mut sb, 2, ms(42));
    sack(&mut r, &mut sb, 0, ms(43));
    assert!(r.reordering_seen);
    assert_eq!(
        r.update_reo_wnd(0, 10, false, true, 0, Some(ms(40))),
        ms(10)
    );
}

/// The straightforward step-5 scan: every segment from SND.UNA up to
/// the RACK segment (the implementation before the send-order list).
fn reference_detect_loss(r: &mut Rack, sb: &mut Scoreboard, now: Time) -> u32 {
    r.deadline = None;
    let Some(xmit_ts) = r.xmit_ts else {
        return 0;
    };
    let top = if r.xmit_retrans {
        sb.nxt()
    } else {
        r.end_seq.min(sb.nxt())
    };
    let (mut marked, mut timeout) = (0, 0);
    for seq in sb.una()..top {
        let s = *sb.seg(seq).unwrap();
        if s.sacked || (s.lost && !s.retrans) {
            continue;
        }
        if !sent_after(xmit_ts, r.end_seq, s.sent_at, seq + 1) {
            continue;
        }
        let expiry = s.sent_at + r.rtt + r.reo_wnd;
        if expiry > now {
            timeout = timeout.max(expiry - now);
        } else {
            Rack::mark(sb, seq, &s);
            marked += 1;
        }
    }
    if timeout > 0 {
        r.deadline = Some(now + timeout);
    }
    marked
}

/// (sent_at, copies, sacked, lost, retrans) of one segment.
type Flags = (Time, u16, bool, bool, bool);

/// Per-segment flags and counters of a scoreboard, for comparison.
fn snapshot(sb: &Scoreboard) -> (Vec<Flags>, [u32; 5]) {
    let segs = (sb.una()..sb.nxt())
        .map(|q| {
            let s = sb.seg(q).unwrap();
            (s.sent_at, s.copies, s.sacked, s.lost, s.retrans)
        })
        .collect();
    let counters = [
        sb.una(),
        sb.nxt(),
        sb.sacked_out(),
        sb.lost_out(),
        sb.retrans_out(),
    ];
    (segs, counters)
}

#[test]
fn send_order_scan_matches_the_full_scan_on_random_histories() {
    for seed in 0..40 {
        let mut h = Twin::new(seed);
        for step in 0..3000 {
            h.step(seed, step);
            assert_eq!(
                snapshot(&h.fast),
                snapshot(&h.full),
                "seed {seed} step {step}"
            );
            h.fast.checked_send_order();
        }
    }
}

/// The same random history on a scoreboard with the send-order list
/// (scanned by `detect_loss`) and one without (full scan).
struct Twin {
    rng: crate::engine::rng::Rng,
    fast: Scoreboard,
    full: Scoreboard,
    rf: Rack,
    rs: Rack,
    now: Time,
}

impl Twin {
    fn new(seed: u64) -> Twin {
        let mut fast = Scoreboard::new();
        fast.track_send_order();
        Twin {
            rng: crate::engine::rng::Rng::from_seed(seed),
            fast,
            full: Scoreboard::new(),
            rf: Rack::new(seed.is_multiple_of(2)),
            rs: Rack::new(seed.is_multiple_of(2)),
            now: 0,
        }
    }

    fn pick(&mut self, n: u32) -> u32 {
        (self.rng.uniform() * n as f64) as u32
    }

    /// One random event, applied to both.
    fn step(&mut self, seed: u64, step: u32) {
        self.now += self.pick(3) as Time * ms(1);
        let now = self.now;
        let out = self.full.nxt() - self.full.una();
        match self.pick(20) {
            0..=4 => {
                for _ in 0..=self.pick(4) {
                    self.fast.send_new(now, 10.0);
                    self.full.send_new(now, 10.0);
                }
            }
            5..=7 if out > 0 => {
                // A SACK block somewhere in the window.
                let a = self.full.una() + self.pick(out);
                let b = (a + 1 + self.pick(6)).min(self.full.nxt());
                let (rf, rs) = (&mut self.rf, &mut self.rs);
                self.fast.sack(a, b, |q, st| rf.on_delivered(q, st, now));
                self.full.sack(a, b, |q, st| rs.on_delivered(q, st, now));
                self.rf.finish_ack(now);
                self.rs.finish_ack(now);
            }
            8 if out > 0 => {
                let ack = self.full.una() + 1 + self.pick(out.min(8));
                let (rf, rs) = (&mut self.rf, &mut self.rs);
                self.fast.cum_ack_with(ack, |q, st| {
                    if !st.sacked {
                        rf.on_delivered(q, st, now)
                    }
                });
                self.full.cum_ack_with(ack, |q, st| {
                    if !st.sacked {
                        rs.on_delivered(q, st, now)
                    }
                });
                self.rf.finish_ack(now);
                self.rs.finish_ack(now);
            }
            9..=10 => self.retransmit_lost(now),
            11 if out > 0 => {
                // A probe: the highest segment sent again.
                let q = self.full.nxt() - 1;
                if !self.full.seg(q).unwrap().sacked {
                    self.fast.retransmit(q, now, 1.0);
                    self.full.retransmit(q, now, 1.0);
                }
            }
            12 if out > 0 => {
                let q = self.full.una() + self.pick(out);
                self.fast.mark_lost(q);
                self.full.mark_lost(q);
            }
            13 if step.is_multiple_of(7) => {
                self.fast.mark_all_lost();
                self.full.mark_all_lost();
            }
            14 if step.is_multiple_of(5) => {
                self.fast.clear_lost_marks();
                self.full.clear_lost_marks();
            }
            _ => self.detect_and_compare(seed, step),
        }
    }

    /// Retransmit what is lost (RFC 6675 NextSeg rule 1).
    fn retransmit_lost(&mut self, now: Time) {
        for _ in 0..=self.pick(3) {
            let (Some(a), Some(b)) = (self.fast.next_lost(), self.full.next_lost()) else {
                break;
            };
            assert_eq!(a, b);
            self.fast.retransmit(a, now, 1.0);
            self.full.retransmit(b, now, 1.0);
        }
    }

    /// Steps 4-5 on both: the same segments marked, the same timer.
    fn detect_and_compare(&mut self, seed: u64, step: u32) {
        let full = &self.full;
        let (una, nxt, sacked) = (full.una(), full.nxt(), full.sacked_out());
        let in_recovery = self.pick(2) == 0;
        let srtt = Some(ms(20 + self.pick(40) as u64));
        self.rf.min_rtt = self.rf.min_rtt.or(Some(ms(10)));
        self.rs.min_rtt = self.rf.min_rtt;
        (self.rf).update_reo_wnd(una, nxt, false, in_recovery, sacked, srtt);
        (self.rs).update_reo_wnd(una, nxt, false, in_recovery, sacked, srtt);
        let a = self.rf.detect_loss(&mut self.fast, self.now);
        let b = reference_detect_loss(&mut self.rs, &mut self.full, self.now);
        assert_eq!(a, b, "seed {seed} step {step}: marked");
        assert_eq!(
            self.rf.deadline, self.rs.deadline,
            "seed {seed} step {step}"
        );
    }
}

#[test]
fn adaptive_reordering_tracks_the_distance() {
    let mut r = Rack::new(true);
    let mut sb = board(10, ms(1));
    sack(&mut r, &mut sb, 9, ms(50));
    sack(&mut r, &mut sb, 1, ms(51));
    assert_eq!(r.dupthresh, 9);
}

#[test]
fn an_ack_advancing_in_order_and_sacking_above_a_hole_is_not_reordering() {
    // RFC 8985 Sec. 6.2 step 3, deliveries in ascending end_seq: segment 0
    // (cumulatively acknowledged) is below nothing delivered before this
    // ACK; segment 2 (SACKed, above the hole at 1) raises RACK.fack. Taken
    // SACK first, 0 looked "below fack" and counted as reordering.
    let mut sb = board(4, ms(1));
    let mut r = Rack::new(true);
    sb.sack(2, 3, |s, st| r.on_delivered(s, st, ms(50)));
    sb.cum_ack_with(1, |s, st| {
        if !st.sacked {
            r.on_delivered(s, st, ms(50))
        }
    });
    r.finish_ack(ms(50));
    assert!(!r.reordering_seen);
    assert_eq!(r.fack, 3);
    assert_eq!(r.dupthresh, MIN_REORDERING);
    // Segment 1 then arrives, below the fack of before its ACK: reordering,
    // by a distance of 2 segments (fack 3 - segment 1).
    sb.cum_ack_with(3, |s, st| {
        if !st.sacked {
            r.on_delivered(s, st, ms(52))
        }
    });
    r.finish_ack(ms(52));
    assert!(r.reordering_seen);
    assert_eq!(r.dupthresh, MIN_REORDERING);
}

#[test]
fn a_timeout_after_substantial_sacks_resets_the_adaptive_reordering() {
    // Linux tcp_enter_loss, as for tp->reordering with DupAck detection:
    // in the Open state with >= 3 SACKed segments, back to at most 3.
    use crate::spec::TcpSpec;
    use crate::tcp::cc::CongestionControl;
    use crate::tcp::detection::LossDetector;
    use crate::tcp::tcb::Tcb;
    let cfg = crate::tcp::variants::resolve("Linux", &TcpSpec::default(), 0).unwrap();
    let mut tcb = Tcb::new(
        cfg.clone(),
        CongestionControl::by_name("cubic").unwrap(),
        0,
        1,
    );
    let mut d = RackDetection::new(true, &cfg, &mut tcb);
    for _ in 0..10 {
        tcb.sb.send_new(0, 10.0);
    }
    d.rack.dupthresh = 9;
    tcb.sb.sack(5, 7, |_, _| {});
    d.on_timeout(&tcb);
    assert_eq!(d.rack.dupthresh, 9, "2 SACKed: kept");
    tcb.sb.sack(7, 8, |_, _| {});
    d.on_timeout(&tcb);
    assert_eq!(d.rack.dupthresh, MIN_REORDERING);
}

/// `tcp_rack_advance` sets RACK.rtt from every segment it is given, in
/// the kernel's order (SACKed ranges ascending, then the cumulative ACK),
/// whether or not the segment was sent after the RACK segment: one ACK
/// acknowledging segment 0 (sent at 0) and SACKing 3 (sent at 3 ms) gives
/// Linux the RTT of 0, RFC 8985 that of 3, the latest sent.
#[test]
fn linux_rack_rtt_is_that_of_the_last_segment_processed() {
    for (kernel_rtt, rtt) in [(true, ms(41)), (false, ms(38))] {
        let mut sb = board(4, ms(1));
        let mut r = Rack {
            kernel_rtt,
            ..Rack::new(false)
        };
        let now = ms(41);
        sb.sack(3, 4, |s, st| r.on_delivered(s, st, now));
        sb.cum_ack_with(1, |s, st| {
            if !st.sacked {
                r.on_delivered(s, st, now);
            }
        });
        r.finish_ack(now);
        assert_eq!(r.rtt, rtt, "kernel_rtt {kernel_rtt}");
        assert_eq!(r.xmit_ts, Some(ms(3)), "the RACK segment is 3 either way");
    }
}
