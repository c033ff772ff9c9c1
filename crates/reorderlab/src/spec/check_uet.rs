//! The rules of a UET flow (`flows[i]` or a workload whose variant is a
//! UET one, [`crate::uet::config`]).

use super::error::{Check, SpecError};
use super::flow::FlowSpec;

/// Whether `f` is a UET flow (`crate::uet`).
pub fn is_uet(f: &FlowSpec) -> bool {
    crate::uet::config::find(&f.variant).is_some()
}

/// A UET flow's fields (`p` its path): the sender has its own window, so
/// `cc` stays the default; no SYN; no `quic` settings.
pub fn check_uet_flow(p: &str, variant: &str, cc: &str, syn: bool) -> Check {
    if !cc.eq_ignore_ascii_case("reno") {
        return Err(SpecError::new(
            format!("{p}.cc"),
            format!(
                "the {variant} sender has its own window (uet-htsim's DCTCP rule): leave cc unset, got '{cc}'"
            ),
        ));
    }
    if syn {
        return Err(SpecError::new(
            format!("{p}.tcp.syn"),
            format!("is for TCP flows; a {variant} flow starts sending at its start"),
        ));
    }
    Ok(())
}
