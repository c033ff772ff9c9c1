//! The fat-tree's structure, routing and load balancing.

use super::fattree::{Fabric, Shape};
use super::packet::{Packet, PacketKind};
use super::routing::RoutingTable;
use super::topology::build_topology;
use crate::spec::{LoadBalancing, Topology};

fn fat_tree(k: u32, tiers: u8, failed: &[&str]) -> Topology {
    Topology::FatTree {
        k,
        tiers,
        rate: 100e9,
        oversubscription: 1.0,
        hop_delay: 500e-9,
        buffer_bytes: 150_000,
        load_balancing: LoadBalancing::Ecmp,
        failed_links: failed.iter().map(|s| s.to_string()).collect(),
        ecn_threshold_bytes: None,
        trimming: false,
        flowlet_gap: None,
        events: Vec::new(),
    }
}

fn fabric(k: u32, tiers: u8, policy: LoadBalancing, failed: &[&str]) -> Fabric {
    let shape = Shape::new(k, tiers);
    let names = shape.link_names();
    let ids: Vec<u32> = (failed.iter())
        .map(|f| names.iter().position(|n| n == f).unwrap() as u32)
        .collect();
    Fabric::new(shape, policy, &ids, 7, 0)
}

/// The links a packet takes from `src` to its destination (at most 8 hops).
fn walk(f: &mut Fabric, src: u32, pkt: &Packet) -> Option<Vec<u32>> {
    let (mut node, mut path) = (src, Vec::new());
    while node != pkt.dst {
        let l = f.choose(node, pkt, 0, |_| 0)?;
        path.push(l);
        node = f.shape.link(l).1;
        assert!(path.len() <= 8, "a loop: {path:?}");
    }
    Some(path)
}

/// Al-Fares et al.: k^3/4 hosts, 5k^2/4 switches, k^3/4 cables per tier;
/// leaf-spine: k^2/2 hosts, k leaves, k/2 spines.
#[test]
fn node_and_link_counts_for_k_4_and_8() {
    for (k, tiers, hosts, switches, cables) in [
        (4, 3, 16, 20, 48),
        (8, 3, 128, 80, 384),
        (4, 2, 8, 6, 16),
        (8, 2, 32, 12, 64),
    ] {
        let b = build_topology(&fat_tree(k, tiers, &[]), 1);
        let s = Shape::new(k, tiers);
        assert_eq!((s.hosts, s.nodes() - s.hosts), (hosts, switches), "k={k}");
        assert_eq!(b.node_names.len() as u32, hosts + switches);
        assert_eq!(b.links.len() as u32, 2 * cables, "k={k} tiers={tiers}");
        // every switch uses its k ports, every host one
        let mut degree = vec![0u32; b.node_names.len()];
        for l in &b.links {
            degree[l.from as usize] += 1;
        }
        for (n, d) in degree.iter().enumerate() {
            let want = if (n as u32) < hosts { 1 } else { k };
            assert_eq!(*d, want, "{} of k={k} tiers={tiers}", b.node_names[n]);
        }
        // link names and ends agree with the numbering the routing uses
        for (i, name) in s.link_names().iter().enumerate() {
            assert_eq!(b.link_index[name], i as u32);
            assert_eq!((b.links[i].from, b.links[i].to), s.link(i as u32));
        }
    }
}

/// Every host pair, every policy: 2 hops under one edge switch, 4 within
/// a pod (or leaf-spine), 6 across pods, the shortest-path table's length.
#[test]
fn paths_are_shortest_for_k_4_and_8() {
    for (k, tiers) in [(4, 3), (8, 3), (4, 2), (8, 2)] {
        let b = build_topology(&fat_tree(k, tiers, &[]), 1);
        let pairs: Vec<(u32, u32)> = b.links.iter().map(|l| (l.from, l.to)).collect();
        let table = RoutingTable::shortest_paths(b.node_names.len(), &pairs);
        for policy in [
            LoadBalancing::Ecmp,
            LoadBalancing::Spray,
            LoadBalancing::RoundRobin,
        ] {
            let mut f = fabric(k, tiers, policy, &[]);
            let hosts = f.shape.hosts;
            for a in 0..hosts {
                for d in (0..hosts).filter(|&d| d != a) {
                    let pkt = Packet::data(a, d, 1500, 0, 0, 0);
                    let path = walk(&mut f, a, &pkt).expect("a path");
                    let mut bfs = 0;
                    let mut n = a;
                    while n != d {
                        n = b.links[table.next_link(n, d).unwrap() as usize].to;
                        bfs += 1;
                    }
                    assert_eq!(path.len(), bfs, "{a}->{d} k={k} tiers={tiers}");
                    assert_eq!(path.len() as u32, f.shape.hops(a, d));
                }
            }
        }
    }
    let s = Shape::new(4, 3);
    assert_eq!((s.hops(0, 1), s.hops(0, 2), s.hops(0, 4)), (2, 4, 6));
}

/// ECMP (RFC 2992 hash-threshold): every packet of a flow takes one path,
/// and different flows use every core.
#[test]
fn ecmp_keeps_a_flow_on_one_path() {
    let mut f = fabric(8, 3, LoadBalancing::Ecmp, &[]);
    let mut cores_used = std::collections::BTreeSet::new();
    for flow in 0..200u32 {
        let pkt = Packet::data(flow, 127, 1500, 0, 0, 0);
        let first = walk(&mut f, 0, &pkt).unwrap();
        for seq in 1..50 {
            let p = Packet::data(flow, 127, 1500, seq, 0, 0);
            assert_eq!(walk(&mut f, 0, &p).unwrap(), first, "flow {flow}");
        }
        cores_used.insert(f.shape.link(first[2]).1);
    }
    assert_eq!(cores_used.len(), 16, "200 flows over the 16 cores");
}

/// Random spraying (Dixit et al.): one flow's packets spread evenly over
/// an edge switch's 4 uplinks (chi-square, 3 degrees of freedom, below
/// its 0.1 % point 16.27); round robin: exactly evenly.
#[test]
fn spraying_spreads_packets_evenly() {
    let n = 40_000u32;
    for policy in [LoadBalancing::Spray, LoadBalancing::RoundRobin] {
        let mut f = fabric(8, 3, policy, &[]);
        let mut counts = [0u32; 4];
        for seq in 0..n {
            let p = Packet::data(3, 127, 1500, seq, 0, 0);
            let l = f.choose(f.shape.hosts, &p, 0, |_| 0).unwrap();
            counts[(l - f.shape.hosts) as usize] += 1;
        }
        let e = n as f64 / 4.0;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 16.27, "{policy:?}: {counts:?} chi2 {chi2}");
        if policy == LoadBalancing::RoundRobin {
            assert_eq!(counts, [n / 4; 4]);
        } else {
            assert_ne!(counts, [n / 4; 4], "random, not in turn");
        }
    }
}

/// Same seed, same choices; another seed, other choices.
#[test]
fn spraying_is_deterministic_per_seed() {
    let choices = |seed: u64| {
        let shape = Shape::new(8, 3);
        let mut f = Fabric::new(shape, LoadBalancing::Spray, &[], seed, 0);
        (0..1000)
            .map(|s| walk(&mut f, 0, &Packet::data(1, 127, 1500, s, 0, 0)).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(choices(5), choices(5));
    assert_ne!(choices(5), choices(6));
}

/// A failed cable carries nothing either way; paths route around it; a
/// host whose own cable failed is cut off.
#[test]
fn failed_links_are_avoided() {
    for policy in [LoadBalancing::Ecmp, LoadBalancing::Spray] {
        let mut f = fabric(4, 3, policy, &["agg0->core0", "edge3->agg2"]);
        let names = f.shape.link_names();
        let banned: Vec<u32> = ["agg0->core0", "core0->agg0", "edge3->agg2", "agg2->edge3"]
            .iter()
            .map(|b| names.iter().position(|n| n == b).unwrap() as u32)
            .collect();
        for a in 0..16 {
            for d in (0..16).filter(|&d| d != a) {
                for flow in 0..20 {
                    let p = Packet::data(flow, d, 1500, 0, 0, 0);
                    let path = walk(&mut f, a, &p).expect("still connected");
                    assert!(path.iter().all(|l| !banned.contains(l)), "{a}->{d}");
                    assert_eq!(path.len() as u32, f.shape.hops(a, d));
                }
            }
        }
    }
    let f = fabric(4, 3, LoadBalancing::Ecmp, &["h0->edge0"]);
    assert!(!f.connects(0, 5) && !f.connects(5, 0) && f.connects(1, 5));
    let ack = Packet::control(PacketKind::Ack, 0, 0, 40, 0);
    let mut f = f;
    assert_eq!(f.choose(f.shape.hosts, &ack, 0, |_| 0), None);
}

/// Adaptive (DRILL with every uplink sampled): a packet takes the uplink
/// with the fewest bytes queued; equal queues are shared at random.
#[test]
fn adaptive_takes_the_least_queued_uplink() {
    let mut f = fabric(8, 3, LoadBalancing::Adaptive, &[]);
    let edge = f.shape.hosts;
    let first = f.shape.hosts; // edge0's uplinks are links hosts..hosts + 4
    let p = Packet::data(3, 127, 1500, 0, 0, 0);
    let queues = [9_000u64, 3_000, 1_500, 6_000];
    let l = f
        .choose(edge, &p, 0, |l| queues[(l - first) as usize])
        .unwrap();
    assert_eq!(l, first + 2);
    let mut counts = [0u32; 4];
    for seq in 0..4_000 {
        let p = Packet::data(3, 127, 1500, seq, 0, 0);
        let l = f
            .choose(edge, &p, 0, |l| if l == first { 10 } else { 0 })
            .unwrap();
        counts[(l - first) as usize] += 1;
    }
    assert_eq!(counts[0], 0, "never the fuller queue");
    assert!(
        counts[1..].iter().all(|&c| (1_100..1_570).contains(&c)),
        "{counts:?}"
    );
}
