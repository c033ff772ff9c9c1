//! Congestion control: how the window grows and how much it shrinks on a
//! congestion event. One small trait, one file per controller, and an enum
//! that dispatches with a `match` on the hot path.
//!
//! Loss *detection* and *recovery* (which segments to resend, when) are not
//! here: they are the sender's other policies. A controller only sees
//! "these many segments were newly acknowledged" and "a congestion event
//! happened with this much data in flight".

mod reno;

pub use reno::Reno;

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
}

/// The registered controllers.
#[derive(Debug, Clone)]
pub enum CongestionControl {
    Reno(Reno),
}

/// Name, description and source of a controller, for `reorderlab variants`.
pub struct CcInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
}

pub const CONTROLLERS: &[CcInfo] = &[CcInfo {
    name: "reno",
    description: "Slow start and additive increase, halve on loss",
    source: "RFC 5681",
}];

impl CongestionControl {
    /// The controller registered under `name` (case-insensitive).
    pub fn by_name(name: &str) -> Option<CongestionControl> {
        match name.to_ascii_lowercase().as_str() {
            "reno" => Some(CongestionControl::Reno(Reno)),
            _ => None,
        }
    }

    fn ops(&mut self) -> &mut dyn CongestionOps {
        match self {
            CongestionControl::Reno(c) => c,
        }
    }

    pub fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>) {
        match self {
            CongestionControl::Reno(c) => c.on_ack(w, acked, now, srtt),
        }
    }

    pub fn ssthresh_after_loss(&mut self, w: &Window, flight: u32, now: Time) -> f64 {
        self.ops().ssthresh_after_loss(w, flight, now)
    }

    pub fn on_timeout(&mut self, now: Time) {
        self.ops().on_timeout(now)
    }

    pub fn on_undo(&mut self) {
        self.ops().on_undo()
    }
}
