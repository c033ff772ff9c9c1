//! RACK: time-based loss detection (RFC 8985 Sec. 6).
//!
//! Per ACK (Sec. 6.2):
//! 1. RACK.min_RTT from the RTT samples.
//! 2. Of the segments newly delivered (cumulatively or by SACK), the one
//!    sent last sets RACK.rtt = Now - its xmit_ts, and RACK.xmit_ts /
//!    RACK.end_seq if it was sent after the current RACK segment. A
//!    retransmitted segment delivered sooner than min_RTT after its
//!    retransmission is ignored (the original arrived). Linux
//!    (`tcp_rack_advance`, [`Rack::kernel_rtt`]) sets RACK.rtt from every
//!    segment it processes, SACKed ranges in ascending order and then the
//!    cumulatively acknowledged ones: the last one's RTT stays, which after
//!    a retransmission that fills a hole is the RTT of an original above
//!    it, not of the retransmission.
//! 3. A never-retransmitted segment delivered below RACK.fack (the highest
//!    end_seq delivered), deliveries taken in ascending end_seq order,
//!    means reordering: RACK.reordering_seen.
//! 4. reo_wnd: with DSACKs, RACK.reo_wnd_mult grows by one per round trip
//!    that sees one (RACK.dsack_round), and falls back to 1 after
//!    RACK.reo_wnd_persist = 16 recoveries without DSACK. reo_wnd = 0 if
//!    no reordering has been seen and the sender is in recovery or
//!    DupThresh segments are SACKed; otherwise min(reo_wnd_mult x min_RTT
//!    / 4, SRTT).
//! 5. Every outstanding segment sent before the RACK segment whose
//!    xmit_ts + RACK.rtt + reo_wnd has passed is lost; for the others the
//!    reorder timer is armed for the largest remaining time.
//!
//! With `adaptive` the DupThresh of step 4 is Linux's `tp->reordering`:
//! 3 at first, raised to the reordering distance measured in segments
//! (highest delivered - the late segment), at most 300
//! (`tcp_check_sack_reordering`, `sysctl_tcp_max_reordering`).

use crate::engine::Time;
use crate::tcp::config::SenderConfig;
use crate::tcp::detection::{LossDetector, TimerVerdict};
use crate::tcp::kernel::{LinuxKernel, TCP_TIMEOUT_MIN};
use crate::tcp::scoreboard::{Scoreboard, SegState};
use crate::tcp::tcb::{CaState, Tcb};

/// RFC 8985 Sec. 6.2 step 4: recoveries a widened window persists.
pub const REO_WND_PERSIST: u32 = 16;
/// Linux `sysctl_tcp_reordering` / `sysctl_tcp_max_reordering`.
pub const MIN_REORDERING: u32 = 3;
pub const MAX_REORDERING: u32 = 300;

/// RACK_sent_after(t1, seq1, t2, seq2).
fn sent_after(t1: Time, seq1: u32, t2: Time, seq2: u32) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

#[derive(Debug, Clone)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq (one past the segment); `None` until
    /// something is delivered.
    pub xmit_ts: Option<Time>,
    pub end_seq: u32,
    /// The RACK segment had been retransmitted.
    xmit_retrans: bool,
    pub rtt: Time,
    /// RACK.fack: the highest end_seq delivered.
    pub fack: u32,
    /// RACK.fack when the current ACK's deliveries began.
    prior_fack: u32,
    pub min_rtt: Option<Time>,
    pub reordering_seen: bool,
    pub reo_wnd_mult: u32,
    pub reo_wnd_persist: u32,
    pub dsack_round: Option<u32>,
    pub reo_wnd: Time,
    /// Reorder timer expiry.
    pub deadline: Option<Time>,
    /// DupThresh of step 4 (Linux `tp->reordering` when `adaptive`).
    pub dupthresh: u32,
    pub adaptive: bool,
    /// This ACK's latest-sent delivered segment: (xmit_ts, end_seq, retrans).
    latest: Option<(Time, u32, bool)>,
    /// Linux's RACK.rtt (`tcp_rack_advance`): the RTT of the last
    /// delivered segment the kernel processes, not of the latest sent.
    pub kernel_rtt: bool,
    /// This ACK's last segment in the kernel's order (SACKed ranges in
    /// ascending order, then the cumulatively acknowledged ones): (from
    /// the cumulative ACK, seq, xmit_ts).
    last_processed: Option<(bool, u32, Time)>,
}

impl Rack {
    pub fn new(adaptive: bool) -> Rack {
        Rack {
            xmit_ts: None,
            end_seq: 0,
            xmit_retrans: false,
            rtt: 0,
            fack: 0,
            prior_fack: 0,
            min_rtt: None,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: REO_WND_PERSIST,
            dsack_round: None,
            reo_wnd: 0,
            deadline: None,
            dupthresh: MIN_REORDERING,
            adaptive,
            latest: None,
            kernel_rtt: false,
            last_processed: None,
        }
    }

    /// Steps 2-3 for one newly delivered segment `seq`. Step 3 takes the
    /// ACK's deliveries in ascending end_seq order; a segment is then below
    /// RACK.fack exactly when it is below the fack of before this ACK
    /// (lower deliveries of the same ACK cannot raise fack above it), so
    /// each segment is compared with `prior_fack`, as Linux compares with
    /// its `prior_fack`: an ACK that advances the cumulative point over
    /// in-order data and SACKs data above a hole is not reordering.
    pub fn on_delivered(&mut self, seq: u32, seg: &SegState, now: Time) {
        let end = seq + 1;
        let retrans = seg.copies > 1;
        if !retrans && end < self.prior_fack {
            self.on_reordering(self.prior_fack - seq);
        }
        self.fack = self.fack.max(end);
        let ambiguous = retrans && self.min_rtt.is_some_and(|m| now - seg.sent_at < m);
        if ambiguous {
            return;
        }
        let later = self
            .latest
            .is_none_or(|(t, e, _)| sent_after(seg.sent_at, end, t, e));
        if later {
            self.latest = Some((seg.sent_at, end, retrans));
        }
        // A segment delivered by the cumulative ACK was not SACKed before
        // (the callers report it so); the kernel processes those last.
        let key = (!seg.sacked, seq);
        if self.last_processed.is_none_or(|(c, q, _)| key > (c, q)) {
            self.last_processed = Some((key.0, seq, seg.sent_at));
        }
    }

    /// Reordering seen (step 3), `distance` segments deep: with
    /// `adaptive`, Linux's `tp->reordering` grows to it (at most 300).
    pub fn on_reordering(&mut self, distance: u32) {
        self.reordering_seen = true;
        if self.adaptive {
            self.dupthresh = self.dupthresh.max(distance.min(MAX_REORDERING));
        }
    }

    /// End of step 2: apply this ACK's latest-sent delivered segment. The
    /// ACK's deliveries are all in RACK.fack now: the next ACK's step 3
    /// compares with it.
    pub fn finish_ack(&mut self, now: Time) {
        self.prior_fack = self.fack;
        let last = self.last_processed.take();
        let Some((t, e, retrans)) = self.latest.take() else {
            return;
        };
        self.rtt = now - t;
        // RACK.min_RTT also learns from SACKed segments (as Linux's
        // windowed min RTT does); retransmissions are ambiguous.
        if !retrans {
            self.min_rtt = Some(self.min_rtt.map_or(self.rtt, |m| m.min(self.rtt)));
        }
        if let Some((_, _, sent)) = last.filter(|_| self.kernel_rtt) {
            // `tcp_rack_advance` sets rack.rtt_us on every call, whether
            // or not the segment was sent after the RACK segment.
            self.rtt = now - sent;
        }
        let newer = self
            .xmit_ts
            .is_none_or(|x| sent_after(t, e, x, self.end_seq));
        if newer {
            self.xmit_ts = Some(t);
            self.end_seq = e;
            self.xmit_retrans = retrans;
        }
    }

    /// Step 4: the reordering window for this ACK.
    pub fn update_reo_wnd(
        &mut self,
        snd_una: u32,
        snd_nxt: u32,
        dsack: bool,
        in_recovery: bool,
        sacked_out: u32,
        srtt: Option<Time>,
    ) -> Time {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
        self.reo_wnd = if !self.reordering_seen && (in_recovery || sacked_out >= self.dupthresh) {
            0
        } else {
            let base = self.reo_wnd_mult as u64 * self.min_rtt.unwrap_or(0) / 4;
            srtt.map_or(base, |s| base.min(s))
        };
        self.reo_wnd
    }

    /// Step 4, "exiting Fast or RTO recovery".
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// Step 5: mark lost segments; returns how many were newly marked and
    /// arms (or clears) the reorder timer.
    ///
    /// The segments examined are those awaiting delivery (not SACKed, and
    /// not marked lost unless a retransmission is out), in the order they
    /// were last sent, as Linux's `tcp_rack_detect_loss` walks
    /// `tsorted_sent_queue`, up to the last one sent at or before
    /// RACK.xmit_ts; of those, the ones sent before the RACK segment
    /// (`examined`) are lost once their time is up, and the reorder
    /// timer is armed for the largest time left. Send times do not decrease
    /// along the list and every segment has the same time allowance
    /// (RACK.rtt + reo_wnd), so:
    /// * the segments whose time is up are a prefix of the list: the walk
    ///   from the head stops at the first one whose time is not up (or sent
    ///   after RACK.xmit_ts), and costs the segments it marks plus the few
    ///   it passes over (sent at RACK.xmit_ts itself, after the RACK
    ///   segment);
    /// * the largest time left is that of the last segment examined, found
    ///   back from the end of the range ([`Scoreboard::last_sent_at_or_before`],
    ///   whose bookmark follows RACK.xmit_ts): the holes between are not
    ///   visited.
    ///
    /// Needs [`Scoreboard::track_send_order`].
    pub fn detect_loss(&mut self, sb: &mut Scoreboard, now: Time) -> u32 {
        self.detect_loss_with(sb, now, |_| {})
    }

    /// [`Self::detect_loss`], calling `on_mark(seq)` for each segment marked
    /// lost, in the order marked.
    pub(crate) fn detect_loss_with(
        &mut self,
        sb: &mut Scoreboard,
        now: Time,
        mut on_mark: impl FnMut(u32),
    ) -> u32 {
        self.deadline = None;
        let Some(xmit_ts) = self.xmit_ts else {
            return 0;
        };
        let allowance = self.rtt + self.reo_wnd;
        let mut marked = 0;
        let mut waiting = false;
        let mut cursor = sb.first_sent();
        while let Some(seq) = cursor {
            let s = *sb.seg(seq).expect("listed segment is outstanding");
            if s.sent_at > xmit_ts {
                // Every segment sent at or before RACK.xmit_ts was expired:
                // nothing is left to wait for.
                break;
            }
            if s.sent_at + allowance > now {
                // Neither this one nor any later one can be lost yet.
                waiting = true;
                break;
            }
            // Read the successor first: marking unlinks `seq`.
            cursor = sb.next_sent(seq);
            if self.examined(sb, seq, &s) {
                Self::mark(sb, seq, &s);
                on_mark(seq);
                marked += 1;
            }
        }
        let mut back = if waiting {
            sb.last_sent_at_or_before(xmit_ts)
        } else {
            None
        };
        while let Some(seq) = back {
            let s = *sb.seg(seq).expect("listed segment is outstanding");
            if self.examined(sb, seq, &s) {
                debug_assert!(s.sent_at + allowance > now);
                self.deadline = Some(s.sent_at + allowance);
                break;
            }
            back = sb.prev_sent(seq);
        }
        marked
    }

    /// [`Self::detect_loss`]; in the crate's tests, checked on every call
    /// against the walk it replaced (`rack_walk_tests.rs`).
    #[inline]
    fn detect_loss_checked(&mut self, sb: &mut Scoreboard, now: Time) -> u32 {
        #[cfg(test)]
        return walk_tests::checked_detect_loss(self, sb, now);
        #[cfg(not(test))]
        self.detect_loss(sb, now)
    }

    /// Step 5's segments: outstanding ones sent before the RACK segment
    /// (RACK_sent_after, ties broken by sequence). Segments above the RACK
    /// segment were sent after it unless they are retransmissions, which
    /// only a retransmitted RACK segment can follow.
    #[inline]
    fn examined(&self, sb: &Scoreboard, seq: u32, s: &SegState) -> bool {
        let top = if self.xmit_retrans {
            sb.nxt()
        } else {
            self.end_seq.min(sb.nxt())
        };
        let xmit_ts = self.xmit_ts.expect("a RACK segment");
        seq < top && sent_after(xmit_ts, self.end_seq, s.sent_at, seq + 1)
    }

    /// Step 5: a segment whose xmit_ts + RACK.rtt + reo_wnd has passed is
    /// lost (if its retransmission was out, that retransmission is).
    fn mark(sb: &mut Scoreboard, seq: u32, s: &SegState) {
        if s.retrans {
            sb.mark_retransmission_lost(seq);
        } else {
            sb.mark_lost(seq);
        }
    }
}

/// RACK as the sender's loss detection, with the fixed DupThresh it
/// reports (RFC 8985 has no duplicate-ACK threshold of its own; Linux's
/// adaptive one is [`Rack::dupthresh`]).
///
/// The reorder timer fires when the segment's time is up (RFC 8985 Sec.
/// 6.3), or with Linux's rules (`tcp_rack_mark_lost`) for the time left
/// plus `TCP_TIMEOUT_MIN_US`, in jiffies, on the kernel's timer wheel
/// ([`crate::tcp::kernel`]): 3-8 ms late at HZ 250.
#[derive(Debug, Clone)]
pub struct RackDetection {
    pub rack: Rack,
    dupthresh: u32,
    kernel: Option<LinuxKernel>,
    /// When the reorder timer fires.
    timer: Option<Time>,
}

impl RackDetection {
    pub fn new(adaptive: bool, cfg: &SenderConfig, tcb: &mut Tcb) -> RackDetection {
        // Step 5 walks the segments in the order they were sent.
        tcb.sb.track_send_order();
        let mut policy = cfg.dupthresh.clone();
        RackDetection {
            rack: Rack {
                kernel_rtt: cfg.linux.is_some(),
                ..Rack::new(adaptive)
            },
            dupthresh: policy.value(tcb.w.cwnd, || None, 0),
            kernel: cfg.linux,
            timer: None,
        }
    }

    /// Arm the reorder timer for RACK's deadline, as the kernel would.
    fn arm(&mut self, now: Time) {
        self.timer = match (self.rack.deadline, self.kernel) {
            (Some(due), Some(k)) => Some(k.timer(now, due.saturating_sub(now) + TCP_TIMEOUT_MIN)),
            (due, _) => due,
        };
    }
}

impl LossDetector for RackDetection {
    fn dupthresh(&self) -> u32 {
        self.dupthresh
    }

    fn deadline(&self) -> Option<Time> {
        self.timer
    }

    fn reorder_timer_pending(&self) -> bool {
        self.timer.is_some()
    }

    /// Step 1: RACK.min_RTT from the RTT estimator's.
    #[inline]
    fn before_ack(&mut self, tcb: &Tcb, _elt: Option<u32>, _now: Time) {
        if let Some(m) = tcb.rtt.min_rtt() {
            self.rack.min_rtt = Some(self.rack.min_rtt.map_or(m, |x| x.min(m)));
        }
    }

    /// Steps 2-3.
    #[inline]
    fn on_delivered(&mut self, seq: u32, seg: &SegState, now: Time) {
        self.rack.on_delivered(seq, seg, now);
    }

    /// The end of step 2.
    #[inline]
    fn after_deliveries(&mut self, _tcb: &mut Tcb, now: Time) {
        self.rack.finish_ack(now);
    }

    /// Steps 4-5: reo_wnd, then every segment whose time is up is lost.
    fn detect(&mut self, tcb: &mut Tcb, dsack: bool, now: Time) -> bool {
        let (una, nxt, sacked) = (tcb.sb.una(), tcb.sb.nxt(), tcb.sb.sacked_out());
        let in_recovery = tcb.ca != CaState::Open;
        let srtt = tcb.rtt.srtt();
        (self.rack).update_reo_wnd(una, nxt, dsack, in_recovery, sacked, srtt);
        let marked = self.rack.detect_loss_checked(&mut tcb.sb, now);
        self.arm(now);
        tcb.stats.rack_marked_lost += marked as u64;
        true
    }

    /// Sec. 6.3, the reorder timer.
    fn on_timer(&mut self, tcb: &mut Tcb, now: Time) -> TimerVerdict {
        if self.timer.is_none_or(|t| t > now) {
            return TimerVerdict::Nothing;
        }
        tcb.stats.rack_timer_expiries += 1;
        let marked = self.rack.detect_loss_checked(&mut tcb.sb, now);
        self.arm(now);
        tcb.stats.rack_marked_lost += marked as u64;
        if marked > 0 {
            tcb.stats.rack_reorder_timeouts += 1;
        }
        TimerVerdict::LossMarked
    }

    /// RACK has marked what is lost; the loss response paces the
    /// retransmissions.
    fn on_enter_recovery(&mut self) -> bool {
        false
    }

    /// Linux records the reordering that timestamps revealed
    /// (`tcp_check_sack_reordering(sk, prior_snd_una, 1)`), so RACK's
    /// reo_wnd applies from then on.
    fn on_delayed_original(&mut self, distance: u32) {
        self.rack.on_reordering(distance);
    }

    /// Step 4: reo_wnd's persistence counts recoveries.
    fn on_recovery_exit(&mut self) {
        self.rack.on_recovery_exit();
    }

    /// The reorder timer goes; with Linux's adaptive `tp->reordering`, a
    /// timeout in the Open state after at least 3 SACKed segments brings it
    /// back to at most 3 (`tcp_enter_loss`).
    fn on_timeout(&mut self, tcb: &Tcb) {
        self.rack.deadline = None;
        self.timer = None;
        if self.rack.adaptive && tcb.ca == CaState::Open && tcb.sb.sacked_out() >= MIN_REORDERING {
            self.rack.dupthresh = self.rack.dupthresh.min(MIN_REORDERING);
        }
    }
}

#[cfg(test)]
#[path = "rack_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "rack_walk_tests.rs"]
mod walk_tests;
