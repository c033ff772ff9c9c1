//! Retransmission timeout estimation, RFC 6298.
//!
//! Pure state: samples in, RTO out. Karn's rule (Sec. 3: no samples from
//! retransmitted segments) is enforced by the caller, which knows what was
//! retransmitted; the backoff (Sec. 5.5) lives here.

use crate::engine::Time;

#[derive(Debug, Clone, Copy)]
pub struct RtoConfig {
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// Clock granularity G.
    pub granularity: Time,
}

#[derive(Debug, Clone)]
pub struct RtoEstimator {
    pub cfg: RtoConfig,
    srtt: Option<Time>,
    rttvar: Time,
    /// Un-backed-off RTO.
    base_rto: Time,
    /// Number of consecutive backoffs.
    backoff: u32,
    min_rtt: Option<Time>,
}

impl RtoEstimator {
    pub fn new(cfg: RtoConfig) -> RtoEstimator {
        RtoEstimator {
            cfg,
            srtt: None,
            rttvar: 0,
            base_rto: cfg.initial_rto,
            backoff: 0,
            min_rtt: None,
        }
    }

    /// RFC 6298 Sec. 2.2 / 2.3: fold in a measurement `r`.
    pub fn on_sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RTTVAR <- (1 - beta) RTTVAR + beta |SRTT - R'|, beta = 1/4
                let err = srtt.abs_diff(r);
                self.rttvar = self.rttvar - self.rttvar / 4 + err / 4;
                // SRTT <- (1 - alpha) SRTT + alpha R', alpha = 1/8
                self.srtt = Some(srtt - srtt / 8 + r / 8);
            }
        }
        let srtt = self.srtt.unwrap();
        self.base_rto = srtt + self.cfg.granularity.max(4 * self.rttvar);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        // Sec. 5.7 / Karn: a valid sample after a backoff collapses it.
        self.backoff = 0;
    }

    /// Sec. 5.5: double the timer after an expiry.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    /// The current RTO, with backoff, clamped to [min_rto, max_rto]
    /// (Sec. 2.4, 2.5).
    pub fn rto(&self) -> Time {
        let clamped = self.base_rto.max(self.cfg.min_rto);
        let backed = clamped.saturating_mul(1u64 << self.backoff);
        backed.min(self.cfg.max_rto)
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    fn est(min_rto: Time) -> RtoEstimator {
        RtoEstimator::new(RtoConfig {
            min_rto,
            max_rto: ms(60_000),
            initial_rto: ms(1000),
            granularity: ms(1),
        })
    }

    #[test]
    fn first_and_second_sample_follow_rfc6298() {
        let mut e = est(0);
        assert_eq!(e.rto(), ms(1000));
        e.on_sample(ms(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rto(), ms(300));
        e.on_sample(ms(200));
        // RTTVAR = 3/4 * 50 + 1/4 * 100 = 62.5; SRTT = 7/8 * 100 + 1/8 * 200 = 112.5
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), Some(112_500_000));
        assert_eq!(e.rto(), 112_500_000 + 4 * 62_500_000);
    }

    #[test]
    fn min_rto_backoff_and_collapse_on_new_sample() {
        let mut e = est(ms(1000));
        e.on_sample(ms(50));
        assert_eq!(e.rto(), ms(1000));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(4000));
        e.on_sample(ms(50));
        assert_eq!(e.rto(), ms(1000));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), ms(60_000));
    }
}
