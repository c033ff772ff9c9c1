//! Per-packet multipath routing (tcp-pr Sec. VI-B).
//!
//! A splitter at node `at` sends each packet for `dst` along one of several
//! given paths, chosen independently per packet. Path probabilities come
//! from explicit weights or from the single parameter epsilon of the tcp-pr paper:
//! the paper's Fig. 14 mesh and the exact family of [37] are not in the
//! text, so (docs/papers.md) we use p_i proportional to
//! exp(-epsilon * (hops_i - min_hops) / scale): epsilon = 0 uses every path
//! equally, a large epsilon only the minimum-hop paths.

use crate::engine::rng::Component;
use crate::engine::Rng;
use crate::net::packet::Packet;
use crate::num::exp;

/// Path probabilities from epsilon (see the module doc).
pub fn epsilon_probabilities(hops: &[usize], epsilon: f64, scale: f64) -> Vec<f64> {
    let min = *hops.iter().min().expect("at least one path");
    let w: Vec<f64> = hops
        .iter()
        .map(|&h| exp(-epsilon * (h - min) as f64 / scale))
        .collect();
    normalise(&w)
}

/// Weights scaled to sum to one.
pub fn normalise(weights: &[f64]) -> Vec<f64> {
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

#[derive(Debug)]
struct Splitter {
    at: u32,
    dst: u32,
    /// Route id of this splitter's first path; paths are consecutive ids.
    first_route: u16,
    cdf: Vec<f64>,
    data_only: bool,
    rng: Rng,
}

/// All splitters and the routes they use.
#[derive(Debug, Default)]
pub struct Multipath {
    splitters: Vec<Splitter>,
    /// `routes[id - 1]`: the links of route `id`, with their source nodes.
    routes: Vec<Vec<(u32, u32)>>,
    /// How many packets took each route.
    pub route_counts: Vec<u64>,
}

impl Multipath {
    pub fn is_empty(&self) -> bool {
        self.splitters.is_empty()
    }

    /// Add a splitter. `paths` are lists of `(from node, link)`; `probs`
    /// sums to one.
    pub fn add(
        &mut self,
        at: u32,
        dst: u32,
        paths: Vec<Vec<(u32, u32)>>,
        probs: &[f64],
        data_only: bool,
        seed: u64,
    ) {
        let first_route = self.routes.len() as u16 + 1;
        let mut acc = 0.0;
        let cdf = probs
            .iter()
            .map(|p| {
                acc += p;
                acc
            })
            .collect();
        let index = self.splitters.len() as u64;
        self.route_counts
            .extend(std::iter::repeat_n(0, paths.len()));
        self.routes.extend(paths);
        self.splitters.push(Splitter {
            at,
            dst,
            first_route,
            cdf,
            data_only,
            rng: Rng::for_component(seed, Component::Topology, index),
        });
    }

    /// If a splitter applies at `node` to `pkt`, pick its route id.
    pub fn choose(&mut self, node: u32, pkt: &Packet) -> Option<u16> {
        let s = self
            .splitters
            .iter_mut()
            .find(|s| s.at == node && s.dst == pkt.dst && (!s.data_only || pkt.is_data()))?;
        let u = s.rng.uniform();
        let k = s.cdf.partition_point(|&c| c <= u).min(s.cdf.len() - 1);
        let id = s.first_route + k as u16;
        self.route_counts[id as usize - 1] += 1;
        Some(id)
    }

    /// The link route `id` takes out of `node`, if the route passes there.
    pub fn next_link(&self, id: u16, node: u32) -> Option<u32> {
        self.routes[id as usize - 1]
            .iter()
            .find(|(from, _)| *from == node)
            .map(|(_, link)| *link)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epsilon_zero_is_uniform_and_large_epsilon_is_min_hop() {
        assert_eq!(
            epsilon_probabilities(&[3, 4, 5], 0.0, 1.0),
            vec![1.0 / 3.0; 3]
        );
        let p = epsilon_probabilities(&[3, 4, 5], 500.0, 1.0);
        assert!(p[0] > 1.0 - 1e-12 && p[2] < 1e-200);
        let q = epsilon_probabilities(&[3, 4], 1.0, 1.0);
        let e = crate::num::exp(-1.0);
        assert!((q[1] - e / (1.0 + e)).abs() < 1e-12);
    }

    #[test]
    fn per_packet_choice_follows_the_probabilities() {
        let mut m = Multipath::default();
        let probs = epsilon_probabilities(&[2, 3, 4], 1.0, 1.0);
        m.add(
            0,
            9,
            vec![vec![(0, 0)], vec![(0, 1)], vec![(0, 2)]],
            &probs,
            true,
            5,
        );
        let pkt = Packet::data(0, 9, 1000, 0, 0, 0);
        let n = 300_000;
        for _ in 0..n {
            m.choose(0, &pkt).unwrap();
        }
        for (k, p) in probs.iter().enumerate() {
            let frac = m.route_counts[k] as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((frac - p).abs() < 5.0 * se, "path {k}: {frac} vs {p}");
        }
        // ACKs (not data) are not split by a data-only splitter.
        let ack = Packet::control(crate::net::packet::PacketKind::Ack, 0, 9, 40, 0);
        assert_eq!(m.choose(0, &ack), None);
        assert_eq!(m.next_link(2, 0), Some(1));
    }
}
