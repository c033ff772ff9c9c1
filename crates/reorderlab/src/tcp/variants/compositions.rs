//! The compositions behind each registered name ([`super::registry`]):
//! the base every variant starts from ([`base_config`]) and, per variant, a
//! function that sets its components and parameters.

use crate::engine::time::ms;
use crate::tcp::cc::hystart::HyStartFlavour;
use crate::tcp::config::SenderConfig;
use crate::tcp::detection::dupthresh::{
    AvgDev, AvgDevFormula, BlScheme, BlantonAllman, DupthreshPolicy, LinuxReordering,
};
use crate::tcp::detection::winthresh::Winthresh;
use crate::tcp::dsack::Pairing;
use crate::tcp::kernel::LinuxKernel;
use crate::tcp::policy::{
    Cwv, DetectionPolicy, DsackResponse, EarlyRetransmit, FastRetransmitDelay, LimitedTransmit,
    NcrMode, ResponsePolicy, RtoRecovery, RtoRestart, RtoRules, RttSampling, RttTiming,
    SsthreshBase, TailLossProbe, UndoResponse,
};
use crate::tcp::timers::rto::RtoConfig;
use crate::tcp::timers::rtor::RRTHRESH;

/// Defaults shared by every variant (the RFC 2988/6298-era sender of seeds
/// 000, 001 and 003).
pub fn base_config() -> SenderConfig {
    SenderConfig {
        variant: String::new(),
        detection: DetectionPolicy::DupThresh,
        response: ResponsePolicy::Sack,
        limited_transmit: LimitedTransmit::Rfc3042,
        cwv: Cwv::None,
        use_sack: true,
        dupthresh: DupthreshPolicy::Fixed(3),
        fr_delay: FastRetransmitDelay::None,
        dsack: DsackResponse::Ignore,
        rtt_sampling: RttSampling::Karn,
        rtt_timing: RttTiming::PerRtt,
        pairing: Pairing::Mean,
        rto_histogram: false,
        rto_rules: RtoRules::Rfc6298,
        ssthresh_base: SsthreshBase::FlightSize,
        hystart: None,
        early_retransmit: EarlyRetransmit::Off,
        rto_restart: RtoRestart::Off,
        rto_recovery: RtoRecovery::Conventional,
        tlp: TailLossProbe::Off,
        forward_retransmit: false,
        fack: false,
        undo_by_timestamps: false,
        undo_response: UndoResponse::Restore,
        lt_past_window: None,
        linux: None,
        mss: 1000,
        syn_size: 40,
        max_window: 10_000,
        initial_window: 2,
        initial_ssthresh: f64::INFINITY,
        rto: RtoConfig {
            min_rto: ms(1000),
            max_rto: ms(60_000),
            initial_rto: ms(1000),
            granularity: ms(1),
        },
        syn: false,
        pacing: false,
        segments: None,
    }
}

pub(super) fn reno(c: &mut SenderConfig) {
    c.response = ResponsePolicy::Reno;
    c.use_sack = false;
    c.limited_transmit = LimitedTransmit::Off;
}

pub(super) fn newreno(c: &mut SenderConfig) {
    c.response = ResponsePolicy::NewReno;
    c.use_sack = false;
    c.limited_transmit = LimitedTransmit::Off;
}

pub(super) fn sack(c: &mut SenderConfig) {
    c.response = ResponsePolicy::Sack;
    c.use_sack = true;
    c.limited_transmit = LimitedTransmit::Rfc3042;
}

/// RR-TCP's limited transmit: up to one congestion window (Table 2).
const RR_LT: LimitedTransmit = LimitedTransmit::CwndMultiple(1.0);

pub(super) fn dsack_nm(c: &mut SenderConfig) {
    sack(c);
    c.dsack = DsackResponse::Detect;
}

pub(super) fn dsack_r(c: &mut SenderConfig) {
    sack(c);
    c.dsack = DsackResponse::Undo;
    c.limited_transmit = RR_LT;
}

pub(super) fn dsack_fa(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::rr_tcp(0.9, false, 1.0);
}

pub(super) fn dsack_faes(c: &mut SenderConfig) {
    dsack_fa(c);
    c.rtt_sampling = RttSampling::DsackEnhanced;
}

pub(super) fn dsack_ta(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::rr_tcp(0.9, true, 1.0);
}

pub(super) fn dsack_taes(c: &mut SenderConfig) {
    dsack_ta(c);
    c.rtt_sampling = RttSampling::DsackEnhanced;
}

pub(super) fn dsack_hg(c: &mut SenderConfig) {
    dsack_ta(c);
    c.rtt_sampling = RttSampling::DsackEnhanced;
    c.rto_histogram = true;
}

pub(super) fn with_rtx(c: &mut SenderConfig) {
    c.pairing = Pairing::Rtx;
}

pub(super) fn dsack_fa_rtx(c: &mut SenderConfig) {
    dsack_fa(c);
    with_rtx(c);
}

pub(super) fn dsack_ta_rtx(c: &mut SenderConfig) {
    dsack_ta(c);
    with_rtx(c);
}

/// The Blanton-Allman schemes: DSACK detection (RFC 3708), an undo that
/// slow-starts back to the window before the false fast retransmit (the
/// tcp-pr paper, footnote 2 on Blanton & Allman: "Instead of instantaneously
/// increasing the congestion window to the value prior to the
/// retransmission event, the sender slow-starts up to that value"), and
/// RFC 3042 limited transmit (tcp-pr Sec. VI: the methods of Blanton &
/// Allman "use limited transmit [RFC 3042]"; rr-tcp Figs. 17-19 give them
/// Table 2's bound of one cwnd through `limited_transmit_bound`).
pub(super) fn bl(c: &mut SenderConfig, scheme: BlScheme) {
    dsack_r(c);
    c.limited_transmit = LimitedTransmit::Rfc3042;
    c.undo_response = UndoResponse::SlowStartBack;
    c.dupthresh = DupthreshPolicy::BlantonAllman(BlantonAllman::new(scheme));
}

pub(super) fn bl_r(c: &mut SenderConfig) {
    bl(c, BlScheme::Restore)
}
pub(super) fn bl_inc(c: &mut SenderConfig) {
    bl(c, BlScheme::Increment)
}
pub(super) fn bl_incn(c: &mut SenderConfig) {
    bl(c, BlScheme::IncrementByN)
}
pub(super) fn bl_avg(c: &mut SenderConfig) {
    bl(c, BlScheme::Average)
}
pub(super) fn bl_ewma(c: &mut SenderConfig) {
    bl(c, BlScheme::Ewma)
}
pub(super) fn bl_timedel(c: &mut SenderConfig) {
    bl(c, BlScheme::TimeDelay)
}
pub(super) fn bl_timeinc(c: &mut SenderConfig) {
    bl(c, BlScheme::TimeIncrement)
}

/// TD-FR with RFC 3042 limited transmit, as tcp-pr Sec. VI ran it (one of
/// the methods of [1] that "use limited transmit [RFC 3042]").
pub(super) fn td_fr(c: &mut SenderConfig) {
    dsack_r(c);
    c.limited_transmit = LimitedTransmit::Rfc3042;
    c.fr_delay = FastRetransmitDelay::TdFr;
}

/// TCP-PR with the defaults of the tcp-pr paper (alpha = 0.999, beta = 3).
pub(super) fn tcp_pr(c: &mut SenderConfig) {
    sack(c);
    c.limited_transmit = LimitedTransmit::Off;
    c.response = ResponsePolicy::TcpPr;
    c.detection = DetectionPolicy::TcpPr {
        alpha: 0.999,
        beta: 3.0,
        extreme: true,
    };
}

pub(super) fn tcp_pr_basic(c: &mut SenderConfig) {
    tcp_pr(c);
    c.detection = DetectionPolicy::TcpPr {
        alpha: 0.999,
        beta: 3.0,
        extreme: false,
    };
}

pub(super) fn tcp_dcr(c: &mut SenderConfig) {
    dsack_r(c);
    c.fr_delay = FastRetransmitDelay::Dcr;
}

/// TCP-NCR (RFC 4653) on the SACK sender: Extended Limited Transmit
/// replaces RFC 3042 and sets DupThresh while it runs.
pub(super) fn ncr(c: &mut SenderConfig, mode: NcrMode) {
    sack(c);
    c.limited_transmit = LimitedTransmit::Extended(mode);
}

pub(super) fn tcp_ncr(c: &mut SenderConfig) {
    ncr(c, NcrMode::Careful)
}

pub(super) fn tcp_ncr_aggressive(c: &mut SenderConfig) {
    ncr(c, NcrMode::Aggressive)
}

/// AVG-DEV on DSACK-R: it needs DSACK to measure the reordering of
/// retransmitted segments, and limited transmit up to one cwnd to keep the
/// ACK clock while waiting for a raised dupthresh. The reading of the
/// secondary sources ([`AvgDevFormula::Sources`]).
pub(super) fn avg_dev(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::AvgDev(AvgDev::new(AvgDevFormula::Sources));
}

/// AVG-DEV with the formula assumed before the sources were checked
/// ([`AvgDevFormula::K4`]).
pub(super) fn avg_dev_k4(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::AvgDev(AvgDev::new(AvgDevFormula::K4));
}

/// The wwan paper's standards-compliant baseline: SACK-based loss recovery
/// (RFC 6675), limited transmit (RFC 3042) and Congestion Window Validation
/// (RFC 2861, see [`crate::tcp::cwv`] for why not RFC 7661), with
/// timestamps on, i.e. an RTT sample from every ACK (RFC 7323).
pub(super) fn sack_cwv(c: &mut SenderConfig) {
    sack(c);
    c.cwv = Cwv::Rfc2861;
    c.rtt_timing = RttTiming::PerAck;
}

/// TCP-Aix ([`crate::tcp::response::aix`]) on the SACK sender: winthresh dupthresh
/// (bound two send windows, the wwan paper), the window reduction decided at the
/// newACK, new data on every duplicate ACK (which replaces RFC 3042), and
/// timestamps (RTT from every ACK), which TCP-Aix relies on.
pub(super) fn tcp_aix(c: &mut SenderConfig) {
    sack(c);
    c.limited_transmit = LimitedTransmit::Off;
    c.response = ResponsePolicy::Aix;
    c.dupthresh = DupthreshPolicy::Winthresh(Winthresh::wwan_paper());
    c.rtt_timing = RttTiming::PerAck;
}

/// The tail-loss paper's baseline, the Linux 3.17 sender without TLP
/// (`tcp_early_retrans = 2`): initial window 10, Linux RTO (SRTT + max(4
/// mdev, 200 ms)), RTT from every ACK (timestamps), SACK recovery with
/// PRR (Linux 3.2 and later: `tcp_cwnd_reduction`), limited transmit, FACK,
/// forward retransmission, early retransmit after SRTT / 4, DSACK undo and
/// undo by timestamps (`tcp_try_undo_partial` / `tcp_try_undo_recovery`),
/// and `tp->reordering` as the duplicate-ACK threshold: a measured
/// reordering raises it, turns FACK off and disables early retransmit
/// (`tcp_update_reordering`).
pub(super) fn linux_er(c: &mut SenderConfig) {
    sack(c);
    c.initial_window = 10;
    c.rto.min_rto = ms(200);
    c.rto.max_rto = ms(120_000);
    c.rto_rules = RtoRules::Linux;
    c.ssthresh_base = SsthreshBase::Cwnd;
    c.rtt_timing = RttTiming::PerAck;
    c.early_retransmit = EarlyRetransmit::Linux;
    c.dsack = DsackResponse::Undo;
    c.forward_retransmit = true;
    c.fack = true;
    c.undo_by_timestamps = true;
    c.response = ResponsePolicy::Prr;
    c.dupthresh = DupthreshPolicy::Linux(LinuxReordering::new());
    c.hystart = Some(HyStartFlavour::Linux317);
}

/// RTO restart (RFC 7765) on the tail-loss paper baseline.
pub(super) fn rtor(c: &mut SenderConfig) {
    linux_er(c);
    c.rto_restart = RtoRestart::Rfc7765 { rrthresh: RRTHRESH };
}

/// Tail loss probe (draft-01, Linux 3.17) on the tail-loss paper baseline.
pub(super) fn tlp(c: &mut SenderConfig) {
    linux_er(c);
    c.tlp = TailLossProbe::Draft01 { restart: false };
}

/// TLP with the probe timer restarted as PTO - T_last (tail-loss Sec. 2.3).
pub(super) fn tlpr(c: &mut SenderConfig) {
    linux_er(c);
    c.tlp = TailLossProbe::Draft01 { restart: true };
}

/// RACK-TLP (RFC 8985) with PRR (RFC 6937) and DSACK undo, on the Linux
/// base (window 10, Linux RTO, RTT per ACK); no early retransmit and no
/// duplicate-ACK threshold (RACK replaces both).
pub(super) fn rack_tlp(c: &mut SenderConfig) {
    linux_er(c);
    c.early_retransmit = EarlyRetransmit::Off;
    c.detection = DetectionPolicy::Rack {
        adaptive_reordering: false,
    };
    c.response = ResponsePolicy::Prr;
    c.tlp = TailLossProbe::Rfc8985;
    // RACK replaced FACK and forward retransmission in Linux.
    c.fack = false;
    c.forward_retransmit = false;
    // RFC 8985 on its own: undo by DSACK only (RFC 3708).
    c.undo_by_timestamps = false;
    // RFC 8985's loss recovery on its own: no slow-start change.
    c.hystart = None;
}

/// A current Linux kernel's defaults: RACK-TLP, PRR, DSACK undo and undo
/// by timestamps, adaptive `tp->reordering` in [3, 300], F-RTO
/// (`tcp_frto = 2`, RFC 5682 Sec. 3); any congestion control (`cc`).
pub(super) fn linux(c: &mut SenderConfig) {
    rack_tlp(c);
    c.undo_by_timestamps = true;
    c.detection = DetectionPolicy::Rack {
        adaptive_reordering: true,
    };
    c.rto_recovery = RtoRecovery::Frto;
    c.hystart = Some(HyStartFlavour::Linux);
    c.linux = Some(LinuxKernel::default());
}

/// A current Linux kernel set as close to classic SACK recovery as its
/// switches go (`reorderlab emulate`'s `Linux-classic`: `tcp_recovery = 0`,
/// `tcp_early_retrans = 0`, `tcp_frto = 0`, `tcp_dsack = 0` and
/// `tcp_timestamps = 0` on both sides, `tcp_reordering = tcp_max_reordering
/// = 3`), as that kernel behaves: no TLP or early retransmit, conventional
/// timeout recovery, no undo by timestamps, DupThresh fixed at 3; and what
/// no switch turns off: the DSACKs a peer sends are read (`tcp_dsack = 0`
/// only stops sending them, `tcp_dsack_set` / `tcp_send_dupack`; the
/// sender's `tcp_check_dsack` and `tcp_try_undo_dsack` do not read it), so
/// with a receiver that sends DSACKs the reduction is undone and RACK's
/// reo_wnd grows (`tcp_rack_update_reo_wnd`: `tcp_recovery = 0` leaves
/// `TCP_RACK_STATIC_REO_WND` unset); RACK loss detection (RFC 8985
/// Sec. 6.2; measured on 6.18: with `tcp_recovery = 0` and 10 % of packets
/// held a constant 10 ms, 551 reorderings of 3 or more packets gave 7 fast
/// retransmits, the same as with `tcp_recovery = 1`; at 40 ms 59 fast
/// retransmits for 25 such reorderings), whose reordering window stays
/// min_RTT / 4 without DSACK, PRR (RFC 6937), HyStart with CUBIC, and the
/// Linux base (IW 10, RTO = SRTT + max(4 mdev, 200 ms), an RTT sample per
/// ACK).
pub(super) fn linux_classic(c: &mut SenderConfig) {
    rack_tlp(c);
    c.tlp = TailLossProbe::Off;
    // tcp_max_reordering = 3: tp->reordering cannot grow.
    c.dupthresh = DupthreshPolicy::Fixed(3);
    // CUBIC's HyStart has no sysctl (it acts only with cc = "cubic").
    c.hystart = Some(HyStartFlavour::Linux);
    c.linux = Some(LinuxKernel::default());
}
