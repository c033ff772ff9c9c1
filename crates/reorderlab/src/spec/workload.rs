//! Fabric workloads (`docs/fabrics.md`): a traffic pattern between the
//! hosts of a fat-tree (permutation, incast, all-to-all), finite flows
//! whose sizes come from a fixed size or a measured data-center
//! distribution, each starting after a random jitter. A workload is
//! expanded into plain flows when the run is built ([`WorkloadSpec::expand`]),
//! so every flow it opens is a flow of the results, with its FCT.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::flow::{default_cc, default_variant, FlowSpec, ReceiverSpec, TcpSpec};
use super::random::RandomVar;
use super::ranges::{seconds_or_zero, unit};
use crate::engine::rng::Component;
use crate::engine::Rng;

/// A pattern of finite flows between the hosts of a fat-tree.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Prefix of its flows' names (none: `w{index}`); flow j is `{name}.{j}`.
    #[serde(default)]
    pub name: Option<String>,
    /// Who sends to whom.
    pub pattern: Pattern,
    /// `pattern = "incast"` only: the hosts sending at once to `target` (N to 1; none: every other host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub fan_in: Option<u32>,
    /// `pattern = "incast"` only: the receiving host (none: `h0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Bytes of each flow (sent as ceil(size / mss) segments, at least 1; none and no distribution: 1 MB each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = unit("bytes"))]
    pub flow_size: Option<RandomVar>,
    /// A measured flow-size distribution instead of flow_size: `web_search` (DCTCP, SIGCOMM 2010) or `data_mining` (VL2, SIGCOMM 2009).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<SizeDistribution>,
    /// Time of the earliest start.
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub start: f64,
    /// Each flow starts at start + a uniform draw in [0, jitter).
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub jitter: f64,
    /// Sender variant of the workload's flows.
    #[serde(default = "default_variant")]
    #[schemars(extend("x-registry" = "variants"))]
    pub variant: String,
    /// Congestion control of the workload's flows.
    #[serde(default = "default_cc")]
    #[schemars(extend("x-registry" = "congestion_controls"))]
    pub cc: String,
    /// Sender parameters of the workload's flows.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// Receiver ACK policy of the workload's flows.
    #[serde(default)]
    pub receiver: ReceiverSpec,
}

/// Who sends to whom among the fabric's hosts.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Every host sends one flow and receives one: a random permutation without fixed points (htsim's permutation experiments).
    Permutation,
    /// `fan_in` hosts, drawn at random, each send one flow to `target` at once (partition/aggregate, DCTCP Sec. 2.3).
    Incast,
    /// Every host sends one flow to every other host.
    AllToAll,
}

/// A measured data-center flow-size distribution.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SizeDistribution {
    /// Web search: the background flows of Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Fig. 4.
    WebSearch,
    /// Data mining: Greenberg et al., "VL2: a scalable and flexible data center network", SIGCOMM 2009, Fig. 2.
    DataMining,
}

/// Web search (DCTCP, SIGCOMM 2010, Fig. 4), bytes and P(X <= bytes): the
/// points as read off the figure and used by later work (pFabric, HPCC).
const WEB_SEARCH: [(f64, f64); 12] = [
    (0.0, 0.0),
    (10e3, 0.15),
    (20e3, 0.20),
    (30e3, 0.30),
    (50e3, 0.40),
    (80e3, 0.53),
    (200e3, 0.60),
    (1e6, 0.70),
    (2e6, 0.80),
    (5e6, 0.90),
    (10e6, 0.97),
    (30e6, 1.0),
];

/// Data mining (VL2, SIGCOMM 2009, Fig. 2), bytes and P(X <= bytes), as
/// read off the figure by later work (Opera, NSDI 2020, Fig. 1a): half the
/// flows under 1 kB, the largest 1 GB.
const DATA_MINING: [(f64, f64); 17] = [
    (100.0, 0.0),
    (180.0, 0.085),
    (250.0, 0.14),
    (560.0, 0.33),
    (900.0, 0.47),
    (1100.0, 0.55),
    (1870.0, 0.65),
    (3160.0, 0.70),
    (10e3, 0.80),
    (100e3, 0.874),
    (400e3, 0.90),
    (1.85e6, 0.95),
    (10e6, 0.97),
    (30e6, 0.98),
    (100e6, 0.99),
    (250e6, 0.995),
    (1e9, 1.0),
];

/// A flow's size when neither `flow_size` nor `distribution` is given.
pub const DEFAULT_FLOW_BYTES: f64 = 1e6;

impl SizeDistribution {
    /// The distribution as an empirical CDF (bytes).
    pub fn random_var(self) -> RandomVar {
        let points: &[(f64, f64)] = match self {
            SizeDistribution::WebSearch => &WEB_SEARCH,
            SizeDistribution::DataMining => &DATA_MINING,
        };
        RandomVar::Empirical {
            values: points.iter().map(|p| p.0).collect(),
            cdf: points.iter().map(|p| p.1).collect(),
        }
    }
}

impl WorkloadSpec {
    /// The law of its flows' sizes in bytes.
    pub fn size_law(&self) -> RandomVar {
        match (&self.distribution, &self.flow_size) {
            (Some(d), _) => d.random_var(),
            (None, Some(v)) => v.clone(),
            (None, None) => RandomVar::Constant {
                value: DEFAULT_FLOW_BYTES,
            },
        }
    }

    /// The incast's receiving host: its `target`, else host 0.
    pub fn target_host(&self) -> Option<u32> {
        match &self.target {
            None => Some(0),
            Some(t) => t.strip_prefix('h').and_then(|n| n.parse().ok()),
        }
    }

    /// How many flows it opens on a fabric of `hosts` hosts.
    pub fn flow_count(&self, hosts: u32) -> u64 {
        let n = hosts as u64;
        match self.pattern {
            Pattern::Permutation => n,
            Pattern::Incast => self.fan_in.map_or(n.saturating_sub(1), u64::from),
            Pattern::AllToAll => n * n.saturating_sub(1),
        }
    }

    /// Its (source, destination) host pairs, in a fixed order drawn from
    /// the run's `seed` (stream `w` of the traffic component's workloads).
    fn pairs(&self, hosts: u32, rng: &mut Rng) -> Vec<(u32, u32)> {
        match self.pattern {
            Pattern::Permutation => derangement(hosts, rng)
                .into_iter()
                .enumerate()
                .map(|(s, d)| (s as u32, d))
                .collect(),
            Pattern::Incast => {
                let target = self.target_host().expect("validated target");
                let mut others: Vec<u32> = (0..hosts).filter(|&h| h != target).collect();
                shuffle(&mut others, rng);
                let n = self.fan_in.map_or(others.len(), |f| f as usize);
                let mut chosen = others[..n].to_vec();
                chosen.sort_unstable();
                chosen.into_iter().map(|s| (s, target)).collect()
            }
            Pattern::AllToAll => (0..hosts)
                .flat_map(|s| (0..hosts).filter(move |&d| d != s).map(move |d| (s, d)))
                .collect(),
        }
    }

    /// The flows of workload `w` on a fabric of `hosts` hosts for run seed
    /// `seed`: pairs, then one size and one start per flow, in pair order.
    /// `mss` is the packet size the flows' variant sends.
    pub fn expand(&self, w: usize, hosts: u32, seed: u64, mss: u32) -> Vec<FlowSpec> {
        let mut rng = Rng::for_component(seed, Component::Traffic, WORKLOAD_STREAMS + w as u64);
        let pairs = self.pairs(hosts, &mut rng);
        let law = self.size_law();
        let prefix = self.name.clone().unwrap_or_else(|| format!("w{w}"));
        (pairs.into_iter().enumerate())
            .map(|(j, (s, d))| {
                let bytes = law.sample(&mut rng);
                let start = self.start + self.jitter * rng.uniform();
                FlowSpec {
                    name: Some(format!("{prefix}.{j}")),
                    src: format!("h{s}"),
                    dst: format!("h{d}"),
                    variant: self.variant.clone(),
                    cc: self.cc.clone(),
                    start,
                    segments: segments_of(bytes, mss),
                    tcp: self.tcp.clone(),
                    receiver: self.receiver.clone(),
                    quic: None,
                }
            })
            .collect()
    }
}

/// The traffic component's streams from this index on belong to workloads
/// (those below are the traffic generators' sessions), so adding a
/// workload never perturbs a generator's draws.
const WORKLOAD_STREAMS: u64 = 1 << 32;

/// ceil(bytes / mss) segments, at least 1.
fn segments_of(bytes: f64, mss: u32) -> u64 {
    let m = mss.max(1) as f64;
    ((bytes / m).ceil() as u64).max(1)
}

/// Fisher-Yates (Knuth, TAOCP vol. 2, Algorithm 3.4.2 P).
fn shuffle(v: &mut [u32], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = (rng.uniform() * (i + 1) as f64) as usize;
        v.swap(i, j.min(i));
    }
}

/// A uniformly random permutation of `0..n` without fixed points: shuffle
/// until none is left (about e tries on average); `n` >= 2.
fn derangement(n: u32, rng: &mut Rng) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).collect();
    loop {
        shuffle(&mut v, rng);
        if v.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pattern: Pattern) -> WorkloadSpec {
        WorkloadSpec {
            name: None,
            pattern,
            fan_in: None,
            target: None,
            flow_size: None,
            distribution: None,
            start: 0.0,
            jitter: 0.0,
            variant: default_variant(),
            cc: default_cc(),
            tcp: TcpSpec::default(),
            receiver: ReceiverSpec::default(),
        }
    }

    #[test]
    fn a_permutation_sends_and_receives_once_per_host_never_to_itself() {
        let flows = spec(Pattern::Permutation).expand(0, 16, 7, 1500);
        assert_eq!(flows.len(), 16);
        let mut dsts: Vec<&str> = flows.iter().map(|f| f.dst.as_str()).collect();
        dsts.sort_unstable();
        dsts.dedup();
        assert_eq!(dsts.len(), 16);
        assert!(flows.iter().all(|f| f.src != f.dst));
        assert_eq!(flows[0].segments, 667); // ceil(1e6 / 1500)
                                            // another seed, another permutation; the same seed, the same
        let again = spec(Pattern::Permutation).expand(0, 16, 7, 1500);
        let other = spec(Pattern::Permutation).expand(0, 16, 8, 1500);
        assert_eq!(flows, again);
        assert_ne!(flows, other);
    }

    #[test]
    fn an_incast_sends_fan_in_flows_to_the_target() {
        let mut w = spec(Pattern::Incast);
        w.fan_in = Some(5);
        w.target = Some("h3".into());
        w.jitter = 1e-6;
        let flows = w.expand(1, 16, 1, 1500);
        assert_eq!(flows.len(), 5);
        assert!(flows.iter().all(|f| f.dst == "h3" && f.src != "h3"));
        assert!(flows.iter().all(|f| (0.0..1e-6).contains(&f.start)));
        assert!(flows.iter().any(|f| f.start > 0.0));
        assert_eq!(w.flow_count(16), 5);
    }

    #[test]
    fn all_to_all_draws_sizes_from_the_distribution() {
        let mut w = spec(Pattern::AllToAll);
        w.distribution = Some(SizeDistribution::WebSearch);
        let flows = w.expand(0, 16, 3, 1000);
        assert_eq!(flows.len(), 240);
        assert_eq!(w.flow_count(16), 240);
        let segs: Vec<u64> = flows.iter().map(|f| f.segments).collect();
        assert!(segs.iter().all(|&s| (1..=30_000).contains(&s)));
        // the median of web search is near 70 kB: many below, many above
        let small = segs.iter().filter(|&&s| s < 70).count();
        assert!((60..180).contains(&small), "{small}");
    }
}
