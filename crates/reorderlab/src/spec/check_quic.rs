//! The rules of a QUIC flow (`flows[i]` whose variant is a QUIC one,
//! [`crate::quic::variants`]): a congestion control the QUIC sender can
//! drive, a plain transfer (no SYN), no TCP sender or receiver setting it
//! would ignore, and `quic` settings only on such a flow.

use serde_json::Value;

use super::error::{Check, SpecError};
use super::flow::{FlowSpec, ReceiverSpec, TcpSpec};
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
    check_unused_tcp(p, f)
}

/// The `tcp` fields a QUIC flow reads: its packet sizes.
const QUIC_READS_TCP: &[&str] = &["mss", "ack_size"];

/// A QUIC flow refuses every other `tcp` field and every `receiver` field
/// set to other than its default: its sender and receiver would ignore
/// them (their QUIC counterparts are in `quic`, docs/quic.md).
fn check_unused_tcp(p: &str, f: &FlowSpec) -> Check {
    let (tcp, tcp_default) = (json(&f.tcp), json(&defaults::<TcpSpec>()));
    let why = "is for TCP flows; a QUIC flow reads only tcp.mss and tcp.ack_size (its other settings are in quic, docs/quic.md)";
    set_fields(&tcp, &tcp_default, QUIC_READS_TCP).map_or(Ok(()), |(k, v)| {
        Err(SpecError::new(
            format!("{p}.tcp.{k}"),
            format!("{why}, got {v}"),
        ))
    })?;
    let (rcv, rcv_default) = (json(&f.receiver), json(&defaults::<ReceiverSpec>()));
    let why = "is for TCP receivers; a QUIC receiver's ACK policy is set in quic (ack_eliciting_threshold, max_ack_delay, max_ack_ranges, dedup_window)";
    set_fields(&rcv, &rcv_default, &[]).map_or(Ok(()), |(k, v)| {
        Err(SpecError::new(
            format!("{p}.receiver.{k}"),
            format!("{why}, got {v}"),
        ))
    })
}

/// The first field of `section` (a JSON object) outside `allowed` whose
/// value differs from `default`'s, with its value.
fn set_fields(section: &Value, default: &Value, allowed: &[&str]) -> Option<(String, Value)> {
    let obj = section.as_object()?;
    obj.iter()
        .filter(|(k, _)| !allowed.contains(&k.as_str()))
        .find(|(k, v)| default.get(k.as_str()).unwrap_or(&Value::Null) != *v)
        .map(|(k, v)| (k.clone(), v.clone()))
}

fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("a flow section serialises")
}

/// A section as a scenario that leaves it empty gets it (serde's defaults).
fn defaults<T: serde::de::DeserializeOwned>() -> T {
    serde_json::from_str("{}").expect("every field has a default")
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
