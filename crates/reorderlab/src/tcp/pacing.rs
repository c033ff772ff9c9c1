//! Pacing as Linux's TCP does it by itself (no `fq` qdisc: the socket's
//! `sk_pacing_status` is `SK_PACING_NEEDED`, set by BBR's `bbr_init` or by
//! `SO_MAX_PACING_RATE`): a next-departure time per flow
//! (`tp->tcp_wstamp_ns`) that every transmission pushes forward by its
//! length at the pacing rate (`tcp_update_skb_after_send`), and a sender
//! that sends nothing before it (`tcp_pacing_check` in `tcp_write_xmit`
//! and `tcp_xmit_retransmit_queue`, the `pacing_timer` waking it).
//!
//! The kernel paces socket buffers, not segments: `tcp_write_xmit` builds
//! an skb of up to `tcp_tso_segs` segments (`tcp_tso_autosize`: about 1 ms
//! of data at the pacing rate, `sk_pacing_rate >> sk_pacing_shift`, at
//! least `tcp_min_tso_segs` = 2; BBR's `bbr_tso_segs_goal`), sends it at
//! once and charges its whole length. Here the segments a send loop emits
//! back to back form such bursts of at most [`Pacer::burst`] segments
//! ([`Pacer::may_send`] checks the departure time at a burst's start only).
//!
//! The rate: a controller that paces itself (BBR) sets it; for the others,
//! with pacing on, `tcp_update_pacing_rate` after each ACK:
//! `ratio x max(cwnd, packets_out) x mss / srtt`, the ratio 200 % while
//! cwnd < ssthresh / 2 (`tcp_pacing_ss_ratio`) and 120 % after
//! (`tcp_pacing_ca_ratio`). Off by default: a flow without a [`Pacer`]
//! sends as before.

use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;

/// `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, percent.
pub const SS_RATIO: u64 = 200;
pub const CA_RATIO: u64 = 120;
/// `tcp_update_skb_after_send`: the first 10 segments go unpaced
/// ("Original sch_fq does not pace first 10 MSS").
pub const UNPACED_SEGMENTS: u64 = 10;
/// `sk_pacing_shift`: an skb holds about 2^-10 s (1 ms) of data.
pub const PACING_SHIFT: u32 = 10;
/// `tcp_min_tso_segs`.
pub const MIN_TSO_SEGS: u32 = 2;
/// `GSO_MAX_SIZE - 1 - MAX_TCP_HEADER` (BBR's cap of an skb, bytes;
/// `MAX_TCP_HEADER` taken as 320 on x86-64).
pub const GSO_MAX_BYTES: u64 = 65_536 - 1 - 320;

/// A flow's pacing state.
#[derive(Debug, Clone)]
pub struct Pacer {
    /// `sk_pacing_rate`, bytes per second (0: not paced yet).
    pub rate: u64,
    /// `tp->tcp_wstamp_ns`: the earliest departure of the next skb.
    pub next_departure: Time,
    /// The sender stopped for it (the `pacing_timer` is armed).
    pub blocked: bool,
    /// Segment size, bytes.
    mss: u32,
    /// `tp->data_segs_out`.
    segs_out: u64,
    /// Segments per skb ([`Self::set_burst`]).
    pub burst: u32,
    /// Segments of the current skb still to go, and its start.
    left_in_skb: u32,
    skb_segments: u32,
    prior_departure: Time,
}

impl Pacer {
    pub fn new(mss: u32) -> Pacer {
        Pacer {
            rate: 0,
            next_departure: 0,
            blocked: false,
            mss: mss.max(1),
            segs_out: 0,
            burst: MIN_TSO_SEGS,
            left_in_skb: 0,
            skb_segments: 0,
            prior_departure: 0,
        }
    }

    /// `tcp_pacing_check`: may a segment leave now? Inside an skb, yes;
    /// a new skb waits for the departure time.
    #[inline]
    pub fn may_send(&self, now: Time) -> bool {
        self.left_in_skb > 0 || self.rate == 0 || self.next_departure <= now
    }

    /// When the sender should try again, if pacing holds it back.
    #[inline]
    pub fn wake_at(&self, now: Time) -> Option<Time> {
        (!self.may_send(now)).then_some(self.next_departure)
    }

    /// A segment leaves at `now`: it starts an skb (`__tcp_transmit_skb`:
    /// the departure time is at least now) or joins the current one; a full
    /// skb is charged ([`Self::end_burst`]).
    pub fn on_sent(&mut self, now: Time) {
        if self.left_in_skb == 0 {
            self.prior_departure = self.next_departure;
            self.next_departure = self.next_departure.max(now);
            self.left_in_skb = self.burst.max(1);
            self.skb_segments = 0;
        }
        self.left_in_skb -= 1;
        self.skb_segments += 1;
        self.segs_out += 1;
        if self.left_in_skb == 0 {
            self.charge();
        }
    }

    /// The send loop stopped: the current skb, if any, ends shorter.
    pub fn end_burst(&mut self) {
        if self.left_in_skb > 0 {
            self.left_in_skb = 0;
            self.charge();
        }
    }

    /// `tcp_update_skb_after_send`: push the departure time by the skb's
    /// length at the rate, less the credit of an idle period (the time the
    /// departure time was behind the clock), at most half the length.
    fn charge(&mut self) {
        if self.rate == 0 || self.segs_out < UNPACED_SEGMENTS {
            return;
        }
        let bytes = self.skb_segments as u128 * self.mss as u128;
        let len = (bytes * NS_PER_SEC as u128 / self.rate as u128) as Time;
        let credit = self.next_departure - self.prior_departure;
        self.next_departure += len - credit.min(len / 2);
    }

    /// Segments per skb: `tcp_tso_autosize` (the pacing rate's 1 ms, at
    /// least `min_segs`, at most a GSO skb).
    pub fn set_burst(&mut self, min_segs: u32) {
        let bytes = (self.rate >> PACING_SHIFT).min(GSO_MAX_BYTES);
        let segs = (bytes / self.mss as u64) as u32;
        self.burst = segs.max(min_segs).min(0x7f);
    }

    /// `tcp_update_pacing_rate` (controllers that do not pace themselves).
    pub fn update_rate(&mut self, cwnd: f64, ssthresh: f64, packets_out: u32, srtt: Option<Time>) {
        let Some(srtt) = srtt.filter(|&s| s > 0) else {
            return;
        };
        let ratio = if cwnd < ssthresh / 2.0 {
            SS_RATIO
        } else {
            CA_RATIO
        };
        let segs = (cwnd.max(0.0) as u64).max(packets_out as u64);
        let num = self.mss as u128 * ratio as u128 * segs as u128 * NS_PER_SEC as u128;
        self.rate = (num / (100 * srtt as u128)).min(u64::MAX as u128) as u64;
        self.set_burst(MIN_TSO_SEGS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    /// 1000-byte segments at 1 MB/s: 1 ms each. Segments one by one
    /// (burst 1), after the first ten.
    #[test]
    fn departures_are_spaced_by_length_over_rate() {
        let mut p = Pacer::new(1000);
        p.rate = 1_000_000;
        p.burst = 1;
        for _ in 0..UNPACED_SEGMENTS - 1 {
            assert!(p.may_send(0));
            p.on_sent(0);
        }
        assert_eq!(p.next_departure, 0, "the first ten are not paced");
        p.on_sent(0);
        assert_eq!(p.next_departure, ms(1));
        assert!(!p.may_send(ms(1) - 1));
        assert_eq!(p.wake_at(0), Some(ms(1)));
        assert!(p.may_send(ms(1)));
        p.on_sent(ms(1));
        assert_eq!(p.next_departure, ms(2));
    }

    /// After an idle period the departure time restarts at the clock, and
    /// the idle credit shortens the next gap by at most half.
    #[test]
    fn idle_credit_is_at_most_half_a_gap() {
        let mut p = Pacer::new(1000);
        p.rate = 1_000_000;
        p.burst = 1;
        for _ in 0..UNPACED_SEGMENTS {
            p.on_sent(0);
        }
        assert_eq!(p.next_departure, ms(1));
        p.on_sent(ms(100));
        assert_eq!(p.next_departure, ms(100) + ms(1) / 2);
    }

    /// A burst of segments is one skb: the check applies at its start, its
    /// whole length is charged at its end (or when the loop stops early).
    #[test]
    fn an_skb_of_several_segments_is_charged_at_once() {
        let mut p = Pacer::new(1000);
        p.rate = 1_000_000;
        p.burst = 4;
        p.segs_out = UNPACED_SEGMENTS;
        p.next_departure = ms(10);
        p.prior_departure = ms(10);
        assert!(!p.may_send(ms(9)));
        p.on_sent(ms(10));
        assert!(p.may_send(ms(10)), "inside the skb");
        p.on_sent(ms(10));
        p.end_burst();
        assert_eq!(p.next_departure, ms(12));
        for _ in 0..4 {
            p.on_sent(ms(12));
        }
        assert_eq!(p.next_departure, ms(16));
    }

    /// `tcp_update_pacing_rate`: 200 % of cwnd x mss / srtt in slow start
    /// (cwnd < ssthresh / 2), 120 % after; packets_out if larger.
    #[test]
    fn the_rate_of_other_controllers_follows_cwnd_over_srtt() {
        let mut p = Pacer::new(1000);
        p.update_rate(10.0, f64::INFINITY, 0, Some(ms(100)));
        assert_eq!(p.rate, 200_000);
        p.update_rate(10.0, 20.0, 0, Some(ms(100)));
        assert_eq!(p.rate, 120_000);
        p.update_rate(10.0, 20.0, 15, Some(ms(100)));
        assert_eq!(p.rate, 180_000);
        p.update_rate(10.0, 20.0, 15, None);
        assert_eq!(p.rate, 180_000, "no srtt: unchanged");
    }

    /// About 1 ms of data per skb, at least two segments, at most a GSO skb.
    #[test]
    fn bursts_hold_a_millisecond_of_data() {
        let mut p = Pacer::new(1448);
        p.rate = 100_000_000 / 8;
        p.set_burst(MIN_TSO_SEGS);
        assert_eq!(p.burst, (12_500_000 >> 10) / 1448);
        p.rate = 10_000;
        p.set_burst(MIN_TSO_SEGS);
        assert_eq!(p.burst, 2);
        p.rate = 10_000_000_000;
        p.set_burst(MIN_TSO_SEGS);
        assert_eq!(p.burst, (GSO_MAX_BYTES / 1448) as u32);
    }
}
