//! The registry of sender variants: each name with its description, its
//! sources, the congestion control its own paper ran it with, and the
//! composition that configures it ([`super::compositions`]); the other
//! names the papers use ([`ALIASES`]); and the one function that makes a
//! name canonical ([`canonical_name`]).

use crate::tcp::config::SenderConfig;

use super::compositions::*;

/// One registered variant.
pub struct VariantInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
    /// The congestion control the variant's own paper ran it with (a
    /// [`crate::tcp::cc::CONTROLLERS`] name): what `reorderlab compare`
    /// pairs the variant with unless told otherwise (`--cc`).
    pub paper_cc: &'static str,
    /// Where that pairing comes from.
    pub paper_cc_source: &'static str,
    /// Adjust the base configuration ([`base_config`]) to this variant.
    pub configure: fn(&mut SenderConfig),
}

impl VariantInfo {
    /// The variant's configuration, without a scenario's overrides
    /// ([`super::resolve`] applies those).
    pub fn config(&self) -> SenderConfig {
        let mut c = base_config();
        (self.configure)(&mut c);
        c.variant = self.name.to_string();
        c
    }
}

/// The registry's spelling of a variant name or alias (case-insensitive):
/// the one place a name is made canonical (the scenario's cache key holds
/// it, `reorderlab.scenario` and `reorderlab.league` ask for it through
/// `_core.canonical_variant`). `None` for an unknown name.
pub fn canonical_name(name: &str) -> Option<&'static str> {
    let name = ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
        .map_or(name, |(_, target)| target);
    VARIANTS
        .iter()
        .find(|v| v.name.eq_ignore_ascii_case(name))
        .map(|v| v.name)
}

/// Look a variant up by name or alias (case-insensitive).
pub fn find(name: &str) -> Option<&'static VariantInfo> {
    let name = canonical_name(name)?;
    VARIANTS.iter().find(|v| v.name == name)
}

/// The names of all variants, for error messages.
pub fn names() -> Vec<&'static str> {
    VARIANTS.iter().map(|v| v.name).collect()
}

pub const VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "Reno",
        description: "Fast retransmit on 3 dupacks, fast recovery with window inflation, any new ACK ends it",
        source: "RFC 5681 Sec. 3.2",
        paper_cc: "reno",
        paper_cc_source: "RFC 5681 Sec. 3",
        configure: reno,
    },
    VariantInfo {
        name: "NewReno",
        description: "Reno with partial-ACK handling: one hole retransmitted per RTT until recover is ACKed",
        source: "RFC 6582",
        paper_cc: "reno",
        paper_cc_source: "RFC 6582 runs on RFC 5681 congestion control",
        configure: newreno,
    },
    VariantInfo {
        name: "SACK",
        description: "SACK-based conservative loss recovery (pipe, IsLost, NextSeg) with limited transmit",
        source: "RFC 6675, RFC 3042",
        paper_cc: "reno",
        paper_cc_source: "RFC 6675 runs on RFC 5681 congestion control",
        configure: sack,
    },
    VariantInfo {
        name: "DSACK-NM",
        description: "SACK that detects spurious retransmissions with DSACK but does not react",
        source: "tcp-pr Sec. VI; RFC 2883, RFC 3708",
        paper_cc: "reno",
        paper_cc_source: "the tcp-pr paper: ns-2 SACK, Reno congestion control",
        configure: dsack_nm,
    },
    VariantInfo {
        name: "DSACK-R",
        description: "SACK + undo of the window reduction after a false fast retransmit or timeout found by DSACK",
        source: "rr-tcp Sec. 2.1, Table 1",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper: ns-2 SACK, Reno congestion control",
        configure: dsack_r,
    },
    VariantInfo {
        name: "DSACK-FA",
        description: "DSACK-R + dupthresh from a fixed percentile (FA ratio, default 90 %) of the reordering histogram",
        source: "rr-tcp Sec. 4.1-4.2",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper",
        configure: dsack_fa,
    },
    VariantInfo {
        name: "DSACK-FAES",
        description: "DSACK-FA + DSACK-enhanced RTT sampling",
        source: "rr-tcp Sec. 4.4",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper",
        configure: dsack_faes,
    },
    VariantInfo {
        name: "DSACK-TA",
        description: "DSACK-FA with the FA ratio adapted by timeout / false-FR / limited-transmit costs",
        source: "rr-tcp Sec. 4.3",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper",
        configure: dsack_ta,
    },
    VariantInfo {
        name: "DSACK-TAES",
        description: "DSACK-TA + DSACK-enhanced RTT sampling",
        source: "rr-tcp Sec. 4.3-4.4",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper",
        configure: dsack_taes,
    },
    VariantInfo {
        name: "DSACK-HG",
        description: "DSACK-TA + RTO from the 99.8th percentile of an RTT histogram",
        source: "rr-tcp Sec. 5.3, Table 2",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper",
        configure: dsack_hg,
    },
    VariantInfo {
        name: "DSACK-FA-RTX",
        description: "DSACK-FA pairing ACKs with transmissions by an RTX bit instead of the mean",
        source: "rr-tcp Sec. 4.1.1, 5.1.1",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper",
        configure: dsack_fa_rtx,
    },
    VariantInfo {
        name: "DSACK-TA-RTX",
        description: "DSACK-TA pairing ACKs with transmissions by an RTX bit instead of the mean",
        source: "rr-tcp Sec. 4.1.1, 5.1.1",
        paper_cc: "reno",
        paper_cc_source: "the rr-tcp paper",
        configure: dsack_ta_rtx,
    },
    VariantInfo {
        name: "DSACK-BL-R",
        description: "Blanton-Allman: undo after a false fast retransmit, dupthresh stays 3",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        paper_cc: "reno",
        paper_cc_source: "rr-tcp Sec. 3 (Blanton & Allman on ns-2 SACK)",
        configure: bl_r,
    },
    VariantInfo {
        name: "DSACK-BL-INC",
        description: "Blanton-Allman: dupthresh + 1 per false fast retransmit (the tcp-pr paper: Inc by 1)",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        paper_cc: "reno",
        paper_cc_source: "rr-tcp Sec. 3",
        configure: bl_inc,
    },
    VariantInfo {
        name: "DSACK-BL-INCN",
        description: "dupthresh raised so that the false fast retransmit just seen would not have happened (the tcp-pr paper: Inc by N)",
        source: "tcp-pr Sec. VI; Blanton & Allman 2002",
        paper_cc: "reno",
        paper_cc_source: "tcp-pr Sec. VI",
        configure: bl_incn,
    },
    VariantInfo {
        name: "DSACK-BL-AVG",
        description: "Blanton-Allman: dupthresh averaged with the dupacks of each false fast retransmit",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        paper_cc: "reno",
        paper_cc_source: "rr-tcp Sec. 3",
        configure: bl_avg,
    },
    VariantInfo {
        name: "DSACK-BL-EWMA",
        description: "Blanton-Allman: dupthresh an EWMA (gain 1/4, assumed) of the dupacks of false fast retransmits",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        paper_cc: "reno",
        paper_cc_source: "rr-tcp Sec. 3",
        configure: bl_ewma,
    },
    VariantInfo {
        name: "DSACK-BL-TIMEDEL",
        description: "Blanton-Allman: fast retransmit delayed by the measured first-dupack-to-ACK time (<= srtt/2)",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        paper_cc: "reno",
        paper_cc_source: "rr-tcp Sec. 3",
        configure: bl_timedel,
    },
    VariantInfo {
        name: "DSACK-BL-TIMEINC",
        description: "Blanton-Allman: fast retransmit delayed by a timer grown 10 ms per false one (<= srtt/2)",
        source: "rr-tcp Sec. 3; Blanton & Allman 2002",
        paper_cc: "reno",
        paper_cc_source: "rr-tcp Sec. 3",
        configure: bl_timeinc,
    },
    VariantInfo {
        name: "TCP-PR",
        description: "Timer-only loss detection (mxrtt = beta srtt), burst-aware halving, extreme-loss timeouts",
        source: "tcp-pr Sec. III, Tables I and III",
        paper_cc: "reno",
        paper_cc_source: "tcp-pr Sec. III: AIMD with halving per loss",
        configure: tcp_pr,
    },
    VariantInfo {
        name: "TCP-PR-basic",
        description: "TCP-PR without the extreme-loss rules (Table I only)",
        source: "tcp-pr Sec. III-A, Table I",
        paper_cc: "reno",
        paper_cc_source: "tcp-pr Sec. III-A",
        configure: tcp_pr_basic,
    },
    VariantInfo {
        name: "TCP-DCR",
        description: "Delayed congestion response: fast retransmit one RTT after the first dupack",
        source: "Bhandarkar et al. 2004; tcp-pr Sec. II",
        paper_cc: "reno",
        paper_cc_source: "tcp-pr Sec. II",
        configure: tcp_dcr,
    },
    VariantInfo {
        name: "TD-FR",
        description: "Time-delayed fast retransmit: wait max(srtt/2, first-to-third dupack time) after the first dupack",
        source: "tcp-pr Sec. II; rr-tcp Sec. 5.7",
        paper_cc: "reno",
        paper_cc_source: "tcp-pr Sec. II",
        configure: td_fr,
    },
    VariantInfo {
        name: "TCP-NCR",
        description: "SACK + Extended Limited Transmit, careful (one new segment per two SACKed), DupThresh = max(2/3 FlightSize, 3)",
        source: "RFC 4653 Sec. 3-4",
        paper_cc: "reno",
        paper_cc_source: "RFC 4653 runs on RFC 5681 congestion control",
        configure: tcp_ncr,
    },
    VariantInfo {
        name: "TCP-NCR-aggressive",
        description: "SACK + Extended Limited Transmit, aggressive (one new segment per SACKed), DupThresh = max(1/2 FlightSize, 3)",
        source: "RFC 4653 Sec. 3-4",
        paper_cc: "reno",
        paper_cc_source: "RFC 4653",
        configure: tcp_ncr_aggressive,
    },
    VariantInfo {
        name: "AVG-DEV",
        description: "DSACK-R + dupthresh = avg + dev of measured reordering lengths (EWMA gains 19/64), at most cwnd (0.7 RTO/SRTT - 2), at least 3; avg / 2, dev / 4 on a timeout (what the secondary sources agree on; no primary text)",
        source: "Ma & Leung, GLOBECOM 2004 (via the JCN 2005 abstract, a summary of LCN 2004 and the Linux tcp_leungma.c module; see dupthresh.rs)",
        paper_cc: "reno",
        paper_cc_source: "assumed: Ma & Leung's text is not available (the high-speed paper ran it with BIC)",
        configure: avg_dev,
    },
    VariantInfo {
        name: "AVG-DEV-K4",
        description: "AVG-DEV as assumed before its sources were checked: dupthresh = floor(avg + 4 dev) + 1 (EWMA gains 1/8, 1/4), in [3, 0.9 cwnd], no reaction to timeouts",
        source: "Ma & Leung, GLOBECOM 2004 (formula assumed, see dupthresh.rs)",
        paper_cc: "reno",
        paper_cc_source: "as AVG-DEV",
        configure: avg_dev_k4,
    },
    VariantInfo {
        name: "SACK-CWV",
        description: "SACK + limited transmit + RFC 2861 congestion window validation, RTT from every ACK (the wwan paper baseline)",
        source: "wwan Sec. II; RFC 6675, RFC 3042, RFC 2861",
        paper_cc: "reno",
        paper_cc_source: "wwan Sec. II: standards-compliant TCP",
        configure: sack_cwv,
    },
    VariantInfo {
        name: "TCP-Aix",
        description: "SACK; retransmit at winthresh dupacks (buffer room, <= 2 send windows), cwnd cut only if the newACK answers the retransmission; new data per dupack",
        source: "Landstrom et al. 2006 (TCP-Aix report); wwan Sec. II (only source read, see aix.rs)",
        paper_cc: "reno",
        paper_cc_source: "wwan Sec. II",
        configure: tcp_aix,
    },
    VariantInfo {
        name: "Linux-ER",
        description: "Linux 3.17 without TLP (the tail-loss paper baseline): IW 10, RTO = SRTT + max(4 mdev, 200 ms) with Linux rttvar rules, RTT per ACK, SACK + PRR + FACK + limited transmit + forward retransmission (RFC 6675 NextSeg rule 3), early retransmit (< 4 out, any SACK) after max(SRTT/4, 2 ms), DSACK undo and undo by timestamps; dupthresh = tp->reordering (3, raised to a measured reordering distance up to 300, which also turns FACK and early retransmit off)",
        source: "tail-loss Sec. 2-3.1; RFC 5827 (Appendix A.1, A.3), RFC 6675, RFC 6937, RFC 3042; Linux 3.17 tcp_input.c (tcp_rtt_estimator, tcp_update_reordering, tcp_try_undo_partial)",
        paper_cc: "cubic",
        paper_cc_source: "the tail-loss paper: Linux 3.17, whose default is CUBIC (the paper does not name it)",
        configure: linux_er,
    },
    VariantInfo {
        name: "RTOR",
        description: "Linux-ER + RTO restart: on an ACK of new data the RTO expires RTO - T_earliest after it when < 4 segments are out and no unsent data is ready",
        source: "RFC 7765 Sec. 4; tail-loss Sec. 2.1",
        paper_cc: "cubic",
        paper_cc_source: "the tail-loss paper: Linux 3.17",
        configure: rtor,
    },
    VariantInfo {
        name: "TLP",
        description: "Linux-ER + tail loss probe: PTO = max(2 SRTT, 10 ms), or max(2 SRTT, 1.5 SRTT + 200 ms) with one segment out, capped at the RTO, re-armed on every ACK; probe = new segment or the last one again; one per episode; cwnd cut only if the probe repaired a loss",
        source: "draft-dukkipati-tcpm-tcp-loss-probe-01; tail-loss Sec. 2.2 (Linux 3.17)",
        paper_cc: "cubic",
        paper_cc_source: "the tail-loss paper: Linux 3.17",
        configure: tlp,
    },
    VariantInfo {
        name: "TLPR",
        description: "TLP with the probe timer set to min(PTO, RTO) - T_last (time since the last outstanding segment was sent)",
        source: "tail-loss Sec. 2.2-2.3",
        paper_cc: "cubic",
        paper_cc_source: "the tail-loss paper: Linux 3.17",
        configure: tlpr,
    },
    VariantInfo {
        name: "RACK-TLP",
        description: "RACK time-based loss detection (reo_wnd = min_RTT/4 x DSACK steps, <= SRTT, 16-recovery persistence, 0 in recovery without reordering; reorder timer), TLP (PTO = 2 SRTT [+200 ms with one out], <= RTO; TLP.end_seq episodes), PRR-SSRB, DSACK undo, on the Linux base",
        source: "RFC 8985 Sec. 6-7, RFC 6937 Sec. 3.1",
        paper_cc: "cubic",
        paper_cc_source: "RFC 8985 names no congestion control; Linux, where it was built, runs CUBIC",
        configure: rack_tlp,
    },
    VariantInfo {
        name: "Linux",
        description: "A current Linux kernel's default loss recovery: RACK-TLP + PRR + DSACK undo and undo by timestamps with adaptive tp->reordering (3..300) as RACK's DupThresh, F-RTO (SACK-enhanced: new data after the timeout retransmission, undo when never-retransmitted data is acknowledged); compose with cc = \"cubic\" (Linux's default)",
        source: "RFC 8985, RFC 6937, RFC 5682 Sec. 3; Linux net/ipv4/tcp_recovery.c, tcp_input.c (behaviour, not code)",
        paper_cc: "cubic",
        paper_cc_source: "Linux's default congestion control",
        configure: linux,
    },
    VariantInfo {
        name: "Linux-classic",
        description: "A Linux kernel with tcp_recovery, early retransmit / TLP, F-RTO, DSACK and timestamps off and reordering fixed at 3, as it behaves: RACK (reo_wnd min_RTT/4, growing only on the DSACKs a peer sends) with DupThresh 3, PRR, no TLP, undo only by a peer's DSACKs (it sends none), conventional RTO recovery, Linux RTO and IW 10 (the emulator's Linux-classic kernel configuration)",
        source: "RFC 8985 Sec. 6 (no TLP), RFC 6937; Linux sysctls tcp_recovery, tcp_early_retrans, tcp_frto, tcp_dsack, tcp_timestamps, tcp_(max_)reordering (measured on 6.18, see compositions.rs)",
        paper_cc: "reno",
        paper_cc_source: "the emulator's Linux-classic kernel (docs/emulation.md): classic TCP's control",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CongestionControl;

    #[test]
    fn every_variant_names_a_known_paper_congestion_control() {
        for v in VARIANTS {
            assert!(
                CongestionControl::by_name(v.paper_cc).is_some(),
                "{}: {}",
                v.name,
                v.paper_cc
            );
            assert!(!v.paper_cc_source.is_empty(), "{}", v.name);
        }
    }

    #[test]
    fn names_and_aliases_are_canonical_whatever_their_case() {
        assert_eq!(canonical_name("sack"), Some("SACK"));
        assert_eq!(canonical_name("Dsack-Fa"), Some("DSACK-FA"));
        assert_eq!(canonical_name("inc-by-1"), Some("DSACK-BL-INC"));
        assert_eq!(canonical_name("tcp-rr"), Some("DSACK-TA"));
        assert_eq!(canonical_name("no-such-variant"), None);
        for v in VARIANTS {
            assert_eq!(canonical_name(&v.name.to_lowercase()), Some(v.name));
            assert_eq!(find(&v.name.to_uppercase()).map(|f| f.name), Some(v.name));
        }
        // Every alias names a registered variant and is no variant's name,
        // so the order of the two look-ups cannot matter.
        for (alias, target) in ALIASES {
            assert!(VARIANTS.iter().any(|v| v.name == *target), "{alias}");
            assert!(
                !VARIANTS.iter().any(|v| v.name.eq_ignore_ascii_case(alias)),
                "{alias}"
            );
        }
        let mut seen = names();
        seen.sort_unstable_by_key(|n| n.to_lowercase());
        seen.dedup_by_key(|n| n.to_lowercase());
        assert_eq!(seen.len(), VARIANTS.len(), "two variants share a name");
    }
}
