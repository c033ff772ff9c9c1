//! Real packets as the model sees them, and what the emulator learns from
//! them about each flow.
//!
//! Every flow of the scenario is one TCP connection between its own pair of
//! addresses (sender side, receiver side), so a packet's flow is its address
//! pair. A data packet becomes a model [`Packet`] with a segment number
//! (sequence offset from the SYN divided by the negotiated segment size) and
//! a copy index (0 for the first packet of that segment, 1, 2, ... for
//! retransmissions), which the impairment models read (positioned loss).
//!
//! Since the emulator sees every copy of every segment and decides every
//! drop, it knows the ground truth the simulator reports: a retransmission
//! is spurious when an earlier copy of its segment reached the receiver.
//!
//! The receive window (`max_window`, in segments) is enforced on the wire:
//! the receiver's window field is limited to `max_window` segments on its
//! way to the sender (RFC 7323 Sec. 2.3 semantics kept by rescaling), because
//! the kernel does not keep a window clamp it was given once the receive
//! buffer auto-tunes (docs/emulation.md has the measurements).

use std::collections::HashMap;

use serde::Serialize;

use super::wire::{self, Ipv4, Tcp};
use crate::metrics::ReorderingMetrics;
use crate::net::packet::{Packet, PacketKind};

/// Flow index of packets that belong to no flow of the scenario.
pub const NO_FLOW: u32 = u32::MAX;
/// "No copy delivered yet".
const NONE: u8 = u8::MAX;
/// Segments tracked per flow (the ground truth of later ones is not kept).
const MAX_TRACKED: u64 = 1 << 27;

/// One flow's addresses and model nodes.
#[derive(Debug, Clone)]
pub struct FlowAddrs {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub src_node: u32,
    pub dst_node: u32,
    /// Receive-window limit, segments.
    pub max_window: Option<u32>,
}

/// Which way a packet goes relative to its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Sender to receiver (data, the SYN).
    Forward,
    /// Receiver to sender (ACKs, the SYN-ACK).
    Reverse,
}

/// What the emulator counted for one flow.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlowCounts {
    /// Data packets the sender sent (read from the sender side).
    pub data_packets_sent: u64,
    /// Packets of data sent before (sequence below the highest sent).
    pub retransmits: u64,
    /// Highest data byte sent, relative to the SYN.
    pub bytes_sent: u64,
    /// Data packets dropped by the emulated path.
    pub data_drops: u64,
    /// Data packets written to the receiver side.
    pub data_packets_delivered: u64,
    /// Of which a segment already delivered.
    pub duplicates_delivered: u64,
    /// Retransmissions sent after an earlier copy of their segment reached
    /// the receiver (ground truth).
    pub spurious_retransmits: u64,
    pub acks_sent: u64,
    /// Payload bytes per segment (from the handshake's MSS options).
    pub segment_size: u32,
    /// Receive window the sender was told (bytes), when limited.
    pub window_advertised: Option<u64>,
    /// Receiver packets whose window could not be limited (no SYN-ACK seen).
    pub window_unclamped: u64,
    pub reordered_ratio: f64,
    pub reorder_extent_mean: f64,
    pub reorder_extent_max: u64,
    pub reorder_density: Vec<f64>,
}

#[derive(Debug)]
struct FlowState {
    addrs: FlowAddrs,
    isn: Option<u32>,
    syn_mss: Option<u16>,
    timestamps: bool,
    /// Window scale the receiver uses and the one the sender was told.
    receiver_shift: u8,
    sender_shift: u8,
    window_bytes: Option<u64>,
    /// One past the highest data byte sent, relative to ISN + 1.
    high_end: u64,
    copies: Vec<u8>,
    first_delivered: Vec<u8>,
    counts: FlowCounts,
    reordering: ReorderingMetrics,
}

/// All flows and the address -> node map.
#[derive(Debug)]
pub struct Flows {
    flows: Vec<FlowState>,
    by_pair: HashMap<([u8; 4], [u8; 4]), (u32, Direction)>,
    nodes: HashMap<[u8; 4], u32>,
}

/// A real packet's model form, or why it has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classified {
    /// The model packet (its `ts` is left for the caller's buffer handle)
    /// and the node it enters the network at.
    Packet(Packet, u32),
    /// Not IPv4, or an address of no host.
    Unroutable,
}

impl Flows {
    pub fn new(addrs: &[FlowAddrs]) -> Flows {
        let mut by_pair = HashMap::new();
        let mut nodes = HashMap::new();
        for (i, a) in addrs.iter().enumerate() {
            by_pair.insert((a.src, a.dst), (i as u32, Direction::Forward));
            by_pair.insert((a.dst, a.src), (i as u32, Direction::Reverse));
            nodes.insert(a.src, a.src_node);
            nodes.insert(a.dst, a.dst_node);
        }
        let flows = addrs
            .iter()
            .map(|a| FlowState {
                addrs: a.clone(),
                isn: None,
                syn_mss: None,
                timestamps: false,
                receiver_shift: 0,
                sender_shift: 0,
                window_bytes: None,
                high_end: 0,
                copies: Vec::new(),
                first_delivered: Vec::new(),
                counts: FlowCounts::default(),
                reordering: ReorderingMetrics::default(),
            })
            .collect();
        Flows {
            flows,
            by_pair,
            nodes,
        }
    }

    /// Classify a packet just read from a TUN device, updating the flow's
    /// state; a receiver's window may be rewritten in `bytes`.
    pub fn classify(&mut self, bytes: &mut [u8]) -> Classified {
        let Some(ip) = wire::parse(bytes) else {
            return Classified::Unroutable;
        };
        let (Some(&src_node), Some(&dst_node)) = (self.nodes.get(&ip.src), self.nodes.get(&ip.dst))
        else {
            return Classified::Unroutable;
        };
        let kind = packet_kind(&ip);
        let mut pkt = Packet::control(kind, NO_FLOW, dst_node, ip.total_len as u32, 0);
        pkt.immediate = false;
        if let (Some(tcp), Some(&(flow, dir))) = (ip.tcp, self.by_pair.get(&(ip.src, ip.dst))) {
            pkt.flow = flow;
            let f = &mut self.flows[flow as usize];
            match dir {
                Direction::Forward => f.on_sender_packet(bytes, &tcp, &mut pkt),
                Direction::Reverse => f.on_receiver_packet(bytes, &tcp),
            }
        }
        Classified::Packet(pkt, src_node)
    }

    /// A data packet of a flow was dropped by the emulated path.
    pub fn on_drop(&mut self, pkt: &Packet) {
        if let Some(f) = self.flow_mut(pkt) {
            f.counts.data_drops += 1;
        }
    }

    /// A packet was written to its destination's side.
    pub fn on_delivered(&mut self, pkt: &Packet, forward: bool) {
        let Some(f) = self.flow_mut(pkt) else {
            return;
        };
        if !forward {
            return;
        }
        f.counts.data_packets_delivered += 1;
        let seg = pkt.seq as usize;
        if seg >= f.first_delivered.len() {
            return; // not tracked
        }
        if f.first_delivered[seg] == NONE {
            f.first_delivered[seg] = pkt.copy.min(NONE as u16 - 1) as u8;
            f.reordering.on_unique_arrival(pkt.seq);
        } else {
            f.counts.duplicates_delivered += 1;
        }
    }

    fn flow_mut(&mut self, pkt: &Packet) -> Option<&mut FlowState> {
        if pkt.flow == NO_FLOW || !pkt.is_data() {
            return None;
        }
        self.flows.get_mut(pkt.flow as usize)
    }

    /// Counts of every flow, with the ground truth completed.
    pub fn counts(&self) -> Vec<FlowCounts> {
        self.flows.iter().map(FlowState::final_counts).collect()
    }
}

/// The model's kind of a real packet: TCP by its flags and payload; a UDP
/// datagram is data (the `data_only` impairments apply to it); anything
/// else (ICMP) is control, like an ACK.
fn packet_kind(ip: &Ipv4) -> PacketKind {
    match ip.tcp {
        Some(t) if t.has(wire::SYN) && t.has(wire::ACK) => PacketKind::SynAck,
        Some(t) if t.has(wire::SYN) => PacketKind::Syn,
        Some(t) if t.payload_len > 0 => PacketKind::Data,
        None if ip.protocol == wire::PROTO_UDP => PacketKind::Data,
        _ => PacketKind::Ack,
    }
}

impl FlowState {
    /// Payload bytes per segment: the smaller MSS of the handshake, less the
    /// timestamp option (RFC 7323 Sec. 3) when both ends use it.
    fn segment_size(&self) -> u32 {
        let ts = if self.timestamps { 12 } else { 0 };
        (self.syn_mss.unwrap_or(536) as u32)
            .saturating_sub(ts)
            .max(1)
    }

    fn on_sender_packet(&mut self, bytes: &[u8], tcp: &Tcp, pkt: &mut Packet) {
        if tcp.has(wire::SYN) {
            let o = wire::syn_options(bytes, tcp);
            self.isn = Some(tcp.seq);
            self.syn_mss = o.mss;
            self.timestamps = o.timestamps;
            return;
        }
        let Some(isn) = self.isn else {
            return; // data of a connection whose SYN was not seen: no numbering
        };
        if tcp.payload_len == 0 {
            return;
        }
        let rel = self.unwrap(tcp.seq.wrapping_sub(isn.wrapping_add(1)));
        let seg = rel / self.segment_size() as u64;
        let c = &mut self.counts;
        c.data_packets_sent += 1;
        if rel < self.high_end {
            c.retransmits += 1;
        }
        self.high_end = self.high_end.max(rel + tcp.payload_len as u64);
        c.bytes_sent = self.high_end;
        pkt.seq = seg as u32;
        if seg < MAX_TRACKED {
            let s = seg as usize;
            if s >= self.copies.len() {
                self.copies.resize(s + 1, 0);
                self.first_delivered.resize(s + 1, NONE);
            }
            pkt.copy = self.copies[s] as u16;
            self.copies[s] = self.copies[s].saturating_add(1).min(NONE - 1);
        }
    }

    /// A 32-bit offset from the ISN as a 64-bit one near the highest sent.
    fn unwrap(&self, rel: u32) -> u64 {
        let delta = rel.wrapping_sub(self.high_end as u32) as i32 as i64;
        (self.high_end as i64 + delta).max(0) as u64
    }

    fn on_receiver_packet(&mut self, bytes: &mut [u8], tcp: &Tcp) {
        self.counts.acks_sent += 1;
        let Some(limit) = self.addrs.max_window else {
            return;
        };
        if tcp.has(wire::SYN) {
            self.on_syn_ack(bytes, tcp, limit);
            return;
        }
        let Some(w) = self.window_bytes else {
            self.counts.window_unclamped += 1;
            return;
        };
        let real = (tcp.window as u64) << self.receiver_shift;
        let field = if real >= w {
            w.div_ceil(1 << self.sender_shift)
        } else {
            real >> self.sender_shift
        };
        wire::set_window(bytes, tcp, field.min(u16::MAX as u64) as u16);
    }

    /// The SYN-ACK fixes the segment size and both window scales: the
    /// sender is told the smallest shift that can express the limit, and
    /// every later window is rescaled from the receiver's shift to it.
    fn on_syn_ack(&mut self, bytes: &mut [u8], tcp: &Tcp, limit: u32) {
        let o = wire::syn_options(bytes, tcp);
        self.timestamps &= o.timestamps;
        if let Some(m) = o.mss {
            self.syn_mss = Some(self.syn_mss.map_or(m, |s| s.min(m)));
        }
        let w = limit as u64 * self.segment_size() as u64;
        self.window_bytes = Some(w);
        self.receiver_shift = o.wscale.unwrap_or(0).min(14);
        self.sender_shift = 0;
        if let Some(at) = o.wscale_at {
            while w.div_ceil(1 << self.sender_shift) > u16::MAX as u64 {
                self.sender_shift += 1;
            }
            wire::set_wscale(bytes, tcp, at, self.sender_shift);
        }
        let told = w.div_ceil(1 << self.sender_shift) << self.sender_shift;
        self.counts.window_advertised = Some(told);
        // The window of a SYN-ACK is never scaled (RFC 7323 Sec. 2.2).
        let syn_window = (tcp.window as u64).min(w).min(u16::MAX as u64);
        wire::set_window(bytes, tcp, syn_window as u16);
    }

    fn final_counts(&self) -> FlowCounts {
        let mut c = self.counts.clone();
        c.segment_size = self.segment_size();
        c.spurious_retransmits = self
            .copies
            .iter()
            .zip(&self.first_delivered)
            .filter(|(_, &d)| d != NONE)
            .map(|(&n, &d)| (n as u64).saturating_sub(1 + d as u64))
            .sum();
        c.reordered_ratio = self.reordering.reordered_ratio();
        c.reorder_extent_mean = self.reordering.mean_extent();
        c.reorder_extent_max = self.reordering.max_extent();
        c.reorder_density = self.reordering.density();
        c
    }
}

#[cfg(test)]
mod tests {
    use super::super::wire::tests::{tcp_packet, SYN_OPTIONS};
    use super::*;

    const S: [u8; 4] = [10, 91, 0, 1];
    const R: [u8; 4] = [10, 92, 0, 1];

    fn flows(max_window: Option<u32>) -> Flows {
        Flows::new(&[FlowAddrs {
            src: S,
            dst: R,
            src_node: 0,
            dst_node: 3,
            max_window,
        }])
    }

    fn data(seq: u32, len: usize) -> Vec<u8> {
        tcp_packet(S, R, (40000, 5001), seq, wire::ACK, &[], len)
    }

    fn model(f: &mut Flows, b: &mut [u8]) -> Packet {
        match f.classify(b) {
            Classified::Packet(p, _) => p,
            Classified::Unroutable => panic!("unroutable"),
        }
    }

    /// SYN with MSS 960 + timestamps: 948-byte segments from ISN 1000.
    fn open(f: &mut Flows) {
        let mut syn = tcp_packet(S, R, (40000, 5001), 1000, wire::SYN, &SYN_OPTIONS, 0);
        assert_eq!(model(f, &mut syn).kind, PacketKind::Syn);
    }

    #[test]
    fn numbers_segments_and_copies_and_finds_spurious_retransmissions() {
        let mut f = flows(None);
        open(&mut f);
        let p0 = model(&mut f, &mut data(1001, 948));
        let p1 = model(&mut f, &mut data(1001 + 948, 948));
        assert_eq!(
            (p0.kind, p0.seq, p0.copy, p0.dst),
            (PacketKind::Data, 0, 0, 3)
        );
        assert_eq!((p1.seq, p1.copy), (1, 0));
        // Segment 0 is retransmitted twice; its original arrives (so both
        // retransmissions are spurious); segment 1's original is dropped and
        // its retransmission is the first copy delivered.
        let r0 = model(&mut f, &mut data(1001, 948));
        let r0b = model(&mut f, &mut data(1001, 948));
        let r1 = model(&mut f, &mut data(1001 + 948, 948));
        assert_eq!((r0.copy, r0b.copy, r1.copy), (1, 2, 1));
        f.on_delivered(&p0, true);
        f.on_drop(&p1);
        f.on_delivered(&r1, true);
        f.on_delivered(&r0, true);
        let c = &f.counts()[0];
        assert_eq!(c.data_packets_sent, 5);
        assert_eq!(c.retransmits, 3);
        assert_eq!(c.data_drops, 1);
        assert_eq!(c.duplicates_delivered, 1);
        assert_eq!(c.spurious_retransmits, 2);
        assert_eq!(c.segment_size, 948);
        assert_eq!(c.bytes_sent, 2 * 948);
    }

    #[test]
    fn packets_of_unknown_hosts_are_unroutable() {
        let mut f = flows(None);
        let mut b = tcp_packet([1, 2, 3, 4], R, (1, 2), 0, wire::ACK, &[], 10);
        assert_eq!(f.classify(&mut b), Classified::Unroutable);
    }

    #[test]
    fn the_receiver_window_is_limited_to_max_window_segments() {
        let mut f = flows(Some(50));
        open(&mut f);
        let mut syn_ack = tcp_packet(
            R,
            S,
            (5001, 40000),
            7,
            wire::SYN | wire::ACK,
            &SYN_OPTIONS,
            0,
        );
        assert_eq!(model(&mut f, &mut syn_ack).kind, PacketKind::SynAck);
        let ip = wire::parse(&syn_ack).unwrap();
        let tcp = ip.tcp.unwrap();
        // 50 x 948 = 47400 fits 16 bits: the sender is told shift 0.
        assert_eq!(wire::syn_options(&syn_ack, &tcp).wscale, Some(0));
        // The test packet's window field is 1000 (< the limit): kept.
        assert_eq!(tcp.window, 1000);
        // A later ACK offering 1000 << 7 bytes is cut to 47400.
        let mut ack = tcp_packet(R, S, (5001, 40000), 8, wire::ACK, &[], 0);
        model(&mut f, &mut ack);
        let ip = wire::parse(&ack).unwrap();
        assert_eq!(ip.tcp.unwrap().window, 47400);
        assert_eq!(
            wire::tcp_checksum(&ack, &ip),
            u16::from_be_bytes([ack[36], ack[37]])
        );
        assert_eq!(f.counts()[0].window_advertised, Some(47400));
    }

    #[test]
    fn a_window_too_large_for_16_bits_gets_the_smallest_shift() {
        let mut f = flows(Some(5000)); // 4.74 MB
        open(&mut f);
        let mut syn_ack = tcp_packet(
            R,
            S,
            (5001, 40000),
            7,
            wire::SYN | wire::ACK,
            &SYN_OPTIONS,
            0,
        );
        model(&mut f, &mut syn_ack);
        let ip = wire::parse(&syn_ack).unwrap();
        let shift = wire::syn_options(&syn_ack, &ip.tcp.unwrap())
            .wscale
            .unwrap();
        assert_eq!(shift, 7); // 4_740_000 / 128 = 37032 < 65536; / 64 is not
        let told = f.counts()[0].window_advertised.unwrap();
        assert!((4_740_000..4_740_000 + 128).contains(&told), "{told}");
    }
}
