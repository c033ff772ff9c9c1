//! Static shortest-path routing by hop count.

use std::collections::VecDeque;

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
    pub fn shortest_paths(nodes: usize, links: &[(u32, u32)]) -> RoutingTable {
        let mut next = vec![NONE; nodes * nodes];
        // Incoming links per node, in link order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (i, &(_, to)) in links.iter().enumerate() {
            incoming[to as usize].push(i as u32);
        }
        // Reverse BFS from each destination.
        for dst in 0..nodes {
            let mut dist = vec![u32::MAX; nodes];
            dist[dst] = 0;
            let mut frontier = VecDeque::from([dst as u32]);
            while let Some(v) = frontier.pop_front() {
                for &l in &incoming[v as usize] {
                    let u = links[l as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v as usize] + 1;
                        next[u * nodes + dst] = l;
                        frontier.push_back(u as u32);
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

#[cfg(test)]
mod tests {
    use super::*;

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
