//! Early retransmit (RFC 5827), the paper's baseline (tail-loss Sec. 2).
//!
//! RFC 5827 Sec. 3.2 (SACK, segment-based): when fewer than four segments
//! are outstanding (oldFlightSize < 4) and no previously unsent segment can
//! be sent (none ready, or the windows forbid it), the duplicate-ACK
//! threshold becomes ER_thresh = oldFlightSize - 1, so one or two SACKs can
//! trigger the fast retransmit a tail would otherwise never get.
//!
//! Linux (3.5-4.x, `tcp_early_retrans = 2`, the paper's kernel) applies
//! the mitigation of RFC 5827 Appendix A.3: the retransmission waits
//! max(SRTT / 4, 2 ms) and is cancelled if the hole closes meanwhile.

use crate::engine::time::ms;
use crate::engine::Time;

/// Outstanding segments below which ER applies.
pub const ER_MAX_OUTSTANDING: u32 = 4;

/// ER_thresh for `outstanding` segments (oldFlightSize), or `None` when ER
/// does not apply and the normal DupThresh holds.
pub fn er_thresh(outstanding: u32, can_send_new: bool) -> Option<u32> {
    ((2..ER_MAX_OUTSTANDING).contains(&outstanding) && !can_send_new).then(|| outstanding - 1)
}

/// Appendix A.3 delay (Linux `tcp_pause_early_retransmit`): SRTT / 4, at
/// least 2 ms.
pub fn er_delay(srtt: Time) -> Time {
    (srtt / 4).max(ms(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn er_thresh_is_flight_minus_one_below_four_without_new_data() {
        assert_eq!(er_thresh(3, false), Some(2));
        assert_eq!(er_thresh(2, false), Some(1));
        assert_eq!(er_thresh(4, false), None);
        assert_eq!(er_thresh(3, true), None);
        assert_eq!(er_delay(ms(80)), ms(20));
        assert_eq!(er_delay(ms(4)), ms(2));
    }
}
