//! PAWS, protection against wrapped sequences (RFC 7323 Sec. 5.3 R1), as
//! the Linux receiver applies it to a connection with timestamps
//! (net/ipv4/tcp_input.c `tcp_validate_incoming` -> `tcp_paws_discard`,
//! include/net/tcp.h `tcp_paws_check`; `tcp_replace_ts_recent`,
//! `tcp_send_dupack`), for the `Linux` variants' receiver.
//!
//! * TS.Recent is replaced by a segment's TSval when the segment starts at
//!   or below the last ACK sent (`rcv_wup`) and its TSval is not older
//!   (`tcp_paws_check(.., 0)`).
//! * A data segment whose TSval is older than TS.Recent by more than
//!   `TCP_PAWS_WINDOW` (one tick of the 1 ms timestamp clock) is dropped
//!   (a data segment is never the "disordered ACK" that PAWS lets
//!   through), and answered at once by a duplicate ACK (not rate-limited
//!   for data, `tcp_oow_rate_limited`), with a DSACK only if it lay below
//!   RCV.NXT.
//!
//! Under reordering this drops every delayed original older than the
//! retransmission that filled the hole at RCV.NXT: the sender has to
//! retransmit it (found by the bbr helper: the kernel's spurious
//! retransmissions on the wire equal the receiver's `TcpExtPAWSEstab`
//! within 3 % over 18 kernel runs).

use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;

/// `TCP_PAWS_WINDOW`, in ticks of the timestamp clock.
pub const TCP_PAWS_WINDOW: u64 = 1;
/// Linux's timestamp clock: milliseconds (`tcp_time_stamp_ms`).
const TICK: Time = NS_PER_SEC / 1000;

/// A send time in ticks of the timestamp clock.
fn ticks(t: Time) -> u64 {
    t / TICK
}

/// The receiver's PAWS state.
#[derive(Debug, Clone, Copy, Default)]
pub struct Paws {
    /// TS.Recent in ticks (`None`: none yet, as the kernel's 0).
    ts_recent: Option<u64>,
    /// RCV.NXT when the last ACK was sent (`tp->rcv_wup`).
    pub rcv_wup: u32,
}

impl Paws {
    /// `tcp_paws_discard` for a data segment sent at `tsval`.
    pub fn rejects(&self, tsval: Time) -> bool {
        self.ts_recent
            .is_some_and(|r| r > ticks(tsval) + TCP_PAWS_WINDOW)
    }

    /// `tcp_replace_ts_recent`: whether segment `seq` sent at `tsval`
    /// replaces TS.Recent (and records it if so).
    pub fn replace(&mut self, seq: u32, tsval: Time) -> bool {
        let t = ticks(tsval);
        let newer = self.ts_recent.is_none_or(|r| t >= r);
        if seq <= self.rcv_wup && newer {
            self.ts_recent = Some(t);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;
    use crate::net::packet::Packet;
    use crate::spec::DelayedAck;
    use crate::tcp::receiver::{Receiver, ReceiverConfig};

    #[test]
    fn older_by_more_than_one_tick_is_rejected() {
        let mut p = Paws::default();
        assert!(!p.rejects(0), "no TS.Recent yet: everything passes");
        assert!(p.replace(0, ms(100)));
        assert!(!p.rejects(ms(99)), "one tick older: within the window");
        assert!(p.rejects(ms(98) + ms(1) / 2), "two ticks older");
        // Only at or below the last ACK sent, and never backwards.
        assert!(!p.replace(1, ms(120)));
        p.rcv_wup = 1;
        assert!(!p.replace(1, ms(99)));
        assert!(p.replace(1, ms(120)));
        assert!(p.rejects(ms(110)));
    }

    /// The Linux receiver's PAWS (`tcp_paws_discard`, `tcp_replace_ts_recent`):
    /// 0 and 2 arrive (sent at 10 ms), the retransmission of 1 (sent at
    /// 60 ms) fills the hole at RCV.NXT and becomes TS.Recent; the delayed
    /// original of 3 (sent at 10 ms) is then older by more than a tick:
    /// dropped, answered by an ACK of 3 without DSACK. Without PAWS (the
    /// other receivers, and the old model) 3 is delivered.
    fn data(seq: u32, ts: Time) -> Packet {
        Packet::data(0, 1, 1000, seq, 0, ts)
    }

    #[test]
    fn paws_drops_a_delayed_original_older_than_the_hole_filler() {
        for paws in [true, false] {
            let cfg = ReceiverConfig {
                delayed_ack: DelayedAck::None,
                delack_timeout: ms(200),
                delack_every: 2,
                sack: true,
                dsack: true,
                max_sack_blocks: 4,
                ack_size: 40,
                mss: 1000,
                expected_segments: None,
                measure_from: 0,
                paws,
                dctcp: false,
            };
            let mut r = Receiver::new(cfg, 0, 0);
            let mut out = Vec::new();
            r.on_data(&data(0, ms(10)), ms(60), &mut out);
            r.on_data(&data(2, ms(10)), ms(61), &mut out);
            r.on_data(&data(1, ms(60)), ms(110), &mut out);
            assert_eq!(r.rcv_nxt(), 3);
            out.clear();
            r.on_data(&data(3, ms(10)), ms(111), &mut out);
            assert_eq!(out.len(), 1, "{paws}: one ACK at once");
            if paws {
                assert_eq!(r.rcv_nxt(), 3, "dropped");
                assert_eq!(out[0].seq, 3);
                assert_eq!(out[0].sack.as_slice(), &[] as &[(u32, u32)]);
                assert_eq!(out[0].ts, ms(60));
            } else {
                assert_eq!(r.rcv_nxt(), 4, "delivered");
            }
        }
    }
}
