//! The congestion control each registered sender variant's own paper ran
//! it with: what `reorderlab compare` pairs a variant with unless told
//! otherwise (`--cc`). One table beside the variant registry
//! ([`crate::tcp::variants::VARIANTS`], which cannot hold it yet while the
//! sender is being rewritten); a test checks that every registered variant
//! has exactly one entry.

/// (variant, congestion control, where that pairing comes from).
pub const PAPER_CC: &[(&str, &str, &str)] = &[
    ("Reno", "reno", "RFC 5681 Sec. 3"),
    (
        "NewReno",
        "reno",
        "RFC 6582 runs on RFC 5681 congestion control",
    ),
    (
        "SACK",
        "reno",
        "RFC 6675 runs on RFC 5681 congestion control",
    ),
    (
        "DSACK-NM",
        "reno",
        "the tcp-pr paper: ns-2 SACK, Reno congestion control",
    ),
    (
        "DSACK-R",
        "reno",
        "the rr-tcp paper: ns-2 SACK, Reno congestion control",
    ),
    ("DSACK-FA", "reno", "the rr-tcp paper"),
    ("DSACK-FAES", "reno", "the rr-tcp paper"),
    ("DSACK-TA", "reno", "the rr-tcp paper"),
    ("DSACK-TAES", "reno", "the rr-tcp paper"),
    ("DSACK-HG", "reno", "the rr-tcp paper"),
    ("DSACK-FA-RTX", "reno", "the rr-tcp paper"),
    ("DSACK-TA-RTX", "reno", "the rr-tcp paper"),
    (
        "DSACK-BL-R",
        "reno",
        "rr-tcp Sec. 3 (Blanton & Allman on ns-2 SACK)",
    ),
    ("DSACK-BL-INC", "reno", "rr-tcp Sec. 3"),
    ("DSACK-BL-INCN", "reno", "tcp-pr Sec. VI"),
    ("DSACK-BL-AVG", "reno", "rr-tcp Sec. 3"),
    ("DSACK-BL-EWMA", "reno", "rr-tcp Sec. 3"),
    ("DSACK-BL-TIMEDEL", "reno", "rr-tcp Sec. 3"),
    ("DSACK-BL-TIMEINC", "reno", "rr-tcp Sec. 3"),
    (
        "TCP-PR",
        "reno",
        "tcp-pr Sec. III: AIMD with halving per loss",
    ),
    ("TCP-PR-basic", "reno", "tcp-pr Sec. III-A"),
    ("TCP-DCR", "reno", "tcp-pr Sec. II"),
    ("TD-FR", "reno", "tcp-pr Sec. II"),
    (
        "TCP-NCR",
        "reno",
        "RFC 4653 runs on RFC 5681 congestion control",
    ),
    ("TCP-NCR-aggressive", "reno", "RFC 4653"),
    (
        "AVG-DEV",
        "reno",
        "assumed: Ma & Leung's text is not available (the high-speed paper ran it with BIC)",
    ),
    ("AVG-DEV-K4", "reno", "as AVG-DEV"),
    ("SACK-CWV", "reno", "wwan Sec. II: standards-compliant TCP"),
    ("TCP-Aix", "reno", "wwan Sec. II"),
    (
        "Linux-ER",
        "cubic",
        "the tail-loss paper: Linux 3.17, whose default is CUBIC (the paper does not name it)",
    ),
    ("RTOR", "cubic", "the tail-loss paper: Linux 3.17"),
    ("TLP", "cubic", "the tail-loss paper: Linux 3.17"),
    ("TLPR", "cubic", "the tail-loss paper: Linux 3.17"),
    (
        "RACK-TLP",
        "cubic",
        "RFC 8985 names no congestion control; Linux, where it was built, runs CUBIC",
    ),
    ("Linux", "cubic", "Linux's default congestion control"),
    (
        "Linux-classic",
        "reno",
        "the emulator's Linux-classic kernel (docs/emulation.md): classic TCP's control",
    ),
];

/// The congestion control `variant`'s paper used (registry spelling).
pub fn paper_cc(variant: &str) -> Option<&'static str> {
    PAPER_CC
        .iter()
        .find(|(v, _, _)| v.eq_ignore_ascii_case(variant))
        .map(|(_, cc, _)| *cc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CongestionControl;
    use crate::tcp::variants::VARIANTS;

    #[test]
    fn every_variant_has_one_known_congestion_control() {
        for v in VARIANTS {
            let entries = PAPER_CC.iter().filter(|(n, _, _)| *n == v.name).count();
            assert_eq!(entries, 1, "{}", v.name);
            let cc = paper_cc(v.name).unwrap();
            assert!(CongestionControl::by_name(cc).is_some(), "{cc}");
        }
        assert_eq!(PAPER_CC.len(), VARIANTS.len(), "an entry for no variant");
    }
}
