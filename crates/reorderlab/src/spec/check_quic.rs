//! The rules of a QUIC flow (`flows[i]` whose variant is a QUIC one,
//! [`crate::quic::variants`]): a congestion control the QUIC sender can
//! drive, a plain transfer (no SYN), and `quic` settings only on such a
//! flow.

use super::error::{Check, SpecError};
use super::flow::FlowSpec;
use crate::quic::variants;
use crate::tcp::cc::CongestionControl;

/// Whether `f` is a QUIC flow.
pub fn is_quic(f: &FlowSpec) -> bool {
    variants::find(&f.variant).is_some()
}

/// A QUIC flow's fields; `p` is its path.
pub fn check_quic_flow(p: &str, f: &FlowSpec) -> Check {
    let Some(cc) = CongestionControl::by_name(&f.cc) else {
        let known: Vec<&str> = crate::tcp::cc::CONTROLLERS.iter().map(|c| c.name).collect();
        return Err(SpecError::new(
            format!("{p}.cc"),
            format!(
                "unknown congestion control '{}' (known: {})",
                f.cc,
                known.join(", ")
            ),
        ));
    };
    if !crate::quic::congestion::drives(&cc) {
        return Err(SpecError::new(
            format!("{p}.cc"),
            format!(
                "the QUIC sender drives reno, highspeed, scalable, bic, cubic and bbr, got '{}'",
                f.cc
            ),
        ));
    }
    if f.tcp.syn {
        return Err(SpecError::new(
            format!("{p}.tcp.syn"),
            "is for TCP flows; a QUIC flow starts sending at its start",
        ));
    }
    Ok(())
}

/// A flow with `quic` settings must have a QUIC variant.
pub fn check_quic_settings_need_quic(p: &str, f: &FlowSpec) -> Check {
    if f.quic.is_some() && !is_quic(f) {
        return Err(SpecError::new(
            format!("{p}.quic"),
            format!(
                "is only for a QUIC variant ({}), got variant '{}'",
                variants::names().join(", "),
                f.variant
            ),
        ));
    }
    Ok(())
}
