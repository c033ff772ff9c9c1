//! TCP-PR (Bohacek et al., tcp-pr Sec. III, Tables I-III): loss detection
//! by timers only. Duplicate ACKs are ignored; a segment is deemed dropped
//! when it has waited longer than mxrtt = beta * srtt for its ACK, where
//! srtt = max(alpha^(1/floor(cwnd)) * srtt, sample) tracks the peaks of the
//! RTT and decays by a factor alpha per RTT.
//!
//! A new drop halves cwnd from the value it had when the dropped segment was
//! sent, and snapshots the outstanding segments into the *memorize* list:
//! further drops among them (the same burst) do not halve again. With the
//! extreme-loss rules (Table III) a burst of more than cwnd/2 + 1 drops, a
//! drop while cwnd < 4, or a dropped retransmission makes the sender emulate
//! a timeout: ssthresh = cwnd/2, cwnd = 1, mxrtt raised to 1 s and no
//! sending ("waiting") for mxrtt; new drops while cwnd = 1 double mxrtt.
//!
//! Per-segment deadlines need no heap entry each: segments are kept in send
//! order with their send time, so the earliest deadline is always the oldest
//! still-outstanding transmission plus the (common) mxrtt, and one timer is
//! enough.

use crate::num::{floor, powf};
use std::collections::VecDeque;

use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;
use crate::tcp::cc::Window;
use crate::tcp::detection::{LossDetector, TimerVerdict};
use crate::tcp::scoreboard::{Scoreboard, SegState};
use crate::tcp::tcb::{CaState, Tcb};
use crate::tcp::timers::rto::RtoEstimator;

/// Congestion-control mode of TCP-PR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrMode {
    SlowStart,
    CongestionAvoidance,
    /// Emulated timeout: nothing is sent until `waituntil`.
    Waiting,
}

/// One transmission in the to-be-ack list.
#[derive(Debug, Clone, Copy)]
struct Sent {
    index: u64,
    at: Time,
    seq: u32,
}

/// What a drop detection did, for counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DropOutcome {
    pub drops: u32,
    pub halvings: u32,
    pub extreme: u32,
}

#[derive(Debug, Clone)]
pub struct TcpPr {
    pub alpha: f64,
    pub beta: f64,
    /// Table III extreme-loss rules on (TCP-PR) or off (TCP-PR-basic).
    pub extreme: bool,
    srtt: Option<f64>,
    mxrtt: Time,
    pub mode: PrMode,
    to_be_ack: VecDeque<Sent>,
    next_index: u64,
    /// The memorize list: outstanding transmissions with index below this.
    memo_mark: u64,
    cburst: u32,
    waituntil: Option<Time>,
    /// An emulated timeout happened and cwnd is still 1: new drops back off.
    backed_off: bool,
    /// The last (alpha, floor(cwnd)) and its decay alpha^(1/floor(cwnd)):
    /// the window's integer part changes once per round trip at most in
    /// congestion avoidance, so `powf` (a libm call, 0.8 % of
    /// `ref-tcppr-http`) runs once per change, not once per ACK.
    decay_cache: (f64, f64, f64),
}

impl TcpPr {
    pub fn new(alpha: f64, beta: f64, extreme: bool, initial_mxrtt: Time) -> TcpPr {
        TcpPr {
            alpha,
            beta,
            extreme,
            srtt: None,
            mxrtt: initial_mxrtt,
            mode: PrMode::SlowStart,
            to_be_ack: VecDeque::new(),
            next_index: 0,
            memo_mark: 0,
            cburst: 0,
            waituntil: None,
            backed_off: false,
            decay_cache: (f64::NAN, f64::NAN, f64::NAN),
        }
    }

    pub fn mxrtt(&self) -> Time {
        self.mxrtt
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt.map(|s| s as Time)
    }

    /// A transmission (new or retransmission) of `seq` left at `now`.
    pub fn on_send(&mut self, seq: u32, now: Time) {
        self.to_be_ack.push_back(Sent {
            index: self.next_index,
            at: now,
            seq,
        });
        self.next_index += 1;
    }

    /// Is this to-be-ack entry still the live transmission of its segment?
    fn live(e: &Sent, sb: &Scoreboard) -> bool {
        // A segment deemed lost stays marked until acknowledged; its
        // retransmission (retrans set) is live again.
        sb.seg(e.seq)
            .is_some_and(|s| !s.sacked && (!s.lost || s.retrans) && s.sent_at == e.at)
    }

    fn prune(&mut self, sb: &Scoreboard) {
        while let Some(e) = self.to_be_ack.front() {
            if Self::live(e, sb) {
                break;
            }
            self.to_be_ack.pop_front();
        }
    }

    /// Is the memorize list empty (no live transmission from before the
    /// last snapshot)?
    fn memorize_empty(&mut self, sb: &Scoreboard) -> bool {
        self.prune(sb);
        self.to_be_ack
            .front()
            .is_none_or(|e| e.index >= self.memo_mark)
    }

    /// The next time the engine must call [`Self::on_timer`].
    pub fn deadline(&mut self, sb: &Scoreboard) -> Option<Time> {
        if self.mode == PrMode::Waiting {
            return self.waituntil;
        }
        self.prune(sb);
        self.to_be_ack.front().map(|e| e.at + self.mxrtt)
    }

    /// alpha^(1/n), the per-ACK decay of srtt for a window of `n` segments
    /// (remembered for the last alpha and n).
    fn decay(&mut self, n: f64) -> f64 {
        let (alpha, last_n, decay) = self.decay_cache;
        if alpha == self.alpha && last_n == n {
            return decay;
        }
        let decay = powf(self.alpha, 1.0 / n);
        self.decay_cache = (self.alpha, n, decay);
        decay
    }

    /// An ACK newly acknowledged a segment last sent at `sent_at` (Table I
    /// lines 14-23, Table III lines 26-38).
    pub fn on_acked(&mut self, sent_at: Time, now: Time, w: &mut Window, sb: &Scoreboard) {
        if self.mode == PrMode::Waiting {
            return;
        }
        let sample = now.saturating_sub(sent_at) as f64;
        let decay = self.decay(floor(w.cwnd).max(1.0));
        let srtt = match self.srtt {
            None => sample,
            Some(s) => (decay * s).max(sample),
        };
        self.srtt = Some(srtt);
        self.mxrtt = (self.beta * srtt) as Time;
        // Increments are inhibited while a burst is being accounted for.
        if !self.memorize_empty(sb) {
            return;
        }
        self.cburst = 0;
        self.backed_off = false;
        if self.mode == PrMode::SlowStart && w.cwnd + 1.0 <= w.ssthresh {
            w.cwnd += 1.0;
        } else {
            self.mode = PrMode::CongestionAvoidance;
            w.cwnd += 1.0 / w.cwnd;
        }
    }

    /// Time passed: declare dropped every live transmission older than
    /// mxrtt, or end the waiting period. Dropped segments are marked lost in
    /// the scoreboard, which makes the sender resend them.
    pub fn on_timer(&mut self, now: Time, w: &mut Window, sb: &mut Scoreboard) -> DropOutcome {
        let mut out = DropOutcome::default();
        if self.mode == PrMode::Waiting {
            if self.waituntil.is_some_and(|t| now >= t) {
                // Table III lines 45-50: everything outstanding goes back to
                // to-be-sent, and sending resumes in slow start.
                sb.mark_all_lost();
                self.to_be_ack.clear();
                self.memo_mark = self.next_index;
                self.mode = PrMode::SlowStart;
                self.waituntil = None;
            }
            return out;
        }
        loop {
            self.prune(sb);
            let Some(&e) = self.to_be_ack.front() else {
                break;
            };
            if now < e.at + self.mxrtt {
                break;
            }
            self.to_be_ack.pop_front();
            out.drops += 1;
            let seg = *sb.seg(e.seq).expect("live entry has a segment");
            let was_retransmission = seg.copies > 1;
            if seg.retrans {
                sb.mark_retransmission_lost(e.seq);
            } else {
                sb.mark_lost(e.seq);
            }
            let new_drop = e.index >= self.memo_mark;
            if new_drop {
                if self.extreme && self.backed_off && w.cwnd < 2.0 {
                    // Back-off: a new drop at cwnd = 1 doubles mxrtt.
                    self.mxrtt = self.mxrtt.saturating_mul(2);
                    self.enter_waiting(now);
                    out.extreme += 1;
                    continue;
                }
                self.memo_mark = self.next_index;
                let current = w.cwnd;
                let at_send = seg.cwnd_at_send as f64;
                w.cwnd = (at_send / 2.0).max(1.0);
                w.ssthresh = w.cwnd;
                self.mode = PrMode::CongestionAvoidance;
                out.halvings += 1;
                if self.extreme && (current < 4.0 || was_retransmission) {
                    self.extreme_loss(now, w);
                    out.extreme += 1;
                }
            } else {
                self.cburst += 1;
                let burst_too_long = self.cburst as f64 > w.cwnd / 2.0 + 1.0;
                if self.extreme && (burst_too_long || was_retransmission) {
                    self.extreme_loss(now, w);
                    out.extreme += 1;
                }
            }
        }
        out
    }

    /// Emulate a SACK timeout (Table III).
    fn extreme_loss(&mut self, now: Time, w: &mut Window) {
        w.ssthresh = (w.cwnd / 2.0).max(2.0);
        w.cwnd = 1.0;
        self.mxrtt = self.mxrtt.max(NS_PER_SEC);
        self.cburst = 0;
        self.backed_off = true;
        self.enter_waiting(now);
    }

    fn enter_waiting(&mut self, now: Time) {
        self.mode = PrMode::Waiting;
        self.waituntil = Some(now + self.mxrtt);
    }

    /// Waiting out an emulated timeout (Table III): nothing may be sent.
    /// Otherwise flush-cwnd (Table I lines 24-28) sends while cwnd >
    /// |to-be-ack|, the check of [`crate::tcp::response::Response::TcpPr`].
    pub fn waiting(&self) -> bool {
        self.mode == PrMode::Waiting
    }
}

/// TCP-PR as the sender's loss detection: its per-segment timers, and the
/// window changes Table I makes on each acknowledged segment and each
/// drop. Its next deadline is found after each transmission (finding it
/// drops stale entries); `acked` gathers the send times of an ACK's newly
/// acknowledged segments.
#[derive(Debug, Clone)]
pub struct TcpPrDetection {
    pub pr: TcpPr,
    deadline: Option<Time>,
    acked: Vec<Time>,
}

impl TcpPrDetection {
    pub fn new(alpha: f64, beta: f64, extreme: bool, initial_mxrtt: Time) -> TcpPrDetection {
        TcpPrDetection {
            pr: TcpPr::new(alpha, beta, extreme, initial_mxrtt),
            deadline: None,
            acked: Vec::new(),
        }
    }
}

impl LossDetector for TcpPrDetection {
    /// TCP-PR keeps its own srtt (the peaks of the RTT).
    fn srtt(&self, _rtt: &RtoEstimator) -> Option<Time> {
        self.pr.srtt()
    }

    fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// As its ns-2 agent, TCP-PR discards ACKs below SND.UNA (Sec. III:
    /// an ACK only tells which packets left the network).
    fn reads_old_acks(&self) -> bool {
        false
    }

    /// Nothing goes out while an emulated timeout is waited out (Table
    /// III).
    fn allows_sending(&self) -> bool {
        !self.pr.waiting()
    }

    #[inline]
    fn on_delivered(&mut self, _seq: u32, seg: &SegState, _now: Time) {
        self.acked.push(seg.sent_at);
    }

    /// Table I lines 14-23 for each newly acknowledged segment: srtt and
    /// mxrtt, window growth (within the receiver window).
    fn after_deliveries(&mut self, tcb: &mut Tcb, now: Time) {
        for &sent_at in &self.acked {
            self.pr.on_acked(sent_at, now, &mut tcb.w, &tcb.sb);
        }
        self.acked.clear();
        tcb.w.cwnd = tcb.w.cwnd.min(tcb.cfg.max_window as f64);
        tcb.note_cwnd();
    }

    /// Drops older than mxrtt (each halving the window, or an emulated
    /// timeout), or the end of waiting.
    fn on_timer(&mut self, tcb: &mut Tcb, now: Time) -> TimerVerdict {
        let outcome = self.pr.on_timer(now, &mut tcb.w, &mut tcb.sb);
        // the next deadline now (the end of waiting, the drops): found
        // here too, as a finished transfer sends nothing after this
        self.deadline = self.pr.deadline(&tcb.sb);
        tcb.stats.fast_recoveries += outcome.halvings as u64;
        tcb.stats.timeouts += outcome.extreme as u64;
        if outcome.extreme > 0 {
            tcb.ca = CaState::Loss;
        } else if outcome.drops > 0 && tcb.ca == CaState::Open {
            tcb.ca = CaState::Recovery;
        }
        tcb.note_cwnd();
        TimerVerdict::Send
    }

    #[inline]
    fn on_sent(&mut self, seq: u32, now: Time) {
        self.pr.on_send(seq, now);
    }

    /// Leave the loss state once nothing is marked dropped; find the next
    /// deadline.
    fn after_transmit(&mut self, tcb: &mut Tcb) {
        if tcb.sb.lost_out() == 0 && tcb.ca != CaState::Open {
            tcb.ca = CaState::Open;
        }
        self.deadline = self.pr.deadline(&tcb.sb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    fn window(cwnd: f64) -> Window {
        Window {
            cwnd,
            ssthresh: f64::INFINITY,
        }
    }

    /// A scoreboard with `n` segments sent at time 0 with cwnd `c`.
    fn sent(pr: &mut TcpPr, n: u32, at: Time, c: f64) -> Scoreboard {
        let mut sb = Scoreboard::new();
        for _ in 0..n {
            let s = sb.send_new(at, c);
            pr.on_send(s, at);
        }
        sb
    }

    #[test]
    fn srtt_decays_by_alpha_per_rtt() {
        let mut pr = TcpPr::new(0.9, 3.0, true, ms(1000));
        let mut w = window(10.0);
        let mut sb = Scoreboard::new();
        w.ssthresh = 10.0;
        pr.on_acked(0, ms(100), &mut w, &sb);
        assert_eq!(pr.srtt(), Some(ms(100)));
        // Ten ACKs (one window at cwnd 10) with tiny samples: srtt * alpha.
        w.cwnd = 10.0;
        for _ in 0..10 {
            let before = w.cwnd;
            pr.on_acked(ms(200), ms(201), &mut w, &sb);
            w.cwnd = before;
        }
        let s = pr.srtt().unwrap() as f64;
        assert!((s - 0.9 * 1e8).abs() < 1e3, "{s}");
        assert_eq!(pr.mxrtt(), (3.0 * s) as Time);
        let _ = &mut sb;
    }

    #[test]
    fn a_packet_older_than_mxrtt_is_declared_lost_exactly_then() {
        let mut pr = TcpPr::new(0.999, 3.0, false, ms(300));
        let mut w = window(8.0);
        let mut sb = sent(&mut pr, 4, 0, 8.0);
        assert_eq!(pr.deadline(&sb), Some(ms(300)));
        let none = pr.on_timer(ms(300) - 1, &mut w, &mut sb);
        assert_eq!(none.drops, 0);
        let d = pr.on_timer(ms(300), &mut w, &mut sb);
        // All four were sent at 0: all are older than mxrtt.
        assert_eq!(d.drops, 4);
        assert_eq!(sb.lost_out(), 4);
    }

    #[test]
    fn a_burst_halves_once_from_cwnd_at_send() {
        let mut pr = TcpPr::new(0.999, 3.0, false, ms(300));
        let mut w = window(8.0);
        let mut sb = sent(&mut pr, 4, 0, 8.0);
        // cwnd has grown since the sends; the halving uses cwnd(n) = 8.
        w.cwnd = 12.0;
        let d = pr.on_timer(ms(300), &mut w, &mut sb);
        assert_eq!(d.halvings, 1, "the rest of the burst does not halve again");
        assert_eq!(w.cwnd, 4.0);
        assert_eq!(w.ssthresh, 4.0);
    }

    #[test]
    fn extreme_loss_triggers() {
        // Drop while cwnd < 4.
        let mut pr = TcpPr::new(0.999, 3.0, true, ms(300));
        let mut w = window(3.0);
        let mut sb = sent(&mut pr, 1, 0, 3.0);
        let d = pr.on_timer(ms(300), &mut w, &mut sb);
        assert_eq!(d.extreme, 1);
        assert_eq!(w.cwnd, 1.0);
        assert_eq!(pr.mode, PrMode::Waiting);
        assert_eq!(pr.mxrtt(), ms(1000));
        // Nothing may be sent while waiting; at waituntil everything
        // outstanding is resent in slow start.
        assert!(pr.waiting());
        assert_eq!(pr.deadline(&sb), Some(ms(1300)));
        pr.on_timer(ms(1300), &mut w, &mut sb);
        assert_eq!(pr.mode, PrMode::SlowStart);
        assert!(!pr.waiting());

        // A burst longer than cwnd/2 + 1.
        let mut pr = TcpPr::new(0.999, 3.0, true, ms(300));
        let mut w = window(16.0);
        let mut sb = sent(&mut pr, 12, 0, 16.0);
        let d = pr.on_timer(ms(300), &mut w, &mut sb);
        // First drop halves to 8; drops 2..=6 make cburst 5 > 8/2 + 1.
        assert_eq!(d.halvings, 1);
        assert!(d.extreme >= 1);
        assert_eq!(w.cwnd, 1.0);

        // A dropped retransmission.
        let mut pr = TcpPr::new(0.999, 3.0, true, ms(300));
        let mut w = window(16.0);
        let mut sb = sent(&mut pr, 1, 0, 16.0);
        pr.on_timer(ms(300), &mut w, &mut sb);
        sb.retransmit(0, ms(300), w.cwnd);
        pr.on_send(0, ms(300));
        let d = pr.on_timer(ms(300) + pr.mxrtt(), &mut w, &mut sb);
        assert_eq!(d.extreme, 1);
        assert_eq!(w.cwnd, 1.0);
    }

    #[test]
    fn basic_variant_never_waits() {
        let mut pr = TcpPr::new(0.999, 3.0, false, ms(300));
        let mut w = window(3.0);
        let mut sb = sent(&mut pr, 1, 0, 3.0);
        let d = pr.on_timer(ms(300), &mut w, &mut sb);
        assert_eq!(d.extreme, 0);
        assert_eq!(w.cwnd, 1.5);
        assert_ne!(pr.mode, PrMode::Waiting);
    }
}
