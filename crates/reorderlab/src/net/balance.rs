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

use crate::engine::rng::Component;
use crate::engine::Rng;
use crate::net::packet::Packet;
use crate::spec::LoadBalancing;

/// Most uplinks of a switch (k/2 for k <= 64).
pub const MAX_UPLINKS: usize = 32;

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
}

impl Balancer {
    /// Switch `i` draws from stream `i` of the switches' component; only
    /// the state its policy uses is allocated.
    pub fn new(policy: LoadBalancing, switches: u32, seed: u64) -> Balancer {
        let stream = |i: u32| Rng::for_component(seed, Component::Switch, i as u64);
        let (mut salt, mut next, mut rng) = (Vec::new(), Vec::new(), Vec::new());
        match policy {
            LoadBalancing::Ecmp => salt = (0..switches).map(|i| stream(i).next_u64()).collect(),
            LoadBalancing::Spray | LoadBalancing::Adaptive => {
                rng = (0..switches).map(stream).collect()
            }
            LoadBalancing::RoundRobin => next = vec![0; switches as usize],
        }
        Balancer {
            policy,
            salt,
            next,
            rng,
        }
    }

    /// The uplink, `0..n`, switch `switch` sends `pkt` on.
    #[inline]
    pub fn pick(&mut self, switch: u32, pkt: &Packet, n: u32) -> u32 {
        let s = switch as usize;
        match self.policy {
            LoadBalancing::Ecmp => {
                let key = mix(((pkt.flow as u64) << 32 | pkt.dst as u64) ^ self.salt[s]);
                region(key, n)
            }
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
