//! The registry of named sender variants: each name maps to a composition of
//! policies plus parameters. Adding a variant = one policy file and one entry
//! in [`VARIANTS`].

use crate::engine::time::{ms, secs};
use crate::spec::TcpSpec;
use crate::tcp::policy::{LimitedTransmit, LossDetection, Recovery};
use crate::tcp::rto::RtoConfig;
use crate::tcp::sender::SenderConfig;

/// One registered variant.
pub struct VariantInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
    /// Adjust the base configuration to this variant.
    pub configure: fn(&mut SenderConfig),
}

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

pub const VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "Reno",
        description:
            "Fast retransmit on 3 dupacks, fast recovery with window inflation, any new ACK ends it",
        source: "RFC 5681 Sec. 3.2",
        configure: reno,
    },
    VariantInfo {
        name: "NewReno",
        description:
            "Reno with partial-ACK handling: one hole retransmitted per RTT until recover is ACKed",
        source: "RFC 6582",
        configure: newreno,
    },
    VariantInfo {
        name: "SACK",
        description:
            "SACK-based conservative loss recovery (pipe, IsLost, NextSeg) with limited transmit",
        source: "RFC 6675, RFC 3042",
        configure: sack,
    },
];

/// Defaults shared by every variant (the RFC 2988/6298-era sender of seeds
/// 000, 001 and 003).
pub fn base_config() -> SenderConfig {
    SenderConfig {
        variant: String::new(),
        detection: LossDetection::DupThresh,
        recovery: Recovery::Sack,
        limited_transmit: LimitedTransmit::Rfc3042,
        use_sack: true,
        dupthresh: 3,
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
        segments: None,
    }
}

/// Look a variant up by name (case-insensitive).
pub fn find(name: &str) -> Option<&'static VariantInfo> {
    VARIANTS.iter().find(|v| v.name.eq_ignore_ascii_case(name))
}

/// The names of all variants, for error messages.
pub fn names() -> Vec<&'static str> {
    VARIANTS.iter().map(|v| v.name).collect()
}

/// Resolve a variant and apply the scenario's overrides. The spec must have
/// been validated.
pub fn resolve(name: &str, tcp: &TcpSpec, segments: u64) -> Option<SenderConfig> {
    let info = find(name)?;
    let mut c = base_config();
    (info.configure)(&mut c);
    c.variant = info.name.to_string();
    if let Some(v) = tcp.mss {
        c.mss = v;
    }
    if let Some(v) = tcp.ack_size {
        c.syn_size = v;
    }
    if let Some(v) = tcp.max_window {
        c.max_window = v;
    }
    if let Some(v) = tcp.initial_window {
        c.initial_window = v;
    }
    if let Some(v) = tcp.initial_ssthresh {
        c.initial_ssthresh = v as f64;
    }
    if let Some(v) = tcp.min_rto {
        c.rto.min_rto = secs(v);
    }
    if let Some(v) = tcp.max_rto {
        c.rto.max_rto = secs(v);
    }
    if let Some(v) = tcp.initial_rto {
        c.rto.initial_rto = secs(v);
    }
    if let Some(v) = tcp.granularity {
        c.rto.granularity = secs(v);
    }
    if let Some(v) = tcp.dupthresh {
        c.dupthresh = v;
    }
    if let Some(on) = tcp.limited_transmit {
        c.limited_transmit = match (on, c.limited_transmit) {
            (false, _) => LimitedTransmit::Off,
            (true, LimitedTransmit::Off) => LimitedTransmit::Rfc3042,
            (true, other) => other,
        };
    }
    c.syn = tcp.syn;
    c.segments = (segments > 0).then_some(segments);
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_case_insensitively_with_overrides() {
        let tcp = TcpSpec {
            max_window: Some(50),
            min_rto: Some(0.2),
            ..TcpSpec::default()
        };
        let c = resolve("sack", &tcp, 0).unwrap();
        assert_eq!(c.variant, "SACK");
        assert!(c.use_sack);
        assert_eq!(c.max_window, 50);
        assert_eq!(c.rto.min_rto, ms(200));
        assert_eq!(c.segments, None);
        let r = resolve("Reno", &TcpSpec::default(), 10).unwrap();
        assert_eq!(r.recovery, Recovery::Reno);
        assert_eq!(r.segments, Some(10));
        assert!(resolve("nope", &tcp, 0).is_none());
    }
}
