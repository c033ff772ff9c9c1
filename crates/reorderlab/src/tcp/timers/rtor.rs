//! RTO Restart (RFC 7765, tail-loss Sec. 2.1).
//!
//! RFC 6298 Sec. 5.3 restarts the retransmission timer on every ACK of new
//! data, so a lost tail segment is resent RTO after the last ACK, i.e.
//! about one RTT (plus a delayed-ACK timer) later than RTO after its own
//! transmission. RFC 7765 Sec. 4: when an ACK of new data arrives,
//! T_earliest = 0; if fewer than rrthresh (4) segments are outstanding and
//! no unsent data is ready, T_earliest = the time since the earliest
//! outstanding segment was sent; the timer is restarted to expire after
//! RTO - T_earliest if that is positive, else after the full RTO (step 3b).

use crate::engine::Time;

/// RFC 7765 default rrthresh.
pub const RRTHRESH: u32 = 4;

/// The restarted timer's expiry: `now + rto - T_earliest`. `earliest_sent`
/// is the (latest) transmission time of the earliest outstanding segment.
pub fn restart_deadline(
    now: Time,
    rto: Time,
    outstanding: u32,
    unsent_ready: bool,
    rrthresh: u32,
    earliest_sent: Time,
) -> Time {
    let t_earliest = if outstanding < rrthresh && !unsent_ready {
        now.saturating_sub(earliest_sent)
    } else {
        0
    };
    // Step 3b: "if RTO - T_earliest > 0" the timer expires after it, else
    // after the full RTO, so that an ACK for retransmitted data never makes
    // the timer fire at once.
    if rto > t_earliest {
        now + (rto - t_earliest)
    } else {
        now + rto
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    #[test]
    fn restart_subtracts_t_earliest_only_below_rrthresh_without_data() {
        let (now, rto) = (ms(160), ms(280));
        assert_eq!(restart_deadline(now, rto, 1, false, 4, ms(80)), ms(360));
        assert_eq!(restart_deadline(now, rto, 3, false, 4, ms(80)), ms(360));
        assert_eq!(restart_deadline(now, rto, 4, false, 4, ms(80)), ms(440));
        assert_eq!(restart_deadline(now, rto, 1, true, 4, ms(80)), ms(440));
        // Step 3b: the earliest segment went out RTO or more ago (e.g. an
        // ACK for retransmitted data in a long recovery): the full RTO, not
        // an immediate expiry.
        assert_eq!(restart_deadline(ms(500), rto, 1, false, 4, 0), ms(780));
        assert_eq!(
            restart_deadline(ms(500), rto, 1, false, 4, ms(220)),
            ms(780)
        );
        assert_eq!(
            restart_deadline(ms(500), rto, 1, false, 4, ms(221)),
            ms(501)
        );
    }
}
