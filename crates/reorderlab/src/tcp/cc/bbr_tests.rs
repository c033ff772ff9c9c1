//! BBR (`cc/bbr.rs`): each state transition and each filter on hand-made
//! rate samples. A test fails when a constant or a rule of tcp_bbr.c is
//! changed.

use super::*;
use crate::engine::time::ms;
use crate::tcp::rate::RateSample;

/// A flow driven ACK by ACK: 1000-byte segments, HZ 1000 (a jiffy is a
/// millisecond), min RTT 100 ms from the handshake.
struct Flow {
    b: Bbr,
    now: Time,
    delivered: u64,
    lost: u64,
    cwnd: u32,
    in_flight: u32,
    ca: CaLevel,
}

impl Flow {
    fn new(seed: u64) -> Flow {
        let mut b = Bbr::new(1000, 1000, Rng::from_seed(seed));
        b.init(0, 10, Some(ms(100)), Some(ms(100)));
        Flow {
            b,
            now: 0,
            delivered: 0,
            lost: 0,
            cwnd: 10,
            in_flight: 10,
            ca: CaLevel::Open,
        }
    }

    fn ctx(&self) -> BbrAck {
        BbrAck {
            now: self.now,
            cwnd: self.cwnd,
            in_flight: self.in_flight,
            delivered: self.delivered,
            delivered_at: self.now,
            lost: self.lost,
            ca: self.ca,
            next_departure: 0,
            cwnd_clamp: u32::MAX,
        }
    }

    /// An ACK `dt` after the last delivering `n` segments, whose sample
    /// starts at `prior` delivered, spans `interval`, with RTT `rtt`.
    fn ack_with(
        &mut self,
        dt: Time,
        n: u32,
        prior: u64,
        interval: Time,
        rtt: Time,
        losses: u32,
    ) -> BbrOut {
        self.now += dt;
        self.delivered += n as u64;
        self.lost += losses as u64;
        let rs = RateSample {
            prior_delivered: prior,
            prior_at: self.now.saturating_sub(interval),
            has_prior: true,
            delivered: Some(self.delivered - prior),
            interval: Some(interval),
            acked_sacked: n,
            losses,
            prior_in_flight: self.in_flight,
            rtt: Some(rtt),
            ..RateSample::default()
        };
        let a = self.ctx();
        let out = self.b.on_rate_sample(&rs, &a, Some(rtt));
        self.cwnd = out.cwnd;
        out
    }

    /// One round trip of `rtt`: an ACK delivering `n` segments, all sent
    /// since the previous round ended (a round starts on every call).
    fn round(&mut self, n: u32, rtt: Time, losses: u32) -> BbrOut {
        let prior = self.delivered;
        self.ack_with(rtt, n, prior, rtt, rtt, losses)
    }

    /// STARTUP at 100 segments/s (10 per 100 ms) until DRAIN and PROBE_BW.
    fn to_probe_bw(seed: u64) -> Flow {
        let mut f = Flow::new(seed);
        for _ in 0..4 {
            f.round(10, ms(100), 0);
        }
        f.in_flight = 10;
        f.round(10, ms(100), 0);
        assert_eq!(f.b.mode, Mode::ProbeBw);
        f
    }
}

/// `n` segments per 100 ms as `bbr_update_bw` scales it.
const fn bw_of(n: u64) -> u64 {
    n * BW_UNIT / 100_000
}
const BW_100: u64 = bw_of(10);

#[test]
fn the_gains_are_the_kernels() {
    assert_eq!(HIGH_GAIN, 739, "2/ln 2 x 256, rounded up");
    assert_eq!(DRAIN_GAIN, 88, "256 / 2.885");
    assert_eq!(CWND_GAIN, 512);
    assert_eq!(PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
    assert_eq!((BW_RTTS, MIN_RTT_WIN_SEC, PROBE_RTT_MODE_MS), (10, 10, 200));
    assert_eq!((CWND_MIN_TARGET, FULL_BW_CNT, FULL_BW_THRESH), (4, 3, 320));
}

/// `bbr_init_pacing_rate_from_rtt`: high gain x 10 segments / 100 ms x
/// 0.99, in bytes/s.
#[test]
fn the_first_pacing_rate_is_high_gain_over_the_handshake_rtt() {
    let f = Flow::new(1);
    let exact = 2.885 * 100.0 * 1000.0 * 0.99;
    let r = f.b.pacing_rate as f64;
    assert!((r / exact - 1.0).abs() < 2e-3, "{r} vs {exact}");
    assert_eq!(f.b.mode, Mode::Startup);
    assert_eq!(f.b.tso_segs_goal(), 2);
}

/// STARTUP grows cwnd by what is acknowledged (slow start towards
/// high gain x BDP) while the bandwidth grows.
#[test]
fn startup_grows_cwnd_by_the_acked_segments() {
    let mut f = Flow::new(1);
    let out = f.round(10, ms(100), 0);
    assert_eq!(out.cwnd, 20);
    assert_eq!(f.b.max_bw(), BW_100);
    let out = f.round(20, ms(100), 0);
    assert_eq!(out.cwnd, 40);
    assert_eq!(f.b.full_bw_cnt, 0, "doubling is growth");
}

/// Full pipe: three rounds without 25 % growth of the max bandwidth
/// end STARTUP; DRAIN sets ssthresh to the BDP's inflight and lasts until
/// the inflight is down to it; then PROBE_BW.
#[test]
fn startup_ends_after_three_rounds_without_growth_then_drain() {
    let mut f = Flow::new(1);
    f.in_flight = 30;
    f.round(10, ms(100), 0);
    for cnt in 1..3 {
        f.round(10, ms(100), 0);
        assert_eq!(f.b.full_bw_cnt, cnt);
        assert_eq!(f.b.mode, Mode::Startup);
    }
    let out = f.round(10, ms(100), 0);
    assert!(f.b.full_bw_reached);
    assert_eq!(f.b.mode, Mode::Drain);
    // BDP 10 (ceil of 9.99...), + 3 x 2 for the skbs in flight
    assert_eq!(out.ssthresh, Some(16));
    assert_eq!(f.b.pacing_gain, DRAIN_GAIN);
    // DRAIN paces below 1.2 Mbit/s: one segment per skb, a budget of 3
    f.in_flight = 15;
    f.round(10, ms(100), 0);
    assert_eq!(f.b.mode, Mode::Drain);
    assert_eq!(f.b.inflight(f.b.max_bw(), BBR_UNIT), 14);
    f.in_flight = 14;
    f.round(10, ms(100), 0);
    assert_eq!(f.b.mode, Mode::ProbeBw);
    assert_ne!(f.b.cycle_idx, 1, "never starts in the draining phase");
}

/// A sample 25 % above the full-pipe reference restarts the count.
#[test]
fn growth_of_a_quarter_restarts_the_full_pipe_count() {
    let mut f = Flow::new(1);
    f.round(10, ms(100), 0);
    f.round(10, ms(100), 0);
    assert_eq!(f.b.full_bw_cnt, 1);
    f.round(12, ms(100), 0);
    assert_eq!(f.b.full_bw_cnt, 2, "20 % is not growth");
    f.round(13, ms(100), 0);
    assert_eq!(f.b.full_bw_cnt, 0, "30 % is");
    assert!(!f.b.full_bw_reached);
}

/// `bbr_reset_probe_bw_mode`: the start phase is random over 7 of the 8
/// (never the 0.75 drain phase), from the flow's seeded stream.
#[test]
fn probe_bw_starts_at_a_random_phase_but_the_drain_one() {
    let mut b = Bbr::new(1000, 1000, Rng::from_seed(7));
    let mut seen = [0u32; CYCLE_LEN as usize];
    for _ in 0..700 {
        b.reset_probe_bw_mode(0);
        seen[b.cycle_idx as usize] += 1;
    }
    assert_eq!(seen[1], 0);
    assert!(
        seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 60),
        "{seen:?}"
    );
    let draw = |seed| {
        let mut b = Bbr::new(1000, 1000, Rng::from_seed(seed));
        (0..10)
            .map(|_| {
                b.reset_probe_bw_mode(0);
                b.cycle_idx
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(draw(3), draw(3));
    assert_ne!(draw(3), draw(4));
}

/// A cruising phase (gain 1) lasts one min RTT of delivery time; the
/// probing phase (1.25) also until inflight reaches 1.25 x BDP; the
/// draining phase (0.75) ends early once inflight is down to the BDP.
#[test]
fn the_gain_cycle_advances_by_min_rtt_and_inflight() {
    let mut f = Flow::to_probe_bw(1);
    f.b.cycle_idx = 2;
    f.b.cycle_mstamp = f.now;
    f.round(10, ms(100), 0);
    assert_eq!(f.b.cycle_idx, 2, "exactly one min RTT is not more");
    f.ack_with(ms(1), 1, f.delivered, ms(100), ms(100), 0);
    assert_eq!(f.b.cycle_idx, 3);
    // probing: a full min RTT, but inflight below 1.25 x BDP
    f.b.cycle_idx = 0;
    f.b.pacing_gain = PACING_GAIN[0];
    f.b.cycle_mstamp = f.now;
    f.in_flight = 5;
    f.round(10, ms(101), 0);
    assert_eq!(f.b.cycle_idx, 0);
    f.in_flight = f.b.inflight(f.b.max_bw(), PACING_GAIN[0]);
    f.round(10, ms(101), 0);
    assert_eq!(f.b.cycle_idx, 1);
    assert_eq!(f.b.pacing_gain, PACING_GAIN[1]);
    // draining: inflight at the BDP ends it at once
    f.in_flight = f.b.inflight(f.b.max_bw(), BBR_UNIT);
    f.ack_with(ms(1), 1, f.delivered, ms(100), ms(100), 0);
    assert_eq!(f.b.cycle_idx, 2);
}

/// The pacing rate in PROBE_BW is gain x bandwidth x 0.99.
#[test]
fn the_pacing_rate_is_gain_times_bandwidth() {
    let mut f = Flow::to_probe_bw(1);
    f.b.cycle_idx = 3;
    f.b.cycle_mstamp = f.now;
    f.ack_with(ms(1), 1, f.delivered, ms(100), ms(100), 0);
    let exact = 100.0 * 1000.0 * 0.99;
    let r = f.b.pacing_rate as f64;
    assert!((r / exact - 1.0).abs() < 1e-3, "{r}");
}

/// The max filter keeps a bandwidth sample for 10 rounds.
#[test]
fn the_bandwidth_filter_is_a_max_over_ten_rounds() {
    let mut f = Flow::new(1);
    f.round(20, ms(100), 0);
    let high = f.b.max_bw();
    assert_eq!(high, bw_of(20));
    for _ in 0..10 {
        f.round(10, ms(100), 0);
    }
    assert_eq!(f.b.rtt_cnt, 11);
    assert_eq!(f.b.max_bw(), high);
    f.round(10, ms(100), 0);
    assert_eq!(f.b.max_bw(), BW_100);
}

/// An application-limited sample lower than the estimate is ignored.
#[test]
fn app_limited_samples_cannot_lower_the_estimate() {
    let mut f = Flow::new(1);
    f.round(20, ms(100), 0);
    let prior = f.delivered;
    f.now += ms(100);
    f.delivered += 5;
    let rs = RateSample {
        prior_delivered: prior,
        has_prior: true,
        delivered: Some(5),
        interval: Some(ms(100)),
        acked_sacked: 5,
        is_app_limited: true,
        ..RateSample::default()
    };
    let a = f.ctx();
    f.b.on_rate_sample(&rs, &a, Some(ms(100)));
    assert_eq!(f.b.max_bw(), bw_of(20));
    assert_eq!(f.b.rtt_cnt, 2, "the round still counts");
}

/// PROBE_RTT: 10 s without a lower RTT sample, inflight capped at 4 until
/// 200 ms and a round have passed at 4; then back to PROBE_BW with the
/// cwnd saved at its start.
#[test]
fn probe_rtt_every_ten_seconds_for_200_ms_at_four_packets() {
    let mut f = Flow::to_probe_bw(1);
    f.in_flight = 20;
    let start = f.b.min_rtt_stamp;
    while f.b.jiffies(f.now + ms(110)) <= start + 10_000 {
        f.round(10, ms(110), 0);
        assert_ne!(f.b.mode, Mode::ProbeRtt);
    }
    let before = f.cwnd;
    let out = f.round(10, ms(110), 0);
    assert_eq!(f.b.mode, Mode::ProbeRtt);
    assert_eq!(out.cwnd, CWND_MIN_TARGET);
    assert!(out.mark_app_limited);
    assert_eq!(f.b.prior_cwnd, before);
    assert_eq!(
        f.b.min_rtt_us,
        Some(110_000),
        "the expired filter takes the sample"
    );
    f.in_flight = 4;
    f.ack_with(ms(10), 2, f.delivered, ms(110), ms(110), 0);
    let done = f.b.probe_rtt_done_stamp;
    assert_eq!(done, f.b.jiffies(f.now) + 200);
    // rounds pass, but not 200 ms
    for _ in 0..3 {
        f.ack_with(ms(60), 2, f.delivered, ms(110), ms(110), 0);
        assert_eq!(f.b.mode, Mode::ProbeRtt);
    }
    let out = f.ack_with(ms(60), 2, f.delivered, ms(110), ms(110), 0);
    assert_eq!(f.b.mode, Mode::ProbeBw);
    assert!(
        out.cwnd >= before.min(f.b.inflight(f.b.bw(), CWND_GAIN)),
        "{}",
        out.cwnd
    );
    assert_eq!(f.b.min_rtt_stamp, f.b.jiffies(f.now));
}

/// Packet conservation in the first round of recovery (cwnd = in flight
/// plus acked, less the losses), and the cwnd saved at its start restored
/// when it ends (`bbr_set_cwnd_to_recover_or_restore`).
#[test]
fn recovery_conserves_packets_then_restores_cwnd() {
    let mut f = Flow::to_probe_bw(1);
    f.cwnd = 40;
    f.b.on_enter_recovery(40);
    assert_eq!(f.b.prior_cwnd, 40);
    f.ca = CaLevel::Recovery;
    f.in_flight = 30;
    let old = f.delivered - 5;
    let out = f.ack_with(ms(1), 2, old, ms(100), ms(100), 1);
    assert!(f.b.packet_conservation);
    assert_eq!(out.cwnd, 32);
    // still the first round: in flight + acked
    f.in_flight = 29;
    let out = f.ack_with(ms(1), 1, old, ms(100), ms(100), 0);
    assert_eq!(out.cwnd, 32, "max(cwnd, in flight + acked)");
    // a round later conservation ends: slow start towards the target
    let out = f.ack_with(ms(1), 3, f.delivered, ms(100), ms(100), 0);
    assert!(!f.b.packet_conservation);
    let target =
        |b: &Bbr| b.quantization_budget(b.bdp(b.bw(), CWND_GAIN) + b.ack_aggregation_cwnd());
    assert_eq!(out.cwnd, (32 + 3).min(target(&f.b)).max(4));
    f.ca = CaLevel::Open;
    f.cwnd = 12;
    let out = f.ack_with(ms(1), 1, f.delivered, ms(100), ms(100), 0);
    assert!(target(&f.b) < 41);
    assert_eq!(
        out.cwnd,
        target(&f.b),
        "restored to 40, then cut to the target"
    );
}

/// Policer detection: two sampling intervals (4+ rounds from a loss to a
/// loss, losing >= 20 %) with the same delivery rate: BBR uses their
/// average, pacing at gain 1, for 48 rounds.
#[test]
fn a_policer_is_detected_and_its_rate_used_for_48_rounds() {
    let mut f = Flow::to_probe_bw(1);
    f.round(10, ms(100), 3);
    assert!(f.b.lt_is_sampling);
    for _ in 0..3 {
        f.round(10, ms(100), 3);
    }
    assert_eq!(f.b.lt_bw, BW_100, "first interval: 30 delivered in 300 ms");
    assert!(!f.b.lt_use_bw);
    for _ in 0..4 {
        f.round(10, ms(100), 3);
    }
    assert!(f.b.lt_use_bw);
    assert_eq!(f.b.bw(), BW_100);
    assert_eq!(f.b.pacing_gain, BBR_UNIT);
    for _ in 0..LT_BW_MAX_RTTS - 1 {
        f.round(10, ms(100), 0);
        assert!(f.b.lt_use_bw);
    }
    f.round(10, ms(100), 0);
    assert!(!f.b.lt_use_bw, "48 rounds later the estimate is free again");
}

/// Light loss is no policer: the interval waits.
#[test]
fn light_loss_does_not_end_a_long_term_interval() {
    let mut f = Flow::to_probe_bw(1);
    for _ in 0..6 {
        f.round(10, ms(100), 1);
    }
    assert!(f.b.lt_is_sampling);
    assert_eq!(f.b.lt_bw, 0, "10 % lost: under 50/256");
}

/// ACK aggregation: 30 segments ACKed 10 ms into an epoch when the
/// bandwidth explains none; the window allowance is capped at 100 ms of
/// bandwidth (10 segments at 100/s, rounded down: 9).
#[test]
fn extra_acked_measures_ack_aggregation() {
    let mut f = Flow::to_probe_bw(1);
    f.cwnd = 100;
    f.b.ack_epoch_mstamp = f.now;
    f.b.ack_epoch_acked = 0;
    f.b.extra_acked = [0, 0];
    // a sample of 30 segments over 300 ms: the bandwidth stays 100/s
    f.ack_with(ms(10), 30, f.delivered, ms(300), ms(100), 0);
    assert_eq!(f.b.bw(), BW_100);
    assert_eq!(f.b.extra_acked(), 30);
    assert_eq!(f.b.ack_aggregation_cwnd(), 9);
}

/// A timeout counts as the end of a round and a loss for the long-term
/// sampler; an undo restarts full-pipe detection.
#[test]
fn timeout_and_undo_reset_what_tcp_bbr_resets() {
    let mut f = Flow::to_probe_bw(1);
    f.b.full_bw = 5;
    let a = f.ctx();
    f.b.on_loss_state(&a);
    assert_eq!(f.b.prev_ca_state, CaLevel::Loss);
    assert_eq!(f.b.full_bw, 0);
    assert!(f.b.lt_is_sampling);
    f.b.full_bw_cnt = 2;
    f.b.on_undo(f.delivered, f.now, f.lost);
    assert_eq!((f.b.full_bw, f.b.full_bw_cnt), (0, 0));
    assert!(!f.b.lt_is_sampling);
}

/// `bbr_bdp`, `bbr_quantization_budget`: ceil(bw x min_rtt x gain) plus
/// three skbs, even, two more in the probing phase.
#[test]
fn bdp_and_budget_round_as_the_kernel() {
    let mut f = Flow::to_probe_bw(1);
    assert_eq!(f.b.bdp(BW_100, BBR_UNIT), 10);
    assert_eq!(f.b.bdp(BW_100, CWND_GAIN), 20);
    // below 1.2 Mbit/s one segment per skb: 11 + 3, even
    f.b.cycle_idx = 3;
    assert_eq!(f.b.quantization_budget(11), 14);
    // at 100 Mbit/s (1 ms: 12 segments per skb): 11 + 36, even, + 2
    f.b.pacing_rate = 12_500_000;
    assert_eq!(f.b.tso_segs_goal(), 12);
    assert_eq!(f.b.quantization_budget(11), 48);
    f.b.cycle_idx = 0;
    assert_eq!(f.b.quantization_budget(11), 50);
    f.b.min_rtt_us = None;
    assert_eq!(f.b.bdp(BW_100, CWND_GAIN), TCP_INIT_CWND);
}
