//! Congestion control: how the window grows and how much it shrinks on a
//! congestion event. One small trait, one file per controller, and an enum
//! that dispatches with a `match` on the hot path.
//!
//! Loss *detection* and *recovery* (which segments to resend, when) are not
//! here: they are the sender's other policies. A controller only sees
//! "these many segments were newly acknowledged" and "a congestion event
//! happened with this much data in flight".

pub mod bbr;
pub mod bic;
pub mod cubic;
pub mod cubic_kernel;
pub mod dctcp;
pub mod highspeed;
pub mod hystart;
pub mod ops;
mod reno;
pub mod scalable;

pub use bbr::Bbr;
pub use bic::Bic;
pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use highspeed::HighSpeed;
pub use ops::{AckSample, CongestionOps, Window};
pub use reno::Reno;
pub use scalable::Scalable;

use crate::engine::rng::Rng;
use crate::engine::Time;
use crate::num::floor;
use crate::tcp::kernel::DEFAULT_HZ;
use hystart::{HyStart, HyStartFlavour};

/// The registered controllers.
#[derive(Debug, Clone)]
pub enum CongestionControl {
    Reno(Reno),
    HighSpeed(HighSpeed),
    Scalable(Scalable),
    Bic(Bic),
    Cubic(Cubic),
    /// Boxed: its state is ten times a window's.
    Bbr(Box<Bbr>),
    /// Reno's growth, reductions on ECN-Echo by alpha (RFC 8257).
    Dctcp(Dctcp),
}

/// A registered controller: its name (and other names it answers to),
/// description and source for `reorderlab variants`, and how to build a
/// fresh one.
pub struct CcInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub description: &'static str,
    pub source: &'static str,
    pub build: fn() -> CongestionControl,
}

pub const CONTROLLERS: &[CcInfo] = &[
    CcInfo {
        name: "reno",
        aliases: &[],
        build: || CongestionControl::Reno(Reno),
        description: "Slow start and additive increase, halve on loss",
        source: "RFC 5681",
    },
    CcInfo {
        name: "highspeed",
        aliases: &["hstcp"],
        build: || CongestionControl::HighSpeed(HighSpeed::default()),
        description:
            "HighSpeed TCP (alias hstcp): a(w), b(w) from the response function above 38 segments",
        source: "RFC 3649",
    },
    CcInfo {
        name: "scalable",
        aliases: &[],
        build: || CongestionControl::Scalable(Scalable::default()),
        description: "Scalable TCP: +0.01 per ACKed segment, x0.875 on loss above 16 segments",
        source: "Kelly, CCR 33(2) 2003",
    },
    CcInfo {
        name: "bic",
        aliases: &[],
        build: || CongestionControl::Bic(Bic::default()),
        description:
            "Binary search toward W_max, S_max 32, beta 0.8, fast convergence, max probing",
        source: "Xu, Harfoush, Rhee, INFOCOM 2004",
    },
    CcInfo {
        name: "cubic",
        aliases: &[],
        build: || CongestionControl::Cubic(Cubic::default()),
        description:
            "Cubic window growth in time, C 0.4, beta 0.7, Reno-friendly region, fast convergence",
        source: "RFC 9438",
    },
    CcInfo {
        name: "bbr",
        aliases: &[],
        build: || CongestionControl::Bbr(Box::new(Bbr::new(1000, DEFAULT_HZ, Rng::from_seed(0)))),
        description: "BBR v1 as Linux runs it: paced at gain x the max delivery rate of 10 rounds, cwnd 2 x BDP; STARTUP, DRAIN, PROBE_BW, PROBE_RTT",
        source: "Cardwell et al., ACM Queue 14(5) 2016; Linux 6.18 net/ipv4/tcp_bbr.c",
    },
    CcInfo {
        name: "dctcp",
        aliases: &[],
        build: || CongestionControl::Dctcp(Dctcp::default()),
        description: "DCTCP: Reno's growth; on ECN-Echo, once per window, cwnd x (1 - alpha/2) with alpha = (1 - 1/16) alpha + F/16 per window (F: the marked share); the receiver echoes CE by its two-state machine; a loss halves",
        source: "RFC 8257 Sec. 3.1-3.4; Linux net/ipv4/tcp_dctcp.c (dctcp_update_alpha, dctcp_ssthresh, dctcp_react_to_loss), tcp_dctcp.h (dctcp_ece_ack_update)",
    },
];

impl CongestionControl {
    /// The controller registered under `name` or one of its aliases
    /// (case-insensitive).
    pub fn by_name(name: &str) -> Option<CongestionControl> {
        let matches = |n: &str| n.eq_ignore_ascii_case(name);
        CONTROLLERS
            .iter()
            .find(|c| matches(c.name) || c.aliases.iter().any(|a| matches(a)))
            .map(|c| (c.build)())
    }

    fn ops(&mut self) -> &mut dyn CongestionOps {
        match self {
            CongestionControl::Reno(c) => c,
            CongestionControl::HighSpeed(c) => c,
            CongestionControl::Scalable(c) => c,
            CongestionControl::Bic(c) => c,
            CongestionControl::Cubic(c) => c,
            CongestionControl::Bbr(c) => c.as_mut(),
            CongestionControl::Dctcp(c) => c,
        }
    }

    pub fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time, srtt: Option<Time>) {
        match self {
            CongestionControl::Reno(c) => c.on_ack(w, acked, now, srtt),
            CongestionControl::HighSpeed(c) => c.on_ack(w, acked, now, srtt),
            CongestionControl::Scalable(c) => c.on_ack(w, acked, now, srtt),
            CongestionControl::Bic(c) => c.on_ack(w, acked, now, srtt),
            CongestionControl::Cubic(c) => c.on_ack(w, acked, now, srtt),
            CongestionControl::Bbr(_) => {}
            CongestionControl::Dctcp(c) => c.on_ack(w, acked, now, srtt),
        }
    }

    /// Growth as Linux counts it (`tcp_reno_cong_avoid`,
    /// `cubictcp_cong_avoid`): in slow start cwnd grows by every segment
    /// the ACK acknowledged, up to ssthresh (`tcp_slow_start`), not by one
    /// per ACK; the segments left over go to congestion avoidance, where
    /// Reno adds acked / cwnd (`tcp_cong_avoid_ai(tp, cwnd, acked)`) and
    /// CUBIC its growth for `acked` segments.
    pub fn on_ack_per_segment(
        &mut self,
        w: &mut Window,
        acked: u32,
        now: Time,
        srtt: Option<Time>,
    ) {
        if acked == 0 || matches!(self, CongestionControl::Bbr(_)) {
            return;
        }
        let mut left = acked as f64;
        if w.in_slow_start() {
            let grown = (w.cwnd + left).min(w.ssthresh);
            left -= grown - w.cwnd;
            w.cwnd = grown;
        }
        let left = floor(left) as u32;
        if left == 0 {
            return;
        }
        match self {
            CongestionControl::Reno(_) => w.cwnd += left as f64 / w.cwnd,
            _ => self.on_ack(w, left, now, srtt),
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

    #[inline]
    pub fn on_ack_sample(&mut self, w: &mut Window, s: &AckSample) {
        if let CongestionControl::Cubic(c) = self {
            c.on_ack_sample(w, s);
        }
    }

    /// CUBIC in the kernel's integer arithmetic (the `Linux` variants,
    /// [`cubic_kernel`]); other controllers are unchanged.
    pub fn follow_kernel(&mut self, hz: u32) {
        if let CongestionControl::Cubic(c) = self {
            c.kernel = Some(Box::new(cubic_kernel::KernelCubic::new(hz)));
        }
    }

    /// Linux's HyStart in slow start (CUBIC only: it is part of
    /// `tcp_cubic.c`; other controllers are unchanged).
    pub fn enable_hystart(&mut self, flavour: HyStartFlavour) {
        if let CongestionControl::Cubic(c) = self {
            c.hystart = Some(HyStart::new(flavour));
        }
    }

    /// The controller reads delivery-rate samples and paces itself (BBR:
    /// Linux's `cong_control`, which sets cwnd on every ACK).
    #[inline]
    pub fn is_rate_based(&self) -> bool {
        matches!(self, CongestionControl::Bbr(_))
    }

    /// The connection's segment size, `HZ` and flow, for a controller
    /// that needs them (BBR).
    pub fn configure(&mut self, mss: u32, hz: u32, flow: u32) {
        if let CongestionControl::Bbr(b) = self {
            b.configure(mss, hz, flow);
        }
    }

    /// DCTCP's state, if this is DCTCP.
    #[inline]
    pub fn dctcp_mut(&mut self) -> Option<&mut Dctcp> {
        match self {
            CongestionControl::Dctcp(d) => Some(d),
            _ => None,
        }
    }

    /// BBR's state, if this is BBR.
    pub fn bbr(&self) -> Option<&Bbr> {
        match self {
            CongestionControl::Bbr(b) => Some(b),
            _ => None,
        }
    }

    /// HyStart's state, if on.
    pub fn hystart(&self) -> Option<&HyStart> {
        match self {
            CongestionControl::Cubic(c) => c.hystart.as_ref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_name_resolves() {
        for c in CONTROLLERS {
            assert!(CongestionControl::by_name(c.name).is_some(), "{}", c.name);
        }
        assert!(matches!(
            CongestionControl::by_name("HSTCP"),
            Some(CongestionControl::HighSpeed(_))
        ));
        assert!(matches!(
            CongestionControl::by_name("Cubic"),
            Some(CongestionControl::Cubic(_))
        ));
        assert!(CongestionControl::by_name("vegas").is_none());
    }

    /// The `Linux` variants' CUBIC is the kernel's integer `bictcp_update`
    /// (the conformance script recovery-full-ack): a loss at cwnd 10 gives
    /// ssthresh 7; at cwnd 7 an ACK of 9 segments one RTT later grows cwnd
    /// to 8 (target 8, cnt 7); RFC 9438's curve in floating point grows
    /// it less than a segment.
    #[test]
    fn linux_cubic_grows_by_whole_segments() {
        for kernel in [true, false] {
            let mut c = CongestionControl::by_name("cubic").unwrap();
            if kernel {
                c.follow_kernel(250);
            }
            let mut w = Window {
                cwnd: 10.0,
                ssthresh: f64::INFINITY,
            };
            let sample = AckSample {
                now: 100_000_000,
                rtt: Some(100_000_000),
                una: 10,
                nxt: 10,
            };
            c.on_ack_sample(&mut w, &sample);
            w.ssthresh = c.ssthresh_after_loss(&w, 10, 200_000_000);
            assert_eq!(w.ssthresh, 7.0, "{kernel}");
            w.cwnd = 7.0;
            c.on_ack_per_segment(&mut w, 9, 300_000_000, Some(100_000_000));
            if kernel {
                assert_eq!(w.cwnd, 8.0);
            } else {
                assert!(w.cwnd > 7.0 && w.cwnd < 8.0, "{}", w.cwnd);
            }
        }
    }

    #[test]
    fn dispatch_reaches_the_controller() {
        let w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        let ss = |name: &str| {
            CongestionControl::by_name(name)
                .unwrap()
                .ssthresh_after_loss(&w, 100, 0)
        };
        assert_eq!(ss("reno"), 50.0);
        assert_eq!(ss("scalable"), 87.5);
        assert_eq!(ss("bic"), 80.0);
        assert!((ss("cubic") - 70.0).abs() < 1e-9);
        assert!((ss("highspeed") - (1.0 - highspeed::b(100.0)) * 100.0).abs() < 1e-9);
        assert_eq!(ss("dctcp"), 50.0, "a loss halves (RFC 8257 Sec. 3.4)");
    }
}
