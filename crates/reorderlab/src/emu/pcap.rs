//! pcap capture files of what the emulator reads from and writes to a TUN
//! device: the classic libpcap format with nanosecond time stamps (magic
//! 0xa1b23c4d) and link type 101 (LINKTYPE_RAW: each record an IP packet).
//!
//! The emulator's loop only appends records to a buffer in memory; a full
//! buffer goes to a writer thread, so a slow disk never delays a packet.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

const MAGIC_NS: u32 = 0xa1b2_3c4d;
const LINKTYPE_RAW: u32 = 101;
/// Bytes buffered before a hand-over to the writer thread.
const CHUNK: usize = 1 << 20;

/// The 24-byte file header.
pub fn file_header(snaplen: u32) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone, sigfigs: 0
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
    h
}

/// Append one record (time stamp in ns since the epoch) to `out`.
pub fn push_record(out: &mut Vec<u8>, time_ns: u64, packet: &[u8], snaplen: u32) {
    let incl = packet.len().min(snaplen as usize);
    out.extend_from_slice(&((time_ns / 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&((time_ns % 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&(incl as u32).to_le_bytes());
    out.extend_from_slice(&(packet.len() as u32).to_le_bytes());
    out.extend_from_slice(&packet[..incl]);
}

/// Capture files, one per side, written by a background thread.
pub struct Capture {
    snaplen: u32,
    buffers: Vec<Vec<u8>>,
    to_writer: Option<Sender<(usize, Vec<u8>)>>,
    writer: Option<JoinHandle<io::Result<()>>>,
}

impl Capture {
    /// Create the files (headers written at once) and the writer thread.
    pub fn create(paths: &[&Path], snaplen: u32) -> io::Result<Capture> {
        let mut files = Vec::new();
        for p in paths {
            let f = File::create(p)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
            let mut w = BufWriter::with_capacity(CHUNK, f);
            w.write_all(&file_header(snaplen))?;
            files.push(w);
        }
        let (tx, rx) = channel();
        let writer = std::thread::Builder::new()
            .name("pcap-writer".into())
            .spawn(move || write_loop(files, rx))?;
        Ok(Capture {
            snaplen,
            buffers: paths.iter().map(|_| Vec::with_capacity(CHUNK)).collect(),
            to_writer: Some(tx),
            writer: Some(writer),
        })
    }

    /// Record `packet` on side `side` at `time_ns` (ns since the epoch).
    pub fn record(&mut self, side: usize, time_ns: u64, packet: &[u8]) {
        let buf = &mut self.buffers[side];
        push_record(buf, time_ns, packet, self.snaplen);
        if buf.len() >= CHUNK {
            let full = std::mem::replace(buf, Vec::with_capacity(CHUNK));
            if let Some(tx) = &self.to_writer {
                // A writer that died reports its error in `finish`.
                let _ = tx.send((side, full));
            }
        }
    }

    /// Write what is buffered, close the files and report a write error.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(tx) = self.to_writer.take() {
            for (side, buf) in self.buffers.drain(..).enumerate() {
                let _ = tx.send((side, buf));
            }
        }
        match self.writer.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("pcap writer thread panicked")),
            None => Ok(()),
        }
    }
}

fn write_loop(mut files: Vec<BufWriter<File>>, rx: Receiver<(usize, Vec<u8>)>) -> io::Result<()> {
    for (side, chunk) in rx {
        files[side].write_all(&chunk)?;
    }
    for f in &mut files {
        f.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_readable_nanosecond_raw_ip_capture() {
        let dir = std::env::temp_dir().join(format!("rl-pcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.pcap");
        let mut cap = Capture::create(&[path.as_path()], 64).unwrap();
        let packet: Vec<u8> = (0..100u8).collect();
        cap.record(0, 1_700_000_000_123_456_789, &packet);
        cap.record(0, 1_700_000_001_000_000_000, &packet[..10]);
        cap.finish().unwrap();
        let b = std::fs::read(&path).unwrap();
        assert_eq!(&b[0..4], &MAGIC_NS.to_le_bytes());
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 101);
        let r = &b[24..];
        let word = |at: usize| u32::from_le_bytes(r[at..at + 4].try_into().unwrap());
        assert_eq!((word(0), word(4)), (1_700_000_000, 123_456_789));
        assert_eq!((word(8), word(12)), (64, 100)); // cut to the snap length
        assert_eq!(&r[16..80], &packet[..64]);
        let second = 16 + 64;
        assert_eq!((word(second + 8), word(second + 12)), (10, 10));
        assert_eq!(b.len(), 24 + 16 + 64 + 16 + 10);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
