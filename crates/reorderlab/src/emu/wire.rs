//! The few header fields of a real IPv4 / TCP packet the emulator needs, read
//! in place (RFC 791 Sec. 3.1, RFC 9293 Sec. 3.1), and the one rewrite it
//! does: the receive window of a receiver's segments (RFC 7323 Sec. 2), with
//! the checksum updated incrementally (RFC 1624 Sec. 3).

/// IP protocol numbers of TCP and UDP.
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// TCP flags (RFC 9293 Sec. 3.1).
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const ACK: u8 = 0x10;

const TCP_OPT_END: u8 = 0;
const TCP_OPT_NOP: u8 = 1;
const TCP_OPT_MSS: u8 = 2;
const TCP_OPT_WSCALE: u8 = 3;
const TCP_OPT_TIMESTAMP: u8 = 8;

/// An IPv4 header, with the TCP header when the packet carries one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4 {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub protocol: u8,
    /// Total length from the header (bytes on the wire).
    pub total_len: u16,
    pub header_len: usize,
    pub tcp: Option<Tcp>,
}

/// The TCP header fields the emulator reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tcp {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Offset of the TCP header in the packet.
    pub offset: usize,
    pub header_len: usize,
    pub payload_len: u32,
}

impl Tcp {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// Options of a SYN or SYN-ACK (RFC 9293 Sec. 3.7.1, RFC 7323 Secs. 2-3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynOptions {
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    /// Offset in the packet of the window-scale shift byte.
    pub wscale_at: Option<usize>,
    pub timestamps: bool,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parse an IPv4 packet; `None` for anything else (IPv6, truncated, bad
/// lengths). A fragment (offset or more-fragments set) has no TCP header.
pub fn parse(b: &[u8]) -> Option<Ipv4> {
    if b.len() < 20 || b[0] >> 4 != 4 {
        return None;
    }
    let header_len = ((b[0] & 0x0f) as usize) * 4;
    let total_len = be16(b, 2);
    if header_len < 20 || (total_len as usize) < header_len || total_len as usize > b.len() {
        return None;
    }
    let fragment = be16(b, 6) & 0x3fff != 0;
    let protocol = b[9];
    let tcp = if protocol == PROTO_TCP && !fragment {
        parse_tcp(b, header_len, total_len as usize)
    } else {
        None
    };
    Some(Ipv4 {
        src: [b[12], b[13], b[14], b[15]],
        dst: [b[16], b[17], b[18], b[19]],
        protocol,
        total_len,
        header_len,
        tcp,
    })
}

fn parse_tcp(b: &[u8], offset: usize, total: usize) -> Option<Tcp> {
    if total < offset + 20 {
        return None;
    }
    let header_len = ((b[offset + 12] >> 4) as usize) * 4;
    if header_len < 20 || offset + header_len > total {
        return None;
    }
    Some(Tcp {
        src_port: be16(b, offset),
        dst_port: be16(b, offset + 2),
        seq: be32(b, offset + 4),
        ack: be32(b, offset + 8),
        flags: b[offset + 13],
        window: be16(b, offset + 14),
        offset,
        header_len,
        payload_len: (total - offset - header_len) as u32,
    })
}

/// The options of the TCP header `tcp` of packet `b`.
pub fn syn_options(b: &[u8], tcp: &Tcp) -> SynOptions {
    let mut o = SynOptions::default();
    let mut i = tcp.offset + 20;
    let end = tcp.offset + tcp.header_len;
    while i < end {
        match b[i] {
            TCP_OPT_END => break,
            TCP_OPT_NOP => i += 1,
            kind => {
                let len = b.get(i + 1).copied().unwrap_or(0) as usize;
                if len < 2 || i + len > end {
                    break;
                }
                match (kind, len) {
                    (TCP_OPT_MSS, 4) => o.mss = Some(be16(b, i + 2)),
                    (TCP_OPT_WSCALE, 3) => {
                        o.wscale = Some(b[i + 2]);
                        o.wscale_at = Some(i + 2);
                    }
                    (TCP_OPT_TIMESTAMP, 10) => o.timestamps = true,
                    _ => {}
                }
                i += len;
            }
        }
    }
    o
}

/// Replace the 16-bit word at `at` (even offset from the TCP header) and
/// update the TCP checksum: HC' = ~(~HC + ~m + m') (RFC 1624, Eqn. 3).
fn replace_word(b: &mut [u8], tcp: &Tcp, at: usize, new: u16) {
    let old = be16(b, at);
    if old == new {
        return;
    }
    b[at..at + 2].copy_from_slice(&new.to_be_bytes());
    let sum_at = tcp.offset + 16;
    let hc = be16(b, sum_at);
    let mut sum = (!hc as u32) + (!old as u32) + new as u32;
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    b[sum_at..sum_at + 2].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

/// Set the window field of the TCP header.
pub fn set_window(b: &mut [u8], tcp: &Tcp, window: u16) {
    replace_word(b, tcp, tcp.offset + 14, window);
}

/// Set the window-scale shift of a SYN-ACK (the byte at `at`).
pub fn set_wscale(b: &mut [u8], tcp: &Tcp, at: usize, shift: u8) {
    // The checksum sums 16-bit words from the TCP header's start.
    let word = at - ((at - tcp.offset) % 2);
    let mut w = [b[word], b[word + 1]];
    w[at - word] = shift;
    replace_word(b, tcp, word, u16::from_be_bytes(w));
}

/// The TCP checksum of `b` computed from scratch (pseudo-header of RFC 9293
/// Sec. 3.1), for tests of the incremental update.
pub fn tcp_checksum(b: &[u8], ip: &Ipv4) -> u16 {
    let tcp = ip.tcp.expect("a TCP packet");
    let seg = &b[tcp.offset..ip.total_len as usize];
    let mut sum: u32 = 0;
    let mut add = |word: u16| sum += word as u32;
    add(u16::from_be_bytes([ip.src[0], ip.src[1]]));
    add(u16::from_be_bytes([ip.src[2], ip.src[3]]));
    add(u16::from_be_bytes([ip.dst[0], ip.dst[1]]));
    add(u16::from_be_bytes([ip.dst[2], ip.dst[3]]));
    add(PROTO_TCP as u16);
    add(seg.len() as u16);
    for (k, pair) in seg.chunks(2).enumerate() {
        if k == 8 {
            continue; // the checksum field itself
        }
        add(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A TCP/IPv4 packet with the given flags, options and payload, and a
    /// correct checksum.
    pub fn tcp_packet(
        src: [u8; 4],
        dst: [u8; 4],
        ports: (u16, u16),
        seq: u32,
        flags: u8,
        options: &[u8],
        payload: usize,
    ) -> Vec<u8> {
        assert_eq!(options.len() % 4, 0);
        let tcp_len = 20 + options.len();
        let total = 20 + tcp_len + payload;
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[8] = 64;
        b[9] = PROTO_TCP;
        b[12..16].copy_from_slice(&src);
        b[16..20].copy_from_slice(&dst);
        let t = 20;
        b[t..t + 2].copy_from_slice(&ports.0.to_be_bytes());
        b[t + 2..t + 4].copy_from_slice(&ports.1.to_be_bytes());
        b[t + 4..t + 8].copy_from_slice(&seq.to_be_bytes());
        b[t + 12] = ((tcp_len / 4) as u8) << 4;
        b[t + 13] = flags;
        b[t + 14..t + 16].copy_from_slice(&1000u16.to_be_bytes());
        b[t + 20..t + 20 + options.len()].copy_from_slice(options);
        for (i, x) in b[t + tcp_len..].iter_mut().enumerate() {
            *x = (i * 7) as u8;
        }
        let ip = parse(&b).unwrap();
        let sum = tcp_checksum(&b, &ip);
        b[t + 16..t + 18].copy_from_slice(&sum.to_be_bytes());
        b
    }

    /// MSS 960, SACK permitted, timestamps, NOP, window scale 7.
    pub const SYN_OPTIONS: [u8; 20] = [
        2, 4, 0x03, 0xc0, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
    ];

    #[test]
    fn parses_addresses_ports_and_payload_length() {
        let b = tcp_packet(
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            (40000, 5001),
            77,
            ACK,
            &[],
            948,
        );
        let ip = parse(&b).unwrap();
        assert_eq!(
            (ip.src, ip.dst, ip.total_len),
            ([10, 0, 0, 1], [10, 0, 0, 2], 988)
        );
        let t = ip.tcp.unwrap();
        assert_eq!(
            (t.src_port, t.dst_port, t.seq, t.payload_len),
            (40000, 5001, 77, 948)
        );
        assert!(t.has(ACK) && !t.has(SYN));
        assert!(parse(&b[..10]).is_none());
        let mut v6 = b.clone();
        v6[0] = 0x60;
        assert!(parse(&v6).is_none());
    }

    #[test]
    fn reads_syn_options() {
        let b = tcp_packet([1, 1, 1, 1], [2, 2, 2, 2], (1, 2), 0, SYN, &SYN_OPTIONS, 0);
        let ip = parse(&b).unwrap();
        let o = syn_options(&b, &ip.tcp.unwrap());
        assert_eq!(o.mss, Some(960));
        assert_eq!(o.wscale, Some(7));
        assert!(o.timestamps);
        assert_eq!(b[o.wscale_at.unwrap()], 7);
    }

    #[test]
    fn rewrites_keep_the_checksum_valid() {
        let mut b = tcp_packet(
            [1, 2, 3, 4],
            [5, 6, 7, 8],
            (9, 10),
            5,
            SYN | ACK,
            &SYN_OPTIONS,
            0,
        );
        let ip = parse(&b).unwrap();
        let tcp = ip.tcp.unwrap();
        set_window(&mut b, &tcp, 47400);
        let at = syn_options(&b, &tcp).wscale_at.unwrap();
        set_wscale(&mut b, &tcp, at, 0);
        let ip = parse(&b).unwrap();
        assert_eq!(ip.tcp.unwrap().window, 47400);
        assert_eq!(syn_options(&b, &ip.tcp.unwrap()).wscale, Some(0));
        let stored = be16(&b, tcp.offset + 16);
        assert_eq!(stored, tcp_checksum(&b, &ip));
    }
}
