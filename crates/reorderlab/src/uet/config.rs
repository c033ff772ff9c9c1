//! A UET flow's settings and constants, and the registry of its variants.
//!
//! The constants are uet-htsim's (ultraethernet/uet-htsim, commit 40ccb05,
//! `sim/uec.cpp` / `uec.h`, read for their values; no code copied). The
//! UET 1.0 specification's own text was not available to us: where it
//! and htsim differ, this model follows htsim.

use crate::engine::time::{ms, secs};
use crate::engine::Time;

/// SLEEK: a loss is declared when the receiver's out-of-order count
/// reaches `LOSS_RETX_FACTOR` x cwnd (uet-htsim `loss_retx_factor` 1.5) ...
pub const LOSS_RETX_FACTOR: f64 = 1.5;
/// ... and at least this many packets (uet-htsim `min_retx_config` 5).
pub const MIN_RETX_PACKETS: u64 = 5;
/// Probe timer after an ACK while data is left to send: this many base
/// RTTs (uet-htsim `probe_first_trial_time` 3) ...
pub const PROBE_FIRST_RTTS: u64 = 3;
/// ... and between two probes (uet-htsim `probe_retry_time` 5).
pub const PROBE_RETRY_RTTS: u64 = 5;
/// Retransmission timeout from the oldest packet's send time, fixed, no
/// backoff (uet-htsim `DEFAULT_UEC_RTO_MIN`, 100 us).
pub const RTO: Time = ms(1) / 10;
/// The receiver ACKs once this many bytes arrived since its last ACK
/// (uet-htsim `_bytes_unacked_threshold` 16384), and at once on CE, on a
/// packet with ACK-request, a duplicate, and its first packet.
pub const ACK_BYTES: u64 = 16384;
/// SACK bitmap width of an ACK (64 packet sequence numbers).
pub const SACK_BITS: u32 = 64;
/// Size of a probe and of a trimmed header on the wire, bytes.
pub const HEADER_BYTES: u32 = 64;
/// The window when the fabric gives no bandwidth-delay product (uet-htsim's
/// default `_maxwnd`, 50 MTUs).
pub const DEFAULT_MAX_WINDOW_PACKETS: u64 = 50;
/// The window's cap as a multiple of the fabric's BDP (uet-htsim:
/// `_maxwnd = 1.5 * _bdp`); the window starts there.
pub const MAX_WINDOW_BDPS: f64 = 1.5;

#[derive(Debug, Clone, PartialEq)]
pub struct UetConfig {
    /// Variant name, as results show it.
    pub variant: String,
    /// Data packet size on the wire, bytes.
    pub mss: u32,
    pub ack_size: u32,
    /// Packets to send; none: bulk.
    pub segments: Option<u64>,
    /// The window's cap and initial value, bytes.
    pub max_window: u64,
    /// The network's round trip without queues (the probe timer's base
    /// RTT until a sample is lower); none: the first sample.
    pub network_rtt: Option<Time>,
    /// Queueing delay below which a probe's answer means the packets were
    /// lost, not queued (uet-htsim: 0.75 network RTT with trimming, one
    /// network RTT without).
    pub target_qdelay: Time,
    pub rto: Time,
    /// SLEEK on (off: only NACKs, probes and the RTO recover).
    pub sleek: bool,
    /// Probes when ACKs stop.
    pub probes: bool,
}

impl Default for UetConfig {
    fn default() -> Self {
        UetConfig {
            variant: "UET".into(),
            mss: 1500,
            ack_size: 64,
            segments: None,
            max_window: DEFAULT_MAX_WINDOW_PACKETS * 1500,
            network_rtt: None,
            target_qdelay: secs(6e-6),
            rto: RTO,
            sleek: true,
            probes: true,
        }
    }
}

/// One registered UET variant. Every name is `UET` or starts with `UET-`.
pub struct UetVariant {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
    pub build: fn(&mut UetConfig),
}

pub const UET_VARIANTS: &[UetVariant] = &[UetVariant {
    name: "UET",
    description: "Ultra Ethernet transport after uet-htsim's sender: PSNs with SACK bitmaps, SLEEK loss detection (out-of-order count >= max(min(1.5 cwnd, max window), 5 packets)), a NACK per trimmed header, probes when ACKs stop, a fixed RTO without backoff; uet-htsim's DCTCP window (not NSCC)",
    source: "Ultra Ethernet Transport (UE 1.0); ultraethernet/uet-htsim 40ccb05 sim/uec.cpp (runSleek, processNack, sendProbe, updateCwndOnAck_DCTCP)",
    build: |_| {},
}];

pub fn find(name: &str) -> Option<&'static UetVariant> {
    UET_VARIANTS
        .iter()
        .find(|v| v.name.eq_ignore_ascii_case(name))
}

pub fn names() -> Vec<&'static str> {
    UET_VARIANTS.iter().map(|v| v.name).collect()
}

/// What the network tells a UET sender, as uet-htsim's sender is told
/// it: the unloaded round trip and the link rate (a fat-tree's longest
/// path), and whether switches trim.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Fabric {
    pub rtt: Option<Time>,
    pub rate: f64,
    pub trimming: bool,
    pub rto: Option<Time>,
}

/// Variant `name` for a flow of `segments` packets (0: bulk) with the
/// flow's `tcp.mss` / `tcp.ack_size`, on `fabric`.
pub fn resolve(
    name: &str,
    (mss, ack_size): (Option<u32>, Option<u32>),
    segments: u64,
    fabric: Fabric,
) -> Option<UetConfig> {
    let v = find(name)?;
    let mut c = UetConfig {
        variant: v.name.to_string(),
        ..Default::default()
    };
    (v.build)(&mut c);
    c.segments = (segments > 0).then_some(segments);
    c.mss = mss.unwrap_or(c.mss);
    c.ack_size = ack_size.unwrap_or(c.ack_size);
    c.max_window = DEFAULT_MAX_WINDOW_PACKETS * c.mss as u64;
    if let Some(rtt) = fabric.rtt {
        let bdp = crate::engine::time::to_secs(rtt) * fabric.rate / 8.0;
        c.max_window = ((MAX_WINDOW_BDPS * bdp) as u64).max(c.mss as u64);
        c.network_rtt = Some(rtt);
        // uet-htsim: target_Qdelay = 0.75 x network RTT with trimming, 1 x without
        c.target_qdelay = if fabric.trimming { rtt * 3 / 4 } else { rtt };
    }
    c.rto = fabric.rto.unwrap_or(c.rto);
    Some(c)
}
