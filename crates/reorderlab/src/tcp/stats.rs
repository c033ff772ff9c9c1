//! The counters every sender keeps (reported per flow in the results).

use crate::engine::Time;

/// Sender counters.
#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub data_packets_sent: u64,
    pub new_segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeout_retransmits: u64,
    pub probe_retransmits: u64,
    /// Tail loss probes sent (new data or retransmission).
    pub loss_probes: u64,
    pub loss_probes_new_data: u64,
    /// TLP episodes whose probe repaired a loss (window reduced once).
    pub tlp_recoveries: u64,
    /// TLP episodes ended without a loss (probe not needed).
    pub tlp_no_loss: u64,
    /// Early retransmits (RFC 5827) and RACK reorder-timer expiries.
    pub early_retransmits: u64,
    pub rack_timer_expiries: u64,
    /// Reorder-timer expiries that marked a segment lost (RFC 8985 Sec.
    /// 6.3).
    pub rack_reorder_timeouts: u64,
    /// Segments (or retransmissions) RACK marked lost (RFC 8985 Sec. 6.2
    /// step 5), on ACKs and on the reorder timer.
    pub rack_marked_lost: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub dsacks_received: u64,
    /// Spurious retransmissions the sender itself detected via DSACK.
    pub false_fast_retransmits_detected: u64,
    pub false_timeouts_detected: u64,
    pub undos: u64,
    /// Idle periods after limited transmit ran out (RR-TCP Sec. 4.3.3).
    pub lt_idle_periods: u64,
    pub acks_received: u64,
    pub syns_sent: u64,
    /// Sum and count of the RTO each time the timer was (re)armed.
    pub rto_sum: f64,
    pub rto_count: u64,
    /// Sum of the RTO of each timer that expired (the timeout's wait).
    pub rto_expired_sum: f64,
    pub max_cwnd: f64,
    pub min_cwnd: f64,
    /// TCP-NCR Extended Limited Transmit phases ended by a cumulative ACK
    /// (reordering, no window reduction; RFC 4653 Sec. 4 Termination).
    pub elt_terminations: u64,
    /// TCP-Aix: loss recoveries started (retransmission at dupthresh, no
    /// window reduction yet).
    pub aix_loss_recoveries: u64,
    /// TCP-Aix: newACKs that answered the original, not the
    /// retransmission (reordering: no window reduction).
    pub aix_reorderings: u64,
    /// RFC 2861 decays: halvings after idle periods and application-limited
    /// decays.
    pub cwv_idle_halvings: u64,
    pub cwv_app_limited_decays: u64,
    /// When the latest fast recovery began, and the dupthresh in force at
    /// that moment (the sender's timeline, for tests and traces).
    pub last_recovery_at: Option<Time>,
    pub last_recovery_dupthresh: u32,
    pub started_at: Option<Time>,
    pub established_at: Option<Time>,
    pub all_acked_at: Option<Time>,
}
