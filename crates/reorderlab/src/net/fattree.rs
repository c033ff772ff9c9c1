//! k-ary fat-trees (Al-Fares, Loukissas and Vahdat, "A scalable, commodity
//! data center network architecture", SIGCOMM 2008) and their routing.
//!
//! Three tiers: k pods, each of k/2 edge and k/2 aggregation switches;
//! edge switch `e` has k/2 hosts below and every aggregation switch of its
//! pod above; aggregation switch `j` of a pod (its position) has the k/2
//! cores `j k/2 .. (j+1) k/2` above. Two tiers (leaf-spine): one "pod" of
//! k edge (leaf) switches, each joined to all k/2 aggregation (spine)
//! switches. Node ids: hosts, then edges, aggregations, cores.
//!
//! Links: cable `c` (in the order hosts, edge-aggregation,
//! aggregation-core) is link `c` upwards and link `cables + c` downwards,
//! so a switch's uplinks are consecutive ids and every next hop is
//! arithmetic on the structure: routing needs no table, and its memory is
//! the per-switch state of [`super::balance`] (proportional to the fabric,
//! not to hosts squared).

use super::balance::{Balancer, MAX_UPLINKS};
use crate::engine::Time;
use crate::net::packet::Packet;
use crate::spec::LoadBalancing;

/// The counts and numbering of a fat-tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub tiers: u8,
    /// k/2: hosts per edge switch, uplinks per edge and aggregation switch.
    pub half: u32,
    pub pods: u32,
    pub edges_per_pod: u32,
    pub hosts: u32,
    pub edges: u32,
    pub aggs: u32,
    pub cores: u32,
}

impl Shape {
    /// The shape of a k-ary fat-tree of `tiers` tiers (k even, validated).
    pub fn new(k: u32, tiers: u8) -> Shape {
        let half = k / 2;
        let (pods, edges_per_pod, cores) = if tiers == 2 {
            (1, k, 0)
        } else {
            (k, half, half * half)
        };
        let edges = pods * edges_per_pod;
        Shape {
            tiers,
            half,
            pods,
            edges_per_pod,
            hosts: edges * half,
            edges,
            aggs: pods * half,
            cores,
        }
    }

    pub fn nodes(&self) -> u32 {
        self.hosts + self.edges + self.aggs + self.cores
    }

    /// Duplex cables; twice as many links.
    pub fn cables(&self) -> u32 {
        self.hosts + self.edges * self.half + self.cores * self.pods
    }

    pub fn node_name(&self, n: u32) -> String {
        let (e, a) = (self.hosts + self.edges, self.hosts + self.edges + self.aggs);
        match n {
            n if n < self.hosts => format!("h{n}"),
            n if n < e => format!("edge{}", n - self.hosts),
            n if n < a => format!("agg{}", n - e),
            n => format!("core{}", n - a),
        }
    }

    /// Cable `c`'s (lower, upper) node.
    pub fn cable(&self, c: u32) -> (u32, u32) {
        let (edge0, agg0) = (self.hosts, self.hosts + self.edges);
        let core0 = agg0 + self.aggs;
        let h = self.half;
        if c < self.hosts {
            return (c, edge0 + c / h);
        }
        let c2 = c - self.hosts;
        if c2 < self.edges * h {
            let (e, j) = (c2 / h, c2 % h);
            return (edge0 + e, agg0 + self.pod_of_edge(e) * h + j);
        }
        let c3 = c2 - self.edges * h;
        let (a, j) = (c3 / h, c3 % h);
        (agg0 + a, core0 + (a % h) * h + j)
    }

    /// Link `l`'s (from, to) node.
    pub fn link(&self, l: u32) -> (u32, u32) {
        let cables = self.cables();
        if l < cables {
            self.cable(l)
        } else {
            let (lo, hi) = self.cable(l - cables);
            (hi, lo)
        }
    }

    /// Every link's name, `"from->to"`, in link order.
    pub fn link_names(&self) -> Vec<String> {
        (0..2 * self.cables())
            .map(|l| {
                let (a, b) = self.link(l);
                format!("{}->{}", self.node_name(a), self.node_name(b))
            })
            .collect()
    }

    fn pod_of_edge(&self, e: u32) -> u32 {
        e / self.edges_per_pod
    }

    /// Hops between two hosts (up to the lowest common tier and down).
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let (ea, eb) = (a / self.half, b / self.half);
        if a == b {
            0
        } else if ea == eb {
            2
        } else if self.pod_of_edge(ea) == self.pod_of_edge(eb) {
            4
        } else {
            6
        }
    }
}

/// Where a packet at a node goes next: one fixed link, or one of `count`
/// consecutive uplinks from `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Fixed(u32),
    Up { first: u32, count: u32 },
}

/// A fat-tree's routing: up to a common ancestor by the switches' load
/// balancing, then down along the one path there is.
#[derive(Debug, Clone)]
pub struct Fabric {
    pub shape: Shape,
    balancer: Balancer,
    /// Per link: down (empty when no link failed).
    failed: Vec<bool>,
}

impl Fabric {
    /// `failed` are link ids; both directions of each cable go down.
    /// `gap`: the flowlet gap (read by `LoadBalancing::Flowlet` only).
    pub fn new(
        shape: Shape,
        policy: LoadBalancing,
        failed: &[u32],
        seed: u64,
        gap: Time,
    ) -> Fabric {
        let switches = shape.nodes() - shape.hosts;
        let mut fabric = Fabric {
            shape,
            balancer: Balancer::new(policy, switches, seed, gap),
            failed: Vec::new(),
        };
        for &l in failed {
            fabric.set_cable(l, false);
        }
        fabric
    }

    /// Take link `l`'s cable (both directions) down or bring it back up:
    /// from now on the switches choose among the uplinks that reach the
    /// destination over links that are up (hash-threshold re-divides its
    /// key space among them, RFC 2992 Sec. 4).
    pub fn set_cable(&mut self, l: u32, up: bool) {
        let cables = self.shape.cables();
        if self.failed.is_empty() {
            if up {
                return;
            }
            self.failed = vec![false; 2 * cables as usize];
        }
        let c = l % cables;
        self.failed[c as usize] = !up;
        self.failed[(cables + c) as usize] = !up;
    }

    /// The next hop at `node` towards host `dst` (`dst` a host, `node` not `dst`).
    fn step(&self, node: u32, dst: u32) -> Step {
        let s = &self.shape;
        let (h, cables) = (s.half, s.cables());
        let (edge0, agg0) = (s.hosts, s.hosts + s.edges);
        let core0 = agg0 + s.aggs;
        let dst_edge = dst / h;
        let dst_pod = s.pod_of_edge(dst_edge);
        let edge_agg0 = s.hosts;
        let agg_core0 = s.hosts + s.edges * h;
        if node < s.hosts {
            Step::Fixed(node)
        } else if node < agg0 {
            let e = node - edge0;
            if e == dst_edge {
                Step::Fixed(cables + dst)
            } else {
                Step::Up {
                    first: edge_agg0 + e * h,
                    count: h,
                }
            }
        } else if node < core0 {
            let a = node - agg0;
            if a / h == dst_pod {
                Step::Fixed(cables + edge_agg0 + dst_edge * h + a % h)
            } else {
                Step::Up {
                    first: agg_core0 + a * h,
                    count: h,
                }
            }
        } else {
            let c = node - core0;
            let a = dst_pod * h + c / h;
            Step::Fixed(cables + agg_core0 + a * h + c % h)
        }
    }

    fn is_up(&self, l: u32) -> bool {
        self.failed.is_empty() || !self.failed[l as usize]
    }

    /// Can a packet at `node` still reach host `dst` over links that are up?
    fn reaches(&self, node: u32, dst: u32) -> bool {
        if node == dst {
            return true;
        }
        match self.step(node, dst) {
            Step::Fixed(l) => self.is_up(l) && self.reaches(self.shape.link(l).1, dst),
            Step::Up { first, count } => (first..first + count)
                .any(|l| self.is_up(l) && self.reaches(self.shape.link(l).1, dst)),
        }
    }

    /// The link a packet at `node` takes towards its destination, chosen
    /// by the switch's load balancing among the usable uplinks; none if
    /// failures cut every path. `queued(l)`: link `l`'s bytes queued now
    /// (read by the adaptive policy only); `now` for flowlets.
    #[inline]
    pub fn choose(
        &mut self,
        node: u32,
        pkt: &Packet,
        now: Time,
        queued: impl Fn(u32) -> u64,
    ) -> Option<u32> {
        match self.step(node, pkt.dst) {
            Step::Fixed(l) => self.is_up(l).then_some(l),
            Step::Up { first, count } => {
                let switch = node - self.shape.hosts;
                if self.balancer.adaptive() {
                    return self.least_queued(switch, first, count, pkt.dst, queued);
                }
                if self.failed.is_empty() {
                    let i = self.balancer.pick(switch, pkt, count, now);
                    return Some(first + i);
                }
                let mut usable = [0u32; MAX_UPLINKS];
                let mut n = 0;
                for l in first..first + count {
                    if self.is_up(l) && self.reaches(self.shape.link(l).1, pkt.dst) {
                        usable[n] = l;
                        n += 1;
                    }
                }
                if n == 0 {
                    return None;
                }
                let i = self.balancer.pick(switch, pkt, n as u32, now);
                Some(usable[i as usize])
            }
        }
    }

    /// Adaptive: the usable uplink (`first..first + count`) with the fewest
    /// bytes queued.
    fn least_queued(
        &mut self,
        switch: u32,
        first: u32,
        count: u32,
        dst: u32,
        queued: impl Fn(u32) -> u64,
    ) -> Option<u32> {
        let (mut usable, mut bytes) = ([0u32; MAX_UPLINKS], [0u64; MAX_UPLINKS]);
        let mut n = 0;
        for l in first..first + count {
            if self.is_up(l) && (self.failed.is_empty() || self.reaches(self.shape.link(l).1, dst))
            {
                usable[n] = l;
                bytes[n] = queued(l);
                n += 1;
            }
        }
        if n == 0 {
            return None;
        }
        let i = self.balancer.least(switch, &bytes[..n]);
        Some(usable[i as usize])
    }

    /// Is there a path from `src` to host `dst` over links that are up?
    pub fn connects(&self, src: u32, dst: u32) -> bool {
        dst < self.shape.hosts && self.reaches(src, dst)
    }

    /// The first usable next hop (no load balancing): the path of unloaded
    /// latency estimates and of the emulator's address set-up.
    pub fn next_link(&self, node: u32, dst: u32) -> Option<u32> {
        if dst >= self.shape.hosts || node == dst {
            return None;
        }
        match self.step(node, dst) {
            Step::Fixed(l) => self.is_up(l).then_some(l),
            Step::Up { first, count } => (first..first + count)
                .find(|&l| self.is_up(l) && self.reaches(self.shape.link(l).1, dst)),
        }
    }
}
