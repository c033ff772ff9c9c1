//! BBR's work per ACK (`bbr_main` and what it calls) and its answers to the
//! connection's events (`bbr_ssthresh`, `bbr_undo_cwnd`, `bbr_set_state`),
//! after `net/ipv4/tcp_bbr.c`.

use super::{
    us_delta, Bbr, BbrAck, BbrOut, CaLevel, Mode, ACK_EPOCH_ACKED_RESET_THRESH, BBR_SCALE,
    BBR_UNIT, BW_RTTS, BW_UNIT, CWND_GAIN, CWND_MIN_TARGET, CYCLE_LEN, CYCLE_RAND, DRAIN_GAIN,
    EXTRA_ACKED_GAIN, EXTRA_ACKED_WIN_RTTS, FULL_BW_CNT, FULL_BW_THRESH, HIGH_GAIN, LT_BW_DIFF,
    LT_BW_MAX_RTTS, LT_BW_RATIO, LT_INTVL_MIN_RTTS, LT_LOSS_THRESH, MIN_RTT_WIN_SEC, PACING_GAIN,
    PROBE_RTT_MODE_MS, TCP_INIT_CWND,
};
use crate::engine::Time;
use crate::tcp::rate::RateSample;

impl Bbr {
    /// `bbr_main`: update the model from the ACK's rate sample, then the
    /// pacing rate and cwnd.
    pub fn on_rate_sample(&mut self, rs: &RateSample, a: &BbrAck, srtt: Option<Time>) -> BbrOut {
        let mut out = BbrOut {
            cwnd: a.cwnd,
            ssthresh: None,
            mark_app_limited: false,
        };
        self.update_model(rs, a, &mut out);
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, a.cwnd, srtt);
        out.cwnd = self.set_cwnd(rs, a, out.cwnd, bw, self.cwnd_gain);
        out
    }

    /// `bbr_update_model`.
    fn update_model(&mut self, rs: &RateSample, a: &BbrAck, out: &mut BbrOut) {
        self.update_bw(rs, a);
        self.update_ack_aggregation(rs, a);
        self.update_cycle_phase(rs, a);
        self.check_full_bw_reached(rs);
        self.check_drain(a, out);
        self.update_min_rtt(rs, a, out);
        self.update_gains();
    }

    /// `bbr_update_bw`: count packet-timed rounds and put the sample's
    /// bandwidth into the max filter (an application-limited sample only if
    /// it is no lower than the estimate).
    fn update_bw(&mut self, rs: &RateSample, a: &BbrAck) {
        self.round_start = false;
        let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
            return;
        };
        let interval_us = interval / 1000;
        if interval_us == 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = a.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs, a);
        let bw = delivered * BW_UNIT / interval_us;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    pub(super) fn reset_lt_bw_sampling_interval(&mut self, delivered: u64, at: Time, lost: u64) {
        self.lt_last_stamp = at / 1_000_000;
        self.lt_last_delivered = delivered;
        self.lt_last_lost = lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    pub(super) fn reset_lt_bw_sampling(&mut self, delivered: u64, at: Time, lost: u64) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(delivered, at, lost);
    }

    /// `bbr_lt_bw_interval_done`: two intervals of consistent bandwidth
    /// (within 1/8 or 4 kbit/s) mean a policer; use their average.
    fn lt_bw_interval_done(&mut self, bw: u64, a: &BbrAck) {
        if self.lt_bw > 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * BBR_UNIT as u64 <= LT_BW_RATIO * self.lt_bw
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF
            {
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(a.delivered, a.delivered_at, a.lost);
    }

    /// `bbr_lt_bw_sampling`: token-bucket policer detection. An interval
    /// starts at a loss, lasts 4 to 16 rounds and ends at a loss; if its
    /// loss rate is at least 50/256 its delivery rate is a sample.
    pub(super) fn lt_bw_sampling(&mut self, rs: &RateSample, a: &BbrAck) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(a.delivered, a.delivered_at, a.lost);
                    self.reset_probe_bw_mode(a.delivered_at);
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(a.delivered, a.delivered_at, a.lost);
            self.lt_is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt_bw_sampling(a.delivered, a.delivered_at, a.lost);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(a.delivered, a.delivered_at, a.lost);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = a.lost - self.lt_last_lost;
        let delivered = a.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (a.delivered_at / 1_000_000) as i64 - self.lt_last_stamp as i64;
        if t_ms < 1 {
            return;
        }
        if t_ms as u64 >= u32::MAX as u64 / 1000 {
            self.reset_lt_bw_sampling(a.delivered, a.delivered_at, a.lost);
            return;
        }
        let bw = delivered * BW_UNIT / (t_ms as u64 * 1000);
        self.lt_bw_interval_done(bw, a);
    }

    /// `bbr_update_ack_aggregation`: the data ACKed beyond what the
    /// bandwidth explains since the epoch began, a max over 5-10 rounds.
    fn update_ack_aggregation(&mut self, rs: &RateSample, a: &BbrAck) {
        let valid = rs.delivered.is_some() && rs.interval.is_some_and(|i| i / 1000 > 0);
        if EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || !valid {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = us_delta(a.delivered_at, self.ack_epoch_mstamp);
        let mut expected = (self.bw() as u128 * epoch_us as u128 / BW_UNIT as u128) as u64;
        if self.ack_epoch_acked as u64 <= expected
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = a.delivered_at;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra = (self.ack_epoch_acked as u64 - expected).min(a.cwnd as u64);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    /// `bbr_is_next_cycle_phase`: a phase lasts a min RTT; the probing
    /// phase (gain > 1) also until the inflight reaches gain x BDP or a
    /// loss, the draining one (gain < 1) ends early once inflight is down
    /// to the BDP.
    fn is_next_cycle_phase(&self, rs: &RateSample, a: &BbrAck) -> bool {
        let min_rtt = self.min_rtt_us.unwrap_or(u32::MAX as u64);
        let full_length = us_delta(a.delivered_at, self.cycle_mstamp) > min_rtt;
        if self.pacing_gain == BBR_UNIT {
            return full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight, a.now, a.next_departure);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, delivered_at: Time) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = delivered_at;
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample, a: &BbrAck) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, a) {
            self.advance_cycle_phase(a.delivered_at);
        }
    }

    /// `bbr_reset_probe_bw_mode`: PROBE_BW at a random phase (not the
    /// draining one: `CYCLE_LEN - 1 - prandom_u32_max(bbr_cycle_rand)`,
    /// then advanced).
    pub(super) fn reset_probe_bw_mode(&mut self, delivered_at: Time) {
        self.mode = Mode::ProbeBw;
        let r = ((self.rng.next_u64() >> 32) * CYCLE_RAND) >> 32;
        self.cycle_idx = CYCLE_LEN - 1 - r as u32;
        self.advance_cycle_phase(delivered_at);
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self, delivered_at: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(delivered_at);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`: the pipe is full after 3 rounds
    /// without 25 % growth of the max bandwidth (not counting
    /// application-limited rounds).
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`: STARTUP -> DRAIN once the pipe is full (ssthresh
    /// = the BDP's inflight); DRAIN -> PROBE_BW once inflight at the next
    /// departure is down to it.
    fn check_drain(&mut self, a: &BbrAck, out: &mut BbrOut) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            out.ssthresh = Some(self.inflight(self.max_bw(), BBR_UNIT));
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(a.in_flight, a.now, a.next_departure)
                <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(a.delivered_at);
        }
    }

    /// `bbr_check_probe_rtt_done`: after 200 ms and a round at the minimum
    /// window, back to STARTUP or PROBE_BW with the saved cwnd. Returns the
    /// cwnd to restore, if done.
    pub(super) fn check_probe_rtt_done(
        &mut self,
        now: Time,
        delivered_at: Time,
        cwnd: u32,
    ) -> Option<u32> {
        let j = self.jiffies(now);
        if !(self.probe_rtt_done_stamp != 0 && j > self.probe_rtt_done_stamp) {
            return None;
        }
        self.min_rtt_stamp = j;
        let restored = cwnd.max(self.prior_cwnd);
        self.reset_mode(delivered_at);
        Some(restored)
    }

    /// `bbr_update_min_rtt`: the 10 s min-RTT filter, and PROBE_RTT: when
    /// it expires, hold inflight at 4 segments for 200 ms and one round.
    fn update_min_rtt(&mut self, rs: &RateSample, a: &BbrAck, out: &mut BbrOut) {
        let j = self.jiffies(a.now);
        let expired = j > self.min_rtt_stamp + MIN_RTT_WIN_SEC * self.hz as u64;
        if let Some(rtt) = rs.rtt {
            let rtt_us = rtt / 1000;
            if self.min_rtt_us.is_none_or(|m| rtt_us <= m) || expired {
                self.min_rtt_us = Some(rtt_us);
                self.min_rtt_stamp = j;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(out.cwnd);
            self.probe_rtt_done_stamp = 0;
        }
        if self.mode == Mode::ProbeRtt {
            out.mark_app_limited = true;
            if self.probe_rtt_done_stamp == 0 && a.in_flight <= CWND_MIN_TARGET {
                let ms_jiffies = (PROBE_RTT_MODE_MS * self.hz as u64).div_ceil(1000);
                self.probe_rtt_done_stamp = j + ms_jiffies;
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = a.delivered;
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    if let Some(c) = self.check_probe_rtt_done(a.now, a.delivered_at, out.cwnd) {
                        out.cwnd = c;
                    }
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt_use_bw => (BBR_UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx as usize], CWND_GAIN),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: losses come off cwnd; the
    /// first round of recovery conserves packets (cwnd = in flight +
    /// acked); leaving recovery restores the cwnd saved at its start.
    /// Returns the cwnd and whether packet conservation holds.
    fn recover_or_restore(&mut self, rs: &RateSample, a: &BbrAck, cwnd: u32) -> (u32, bool) {
        let acked = rs.acked_sacked;
        let mut cwnd = cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd as i64 - rs.losses as i64).max(1) as u32;
        }
        let (prev, state) = (self.prev_ca_state, a.ca);
        if state == CaLevel::Recovery && prev != CaLevel::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = a.delivered;
            cwnd = a.in_flight + acked;
        } else if prev >= CaLevel::Recovery && state < CaLevel::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(a.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow-start towards the target (cwnd gain x BDP +
    /// aggregation + quantization), cut to it once the pipe is full; at
    /// least 4; 4 in PROBE_RTT.
    fn set_cwnd(&mut self, rs: &RateSample, a: &BbrAck, cwnd: u32, bw: u64, gain: u32) -> u32 {
        let acked = rs.acked_sacked;
        let mut cwnd = cwnd;
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(rs, a, cwnd);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || a.delivered < TCP_INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        cwnd = cwnd.min(a.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        cwnd
    }

    /// `bbr_ssthresh`: entering recovery (or a timeout) saves cwnd;
    /// ssthresh stays.
    pub fn on_enter_recovery(&mut self, cwnd: u32) {
        self.save_cwnd(cwnd);
    }

    /// `bbr_undo_cwnd`: a spurious reduction: full-pipe detection and
    /// long-term sampling start over; cwnd is left as it is.
    pub fn on_undo(&mut self, delivered: u64, delivered_at: Time, lost: u64) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling(delivered, delivered_at, lost);
    }

    /// `bbr_set_state(TCP_CA_Loss)`: a timeout ends the round and counts
    /// as a loss for the long-term sampling.
    pub fn on_loss_state(&mut self, a: &BbrAck) {
        let rs = RateSample {
            losses: 1,
            ..RateSample::default()
        };
        self.prev_ca_state = CaLevel::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.lt_bw_sampling(&rs, a);
    }
}
