//! BBR version 1 as Linux runs it (`net/ipv4/tcp_bbr.c`, read at 6.18;
//! Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue
//! 14(5), 2016). Each function below names the kernel function it follows;
//! the arithmetic is the kernel's fixed point: bandwidth in segments per
//! microsecond scaled by 2^24 (`BW_SCALE`), gains scaled by 2^8
//! (`BBR_SCALE`), times in microseconds and the min-RTT clock in jiffies.
//!
//! BBR replaces the sender's window rules: on every ACK (`bbr_main`, the
//! `cong_control` hook) it updates its model from the ACK's delivery-rate
//! sample ([`crate::tcp::rate`]): the bottleneck bandwidth (a windowed
//! maximum over 10 packet-timed rounds), the min RTT (10 s), the state
//! machine (STARTUP, DRAIN, PROBE_BW's eight-phase gain cycle, PROBE_RTT),
//! the long-term bandwidth of a policer and the ACK aggregation; then sets
//! the pacing rate (gain x bandwidth) and cwnd (cwnd gain x BDP plus the
//! aggregation allowance, packet conservation in the first round of
//! recovery). Loss marks its cwnd only through `rs->losses`.
//!
//! The state itself and its transitions are here; the sender hands it the
//! connection's delivery counters and state ([`BbrAck`]) and applies what
//! it returns ([`BbrOut`]). Unit tests: `bbr_tests.rs`.

use super::ops::{CongestionOps, Window};
use crate::engine::rng::{Component, Rng};
use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;
use crate::num::floor;
use crate::tcp::minmax::{Extreme, WindowedExtreme};
use crate::tcp::pacing::{GSO_MAX_BYTES, PACING_SHIFT};

/// `BW_SCALE`, `BW_UNIT`: bandwidth in segments/us << 24.
pub const BW_SCALE: u32 = 24;
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// `BBR_SCALE`, `BBR_UNIT`: gains << 8.
pub const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// `CYCLE_LEN`: phases of PROBE_BW's gain cycle.
pub const CYCLE_LEN: u32 = 8;
/// `bbr_bw_rtts`: the bandwidth filter's window, in rounds.
pub const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// `bbr_min_rtt_win_sec`.
pub const MIN_RTT_WIN_SEC: u64 = 10;
/// `bbr_probe_rtt_mode_ms`.
pub const PROBE_RTT_MODE_MS: u64 = 200;
/// `bbr_min_tso_rate`, bits/s.
pub const MIN_TSO_RATE: u64 = 1_200_000;
/// `bbr_pacing_margin_percent`.
pub const PACING_MARGIN_PERCENT: u64 = 1;
/// `bbr_high_gain` (2/ln 2), `bbr_drain_gain`, `bbr_cwnd_gain`.
pub const HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
pub const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
pub const CWND_GAIN: u32 = BBR_UNIT * 2;
/// `bbr_pacing_gain`: PROBE_BW's cycle.
pub const PACING_GAIN: [u32; CYCLE_LEN as usize] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// `bbr_cycle_rand`: the random start phase is drawn among this many.
pub const CYCLE_RAND: u64 = 7;
/// `bbr_cwnd_min_target`.
pub const CWND_MIN_TARGET: u32 = 4;
/// `bbr_full_bw_thresh` (1.25) and `bbr_full_bw_cnt`.
pub const FULL_BW_THRESH: u64 = BBR_UNIT as u64 * 5 / 4;
pub const FULL_BW_CNT: u32 = 3;
/// Long-term sampling: `bbr_lt_intvl_min_rtts`, `bbr_lt_loss_thresh`
/// (50/256, about 20 %), `bbr_lt_bw_ratio` (1/8), `bbr_lt_bw_diff`
/// (4 kbit/s in bytes/s), `bbr_lt_bw_max_rtts`.
pub const LT_INTVL_MIN_RTTS: u32 = 4;
pub const LT_LOSS_THRESH: u64 = 50;
pub const LT_BW_RATIO: u64 = BBR_UNIT as u64 / 8;
pub const LT_BW_DIFF: u64 = 4000 / 8;
pub const LT_BW_MAX_RTTS: u32 = 48;
/// ACK aggregation: `bbr_extra_acked_gain`, `bbr_extra_acked_win_rtts`,
/// `bbr_ack_epoch_acked_reset_thresh`, `bbr_extra_acked_max_us`.
pub const EXTRA_ACKED_GAIN: u64 = BBR_UNIT as u64;
pub const EXTRA_ACKED_WIN_RTTS: u32 = 5;
pub const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
pub const EXTRA_ACKED_MAX_US: u64 = 100_000;
/// `TCP_INIT_CWND`.
pub const TCP_INIT_CWND: u32 = 10;

/// `enum bbr_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Linux's `icsk_ca_state` as BBR compares it (`TCP_CA_Open` .. `Loss`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaLevel {
    Open = 0,
    Recovery = 3,
    Loss = 4,
}

/// What BBR reads of the connection on an ACK.
#[derive(Debug, Clone, Copy)]
pub struct BbrAck {
    pub now: Time,
    /// `tp->snd_cwnd`.
    pub cwnd: u32,
    /// `tcp_packets_in_flight` after the ACK.
    pub in_flight: u32,
    /// `tp->delivered`, `tp->delivered_mstamp`, `tp->lost`.
    pub delivered: u64,
    pub delivered_at: Time,
    pub lost: u64,
    /// `icsk_ca_state` after the ACK.
    pub ca: CaLevel,
    /// `tp->tcp_wstamp_ns`: the pacer's next departure.
    pub next_departure: Time,
    /// `tp->snd_cwnd_clamp`.
    pub cwnd_clamp: u32,
}

/// What BBR sets on the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BbrOut {
    /// The new `tp->snd_cwnd`.
    pub cwnd: u32,
    /// A new `tp->snd_ssthresh` (DRAIN's entry), if set.
    pub ssthresh: Option<u32>,
    /// `tp->app_limited` must be set (PROBE_RTT ignores its low samples).
    pub mark_app_limited: bool,
}

/// `struct bbr`.
#[derive(Debug, Clone)]
pub struct Bbr {
    pub mode: Mode,
    /// `min_rtt_us` (`None`: `~0U`, no sample yet) and its jiffies stamp.
    pub min_rtt_us: Option<u64>,
    pub min_rtt_stamp: u64,
    /// `probe_rtt_done_stamp` in jiffies (0: not set).
    pub probe_rtt_done_stamp: u64,
    /// The max-bandwidth filter over [`BW_RTTS`] rounds.
    pub bw: WindowedExtreme,
    pub rtt_cnt: u64,
    pub next_rtt_delivered: u64,
    pub cycle_mstamp: Time,
    pub prev_ca_state: CaLevel,
    pub packet_conservation: bool,
    pub round_start: bool,
    pub idle_restart: bool,
    pub probe_rtt_round_done: bool,
    pub lt_is_sampling: bool,
    pub lt_rtt_cnt: u32,
    pub lt_use_bw: bool,
    pub lt_bw: u64,
    pub lt_last_delivered: u64,
    /// `lt_last_stamp`, in ms.
    pub lt_last_stamp: u64,
    pub lt_last_lost: u64,
    pub pacing_gain: u32,
    pub cwnd_gain: u32,
    pub full_bw_reached: bool,
    pub full_bw_cnt: u32,
    pub cycle_idx: u32,
    pub has_seen_rtt: bool,
    pub prior_cwnd: u32,
    pub full_bw: u64,
    pub ack_epoch_mstamp: Time,
    pub extra_acked: [u64; 2],
    pub ack_epoch_acked: u32,
    pub extra_acked_win_rtts: u32,
    pub extra_acked_win_idx: usize,
    /// `sk->sk_pacing_rate`, bytes per second.
    pub pacing_rate: u64,
    /// Segment size (`mss_cache`), bytes.
    pub mss: u32,
    /// `HZ` of the min-RTT and PROBE_RTT clock.
    pub hz: u32,
    /// Nanoseconds per jiffy (`NS_PER_SEC / hz`), kept with `hz` so that
    /// [`Self::jiffies`], several times per ACK, divides once.
    jiffy_ns: u64,
    /// The random start phase of PROBE_BW (the flow's seeded stream).
    rng: Rng,
}

/// `tcp_stamp_us_delta`: `a - b` in microseconds, 0 if negative.
#[inline]
fn us_delta(a: Time, b: Time) -> u64 {
    a.saturating_sub(b) / 1000
}

impl Bbr {
    /// A controller before `bbr_init`; `rng` draws the PROBE_BW start
    /// phases.
    pub fn new(mss: u32, hz: u32, rng: Rng) -> Bbr {
        Bbr {
            mode: Mode::Startup,
            min_rtt_us: None,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: 0,
            bw: WindowedExtreme::new(Extreme::Max, 0, 0),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            prev_ca_state: CaLevel::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            pacing_rate: 0,
            mss: mss.max(1),
            hz: hz.max(1),
            jiffy_ns: NS_PER_SEC / hz.max(1) as u64,
            rng,
        }
    }

    /// The connection's segment size, `HZ` and flow (whose stream of run
    /// seed 0 draws the phases until [`Self::reseed`]).
    pub fn configure(&mut self, mss: u32, hz: u32, flow: u32) {
        self.mss = mss.max(1);
        self.hz = hz.max(1);
        self.jiffy_ns = NS_PER_SEC / self.hz as u64;
        self.rng = Rng::for_component(0, Component::Flow, flow as u64);
    }

    /// Draw PROBE_BW's start phases from `rng` (the flow's stream).
    pub fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// The jiffies clock (`tcp_jiffies32`).
    #[inline]
    pub fn jiffies(&self, now: Time) -> u64 {
        debug_assert_eq!(self.jiffy_ns, NS_PER_SEC / self.hz as u64);
        now / self.jiffy_ns
    }

    /// `bbr_init`, when the connection is established: `srtt` from the
    /// handshake if any, `min_rtt` (`tcp_min_rtt`), `cwnd` the initial
    /// window. The sender sets ssthresh to infinity
    /// (`TCP_INFINITE_SSTHRESH`).
    pub fn init(&mut self, now: Time, cwnd: u32, srtt: Option<Time>, min_rtt: Option<Time>) {
        let rng = self.rng.clone();
        *self = Bbr::new(self.mss, self.hz, rng);
        self.min_rtt_us = min_rtt.map(|r| r / 1000);
        self.min_rtt_stamp = self.jiffies(now);
        self.bw.reset(0, 0);
        self.init_pacing_rate_from_rtt(cwnd, srtt);
        self.reset_lt_bw_sampling(0, now, 0);
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = now;
    }

    /// `bbr_max_bw`.
    #[inline]
    pub fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// `bbr_bw`: the long-term bandwidth while policed, else the max.
    #[inline]
    pub fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// [`Self::bw`] in segments per second (`bbr_get_info`'s `bbr_bw`
    /// divided by the segment size).
    pub fn bw_segments_per_sec(&self) -> f64 {
        self.bw() as f64 * 1e6 / BW_UNIT as f64
    }

    /// `bbr_extra_acked`.
    #[inline]
    fn extra_acked(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_rate_bytes_per_sec`: a bandwidth with a gain, in bytes/s, 1 %
    /// below (`bbr_pacing_margin_percent`).
    pub fn rate_bytes_per_sec(&self, rate: u64, gain: u32) -> u64 {
        let mut r = rate as u128 * self.mss as u128;
        r = (r * gain as u128) >> BBR_SCALE;
        r *= (1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT)) as u128;
        (r >> BW_SCALE) as u64
    }

    /// `bbr_bw_to_pacing_rate` (no `sk_max_pacing_rate`).
    fn bw_to_pacing_rate(&self, bw: u64, gain: u32) -> u64 {
        self.rate_bytes_per_sec(bw, gain)
    }

    /// `bbr_init_pacing_rate_from_rtt`: high gain x cwnd / SRTT (1 ms if
    /// no RTT sample yet).
    fn init_pacing_rate_from_rtt(&mut self, cwnd: u32, srtt: Option<Time>) {
        let rtt_us = match srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                (s / 1000).max(1)
            }
            None => 1000,
        };
        let bw = cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate = self.bw_to_pacing_rate(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: before the pipe is full only upwards.
    fn set_pacing_rate(&mut self, bw: u64, gain: u32, cwnd: u32, srtt: Option<Time>) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(cwnd, srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_min_tso_segs`.
    pub fn min_tso_segs(&self) -> u32 {
        if self.pacing_rate < MIN_TSO_RATE >> 3 {
            1
        } else {
            2
        }
    }

    /// `bbr_tso_segs_goal`: segments per skb.
    pub fn tso_segs_goal(&self) -> u32 {
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(GSO_MAX_BYTES);
        let segs = ((bytes / self.mss as u64) as u32).max(self.min_tso_segs());
        segs.min(0x7f)
    }

    /// `bbr_save_cwnd`: the last known good cwnd, to restore after
    /// recovery or PROBE_RTT.
    fn save_cwnd(&mut self, cwnd: u32) {
        if self.prev_ca_state < CaLevel::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)`: sending resumes after idle
    /// while application-limited.
    /// Returns the cwnd to restore if PROBE_RTT ended.
    pub fn on_tx_start(
        &mut self,
        a: &BbrAck,
        app_limited: bool,
        srtt: Option<Time>,
    ) -> Option<u32> {
        if !app_limited {
            return None;
        }
        let now = a.now;
        self.idle_restart = true;
        self.ack_epoch_mstamp = now;
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => {
                self.set_pacing_rate(self.bw(), BBR_UNIT, a.cwnd, srtt);
                None
            }
            Mode::ProbeRtt => self.check_probe_rtt_done(now, a.delivered_at, a.cwnd),
            _ => None,
        }
    }

    /// `bbr_bdp`: ceil(bw x min_rtt x gain); the initial window before
    /// any RTT sample.
    pub fn bdp(&self, bw: u64, gain: u32) -> u32 {
        let Some(min_rtt) = self.min_rtt_us else {
            return TCP_INIT_CWND;
        };
        let w = bw as u128 * min_rtt as u128;
        let bdp = ((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128);
        bdp.min(u32::MAX as u128) as u32
    }

    /// `bbr_quantization_budget`: three skbs more, rounded up to even, two
    /// more in PROBE_BW's probing phase.
    pub fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.saturating_add(3 * self.tso_segs_goal());
        cwnd = (cwnd.saturating_add(1)) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd = cwnd.saturating_add(2);
        }
        cwnd
    }

    /// `bbr_inflight`.
    pub fn inflight(&self, bw: u64, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: in flight when the next skb departs,
    /// less what the bandwidth delivers until then.
    fn packets_in_net_at_edt(&self, inflight_now: u32, now: Time, edt: Time) -> u32 {
        let interval_us = us_delta(edt.max(now), now);
        let interval_delivered = ((self.bw() as u128 * interval_us as u128) >> BW_SCALE) as u64;
        let mut at_edt = inflight_now as u64;
        if self.pacing_gain > BBR_UNIT {
            at_edt += self.tso_segs_goal() as u64;
        }
        at_edt.saturating_sub(interval_delivered) as u32
    }

    /// `bbr_ack_aggregation_cwnd`: the extra window for ACK aggregation,
    /// once the pipe is full, at most 100 ms at the bandwidth.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = (self.bw() as u128 * EXTRA_ACKED_MAX_US as u128 / BW_UNIT as u128) as u64;
        let aggr = (EXTRA_ACKED_GAIN * self.extra_acked()) >> BBR_SCALE;
        aggr.min(max_aggr) as u32
    }
}

/// BBR in the controller interface: it grows nothing itself on the
/// window-growth hooks (its cwnd comes from [`Bbr::on_rate_sample`] on
/// every ACK), and on a congestion event it only saves cwnd
/// (`bbr_ssthresh`: ssthresh unchanged).
impl CongestionOps for Bbr {
    fn on_ack(&mut self, _w: &mut Window, _acked: u32, _now: Time, _srtt: Option<Time>) {}

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u32, _now: Time) -> f64 {
        self.save_cwnd(floor(w.cwnd).max(1.0) as u32);
        w.ssthresh
    }
}

#[path = "bbr_model.rs"]
mod model;

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;
