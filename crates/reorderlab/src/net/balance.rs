//! Per-switch load balancing: which of `n` equal-cost uplinks a packet
//! takes (`docs/fabrics.md`). One enum, one match on the per-packet path.
//!
//! * ECMP, hash-threshold (RFC 2992, Sec. 2 and 4): a key is hashed from
//!   the fields that name the packet's flow, the key space is cut into `n`
//!   equal regions and the packet takes the uplink of the region its key
//!   falls in, so every packet of a flow (and direction) takes one path.
//!   The flow is named here by the simulator's flow index and the
//!   destination (standing for the 5-tuple); each switch mixes in its own
//!   salt, as switches do to avoid every tier making the same choice.
//! * Random packet spraying (Dixit, Prakash, Hu and Kompella, "On the
//!   impact of packet spraying in data center networks", INFOCOM 2013):
//!   each packet independently on a uniformly random uplink.
//! * Round robin (same paper, its deterministic variant): each switch
//!   sends successive packets on successive uplinks, whatever their flow.
//! * Adaptive, least queue (DRILL, Ghorbani, Yang, Godfrey, Ganjali and
//!   Firoozshahian, "DRILL: Micro load balancing for low-latency data
//!   center networks", SIGCOMM 2017, with every uplink sampled and no
//!   memory): each packet on the uplink with the fewest bytes queued at
//!   that instant; a tie is broken at random (the switch's stream).
//! * Flowlets (LetFlow: Vanini, Pan, Alizadeh, Taheri and Edsall, "Let it
//!   flow: resilient asymmetric load balancing with flowlet switching",
//!   NSDI 2017; the flowlet of Kandula et al., "Dynamic load balancing
//!   without packet reordering", CCR 2007): a switch keeps, per slot of a
//!   table indexed by the flow's hash, the uplink and the time of the last
//!   packet; a packet arriving more than the gap after it starts a new
//!   flowlet, on an uplink drawn at random. Flows that share a slot share
//!   its flowlets, as in a hardware table.
//! * REPS (Bonato et al., "REPS: Recycled Entropy Packet Spraying for
//!   adaptive load balancing and failure mitigation"; Ultra Ethernet): the
//!   switch hashes the flow and the entropy value the packet carries, as
//!   ECMP hashes the 5-tuple with the source port; the sender chooses the
//!   values (`net/reps.rs`).

use crate::engine::rng::Component;
use crate::engine::{Rng, Time};
use crate::net::packet::Packet;
use crate::spec::LoadBalancing;

/// Most uplinks of a switch (k/2 for k <= 64).
pub const MAX_UPLINKS: usize = 32;

/// Slots of a switch's flowlet table (flows hash into them).
pub const FLOWLET_SLOTS: usize = 1024;

/// One slot of a flowlet table: the current flowlet's uplink (an index
/// among the usable ones) and when its last packet went out.
#[derive(Debug, Clone, Copy, Default)]
struct Flowlet {
    last: Time,
    uplink: u32,
    used: bool,
}

/// The switches' shared policy and each switch's own state.
#[derive(Debug, Clone)]
pub struct Balancer {
    policy: LoadBalancing,
    /// Per switch: ECMP's hash salt.
    salt: Vec<u64>,
    /// Per switch: round robin's next uplink.
    next: Vec<u32>,
    /// Per switch: spraying's random stream.
    rng: Vec<Rng>,
    /// Flowlets: per switch, `FLOWLET_SLOTS` slots; and the idle gap.
    flowlets: Vec<Flowlet>,
    gap: Time,
}

impl Balancer {
    /// Switch `i` draws from stream `i` of the switches' component; only
    /// the state its policy uses is allocated. `gap`: the flowlet gap.
    pub fn new(policy: LoadBalancing, switches: u32, seed: u64, gap: Time) -> Balancer {
        let stream = |i: u32| Rng::for_component(seed, Component::Switch, i as u64);
        let (mut salt, mut next, mut rng) = (Vec::new(), Vec::new(), Vec::new());
        let mut flowlets = Vec::new();
        match policy {
            LoadBalancing::Ecmp | LoadBalancing::Reps => {
                salt = (0..switches).map(|i| stream(i).next_u64()).collect()
            }
            LoadBalancing::Spray | LoadBalancing::Adaptive => {
                rng = (0..switches).map(stream).collect()
            }
            LoadBalancing::RoundRobin => next = vec![0; switches as usize],
            LoadBalancing::Flowlet => {
                // the salt first, then the stream goes on for the draws
                rng = (0..switches).map(stream).collect();
                salt = rng.iter_mut().map(Rng::next_u64).collect();
                flowlets = vec![Flowlet::default(); switches as usize * FLOWLET_SLOTS];
            }
        }
        Balancer {
            policy,
            salt,
            next,
            rng,
            flowlets,
            gap,
        }
    }

    /// Flowlets: the uplink of `pkt`'s flowlet at switch `switch`, a new
    /// one (at random) after an idle gap or if it is no longer usable.
    fn flowlet(&mut self, switch: usize, pkt: &Packet, n: u32, now: Time) -> u32 {
        let key = mix(flow_key(pkt) ^ self.salt[switch]);
        let slot = switch * FLOWLET_SLOTS + (key % FLOWLET_SLOTS as u64) as usize;
        let f = &mut self.flowlets[slot];
        if !f.used || now.saturating_sub(f.last) > self.gap || f.uplink >= n {
            f.uplink = region(self.rng[switch].next_u64(), n);
            f.used = true;
        }
        f.last = now;
        f.uplink
    }

    /// The uplink, `0..n`, switch `switch` sends `pkt` on at `now`.
    #[inline]
    pub fn pick(&mut self, switch: u32, pkt: &Packet, n: u32, now: Time) -> u32 {
        let s = switch as usize;
        match self.policy {
            LoadBalancing::Ecmp => region(mix(flow_key(pkt) ^ self.salt[s]), n),
            LoadBalancing::Reps => {
                let key = mix(mix(flow_key(pkt) ^ self.salt[s]) ^ pkt.entropy as u64);
                region(key, n)
            }
            LoadBalancing::Flowlet => self.flowlet(s, pkt, n, now),
            LoadBalancing::Spray => region(self.rng[s].next_u64(), n),
            LoadBalancing::RoundRobin => {
                let i = self.next[s] % n;
                self.next[s] = self.next[s].wrapping_add(1);
                i
            }
            // the fabric asks `least` instead (it knows the queues)
            LoadBalancing::Adaptive => region(self.rng[s].next_u64(), n),
        }
    }

    /// Does the policy look at the queues (`least`)?
    #[inline]
    pub fn adaptive(&self) -> bool {
        self.policy == LoadBalancing::Adaptive
    }

    /// Adaptive: the index of the smallest of `bytes` (the uplinks' queues);
    /// among equal smallest, one at random from switch `switch`'s stream
    /// (drawn only when there is a tie).
    pub fn least(&mut self, switch: u32, bytes: &[u64]) -> u32 {
        let min = bytes.iter().copied().min().unwrap_or(0);
        let ties = bytes.iter().filter(|&&b| b == min).count() as u32;
        let mut k = if ties > 1 {
            region(self.rng[switch as usize].next_u64(), ties)
        } else {
            0
        };
        for (i, &b) in bytes.iter().enumerate() {
            if b == min {
                if k == 0 {
                    return i as u32;
                }
                k -= 1;
            }
        }
        0
    }
}

/// The fields that name a packet's flow (and direction) for a hash.
#[inline]
fn flow_key(pkt: &Packet) -> u64 {
    (pkt.flow as u64) << 32 | pkt.dst as u64
}

/// Hash-threshold: which of `n` equal regions of the 64-bit key space
/// `key` falls in.
#[inline]
fn region(key: u64, n: u32) -> u32 {
    ((key as u128 * n as u128) >> 64) as u32
}

/// A 64-bit finaliser (SplitMix64's): every input bit moves every output bit.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(flow: u32, entropy: u16) -> Packet {
        let mut p = Packet::data(flow, 9, 1500, 0, 0, 0);
        p.entropy = entropy;
        p
    }

    /// LetFlow: packets closer than the gap stay on their flowlet's
    /// uplink; a pause longer than the gap draws a new one.
    #[test]
    fn a_flowlet_keeps_its_uplink_until_a_gap() {
        let mut b = Balancer::new(LoadBalancing::Flowlet, 1, 3, 1000);
        let p = data(4, 0);
        let first = b.pick(0, &p, 8, 0);
        for t in (500..50_000).step_by(500) {
            assert_eq!(b.pick(0, &p, 8, t), first, "at {t}");
        }
        let mut seen = [false; 8];
        let mut t = 50_000;
        for _ in 0..200 {
            t += 1001;
            seen[b.pick(0, &p, 8, t) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
    }

    /// REPS's switch: one entropy value, one uplink; many values, all.
    #[test]
    fn reps_hashes_the_entropy_value_with_the_flow() {
        let mut b = Balancer::new(LoadBalancing::Reps, 2, 3, 0);
        let mut seen = [false; 8];
        for ev in 1..200 {
            let i = b.pick(1, &data(4, ev), 8, 0);
            assert_eq!(b.pick(1, &data(4, ev), 8, 99), i);
            seen[i as usize] = true;
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
        // ECMP is REPS without the value: the flow alone decides
        let mut e = Balancer::new(LoadBalancing::Ecmp, 2, 3, 0);
        let i = e.pick(1, &data(4, 1), 8, 0);
        assert!((1..200).all(|ev| e.pick(1, &data(4, ev), 8, 0) == i));
    }
}
