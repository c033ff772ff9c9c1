//! The ns-2 TCP agent's RTT estimator and retransmission timeout, for the
//! papers simulated in ns-2 (the rr-tcp, tcp-pr and high-speed papers): `tcp/tcp.cc`
//! (`rtt_init`, `rtt_update`, `rtt_timeout`, `rtt_backoff`) as of the
//! releases below, read in the nsnam CVS history (docs/sources.md).
//!
//! * Samples are whole clock ticks: without timestamps, the number of tick
//!   boundaries the segment's round trip crossed, `int((tao + fmod(sendtime,
//!   tick)) / tick)`, at least 1 (BSD's coarse clock; `sendtime` includes
//!   the agent's random clock phase `boot_time_`); with timestamps,
//!   `int(tao / tick + 0.5)`.
//! * srtt is kept in ticks x 8 and rttvar in ticks x 4, in integers: delta =
//!   rtt - srtt8 / 8; srtt8 += delta; rttvar4 += |delta| - rttvar4 / 4 (each
//!   at least 1); the first sample sets srtt = rtt, rttvar = rtt / 2.
//! * RTO = floor(srtt + 4 rttvar) whole ticks (no RFC 6298 max(G, 4
//!   RTTVAR) term); before any sample, `rtxcur_init_`.
//! * The timeout is RTO x backoff, clamped to [minrto, maxrto] (2.1b8), or
//!   with `rfc2988_` (2.1b9 and later) minrto x backoff when RTO < minrto;
//!   then at most maxrto, and at least 2 ticks.
//! * Backoff doubles up to 64; past 8 the srtt is discarded, so the next
//!   sample starts the estimator again. It is reset to 1 by the sender:
//!   when the timed segment is acknowledged, and on a partial ACK in
//!   SACK fast recovery.

use crate::engine::Time;

/// The defaults of one ns-2 release (`tcl/lib/ns-default.tcl`, Agent/TCP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ns2Profile {
    /// `tcpTick_`.
    pub tick: Time,
    /// `minrto_`, `maxrto_`, `rtxcur_init_`.
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// `rfc2988_`: clamp to minrto before the backoff multiplies.
    pub rfc2988: bool,
}

const MS: Time = 1_000_000;

impl Ns2Profile {
    /// ns-2.1b8 (2001-06, the release the rr-tcp paper names): 100-ms tick, minrto
    /// 1 s, maxrto 100000 s, initial RTO 6 s, backoff then clamp.
    pub const V2_1B8: Ns2Profile = Ns2Profile {
        tick: 100 * MS,
        min_rto: 1000 * MS,
        max_rto: 100_000_000 * MS,
        initial_rto: 6000 * MS,
        rfc2988: false,
    };
    /// ns-2.1b9 to 2.27 (2002-03 to 2004-10): 10-ms tick (2002-03-07),
    /// `rfc2988_` true, otherwise as 2.1b8.
    pub const V2_26: Ns2Profile = Ns2Profile {
        tick: 10 * MS,
        min_rto: 1000 * MS,
        max_rto: 100_000_000 * MS,
        initial_rto: 6000 * MS,
        rfc2988: true,
    };
    /// ns-2.30 and 2.31 (2006-09 to 2007-09): minrto 0.2 s (2004-10-18),
    /// initial RTO 3 s (2006), otherwise as 2.26.
    pub const V2_31: Ns2Profile = Ns2Profile {
        tick: 10 * MS,
        min_rto: 200 * MS,
        max_rto: 100_000_000 * MS,
        initial_rto: 3000 * MS,
        rfc2988: true,
    };
}

/// `T_SRTT_BITS` and `T_RTTVAR_BITS`.
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// `rttvar_exp_`: RTO = srtt + 2^2 rttvar.
const RTTVAR_EXP: u32 = 2;
/// The largest backoff multiplier, and the one past which srtt is dropped.
const MAX_BACKOFF: u32 = 64;
const CLOBBER_BACKOFF: u32 = 8;

#[derive(Debug, Clone)]
pub struct Ns2Estimator {
    pub profile: Ns2Profile,
    /// `boot_time_`: the phase of the agent's coarse clock, in [0, tick).
    phase: Time,
    /// `t_srtt_` (ticks x 8; 0: no estimate) and `t_rttvar_` (ticks x 4).
    t_srtt: i64,
    t_rttvar: i64,
    /// `t_rtxcur_`: the RTO before backoff.
    t_rtxcur: Time,
    /// `t_backoff_`: 1, 2, 4, ... 64.
    backoff: u32,
    /// `ts_option_`: samples from timestamps (every ACK).
    timestamps: bool,
    /// The last quotients by the tick of the send time and of the round
    /// trip (see [`TickQuotient`]).
    sent_tick: TickQuotient,
    rtt_ticks: TickQuotient,
}

/// `x / tick` for an `x` that mostly stays within one tick from one sample
/// to the next (send times, round trips): the last quotient is reused
/// while `x` stays in its tick, where a 64-bit division (tens of cycles,
/// on every ACK with timestamps) would give the same.
#[derive(Debug, Clone, Copy, Default)]
struct TickQuotient {
    /// `q x tick`, the start of the tick `q`.
    start: Time,
    q: Time,
}

impl TickQuotient {
    #[inline]
    fn of(&mut self, x: Time, tick: Time) -> Time {
        if x < self.start || x - self.start >= tick {
            self.q = x / tick;
            self.start = self.q * tick;
        }
        self.q
    }
}

impl Ns2Estimator {
    /// The estimator of an agent whose coarse clock has phase `phase`;
    /// `timestamps`: samples come from the timestamp option (rounded, not
    /// ticks crossed).
    pub fn new(profile: Ns2Profile, phase: Time, timestamps: bool) -> Ns2Estimator {
        Ns2Estimator {
            profile,
            phase: phase % profile.tick,
            t_srtt: 0,
            t_rttvar: 0,
            t_rtxcur: profile.initial_rto,
            backoff: 1,
            timestamps,
            sent_tick: TickQuotient::default(),
            rtt_ticks: TickQuotient::default(),
        }
    }

    /// `rtt_update` with a round trip `tao` measured at `now`.
    pub fn on_sample(&mut self, tao: Time, now: Time) {
        let tick = self.profile.tick;
        let ticks = if self.timestamps {
            self.rtt_ticks.of(tao + tick / 2, tick)
        } else {
            let sendtime = now.saturating_sub(tao) + self.phase;
            // sendtime % tick
            let into_tick = sendtime - self.sent_tick.of(sendtime, tick) * tick;
            self.rtt_ticks.of(tao + into_tick, tick)
        };
        self.fold_ticks(ticks);
    }

    /// The rest of `rtt_update`: a round trip of `ticks` whole ticks.
    fn fold_ticks(&mut self, ticks: Time) {
        let tick = self.profile.tick;
        let rtt = (ticks as i64).max(1);
        if self.t_srtt != 0 {
            let mut delta = rtt - (self.t_srtt >> SRTT_BITS);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> RTTVAR_BITS);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = rtt << SRTT_BITS;
            self.t_rttvar = rtt << (RTTVAR_BITS - 1);
        }
        let shift = RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS;
        let rto_ticks = ((self.t_rttvar << shift) + self.t_srtt) >> SRTT_BITS;
        self.t_rtxcur = rto_ticks as Time * tick;
    }

    /// `rtt_timeout`: the timer's duration now. `rtxcur` overrides the
    /// estimator's RTO (DSACK-HG's histogram).
    pub fn timeout(&self, rtxcur: Option<Time>) -> Time {
        let p = &self.profile;
        let cur = rtxcur.unwrap_or(self.t_rtxcur);
        let backoff = self.backoff as Time;
        let timeout = if p.rfc2988 {
            cur.max(p.min_rto).saturating_mul(backoff)
        } else {
            cur.saturating_mul(backoff).max(p.min_rto)
        };
        timeout.min(p.max_rto).max(2 * p.tick)
    }

    /// `rtt_backoff`.
    pub fn back_off(&mut self) {
        if self.backoff < MAX_BACKOFF {
            self.backoff <<= 1;
        }
        if self.backoff > CLOBBER_BACKOFF {
            self.t_rttvar += self.t_srtt >> SRTT_BITS;
            self.t_srtt = 0;
        }
    }

    /// `t_backoff_ = 1`.
    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    /// srtt (fractional ticks kept), if estimated.
    pub fn srtt(&self) -> Option<Time> {
        (self.t_srtt != 0).then(|| self.t_srtt as Time * self.profile.tick / 8)
    }

    pub fn rttvar(&self) -> Time {
        self.t_rttvar.max(0) as Time * self.profile.tick / 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    #[test]
    fn samples_are_ticks_crossed_and_rto_whole_ticks() {
        // 2.1b8, phase 0: a 410 ms round trip sent at 1.05 s crosses the
        // boundaries at 1.1 .. 1.4 s: 4 ticks (int((410 + 50) / 100)).
        let mut e = Ns2Estimator::new(Ns2Profile::V2_1B8, 0, false);
        assert_eq!(e.timeout(None), ms(6000), "rtxcur_init_");
        e.on_sample(ms(410), ms(1460));
        // srtt = 4, rttvar = 2 ticks: RTO = 4 + 4 x 2 = 12 ticks = 1.2 s.
        assert_eq!(e.srtt(), Some(ms(400)));
        assert_eq!(e.rttvar(), ms(200));
        assert_eq!(e.timeout(None), ms(1200));
        // Sent at 1.00 s: int(410 / 100) = 4 again. srtt8 32 -> 32, rttvar4
        // 8 -> 8 - 2 = 6: RTO = (6 x 8 + 32) / 8 = 10 ticks.
        e.on_sample(ms(410), ms(1410));
        assert_eq!(e.timeout(None), ms(1000));
        // A stable path: rttvar4 stops decaying at 3 (3 - 3/4 = 3 in
        // integers), so RTO = floor(4 + 3) = 7 ticks, below minrto: 1 s.
        for _ in 0..50 {
            e.on_sample(ms(410), ms(1410));
        }
        assert_eq!(e.rttvar(), ms(75));
        assert_eq!(e.timeout(None), ms(1000));
    }

    #[test]
    fn backoff_clamps_as_each_release_does() {
        // RTO 700 ms (7 ticks of 100 ms).
        let mut old = Ns2Estimator::new(Ns2Profile::V2_1B8, 0, false);
        let mut new = Ns2Estimator::new(
            Ns2Profile {
                tick: ms(100),
                ..Ns2Profile::V2_26
            },
            0,
            false,
        );
        for e in [&mut old, &mut new] {
            e.on_sample(ms(500), ms(500));
            e.t_srtt = 5 << 3;
            e.t_rttvar = 2 << 2;
            e.t_rtxcur = ms(700);
            e.back_off();
        }
        // 2.1b8: max(1 s, 700 ms x 2) = 1.4 s; rfc2988_: 1 s x 2 = 2 s.
        assert_eq!(old.timeout(None), ms(1400));
        assert_eq!(new.timeout(None), ms(2000));
        // Past a backoff of 8, srtt is dropped: the next sample restarts.
        for _ in 0..3 {
            old.back_off();
        }
        assert_eq!(old.srtt(), None);
        old.on_sample(ms(300), ms(300));
        assert_eq!(old.srtt(), Some(ms(300)));
        // At most 64; at least 2 ticks.
        for _ in 0..10 {
            old.back_off();
        }
        assert_eq!(old.backoff, 64);
        old.reset_backoff();
        let none = Ns2Profile {
            min_rto: 0,
            initial_rto: 0,
            ..Ns2Profile::V2_26
        };
        assert_eq!(Ns2Estimator::new(none, 0, true).timeout(None), ms(20));
    }

    /// The remembered quotients are those of the divisions, on send times
    /// and round trips that mostly stay within a tick and sometimes jump
    /// (back, too), for both kinds of sample.
    #[test]
    fn remembered_tick_quotients_match_the_divisions() {
        let mut rng = crate::engine::Rng::from_seed(40);
        for timestamps in [false, true] {
            let profile = Ns2Profile::V2_31;
            let (mut e, mut plain) = (
                Ns2Estimator::new(profile, ms(3), timestamps),
                Ns2Estimator::new(profile, ms(3), timestamps),
            );
            let (mut now, mut tao) = (ms(500), ms(100));
            for step in 0..100_000 {
                let x = rng.next_u64();
                now += x % 50_000;
                match x % 100 {
                    0 => tao = ms(1 + (x >> 8) % 900),
                    1 => now = now.saturating_sub(ms((x >> 8) % 50)),
                    // on a tick boundary, or just below one
                    2..=4 => tao = ms(10 * (1 + (x >> 8) % 90)) - (x % 2) - profile.tick / 2,
                    // a send time on a tick boundary (the phase is 3 ms)
                    5 => now = ms(10 * (1 + now / ms(10))) + tao - ms(3),
                    _ => tao = (tao + (x >> 8) % 2_000_000).saturating_sub(1_000_000),
                }
                e.on_sample(tao, now);
                plain.on_sample_by_division(tao, now);
                let state = |e: &Ns2Estimator| (e.t_srtt, e.t_rttvar, e.t_rtxcur);
                assert_eq!(state(&e), state(&plain), "step {step}");
            }
        }
    }

    impl Ns2Estimator {
        /// [`Ns2Estimator::on_sample`] with the plain divisions.
        fn on_sample_by_division(&mut self, tao: Time, now: Time) {
            let tick = self.profile.tick;
            let ticks = if self.timestamps {
                (tao + tick / 2) / tick
            } else {
                let sendtime = now.saturating_sub(tao) + self.phase;
                (tao + sendtime % tick) / tick
            };
            self.fold_ticks(ticks);
        }
    }

    #[test]
    fn the_clock_phase_shifts_the_tick_boundaries() {
        // The same 410 ms sent at 1.00 s: phase 0 crosses 4 boundaries,
        // phase 95 ms crosses 5 (1.005 .. 1.405 s in the agent's clock).
        let mut a = Ns2Estimator::new(Ns2Profile::V2_1B8, 0, false);
        let mut b = Ns2Estimator::new(Ns2Profile::V2_1B8, ms(95), false);
        a.on_sample(ms(410), ms(1410));
        b.on_sample(ms(410), ms(1410));
        assert_eq!((a.srtt(), b.srtt()), (Some(ms(400)), Some(ms(500))));
    }
}
