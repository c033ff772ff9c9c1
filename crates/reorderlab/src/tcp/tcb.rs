//! The transmission control block: the per-connection state that every part
//! of the sender reads and changes (RFC 9293 Sec. 3.3.1 names its send
//! sequence variables; here SND.UNA / SND.NXT live in the scoreboard).
//! Loss detection, loss response, timers and limited transmit keep their
//! own state in their components and are handed the TCB.

use crate::engine::Time;
use crate::num::floor;
use crate::tcp::cc::{CongestionControl, Window};
use crate::tcp::config::SenderConfig;
use crate::tcp::pacing::Pacer;
use crate::tcp::policy::{RtoRules, RttTiming};
use crate::tcp::rate::DeliveryRate;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::stats::SenderStats;
use crate::tcp::timers::ns2::Ns2Estimator;
use crate::tcp::timers::rto::{LinuxRttvar, RtoEstimator, RttHistogram};
use crate::tcp::truth::TruthLedger;

/// Congestion-avoidance state, named as Linux names it: `Open` (normal,
/// possibly seeing duplicate ACKs), `Recovery` (fast recovery after a fast
/// retransmit) and `Loss` (after a retransmission timeout, until everything
/// outstanding at the timeout is acknowledged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

/// The connection's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    NotStarted,
    SynSent,
    Established,
    /// A finite transfer is fully acknowledged (it may be given more data).
    Done,
}

#[derive(Debug)]
pub struct Tcb {
    pub cfg: SenderConfig,
    pub flow: u32,
    /// Node of the receiver.
    pub peer: u32,
    pub phase: Phase,
    pub ca: CaState,
    /// cwnd and ssthresh, in segments.
    pub w: Window,
    /// The congestion controller: window growth and the reduction factor.
    pub cc: CongestionControl,
    /// SND.UNA, SND.NXT and the per-segment state (SACKed, lost,
    /// retransmitted).
    pub sb: Scoreboard,
    /// SRTT, RTTVAR, RTO and its backoff.
    pub rtt: RtoEstimator,
    /// The segment being timed and its send time ([`RttTiming::PerRtt`]).
    ///
    /// [`RttTiming::PerRtt`]: crate::tcp::policy::RttTiming::PerRtt
    pub timed: Option<(u32, Time)>,
    /// Recovery point (RFC 6675 `RecoveryPoint`, RFC 6582 `recover` + 1):
    /// the episode ends when SND.UNA reaches it.
    pub recover: Option<u32>,
    /// Duplicate ACKs since SND.UNA last advanced (RFC 6675 Sec. 2: with
    /// SACK, ACKs that SACK new data).
    pub dupacks: u32,
    pub first_dupack_at: Option<Time>,
    pub third_dupack_at: Option<Time>,
    /// Highest segment cumulatively ACKed or SACKed so far (m of the rr-tcp paper
    /// Sec. 4.1.1).
    pub highest_acked: Option<u32>,
    /// Forward retransmission cursor: no segment below it qualifies for
    /// RFC 6675 NextSeg rule 3.
    pub forward_hint: u32,
    pub syn_sent_at: Time,
    pub syn_retransmitted: bool,
    pub stats: SenderStats,
    /// Ground truth (which copies the network dropped).
    pub truth: TruthLedger,
    /// Delivery-rate estimation, if the congestion control reads it (BBR).
    pub rate: Option<Box<DeliveryRate>>,
    /// Pacing: BBR's, or `pacing = true` for the other controllers.
    pub pacer: Option<Pacer>,
}

impl Tcb {
    pub fn new(cfg: SenderConfig, cc: CongestionControl, flow: u32, peer: u32) -> Tcb {
        let w = Window {
            cwnd: cfg.initial_window as f64,
            ssthresh: cfg.initial_ssthresh,
        };
        let rtt = rto_estimator(&cfg, flow);
        let rate = cc.is_rate_based().then(|| Box::new(DeliveryRate::new()));
        let pacer = (cfg.pacing || cc.is_rate_based()).then(|| Pacer::new(cfg.mss));
        Tcb {
            cfg,
            flow,
            peer,
            phase: Phase::NotStarted,
            ca: CaState::Open,
            w,
            cc,
            sb: Scoreboard::new(),
            rtt,
            timed: None,
            recover: None,
            dupacks: 0,
            first_dupack_at: None,
            third_dupack_at: None,
            highest_acked: None,
            forward_hint: 0,
            syn_sent_at: 0,
            syn_retransmitted: false,
            stats: SenderStats {
                min_cwnd: f64::INFINITY,
                ..SenderStats::default()
            },
            truth: TruthLedger::default(),
            rate,
            pacer,
        }
    }

    /// The application has data not yet sent.
    #[inline]
    pub fn has_new_data(&self) -> bool {
        self.cfg.segments.is_none_or(|n| (self.sb.nxt() as u64) < n)
    }

    /// Could a new segment go out now (RFC 5827 "previously unsent data
    /// cannot be transmitted")?
    #[inline]
    pub fn can_send_new(&self) -> bool {
        self.has_new_data()
            && self.sb.packets_out() < self.cfg.max_window
            && self.sb.packets_out() as f64 + 1.0 <= floor(self.w.cwnd).max(1.0)
    }

    /// The receiver window has room for one more segment.
    #[inline]
    pub fn receiver_window_open(&self) -> bool {
        self.sb.packets_out() < self.cfg.max_window
    }

    /// Window growth outside recovery, clamped to the receiver window;
    /// per segment acknowledged with Linux's rules
    /// ([`CongestionControl::on_ack_per_segment`]).
    #[inline]
    pub fn grow(&mut self, acked: u32, now: Time) {
        let srtt = self.rtt.srtt();
        if self.cfg.linux.is_some() {
            self.cc.on_ack_per_segment(&mut self.w, acked, now, srtt);
        } else {
            self.cc.on_ack(&mut self.w, acked, now, srtt);
        }
        self.w.cwnd = self.w.cwnd.min(self.cfg.max_window as f64);
    }

    /// cwnd = ssthresh when a recovery ends. A DSACK undo inside the
    /// recovery may have restored the unbounded ssthresh of slow start; the
    /// restored cwnd then stays.
    pub fn deflate_to_ssthresh(&mut self) {
        if self.w.ssthresh.is_finite() {
            self.w.cwnd = self.w.ssthresh;
        }
    }

    /// SND.UNA to the end of the highest SACKed segment (Linux
    /// `fackets_out`).
    #[inline]
    pub fn fackets_out(&self) -> u32 {
        self.sb
            .sacked_ranges()
            .last()
            .map_or(0, |&(_, r)| r.saturating_sub(self.sb.una()))
    }

    /// When the highest segment sent was (last) sent; `now` if none.
    #[inline]
    pub fn last_sent_at(&self, now: Time) -> Time {
        self.sb
            .nxt()
            .checked_sub(1)
            .and_then(|s| self.sb.seg(s))
            .map_or(now, |s| s.sent_at)
    }

    /// Track the extremes of cwnd (reported per flow).
    #[inline]
    pub fn note_cwnd(&mut self) {
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.w.cwnd);
        self.stats.min_cwnd = self.stats.min_cwnd.min(self.w.cwnd);
    }
}

/// The RTO estimator the configuration asks for: RFC 6298, Linux or ns-2
/// rules, and DSACK-HG's histogram (rr-tcp Sec. 5.3: the 99.8th percentile of
/// the RTT samples of the last 80 s).
fn rto_estimator(cfg: &SenderConfig, flow: u32) -> RtoEstimator {
    let mut rtt = RtoEstimator::new(cfg.rto);
    if let RtoRules::Ns2(profile) = cfg.rto_rules {
        let timestamps = cfg.rtt_timing == RttTiming::PerAck;
        let phase = clock_phase(flow, profile.tick);
        rtt.ns2 = Some(Ns2Estimator::new(profile, phase, timestamps));
    }
    if cfg.rto_histogram {
        rtt.histogram = Some(RttHistogram::new(
            0.998,
            80 * crate::engine::time::NS_PER_SEC,
        ));
    }
    if cfg.rto_rules == RtoRules::Linux {
        rtt.linux = Some(LinuxRttvar::default());
    }
    rtt
}

/// An ns-2 agent's coarse-clock phase (`boot_time_`, uniform in [0, tick)
/// there): here a fixed function of the flow number (SplitMix64), so that
/// flows differ and runs repeat.
fn clock_phase(flow: u32, tick: Time) -> Time {
    let mut z = (flow as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((z >> 11) as f64 / (1u64 << 53) as f64 * tick as f64) as Time
}
