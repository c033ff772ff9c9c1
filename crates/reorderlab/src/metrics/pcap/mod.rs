//! Packet captures: classic pcap files (the libpcap format, nanosecond
//! timestamps, link type `LINKTYPE_RAW` = IPv4 packets without a link
//! header) written while the simulation runs, one per tap
//! (`record.pcap`, `docs/pcap.md`).
//!
//! * Streaming: each packet is one record appended through a buffered
//!   writer; nothing of the capture is kept in memory but the buffer and a
//!   few bytes per flow.
//! * The capture time of a record is the simulation time (ns since the
//!   start of the run, i.e. from 1970-01-01 00:00:00 in a reader).
//! * Headers: [`wire`]. A flow the scenario opens without a handshake
//!   (`tcp.syn = false`, the default) gets one written at its first packet
//!   at each tap, so that a reader learns the window scale, SACK-permitted
//!   and timestamps (a capture without them is read as a connection
//!   already open, whose window cannot be scaled).
//! * A write error does not stop the run: it is kept and reported by
//!   [`PcapTaps::finish`], and the file is not written further.

pub mod wire;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::engine::Time;
use crate::net::packet::Packet;
use wire::{FlowWire, Segment, MAX_HEADERS};

pub use wire::ts_clock;

/// pcap magic number of a file with nanosecond timestamps.
const MAGIC_NANOS: u32 = 0xA1B2_3C4D;
/// `LINKTYPE_RAW`: each record is an IP packet.
const LINKTYPE_RAW: u32 = 101;
/// Bytes of each packet kept: every header fits (the payload is not written).
const SNAPLEN: u32 = 128;
/// Write buffer of each file.
const BUFFER: usize = 1 << 18;
/// No tap at this link end.
const NONE: u16 = u16::MAX;

/// Which packets of a link a tap sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Offered to the link by its `from` node (before its ingress
    /// impairments and queue).
    Offered,
    /// Handed by the link to its `to` node (after its egress impairments).
    Delivered,
}

/// What was written to one capture file.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct CaptureSummary {
    pub link: String,
    pub position: String,
    pub file: String,
    pub packets: u64,
    pub data_packets: u64,
    pub acks: u64,
    /// SYN and SYN-ACK segments the simulation sent.
    pub syns: u64,
    /// Handshakes written for flows opened without one (3 records each).
    pub handshakes_added: u64,
    pub sack_blocks: u64,
    /// SACK blocks of the simulator's ACKs that did not fit beside the
    /// timestamps option (40 bytes of options: 3 blocks, RFC 2018 Sec. 3).
    pub sack_blocks_left_out: u64,
    /// Bytes of the file.
    pub bytes: u64,
}

/// What a capture remembers of a flow.
#[derive(Debug, Clone, Copy, Default)]
struct FlowSeen {
    seen: bool,
    /// Last TSval of the receiver's segments (the sender's TSecr).
    receiver_tsval: u32,
}

/// One capture file.
struct PcapFile {
    out: BufWriter<File>,
    path: PathBuf,
    summary: CaptureSummary,
    flows: Vec<FlowSeen>,
    ip_id: u16,
    error: Option<io::Error>,
}

impl PcapFile {
    fn create(path: PathBuf, link: &str, position: &str) -> io::Result<PcapFile> {
        let mut out = BufWriter::with_capacity(BUFFER, File::create(&path)?);
        let mut header = [0u8; 24];
        header[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        header[4..6].copy_from_slice(&2u16.to_le_bytes());
        header[6..8].copy_from_slice(&4u16.to_le_bytes());
        header[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        header[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&header)?;
        let summary = CaptureSummary {
            link: link.to_string(),
            position: position.to_string(),
            file: path.to_string_lossy().into_owned(),
            bytes: header.len() as u64,
            ..CaptureSummary::default()
        };
        Ok(PcapFile {
            out,
            path,
            summary,
            flows: Vec::new(),
            ip_id: 0,
            error: None,
        })
    }

    /// Write one simulated packet (after the flow's handshake, if it needs
    /// one written).
    fn write(&mut self, pkt: &Packet, wire: &FlowWire, syn_simulated: bool, now: Time) {
        if self.error.is_some() {
            return;
        }
        let fi = wire.flow as usize;
        if fi >= self.flows.len() {
            self.flows.resize(fi + 1, FlowSeen::default());
        }
        if !self.flows[fi].seen {
            self.flows[fi].seen = true;
            if !syn_simulated {
                self.write_handshake(wire, now);
            }
        }
        let seg = Segment::of(pkt, wire, now, self.flows[fi].receiver_tsval);
        if !seg.from_sender() && seg.tsval != 0 {
            self.flows[fi].receiver_tsval = seg.tsval;
        }
        let s = &mut self.summary;
        match pkt.kind {
            crate::net::packet::PacketKind::Data => s.data_packets += 1,
            crate::net::packet::PacketKind::Ack => s.acks += 1,
            _ => s.syns += 1,
        }
        s.sack_blocks += seg.sack_blocks as u64;
        s.sack_blocks_left_out += seg.sack_left_out as u64;
        self.record(&seg, wire, now);
    }

    /// SYN, SYN-ACK and ACK at the flow's first packet.
    fn write_handshake(&mut self, wire: &FlowWire, now: Time) {
        let t = ts_clock(now);
        let [syn, syn_ack] = Segment::handshake(wire, t);
        self.record(&syn, wire, now);
        self.record(&syn_ack, wire, now);
        self.record(&Segment::handshake_ack(wire, t, t), wire, now);
        self.flows[wire.flow as usize].receiver_tsval = t;
        self.summary.handshakes_added += 1;
    }

    fn record(&mut self, seg: &Segment, wire: &FlowWire, now: Time) {
        let mut rec = [0u8; 16 + MAX_HEADERS];
        let (head, body) = rec.split_at_mut(16);
        let body: &mut [u8; MAX_HEADERS] = body.try_into().expect("sized");
        let (caplen, orig) = seg.encode(wire, self.ip_id, body);
        self.ip_id = self.ip_id.wrapping_add(1);
        head[0..4].copy_from_slice(&((now / 1_000_000_000) as u32).to_le_bytes());
        head[4..8].copy_from_slice(&((now % 1_000_000_000) as u32).to_le_bytes());
        head[8..12].copy_from_slice(&(caplen as u32).to_le_bytes());
        head[12..16].copy_from_slice(&orig.to_le_bytes());
        let n = 16 + caplen;
        if let Err(e) = self.out.write_all(&rec[..n]) {
            self.error = Some(e);
            return;
        }
        self.summary.packets += 1;
        self.summary.bytes += n as u64;
    }

    fn finish(mut self) -> io::Result<CaptureSummary> {
        let flushed = match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        };
        flushed.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.path.display())))?;
        Ok(self.summary)
    }
}

/// A tap as the simulation knows it: the link (index) it names, the
/// reverse link if there is one, and which end of the wire it is on.
#[derive(Debug, Clone)]
pub struct Tap {
    pub link: u32,
    pub reverse: Option<u32>,
    pub link_name: String,
    /// `false`: the `from` node's end (`ingress`); `true`: the `to` node's.
    pub at_to_end: bool,
}

/// Every capture of a run, indexed by link end.
pub struct PcapTaps {
    files: Vec<PcapFile>,
    offered: Vec<u16>,
    delivered: Vec<u16>,
}

impl PcapTaps {
    /// Create one file per tap in `dir` (named after the link and the
    /// end: `R1-R2.egress.pcap`). `links` is the number of links.
    pub fn open(taps: &[Tap], links: usize, dir: &Path) -> io::Result<PcapTaps> {
        let mut t = PcapTaps {
            files: Vec::with_capacity(taps.len()),
            offered: vec![NONE; links],
            delivered: vec![NONE; links],
        };
        let mut names: Vec<String> = Vec::new();
        for (i, tap) in taps.iter().enumerate() {
            let position = if tap.at_to_end { "egress" } else { "ingress" };
            let name = file_name(&tap.link_name, position, &names);
            let path = dir.join(&name);
            let file = PcapFile::create(path.clone(), &tap.link_name, position)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            names.push(name);
            t.files.push(file);
            let (here, there) = if tap.at_to_end {
                (&mut t.delivered, &mut t.offered)
            } else {
                (&mut t.offered, &mut t.delivered)
            };
            here[tap.link as usize] = i as u16;
            if let Some(r) = tap.reverse {
                there[r as usize] = i as u16;
            }
        }
        Ok(t)
    }

    /// The capture of `link` at `side`, if any.
    #[inline]
    pub fn file_at(&self, link: u32, side: Side) -> Option<usize> {
        let k = match side {
            Side::Offered => self.offered[link as usize],
            Side::Delivered => self.delivered[link as usize],
        };
        (k != NONE).then_some(k as usize)
    }

    /// Write `pkt` to capture `file` (from [`Self::file_at`]).
    pub fn write(&mut self, file: usize, pkt: &Packet, wire: &FlowWire, syn: bool, now: Time) {
        self.files[file].write(pkt, wire, syn, now);
    }

    /// Flush every file; the first write error, naming its file.
    pub fn finish(self) -> io::Result<Vec<CaptureSummary>> {
        self.files.into_iter().map(PcapFile::finish).collect()
    }
}

/// `R1->R2` at `egress` -> `R1-R2.egress.pcap`: characters other than
/// letters, digits, `.`, `_` and `-` become `_`; a name already taken
/// gets the tap's number.
fn file_name(link: &str, position: &str, taken: &[String]) -> String {
    let safe: String = link
        .replace("->", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = format!("{safe}.{position}.pcap");
    if taken.contains(&name) {
        format!("{safe}.{position}.{}.pcap", taken.len())
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;
    use crate::net::packet::PacketKind;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("reorderlab-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn taps_write_a_pcap_file_with_both_directions_and_a_handshake() {
        let dir = temp_dir("pcap-unit");
        let tap = Tap {
            link: 1,
            reverse: Some(0),
            link_name: "A->B".into(),
            at_to_end: false,
        };
        let mut taps = PcapTaps::open(&[tap], 3, &dir).unwrap();
        assert_eq!(taps.file_at(1, Side::Offered), Some(0));
        assert_eq!(taps.file_at(0, Side::Delivered), Some(0));
        assert_eq!(taps.file_at(1, Side::Delivered), None);
        assert_eq!(taps.file_at(2, Side::Offered), None);
        let wire = FlowWire {
            flow: 0,
            src: 0,
            dst: 1,
            packet_size: 1000,
            timestamps: false,
            sack: true,
            window_segments: 50,
        };
        let data = Packet::data(0, 1, 1000, 0, 0, ms(1));
        taps.write(0, &data, &wire, false, ms(1) + 17);
        let mut ack = Packet::control(PacketKind::Ack, 0, 0, 40, ms(2));
        ack.seq = 1;
        taps.write(0, &ack, &wire, false, ms(3));
        let summary = taps.finish().unwrap();
        assert_eq!(summary.len(), 1);
        let s = &summary[0];
        assert_eq!((s.packets, s.data_packets, s.acks), (5, 1, 1));
        assert_eq!(s.handshakes_added, 1);
        assert!(s.file.ends_with("A-B.ingress.pcap"));
        let bytes = std::fs::read(&s.file).unwrap();
        assert_eq!(bytes.len() as u64, s.bytes);
        assert_eq!(&bytes[0..4], &MAGIC_NANOS.to_le_bytes());
        assert_eq!(&bytes[20..24], &LINKTYPE_RAW.to_le_bytes());
        // records: SYN, SYN-ACK, ACK (handshake), the data segment, the ACK
        let mut at = 24;
        let mut records = Vec::new();
        while at < bytes.len() {
            let word = |k: usize| u32::from_le_bytes(bytes[at + k..at + k + 4].try_into().unwrap());
            let (sec, nsec, caplen, orig) = (word(0), word(4), word(8), word(12));
            records.push((sec, nsec, caplen, orig, bytes[at + 16 + 33]));
            at += 16 + caplen as usize;
        }
        assert_eq!(at, bytes.len());
        let flags: Vec<u8> = records.iter().map(|r| r.4).collect();
        assert_eq!(flags, vec![0x02, 0x12, 0x10, 0x10, 0x10]);
        assert_eq!(records[3].1, 1_000_017, "capture time in ns");
        assert_eq!(
            (records[3].2, records[3].3),
            (40, 1000),
            "headers kept, full length"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn file_names_are_safe_and_distinct() {
        assert_eq!(file_name("R1->R2", "egress", &[]), "R1-R2.egress.pcap");
        assert_eq!(
            file_name("a b/c->d", "ingress", &[]),
            "a_b_c-d.ingress.pcap"
        );
        let taken = vec!["x-y.egress.pcap".to_string()];
        assert_eq!(file_name("x->y", "egress", &taken), "x-y.egress.1.pcap");
    }

    #[test]
    fn an_unwritable_folder_is_an_error_naming_the_file() {
        let tap = Tap {
            link: 0,
            reverse: None,
            link_name: "A->B".into(),
            at_to_end: true,
        };
        let missing = temp_dir("pcap-missing").join("no").join("such");
        let err = PcapTaps::open(&[tap], 1, &missing).err().unwrap();
        assert!(err.to_string().contains("A-B.egress.pcap"), "{err}");
    }
}
