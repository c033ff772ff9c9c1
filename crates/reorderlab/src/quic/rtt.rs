//! The RTT estimate of a QUIC sender: RFC 9002 Sec. 5 (Appendix A.7's
//! `UpdateRtt`).

use crate::engine::time::ms;
use crate::engine::Time;

/// kInitialRtt (RFC 9002 Sec. 6.2.2): the smoothed RTT before any sample.
pub const INITIAL_RTT: Time = ms(333);

/// min_rtt, smoothed_rtt, rttvar and latest_rtt of RFC 9002 Sec. 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttEstimator {
    pub latest: Time,
    pub smoothed: Time,
    pub rttvar: Time,
    pub min: Time,
    /// Whether a sample was taken (`first_rtt_sample` of Appendix A).
    pub first_sample_at: Option<Time>,
}

impl Default for RttEstimator {
    /// Sec. 5.3 / A.4: smoothed_rtt = kInitialRtt, rttvar = kInitialRtt / 2.
    fn default() -> Self {
        RttEstimator {
            latest: 0,
            smoothed: INITIAL_RTT,
            rttvar: INITIAL_RTT / 2,
            min: 0,
            first_sample_at: None,
        }
    }
}

impl RttEstimator {
    /// A new sample `latest` (now - time_sent of the largest newly
    /// acknowledged packet) with the peer's reported `ack_delay`, at most
    /// `max_ack_delay` (Sec. 5.3: the handshake is confirmed in this model).
    pub fn update(&mut self, latest: Time, ack_delay: Time, max_ack_delay: Time, now: Time) {
        self.latest = latest;
        if self.first_sample_at.is_none() {
            // Sec. 5.3: the first sample sets all three.
            self.min = latest;
            self.smoothed = latest;
            self.rttvar = latest / 2;
            self.first_sample_at = Some(now);
            return;
        }
        self.min = self.min.min(latest);
        let ack_delay = ack_delay.min(max_ack_delay);
        // Sec. 5.3: subtract the ACK delay only if the result stays at or
        // above min_rtt.
        let adjusted = if latest >= self.min + ack_delay {
            latest - ack_delay
        } else {
            latest
        };
        let dev = self.smoothed.abs_diff(adjusted);
        self.rttvar = (3 * self.rttvar + dev) / 4;
        self.smoothed = (7 * self.smoothed + adjusted) / 8;
    }

    /// The probe timeout's base (Sec. 6.2.1): smoothed_rtt +
    /// max(4 * rttvar, kGranularity) + max_ack_delay.
    pub fn pto_base(&self, granularity: Time, max_ack_delay: Time) -> Time {
        self.smoothed + (4 * self.rttvar).max(granularity) + max_ack_delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_sets_all_then_ewma_with_ack_delay() {
        let mut r = RttEstimator::default();
        assert_eq!((r.smoothed, r.rttvar), (ms(333), ms(333) / 2));
        r.update(ms(100), ms(10), ms(25), ms(100));
        assert_eq!((r.smoothed, r.rttvar, r.min), (ms(100), ms(50), ms(100)));
        // 120 ms with 10 ms of ACK delay: adjusted 110 (>= min + delay)
        r.update(ms(120), ms(10), ms(25), ms(200));
        assert_eq!(r.smoothed, (7 * ms(100) + ms(110)) / 8);
        assert_eq!(r.rttvar, (3 * ms(50) + ms(10)) / 4);
        // an ACK delay that would go below min_rtt is not subtracted
        r.update(ms(105), ms(20), ms(25), ms(300));
        let before = (7 * ms(100) + ms(110)) / 8;
        assert_eq!(r.smoothed, (7 * before + ms(105)) / 8);
        // the reported delay is capped at max_ack_delay
        let mut a = r;
        a.update(ms(200), ms(90), ms(25), ms(400));
        assert_eq!(a.smoothed, (7 * r.smoothed + ms(175)) / 8);
    }

    #[test]
    fn pto_base_is_srtt_plus_four_rttvar_plus_max_ack_delay() {
        let r = RttEstimator::default();
        assert_eq!(r.pto_base(ms(1), ms(25)), ms(333) + 2 * ms(333) + ms(25));
    }
}
