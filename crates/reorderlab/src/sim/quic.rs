//! What the simulator does for a QUIC flow ([`crate::quic`]): its packets
//! at their destination, its results and time series. (The event loop,
//! the timers and the drops dispatch on [`Ends::Quic`] where they do for
//! TCP.)

use super::world::{Ends, Flow, Simulation};
use crate::engine::time::to_secs;
use crate::metrics::FlowResult;
use crate::net::packet::{Packet, PacketKind};
use crate::quic::{QuicEnds, QuicFlowResult};

impl Simulation {
    /// A packet of QUIC flow `pkt.flow` reached its destination (its
    /// `in_network` count already taken down).
    #[inline(never)]
    pub(super) fn quic_arrive(&mut self, pkt: &Packet) {
        let fi = pkt.flow as usize;
        let mut out = std::mem::take(&mut self.out);
        let f = &mut self.flows[fi];
        let data = pkt.kind == PacketKind::Data;
        if data {
            f.data_arrivals += 1;
        }
        let Ends::Quic(q) = &mut f.ends else {
            unreachable!("a QUIC flow");
        };
        q.on_packet(pkt, self.now, &mut out);
        let from = if data { f.dst } else { f.src };
        self.send_all(&mut out, pkt.flow, from);
        self.out = out;
        self.sync_timers(pkt.flow);
    }

    pub(super) fn quic_flow_result(&self, i: u32, f: &Flow, q: &QuicEnds) -> FlowResult {
        let (s, r, t) = (&q.sender.stats, &q.receiver.stats, &q.sender.truth);
        let ld = &q.sender.ld;
        let end = r.completed_at.unwrap_or(self.end).max(f.measure_from);
        let span = to_secs(end.saturating_sub(f.measure_from));
        let throughput = if span > 0.0 {
            r.bytes_delivered_measured as f64 * 8.0 / span
        } else {
            0.0
        };
        let w = q.sender.cc.w;
        let pto = ld.pto();
        FlowResult {
            flow: i,
            name: f.name.clone(),
            src: self.graph.node_names[f.src as usize].clone(),
            dst: self.graph.node_names[f.dst as usize].clone(),
            variant: q.sender.cfg.variant.clone(),
            cc: f.cc_name.clone(),
            start: to_secs(f.start),
            segments_sent: s.new_chunks_sent,
            data_packets_sent: s.packets_sent,
            bytes_sent: s.packets_sent * q.sender.cfg.mss as u64,
            retransmits: s.retransmits,
            fast_retransmits: 0,
            timeout_retransmits: 0,
            probe_retransmits: 0,
            tlp_probes: s.probes_sent,
            timeouts: s.ptos,
            fast_recoveries: q.sender.cc.reductions,
            rack_marked_lost: s.declared_lost,
            rack_reorder_timeouts: 0,
            spurious_retransmits: t.spurious_losses,
            spurious_fast_retransmits: 0,
            spurious_timeout_retransmits: 0,
            spurious_probe_retransmits: 0,
            data_drops: t.drops,
            dsacks_received: 0,
            false_fast_retransmits_detected: s.late_acked,
            false_timeouts_detected: 0,
            undos: q.sender.cc.undos,
            lt_idle_periods: 0,
            dupthresh: ld.thresholds.packet.min(u32::MAX as u64) as u32,
            fa_ratio: None,
            acks_received: s.acks_received,
            acks_sent: r.acks_sent,
            segments_delivered: r.chunks_delivered,
            bytes_delivered: r.bytes_delivered,
            duplicate_segments_received: r.duplicates,
            reordered_ratio: if r.packets_received > 0 {
                r.reordered as f64 / r.packets_received as f64
            } else {
                0.0
            },
            reorder_extent_mean: 0.0,
            reorder_extent_max: 0,
            throughput_bps: throughput,
            normalized_throughput: None,
            completed: r.completed_at.is_some(),
            fct: r.completed_at.map(|c| to_secs(c - f.start)),
            srtt: ld.rtt.first_sample_at.map(|_| to_secs(ld.rtt.smoothed)),
            rttvar: to_secs(ld.rtt.rttvar),
            min_rtt: ld.rtt.first_sample_at.map(|_| to_secs(ld.rtt.min)),
            rto: to_secs(pto),
            rto_mean: to_secs(pto),
            rto_expired_mean: None,
            cwnd: w.cwnd,
            ssthresh: w.ssthresh.is_finite().then_some(w.ssthresh),
            max_cwnd: s.max_cwnd,
            quic: Some(QuicFlowResult::of(q)),
            ce_received: f.ce_arrivals,
            trimmed_received: f.trimmed_arrivals,
            uet: None,
        }
    }
}

/// A time series value of a QUIC flow.
pub(super) fn sample(q: &QuicEnds, name: &str) -> f64 {
    if name == "delivered" {
        return q.receiver.stats.chunks_delivered as f64;
    }
    q.sender.sample(name)
}

/// RFC 5236 reorder density of a flow's receiver; none for QUIC or UET (its
/// receiver keeps no such record).
pub(super) fn reorder_density(f: &Flow) -> Vec<f64> {
    match &f.ends {
        Ends::Quic(_) | Ends::Uet(_) => Vec::new(),
        _ => f.receiver().stats.reordering.density(),
    }
}
