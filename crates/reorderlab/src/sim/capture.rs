//! Packet captures of a run (`record.pcap`): where the taps sit on the
//! packet path, and what each flow looks like on the wire.
//!
//! A run without captures pays one test of `self.pcap` per packet-hop
//! (`tap_hop`); a capture only reads the simulation's state, so a
//! run's result is the same with or without one.

use std::io;
use std::path::Path;

use super::world::Simulation;
use crate::metrics::pcap::wire::FlowWire;
use crate::metrics::pcap::{CaptureSummary, PcapTaps, Side, Tap};
use crate::net::packet::Packet;
use crate::spec::{PcapTapSpec, Position};
use crate::tcp::policy::RttTiming;

impl Simulation {
    /// Write a pcap file per tap into `dir` while the run goes on. The taps
    /// must have been validated with the scenario (known links).
    pub fn capture_to(&mut self, taps: &[PcapTapSpec], dir: &Path) -> io::Result<()> {
        let index = |name: &str| self.graph.links.iter().position(|l| l.name == name);
        let taps: Vec<Tap> = taps
            .iter()
            .map(|t| {
                let link = index(&t.link).expect("validated link");
                let l = &self.graph.links[link];
                let reverse = index(&format!(
                    "{}->{}",
                    self.graph.node_names[l.to as usize], self.graph.node_names[l.from as usize]
                ));
                Tap {
                    link: link as u32,
                    reverse: reverse.map(|r| r as u32),
                    link_name: t.link.clone(),
                    at_to_end: t.position == Position::Egress,
                }
            })
            .collect();
        self.pcap = Some(Box::new(PcapTaps::open(
            &taps,
            self.graph.links.len(),
            dir,
        )?));
        Ok(())
    }

    /// Flush and close the captures; what each file holds. Empty without
    /// captures.
    pub fn finish_capture(&mut self) -> io::Result<Vec<CaptureSummary>> {
        match self.pcap.take() {
            Some(taps) => taps.finish(),
            None => Ok(Vec::new()),
        }
    }

    /// `pkt` passes `side` of `link`: write it to the capture there, if any.
    #[inline(always)]
    pub(super) fn tap_hop(&mut self, pkt: &Packet, link: u32, side: Side) {
        if self.pcap.is_some() {
            self.tap_capture(pkt, link, side);
        }
    }

    #[cold]
    #[inline(never)]
    fn tap_capture(&mut self, pkt: &Packet, link: u32, side: Side) {
        let Some(taps) = self.pcap.as_deref_mut() else {
            return;
        };
        let Some(file) = taps.file_at(link, side) else {
            return;
        };
        let f = &self.flows[pkt.flow as usize];
        if matches!(
            f.ends,
            super::world::Ends::Quic(_) | super::world::Ends::Uet(_)
        ) {
            // a QUIC or UET flow's packets are not TCP segments: not captured
            return;
        }
        let cfg = f.sender().cfg();
        let wire = FlowWire {
            flow: pkt.flow,
            src: f.src,
            dst: f.dst,
            packet_size: cfg.mss,
            timestamps: cfg.rtt_timing == RttTiming::PerAck,
            sack: cfg.use_sack,
            window_segments: cfg.max_window,
        };
        taps.write(file, pkt, &wire, cfg.syn, self.now);
    }
}
