//! RFC 8985 Sec. 6.2 step 5: [`Rack::detect_loss`] against the walk it
//! replaced (every segment of the send-order list up to the first one sent
//! after RACK.xmit_ts, as Linux's `tcp_rack_detect_loss`), kept here as the
//! reference: the same segments marked in the same order, the same reorder
//! timer, the same scoreboard afterwards.

use super::*;
use crate::engine::rng::Rng;
use crate::engine::time::ms;

/// The step-5 walk before the bookmark (main 52abf65), verbatim but for
/// what it returns: the segments it marks, in order, and the reorder timer
/// it arms. With `mark` false nothing is changed and the result is the
/// same: marking only unlinks the segment at hand, after its successor has
/// been read.
pub(super) fn old_walk(
    r: &Rack,
    sb: &mut Scoreboard,
    now: Time,
    mark: bool,
) -> (Vec<u32>, Option<Time>) {
    let mut marks = Vec::new();
    let Some(xmit_ts) = r.xmit_ts else {
        return (marks, None);
    };
    let top = if r.xmit_retrans {
        sb.nxt()
    } else {
        r.end_seq.min(sb.nxt())
    };
    let mut timeout: Time = 0;
    let mut cursor = sb.first_sent();
    while let Some(seq) = cursor {
        let Some(&s) = sb.seg(seq) else {
            break;
        };
        cursor = sb.next_sent(seq);
        if s.sent_at > xmit_ts {
            break;
        }
        if seq >= top || !sent_after(xmit_ts, r.end_seq, s.sent_at, seq + 1) {
            continue;
        }
        let expiry = s.sent_at + r.rtt + r.reo_wnd;
        if expiry > now {
            timeout = timeout.max(expiry - now);
            continue;
        }
        if mark && s.retrans {
            sb.mark_retransmission_lost(seq);
        } else if mark {
            sb.mark_lost(seq);
        }
        marks.push(seq);
    }
    (marks, (timeout > 0).then(|| now + timeout))
}

/// [`Rack::detect_loss`] checked against [`old_walk`] (run first without
/// marking): what the crate's own tests of RACK senders call, so that every
/// one of them compares the two on every ACK and reorder timer.
pub(super) fn checked_detect_loss(r: &mut Rack, sb: &mut Scoreboard, now: Time) -> u32 {
    let (want, deadline) = old_walk(r, sb, now, false);
    let mut got = Vec::new();
    let n = r.detect_loss_with(sb, now, |q| got.push(q));
    assert_eq!(got, want, "segments marked lost at {now}");
    assert_eq!(r.deadline, deadline, "reorder timer at {now}");
    assert_eq!(n as usize, got.len());
    n
}

/// (sent_at, copies, sacked, lost, retrans) of each segment, and the
/// counters.
type Board = (Vec<(Time, u16, bool, bool, bool)>, [u32; 5]);

fn snapshot(sb: &Scoreboard) -> Board {
    let segs = (sb.una()..sb.nxt())
        .map(|q| {
            let s = sb.seg(q).unwrap();
            (s.sent_at, s.copies, s.sacked, s.lost, s.retrans)
        })
        .collect();
    let c = [
        sb.una(),
        sb.nxt(),
        sb.sacked_out(),
        sb.lost_out(),
        sb.retrans_out(),
    ];
    (segs, c)
}

/// The shape of one random history.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Largest burst of new segments sent at one instant.
    burst: u32,
    /// SACK blocks land in the top `1 / sack_top` of the window (holes
    /// pile up below them).
    sack_top: u32,
    /// Clock steps, in 100 us, at most (0 keeps the time: ties).
    tick: u32,
    /// SACKed segments were sent at least this long ago (100 us), as over
    /// a path with this round trip: the holes below them wait their turn.
    rtt: u32,
}

/// One random history applied to two scoreboards with the send-order list:
/// `new` detected with [`Rack::detect_loss`], `old` with [`old_walk`].
struct Pair {
    rng: Rng,
    shape: Shape,
    new: Scoreboard,
    old: Scoreboard,
    rn: Rack,
    ro: Rack,
    now: Time,
    /// Segments marked by step 5 so far (the test checks it finds some).
    marked: usize,
    armed: usize,
}

impl Pair {
    fn new(seed: u64, shape: Shape) -> Pair {
        let (mut new, mut old) = (Scoreboard::new(), Scoreboard::new());
        new.track_send_order();
        old.track_send_order();
        let adaptive = seed.is_multiple_of(2);
        Pair {
            rng: Rng::from_seed(seed ^ 0x5eed_4ac4),
            shape,
            new,
            old,
            rn: Rack::new(adaptive),
            ro: Rack::new(adaptive),
            now: 0,
            marked: 0,
            armed: 0,
        }
    }

    fn pick(&mut self, n: u32) -> u32 {
        (self.rng.uniform() * n as f64) as u32
    }

    /// Both boards, both RACKs: `f(board, rack)`.
    fn both(&mut self, mut f: impl FnMut(&mut Scoreboard, &mut Rack)) {
        f(&mut self.new, &mut self.rn);
        f(&mut self.old, &mut self.ro);
    }

    /// One random event, applied to both.
    fn step(&mut self) {
        self.now += (self.pick(self.shape.tick + 1) as Time) * 100_000;
        let now = self.now;
        let (una, nxt) = (self.old.una(), self.old.nxt());
        let out = nxt - una;
        match self.pick(24) {
            0..=5 => {
                let n = 1 + self.pick(self.shape.burst);
                self.both(|sb, _| {
                    for _ in 0..n {
                        sb.send_new(now, 10.0);
                    }
                });
            }
            6..=10 if out > 0 => self.sack(now),
            11 if out > 0 => self.cum_ack(now),
            12..=13 => {
                for _ in 0..=self.pick(4) {
                    let Some(q) = self.old.next_lost() else {
                        break;
                    };
                    assert_eq!(self.new.next_lost(), Some(q));
                    self.both(|sb, _| {
                        sb.retransmit(q, now, 1.0);
                    });
                }
            }
            14 if out > 0 => {
                // A probe, or any outstanding segment sent again.
                let q = if self.pick(2) == 0 {
                    nxt - 1
                } else {
                    una + self.pick(out)
                };
                if !self.old.seg(q).unwrap().sacked {
                    self.both(|sb, _| {
                        sb.retransmit(q, now, 1.0);
                    });
                }
            }
            15 if out > 0 => {
                let q = una + self.pick(out);
                self.both(|sb, _| {
                    sb.mark_lost(q);
                });
            }
            16 if self.pick(40) == 0 => self.both(|sb, _| sb.mark_all_lost()),
            17 if self.pick(20) == 0 => self.both(|sb, _| sb.clear_lost_marks()),
            18 => self.detect(true),
            _ => self.detect(false),
        }
        assert_eq!(snapshot(&self.new), snapshot(&self.old));
        self.new.checked_send_order();
    }

    /// A SACK block below the highest segment sent a round trip ago, then
    /// (mostly) steps 4-5 at once, as a sender does on an ACK.
    fn sack(&mut self, now: Time) {
        let (una, nxt) = (self.old.una(), self.old.nxt());
        let rtt = self.shape.rtt as Time * 100_000;
        let mut h = nxt - 1;
        while h > una && self.old.seg(h).unwrap().sent_at + rtt > now {
            h -= 1;
        }
        let span = ((nxt - una) / self.shape.sack_top).max(1);
        let a = h.saturating_sub(self.pick(span)).max(una);
        let b = (a + 1 + self.pick(4)).min(nxt);
        self.both(|sb, r| {
            sb.sack(a, b, |q, st| r.on_delivered(q, st, now));
            r.finish_ack(now);
        });
        if self.pick(4) > 0 {
            self.detect(false);
        }
    }

    /// A cumulative ACK of a few segments, then (mostly) steps 4-5.
    fn cum_ack(&mut self, now: Time) {
        let (una, nxt) = (self.old.una(), self.old.nxt());
        let ack = una + 1 + self.pick((nxt - una).min(6));
        self.both(|sb, r| {
            sb.cum_ack_with(ack, |q, st| {
                if !st.sacked {
                    r.on_delivered(q, st, now)
                }
            });
            r.finish_ack(now);
        });
        if self.pick(4) > 0 {
            self.detect(false);
        }
    }

    /// Steps 4-5 on both, after an ACK or (`timer`) when the reorder timer
    /// is due.
    fn detect(&mut self, timer: bool) {
        if timer {
            match self.ro.deadline {
                Some(t) => self.now = self.now.max(t),
                None => return,
            }
        }
        let (now, old) = (self.now, &self.old);
        let (una, nxt, sacked) = (old.una(), old.nxt(), old.sacked_out());
        let dsack = self.pick(8) == 0;
        let in_recovery = self.pick(2) == 0;
        let srtt = Some(ms(2 + self.pick(8) as u64));
        // RACK.min_RTT about the path's round trip (the samples of the
        // history can be far smaller), so that reo_wnd spans several sends.
        let base = self.shape.rtt.max(10);
        let min_rtt = Some((base / 2 + self.pick(base / 2)) as Time * 100_000);
        self.both(|_, r| {
            r.min_rtt = min_rtt;
            r.update_reo_wnd(una, nxt, dsack, in_recovery, sacked, srtt);
        });
        let mut got = Vec::new();
        let n = self
            .rn
            .detect_loss_with(&mut self.new, now, |q| got.push(q));
        let (want, deadline) = old_walk(&self.ro, &mut self.old, now, true);
        self.ro.deadline = deadline;
        assert_eq!(got, want, "marked at {now}");
        assert_eq!(n as usize, got.len());
        assert_eq!(self.rn.deadline, deadline, "reorder timer at {now}");
        self.marked += got.len();
        self.armed += deadline.is_some() as usize;
    }
}

/// Random histories of many shapes: bursts sent at one instant (ties
/// broken by sequence), holes piling up below SACKs near the top, lost
/// retransmissions, probes, timeouts and their undoing, timers firing.
#[test]
fn detect_loss_marks_and_arms_as_the_old_walk_did() {
    let shape = |burst, sack_top, tick, rtt| Shape {
        burst,
        sack_top,
        tick,
        rtt,
    };
    let shapes = [
        shape(4, 1, 20, 0),
        shape(30, 4, 2, 50),
        shape(60, 20, 1, 100),
        shape(8, 2, 0, 0),
        shape(3, 8, 3, 30),
        shape(12, 3, 5, 20),
    ];
    let (mut marked, mut armed) = (0, 0);
    for seed in 0..48 {
        let shape = shapes[seed as usize % shapes.len()];
        let mut p = Pair::new(seed, shape);
        for step in 0..2500 {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.step()));
            if r.is_err() {
                panic!("seed {seed} ({shape:?}) step {step}");
            }
        }
        marked += p.marked;
        armed += p.armed;
    }
    // The histories exercise both outcomes, many times.
    assert!(marked > 100_000 && armed > 10_000, "{marked} {armed}");
}

/// A hand-made case: holes at 0..4 and a retransmission; the bookmark
/// follows RACK.xmit_ts and steps back when its segment leaves the list.
#[test]
fn the_bookmark_survives_its_segment_leaving() {
    let mut sb = Scoreboard::new();
    sb.track_send_order();
    for t in 0..8 {
        sb.send_new(ms(t), 10.0);
    }
    assert_eq!(sb.last_sent_at_or_before(ms(3)), Some(3));
    // 3 SACKed: back to 2.
    sb.sack(3, 4, |_, _| {});
    assert_eq!(sb.checked_send_order(), vec![0, 1, 2, 4, 5, 6, 7]);
    assert_eq!(sb.last_sent_at_or_before(ms(3)), Some(2));
    // 2 retransmitted (to the tail, at 9 ms), 1 acknowledged.
    sb.retransmit(2, ms(9), 1.0);
    assert_eq!(sb.last_sent_at_or_before(ms(3)), Some(1));
    sb.cum_ack(2);
    assert_eq!(sb.last_sent_at_or_before(ms(3)), None);
    assert_eq!(sb.last_sent_at_or_before(ms(5)), Some(5));
    assert_eq!(sb.last_sent_at_or_before(ms(9)), Some(2));
    assert_eq!(sb.last_sent_at_or_before(ms(4)), Some(4));
    sb.mark_all_lost();
    assert_eq!(sb.last_sent_at_or_before(ms(9)), None);
}

/// Whole simulations through the checked path (every ACK's and every
/// reorder timer's step 5 compared with the old walk): the high-speed
/// path's slow-start overshoot (thousands of holes) under reordering, whose
/// reorder timer fires, and the Linux variant on the gigabit dumbbell
/// (whose losses are mostly found on ACKs: its timer, armed in jiffies as
/// the kernel arms it, need not fire there).
#[test]
fn simulated_runs_mark_and_arm_as_the_old_walk_did() {
    for (name, seconds, fires) in [
        ("ref-highspeed-rack", 5.0, true),
        ("ref-gigabit-linux", 2.0, false),
    ] {
        let mut sc = crate::bench::scenario(name).unwrap();
        sc.duration = seconds;
        sc.warmup = 0.0;
        let mut sim = crate::Simulation::new(&sc, sc.seed).unwrap();
        sim.run();
        let st = sim.sender(0).stats();
        assert!(st.rack_marked_lost > 100, "{name}: {st:?}");
        if fires {
            assert!(st.rack_timer_expiries > 0, "{name}: {st:?}");
        }
    }
}
