//! Routing: static shortest paths by hop count ([`RoutingTable`]), or a
//! fat-tree's own routing with its switches' load balancing
//! ([`crate::net::fattree::Fabric`]).

use crate::engine::Time;
use crate::net::fattree::Fabric;
use crate::net::packet::Packet;

/// How packets find their next link.
#[derive(Debug, Clone)]
pub enum Routes {
    Table(RoutingTable),
    Fabric(Box<Fabric>),
}

impl Routes {
    /// The link `pkt` takes out of `node` (a fabric's switches may choose;
    /// `queued(l)`: link `l`'s bytes queued, for an adaptive fabric).
    #[inline]
    pub fn choose(
        &mut self,
        node: u32,
        pkt: &Packet,
        now: Time,
        queued: impl Fn(u32) -> u64,
    ) -> Option<u32> {
        match self {
            Routes::Table(t) => t.next_link(node, pkt.dst),
            Routes::Fabric(f) => f.choose(node, pkt, now, queued),
        }
    }

    /// A fixed next link from `node` towards `dst` (a fabric's first
    /// usable uplink): for latency estimates and the emulator.
    pub fn next_link(&self, node: u32, dst: u32) -> Option<u32> {
        match self {
            Routes::Table(t) => t.next_link(node, dst),
            Routes::Fabric(f) => f.next_link(node, dst),
        }
    }
}

/// Next-hop link for every (node, destination) pair.
#[derive(Debug, Clone)]
pub struct RoutingTable {
    nodes: usize,
    /// `next[node * nodes + dst]` = link index, or `NONE`.
    next: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl RoutingTable {
    /// Build from the link list `(from, to)`. Ties between equal-length paths
    /// go to the link listed first, so the table is deterministic.
    ///
    /// One breadth-first search per destination over the reversed links:
    /// the incoming links of every node in one flat array (link order) and
    /// one queue and visit mark reused by all searches, so a 1,000-pair
    /// dumbbell (2,002 nodes) costs 12 M link visits and no allocation per
    /// search.
    pub fn shortest_paths(nodes: usize, links: &[(u32, u32)]) -> RoutingTable {
        let mut next = vec![NONE; nodes * nodes];
        let (first, incoming) = incoming_links(nodes, links);
        // `seen[u] == dst + 1`: u already reached in the search from dst.
        let mut seen = vec![0u32; nodes];
        let mut queue: Vec<u32> = Vec::with_capacity(nodes);
        for dst in 0..nodes {
            let mark = dst as u32 + 1;
            seen[dst] = mark;
            queue.clear();
            queue.push(dst as u32);
            let mut head = 0;
            while let Some(&v) = queue.get(head) {
                head += 1;
                let v = v as usize;
                for &l in &incoming[first[v] as usize..first[v + 1] as usize] {
                    let u = links[l as usize].0 as usize;
                    if seen[u] != mark {
                        seen[u] = mark;
                        next[u * nodes + dst] = l;
                        queue.push(u as u32);
                    }
                }
            }
        }
        RoutingTable { nodes, next }
    }

    /// The link to take from `node` towards `dst`, if reachable.
    pub fn next_link(&self, node: u32, dst: u32) -> Option<u32> {
        let l = self.next[node as usize * self.nodes + dst as usize];
        (l != NONE).then_some(l)
    }
}

/// The incoming links of every node, in link order, as one flat array:
/// node `v`'s are `incoming[first[v]..first[v + 1]]`.
fn incoming_links(nodes: usize, links: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut first = vec![0u32; nodes + 1];
    for &(_, to) in links {
        first[to as usize + 1] += 1;
    }
    for v in 0..nodes {
        first[v + 1] += first[v];
    }
    let mut fill = first.clone();
    let mut incoming = vec![0u32; links.len()];
    for (i, &(_, to)) in links.iter().enumerate() {
        incoming[fill[to as usize] as usize] = i as u32;
        fill[to as usize] += 1;
    }
    (first, incoming)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as built before (a fresh distance array and deque per
    /// destination): the same on random graphs, ties and unreachable
    /// pairs included.
    #[test]
    fn same_table_as_a_plain_breadth_first_search() {
        use std::collections::VecDeque;
        let mut rng = crate::engine::Rng::from_seed(3);
        for _ in 0..200 {
            let nodes = 1 + (rng.next_u64() % 12) as usize;
            let n_links = (rng.next_u64() % 30) as usize;
            let links: Vec<(u32, u32)> = (0..n_links)
                .map(|_| {
                    let a = (rng.next_u64() % nodes as u64) as u32;
                    let b = (rng.next_u64() % nodes as u64) as u32;
                    (a, b)
                })
                .collect();
            let mut want = vec![NONE; nodes * nodes];
            let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
            for (i, &(_, to)) in links.iter().enumerate() {
                incoming[to as usize].push(i as u32);
            }
            for dst in 0..nodes {
                let mut dist = vec![u32::MAX; nodes];
                dist[dst] = 0;
                let mut frontier = VecDeque::from([dst as u32]);
                while let Some(v) = frontier.pop_front() {
                    for &l in &incoming[v as usize] {
                        let u = links[l as usize].0 as usize;
                        if dist[u] == u32::MAX {
                            dist[u] = dist[v as usize] + 1;
                            want[u * nodes + dst] = l;
                            frontier.push_back(u as u32);
                        }
                    }
                }
            }
            let got = RoutingTable::shortest_paths(nodes, &links);
            assert_eq!(got.next, want, "{links:?}");
        }
    }

    #[test]
    fn shortest_path_prefers_fewer_hops_then_first_listed() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3 (equal), plus 0 -> 3 direct (listed last).
        let links = [(0, 1), (1, 3), (0, 2), (2, 3), (0, 3)];
        let r = RoutingTable::shortest_paths(4, &links);
        assert_eq!(r.next_link(0, 3), Some(4));
        let links2 = [(0, 1), (1, 3), (0, 2), (2, 3)];
        let r2 = RoutingTable::shortest_paths(4, &links2);
        assert_eq!(r2.next_link(0, 3), Some(0));
        assert_eq!(r2.next_link(3, 0), None);
    }
}
