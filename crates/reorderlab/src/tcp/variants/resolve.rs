//! A variant name and a scenario's `[tcp]` overrides to the sender's
//! configuration: the registry's composition ([`super::registry`]), then
//! each field the scenario sets.

use crate::engine::time::secs;
use crate::spec::{LongSamplesSpec, RtoEstimatorSpec, RttTimingSpec, TcpSpec, UndoResponseSpec};
use crate::tcp::cc::hystart::HyStartFlavour;
use crate::tcp::config::SenderConfig;
use crate::tcp::detection::dupthresh::DupthreshPolicy;
use crate::tcp::detection::reordering::LongSamples;
use crate::tcp::policy::{
    Cwv, DetectionPolicy, LimitedTransmit, RtoRules, RttTiming, UndoResponse,
};
use crate::tcp::timers::ns2::Ns2Profile;

use super::registry::find;

/// Resolve a variant and apply the scenario's overrides. The spec must have
/// been validated.
pub fn resolve(name: &str, tcp: &TcpSpec, segments: u64) -> Option<SenderConfig> {
    let mut c = find(name)?.config();
    apply_sizes(&mut c, tcp);
    apply_timers(&mut c, tcp);
    apply_detection(&mut c, tcp);
    apply_limited_transmit(&mut c, tcp);
    if let Some(p) = tcp.pacing {
        c.pacing = p;
    }
    if let Some(v) = tcp.cwv.as_deref().and_then(Cwv::parse) {
        c.cwv = v;
    }
    if let Some(on) = tcp.hystart {
        c.hystart = on.then(|| c.hystart.unwrap_or(HyStartFlavour::Linux));
    }
    if let Some(r) = tcp.undo_response {
        c.undo_response = match r {
            UndoResponseSpec::Restore => UndoResponse::Restore,
            UndoResponseSpec::SlowStart => UndoResponse::SlowStartBack,
        };
    }
    c.syn = tcp.syn;
    c.segments = (segments > 0).then_some(segments);
    Some(c)
}

/// Segment sizes and windows.
fn apply_sizes(c: &mut SenderConfig, tcp: &TcpSpec) {
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
}

/// The RTO's bounds and estimator, and RTT timing.
fn apply_timers(c: &mut SenderConfig, tcp: &TcpSpec) {
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
    if let Some(e) = tcp.rto_estimator {
        let p = ns2_profile(e, tcp);
        c.rto_rules = RtoRules::Ns2(p);
        c.rto.min_rto = p.min_rto;
        c.rto.max_rto = p.max_rto;
        c.rto.initial_rto = p.initial_rto;
    }
    if let Some(t) = tcp.rtt_timing {
        c.rtt_timing = match t {
            RttTimingSpec::PerRtt => RttTiming::PerRtt,
            RttTimingSpec::PerAck => RttTiming::PerAck,
        };
    }
}

/// dupthresh, the FA ratio, TCP-PR's alpha and beta.
fn apply_detection(c: &mut SenderConfig, tcp: &TcpSpec) {
    if let Some(v) = tcp.dupthresh {
        c.dupthresh = DupthreshPolicy::Fixed(v);
    }
    if let DetectionPolicy::TcpPr { alpha, beta, .. } = &mut c.detection {
        if let Some(a) = tcp.alpha {
            *alpha = a;
        }
        if let Some(b) = tcp.beta {
            *beta = b;
        }
    }
    if let DupthreshPolicy::RrTcp(rr) = &mut c.dupthresh {
        if let Some(ratio) = tcp.fa_ratio {
            rr.fa_ratio = ratio;
        }
        if let Some(offset) = tcp.rr_percentile_offset {
            rr.offset = offset;
        }
        if let Some(long) = tcp.rr_long_samples {
            rr.histogram.long = match long {
                LongSamplesSpec::Clamp => LongSamples::Clamp,
                LongSamplesSpec::Discard => LongSamples::Discard,
            };
        }
    }
}

/// RR-TCP's bound k, or limited transmit on or off.
fn apply_limited_transmit(c: &mut SenderConfig, tcp: &TcpSpec) {
    if let Some(k) = tcp.limited_transmit_bound {
        let bounded = !matches!(
            c.limited_transmit,
            LimitedTransmit::Off | LimitedTransmit::Extended(_)
        );
        if bounded {
            c.limited_transmit = LimitedTransmit::CwndMultiple(k);
        }
    }
    c.lt_past_window = tcp.limited_transmit_past_window;
    if let Some(on) = tcp.limited_transmit {
        c.limited_transmit = match (on, c.limited_transmit) {
            (false, _) => LimitedTransmit::Off,
            (true, LimitedTransmit::Off) => LimitedTransmit::Rfc3042,
            (true, other) => other,
        };
    }
}

/// The ns-2 release's defaults, with the scenario's own minimum, maximum
/// and initial RTO where it sets them.
fn ns2_profile(e: RtoEstimatorSpec, tcp: &TcpSpec) -> Ns2Profile {
    let p = match e {
        RtoEstimatorSpec::Ns2V21b8 => Ns2Profile::V2_1B8,
        RtoEstimatorSpec::Ns2V226 => Ns2Profile::V2_26,
        RtoEstimatorSpec::Ns2V231 => Ns2Profile::V2_31,
    };
    Ns2Profile {
        min_rto: tcp.min_rto.map_or(p.min_rto, secs),
        max_rto: tcp.max_rto.map_or(p.max_rto, secs),
        initial_rto: tcp.initial_rto.map_or(p.initial_rto, secs),
        ..p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;
    use crate::tcp::policy::ResponsePolicy;

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
        assert_eq!(r.response, ResponsePolicy::Reno);
        assert_eq!(r.segments, Some(10));
        assert!(resolve("nope", &tcp, 0).is_none());
    }

    /// Linux-classic differs from the Linux variant exactly where the
    /// emulator's kernel switches turn something off.
    #[test]
    fn linux_classic_is_linux_with_the_switched_off_policies() {
        use crate::tcp::detection::dupthresh::DupthreshPolicy;
        use crate::tcp::policy::{
            DetectionPolicy, DsackResponse, EarlyRetransmit, RtoRecovery, TailLossProbe,
        };
        let l = resolve("Linux", &TcpSpec::default(), 0).unwrap();
        let c = resolve("Linux-classic", &TcpSpec::default(), 0).unwrap();
        // tp->reordering fixed at 3: no adaptive DupThresh.
        let rack = DetectionPolicy::Rack {
            adaptive_reordering: false,
        };
        assert_eq!(c.detection, rack);
        assert!(matches!(c.dupthresh, DupthreshPolicy::Fixed(3)));
        assert_eq!(
            (c.tlp, c.early_retransmit),
            (TailLossProbe::Off, EarlyRetransmit::Off)
        );
        assert_eq!(c.rto_recovery, RtoRecovery::Conventional);
        // tcp_dsack = 0 stops the sending of DSACKs, not their reading.
        assert_eq!(
            (c.dsack, l.dsack),
            (DsackResponse::Undo, DsackResponse::Undo)
        );
        // What the kernel cannot switch off is the Linux variant's.
        assert_eq!(
            (c.response, l.response),
            (ResponsePolicy::Prr, ResponsePolicy::Prr)
        );
        assert_eq!(
            (c.fack, c.forward_retransmit),
            (l.fack, l.forward_retransmit)
        );
        assert_eq!(
            (c.initial_window, c.rto.min_rto),
            (l.initial_window, l.rto.min_rto)
        );
        assert_eq!((c.rto_rules, c.rtt_timing), (l.rto_rules, l.rtt_timing));
        assert_eq!(c.ssthresh_base, l.ssthresh_base);
        assert_eq!(c.hystart, l.hystart);
        assert_eq!(c.limited_transmit, l.limited_transmit);
    }
}
