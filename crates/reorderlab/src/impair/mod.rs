//! Impairment elements: things that sit on a link, before its queue
//! (`ingress`) or after it (`egress`), and drop, delay or reorder the packets
//! going through. Each element owns its random stream, so adding one never
//! perturbs another component's draws.
//!
//! An element that delays packets keeps them in its own small ordered
//! structure; only its earliest release time is in the global event queue
//! (through one timer slot per element), as docs/architecture.md asks.

mod arq;
mod loss;
mod netem;
mod reorder;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use serde::Serialize;

pub use arq::Arq;
pub use loss::{BurstLoss, GilbertElliott, Positioned};
pub use netem::{Crandom, Netem};
pub use reorder::{ReorderGenerator, ReorderVerdict};

use crate::engine::rng::Component;
use crate::engine::time::secs;
use crate::engine::{Rng, Time};
use crate::net::link::Link;
use crate::net::packet::Packet;
use crate::spec::{ImpairmentModel, Position, RandomVar};

/// What an element decided for a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Go on to the next element / the queue / the next node.
    Pass,
    /// Dropped here.
    Drop,
    /// Kept by the element; it will come out at a release event.
    Hold,
}

/// Counters of one element.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ElementStats {
    pub seen: u64,
    pub dropped: u64,
    pub held: u64,
    pub swaps: u64,
    pub events: u64,
}

/// A packet held until `release`; `seq` keeps equal release times in
/// arrival order.
#[derive(Debug, Clone, Copy)]
struct Held {
    release: Time,
    seq: u64,
    pkt: Packet,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.release, self.seq) == (o.release, o.seq)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> Ordering {
        (o.release, o.seq).cmp(&(self.release, self.seq))
    }
}

#[derive(Debug, Clone)]
enum Model {
    Loss {
        p: f64,
        data_only: bool,
    },
    Delay {
        fraction: f64,
        delay: RandomVar,
        data_only: bool,
    },
    Burst {
        model: BurstLoss,
        data_only: bool,
    },
    Gilbert {
        model: GilbertElliott,
        data_only: bool,
    },
    Positioned(Positioned),
    Swap {
        period: Time,
        swaps: u32,
        next: Time,
    },
    Reorder {
        generator: Box<ReorderGenerator>,
        data_only: bool,
    },
    Arq(Arq),
    Netem {
        netem: Netem,
        data_only: bool,
    },
}

/// One impairment element on a link.
#[derive(Debug)]
pub struct Element {
    pub link: u32,
    pub position: Position,
    /// Index of this element in its link's chain for its position.
    pub chain_index: usize,
    model: Model,
    rng: Rng,
    held: BinaryHeap<Held>,
    held_seq: u64,
    pub stats: ElementStats,
}

impl Element {
    pub fn new(
        link: u32,
        position: Position,
        chain_index: usize,
        spec: &ImpairmentModel,
        seed: u64,
        index: u64,
    ) -> Element {
        let mut rng = Rng::for_component(seed, Component::Impairment, index);
        let model = match spec.clone() {
            ImpairmentModel::Loss { p, data_only } => Model::Loss { p, data_only },
            ImpairmentModel::Delay {
                fraction,
                delay,
                data_only,
            } => Model::Delay {
                fraction,
                delay,
                data_only,
            },
            ImpairmentModel::BurstLoss {
                q,
                duration,
                data_only,
            } => Model::Burst {
                model: BurstLoss::new(q, duration),
                data_only,
            },
            ImpairmentModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                data_only,
            } => Model::Gilbert {
                model: GilbertElliott::new(p_gb, p_bg, loss_good, loss_bad),
                data_only,
            },
            ImpairmentModel::Positioned {
                flow,
                segments,
                copies,
            } => Model::Positioned(Positioned::new(flow, segments, copies)),
            ImpairmentModel::Swap { period, swaps } => Model::Swap {
                period: secs(period),
                swaps,
                next: secs(period),
            },
            ImpairmentModel::Reorder {
                interval,
                delay,
                delay_packets,
                block,
                max_hold,
                data_only,
                anchor,
            } => Model::Reorder {
                generator: Box::new(ReorderGenerator::new(
                    interval,
                    delay,
                    delay_packets,
                    block,
                    max_hold,
                    anchor.unwrap_or_default(),
                    &mut rng,
                )),
                data_only,
            },
            ImpairmentModel::Netem {
                delay,
                reorder,
                correlation,
                data_only,
            } => Model::Netem {
                netem: Netem::new(secs(delay), reorder, correlation, &mut rng),
                data_only,
            },
            ImpairmentModel::Arq {
                frame_error,
                link_rtt,
                in_order,
                max_attempts,
            } => Model::Arq(Arq::new(
                frame_error,
                secs(link_rtt),
                in_order,
                max_attempts,
            )),
        };
        Element {
            link,
            position,
            chain_index,
            model,
            rng,
            held: BinaryHeap::new(),
            held_seq: 0,
            stats: ElementStats::default(),
        }
    }

    fn hold(&mut self, pkt: &Packet, release: Time) -> Verdict {
        self.held_seq += 1;
        self.held.push(Held {
            release,
            seq: self.held_seq,
            pkt: *pkt,
        });
        self.stats.held += 1;
        Verdict::Hold
    }

    /// Decide for one packet.
    pub fn process(&mut self, pkt: &Packet, now: Time) -> Verdict {
        self.stats.seen += 1;
        let applies = |data_only: bool| !data_only || pkt.is_data();
        let verdict = match &mut self.model {
            Model::Loss { p, data_only } => {
                if applies(*data_only) && self.rng.bernoulli(*p) {
                    Verdict::Drop
                } else {
                    Verdict::Pass
                }
            }
            Model::Delay {
                fraction,
                delay,
                data_only,
            } => {
                if applies(*data_only) && self.rng.bernoulli(*fraction) {
                    let d = secs(delay.sample(&mut self.rng).max(0.0));
                    if d > 0 {
                        return self.hold(pkt, now + d);
                    }
                }
                Verdict::Pass
            }
            Model::Burst { model, data_only } => {
                if applies(*data_only) && model.drops(now, &mut self.rng) {
                    Verdict::Drop
                } else {
                    Verdict::Pass
                }
            }
            Model::Gilbert { model, data_only } => {
                if applies(*data_only) && model.drops(&mut self.rng) {
                    Verdict::Drop
                } else {
                    Verdict::Pass
                }
            }
            Model::Positioned(p) => {
                if p.drops(pkt) {
                    Verdict::Drop
                } else {
                    Verdict::Pass
                }
            }
            Model::Swap { .. } => Verdict::Pass,
            Model::Reorder {
                generator,
                data_only,
            } => {
                if applies(*data_only)
                    && generator.process(pkt, now, &mut self.rng) == ReorderVerdict::Hold
                {
                    self.stats.held += 1;
                    Verdict::Hold
                } else {
                    Verdict::Pass
                }
            }
            Model::Netem { netem, data_only } => {
                if !applies(*data_only) || netem.at_once(&mut self.rng) {
                    Verdict::Pass
                } else {
                    let release = now + netem.delay;
                    return self.hold(pkt, release);
                }
            }
            Model::Arq(arq) => match arq.release_time(now, self.held.is_empty(), &mut self.rng) {
                None => Verdict::Drop,
                Some(t) if t <= now => Verdict::Pass,
                Some(t) => return self.hold(pkt, t),
            },
        };
        if verdict == Verdict::Drop {
            self.stats.dropped += 1;
        }
        verdict
    }

    /// When this element next needs the engine: the earliest held packet's
    /// release, the reordering generator's deadline or the next swap.
    pub fn deadline(&self) -> Option<Time> {
        match &self.model {
            Model::Swap { next, .. } => Some(*next),
            Model::Reorder { generator, .. } => generator.deadline(),
            _ => self.held.peek().map(|h| h.release),
        }
    }

    /// The deadline passed: move the packets now due into `out` (in order)
    /// and, for a swap element, perform the swaps on `link`.
    pub fn on_deadline(&mut self, now: Time, link: &mut Link, out: &mut Vec<Packet>) {
        match &mut self.model {
            Model::Swap {
                period,
                swaps,
                next,
            } => {
                for _ in 0..*swaps {
                    if link.swap_random_waiting(now, &mut self.rng) {
                        self.stats.swaps += 1;
                    }
                }
                self.stats.events += 1;
                *next = now + *period;
            }
            Model::Reorder { generator, .. } => {
                let before = out.len();
                generator.release(now, out);
                if out.len() > before {
                    self.stats.events += 1;
                }
            }
            _ => {
                while let Some(h) = self.held.peek() {
                    if h.release > now {
                        break;
                    }
                    out.push(self.held.pop().expect("peeked").pkt);
                }
            }
        }
    }

    /// Packets currently held (for conservation checks).
    pub fn held_packets(&self) -> Vec<Packet> {
        let mut v: Vec<Packet> = self.held.iter().map(|h| h.pkt).collect();
        if let Model::Reorder { generator, .. } = &self.model {
            v.extend(generator.held());
        }
        v
    }
}

/// Kind, description and parameters of each model, for `reorderlab impairments`.
pub struct ImpairmentInfo {
    pub kind: &'static str,
    pub description: &'static str,
    pub params: &'static str,
}

pub const IMPAIRMENTS: &[ImpairmentInfo] = &[
    ImpairmentInfo {
        kind: "loss",
        description: "Independent (Bernoulli) drop of each packet",
        params: "p in [0, 1); data_only = true",
    },
    ImpairmentInfo {
        kind: "delay",
        description: "Delay a fraction of packets by a random delay; the rest pass, so long delays reorder (the rr-tcp paper)",
        params: "fraction in [0, 1]; delay = random variable (s); data_only = false",
    },
    ImpairmentInfo {
        kind: "burst_loss",
        description: "Drop episodes: start with probability q per packet, drop everything for a random duration (rr-tcp Table 4)",
        params: "q in [0, 1); duration = random variable (s); data_only = true",
    },
    ImpairmentInfo {
        kind: "gilbert_elliott",
        description: "Two-state Markov loss (the tail-loss paper)",
        params: "p_gb, p_bg, loss_good = 0, loss_bad = 1 (all in [0, 1]); data_only = true",
    },
    ImpairmentInfo {
        kind: "positioned",
        description: "Drop given data segments of one flow, e.g. the last n (tail loss, the tail-loss paper)",
        params: "flow; segments = [..] (0-based); copies = original | all",
    },
    ImpairmentInfo {
        kind: "swap",
        description: "Every period, K times exchange two waiting packets of the link's queue (tcp-pr Fig. 13)",
        params: "period (s) > 0; swaps = K",
    },
    ImpairmentInfo {
        kind: "reorder",
        description: "Reordering generator of the high-speed paper: interval, delay time (s or packets), block size",
        params: "interval, delay | delay_packets, block = random variables; max_hold = 0.01 s; data_only = true; anchor = later-packet | block-arrival",
    },
    ImpairmentInfo {
        kind: "arq",
        description: "Link-layer ARQ: retry each failed frame one link RTT later, deliver in order or out of order (the wwan paper)",
        params: "frame_error in [0, 1); link_rtt (s); in_order = false; max_attempts (optional)",
    },
    ImpairmentInfo {
        kind: "netem",
        description: "Linux netem's `delay D reorder P% C%`: a packet leaves at once with (correlated) probability P, else after D",
        params: "delay (s) > 0; reorder in [0, 1]; correlation in [0, 1) = 0; data_only = false",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn element(spec: ImpairmentModel) -> Element {
        Element::new(0, Position::Ingress, 0, &spec, 1, 0)
    }

    #[test]
    fn bernoulli_loss_rate_within_sampling_error_and_spares_acks() {
        let mut e = element(ImpairmentModel::Loss {
            p: 0.02,
            data_only: true,
        });
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

    #[test]
    fn delay_fraction_and_mean_delay_match_the_spec() {
        let mut e = element(ImpairmentModel::Delay {
            fraction: 0.05,
            delay: RandomVar::Normal {
                mean: 0.025,
                sd: 0.008,
            },
            data_only: false,
        });
        let n = 200_000u64;
        let mut delays = Vec::new();
        for i in 0..n {
            let p = Packet::data(0, 1, 1000, i as u32, 0, 0);
            let now = i * 1_000_000;
            if e.process(&p, now) == Verdict::Hold {
                let release = e.held.iter().map(|h| h.release).max().unwrap();
                delays.push((release - now) as f64 / 1e9);
                e.held.clear();
            }
        }
        let frac = delays.len() as f64 / n as f64;
        let se = (0.05 * 0.95 / n as f64).sqrt();
        assert!((frac - 0.05).abs() < 5.0 * se, "fraction {frac}");
        let mean = delays.iter().sum::<f64>() / delays.len() as f64;
        assert!((mean - 0.025).abs() < 5.0 * 0.008 / (delays.len() as f64).sqrt());
    }

    #[test]
    fn held_packets_come_out_in_release_order() {
        let mut e = element(ImpairmentModel::Delay {
            fraction: 1.0,
            delay: RandomVar::Uniform {
                low: 0.0,
                high: 1.0,
            },
            data_only: false,
        });
        let mut link = Link::new(
            "A->B".into(),
            0,
            1,
            1e6,
            0,
            crate::net::QueueDisc::DropTail {
                limit_packets: None,
                limit_bytes: None,
            },
            Rng::from_seed(0),
        );
        for s in 0..100 {
            e.process(&Packet::data(0, 1, 1000, s, 0, 0), 0);
        }
        let mut out = Vec::new();
        let mut last = 0;
        while let Some(d) = e.deadline() {
            assert!(d >= last);
            last = d;
            e.on_deadline(d, &mut link, &mut out);
        }
        assert_eq!(out.len(), 100);
        let mut seqs: Vec<u32> = out.iter().map(|p| p.seq).collect();
        seqs.sort_unstable();
        assert_eq!(seqs, (0..100).collect::<Vec<_>>());
    }
}
