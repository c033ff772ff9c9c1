//! What the sender remembers about its retransmissions so that a later
//! DSACK (RFC 2883) can tell it a retransmission was spurious, and what it
//! can learn then (rr-tcp Sec. 2.1, 4.1.1, 4.4; RFC 3708).
//!
//! Each retransmitted segment gets an entry with the send times of its
//! original and of its retransmission. The first ACK that covers the
//! segment is noted; if a DSACK for it follows, both ACKs are known and the
//! sender can pair transmissions with ACKs: `-MEAN` takes the mean of the
//! two pairings (the same for either pairing), `-RTX` uses the echoed
//! transmission index to pair exactly.

use std::collections::VecDeque;

use crate::tcp::seq_map::SeqMap;

use crate::engine::Time;
use crate::tcp::truth::RetxCause;

/// Entries are forgotten after this long without a DSACK (the original or
/// the retransmission was then really lost).
pub const ENTRY_LIFETIME: Time = 120 * crate::engine::time::NS_PER_SEC;

#[derive(Debug, Clone, Copy)]
pub struct RetxEntry {
    pub seq: u32,
    pub cause: RetxCause,
    /// Loss-recovery episode the retransmission belongs to.
    pub episode: u32,
    pub original_sent: Time,
    pub retransmit_sent: Time,
    /// The first ACK that covered the segment: time, the highest segment
    /// acknowledged before it, and the transmission index it echoed.
    pub first_ack: Option<(Time, Option<u32>, u16)>,
    /// Retransmissions of the segment so far (the log counts them).
    pub retransmissions: u32,
}

/// What a DSACK revealed.
#[derive(Debug, Clone, Copy)]
pub struct SpuriousRetransmission {
    pub entry: RetxEntry,
    /// DSACK-enhanced RTT sample (Sec. 4.4): mean of the two pairings.
    pub rtt_sample: Option<Time>,
    /// Reordering length of the segment, `-MEAN` (mean of both pairings) or
    /// `-RTX` (the ACK of the original), if measurable.
    pub reordering: Option<u32>,
    /// RFC 3708 Sec. 3 step A.3: the segment was retransmitted more than
    /// once, so the DSACK cannot tell which copy was unneeded: no
    /// conclusion, no samples, and no revert of its episode.
    pub ambiguous: bool,
}

/// How to pair transmissions with ACKs after a DSACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    Mean,
    Rtx,
}

#[derive(Debug, Default)]
pub struct RetxLog {
    entries: SeqMap<RetxEntry>,
    /// (retransmission time, seq) in sending order, for expiry.
    order: VecDeque<(Time, u32)>,
}

impl RetxLog {
    /// Whether `seq` has a retransmission awaiting its fate.
    pub fn contains(&self, seq: u32) -> bool {
        self.entries.contains_key(&seq)
    }

    fn expire(&mut self, now: Time) {
        while let Some(&(t, seq)) = self.order.front() {
            if t + ENTRY_LIFETIME >= now {
                break;
            }
            self.order.pop_front();
            if self
                .entries
                .get(&seq)
                .is_some_and(|e| e.retransmit_sent == t)
            {
                self.entries.remove(&seq);
            }
        }
    }

    /// A retransmission of `seq` was sent.
    pub fn on_retransmit(&mut self, entry: RetxEntry) {
        self.expire(entry.retransmit_sent);
        self.order.push_back((entry.retransmit_sent, entry.seq));
        let e = self.entries.entry(entry.seq).or_insert(RetxEntry {
            retransmissions: 0,
            ..entry
        });
        // A further retransmission keeps the original's send time.
        e.retransmit_sent = entry.retransmit_sent;
        e.cause = entry.cause;
        e.episode = entry.episode;
        e.first_ack = None;
        e.retransmissions += 1;
    }

    /// Forget the retransmissions of `episode` (its spurious timeout was
    /// already detected by F-RTO; a later DSACK must not count it again).
    pub fn forget_episode(&mut self, episode: u32) {
        self.entries.retain(|_, e| e.episode != episode);
    }

    /// The first ACK covering retransmitted `seq` arrived.
    pub fn on_first_ack(&mut self, seq: u32, now: Time, highest_before: Option<u32>, echo: u16) {
        if let Some(e) = self.entries.get_mut(&seq) {
            if e.first_ack.is_none() {
                e.first_ack = Some((now, highest_before, echo));
            }
        }
    }

    /// Linux's count of DSACKed copies (`tp->undo_retrans`, counted down
    /// per duplicate segment in `tcp_sacktag_one` and `tcp_check_dsack`):
    /// a DSACK of a segment retransmitted more than once accounts for one
    /// of its copies and the entry stays for the others. Returns the
    /// entry then; `None` if the segment has at most one retransmission
    /// left (its DSACK is [`Self::on_dsack`]'s).
    pub fn on_dsack_of_one_copy(&mut self, seq: u32) -> Option<RetxEntry> {
        let e = self.entries.get_mut(&seq)?;
        if e.retransmissions <= 1 {
            return None;
        }
        e.retransmissions -= 1;
        Some(*e)
    }

    /// A DSACK for `seq` arrived at `now`, when the highest segment
    /// acknowledged was `highest`.
    pub fn on_dsack(
        &mut self,
        seq: u32,
        now: Time,
        highest: Option<u32>,
        echo: u16,
        pairing: Pairing,
    ) -> Option<SpuriousRetransmission> {
        let entry = self.entries.remove(&seq)?;
        if entry.retransmissions > 1 {
            return Some(SpuriousRetransmission {
                entry,
                rtt_sample: None,
                reordering: None,
                ambiguous: true,
            });
        }
        let (rtt_sample, reordering) = match entry.first_ack {
            Some((t1, m1, echo1)) => {
                let rtt1 = t1.saturating_sub(entry.original_sent);
                let rtt2 = now.saturating_sub(entry.retransmit_sent);
                let len = |m: Option<u32>| m.map(|m| m.saturating_sub(seq));
                let reordering = match pairing {
                    Pairing::Mean => match (len(m1), len(highest)) {
                        (Some(a), Some(b)) => Some((a + b).div_ceil(2)),
                        _ => None,
                    },
                    // The ACK echoing copy 0 is the original's.
                    Pairing::Rtx => {
                        if echo1 == 0 {
                            len(m1)
                        } else if echo == 0 {
                            len(highest)
                        } else {
                            None
                        }
                    }
                };
                (Some((rtt1 + rtt2) / 2), reordering.filter(|&r| r > 0))
            }
            None => (None, None),
        };
        Some(SpuriousRetransmission {
            entry,
            rtt_sample,
            reordering,
            ambiguous: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    fn entry(seq: u32) -> RetxEntry {
        RetxEntry {
            seq,
            cause: RetxCause::Fast,
            episode: 1,
            original_sent: ms(0),
            retransmit_sent: ms(10),
            first_ack: None,
            retransmissions: 1,
        }
    }

    #[test]
    fn mean_pairing_of_rtt_and_reordering() {
        let mut log = RetxLog::default();
        log.on_retransmit(entry(5));
        // The delayed original arrives: ACK at 60 ms, highest acked was 12.
        log.on_first_ack(5, ms(60), Some(12), 0);
        // The retransmission's DSACK at 70 ms, highest acked 20.
        let s = log.on_dsack(5, ms(70), Some(20), 1, Pairing::Mean).unwrap();
        // RTTs 60 and 60 ms: mean 60 ms. Lengths 7 and 15: mean 11.
        assert_eq!(s.rtt_sample, Some(ms(60)));
        assert_eq!(s.reordering, Some(11));
        // Consumed: a second DSACK finds nothing.
        assert!(log
            .on_dsack(5, ms(80), Some(20), 1, Pairing::Mean)
            .is_none());
    }

    #[test]
    fn rtx_pairing_uses_the_original_ack() {
        let mut log = RetxLog::default();
        log.on_retransmit(entry(5));
        log.on_first_ack(5, ms(60), Some(12), 0);
        let s = log.on_dsack(5, ms(70), Some(20), 1, Pairing::Rtx).unwrap();
        assert_eq!(s.reordering, Some(7));
        // The retransmission got there first: the DSACK is the original's.
        log.on_retransmit(entry(6));
        log.on_first_ack(6, ms(40), Some(9), 1);
        let s = log.on_dsack(6, ms(70), Some(20), 0, Pairing::Rtx).unwrap();
        assert_eq!(s.reordering, Some(14));
    }

    #[test]
    fn no_first_ack_no_samples() {
        let mut log = RetxLog::default();
        log.on_retransmit(entry(3));
        let s = log.on_dsack(3, ms(70), Some(20), 1, Pairing::Mean).unwrap();
        assert!(s.rtt_sample.is_none() && s.reordering.is_none());
    }

    #[test]
    fn a_segment_retransmitted_twice_gives_no_conclusion() {
        // RFC 3708 Sec. 3 step A.3.
        let mut log = RetxLog::default();
        log.on_retransmit(entry(4));
        log.on_first_ack(4, ms(60), Some(12), 0);
        log.on_retransmit(RetxEntry {
            retransmit_sent: ms(300),
            cause: RetxCause::Timeout,
            episode: 2,
            ..entry(4)
        });
        let s = log
            .on_dsack(4, ms(400), Some(20), 1, Pairing::Mean)
            .unwrap();
        assert!(s.ambiguous);
        assert_eq!(s.entry.retransmissions, 2);
        assert!(s.rtt_sample.is_none() && s.reordering.is_none());
        // Once: the log no longer knows the segment.
        assert!(log
            .on_dsack(4, ms(410), Some(20), 1, Pairing::Mean)
            .is_none());
    }
}
