//! The compositions behind each registered name, and the table of names,
//! descriptions and sources (`reorderlab variants`).

use super::VariantInfo;
use crate::engine::time::ms;
use crate::tcp::cc::hystart::HyStartFlavour;
use crate::tcp::detection::dupthresh::{
    AvgDev, AvgDevFormula, BlScheme, BlantonAllman, DupthreshPolicy, LinuxReordering,
};
use crate::tcp::dsack::Pairing;
use crate::tcp::ncr::NcrMode;
use crate::tcp::policy::{
    Cwv, DsackResponse, EarlyRetransmit, FastRetransmitDelay, LimitedTransmit, LossDetection,
    Recovery, RtoRecovery, RtoRestart, RtoRules, RttSampling, RttTiming, SsthreshBase,
    TailLossProbe,
};
use crate::tcp::response::aix::Winthresh;
use crate::tcp::sender::SenderConfig;
use crate::tcp::timers::rtor::RRTHRESH;

fn reno(c: &mut SenderConfig) {
    c.recovery = Recovery::Reno;
    c.use_sack = false;
    c.limited_transmit = LimitedTransmit::Off;
}

fn newreno(c: &mut SenderConfig) {
    c.recovery = Recovery::NewReno;
    c.use_sack = false;
    c.limited_transmit = LimitedTransmit::Off;
}

fn sack(c: &mut SenderConfig) {
    c.recovery = Recovery::Sack;
    c.use_sack = true;
    c.limited_transmit = LimitedTransmit::Rfc3042;
}

/// RR-TCP's limited transmit: up to one congestion window (Table 2).
const RR_LT: LimitedTransmit = LimitedTransmit::CwndMultiple(1.0);

fn dsack_nm(c: &mut SenderConfig) {
    sack(c);
    c.dsack = DsackResponse::Detect;
}

fn dsack_r(c: &mut SenderConfig) {
    sack(c);
    c.dsack = DsackResponse::Undo;
    c.limited_transmit = RR_LT;
}

fn dsack_fa(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::rr_tcp(0.9, false, 1.0);
}

fn dsack_faes(c: &mut SenderConfig) {
    dsack_fa(c);
    c.rtt_sampling = RttSampling::DsackEnhanced;
}

fn dsack_ta(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::rr_tcp(0.9, true, 1.0);
}

fn dsack_taes(c: &mut SenderConfig) {
    dsack_ta(c);
    c.rtt_sampling = RttSampling::DsackEnhanced;
}

fn dsack_hg(c: &mut SenderConfig) {
    dsack_ta(c);
    c.rtt_sampling = RttSampling::DsackEnhanced;
    c.rto_histogram = true;
}

fn with_rtx(c: &mut SenderConfig) {
    c.pairing = Pairing::Rtx;
}

fn dsack_fa_rtx(c: &mut SenderConfig) {
    dsack_fa(c);
    with_rtx(c);
}

fn dsack_ta_rtx(c: &mut SenderConfig) {
    dsack_ta(c);
    with_rtx(c);
}

/// The Blanton-Allman schemes on DSACK-R's undo, with RFC 3042 limited
/// transmit: tcp-pr Sec. VI says the methods of Blanton & Allman "use
/// limited transmit [RFC 3042]" (rr-tcp Figs. 17-18 give them RR-TCP's
/// bound k explicitly, through `limited_transmit_bound`).
fn bl(c: &mut SenderConfig, scheme: BlScheme) {
    dsack_r(c);
    c.limited_transmit = LimitedTransmit::Rfc3042;
    c.dupthresh = DupthreshPolicy::BlantonAllman(BlantonAllman::new(scheme));
}

fn bl_r(c: &mut SenderConfig) {
    bl(c, BlScheme::Restore)
}
fn bl_inc(c: &mut SenderConfig) {
    bl(c, BlScheme::Increment)
}
fn bl_incn(c: &mut SenderConfig) {
    bl(c, BlScheme::IncrementByN)
}
fn bl_avg(c: &mut SenderConfig) {
    bl(c, BlScheme::Average)
}
fn bl_ewma(c: &mut SenderConfig) {
    bl(c, BlScheme::Ewma)
}
fn bl_timedel(c: &mut SenderConfig) {
    bl(c, BlScheme::TimeDelay)
}
fn bl_timeinc(c: &mut SenderConfig) {
    bl(c, BlScheme::TimeIncrement)
}

/// TD-FR with RFC 3042 limited transmit, as tcp-pr Sec. VI ran it (one of
/// the methods of [1] that "use limited transmit [RFC 3042]").
fn td_fr(c: &mut SenderConfig) {
    dsack_r(c);
    c.limited_transmit = LimitedTransmit::Rfc3042;
    c.fr_delay = FastRetransmitDelay::TdFr;
}

/// TCP-PR with the defaults of the tcp-pr paper (alpha = 0.999, beta = 3).
fn tcp_pr(c: &mut SenderConfig) {
    sack(c);
    c.limited_transmit = LimitedTransmit::Off;
    c.recovery = Recovery::TcpPr;
    c.detection = LossDetection::TcpPr {
        alpha: 0.999,
        beta: 3.0,
        extreme: true,
    };
}

fn tcp_pr_basic(c: &mut SenderConfig) {
    tcp_pr(c);
    c.detection = LossDetection::TcpPr {
        alpha: 0.999,
        beta: 3.0,
        extreme: false,
    };
}

fn tcp_dcr(c: &mut SenderConfig) {
    dsack_r(c);
    c.fr_delay = FastRetransmitDelay::Dcr;
}

/// TCP-NCR (RFC 4653) on the SACK sender: Extended Limited Transmit
/// replaces RFC 3042 and sets DupThresh while it runs.
fn ncr(c: &mut SenderConfig, mode: NcrMode) {
    sack(c);
    c.limited_transmit = LimitedTransmit::Extended(mode);
}

fn tcp_ncr(c: &mut SenderConfig) {
    ncr(c, NcrMode::Careful)
}

fn tcp_ncr_aggressive(c: &mut SenderConfig) {
    ncr(c, NcrMode::Aggressive)
}

/// AVG-DEV on DSACK-R: it needs DSACK to measure the reordering of
/// retransmitted segments, and limited transmit up to one cwnd to keep the
/// ACK clock while waiting for a raised dupthresh. The reading of the
/// secondary sources ([`AvgDevFormula::Sources`]).
fn avg_dev(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::AvgDev(AvgDev::new(AvgDevFormula::Sources));
}

/// AVG-DEV with the formula assumed before the sources were checked
/// ([`AvgDevFormula::K4`]).
fn avg_dev_k4(c: &mut SenderConfig) {
    dsack_r(c);
    c.dupthresh = DupthreshPolicy::AvgDev(AvgDev::new(AvgDevFormula::K4));
}

/// The wwan paper's standards-compliant baseline: SACK-based loss recovery
/// (RFC 6675), limited transmit (RFC 3042) and Congestion Window Validation
/// (RFC 2861, see [`crate::tcp::cwv`] for why not RFC 7661), with
/// timestamps on, i.e. an RTT sample from every ACK (RFC 7323).
fn sack_cwv(c: &mut SenderConfig) {
    sack(c);
    c.cwv = Cwv::Rfc2861;
    c.rtt_timing = RttTiming::PerAck;
}

/// TCP-Aix ([`crate::tcp::aix`]) on the SACK sender: winthresh dupthresh
/// (bound two send windows, the wwan paper), the window reduction decided at the
/// newACK, new data on every duplicate ACK (which replaces RFC 3042), and
/// timestamps (RTT from every ACK), which TCP-Aix relies on.
fn tcp_aix(c: &mut SenderConfig) {
    sack(c);
    c.limited_transmit = LimitedTransmit::Off;
    c.recovery = Recovery::Aix;
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
fn linux_er(c: &mut SenderConfig) {
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
    c.recovery = Recovery::Prr;
    c.dupthresh = DupthreshPolicy::Linux(LinuxReordering::new());
    c.hystart = Some(HyStartFlavour::Linux317);
}

/// RTO restart (RFC 7765) on the tail-loss paper baseline.
fn rtor(c: &mut SenderConfig) {
    linux_er(c);
    c.rto_restart = RtoRestart::Rfc7765 { rrthresh: RRTHRESH };
}

/// Tail loss probe (draft-01, Linux 3.17) on the tail-loss paper baseline.
fn tlp(c: &mut SenderConfig) {
    linux_er(c);
    c.tlp = TailLossProbe::Draft01 { restart: false };
}

/// TLP with the probe timer restarted as PTO - T_last (tail-loss Sec. 2.3).
fn tlpr(c: &mut SenderConfig) {
    linux_er(c);
    c.tlp = TailLossProbe::Draft01 { restart: true };
}

/// RACK-TLP (RFC 8985) with PRR (RFC 6937) and DSACK undo, on the Linux
/// base (window 10, Linux RTO, RTT per ACK); no early retransmit and no
/// duplicate-ACK threshold (RACK replaces both).
fn rack_tlp(c: &mut SenderConfig) {
    linux_er(c);
    c.early_retransmit = EarlyRetransmit::Off;
    c.detection = LossDetection::Rack {
        adaptive_reordering: false,
    };
    c.recovery = Recovery::Prr;
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
fn linux(c: &mut SenderConfig) {
    rack_tlp(c);
    c.undo_by_timestamps = true;
    c.detection = LossDetection::Rack {
        adaptive_reordering: true,
    };
    c.rto_recovery = RtoRecovery::Frto;
    c.hystart = Some(HyStartFlavour::Linux);
}

/// A current Linux kernel set as close to classic SACK recovery as its
/// switches go (`reorderlab emulate`'s `Linux-classic`: `tcp_recovery = 0`,
/// `tcp_early_retrans = 0`, `tcp_frto = 0`, `tcp_dsack = 0` and
/// `tcp_timestamps = 0` on both sides, `tcp_reordering = tcp_max_reordering
/// = 3`), as that kernel behaves: no TLP or early retransmit, conventional
/// timeout recovery, no undo (no DSACK, no timestamps to undo by), DupThresh
/// fixed at 3; and what no switch turns off: RACK loss detection (RFC 8985
/// Sec. 6.2; measured on 6.18: with `tcp_recovery = 0` and 10 % of packets
/// held a constant 10 ms, 551 reorderings of 3 or more packets gave 7 fast
/// retransmits, the same as with `tcp_recovery = 1`; at 40 ms 59 fast
/// retransmits for 25 such reorderings), whose reordering window stays
/// min_RTT / 4 without DSACK, PRR (RFC 6937), HyStart with CUBIC, and the
/// Linux base (IW 10, RTO = SRTT + max(4 mdev, 200 ms), an RTT sample per
/// ACK).
fn linux_classic(c: &mut SenderConfig) {
    rack_tlp(c);
    c.tlp = TailLossProbe::Off;
    c.dsack = DsackResponse::Ignore;
    // tcp_max_reordering = 3: tp->reordering cannot grow.
    c.dupthresh = DupthreshPolicy::Fixed(3);
    // CUBIC's HyStart has no sysctl (it acts only with cc = "cubic").
    c.hystart = Some(HyStartFlavour::Linux);
}

pub const VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "Reno",
        description: "Fast retransmit on 3 dupacks, fast recovery with window inflation, any new ACK ends it",
        source: "RFC 5681 Sec. 3.2",
        configure: reno,
    },
    VariantInfo {
        name: "NewReno",
        description: "Reno with partial-ACK handling: one hole retransmitted per RTT until recover is ACKed",
        source: "RFC 6582",
        configure: newreno,
    },
    VariantInfo {
        name: "SACK",
        description: "SACK-based conservative loss recovery (pipe, IsLost, NextSeg) with limited transmit",
        source: "RFC 6675, RFC 3042",
        configure: sack,
    },
    VariantInfo {
        name: "DSACK-NM",
        description: "SACK that detects spurious retransmissions with DSACK but does not react",
        source: "tcp-pr Sec. VI; RFC 2883, RFC 3708",
        configure: dsack_nm,
    },
    VariantInfo {
        name: "DSACK-R",
        description: "SACK + undo of the window reduction after a false fast retransmit or timeout found by DSACK",
        source: "rr-tcp Sec. 2.1, Table 1",
        configure: dsack_r,
    },
    VariantInfo {
        name: "DSACK-FA",
        description: "DSACK-R + dupthresh from a fixed percentile (FA ratio, default 90 %) of the reordering histogram",
        source: "rr-tcp Sec. 4.1-4.2",
        configure: dsack_fa,
    },
    VariantInfo {
        name: "DSACK-FAES",
        description: "DSACK-FA + DSACK-enhanced RTT sampling",
        source: "rr-tcp Sec. 4.4",
        configure: dsack_faes,
    },
    VariantInfo {
        name: "DSACK-TA",
        description: "DSACK-FA with the FA ratio adapted by timeout / false-FR / limited-transmit costs",
        source: "rr-tcp Sec. 4.3",
        configure: dsack_ta,
    },
    VariantInfo {
        name: "DSACK-TAES",
        description: "DSACK-TA + DSACK-enhanced RTT sampling",
        source: "rr-tcp Sec. 4.3-4.4",
        configure: dsack_taes,
    },
    VariantInfo {
        name: "DSACK-HG",
        description: "DSACK-TA + RTO from the 99.8th percentile of an RTT histogram",
        source: "rr-tcp Sec. 5.3, Table 2",
        configure: dsack_hg,
    },
    VariantInfo {
        name: "DSACK-FA-RTX",
        description: "DSACK-FA pairing ACKs with transmissions by an RTX bit instead of the mean",
        source: "rr-tcp Sec. 4.1.1, 5.1.1",
        configure: dsack_fa_rtx,
    },
    VariantInfo {
        name: "DSACK-TA-RTX",
        description: "DSACK-TA pairing ACKs with transmissions by an RTX bit instead of the mean",
        source: "rr-tcp Sec. 4.1.1, 5.1.1",
        configure: dsack_ta_rtx,
    },
    VariantInfo {
        name: "DSACK-BL-R",
        description: "Blanton-Allman: undo after a false fast retransmit, dupthresh stays 3",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        configure: bl_r,
    },
    VariantInfo {
        name: "DSACK-BL-INC",
        description: "Blanton-Allman: dupthresh + 1 per false fast retransmit (the tcp-pr paper: Inc by 1)",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        configure: bl_inc,
    },
    VariantInfo {
        name: "DSACK-BL-INCN",
        description: "dupthresh raised so that the false fast retransmit just seen would not have happened (the tcp-pr paper: Inc by N)",
        source: "tcp-pr Sec. VI; Blanton & Allman 2002",
        configure: bl_incn,
    },
    VariantInfo {
        name: "DSACK-BL-AVG",
        description: "Blanton-Allman: dupthresh averaged with the dupacks of each false fast retransmit",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        configure: bl_avg,
    },
    VariantInfo {
        name: "DSACK-BL-EWMA",
        description: "Blanton-Allman: dupthresh an EWMA (gain 1/4, assumed) of the dupacks of false fast retransmits",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        configure: bl_ewma,
    },
    VariantInfo {
        name: "DSACK-BL-TIMEDEL",
        description: "Blanton-Allman: fast retransmit delayed by the measured first-dupack-to-ACK time (<= srtt/2)",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        configure: bl_timedel,
    },
    VariantInfo {
        name: "DSACK-BL-TIMEINC",
        description: "Blanton-Allman: fast retransmit delayed by a timer grown 10 ms per false one (<= srtt/2)",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        configure: bl_timeinc,
    },
    VariantInfo {
        name: "TCP-PR",
        description: "Timer-only loss detection (mxrtt = beta srtt), burst-aware halving, extreme-loss timeouts",
        source: "tcp-pr Sec. III, Tables I and III",
        configure: tcp_pr,
    },
    VariantInfo {
        name: "TCP-PR-basic",
        description: "TCP-PR without the extreme-loss rules (Table I only)",
        source: "tcp-pr Sec. III-A, Table I",
        configure: tcp_pr_basic,
    },
    VariantInfo {
        name: "TCP-DCR",
        description: "Delayed congestion response: fast retransmit one RTT after the first dupack",
        source: "Bhandarkar et al. 2004; tcp-pr Sec. II",
        configure: tcp_dcr,
    },
    VariantInfo {
        name: "TD-FR",
        description: "Time-delayed fast retransmit: wait max(srtt/2, first-to-third dupack time) after the first dupack",
        source: "tcp-pr Sec. II; rr-tcp Sec. 5.7",
        configure: td_fr,
    },
    VariantInfo {
        name: "TCP-NCR",
        description: "SACK + Extended Limited Transmit, careful (one new segment per two SACKed), DupThresh = max(2/3 FlightSize, 3)",
        source: "RFC 4653 Sec. 3-4",
        configure: tcp_ncr,
    },
    VariantInfo {
        name: "TCP-NCR-aggressive",
        description: "SACK + Extended Limited Transmit, aggressive (one new segment per SACKed), DupThresh = max(1/2 FlightSize, 3)",
        source: "RFC 4653 Sec. 3-4",
        configure: tcp_ncr_aggressive,
    },
    VariantInfo {
        name: "AVG-DEV",
        description: "DSACK-R + dupthresh = avg + dev of measured reordering lengths (EWMA gains 19/64), at most cwnd (0.7 RTO/SRTT - 2), at least 3; avg / 2, dev / 4 on a timeout (what the secondary sources agree on; no primary text)",
        source: "Ma & Leung, GLOBECOM 2004 (via the JCN 2005 abstract, a summary of LCN 2004 and the Linux tcp_leungma.c module; see dupthresh.rs)",
        configure: avg_dev,
    },
    VariantInfo {
        name: "AVG-DEV-K4",
        description: "AVG-DEV as assumed before its sources were checked: dupthresh = floor(avg + 4 dev) + 1 (EWMA gains 1/8, 1/4), in [3, 0.9 cwnd], no reaction to timeouts",
        source: "Ma & Leung, GLOBECOM 2004 (formula assumed, see dupthresh.rs)",
        configure: avg_dev_k4,
    },
    VariantInfo {
        name: "SACK-CWV",
        description: "SACK + limited transmit + RFC 2861 congestion window validation, RTT from every ACK (the wwan paper baseline)",
        source: "wwan Sec. II; RFC 6675, RFC 3042, RFC 2861",
        configure: sack_cwv,
    },
    VariantInfo {
        name: "TCP-Aix",
        description: "SACK; retransmit at winthresh dupacks (buffer room, <= 2 send windows), cwnd cut only if the newACK answers the retransmission; new data per dupack",
        source: "Landstrom et al. 2006 (TCP-Aix report); wwan Sec. II (only source read, see aix.rs)",
        configure: tcp_aix,
    },
    VariantInfo {
        name: "Linux-ER",
        description: "Linux 3.17 without TLP (the tail-loss paper baseline): IW 10, RTO = SRTT + max(4 mdev, 200 ms) with Linux rttvar rules, RTT per ACK, SACK + PRR + FACK + limited transmit + forward retransmission (RFC 6675 NextSeg rule 3), early retransmit (< 4 out, any SACK) after max(SRTT/4, 2 ms), DSACK undo and undo by timestamps; dupthresh = tp->reordering (3, raised to a measured reordering distance up to 300, which also turns FACK and early retransmit off)",
        source: "tail-loss Sec. 2-3.1; RFC 5827 (Appendix A.1, A.3), RFC 6675, RFC 6937, RFC 3042; Linux 3.17 tcp_input.c (tcp_rtt_estimator, tcp_update_reordering, tcp_try_undo_partial)",
        configure: linux_er,
    },
    VariantInfo {
        name: "RTOR",
        description: "Linux-ER + RTO restart: on an ACK of new data the RTO expires RTO - T_earliest after it when < 4 segments are out and no unsent data is ready",
        source: "RFC 7765 Sec. 4; tail-loss Sec. 2.1",
        configure: rtor,
    },
    VariantInfo {
        name: "TLP",
        description: "Linux-ER + tail loss probe: PTO = max(2 SRTT, 10 ms), or max(2 SRTT, 1.5 SRTT + 200 ms) with one segment out, capped at the RTO, re-armed on every ACK; probe = new segment or the last one again; one per episode; cwnd cut only if the probe repaired a loss",
        source: "draft-dukkipati-tcpm-tcp-loss-probe-01; tail-loss Sec. 2.2 (Linux 3.17)",
        configure: tlp,
    },
    VariantInfo {
        name: "TLPR",
        description: "TLP with the probe timer set to min(PTO, RTO) - T_last (time since the last outstanding segment was sent)",
        source: "tail-loss Sec. 2.2-2.3",
        configure: tlpr,
    },
    VariantInfo {
        name: "RACK-TLP",
        description: "RACK time-based loss detection (reo_wnd = min_RTT/4 x DSACK steps, <= SRTT, 16-recovery persistence, 0 in recovery without reordering; reorder timer), TLP (PTO = 2 SRTT [+200 ms with one out], <= RTO; TLP.end_seq episodes), PRR-SSRB, DSACK undo, on the Linux base",
        source: "RFC 8985 Sec. 6-7, RFC 6937 Sec. 3.1",
        configure: rack_tlp,
    },
    VariantInfo {
        name: "Linux",
        description: "A current Linux kernel's default loss recovery: RACK-TLP + PRR + DSACK undo and undo by timestamps with adaptive tp->reordering (3..300) as RACK's DupThresh, F-RTO (SACK-enhanced: new data after the timeout retransmission, undo when never-retransmitted data is acknowledged); compose with cc = \"cubic\" (Linux's default)",
        source: "RFC 8985, RFC 6937, RFC 5682 Sec. 3; Linux net/ipv4/tcp_recovery.c, tcp_input.c (behaviour, not code)",
        configure: linux,
    },
    VariantInfo {
        name: "Linux-classic",
        description: "A Linux kernel with tcp_recovery, early retransmit / TLP, F-RTO, DSACK and timestamps off and reordering fixed at 3, as it behaves: RACK (reo_wnd min_RTT/4, no DSACK growth) with DupThresh 3, PRR, no TLP, no undo, conventional RTO recovery, Linux RTO and IW 10 (the emulator's Linux-classic kernel configuration)",
        source: "RFC 8985 Sec. 6 (no TLP), RFC 6937; Linux sysctls tcp_recovery, tcp_early_retrans, tcp_frto, tcp_dsack, tcp_timestamps, tcp_(max_)reordering (measured on 6.18, see compositions.rs)",
        configure: linux_classic,
    },
];

/// Other names the papers use for registered variants.
pub const ALIASES: &[(&str, &str)] = &[
    ("SACK-NODELAY", "SACK"),
    ("DSACK-FA-MEAN", "DSACK-FA"),
    ("DSACK-TA-MEAN", "DSACK-TA"),
    ("Inc-by-1", "DSACK-BL-INC"),
    ("Inc-by-N", "DSACK-BL-INCN"),
    ("EWMA", "DSACK-BL-EWMA"),
    ("TCP-RR", "DSACK-TA"),
    ("TCP-NCR-careful", "TCP-NCR"),
];
