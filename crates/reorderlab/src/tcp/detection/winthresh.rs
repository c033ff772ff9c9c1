//! TCP-Aix's winthresh (wwan Sec. II; the rule of [`crate::tcp::response::aix`]):
//! the duplicate-ACK threshold "with regards to the available buffer space
//! at both the sender and the receiver", "with an upper bound" of two send
//! windows. The wwan paper is the only source we had; the formula below is
//! ours. The duplicate-ACK detector ([`super::dupack`]) applies it through
//! [`super::dupthresh::DupthreshPolicy::Winthresh`].

use crate::num::floor;
use crate::tcp::policy::MIN_DUPTHRESH;

/// The winthresh rule: dupthresh from the buffer space beyond the current
/// flight, capped at `bound_windows` send windows.
///
/// With one new segment sent per duplicate ACK, after k duplicate ACKs the
/// sender has FlightSize + k segments outstanding, all of which the sender
/// (until acknowledged) and the receiver (above the hole) must buffer. The
/// largest dupthresh the buffers allow is therefore
///
/// ```text
/// B         = min(send buffer, receiver window)            (segments)
/// W         = min(cwnd, receiver window)                   (send window)
/// dupthresh = max(3, min(B - FlightSize, floor(bound * W)))
/// ```
///
/// evaluated at the first duplicate ACK of a run (FlightSize and cwnd then)
/// and held until SND.UNA advances. `bound` = 2 is the wwan paper's "upper bound
/// of two send windows"; the floor of 3 is the standard dupthresh (RFC 5681).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Winthresh {
    /// Upper bound in send windows.
    pub bound_windows: f64,
    /// Send buffer in segments; `None` = unlimited (ns-2 agents have none).
    pub send_buffer: Option<u32>,
}

impl Winthresh {
    /// The wwan paper's setting: two send windows, no send-buffer limit.
    pub fn wwan_paper() -> Winthresh {
        Winthresh {
            bound_windows: 2.0,
            send_buffer: None,
        }
    }

    /// dupthresh for a receiver window `rwnd`, `flight` segments outstanding
    /// and congestion window `cwnd` (all in segments).
    pub fn dupthresh(&self, rwnd: u32, flight: u32, cwnd: f64) -> u32 {
        let buffer = self.send_buffer.map_or(rwnd, |s| s.min(rwnd));
        let room = buffer.saturating_sub(flight);
        let send_window = cwnd.min(rwnd as f64).max(1.0);
        let bound = floor(self.bound_windows * send_window) as u32;
        room.min(bound).max(MIN_DUPTHRESH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winthresh_is_buffer_room_capped_at_two_send_windows() {
        let w = Winthresh::wwan_paper();
        // Receiver window 100, 30 out, cwnd 30: room 70, bound 60.
        assert_eq!(w.dupthresh(100, 30, 30.0), 60);
        // Receiver window 50: room 20 < bound 60.
        assert_eq!(w.dupthresh(50, 30, 30.0), 20);
        // A send buffer of 40 is the tighter one: room 10.
        let s = Winthresh {
            send_buffer: Some(40),
            ..w
        };
        assert_eq!(s.dupthresh(50, 30, 30.0), 10);
        // Never below 3, even with a full buffer.
        assert_eq!(w.dupthresh(30, 30, 30.0), 3);
        // The send window is bounded by the receiver window.
        assert_eq!(w.dupthresh(20, 0, 30.0), 20);
        assert_eq!(w.dupthresh(10_000, 7, 7.5), 15);
    }
}
