//! What the simulator does for a UET flow ([`crate::uet`]): its packets
//! and trimmed headers at their destination, its results and time
//! series. (The event loop, the timers and the drops dispatch on
//! [`Ends::Uet`] where they do for TCP.)

use super::world::{Ends, Flow, Simulation};
use crate::engine::time::to_secs;
use crate::metrics::FlowResult;
use crate::net::packet::{Packet, PacketKind};
use crate::uet::{UetEnds, UetFlowResult};

impl Simulation {
    /// A packet of UET flow `pkt.flow` reached its destination whole (its
    /// `in_network` count already taken down).
    #[inline(never)]
    pub(super) fn uet_arrive(&mut self, pkt: &Packet) {
        let f = &mut self.flows[pkt.flow as usize];
        if pkt.kind == PacketKind::Data {
            f.data_arrivals += 1;
        }
        let at_receiver = matches!(pkt.kind, PacketKind::Data | PacketKind::Syn);
        let from = if at_receiver { f.dst } else { f.src };
        let Ends::Uet(u) = &mut f.ends else {
            unreachable!("a UET flow");
        };
        let mut out = std::mem::take(&mut self.out);
        u.on_packet(pkt, self.now, &mut out);
        self.send_all(&mut out, pkt.flow, from);
        self.out = out;
        self.sync_sender_timers(pkt.flow);
    }

    /// The trimmed header of a UET flow's data packet reached the
    /// receiver: the copy is lost, and the receiver's NACK goes back
    /// (NDP, Handley et al., SIGCOMM 2017, Sec. 3.2; uet-htsim
    /// `UecSink::processTrimmed`).
    #[cold]
    #[inline(never)]
    pub(super) fn uet_trimmed(&mut self, pkt: &Packet) {
        let f = &mut self.flows[pkt.flow as usize];
        f.in_network -= 1;
        let dst = f.dst;
        let Ends::Uet(u) = &mut f.ends else {
            unreachable!("a UET flow");
        };
        let mut out = std::mem::take(&mut self.out);
        u.on_trimmed(pkt, self.now, &mut out);
        self.send_all(&mut out, pkt.flow, dst);
        self.out = out;
    }

    pub(super) fn uet_flow_result(&self, i: u32, f: &Flow, u: &UetEnds) -> FlowResult {
        let (s, r) = (&u.sender.stats, &u.receiver.stats);
        let end = r.completed_at.unwrap_or(self.end).max(f.measure_from);
        let span = to_secs(end.saturating_sub(f.measure_from));
        let throughput = if span > 0.0 {
            r.bytes_delivered_measured as f64 * 8.0 / span
        } else {
            0.0
        };
        let x = UetFlowResult::of(u);
        let rto = to_secs(u.sender.cfg.rto);
        FlowResult {
            flow: i,
            name: f.name.clone(),
            src: self.graph.node_names[f.src as usize].clone(),
            dst: self.graph.node_names[f.dst as usize].clone(),
            variant: u.sender.cfg.variant.clone(),
            cc: f.cc_name.clone(),
            start: to_secs(f.start),
            segments_sent: s.new_sent,
            data_packets_sent: s.packets_sent,
            bytes_sent: s.packets_sent * u.sender.cfg.mss as u64,
            retransmits: s.retransmits,
            fast_retransmits: s.sleek_retransmits + s.nack_retransmits,
            timeout_retransmits: s.rto_retransmits,
            probe_retransmits: 0,
            tlp_probes: s.probes_sent,
            timeouts: s.timeouts,
            fast_recoveries: s.loss_recoveries,
            rack_marked_lost: 0,
            rack_reorder_timeouts: 0,
            spurious_retransmits: x.spurious_retransmits,
            spurious_fast_retransmits: 0,
            spurious_timeout_retransmits: 0,
            spurious_probe_retransmits: 0,
            data_drops: u.sender.truth.drops,
            dsacks_received: 0,
            false_fast_retransmits_detected: 0,
            false_timeouts_detected: 0,
            undos: 0,
            lt_idle_periods: 0,
            dupthresh: x.sleek_threshold.min(u32::MAX as u64) as u32,
            fa_ratio: None,
            acks_received: s.acks_received + s.nacks_received,
            acks_sent: r.acks_sent + r.nacks_sent + r.probe_acks_sent,
            segments_delivered: r.packets_delivered,
            bytes_delivered: r.bytes_delivered,
            duplicate_segments_received: r.duplicates,
            reordered_ratio: if r.packets_received > 0 {
                r.out_of_order as f64 / r.packets_received as f64
            } else {
                0.0
            },
            reorder_extent_mean: 0.0,
            reorder_extent_max: 0,
            throughput_bps: throughput,
            normalized_throughput: None,
            completed: r.completed_at.is_some(),
            fct: r.completed_at.map(|c| to_secs(c - f.start)),
            srtt: u.sender.srtt.map(to_secs),
            rttvar: 0.0,
            min_rtt: u.sender.base_rtt.map(to_secs),
            rto,
            rto_mean: rto,
            rto_expired_mean: None,
            cwnd: u.sender.cwnd / u.sender.cfg.mss as f64,
            ssthresh: None,
            max_cwnd: s.max_cwnd / u.sender.cfg.mss as f64,
            quic: None,
            ce_received: f.ce_arrivals,
            trimmed_received: f.trimmed_arrivals,
            uet: Some(x),
        }
    }
}

/// A time series value of a UET flow.
pub(super) fn sample(u: &UetEnds, name: &str) -> f64 {
    if name == "delivered" {
        return u.receiver.stats.packets_delivered as f64;
    }
    u.sender.sample(name)
}

/// A flow with a UET variant (`crate::uet`).
pub(super) fn new_uet_flow(
    i: u32,
    fs: &crate::spec::FlowSpec,
    sc: &crate::spec::Scenario,
    nodes: &std::collections::HashMap<String, u32>,
) -> Flow {
    use crate::engine::time::secs;
    let sizes = (fs.tcp.mss, fs.tcp.ack_size);
    let fabric = fabric_of(
        sc,
        fs.tcp.mss.unwrap_or(1500),
        fs.tcp.ack_size.unwrap_or(64),
    );
    let cfg = crate::uet::config::resolve(&fs.variant, sizes, fs.segments, fabric)
        .expect("validated UET variant");
    let (src, dst) = (nodes[&fs.src], nodes[&fs.dst]);
    let start = secs(fs.start);
    let measure_from = start.max(secs(sc.warmup));
    Flow::with_ends(
        (
            fs.name.clone().unwrap_or_else(|| format!("f{i}")),
            fs.cc.to_ascii_lowercase(),
        ),
        (src, dst),
        (start, measure_from),
        Ends::Uet(Box::new(UetEnds::new(cfg, i, (src, dst), measure_from))),
        None,
    )
}

/// What a UET sender is told of the network, as uet-htsim's is: on a
/// fat-tree, the unloaded round trip of its longest path (propagation
/// both ways, and one data packet's and one ACK's transmission per hop
/// at the host rate), the host rate and the RTO uet-htsim's experiments
/// set; elsewhere nothing (the window starts at 50 packets, the first RTT
/// sample is the base, the RTO 100 us).
fn fabric_of(sc: &crate::spec::Scenario, mss: u32, ack: u32) -> crate::uet::config::Fabric {
    use crate::spec::Topology;
    let Topology::FatTree {
        tiers,
        rate,
        hop_delay,
        trimming,
        buffer_bytes,
        ..
    } = sc.topology
    else {
        return Default::default();
    };
    let hops = if tiers == 3 { 6.0 } else { 4.0 };
    let rtt = hops * (2.0 * hop_delay + (mss + ack) as f64 * 8.0 / rate);
    // uet-htsim's experiments (datacenter/main_uec.cpp): min RTO = 15 us
    // + six full switch queues' drain time at the host rate
    let rto = 15e-6 + 6.0 * buffer_bytes as f64 * 8.0 / rate;
    crate::uet::config::Fabric {
        rtt: Some(crate::engine::time::secs(rtt)),
        rate,
        trimming,
        rto: Some(crate::engine::time::secs(rto)),
    }
}
