//! What a congestion controller acts on and implements: the window
//! ([`Window`]), the operations ([`CongestionOps`]) and the ACK samples a
//! delay-watching controller reads ([`AckSample`]).

use crate::engine::Time;

/// Congestion window and slow-start threshold, in segments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

impl Window {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What every congestion controller implements.
pub trait CongestionOps {
    /// An ACK newly acknowledged `acked` segments outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>);
    /// The new ssthresh after a congestion event with `flight` segments
    /// outstanding (RFC 5681 eq. 4 for Reno).
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u32, now: Time) -> f64;
    /// A retransmission timeout (after `ssthresh_after_loss`): reset any
    /// epoch state.
    fn on_timeout(&mut self, _now: Time) {}
    /// A window reduction was undone (spurious): restore epoch state if any.
    fn on_undo(&mut self) {}
    /// An ACK of new data, before the growth (Linux `pkts_acked`): its RTT
    /// sample for controllers that watch the delay (CUBIC's HyStart).
    fn on_ack_sample(&mut self, _w: &mut Window, _s: &AckSample) {}
}

/// One ACK of new data, for controllers that watch the delay (HyStart,
/// [`super::hystart`]; Linux `pkts_acked`).
#[derive(Debug, Clone, Copy)]
pub struct AckSample {
    pub now: Time,
    /// The ACK's RTT sample (none if it acknowledged a retransmission).
    pub rtt: Option<Time>,
    /// SND.UNA after the ACK and SND.NXT.
    pub una: u32,
    pub nxt: u32,
}
