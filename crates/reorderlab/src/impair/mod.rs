//! Impairment elements: things that sit in front of a link's queue and drop,
//! delay or reorder the packets offered to it. Each element owns its random
//! stream, so adding one never perturbs another component's draws.
//!
//! The engine calls [`Element::process`] for every packet offered to the
//! link, in the order the elements are listed, before the queue. The
//! impairment library (delay, bursty loss, Gilbert-Elliott, positioned loss,
//! swaps, the seed-003 reordering generator, ARQ) plugs in here.

use serde::Serialize;

use crate::engine::rng::Component;
use crate::engine::{Rng, Time};
use crate::net::packet::Packet;
use crate::spec::ImpairmentModel;

/// What an element decided for a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Go on to the next element / the queue.
    Pass,
    /// Dropped here.
    Drop,
}

/// Counters of one element.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ElementStats {
    pub seen: u64,
    pub dropped: u64,
}

#[derive(Debug, Clone)]
enum Model {
    /// Bernoulli loss.
    Loss { p: f64, data_only: bool },
}

/// One impairment element on a link.
#[derive(Debug)]
pub struct Element {
    pub link: u32,
    model: Model,
    rng: Rng,
    pub stats: ElementStats,
}

impl Element {
    pub fn new(link: u32, spec: &ImpairmentModel, seed: u64, index: u64) -> Element {
        let model = match *spec {
            ImpairmentModel::Loss { p, data_only } => Model::Loss { p, data_only },
        };
        Element {
            link,
            model,
            rng: Rng::for_component(seed, Component::Impairment, index),
            stats: ElementStats::default(),
        }
    }

    pub fn process(&mut self, pkt: &Packet, _now: Time) -> Verdict {
        self.stats.seen += 1;
        let verdict = match self.model {
            Model::Loss { p, data_only } => {
                if (data_only && !pkt.is_data()) || !self.rng.bernoulli(p) {
                    Verdict::Pass
                } else {
                    Verdict::Drop
                }
            }
        };
        if verdict == Verdict::Drop {
            self.stats.dropped += 1;
        }
        verdict
    }
}

/// Kind, description and parameters of each model, for `reorderlab impairments`.
pub struct ImpairmentInfo {
    pub kind: &'static str,
    pub description: &'static str,
    pub params: &'static str,
}

pub const IMPAIRMENTS: &[ImpairmentInfo] = &[ImpairmentInfo {
    kind: "loss",
    description: "Independent (Bernoulli) drop of each packet",
    params: "p: drop probability in [0, 1); data_only: spare ACKs (default true)",
}];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bernoulli_loss_rate_within_sampling_error_and_spares_acks() {
        let spec = ImpairmentModel::Loss {
            p: 0.02,
            data_only: true,
        };
        let mut e = Element::new(0, &spec, 1, 0);
        let data = Packet::data(0, 1, 1000, 0, 0, 0);
        let n = 100_000;
        let drops = (0..n)
            .filter(|_| e.process(&data, 0) == Verdict::Drop)
            .count();
        let se = (0.02 * 0.98 / n as f64).sqrt();
        assert!((drops as f64 / n as f64 - 0.02).abs() < 5.0 * se);
        let ack = Packet::control(crate::net::packet::PacketKind::Ack, 0, 0, 40, 0);
        assert!((0..1000).all(|_| e.process(&ack, 0) == Verdict::Pass));
    }
}
