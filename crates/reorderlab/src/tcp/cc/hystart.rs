//! HyStart (Ha & Rhee, "Taming the elephants: New TCP slow start",
//! Computer Networks 55(9), 2011) as Linux's CUBIC implements it
//! (`net/ipv4/tcp_cubic.c`: `bictcp_hystart_reset`, `hystart_update`,
//! `cubictcp_acked`): slow start ends (ssthresh = cwnd) before the first
//! loss when, in a round of slow start with cwnd >= 16 segments, either
//!
//! * the ACK train of the round, ACKs at most 2 ms apart, has lasted more
//!   than half the minimum RTT (the window fills the path), or
//! * the minimum RTT of the round's first 8 samples exceeds the
//!   connection's minimum RTT by clamp(delay_min / 8, 4 ms, 16 ms) (a
//!   queue builds; Linux 3.17: delay_min / 16, and only those 8 samples
//!   counted).
//!
//! A round ends when SND.UNA passes the SND.NXT of its start. A timeout
//! starts it all again (`cubictcp_state` on `TCP_CA_Loss`). RFC 9406's
//! HyStart++ is a different, standardised descendant; this is Linux's.

use super::ops::{AckSample, Window};
use crate::engine::Time;

/// `hystart_low_window`: HyStart acts from this cwnd on.
pub const LOW_WINDOW: f64 = 16.0;
/// `hystart_ack_delta_us`: ACKs closer than this form a train.
pub const ACK_DELTA: Time = 2_000_000;
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
pub const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`: bounds of the delay margin.
pub const DELAY_MIN: Time = 4_000_000;
pub const DELAY_MAX: Time = 16_000_000;

/// Which kernel's HyStart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HyStartFlavour {
    /// Linux 3.17 (the tail-loss paper's kernel): margin delay_min / 16; the round's
    /// minimum RTT from its first 8 samples only.
    Linux317,
    /// Current Linux (5.7 and later): margin delay_min / 8; every sample
    /// of the round may lower its minimum.
    Linux,
}

#[derive(Debug, Clone, Copy)]
pub struct HyStart {
    pub flavour: HyStartFlavour,
    /// Slow start was ended by HyStart.
    pub found: bool,
    round_start: Time,
    last_ack: Time,
    end_seq: u32,
    /// The round's minimum RTT so far, and its samples.
    curr_rtt: Option<Time>,
    sample_cnt: u32,
    /// The connection's minimum RTT.
    pub delay_min: Option<Time>,
    /// A timeout asked for a new round at the next ACK.
    restart: bool,
}

impl HyStart {
    pub fn new(flavour: HyStartFlavour) -> HyStart {
        HyStart {
            flavour,
            found: false,
            round_start: 0,
            last_ack: 0,
            end_seq: 0,
            curr_rtt: None,
            sample_cnt: 0,
            delay_min: None,
            restart: false,
        }
    }

    /// `cubictcp_acked`: an ACK of new data. `recent_epoch`: CUBIC's
    /// congestion avoidance epoch began less than a second ago (Linux
    /// discards those delay samples, taken right after a recovery).
    pub fn on_ack(&mut self, w: &mut Window, s: &AckSample, recent_epoch: bool) {
        let Some(rtt) = s.rtt else {
            return;
        };
        if recent_epoch {
            return;
        }
        let delay = rtt.max(1_000);
        self.delay_min = Some(self.delay_min.map_or(delay, |m| m.min(delay)));
        if self.found || !w.in_slow_start() {
            return;
        }
        if self.restart || s.una > self.end_seq {
            self.new_round(s.now, s.nxt);
        }
        if w.cwnd < LOW_WINDOW {
            return;
        }
        if self.ack_train_ended(s.now) || self.delay_increased(delay) {
            self.found = true;
            w.ssthresh = w.cwnd;
        }
    }

    /// `bictcp_hystart_reset`: a round starts at `now`, ending when SND.UNA
    /// passes `nxt`.
    fn new_round(&mut self, now: Time, nxt: u32) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
        self.restart = false;
    }

    /// The first test: the round's ACK train has lasted longer than half
    /// the minimum RTT.
    fn ack_train_ended(&mut self, now: Time) -> bool {
        if now.saturating_sub(self.last_ack) > ACK_DELTA {
            return false;
        }
        self.last_ack = now;
        let threshold = self.delay_min.unwrap_or(0) / 2;
        now - self.round_start > threshold
    }

    /// The second test: the round's minimum RTT has risen above the
    /// connection's by the margin.
    fn delay_increased(&mut self, delay: Time) -> bool {
        let lower = |c: Option<Time>| Some(c.map_or(delay, |c| c.min(delay)));
        let counting = self.sample_cnt < MIN_SAMPLES;
        if self.flavour == HyStartFlavour::Linux || counting {
            self.curr_rtt = lower(self.curr_rtt);
        }
        if counting {
            self.sample_cnt += 1;
            return false;
        }
        let min = self.delay_min.unwrap_or(delay);
        let shift = match self.flavour {
            HyStartFlavour::Linux317 => 4,
            HyStartFlavour::Linux => 3,
        };
        let margin = (min >> shift).clamp(DELAY_MIN, DELAY_MAX);
        self.curr_rtt.is_some_and(|c| c > min + margin)
    }

    /// A timeout: slow start again, HyStart armed again.
    pub fn on_timeout(&mut self) {
        self.found = false;
        self.restart = true;
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

    fn sample(now: Time, rtt: Time, una: u32, nxt: u32) -> AckSample {
        AckSample {
            now,
            rtt: Some(rtt),
            una,
            nxt,
        }
    }

    #[test]
    fn an_ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        // RTT 100 ms; a round starts at 1 s (una 0 -> 1 passes end_seq 0)
        // and lasts until SND.UNA passes 100; ACKs 1 ms apart. At 1.050 s the train is
        // 50 ms long (not yet more than 100 / 2); at 1.051 s it is.
        let mut h = HyStart::new(HyStartFlavour::Linux);
        let mut w = window(32.0);
        h.on_ack(&mut w, &sample(ms(1000), ms(100), 1, 100), false);
        for k in 1..=50u64 {
            h.on_ack(
                &mut w,
                &sample(ms(1000 + k), ms(100), 1 + k as u32, 100),
                false,
            );
        }
        assert!(!h.found);
        h.on_ack(&mut w, &sample(ms(1051), ms(100), 52, 100), false);
        assert!(h.found);
        assert_eq!(w.ssthresh, 32.0);
        // ACKs more than 2 ms apart are not a train.
        let mut h = HyStart::new(HyStartFlavour::Linux);
        let mut w = window(32.0);
        for k in 0..40u64 {
            h.on_ack(
                &mut w,
                &sample(ms(1000 + 3 * k), ms(100), 1 + k as u32, 60),
                false,
            );
        }
        assert!(!h.found);
    }

    #[test]
    fn a_delay_increase_ends_slow_start_at_the_flavours_margin() {
        // delay_min 100 ms. Linux: margin clamp(12.5, 4, 16) ms = 12.5 ms;
        // Linux 3.17: clamp(6.25, 4, 16) = 6.25 ms. Samples 10 ms apart
        // (no train) in a new round with RTT 110 ms: found by 3.17 only.
        for (flavour, found) in [
            (HyStartFlavour::Linux, false),
            (HyStartFlavour::Linux317, true),
        ] {
            let mut h = HyStart::new(flavour);
            let mut w = window(20.0);
            h.on_ack(&mut w, &sample(ms(0), ms(100), 1, 20), false);
            for k in 1..=9u64 {
                h.on_ack(
                    &mut w,
                    &sample(ms(200 + 10 * k), ms(110), 21 + k as u32, 40),
                    false,
                );
            }
            assert_eq!(h.found, found, "{flavour:?}");
        }
        // Below 16 segments nothing is tested; a timeout re-arms it.
        let mut h = HyStart::new(HyStartFlavour::Linux317);
        let mut w = window(10.0);
        h.on_ack(&mut w, &sample(ms(0), ms(100), 1, 10), false);
        for k in 1..=9u64 {
            h.on_ack(
                &mut w,
                &sample(ms(200 + 10 * k), ms(150), 11 + k as u32, 30),
                false,
            );
        }
        assert!(!h.found);
        h.found = true;
        h.on_timeout();
        assert!(!h.found);
    }
}
