//! What defines a sender: the policies it is composed of and its
//! parameters, resolved from a variant name plus the scenario's overrides
//! ([`crate::tcp::variants`]).

use crate::tcp::cc::hystart::HyStartFlavour;
use crate::tcp::detection::dupthresh::DupthreshPolicy;
use crate::tcp::dsack::Pairing;
use crate::tcp::kernel::LinuxKernel;
use crate::tcp::policy::{
    Cwv, DetectionPolicy, DsackResponse, EarlyRetransmit, FastRetransmitDelay, LimitedTransmit,
    ResponsePolicy, RtoRecovery, RtoRestart, RtoRules, RttSampling, RttTiming, SsthreshBase,
    TailLossProbe, UndoResponse,
};
use crate::tcp::timers::rto::RtoConfig;

/// Every field has one meaning; the registry sets them per variant.
#[derive(Debug, Clone)]
pub struct SenderConfig {
    pub variant: String,
    /// Loss detection ([`crate::tcp::detection`]).
    pub detection: DetectionPolicy,
    /// Loss response ([`crate::tcp::response`]).
    pub response: ResponsePolicy,
    pub limited_transmit: LimitedTransmit,
    /// At most this many segments of limited transmit past `max_window`
    /// (`None`: as many as the mode allows).
    pub lt_past_window: Option<u32>,
    /// Congestion Window Validation.
    pub cwv: Cwv,
    /// Use the receiver's SACK information.
    pub use_sack: bool,
    /// How dupthresh is set (fixed, RR-TCP FA / TA, Blanton-Allman,
    /// AVG-DEV, TCP-Aix winthresh).
    pub dupthresh: DupthreshPolicy,
    pub fr_delay: FastRetransmitDelay,
    pub dsack: DsackResponse,
    pub rtt_sampling: RttSampling,
    pub rtt_timing: RttTiming,
    /// Pairing of transmissions with ACKs after a DSACK (`-MEAN` / `-RTX`).
    pub pairing: Pairing,
    /// DSACK-HG: RTO from the 99.8th percentile of an RTT histogram.
    pub rto_histogram: bool,
    /// How the RTO follows the RTT samples.
    pub rto_rules: RtoRules,
    /// The FlightSize a fast retransmit's reduction is computed from.
    pub ssthresh_base: SsthreshBase,
    /// Linux's HyStart in CUBIC's slow start ([`crate::tcp::cc::hystart`];
    /// no effect with other controllers).
    pub hystart: Option<HyStartFlavour>,
    /// Early retransmit (RFC 5827).
    pub early_retransmit: EarlyRetransmit,
    /// RTO restart (RFC 7765).
    pub rto_restart: RtoRestart,
    /// What follows a timeout: conventional recovery or F-RTO (RFC 5682).
    pub rto_recovery: RtoRecovery,
    /// Tail loss probe (draft-01, TLPR, RFC 8985).
    pub tlp: TailLossProbe,
    /// RFC 6675 NextSeg rule 3 during recovery (Linux "forward
    /// retransmission"): with nothing lost and nothing new to send, resend
    /// the lowest un-SACKed, not yet retransmitted segment below the
    /// highest SACKed one.
    pub forward_retransmit: bool,
    /// FACK (Mathis & Mahdavi 1996; Linux `tcp_fack`, on in 3.17): loss
    /// recovery once fackets_out (SND.UNA to the highest SACKed segment)
    /// exceeds dupthresh, the head fackets_out - dupthresh segments lost.
    pub fack: bool,
    /// Linux's undo by timestamps (`tcp_packet_delayed`, the detection of
    /// RFC 3522 Sec. 2): an ACK advancing SND.UNA in fast recovery that
    /// echoes a TSval older than the episode's first retransmission shows
    /// the hole was filled by an original transmission. At a partial ACK
    /// the reordering is measured (`tcp_try_undo_partial`) and, with no
    /// retransmission outstanding, the reduction undone; at the full ACK
    /// it is undone (`tcp_try_undo_recovery`). See `sender/ts_undo.rs`.
    pub undo_by_timestamps: bool,
    /// How an undo (DSACK or timestamps) restores the window.
    pub undo_response: UndoResponse,
    /// A current Linux kernel's rules where they differ from the RFCs'
    /// ([`crate::tcp::kernel`]): the `Linux` and `Linux-classic` variants.
    pub linux: Option<LinuxKernel>,
    /// Pacing (`tcp/pacing.rs`) for a controller that does not pace
    /// itself (BBR always does).
    pub pacing: bool,
    /// Data packet size, bytes.
    pub mss: u32,
    /// Size of SYN packets, bytes.
    pub syn_size: u32,
    /// Receiver window, segments.
    pub max_window: u32,
    pub initial_window: u32,
    pub initial_ssthresh: f64,
    pub rto: RtoConfig,
    /// Open the connection with a SYN handshake.
    pub syn: bool,
    /// Segments the application sends; `None` = unlimited.
    pub segments: Option<u64>,
}

impl SenderConfig {
    /// Compositions that cannot work: TCP-PR's detection and response go
    /// together (tcp-pr Table I), RACK marks losses by time and needs the
    /// RFC 6675 / PRR pipe, TCP-Aix needs SACK. The registry only builds
    /// valid ones; this guards new registry entries.
    pub fn composition_error(&self) -> Option<String> {
        let pr_detection = matches!(self.detection, DetectionPolicy::TcpPr { .. });
        let pr_response = self.response == ResponsePolicy::TcpPr;
        if pr_detection != pr_response {
            return Some("TCP-PR loss detection and loss response go together".into());
        }
        let rack = matches!(self.detection, DetectionPolicy::Rack { .. });
        if rack && !matches!(self.response, ResponsePolicy::Sack | ResponsePolicy::Prr) {
            return Some("RACK needs SACK-based (RFC 6675 or PRR) recovery".into());
        }
        if (rack || self.response == ResponsePolicy::Aix || pr_detection) && !self.use_sack {
            return Some(format!("{:?} needs SACK", self.detection));
        }
        None
    }
}
