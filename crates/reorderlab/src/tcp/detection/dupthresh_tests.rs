//! Tests of [`super`] (dupthresh.rs).

use super::*;

#[test]
fn timeout_cost_worked_example() {
    // W = 16, T / R = 20 (1 s RTO, 50 ms RTT), k = 1:
    // 16 (20 + 4 - 1 - 2) + 1 = 337 packets.
    assert!((cost_timeout(16.0, 20.0, 1.0) - 337.0).abs() < 1e-9);
}

#[test]
fn false_fast_retransmit_cost_interpolates_k() {
    // W = 50: k = 1 -> 1 * 50 / 2 = 25; k = 2 -> 2 * 49 / 2 = 49.
    assert!((cost_false_fast_retransmit(50.0, 1.0) - 25.0).abs() < 1e-9);
    assert!((cost_false_fast_retransmit(50.0, 2.0) - 49.0).abs() < 1e-9);
    // D / R = 1.5: halfway between.
    assert!((cost_false_fast_retransmit(50.0, 1.5) - 37.0).abs() < 1e-9);
    // k capped at W / 2 = 4 for W = 8: 4 * 5 / 2 = 10.
    assert!((cost_false_fast_retransmit(8.0, 9.0) - 10.0).abs() < 1e-9);
}

#[test]
fn limited_transmit_cost() {
    // Idle for 2 RTTs with W = 50, 7 dupacks meanwhile: 100 - 7.
    assert!((cost_limited_transmit(2.0, 50.0, 7) - 93.0).abs() < 1e-9);
}

#[test]
fn fa_ratio_steps_up_on_false_fr_and_down_on_timeout() {
    let mut rr = RrTcp::new(0.9, true, 1.0, secs(80.0));
    rr.on_false_fast_retransmit(ms(50));
    assert!((rr.fa_ratio - 0.91).abs() < 1e-12);
    // D = 50 ms = R: C(FFR) = W / 2 = 25 for W = 50; C(timeout) with
    // T / R = 20: 50 (20 + log2 50 - 3) + 1.
    let c_to = 50.0 * (20.0 + crate::num::log2(50.0) - 3.0) + 1.0;
    rr.on_timeout(50.0, ms(1000), ms(50));
    let expected = 0.91 - c_to / 25.0 * 0.01;
    assert!(
        (rr.fa_ratio - expected.max(0.0)).abs() < 1e-12,
        "{}",
        rr.fa_ratio
    );
    // A fixed FA ratio (DSACK-FA) never moves.
    let mut fa = RrTcp::new(0.9, false, 1.0, secs(80.0));
    fa.on_false_fast_retransmit(ms(50));
    fa.on_timeout(50.0, ms(1000), ms(50));
    assert_eq!(fa.fa_ratio, 0.9);
}

#[test]
fn dupthresh_is_percentile_plus_one_within_bounds() {
    let mut rr = RrTcp::new(0.9, false, 1.0, secs(80.0));
    assert_eq!(rr.dupthresh(0), 3);
    for len in 1..=10 {
        rr.on_sample(len, 0);
    }
    assert_eq!(rr.dupthresh(0), 10);
    for _ in 0..100 {
        rr.on_sample(200, 0);
    }
    assert_eq!(rr.dupthresh(0), 64);
    // All samples expire: back to 3.
    assert_eq!(rr.dupthresh(secs(81.0)), 3);
    // The other reading (`tcp.rr_percentile_offset = 0`): the percentile.
    let mut rr = RrTcp::new(0.9, false, 1.0, secs(80.0));
    rr.offset = 0;
    for len in 1..=10 {
        rr.on_sample(len, 0);
    }
    assert_eq!(rr.dupthresh(0), 9);
}

#[test]
fn long_reordering_samples_are_clamped_or_discarded() {
    use crate::tcp::detection::reordering::LongSamples;
    // The histogram's top bin is 64: a held packet measured at 80 counts
    // there (dupthresh 64) or, discarded, not at all (dupthresh from the rest).
    for (long, want) in [(LongSamples::Clamp, 64), (LongSamples::Discard, 11)] {
        let mut rr = RrTcp::new(0.5, false, 1.0, secs(80.0));
        rr.histogram.long = long;
        for _ in 0..10 {
            rr.on_sample(10, 0);
        }
        for _ in 0..20 {
            rr.on_sample(80, 0);
        }
        assert_eq!(rr.dupthresh(0), want, "{long:?}");
    }
}

#[test]
fn blanton_allman_schemes() {
    let mut inc = BlantonAllman::new(BlScheme::Increment);
    inc.on_false_fast_retransmit(3, Some(5), None);
    assert_eq!(inc.dupthresh(100.0), 4);
    // Capped at 0.9 cwnd.
    for _ in 0..20 {
        inc.on_false_fast_retransmit(3, None, None);
    }
    assert_eq!(inc.dupthresh(10.0), 9);
    inc.on_timeout();
    assert_eq!(inc.dupthresh(100.0), 3);
    let mut avg = BlantonAllman::new(BlScheme::Average);
    avg.on_false_fast_retransmit(9, None, None);
    assert_eq!(avg.dupthresh(100.0), 6);
    let mut byn = BlantonAllman::new(BlScheme::IncrementByN);
    byn.on_false_fast_retransmit(3, Some(12), None);
    assert_eq!(byn.dupthresh(100.0), 13);
    let mut timed = BlantonAllman::new(BlScheme::TimeDelay);
    timed.on_false_fast_retransmit(3, None, Some(ms(30)));
    timed.on_false_fast_retransmit(3, None, Some(ms(10)));
    // Never reduced; capped at srtt / 2.
    assert_eq!(timed.delay(ms(100)), ms(30));
    assert_eq!(timed.delay(ms(40)), ms(20));
    let mut tinc = BlantonAllman::new(BlScheme::TimeIncrement);
    tinc.on_false_fast_retransmit(3, None, None);
    tinc.on_false_fast_retransmit(3, None, None);
    assert_eq!(tinc.delay(ms(100)), ms(20));
}

#[test]
fn avg_dev_k4_against_hand_computed_values() {
    let mut ad = AvgDev::new(AvgDevFormula::K4);
    assert_eq!(ad.dupthresh(100.0, None), 3);
    // First sample 4: avg 4, dev 2; floor(4 + 8) + 1 = 13.
    ad.on_sample(4);
    assert_eq!((ad.avg(), ad.dev()), (Some(4.0), 2.0));
    assert_eq!(ad.dupthresh(100.0, None), 13);
    // Sample 12: dev = 2 + (8 - 2) / 4 = 3.5 (with the old avg),
    // avg = 4 + (12 - 4) / 8 = 5; floor(5 + 14) + 1 = 20.
    ad.on_sample(12);
    assert_eq!((ad.avg(), ad.dev()), (Some(5.0), 3.5));
    assert_eq!(ad.dupthresh(100.0, None), 20);
    // Sample 5 (= avg): dev = 3.5 - 3.5 / 4 = 2.625, avg stays 5;
    // floor(5 + 10.5) + 1 = 16.
    ad.on_sample(5);
    assert_eq!((ad.avg(), ad.dev()), (Some(5.0), 2.625));
    assert_eq!(ad.dupthresh(100.0, None), 16);
    // Capped at 0.9 cwnd, never below 3; timeouts change nothing.
    assert_eq!(ad.dupthresh(10.0, None), 9);
    assert_eq!(ad.dupthresh(2.0, None), 3);
    ad.on_timeout();
    assert_eq!(ad.dupthresh(100.0, Some(10.0)), 16);
    // Constant lengths: dev decays by 3/4 a sample, dupthresh -> L + 1.
    let mut c = AvgDev::new(AvgDevFormula::K4);
    for _ in 0..60 {
        c.on_sample(6);
    }
    assert_eq!(c.avg(), Some(6.0));
    assert!(c.dev() < 1e-6);
    assert_eq!(c.dupthresh(100.0, None), 7);
}

#[test]
fn avg_dev_sources_reading_against_hand_computed_values() {
    let g = 19.0 / 64.0;
    let mut ad = AvgDev::new(AvgDevFormula::Sources);
    // First sample 8: avg 8, dev 0: dupthresh = avg + dev = 8.
    ad.on_sample(8);
    assert_eq!((ad.avg(), ad.dev()), (Some(8.0), 0.0));
    assert_eq!(ad.dupthresh(100.0, None), 8);
    // Sample 16: dev = g x 8 = 2.375, avg = 8 + g x 8 = 10.375:
    // floor(12.75) = 12.
    ad.on_sample(16);
    assert!((ad.dev() - g * 8.0).abs() < 1e-12);
    assert_eq!(ad.avg(), Some(8.0 + g * 8.0));
    assert_eq!(ad.dupthresh(100.0, None), 12);
    // The bound: cwnd x (0.7 RTO / SRTT - 2); with RTO = 5 SRTT and cwnd
    // 8, 8 x 1.5 = 12 holds, with cwnd 6, 9.
    assert_eq!(ad.dupthresh(8.0, Some(5.0)), 12);
    assert_eq!(ad.dupthresh(6.0, Some(5.0)), 9);
    // A timeout: avg / 2, dev / 4: floor(5.1875 + 0.59375) = 5.
    ad.on_timeout();
    assert_eq!(ad.dupthresh(100.0, None), 5);
    // Never below 3.
    assert_eq!(ad.dupthresh(1.0, Some(2.0)), 3);
}

#[test]
fn td_fr_waits_max_of_half_srtt_and_dupack_spread() {
    assert_eq!(td_fr_deadline(ms(100), ms(110), ms(60)), ms(130));
    assert_eq!(td_fr_deadline(ms(100), ms(150), ms(60)), ms(150));
}

/// AVG-DEV's bound with its remembered RTO / SRTT and without the floor
/// of a bound above avg + dev gives the plain formula's dupthresh, on
/// random samples, timeouts, windows and estimators (repeated RTO and
/// SRTT pairs, as an estimator in whole ticks gives).
#[test]
fn avg_dev_remembered_ratio_matches_the_plain_formula() {
    let plain = |ad: &AvgDev, cwnd: f64, r: Option<(Time, Time)>| -> u32 {
        let Some(avg) = ad.avg() else {
            return 3;
        };
        let ratio = r.map(|(rto, srtt)| rto as f64 / srtt as f64);
        let bound = ratio.map_or(f64::INFINITY, |r| cwnd * (0.7 * r - 2.0));
        floor(avg + ad.dev())
            .min(floor(bound))
            .max(MIN_DUPTHRESH as f64) as u32
    };
    let mut rng = crate::engine::Rng::from_seed(17);
    let mut ad = AvgDev::new(AvgDevFormula::Sources);
    let (mut rto, mut srtt) = (ms(1000), ms(200));
    let mut capped = 0;
    for step in 0..200_000 {
        let x = rng.next_u64();
        match x % 50 {
            0 => ad.on_sample((x >> 8) as u32 % 60),
            1 => ad.on_timeout(),
            2 => rto = ms(200 + (x >> 8) % 2000),
            3 => srtt = ms(1 + (x >> 8) % 400),
            _ => {}
        }
        let cwnd = ((x >> 20) % 4000) as f64 / 16.0;
        let r = (!x.is_multiple_of(7)).then_some((rto, srtt));
        let want = plain(&ad, cwnd, r);
        let plain_bound = plain(&ad, cwnd, None);
        capped += (want < plain_bound) as u32;
        assert_eq!(ad.dupthresh_at(cwnd, r), want, "step {step}");
    }
    assert!(capped > 1000, "the bound must bind in some steps: {capped}");
}
