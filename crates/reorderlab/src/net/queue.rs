//! Queue disciplines: admission decisions for a link's FIFO.
//!
//! The link itself keeps the packets (see [`super::link`]); a discipline only
//! decides, from the queue's occupancy at the arrival instant, whether an
//! arriving packet is accepted.

use crate::engine::{Rng, Time};
use crate::num::powf;

/// Occupancy of a link's queue when a packet arrives, excluding the packet
/// in transmission (as ns-2 counts it).
#[derive(Debug, Clone, Copy)]
pub struct Occupancy {
    pub packets: u32,
    pub bytes: u64,
    /// When the queue last became empty (link idle since then), if it is empty.
    pub idle_since: Option<Time>,
}

/// Random Early Detection state (Floyd & Jacobson, "Random Early Detection
/// Gateways for Congestion Avoidance", ToN 1993, Sec. 4 and Fig. 2).
#[derive(Debug, Clone)]
pub struct Red {
    pub limit_packets: u32,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    /// Gentle RED (Floyd 2000): drop probability ramps from max_p to 1
    /// between max_th and 2 max_th instead of jumping to 1.
    pub gentle: bool,
    /// Use the instantaneous queue instead of the average (the wwan paper).
    pub instantaneous: bool,
    /// Typical transmission time of a packet, for the idle-period decay.
    pub typical_tx: Time,
    avg: f64,
    /// Packets accepted since the last drop (the paper's `count`).
    count: i64,
}

impl Red {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        limit_packets: u32,
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        instantaneous: bool,
        typical_tx: Time,
    ) -> Red {
        Red {
            limit_packets,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            instantaneous,
            typical_tx: typical_tx.max(1),
            avg: 0.0,
            count: -1,
        }
    }

    pub fn average(&self) -> f64 {
        self.avg
    }

    fn update_average(&mut self, occ: Occupancy, now: Time) {
        if self.instantaneous {
            self.avg = occ.packets as f64;
            return;
        }
        match occ.idle_since {
            // Idle period: decay as if m small packets had been sent (Fig. 2).
            Some(since) if occ.packets == 0 => {
                let m = (now.saturating_sub(since)) as f64 / self.typical_tx as f64;
                self.avg *= powf(1.0 - self.w_q, m);
            }
            _ => self.avg = (1.0 - self.w_q) * self.avg + self.w_q * occ.packets as f64,
        }
    }

    /// The marking probability p_b for the current average.
    fn p_b(&self) -> f64 {
        let avg = self.avg;
        if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && avg < 2.0 * self.max_th {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        }
    }

    /// True if the arriving packet is to be dropped.
    pub fn drop_arrival(&mut self, occ: Occupancy, now: Time, rng: &mut Rng) -> bool {
        self.update_average(occ, now);
        if occ.packets >= self.limit_packets {
            self.count = 0;
            return true;
        }
        let pb = self.p_b();
        if pb <= 0.0 {
            self.count = -1;
            return false;
        }
        if pb >= 1.0 {
            self.count = 0;
            return true;
        }
        self.count += 1;
        // Spread drops evenly: p_a = p_b / (1 - count p_b).
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
        if rng.uniform() < pa {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

/// The queue discipline of one link.
#[derive(Debug, Clone)]
pub enum QueueDisc {
    /// Drop the arrival if it would exceed either limit.
    DropTail {
        limit_packets: Option<u32>,
        limit_bytes: Option<u64>,
    },
    Red(Box<Red>),
}

impl QueueDisc {
    /// True if the arriving packet of `size` bytes is to be dropped.
    pub fn drop_arrival(&mut self, occ: Occupancy, size: u32, now: Time, rng: &mut Rng) -> bool {
        match self {
            QueueDisc::DropTail {
                limit_packets,
                limit_bytes,
            } => {
                limit_packets.is_some_and(|l| occ.packets + 1 > l)
                    || limit_bytes.is_some_and(|l| occ.bytes + size as u64 > l)
            }
            QueueDisc::Red(red) => red.drop_arrival(occ, now, rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(packets: u32) -> Occupancy {
        Occupancy {
            packets,
            bytes: packets as u64 * 1000,
            idle_since: None,
        }
    }

    #[test]
    fn droptail_limits_packets_and_bytes() {
        let mut rng = Rng::from_seed(1);
        let mut q = QueueDisc::DropTail {
            limit_packets: Some(3),
            limit_bytes: None,
        };
        assert!(!q.drop_arrival(occ(2), 1000, 0, &mut rng));
        assert!(q.drop_arrival(occ(3), 1000, 0, &mut rng));
        let mut b = QueueDisc::DropTail {
            limit_packets: None,
            limit_bytes: Some(2500),
        };
        assert!(!b.drop_arrival(occ(1), 1000, 0, &mut rng));
        assert!(b.drop_arrival(occ(2), 1000, 0, &mut rng));
    }

    #[test]
    fn red_instantaneous_drop_rate_follows_linear_ramp() {
        // Instantaneous mode, queue held at the midpoint: p_b = max_p / 2 and
        // with the count correction drops are spaced about 1/p_b apart.
        let mut red = Red::new(100, 10.0, 50.0, 0.1, 0.002, false, true, 1000);
        let mut rng = Rng::from_seed(9);
        let n = 100_000;
        let drops = (0..n)
            .filter(|_| red.drop_arrival(occ(30), 0, &mut rng))
            .count();
        // Uniformised drops: inter-drop gap uniform on 1..1/p_b, mean (1/p_b + 1)/2,
        // so the rate is about 2 p_b / (1 + p_b) = 0.0952.
        let rate = drops as f64 / n as f64;
        assert!((rate - 0.0952).abs() < 0.01, "rate {rate}");
        // Below min_th nothing is dropped; at or above max_th everything.
        assert!(!red.drop_arrival(occ(5), 0, &mut rng));
        assert!(red.drop_arrival(occ(60), 0, &mut rng));
    }

    #[test]
    fn gentle_red_ramps_to_one_at_twice_max_th() {
        let mut red = Red::new(1000, 10.0, 50.0, 0.1, 0.002, true, true, 1000);
        red.avg = 75.0;
        assert!((red.p_b() - (0.1 + 0.9 * 0.5)).abs() < 1e-12);
        red.avg = 100.0;
        assert_eq!(red.p_b(), 1.0);
    }

    #[test]
    fn red_average_decays_while_idle() {
        let mut red = Red::new(100, 5.0, 15.0, 0.1, 0.5, false, false, 1000);
        let mut rng = Rng::from_seed(1);
        red.avg = 8.0;
        let idle = Occupancy {
            packets: 0,
            bytes: 0,
            idle_since: Some(0),
        };
        red.drop_arrival(idle, 2000, &mut rng);
        // Two typical transmission times idle with w_q = 0.5: avg * 0.25.
        assert!((red.average() - 2.0).abs() < 1e-12);
    }
}
