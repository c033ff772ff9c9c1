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
        "seed 001: ns-2 SACK, Reno congestion control",
    ),
    (
        "DSACK-R",
        "reno",
        "seed 000: ns-2 SACK, Reno congestion control",
    ),
    ("DSACK-FA", "reno", "seed 000"),
    ("DSACK-FAES", "reno", "seed 000"),
    ("DSACK-TA", "reno", "seed 000"),
    ("DSACK-TAES", "reno", "seed 000"),
    ("DSACK-HG", "reno", "seed 000"),
    ("DSACK-FA-RTX", "reno", "seed 000"),
    ("DSACK-TA-RTX", "reno", "seed 000"),
    (
        "DSACK-BL-R",
        "reno",
        "seed 000 Sec. 3 (Blanton & Allman on ns-2 SACK)",
    ),
    ("DSACK-BL-INC", "reno", "seed 000 Sec. 3"),
    ("DSACK-BL-INCN", "reno", "seed 001 Sec. VI"),
    ("DSACK-BL-AVG", "reno", "seed 000 Sec. 3"),
    ("DSACK-BL-EWMA", "reno", "seed 000 Sec. 3"),
    ("DSACK-BL-TIMEDEL", "reno", "seed 000 Sec. 3"),
    ("DSACK-BL-TIMEINC", "reno", "seed 000 Sec. 3"),
    (
        "TCP-PR",
        "reno",
        "seed 001 Sec. III: AIMD with halving per loss",
    ),
    ("TCP-PR-basic", "reno", "seed 001 Sec. III-A"),
    ("TCP-DCR", "reno", "seed 001 Sec. II"),
    ("TD-FR", "reno", "seed 001 Sec. II"),
    (
        "TCP-NCR",
        "reno",
        "RFC 4653 runs on RFC 5681 congestion control",
    ),
    ("TCP-NCR-aggressive", "reno", "RFC 4653"),
    (
        "AVG-DEV",
        "reno",
        "assumed: Ma & Leung's text is not available (seed 003 ran it with BIC)",
    ),
    ("AVG-DEV-K4", "reno", "as AVG-DEV"),
    (
        "SACK-CWV",
        "reno",
        "seed 004 Sec. II: standards-compliant TCP",
    ),
    ("TCP-Aix", "reno", "seed 004 Sec. II"),
    (
        "Linux-ER",
        "cubic",
        "seed 002: Linux 3.17, whose default is CUBIC (the paper does not name it)",
    ),
    ("RTOR", "cubic", "seed 002: Linux 3.17"),
    ("TLP", "cubic", "seed 002: Linux 3.17"),
    ("TLPR", "cubic", "seed 002: Linux 3.17"),
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
