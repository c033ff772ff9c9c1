//! The tail loss probe's place in the sender ([`crate::tcp::timers::tlp`]):
//! when a probe timeout may be armed, what the probe sends, and how the
//! ACKs that follow end its episode.

use crate::engine::Time;
use crate::net::packet::Packet;
use crate::num::floor;
use crate::tcp::policy::TailLossProbe;
use crate::tcp::tcb::{CaState, Phase};
use crate::tcp::timers::tlp::EpisodeEnd;
use crate::tcp::truth::RetxCause;

use super::ack::dsack_block;
use super::Sender;

impl Sender {
    /// May a probe timeout be armed now? draft-01 Sec. 2 / Linux 3.17
    /// `tcp_schedule_loss_probe`: SACK, Open state, an RTT sample, data
    /// outstanding, no early-retransmit timer pending, cwnd- or
    /// application-limited; RFC 8985 Sec. 7.2: also nothing SACKed and no
    /// reorder timer. One probe per episode (TLP.end_seq).
    fn probe_allowed(&self) -> bool {
        let Some(p) = self.timers.probe.as_ref() else {
            return false;
        };
        let t = &self.tcb;
        let basic = t.phase == Phase::Established
            && t.cfg.use_sack
            && t.ca == CaState::Open
            && t.rtt.srtt().is_some()
            && t.sb.packets_out() > 0
            && !self.detection.fast_retransmit_pending()
            && !p.episode_open();
        basic
            && match p.mode {
                TailLossProbe::Rfc8985 => {
                    t.sb.sacked_out() == 0 && !self.detection.reorder_timer_pending()
                }
                _ => !(t.w.cwnd > t.sb.pipe() as f64 && t.has_new_data()),
            }
    }

    /// (Re)arm the PTO (after new data went out, or on an ACK).
    pub(super) fn schedule_probe(&mut self, now: Time) {
        if self.timers.probe.is_none() {
            return;
        }
        let allowed = self.probe_allowed();
        let t = &self.tcb;
        let (srtt, out) = (t.rtt.srtt().unwrap_or(0), t.sb.packets_out());
        let last_sent = t.last_sent_at(now);
        let rto = self.timers.rto_armed_at();
        let Some(p) = self.timers.probe.as_mut() else {
            return;
        };
        if allowed {
            p.arm(now, srtt, out, last_sent, rto);
        } else {
            p.deadline = None;
        }
    }

    /// After an ACK: the PTO is re-armed on an ACK of new data (and, with
    /// draft-01, on every ACK) or after new data went out (`sent_new`),
    /// else dropped if no longer allowed. (Arming sets the deadline from
    /// the state alone: arming once after the ACK's transmissions is what
    /// arming after them and again after the ACK gave.)
    pub(super) fn reschedule_probe(&mut self, advanced: bool, sent_new: bool, now: Time) {
        let draft = matches!(
            self.timers.probe.as_ref().map(|p| p.mode),
            Some(TailLossProbe::Draft01 { .. })
        );
        if advanced || draft || sent_new {
            self.schedule_probe(now);
        } else if !self.probe_allowed() {
            self.timers.cancel_probe();
        }
    }

    /// The probe timeout fired (draft-01 Sec. 2.1, RFC 8985 Sec. 7.3): a
    /// new segment if one is ready and the receiver window allows, else the
    /// highest segment sent again; cwnd unchanged; then the RTO is re-armed.
    pub(super) fn on_pto(&mut self, now: Time, out: &mut Vec<Packet>) {
        let ok = self.probe_allowed();
        self.timers.cancel_probe();
        if !ok {
            self.timers.arm_rto(&mut self.tcb, now);
            return;
        }
        self.tcb.stats.loss_probes += 1;
        let is_retrans = !(self.tcb.has_new_data() && self.tcb.receiver_window_open());
        if is_retrans {
            let seq = self.tcb.sb.nxt() - 1;
            self.send_retransmission(seq, RetxCause::Probe, now, out);
        } else {
            self.tcb.stats.loss_probes_new_data += 1;
            self.send_new(now, out);
        }
        let (seq, nxt) = (self.tcb.sb.nxt() - 1, self.tcb.sb.nxt());
        if let Some(p) = self.timers.probe.as_mut() {
            p.on_probe(seq, nxt, is_retrans);
        }
        self.timers.arm_rto(&mut self.tcb, now);
    }

    /// RFC 8985 Sec. 7.4 on every ACK: has the TLP episode ended, and did
    /// its probe repair a loss?
    pub(super) fn probe_on_ack(&mut self, pkt: &Packet, advanced: bool, newly: u32, now: Time) {
        let Some(p) = self.timers.probe.as_mut() else {
            return;
        };
        let ack = pkt.seq;
        let probe = p.probe_seq;
        let block = dsack_block(pkt);
        let dsack_probe = block.is_some_and(|(l, r)| l <= probe && probe < r);
        let pure_dup = !advanced && newly == 0 && block.is_none();
        match p.on_ack(ack, dsack_probe, pure_dup) {
            EpisodeEnd::Open => {}
            EpisodeEnd::NoLoss => self.tcb.stats.tlp_no_loss += 1,
            EpisodeEnd::Repaired => {
                // The retransmitted probe repaired a loss: one window
                // reduction (draft-01 Sec. 3, Linux `tcp_process_tlp_ack`:
                // CWR with ssthresh from the congestion control, cwnd =
                // ssthresh).
                let t = &mut self.tcb;
                t.stats.tlp_recoveries += 1;
                let flight = floor(t.w.cwnd).max(1.0) as u32;
                t.w.ssthresh = t.cc.ssthresh_after_loss(&t.w, flight, now);
                t.w.cwnd = t.w.cwnd.min(t.w.ssthresh);
                t.note_cwnd();
            }
        }
    }
}
