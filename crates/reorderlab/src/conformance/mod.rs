//! One connection of the simulator driven a segment at a time, for the
//! packet-level conformance scripts (`reorderlab script`,
//! `docs/conformance.md`).
//!
//! A [`Harness`] holds the local end of one connection: a [`Sender`] (the
//! data the local application writes) and a [`Receiver`] (the data the
//! script's peer sends), built from a scenario's first flow exactly as the
//! simulation builds them (`sim/build.rs`). There is no network: the caller
//! (the script interpreter) injects the peer's segments at given times and
//! collects what the local end sends, with its time. Between injections it
//! advances the clock, which fires the sender's and the receiver's timers
//! in time order.
//!
//! Sequence numbers are the simulator's segment numbers; the interpreter
//! maps bytes to segments. The harness changes nothing in the sender or
//! the receiver: it calls the hooks the event loop calls
//! (`sim/event_loop.rs`) and reads state through read-only accessors
//! ([`Info`]).

mod info;

pub use info::Info;

use crate::engine::{Time, TimerKind};
use crate::net::packet::{Packet, PacketKind, SackBlocks};
use crate::sim::receiver_config;
use crate::spec::{Scenario, SpecError};
use crate::tcp::cc::CongestionControl;
use crate::tcp::variants;
use crate::tcp::{Receiver, Sender};

/// Flow number of the connection and the node numbers of its two ends (no
/// network: only the packets' fields matter).
const FLOW: u32 = 0;
const LOCAL: u32 = 0;
const PEER: u32 = 1;
/// Timer expiries handled at one instant before the harness calls it a
/// loop (a timer re-armed at its own expiry time, forever).
const MAX_EXPIRIES_AT_ONCE: u32 = 10_000;

/// Which end of the harness sent a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    Sender,
    Receiver,
}

/// A segment the local end sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub at: Time,
    pub from: From,
    pub kind: PacketKind,
    /// Data: the segment number. ACK: the cumulative ACK (next segment
    /// expected).
    pub seq: u32,
    /// Data: transmission index (0: the original).
    pub copy: u16,
    /// Data and SYN: TSval (the send time). ACK: TSecr.
    pub ts: Time,
    /// ACK: SACK blocks, the first one a DSACK block when it reports a
    /// duplicate.
    pub sack: Vec<(u32, u32)>,
}

impl Sent {
    fn new(at: Time, from: From, p: &Packet) -> Sent {
        Sent {
            at,
            from,
            kind: p.kind,
            seq: p.seq,
            copy: p.copy,
            ts: p.ts,
            sack: p.sack.as_slice().to_vec(),
        }
    }
}

/// The local end of one connection.
#[derive(Debug)]
pub struct Harness {
    sender: Sender,
    receiver: Receiver,
    now: Time,
    sent: Vec<Sent>,
    scratch: Vec<Packet>,
}

impl Harness {
    /// The sender and receiver of `scenario`'s first flow (validated), with
    /// an application that has written nothing yet. `timestamps`: whether
    /// the connection negotiated the timestamp option (RFC 7323); without
    /// it there is no undo by timestamps, as in the kernel, whose
    /// `tcp_packet_delayed` needs an echoed TSval.
    pub fn new(scenario: &Scenario, timestamps: bool) -> Result<Harness, SpecError> {
        scenario.validate()?;
        let Some(fs) = scenario.flows.first() else {
            return Err(SpecError::new("flows", "the harness needs one flow"));
        };
        let mut cfg = variants::resolve(&fs.variant, &fs.tcp, 0)
            .ok_or_else(|| SpecError::new("flows[0].variant", "unknown variant"))?;
        cfg.segments = Some(0);
        cfg.undo_by_timestamps &= timestamps;
        let cc = CongestionControl::by_name(&fs.cc)
            .ok_or_else(|| SpecError::new("flows[0].cc", "unknown congestion control"))?;
        let rcfg = receiver_config(&fs.receiver, fs.tcp.ack_size, &cfg);
        Ok(Harness {
            sender: Sender::new(cfg, cc, FLOW, PEER),
            receiver: Receiver::new(rcfg, FLOW, PEER),
            now: 0,
            sent: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// [`Harness::new`] from a scenario in JSON.
    pub fn from_json(scenario_json: &str, timestamps: bool) -> Result<Harness, SpecError> {
        Harness::new(&Scenario::from_json(scenario_json)?, timestamps)
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn sender(&self) -> &Sender {
        &self.sender
    }

    /// The earliest armed timer of either end.
    pub fn next_deadline(&self) -> Option<Time> {
        self.due().map(|(t, _)| t)
    }

    fn due(&self) -> Option<(Time, TimerKind)> {
        let timers = [
            (self.sender.deadline(TimerKind::Rto), TimerKind::Rto),
            (self.sender.deadline(TimerKind::Aux), TimerKind::Aux),
            (self.receiver.deadline(), TimerKind::DelAck),
        ];
        timers
            .into_iter()
            .filter_map(|(t, k)| t.map(|t| (t, k)))
            .min_by_key(|&(t, k)| (t, k as u8))
    }

    /// Move the clock to `to` (never back), firing every timer due by then
    /// in time order (the retransmission timer first at a tie, then the
    /// auxiliary one, then the delayed ACK). An error if timers keep
    /// expiring at one instant.
    pub fn advance(&mut self, to: Time) -> Result<(), SpecError> {
        let mut at_once = 0;
        while let Some((t, kind)) = self.due() {
            if t > to {
                break;
            }
            at_once = if t == self.now { at_once + 1 } else { 0 };
            if at_once > MAX_EXPIRIES_AT_ONCE {
                return Err(SpecError::new(
                    "harness",
                    format!("the {kind:?} timer keeps expiring at {t} ns"),
                ));
            }
            self.now = self.now.max(t);
            self.fire(kind);
        }
        self.now = self.now.max(to);
        Ok(())
    }

    fn fire(&mut self, kind: TimerKind) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.scratch);
        let from = if kind == TimerKind::DelAck {
            self.receiver.on_timer(now, &mut out);
            From::Receiver
        } else {
            self.sender.on_timer(kind, now, &mut out);
            From::Sender
        };
        self.collect(from, &mut out);
        self.scratch = out;
    }

    fn collect(&mut self, from: From, out: &mut Vec<Packet>) {
        let now = self.now;
        self.sent
            .extend(out.drain(..).map(|p| Sent::new(now, from, &p)));
    }

    /// The local end opens the connection at the current time: its SYN
    /// (or, for a passive open, its SYN-ACK: the sender's handshake is the
    /// same exchange seen from the other side).
    pub fn open(&mut self) {
        let mut out = std::mem::take(&mut self.scratch);
        self.sender.start(self.now, &mut out);
        self.collect(From::Sender, &mut out);
        self.scratch = out;
    }

    /// The peer completed the handshake (its SYN-ACK to our SYN, or its
    /// ACK of our SYN-ACK).
    pub fn handshake_done(&mut self) {
        let pkt = Packet::control(PacketKind::SynAck, FLOW, LOCAL, 40, self.now);
        self.deliver_to_sender(&pkt);
    }

    /// An ACK from the peer: cumulative ACK `ack` (segments), SACK blocks
    /// (half-open segment ranges, a DSACK block first) and the TSecr it
    /// echoes (0: no timestamp).
    pub fn ack(&mut self, ack: u32, sack: &[(u32, u32)], tsecr: Time) {
        let mut pkt = Packet::control(PacketKind::Ack, FLOW, LOCAL, 40, tsecr);
        pkt.seq = ack;
        let mut blocks = SackBlocks::default();
        for &(a, b) in sack.iter().take(SackBlocks::MAX) {
            if a < b {
                blocks.push(a, b);
            }
        }
        pkt.sack = blocks;
        self.deliver_to_sender(&pkt);
    }

    fn deliver_to_sender(&mut self, pkt: &Packet) {
        let mut out = std::mem::take(&mut self.scratch);
        self.sender.on_packet(pkt, self.now, &mut out);
        self.collect(From::Sender, &mut out);
        self.scratch = out;
    }

    /// A data segment from the peer: segment number `seq`, its TSval.
    pub fn data(&mut self, seq: u32, tsval: Time) {
        let pkt = Packet::data(FLOW, LOCAL, 1000, seq, 0, tsval);
        let mut out = std::mem::take(&mut self.scratch);
        self.receiver.on_data(&pkt, self.now, &mut out);
        self.collect(From::Receiver, &mut out);
        self.scratch = out;
    }

    /// The application writes `segments` more segments.
    pub fn write(&mut self, segments: u64) {
        let mut out = std::mem::take(&mut self.scratch);
        self.sender.write(segments, self.now, &mut out);
        self.collect(From::Sender, &mut out);
        self.scratch = out;
    }

    /// What the local end sent since the last call, in order.
    pub fn take_sent(&mut self) -> Vec<Sent> {
        std::mem::take(&mut self.sent)
    }

    /// The `struct tcp_info`-like state of the sender now.
    pub fn info(&self) -> Info {
        Info::of(&self.sender)
    }
}

#[cfg(test)]
mod tests;
