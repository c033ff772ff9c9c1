//! Sending: what the window allows, in RFC 6675 NextSeg's order (lost
//! segments first, then new data, then rule 3's forward retransmission),
//! and the bookkeeping of every transmission.

use crate::engine::Time;
use crate::net::packet::Packet;
use crate::num::floor;
use crate::tcp::dsack::RetxEntry;
use crate::tcp::tcb::{CaState, Phase};
use crate::tcp::truth::RetxCause;

use super::Sender;

impl Sender {
    /// Can one more segment go out now? The loss detection may forbid it
    /// (TCP-PR while waiting); the loss response sets the window rule.
    #[inline]
    fn window_allows(&self, retransmission: bool) -> bool {
        self.detection.allows_sending()
            && self
                .response
                .window_allows(&self.tcb, &self.lt, retransmission)
    }

    /// Send what the window allows: lost segments first (RFC 6675 NextSeg
    /// rule 1), then new data (rule 2), then rule 3; the probe timeout
    /// follows new data.
    pub(super) fn transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.send_allowed(now, out) {
            self.schedule_probe(now);
        }
    }

    /// [`Self::transmit`] without the probe timeout: whether new data went
    /// out (the ACK path re-arms the probe itself).
    pub(super) fn send_allowed(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        if self.tcb.phase != Phase::Established {
            return false;
        }
        self.cwv_before_send(now);
        let mut sent_new = false;
        loop {
            if !self.pacing_allows(now) {
                break;
            }
            if self.send_next_lost(now, out) {
                continue;
            }
            let extra = self.limited_transmit_extra();
            if self.may_send_new(extra) {
                let t = &self.tcb;
                if extra > 0 && t.sb.packets_out() as f64 + 1.0 > floor(t.w.cwnd) {
                    self.lt.sent_beyond_cwnd += 1;
                }
                if t.ca == CaState::Open {
                    self.lt.on_new_segment_sent();
                }
                self.send_new(now, out);
                sent_new = true;
                continue;
            }
            if self.tcb.ca == CaState::Recovery
                && !self.hold_retransmissions
                && self.window_allows(true)
            {
                if let Some(seq) = self.next_forward_retransmission() {
                    self.send_retransmission(seq, RetxCause::Fast, now, out);
                    continue;
                }
            }
            break;
        }
        self.pacing_end_burst();
        if self.lt.watches_idle() {
            let t = &self.tcb;
            let dupthresh = self.detection.dupthresh();
            let open = t.ca == CaState::Open && t.has_new_data();
            // the cap past the receiver window ends limited transmit too
            let capped = t
                .cfg
                .lt_past_window
                .is_some_and(|c| t.sb.packets_out() >= t.cfg.max_window + c);
            self.lt
                .note_exhausted(now, open, t.dupacks, dupthresh, t.w.cwnd, capped);
        }
        self.detection.after_transmit(&mut self.tcb);
        sent_new
    }

    /// NextSeg rule 1: the lowest segment marked lost, if the response is
    /// retransmitting and the window allows. F-RTO (RFC 5682 Sec. 3 steps
    /// 2-3) holds retransmissions back until the timeout is judged.
    fn send_next_lost(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        let retransmitting = self.response.retransmitting(&self.tcb);
        if !retransmitting
            || self.frto.is_some()
            || self.hold_retransmissions
            || !self.window_allows(true)
        {
            return false;
        }
        let Some(seq) = self.tcb.sb.next_lost() else {
            return false;
        };
        let cause = if self.tcb.ca == CaState::Loss {
            RetxCause::Timeout
        } else {
            RetxCause::Fast
        };
        self.send_retransmission(seq, cause, now, out);
        true
    }

    /// How far limited transmit may exceed the receiver window with new
    /// data: RR-TCP Sec. 2.3 allows up to k more congestion windows; ELT
    /// bounds pipe by it, SACKed segments having left the network.
    #[inline]
    fn limited_transmit_extra(&self) -> u32 {
        let t = &self.tcb;
        match t.ca {
            CaState::Open if self.lt.elt_send_limit().is_some() => t.sb.sacked_out(),
            CaState::Open => self.lt.allowance(t.dupacks, t.w.cwnd),
            _ => 0,
        }
    }

    /// NextSeg rule 2: new data, within the receiver window (plus limited
    /// transmit's `extra`) and the congestion window.
    #[inline]
    fn may_send_new(&self, extra: u32) -> bool {
        let t = &self.tcb;
        let extra = t.cfg.lt_past_window.map_or(extra, |cap| extra.min(cap));
        let room = t.sb.packets_out() < t.cfg.max_window + extra;
        room && t.has_new_data() && self.window_allows(false)
    }

    /// RFC 6675 NextSeg rule 3 ([`super::SenderConfig::forward_retransmit`]).
    fn next_forward_retransmission(&mut self) -> Option<u32> {
        let t = &mut self.tcb;
        if !t.cfg.forward_retransmit {
            return None;
        }
        let &(_, highest) = t.sb.sacked_ranges().last()?;
        let mut seq = t.forward_hint.max(t.sb.una());
        while seq < highest {
            let s = t.sb.seg(seq)?;
            if !s.sacked && !s.retrans && !s.lost {
                t.forward_hint = seq;
                return Some(seq);
            }
            seq += 1;
        }
        t.forward_hint = seq;
        None
    }

    /// Retransmit `seq` if it is marked lost and not yet retransmitted.
    pub(super) fn retransmit_if_lost(
        &mut self,
        seq: u32,
        cause: RetxCause,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        let eligible = (self.tcb.sb.seg(seq)).is_some_and(|s| s.lost && !s.sacked && !s.retrans);
        if eligible {
            self.send_retransmission(seq, cause, now, out);
        }
    }

    pub(super) fn send_new(&mut self, now: Time, out: &mut Vec<Packet>) {
        let t = &mut self.tcb;
        let seq = t.sb.send_new(now, t.w.cwnd);
        if t.timed.is_none() {
            t.timed = Some((seq, now));
        }
        t.stats.new_segments_sent += 1;
        self.emit(seq, 0, now, out);
    }

    pub(super) fn send_retransmission(
        &mut self,
        seq: u32,
        cause: RetxCause,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        let t = &mut self.tcb;
        let original_sent = t.sb.seg(seq).map_or(now, |s| s.first_sent_at);
        // Karn: a retransmitted segment is never timed.
        if t.timed.is_some_and(|(s, _)| s == seq) {
            t.timed = None;
        }
        let copy = t.sb.retransmit(seq, now, t.w.cwnd);
        t.stats.retransmits += 1;
        let episode = self.undo.on_retransmit(t.ca);
        self.undo.retrans_stamp.get_or_insert(now);
        self.undo.log.on_retransmit(RetxEntry {
            seq,
            cause,
            episode,
            original_sent,
            retransmit_sent: now,
            first_ack: None,
            retransmissions: 1,
        });
        match cause {
            RetxCause::Fast => t.stats.fast_retransmits += 1,
            RetxCause::Timeout => t.stats.timeout_retransmits += 1,
            RetxCause::Probe => t.stats.probe_retransmits += 1,
        }
        t.truth.on_retransmit(seq, copy, cause);
        self.emit(seq, copy, now, out);
    }

    /// Every data packet: counters, PRR's prr_out, the packet itself, CWV,
    /// the retransmission timer (RFC 6298 Sec. 5.1) and the detection's
    /// per-segment timers.
    fn emit(&mut self, seq: u32, copy: u16, now: Time, out: &mut Vec<Packet>) {
        let t = &mut self.tcb;
        t.stats.data_packets_sent += 1;
        self.response.on_sent(t.ca);
        out.push(Packet::data(t.flow, t.peer, t.cfg.mss, seq, copy, now));
        self.rate_on_emit(seq, copy, now);
        self.cwv_after_send(now);
        self.timers.on_sent(&mut self.tcb, now);
        self.detection.on_sent(seq, now);
    }

    /// RFC 2861 idle rule ([`crate::tcp::cwv`]), before new data goes out.
    fn cwv_before_send(&mut self, now: Time) {
        let t = &mut self.tcb;
        if t.ca != CaState::Open || !t.has_new_data() {
            return;
        }
        let Some(c) = self.cwv.as_mut() else {
            return;
        };
        let (rto, rwnd) = (t.rtt.rto(), t.cfg.max_window);
        let halvings = c.before_send(&mut t.w, now, rto, rwnd);
        if halvings > 0 {
            t.stats.cwv_idle_halvings += halvings as u64;
            t.note_cwnd();
        }
    }

    /// RFC 2861 application-limited rule, after each data segment.
    fn cwv_after_send(&mut self, now: Time) {
        let Some(c) = self.cwv.as_mut() else {
            return;
        };
        let t = &mut self.tcb;
        if t.ca != CaState::Open {
            c.t_last = now;
            return;
        }
        let window_full = t.sb.pipe() as f64 + 1.0 > t.w.cwnd;
        let app_limited = !t.has_new_data();
        let (rto, in_flight) = (t.rtt.rto(), t.sb.packets_out());
        if c.after_send(&mut t.w, now, rto, window_full, app_limited, in_flight) {
            t.stats.cwv_app_limited_decays += 1;
            t.note_cwnd();
        }
    }
}
