//! IPv4 and TCP headers synthesised for a simulated packet, so that a
//! capture reads as a real TCP connection: IPv4 (RFC 791), TCP (RFC 9293
//! Sec. 3.1), options MSS, window scale and timestamps (RFC 7323 Sec. 2-3),
//! SACK-permitted and SACK blocks (RFC 2018 Sec. 2-3), whose first block may
//! be a DSACK block (RFC 2883 Sec. 4).
//!
//! The simulator counts segments; the capture counts bytes. Segment `s` of
//! a flow is bytes `[ISN + 1 + s * P, ISN + 1 + (s + 1) * P)` where `P`, the
//! payload, is the flow's data packet size (`tcp.mss`, headers included)
//! less 40 bytes of IPv4 + TCP header and, when the flow uses timestamps,
//! the 12 bytes of that option (as Linux sends 1448 bytes in a 1500-byte
//! packet with timestamps). Payload bytes are not written (the capture is
//! truncated to the headers, as `tcpdump -s 128` would be); the lengths in
//! the headers are the full ones, and the TCP checksum is that of a payload
//! of zeros.

use crate::engine::Time;
use crate::net::packet::{Packet, PacketKind, SackBlocks};

/// IPv4 header without options.
const IP_HEADER: usize = 20;
/// TCP header without options.
const TCP_HEADER: usize = 20;
/// Longest TCP options field (RFC 9293: data offset <= 15 words).
const MAX_OPTIONS: usize = 40;
/// Longest header a capture record holds.
pub const MAX_HEADERS: usize = IP_HEADER + TCP_HEADER + MAX_OPTIONS;
/// The timestamps option as sent: NOP, NOP, kind 8, length 10.
const TS_OPTION: u32 = 12;
/// Port of every flow's receiver (the discard service: the receiver
/// consumes the data).
const RECEIVER_PORT: u16 = 9;

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;

/// What the capture needs to know about a flow to write its packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowWire {
    pub flow: u32,
    /// Node of the sender (data source) and of the receiver.
    pub src: u32,
    pub dst: u32,
    /// Data packet size on the wire, headers included (`tcp.mss`).
    pub packet_size: u32,
    /// RFC 7323 timestamps on every segment (variants timing every ACK).
    pub timestamps: bool,
    /// SACK-permitted in the handshake.
    pub sack: bool,
    /// Receive window advertised, segments (`tcp.max_window`).
    pub window_segments: u32,
}

impl FlowWire {
    /// Payload bytes of one segment (at least 1, so that segments stay
    /// distinct for a packet size below the headers).
    pub fn payload(&self) -> u32 {
        let options = if self.timestamps { TS_OPTION } else { 0 };
        self.packet_size
            .saturating_sub((IP_HEADER + TCP_HEADER) as u32 + options)
            .max(1)
    }

    /// The sender's initial sequence number: fixed per flow (determinism),
    /// and different for each.
    fn sender_isn(&self) -> u32 {
        self.flow.wrapping_mul(0x9E37_79B9) ^ 0x1000_0000
    }

    fn receiver_isn(&self) -> u32 {
        self.flow.wrapping_mul(0x85EB_CA6B) ^ 0x2000_0000
    }

    /// First byte of segment `segment`.
    fn byte_of(&self, segment: u32) -> u32 {
        (self.sender_isn().wrapping_add(1)).wrapping_add(segment.wrapping_mul(self.payload()))
    }

    /// The receive window advertised, bytes.
    fn window_bytes(&self) -> u64 {
        u64::from(self.window_segments) * u64::from(self.payload())
    }

    /// (window field, window scale) of the advertised window: the smallest
    /// scale that lets the field hold it (RFC 7323 Sec. 2.3, at most 14).
    fn window(&self) -> (u16, u8) {
        let bytes = self.window_bytes();
        let shift = (0..14u8).find(|s| bytes >> s <= 0xFFFF).unwrap_or(14);
        ((bytes >> shift).min(0xFFFF) as u16, shift)
    }

    fn sender_port(&self) -> u16 {
        1024 + (self.flow % 64_000) as u16
    }
}

/// IPv4 address of a node: 10.0.0.0/8, node `n` is host `n + 1`.
fn address(node: u32) -> [u8; 4] {
    let host = node.wrapping_add(1);
    [10, (host >> 16) as u8, (host >> 8) as u8, host as u8]
}

/// A timestamps-option clock value: milliseconds of simulated time (the
/// 1 ms tick of Linux), plus one so that it is never 0.
pub fn ts_clock(t: Time) -> u32 {
    ((t / 1_000_000) as u32).wrapping_add(1)
}

/// TCP options, each padded with NOPs to a multiple of 4 bytes.
struct Options {
    bytes: [u8; MAX_OPTIONS],
    len: usize,
}

impl Options {
    fn new() -> Options {
        Options {
            bytes: [0; MAX_OPTIONS],
            len: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.bytes[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    fn mss(&mut self, mss: u16) {
        let [a, b] = mss.to_be_bytes();
        self.push(&[2, 4, a, b]);
    }

    fn sack_permitted(&mut self) {
        self.push(&[1, 1, 4, 2]);
    }

    fn window_scale(&mut self, shift: u8) {
        self.push(&[1, 3, 3, shift]);
    }

    fn timestamps(&mut self, tsval: u32, tsecr: u32) {
        self.push(&[1, 1, 8, 10]);
        self.push(&tsval.to_be_bytes());
        self.push(&tsecr.to_be_bytes());
    }

    /// SACK blocks (byte ranges), as many as fit in the room left (three
    /// beside the timestamps option, RFC 2018 Sec. 3); returns how many
    /// were written.
    fn sack(&mut self, blocks: &[(u32, u32)]) -> usize {
        let room = (MAX_OPTIONS - self.len).saturating_sub(4) / 8;
        let n = blocks.len().min(room);
        if n > 0 {
            self.push(&[1, 1, 5, 2 + 8 * n as u8]);
            for (left, right) in &blocks[..n] {
                self.push(&left.to_be_bytes());
                self.push(&right.to_be_bytes());
            }
        }
        n
    }
}

/// One TCP segment to write.
pub struct Segment {
    from_sender: bool,
    seq: u32,
    ack: u32,
    flags: u8,
    options: Options,
    payload: u32,
    /// TSval sent (0 without timestamps).
    pub tsval: u32,
    /// SACK blocks written, and those that did not fit beside the
    /// timestamps.
    pub sack_blocks: usize,
    pub sack_left_out: usize,
}

impl Segment {
    /// The segment of a simulated packet. `now` is the capture time and
    /// `peer_tsval` the last TSval the other end sent (its echo).
    pub fn of(pkt: &Packet, wire: &FlowWire, now: Time, peer_tsval: u32) -> Segment {
        match pkt.kind {
            PacketKind::Data => Segment::data(wire, pkt.seq, ts_clock(pkt.ts), peer_tsval),
            PacketKind::Ack => Segment::ack(wire, pkt, now),
            PacketKind::Syn => Segment::syn(wire, false, ts_clock(pkt.ts), 0),
            PacketKind::SynAck => Segment::syn(wire, true, ts_clock(now), ts_clock(pkt.ts)),
        }
    }

    fn new(from_sender: bool, seq: u32, ack: u32, flags: u8) -> Segment {
        Segment {
            from_sender,
            seq,
            ack,
            flags,
            options: Options::new(),
            payload: 0,
            tsval: 0,
            sack_blocks: 0,
            sack_left_out: 0,
        }
    }

    fn data(wire: &FlowWire, segment: u32, tsval: u32, tsecr: u32) -> Segment {
        let mut s = Segment::new(
            true,
            wire.byte_of(segment),
            wire.receiver_isn().wrapping_add(1),
            ACK,
        );
        if wire.timestamps {
            s.timestamps(tsval, tsecr);
        }
        s.payload = wire.payload();
        s
    }

    /// A pure ACK: cumulative ACK and SACK / DSACK blocks mapped to bytes.
    fn ack(wire: &FlowWire, pkt: &Packet, now: Time) -> Segment {
        let mut s = Segment::new(
            false,
            wire.receiver_isn().wrapping_add(1),
            wire.byte_of(pkt.seq),
            ACK,
        );
        if wire.timestamps {
            s.timestamps(ts_clock(now), ts_clock(pkt.ts));
        }
        let mut bytes = [(0u32, 0u32); SackBlocks::MAX];
        let blocks = pkt.sack.as_slice();
        for (b, &(start, end)) in bytes.iter_mut().zip(blocks) {
            *b = (wire.byte_of(start), wire.byte_of(end));
        }
        s.sack_blocks = s.options.sack(&bytes[..blocks.len()]);
        s.sack_left_out = blocks.len() - s.sack_blocks;
        s
    }

    fn timestamps(&mut self, tsval: u32, tsecr: u32) {
        self.options.timestamps(tsval, tsecr);
        self.tsval = tsval;
    }

    /// SYN (or SYN-ACK) with the options the flow uses.
    fn syn(wire: &FlowWire, reply: bool, tsval: u32, tsecr: u32) -> Segment {
        let mut s = if reply {
            Segment::new(
                false,
                wire.receiver_isn(),
                wire.sender_isn().wrapping_add(1),
                SYN | ACK,
            )
        } else {
            Segment::new(true, wire.sender_isn(), 0, SYN)
        };
        let mss = wire
            .packet_size
            .saturating_sub((IP_HEADER + TCP_HEADER) as u32);
        s.options.mss(mss.clamp(1, 0xFFFF) as u16);
        if wire.sack {
            s.options.sack_permitted();
        }
        if wire.timestamps {
            s.timestamps(tsval, tsecr);
        }
        s.options.window_scale(wire.window().1);
        s
    }

    /// The third segment of a handshake: the sender's ACK of the SYN-ACK.
    pub fn handshake_ack(wire: &FlowWire, tsval: u32, tsecr: u32) -> Segment {
        let mut s = Segment::data(wire, 0, tsval, tsecr);
        s.payload = 0;
        s
    }

    /// The SYN and SYN-ACK of a handshake written for a flow the
    /// simulation opens without one.
    pub fn handshake(wire: &FlowWire, t: u32) -> [Segment; 2] {
        [
            Segment::syn(wire, false, t, 0),
            Segment::syn(wire, true, t, t),
        ]
    }

    /// Whether it was sent by the flow's sender (data direction).
    pub fn from_sender(&self) -> bool {
        self.from_sender
    }

    /// Write the IPv4 and TCP headers into `buf`; return (bytes written,
    /// length of the whole IP packet).
    pub fn encode(&self, wire: &FlowWire, ip_id: u16, buf: &mut [u8; MAX_HEADERS]) -> (usize, u32) {
        let (src, dst) = if self.from_sender {
            (wire.src, wire.dst)
        } else {
            (wire.dst, wire.src)
        };
        let (sport, dport) = if self.from_sender {
            (wire.sender_port(), RECEIVER_PORT)
        } else {
            (RECEIVER_PORT, wire.sender_port())
        };
        let tcp_len = TCP_HEADER + self.options.len;
        let header_len = IP_HEADER + tcp_len;
        let total = header_len as u32 + self.payload;
        let (src_ip, dst_ip) = (address(src), address(dst));
        let ip = &mut buf[..IP_HEADER];
        ip.copy_from_slice(&[
            0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ]);
        ip[2..4].copy_from_slice(&(total.min(0xFFFF) as u16).to_be_bytes());
        ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
        ip[12..16].copy_from_slice(&src_ip);
        ip[16..20].copy_from_slice(&dst_ip);
        let ip_sum = checksum(ip, 0);
        ip[10..12].copy_from_slice(&ip_sum.to_be_bytes());
        let (window, _) = wire.window();
        let tcp = &mut buf[IP_HEADER..header_len];
        tcp[0..2].copy_from_slice(&sport.to_be_bytes());
        tcp[2..4].copy_from_slice(&dport.to_be_bytes());
        tcp[4..8].copy_from_slice(&self.seq.to_be_bytes());
        tcp[8..12].copy_from_slice(&self.ack.to_be_bytes());
        tcp[12] = ((tcp_len / 4) as u8) << 4;
        tcp[13] = self.flags;
        // RFC 7323 Sec. 2.2: the window of a SYN is never scaled
        let field = if self.flags & SYN != 0 {
            wire.window_bytes().min(0xFFFF) as u16
        } else {
            window
        };
        tcp[14..16].copy_from_slice(&field.to_be_bytes());
        tcp[16..20].fill(0);
        tcp[20..].copy_from_slice(&self.options.bytes[..self.options.len]);
        // pseudo-header (RFC 9293 Sec. 3.1): addresses, protocol, TCP length
        let seg_len = tcp_len as u32 + self.payload;
        let mut pseudo = [0u8; 12];
        pseudo[..4].copy_from_slice(&src_ip);
        pseudo[4..8].copy_from_slice(&dst_ip);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&(seg_len.min(0xFFFF) as u16).to_be_bytes());
        let tcp_sum = checksum(tcp, sum_words(&pseudo, 0));
        tcp[16..18].copy_from_slice(&tcp_sum.to_be_bytes());
        (header_len, total)
    }
}

/// One's-complement sum of 16-bit words (RFC 1071), without the final fold.
fn sum_words(data: &[u8], mut sum: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for w in &mut chunks {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
    }
    sum
}

/// The Internet checksum of `data` added to a partial sum (RFC 1071).
fn checksum(data: &[u8], partial: u32) -> u16 {
    let mut sum = sum_words(data, partial);
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    fn wire(timestamps: bool) -> FlowWire {
        FlowWire {
            flow: 3,
            src: 0,
            dst: 4,
            packet_size: 1500,
            timestamps,
            sack: true,
            window_segments: 1000,
        }
    }

    /// A header verifies when the one's-complement sum over it (checksum
    /// included) is all ones (RFC 1071).
    fn verifies(data: &[u8], partial: u32) -> bool {
        checksum(data, partial) == 0
    }

    fn encoded(seg: &Segment, w: &FlowWire) -> (Vec<u8>, u32) {
        let mut buf = [0u8; MAX_HEADERS];
        let (n, total) = seg.encode(w, 7, &mut buf);
        (buf[..n].to_vec(), total)
    }

    fn tcp_verifies(h: &[u8], total: u32) -> bool {
        let mut pseudo = [0u8; 12];
        pseudo[..8].copy_from_slice(&h[12..20]);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&((total - 20) as u16).to_be_bytes());
        verifies(&h[20..], sum_words(&pseudo, 0))
    }

    #[test]
    fn data_segment_has_byte_sequence_numbers_lengths_and_checksums() {
        let w = wire(false);
        let pkt = Packet::data(3, 4, 1500, 10, 0, ms(5));
        let seg = Segment::of(&pkt, &w, ms(6), 0);
        let (h, total) = encoded(&seg, &w);
        assert_eq!(h.len(), 40);
        assert_eq!(total, 1500, "IP total length = the simulator's packet size");
        assert_eq!(u16::from_be_bytes([h[2], h[3]]), 1500);
        assert_eq!(h[9], 6);
        assert_eq!(&h[12..16], &[10, 0, 0, 1]);
        assert_eq!(&h[16..20], &[10, 0, 0, 5]);
        let seq = u32::from_be_bytes([h[24], h[25], h[26], h[27]]);
        assert_eq!(seq, w.sender_isn().wrapping_add(1).wrapping_add(10 * 1460));
        assert_eq!(h[33], ACK);
        assert!(verifies(&h[..20], 0));
        assert!(tcp_verifies(&h, total));
    }

    #[test]
    fn timestamps_shrink_the_payload_and_leave_room_for_three_sack_blocks() {
        let w = wire(true);
        assert_eq!(w.payload(), 1448);
        let mut ack = Packet::control(PacketKind::Ack, 3, 0, 40, ms(9));
        ack.kind = PacketKind::Ack;
        ack.seq = 5;
        ack.ts = ms(2);
        for (a, b) in [(2, 3), (7, 9), (11, 12), (14, 15)] {
            ack.sack.push(a, b);
        }
        let seg = Segment::of(&ack, &w, ms(9), 0);
        assert_eq!((seg.sack_blocks, seg.sack_left_out), (3, 1));
        assert_eq!(seg.tsval, ts_clock(ms(9)));
        let (h, total) = encoded(&seg, &w);
        assert_eq!(h.len() as u32, total, "a pure ACK carries no payload");
        assert_eq!(h.len(), 20 + 20 + 12 + 2 + 2 + 24);
        assert_eq!((h[32] >> 4) as usize * 4, h.len() - 20);
        let ack_no = u32::from_be_bytes([h[28], h[29], h[30], h[31]]);
        assert_eq!(ack_no, w.byte_of(5));
        // the first block (a DSACK block below the ACK here) maps to bytes
        let block = &h[20 + 20 + 12 + 4..];
        let left = u32::from_be_bytes([block[0], block[1], block[2], block[3]]);
        let right = u32::from_be_bytes([block[4], block[5], block[6], block[7]]);
        assert_eq!((left, right), (w.byte_of(2), w.byte_of(3)));
        assert!(verifies(&h[..20], 0) && tcp_verifies(&h, total));
        // without timestamps all four fit
        let seg = Segment::of(&ack, &wire(false), ms(9), 0);
        assert_eq!((seg.sack_blocks, seg.sack_left_out), (4, 0));
    }

    #[test]
    fn handshake_announces_mss_sack_timestamps_and_window_scale() {
        let w = wire(true);
        let (field, shift) = w.window();
        assert_eq!(shift, 5, "1000 x 1448 bytes need a scale of 5");
        assert_eq!(u32::from(field) << shift, 1000 * 1448 / 32 * 32);
        let [syn, syn_ack] = Segment::handshake(&w, 1);
        let (h, total) = encoded(&syn, &w);
        assert_eq!(h[33], SYN);
        assert_eq!(&h[40..44], &[2, 4, 0x05, 0xB4], "MSS 1460");
        assert!(h[44..].windows(2).any(|o| o == [4, 2]), "SACK-permitted");
        assert!(h[44..].windows(3).any(|o| o == [3, 3, 5]), "window scale 5");
        assert!(tcp_verifies(&h, total));
        let (h, _) = encoded(&syn_ack, &w);
        assert_eq!(h[33], SYN | ACK);
        let ack_no = u32::from_be_bytes([h[28], h[29], h[30], h[31]]);
        assert_eq!(ack_no, w.sender_isn().wrapping_add(1));
        let third = Segment::handshake_ack(&w, 1, 1);
        let (h, total) = encoded(&third, &w);
        assert_eq!(h.len() as u32, total);
        assert_eq!(
            u32::from_be_bytes([h[24], h[25], h[26], h[27]]),
            w.byte_of(0)
        );
    }

    #[test]
    fn sequence_numbers_wrap_past_four_gigabytes() {
        let w = wire(false);
        let far = 4_000_000u32; // 5.8 GB into the flow
        assert_eq!(
            w.byte_of(far),
            w.sender_isn()
                .wrapping_add(1)
                .wrapping_add((u64::from(far) * 1460 % (1 << 32)) as u32)
        );
    }
}
