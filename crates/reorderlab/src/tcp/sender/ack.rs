//! The ACK path. Its order is the order of work of RFC 6675 Sec. 5 and RFC
//! 8985 Sec. 6.2: read what the ACK delivered (DSACK, SACK blocks, the
//! cumulative point), update the RTT and the window, count a duplicate
//! ACK, run loss detection, let the loss response set the window, send.

use crate::engine::Time;
use crate::net::packet::Packet;
use crate::tcp::cc::AckSample;
use crate::tcp::detection::rack::MIN_REORDERING;
use crate::tcp::detection::reordering::HoleScan;
use crate::tcp::frto::FrtoAck;
use crate::tcp::policy::RttTiming;
use crate::tcp::response::{growth_acked, sack_only_growth, AckEnd, NewAck, NewlyAcked};
use crate::tcp::scoreboard::CumAck;
use crate::tcp::tcb::CaState;
use crate::tcp::truth::RetxCause;

use super::Sender;

/// What one ACK delivered.
#[derive(Debug, Default)]
pub(super) struct Deliveries {
    /// The ACK carried a DSACK block (RFC 2883 Sec. 4).
    pub dsack: bool,
    /// Segments newly SACKed.
    pub newly_sacked: u32,
    /// Segments newly delivered, SACKed or cumulatively (RFC 6937
    /// DeliveredData).
    pub delivered: u32,
    /// A never-retransmitted segment below F-RTO's RecoveryPoint was among
    /// them (RFC 5682 Sec. 3 step 3b).
    pub original_acked: bool,
    /// The cumulative ACK's effect, if it advanced SND.UNA.
    pub cum: Option<CumAck>,
    /// The one-hole reordering sample of rr-tcp Sec. 4.1.1.
    pub scan: HoleScan,
}

impl Sender {
    /// An ACK of an established connection.
    pub(super) fn on_ack(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        self.tcb.stats.acks_received += 1;
        let ack = pkt.seq;
        if ack > self.tcb.sb.nxt() {
            return;
        }
        if ack < self.tcb.sb.una() {
            self.on_old_ack(pkt, now, out);
            return;
        }
        let rate_start = self.rate_begin_ack();
        let una_before = self.tcb.sb.una();
        let m_before = self.tcb.highest_acked;
        self.detection
            .before_ack(&self.tcb, self.lt.elt_dup_thresh(self.tcb.ca), now);
        let d = self.read_deliveries(pkt, m_before, now);
        let cwnd_before = self.tcb.w.cwnd;
        if let Some(cum) = d.cum {
            self.hold_retransmissions = self.undo_if_original_filled_hole(ack, una_before, pkt.ts);
            self.on_snd_una_advanced(&cum, d.newly_sacked, pkt, now, out);
        }
        self.detection.after_deliveries(&mut self.tcb, now);
        self.count_duplicate(ack <= una_before, d.newly_sacked, now, out);
        let frto = FrtoAck {
            advanced: ack > una_before,
            newly_sacked: d.newly_sacked,
            original_acked: d.original_acked,
        };
        self.frto_on_ack(frto, (cwnd_before, d.delivered), now);
        self.measure_reordering(&d.scan, m_before, now);
        self.update_highest_acked(pkt, m_before);
        let marked_before = self.tcb.stats.rack_marked_lost;
        let entered = !self.hold_retransmissions && self.detect_losses(d.dsack, now, out);
        if ack <= una_before {
            self.grow_on_sack_only(d.newly_sacked, now);
        }
        self.probe_on_ack(pkt, ack > una_before, d.newly_sacked, now);
        let end = AckEnd {
            delivered: d.delivered,
            entered,
            una_advanced: ack > una_before,
            newly_lost: (self.tcb.stats.rack_marked_lost - marked_before) as u32,
        };
        self.response.after_ack(&mut self.tcb, end);
        self.dctcp_on_ack(pkt.marks.ece(), d.delivered);
        self.rate_finish_ack(rate_start, d.delivered, now);
        let sent_new = self.send_allowed(now, out);
        self.hold_retransmissions = false;
        self.reschedule_probe(ack > una_before, sent_new, now);
        self.check_done(now);
    }

    /// DCTCP (RFC 8257 Sec. 3.3; Linux `dctcp_update_alpha` per ACK, and
    /// `tcp_enter_cwr` with `dctcp_ssthresh` on ECN-Echo): alpha from the
    /// share of acknowledged segments whose ACK carried ECN-Echo, once
    /// per window; on ECN-Echo outside loss recovery the window is cut by
    /// alpha / 2, at most once per window. (Linux then lowers cwnd to the
    /// new ssthresh by PRR in its CWR state; here at once.)
    #[inline]
    fn dctcp_on_ack(&mut self, ece: bool, delivered: u32) {
        let (una, nxt) = (self.tcb.sb.una(), self.tcb.sb.nxt());
        let open = self.tcb.ca == CaState::Open;
        let t = &mut self.tcb;
        let Some(d) = t.cc.dctcp_mut() else {
            return;
        };
        d.on_ack_ecn(delivered, ece, una, nxt);
        if ece && open {
            d.on_ece(&mut t.w, una, nxt);
        }
    }

    /// An old (reordered) ACK: its cumulative point says nothing new, but
    /// its SACK and DSACK blocks still do (as Linux `tcp_ack` reads them).
    fn on_old_ack(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        if !self.tcb.cfg.use_sack || !self.detection.reads_old_acks() {
            return;
        }
        let m = self.tcb.highest_acked;
        let mut d = Deliveries::default();
        let rate_start = self.rate_begin_ack();
        self.read_sack_blocks(pkt, m, &mut d, now);
        self.rate_on_old_ack(rate_start, d.newly_sacked);
        self.detection.after_deliveries(&mut self.tcb, now);
        if self.lt.elt_active() {
            let flight = self.tcb.sb.packets_out();
            if let Some(t) = self.lt.on_sacked(flight) {
                self.detection.set_elt_dupthresh(t);
            }
        }
        self.transmit(now, out);
    }

    /// An ACK after a finite transfer was all acknowledged. Linux keeps
    /// the connection, and `tcp_ack` with nothing outstanding (its
    /// `no_queue` path) still reads a DSACK block and may undo the last
    /// reduction (`tcp_fastretrans_alert` -> `tcp_try_undo_dsack`); the
    /// other variants ignore such ACKs.
    pub(super) fn on_finished_ack(&mut self, pkt: &Packet, now: Time) {
        if self.tcb.cfg.linux.is_none() || !self.tcb.cfg.use_sack {
            return;
        }
        if let Some((l, r)) = dsack_block(pkt) {
            self.tcb.stats.dsacks_received += 1;
            let m = self.tcb.highest_acked;
            for seq in l..r.min(l.saturating_add(64)) {
                self.on_dsack(seq, pkt.copy, now, m);
            }
        }
    }

    /// DSACK, SACK blocks and the cumulative point of an ACK at or above
    /// SND.UNA, each newly delivered segment reported to the loss
    /// detection, the DSACK response and F-RTO.
    fn read_deliveries(&mut self, pkt: &Packet, m_before: Option<u32>, now: Time) -> Deliveries {
        let mut d = Deliveries::default();
        if self.tcb.cfg.use_sack {
            self.read_sack_blocks(pkt, m_before, &mut d, now);
        }
        d.delivered = d.newly_sacked;
        if pkt.seq > self.tcb.sb.una() {
            let frto_point = self.frto_recovery_point();
            let Sender {
                tcb,
                detection,
                undo,
                ..
            } = self;
            let (scan, original) = (&mut d.scan, &mut d.original_acked);
            let rate = &mut tcb.rate;
            let cum = tcb.sb.cum_ack_with(pkt.seq, |seq, seg| {
                if !seg.sacked {
                    Sender::rate_on_delivered(rate, seq, seg, false);
                    scan.note(seq);
                    if seg.copies > 1 {
                        undo.log.on_first_ack(seq, now, m_before, pkt.copy);
                    }
                    detection.on_delivered(seq, seg, now);
                    *original |= seg.copies == 1 && frto_point.is_some_and(|p| seq < p);
                }
            });
            d.delivered += cum.acked - cum.were_sacked;
            d.cum = Some(cum);
        }
        d
    }

    /// Apply the SACK blocks (RFC 2018); a first block below the cumulative
    /// ACK, or inside the second block, is a DSACK (RFC 2883 Sec. 4).
    fn read_sack_blocks(&mut self, pkt: &Packet, m: Option<u32>, d: &mut Deliveries, now: Time) {
        let blocks = pkt.sack.as_slice();
        let mut first = 0;
        if let Some((l, r)) = dsack_block(pkt) {
            self.tcb.stats.dsacks_received += 1;
            d.dsack = true;
            first = 1;
            for seq in l..r.min(l.saturating_add(64)) {
                self.on_dsack(seq, pkt.copy, now, m);
            }
        }
        let frto_point = self.frto_recovery_point();
        let Sender {
            tcb,
            detection,
            undo,
            ..
        } = self;
        for &(l, r) in &blocks[first..] {
            let (scan, original) = (&mut d.scan, &mut d.original_acked);
            let rate = &mut tcb.rate;
            d.newly_sacked += tcb.sb.sack(l, r, |seq, seg| {
                Sender::rate_on_delivered(rate, seq, seg, true);
                scan.note(seq);
                if seg.copies > 1 {
                    undo.log.on_first_ack(seq, now, m, pkt.copy);
                }
                detection.on_delivered(seq, seg, now);
                *original |= seg.copies == 1 && frto_point.is_some_and(|p| seq < p);
            });
        }
    }

    /// SND.UNA advanced: an RTT sample (RFC 6298 with Karn's rule), the end
    /// of a duplicate-ACK run, the loss response's rule for a new ACK, and
    /// the retransmission timer's restart.
    fn on_snd_una_advanced(
        &mut self,
        cum: &CumAck,
        newly_sacked: u32,
        pkt: &Packet,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        if self.timers.has_rto() {
            self.sample_rtt(cum, pkt.seq, now);
        }
        let t = &mut self.tcb;
        let sample = AckSample {
            now,
            rtt: (!cum.any_retransmitted).then(|| now - cum.last_sent_at),
            una: pkt.seq,
            nxt: t.sb.nxt(),
        };
        t.cc.on_ack_sample(&mut t.w, &sample);
        self.on_window_advance(now);
        let acked = NewlyAcked {
            ack: pkt.seq,
            acked: cum.acked,
            were_sacked: cum.were_sacked,
            newly_sacked,
            echo: pkt.copy,
        };
        self.on_new_ack(&acked, now, out);
        let restart = self.response.restarts_rto_on_ack(&self.tcb);
        self.timers.on_new_ack(&mut self.tcb, restart, now);
    }

    /// An ACK that SACKed new data without advancing SND.UNA grows a Linux
    /// sender's window once `tp->reordering` is above 3
    /// (`tcp_may_raise_cwnd`, [`sack_only_growth`]); after loss detection,
    /// as `tcp_cong_control` runs after `tcp_fastretrans_alert`.
    fn grow_on_sack_only(&mut self, newly_sacked: u32, now: Time) {
        if newly_sacked == 0 {
            return;
        }
        let reordering = self
            .detection
            .rack()
            .map_or(MIN_REORDERING, |r| r.dupthresh);
        let grow = sack_only_growth(&self.tcb, newly_sacked, reordering);
        if grow > 0 {
            self.tcb.grow(grow, now);
            self.tcb.note_cwnd();
        }
    }

    /// Karn's algorithm (RFC 6298 Sec. 3): no sample when a retransmitted
    /// segment is acknowledged. Per ACK, the sample times the oldest newly
    /// acknowledged segment (as Linux `first_ackt`), so a delayed segment
    /// that closes a hole contributes its long RTT; per RTT, the one timed
    /// segment.
    fn sample_rtt(&mut self, cum: &CumAck, ack: u32, now: Time) {
        if !self.timers.samples_on_ack(&self.tcb, ack) {
            return;
        }
        let t = &mut self.tcb;
        t.rtt.set_seq(ack, t.sb.nxt());
        match t.cfg.rtt_timing {
            RttTiming::PerAck if !cum.any_retransmitted => {
                let sent = cum.first_sent_at.unwrap_or(cum.last_sent_at);
                t.rtt.on_sample_at(now - sent, now);
                self.timers.on_timestamp_sample(t);
            }
            RttTiming::PerAck => {}
            RttTiming::PerRtt => {
                if let Some((_, at)) = t.timed.filter(|&(seq, _)| ack > seq) {
                    t.rtt.on_sample_at(now - at, now);
                    t.timed = None;
                    self.timers.on_timed_segment_acked(t);
                }
            }
        }
    }

    /// SND.UNA advanced: the end of a run of duplicate ACKs.
    fn on_window_advance(&mut self, now: Time) {
        self.undo.on_window_advance(now);
        if let Some((since, d)) = self.lt.on_window_advance() {
            self.tcb.stats.lt_idle_periods += 1;
            if let Some(srtt) = self.tcb.rtt.srtt() {
                let cwnd = self.tcb.w.cwnd;
                self.detection
                    .on_limited_transmit_idle(now - since, d, cwnd, srtt);
            }
        }
        let t = &mut self.tcb;
        t.dupacks = 0;
        t.first_dupack_at = None;
        t.third_dupack_at = None;
        self.detection.on_window_advance();
    }

    /// The loss response's rule for an ACK of new data; in the Open state
    /// a running TCP-NCR ELT ends instead (RFC 4653 Sec. 4, Termination).
    fn on_new_ack(&mut self, a: &NewlyAcked, now: Time, out: &mut Vec<Packet>) {
        if self.tcb.ca == CaState::Open && self.end_extended_limited_transmit(now) {
            self.tcb.note_cwnd();
            return;
        }
        match self.response.on_new_ack(&mut self.tcb, a, now) {
            NewAck::Continue => {}
            NewAck::RetransmitHead { then_cwnd } => {
                let una = self.tcb.sb.una();
                self.tcb.sb.mark_lost(una);
                self.retransmit_if_lost(una, RetxCause::Fast, now, out);
                self.tcb.w.cwnd = then_cwnd;
            }
            NewAck::Exit => self.end_episode(a, now),
            NewAck::Reduce { flight_prev } => self.reduce_at_new_ack(flight_prev, now),
        }
        self.tcb.note_cwnd();
    }

    /// The ACK of the recovery point ends the episode. Linux's
    /// `tcp_fastretrans_alert` ends a fast recovery (cwnd = ssthresh,
    /// `tcp_end_cwnd_reduction`; state Open) before `tcp_cong_control`
    /// runs for the same ACK, which then is no longer in a cwnd reduction
    /// and grows the window by the segments the ACK delivered
    /// (`tcp_cong_avoid`); RFC 6675 / 6937 stop at cwnd = ssthresh.
    fn end_episode(&mut self, a: &NewlyAcked, now: Time) {
        let fast = self.tcb.ca == CaState::Recovery;
        self.leave_recovery();
        if fast && self.tcb.cfg.linux.is_some() {
            let acked = growth_acked(&self.tcb, a);
            self.tcb.grow(acked, now);
        }
    }

    /// RFC 4653 Sec. 4, Termination: a cumulative ACK during ELT shows the
    /// duplicate ACKs came from reordering. Returns whether ELT was on.
    fn end_extended_limited_transmit(&mut self, now: Time) -> bool {
        let t = &mut self.tcb;
        let (flight, sacked) = (t.sb.packets_out(), t.sb.sacked_out());
        let Some(restarted) = self.lt.end_elt(&mut t.w, flight, sacked) else {
            return false;
        };
        t.stats.elt_terminations += 1;
        self.detection.after_elt(restarted, t.w.cwnd, now);
        true
    }

    /// RFC 6675 Sec. 2: with SACK, a duplicate ACK is one that SACKs new
    /// data; without, any ACK that does not advance SND.UNA. An ACK that
    /// advances SND.UNA and SACKs new data is no duplicate, but with the
    /// Linux 3.17 policy it still runs the loss decision in the Open state
    /// ([`Self::on_dubious_ack`]).
    fn count_duplicate(
        &mut self,
        not_advanced: bool,
        newly: u32,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        if self.tcb.sb.packets_out() == 0 {
            return;
        }
        if !not_advanced {
            if newly > 0 && self.tcb.ca == CaState::Open && self.detection.dubious_acks() {
                self.on_dubious_ack(now, out);
            }
            return;
        }
        if self.tcb.cfg.use_sack && newly == 0 {
            return;
        }
        self.tcb.dupacks += 1;
        self.on_dupack(newly, now, out);
    }

    /// Linux 3.17 `tcp_ack` -> `tcp_fastretrans_alert` on a "dubious" ACK
    /// (`tcp_ack_is_dubious`: it SACKed new data) that also advanced
    /// SND.UNA, in the Open state: `tcp_time_to_recover` (FACK, early
    /// retransmit after SRTT / 4) decides as on a duplicate ACK; no
    /// duplicate ACK is counted (SND.UNA moved: RFC 6675 Sec. 2).
    fn on_dubious_ack(&mut self, now: Time, out: &mut Vec<Packet>) {
        let allowed = self.response.may_start_episode(&self.tcb);
        let pending = self.response.retransmitting(&self.tcb);
        if self
            .detection
            .on_dupack(&mut self.tcb, allowed, pending, now)
        {
            self.enter_recovery(now, out);
        }
    }

    /// A duplicate ACK that SACKed `newly` segments: limited transmit, the
    /// loss response's run (TCP-Aix) and the loss detection's threshold in
    /// the Open state; window inflation in Reno / NewReno recovery.
    fn on_dupack(&mut self, newly: u32, now: Time, out: &mut Vec<Packet>) {
        let t = &mut self.tcb;
        match t.dupacks {
            1 => t.first_dupack_at = Some(now),
            3 => t.third_dupack_at = Some(now),
            _ => {}
        }
        self.undo.on_dupack();
        self.lt.on_dupack_while_idle();
        match self.tcb.ca {
            CaState::Open => {
                let flight = self.tcb.sb.packets_out();
                if let Some(d) = self.lt.on_dupack(flight) {
                    self.detection.set_elt_dupthresh(d);
                }
                if self.response.on_dupack_open(&mut self.tcb, newly, now) {
                    self.timers.arm_rto(&mut self.tcb, now);
                }
                let allowed = self.response.may_start_episode(&self.tcb);
                let pending = self.response.retransmitting(&self.tcb);
                if self
                    .detection
                    .on_dupack(&mut self.tcb, allowed, pending, now)
                {
                    self.enter_recovery(now, out);
                }
            }
            CaState::Recovery => self.response.on_dupack_in_recovery(&mut self.tcb),
            CaState::Loss => {}
        }
    }

    /// rr-tcp Sec. 4.1.1: one reordering-length sample when this ACK
    /// closed exactly one hole below the highest segment acknowledged. A
    /// retransmitted hole is measured later, when its DSACK arrives.
    fn measure_reordering(&mut self, scan: &HoleScan, m_before: Option<u32>, now: Time) {
        let Some(len) = scan.sample(m_before) else {
            return;
        };
        if !self.undo.log.contains(scan.hole) {
            self.detection.on_reordering_sample(len, now);
        }
    }

    /// The highest segment acknowledged, cumulatively or by SACK.
    fn update_highest_acked(&mut self, pkt: &Packet, m_before: Option<u32>) {
        let ack = pkt.seq;
        let nxt = self.tcb.sb.nxt();
        // a block reaching above SND.NXT acknowledges data never sent: not
        // valid (RFC 2018 Sec. 3), so not evidence of what arrived
        let highest_in_ack = ack.checked_sub(1).into_iter().chain(
            pkt.sack
                .as_slice()
                .iter()
                .filter(|&&(_, r)| r > ack && r <= nxt)
                .map(|&(_, r)| r - 1),
        );
        self.tcb.highest_acked = highest_in_ack.chain(m_before).max();
    }

    /// Loss detection after the ACK's deliveries (RFC 6675 Sec. 5 step C;
    /// RFC 8985 Sec. 6.2 steps 4-5). Returns whether fast recovery began.
    fn detect_losses(&mut self, dsack: bool, now: Time, out: &mut Vec<Packet>) -> bool {
        self.detection.detect(&mut self.tcb, dsack, now) && self.recover_marked_losses(now, out)
    }
}

/// The DSACK block of an ACK, if it carries one (RFC 2883 Sec. 4: a first
/// block below the cumulative ACK or inside the second block).
pub(super) fn dsack_block(pkt: &Packet) -> Option<(u32, u32)> {
    let blocks = pkt.sack.as_slice();
    let &(l, r) = blocks.first()?;
    let inside_second = blocks.get(1).is_some_and(|&(l2, r2)| l2 <= l && r <= r2);
    (r <= pkt.seq || inside_second).then_some((l, r))
}
