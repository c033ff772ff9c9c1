//! Proportional Rate Reduction (RFC 6937 Sec. 3.1), PRR-SSRB, in segments.
//!
//! At the start of recovery: ssthresh from the congestion control,
//! prr_delivered = prr_out = 0, RecoverFS = snd.nxt - snd.una. On every
//! ACK during recovery (DeliveredData = change in snd.una + change in
//! SACKed data, skipped when 0):
//!
//! ```text
//! prr_delivered += DeliveredData
//! if pipe > ssthresh:   sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
//! else (PRR-SSRB):      limit  = MAX(prr_delivered - prr_out, DeliveredData) + 1
//!                       sndcnt = MIN(ssthresh - pipe, limit)
//! cwnd = pipe + sndcnt
//! ```
//!
//! and prr_out counts every segment (re)transmitted during recovery. At the
//! end of recovery cwnd = ssthresh.

use crate::num::{ceil, floor};
use crate::tcp::response::{exit_if, LossResponse, NewAck, NewlyAcked};
use crate::tcp::tcb::{CaState, Tcb};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prr {
    /// RecoverFS: FlightSize when recovery began.
    pub recover_fs: u32,
    pub ssthresh: f64,
    pub prr_delivered: u32,
    pub prr_out: u32,
}

impl Prr {
    pub fn start(recover_fs: u32, ssthresh: f64) -> Prr {
        Prr {
            recover_fs: recover_fs.max(1),
            ssthresh,
            prr_delivered: 0,
            prr_out: 0,
        }
    }

    /// One ACK delivering `delivered` segments with `pipe` after it:
    /// returns sndcnt (segments that may be sent now), or `None` when
    /// DeliveredData is 0 (cwnd unchanged).
    pub fn on_ack(&mut self, delivered: u32, pipe: u32) -> Option<u32> {
        if delivered == 0 {
            return None;
        }
        self.prr_delivered += delivered;
        let sndcnt = if pipe as f64 > self.ssthresh {
            let target = ceil(self.prr_delivered as f64 * self.ssthresh / self.recover_fs as f64);
            target as i64 - self.prr_out as i64
        } else {
            let limit = (self.prr_delivered as i64 - self.prr_out as i64).max(delivered as i64) + 1;
            (floor(self.ssthresh - pipe as f64) as i64).min(limit)
        };
        Some(sndcnt.max(0) as u32)
    }

    /// A segment was sent during recovery.
    pub fn on_sent(&mut self) {
        self.prr_out += 1;
    }
}

/// PRR as the sender's loss response (RFC 6937 on the RFC 6675 pipe).
#[derive(Debug, Clone, Default)]
pub struct PrrResponse {
    /// State of the current recovery.
    pub prr: Option<Prr>,
}

impl LossResponse for PrrResponse {
    /// cwnd unchanged: it follows pipe + sndcnt from this ACK on.
    fn enter(&mut self, tcb: &mut Tcb, _dupthresh: u32) {
        self.prr = Some(Prr::start(tcb.sb.packets_out(), tcb.w.ssthresh));
    }

    /// At the end of recovery cwnd = ssthresh.
    fn on_recovery_ack(&mut self, tcb: &mut Tcb, _a: &NewlyAcked, recovered: bool) -> NewAck {
        if recovered {
            tcb.deflate_to_ssthresh();
        }
        exit_if(recovered)
    }

    /// cwnd = pipe + sndcnt on each ACK in recovery. The ACK that starts
    /// recovery (`entered`) counts one segment delivered and sends at
    /// least one (the fast retransmit), as Linux.
    #[inline]
    fn after_ack(&mut self, tcb: &mut Tcb, delivered: u32, entered: bool) {
        if tcb.ca != CaState::Recovery {
            return;
        }
        let Some(p) = self.prr.as_mut() else {
            return;
        };
        let pipe = tcb.sb.pipe();
        let Some(mut sndcnt) = p.on_ack(delivered.max(entered as u32), pipe) else {
            return;
        };
        if p.prr_out == 0 {
            sndcnt = sndcnt.max(1);
        }
        tcb.w.cwnd = (pipe + sndcnt) as f64;
        tcb.note_cwnd();
    }

    /// prr_out counts the segments sent during recovery.
    #[inline]
    fn on_sent(&mut self, ca: CaState) {
        if let (CaState::Recovery, Some(p)) = (ca, self.prr.as_mut()) {
            p.on_sent();
        }
    }

    fn on_exit(&mut self) {
        self.prr = None;
    }

    fn on_timeout(&mut self) {
        self.prr = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 Sec. 5 style example: a 20-segment flight loses one
    /// segment; Reno halves (ssthresh 10). Each ACK SACKs one segment. While
    /// pipe > ssthresh PRR sends CEIL(prr_delivered * 10 / 20) - prr_out:
    /// one segment every other ACK; once pipe <= ssthresh, PRR-SSRB lets
    /// pipe climb back to ssthresh, at most prr_delivered - prr_out + 1 or
    /// DeliveredData + 1 per ACK.
    #[test]
    fn per_ack_quota_follows_rfc6937() {
        let mut p = Prr::start(20, 10.0);
        // Fast retransmit on the 3rd dupack: 3 SACKed, 1 lost, pipe 16.
        let mut pipe = 16;
        // The ACK that starts recovery delivered 1 (its SACK).
        let q = p.on_ack(1, pipe).unwrap();
        assert_eq!(q, 1); // ceil(1 * 10 / 20) - 0
        p.on_sent();
        pipe += 1; // the retransmission
        let mut quotas = vec![];
        for _ in 0..14 {
            pipe -= 1; // one more SACKed
            let q = p.on_ack(1, pipe).unwrap();
            let expect = if pipe as f64 > 10.0 {
                ((p.prr_delivered * 10) as f64 / 20.0).ceil() as u32 - p.prr_out
            } else {
                (10 - pipe).min((p.prr_delivered - p.prr_out).max(1) + 1)
            };
            assert_eq!(q, expect);
            for _ in 0..q {
                p.on_sent();
                pipe += 1;
            }
            quotas.push(q);
        }
        // Proportional part: every other ACK sends one until pipe reaches
        // ssthresh (12th ACK: pipe 10, quota 0); then SSRB holds pipe at
        // ssthresh, one out per one in.
        assert_eq!(quotas, vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]);
        assert_eq!(pipe, 10);
        // An ACK delivering 3 with pipe well below ssthresh: SSRB limit is
        // max(prr_delivered - prr_out, 3) + 1.
        let mut p = Prr::start(20, 10.0);
        p.prr_out = 5;
        let q = p.on_ack(3, 4).unwrap();
        assert_eq!(q, 4); // min(10 - 4, max(3 - 5, 3) + 1)
        assert_eq!(p.on_ack(0, 4), None);
    }
}
