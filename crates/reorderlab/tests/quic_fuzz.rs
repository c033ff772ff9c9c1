//! A fuzzer of the QUIC sender and receiver (issue 38): every QUIC variant
//! with Reno, CUBIC and BBR, driven through `QuicEnds` by random event
//! sequences: data packets delivered in any order or lost, ACK packets
//! delivered in any order or lost, absurd ACK frames (packet numbers never
//! sent), and the timers firing when due. After every step:
//!
//! * no packet is declared lost twice (`Truth::declared_twice`);
//! * bytes in flight equal the sum over the outstanding packets (so never
//!   negative: the counter is unsigned, an underflow panics);
//! * cwnd finite and at least one packet;
//! * no panic.
//!
//! Deterministic: case `i` of variant `v` is seeded from (seed, v, i). CI
//! runs a short budget; `make fuzz` the campaign
//! (`REORDERLAB_QUIC_FUZZ_CASES` cases per variant and controller).

mod common;
use common::env_u64;
use std::panic::{catch_unwind, AssertUnwindSafe};

use reorderlab::engine::time::ms;
use reorderlab::engine::{Rng, Time, TimerKind};
use reorderlab::net::packet::{Packet, PacketKind};
use reorderlab::quic::variants::{resolve, QUIC_VARIANTS};
use reorderlab::quic::QuicEnds;
use reorderlab::spec::QuicSpec;
use reorderlab::tcp::cc::CongestionControl;

const CI_CASES: u64 = 200;
const MAX_STEPS: u64 = 200;

struct Case {
    rng: Rng,
    ends: QuicEnds,
    now: Time,
    to_receiver: Vec<Packet>,
    to_sender: Vec<Packet>,
    out: Vec<Packet>,
}

impl Case {
    fn new(variant: &str, cc: &str, seed: u64) -> Case {
        let mut rng = Rng::from_seed(seed);
        let q = QuicSpec {
            packet_threshold: [None, Some(1), Some(300), Some(u64::MAX)]
                [rng.next_u64() as usize % 4],
            dedup_window: [None, Some(4)][rng.next_u64() as usize % 2],
            max_ack_ranges: Some(1 + (rng.next_u64() % 8) as u32),
            pacing: Some(rng.bernoulli(0.5)),
            ..Default::default()
        };
        let segments = [0, 1 + rng.next_u64() % 50][rng.next_u64() as usize % 2];
        let cfg = resolve(variant, &q, (Some(1200), None), segments).expect("variant");
        let cc = CongestionControl::by_name(cc).expect("cc");
        let mut ends = QuicEnds::new(cfg, cc, 0, (0, 1), 0);
        ends.seed(seed);
        Case {
            rng,
            ends,
            now: 0,
            to_receiver: Vec::new(),
            to_sender: Vec::new(),
            out: Vec::new(),
        }
    }

    fn route(&mut self) {
        for p in self.out.drain(..) {
            match p.kind {
                PacketKind::Data => self.to_receiver.push(p),
                _ => self.to_sender.push(p),
            }
        }
    }

    fn take(rng: &mut Rng, v: &mut Vec<Packet>) -> Option<Packet> {
        (!v.is_empty()).then(|| {
            let i = rng.next_u64() as usize % v.len();
            v.swap_remove(i)
        })
    }

    fn step(&mut self) {
        self.now += ms(self.rng.next_u64() % 30);
        match self.rng.next_u64() % 8 {
            0..=2 => {
                if let Some(p) = Self::take(&mut self.rng, &mut self.to_receiver) {
                    if self.rng.bernoulli(0.1) {
                        self.ends.on_drop(&p);
                    } else {
                        self.ends.on_packet(&p, self.now, &mut self.out);
                    }
                }
            }
            3..=4 => {
                if let Some(p) = Self::take(&mut self.rng, &mut self.to_sender) {
                    if self.rng.bernoulli(0.1) {
                        self.ends.on_drop(&p);
                    } else {
                        self.ends.on_packet(&p, self.now, &mut self.out);
                    }
                }
            }
            5 => {
                // an absurd ACK: packet numbers never sent
                let (slot, f) = self.ends.frames.alloc();
                let lo = self.rng.next_u64() % 1_000_000;
                f.largest = lo + self.rng.next_u64() % 100;
                f.ack_delay = ms(self.rng.next_u64() % 1000);
                f.ranges = vec![(lo, f.largest)];
                let mut p = Packet::control(PacketKind::Ack, 0, 0, 50, self.now);
                p.seq = slot;
                self.ends.on_packet(&p, self.now, &mut self.out);
            }
            _ => {
                for kind in [TimerKind::Rto, TimerKind::Aux, TimerKind::DelAck] {
                    if self.ends.deadline(kind).is_some_and(|d| d <= self.now) {
                        self.ends.on_timer(kind, self.now, &mut self.out);
                    }
                }
            }
        }
        self.route();
    }

    fn check(&self) -> Result<(), String> {
        let bad = self.ends.check();
        if !bad.is_empty() {
            return Err(bad.join("; "));
        }
        let c = self.ends.sender.cc.w.cwnd;
        if !c.is_finite() || c < 1.0 {
            return Err(format!("cwnd {c}"));
        }
        Ok(())
    }
}

/// What the cases exercised: declared losses, late ACKs of them, PTOs.
type Seen = [u64; 3];

fn run_case(variant: &str, cc: &str, seed: u64) -> Result<Seen, String> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let mut case = Case::new(variant, cc, seed);
        case.ends.sender.start(0, &mut case.out);
        case.route();
        for _ in 0..MAX_STEPS {
            case.step();
            case.check()?;
        }
        let s = &case.ends.sender.stats;
        Ok([s.declared_lost, s.late_acked, s.ptos])
    }));
    match r {
        Ok(r) => r,
        Err(e) => Err(format!(
            "panic: {}",
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
    }
}

#[test]
fn quic_variants_hold_their_invariants_under_random_ack_sequences() {
    let cases = env_u64("REORDERLAB_QUIC_FUZZ_CASES", CI_CASES);
    let seed = env_u64("REORDERLAB_FUZZ_SEED", 1);
    let mut failures = Vec::new();
    let mut seen = [0u64; 3];
    for (vi, v) in QUIC_VARIANTS.iter().enumerate() {
        for (ci, cc) in ["reno", "cubic", "bbr"].iter().enumerate() {
            for i in 0..cases {
                let s = seed ^ ((vi as u64) << 48) ^ ((ci as u64) << 40) ^ i;
                match run_case(v.name, cc, s) {
                    Ok(n) => (0..3).for_each(|k| seen[k] += n[k]),
                    Err(e) => {
                        failures.push(format!("{}/{cc} case seed {s}: {e}", v.name));
                        break;
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // the cases reached loss declarations, spurious ones and probe timeouts
    assert!(
        seen.iter().all(|&n| n > 0),
        "declared, late-acked, PTOs: {seen:?}"
    );
}
