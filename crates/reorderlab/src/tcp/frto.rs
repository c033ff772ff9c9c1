//! F-RTO: detecting spurious retransmission timeouts (RFC 5682), the
//! SACK-enhanced version of Sec. 3, as Linux runs it (`tcp_enter_loss`,
//! `tcp_process_loss`; behaviour, not code).
//!
//! Step 1 (Sec. 3, step 1): the timeout retransmits SND.UNA as usual
//! (ssthresh reduced, cwnd = 1, the outstanding segments marked lost), but
//! only when no loss recovery is under way ("RecoveryPoint" below SND.UNA);
//! a timeout inside a recovery, or a repeated timeout, is handled
//! conventionally. RecoveryPoint is SND.NXT at the timeout.
//!
//! Step 2: no further retransmission until an ACK advances SND.UNA;
//! duplicate ACKs only update the scoreboard.
//!  * 2a: the ACK covers RecoveryPoint: conventional recovery (here the
//!    sender simply leaves the Loss state).
//!  * 2b: otherwise RecoveryPoint = SND.NXT, and up to two new (never sent)
//!    segments go out instead of retransmissions (as many as the window,
//!    grown by slow start from one, allows); with no new data to send
//!    (application- or receiver-window-limited), conventional recovery.
//!
//! Step 3: the next ACK that advances SND.UNA or SACKs new data (other
//! ACKs are ignored).
//!  * 3b: it acknowledges, cumulatively or by SACK, a segment below
//!    RecoveryPoint that was never retransmitted: that segment was sent
//!    before the timeout and arrived, so the timeout was spurious
//!    (SpuriousRecovery = SPUR_TO). Linux checks this on every ACK of the
//!    Loss state, step 2 included (its FLAG_ORIG_SACK_ACKED), and so does
//!    this model.
//!  * 3a: anything else (SACKs of the new data, duplicate ACKs that SACK
//!    nothing below RecoveryPoint, ACKs of retransmitted data only): the
//!    loss was real; cwnd <= 3 segments and conventional RTO recovery
//!    (retransmissions of the segments marked lost).
//!
//! The response to a spurious timeout is not part of RFC 5682; the sender
//! does what Linux's `tcp_try_undo_loss` does: the lost marks are cleared
//! (nothing more is retransmitted), cwnd = max(cwnd, cwnd before the
//! timeout), ssthresh = max(ssthresh, ssthresh before), state Open.

/// Where F-RTO is after a timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrtoStep {
    /// Step 2: the timeout's retransmission of SND.UNA is out.
    AwaitingAck,
    /// Step 2b done: new data went out; step 3 judges the next ACK.
    NewDataSent,
}

/// What one ACK of the Loss state tells F-RTO.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrtoAck {
    /// SND.UNA advanced.
    pub advanced: bool,
    /// Segments newly SACKed.
    pub newly_sacked: u32,
    /// A never-retransmitted segment below RecoveryPoint was newly
    /// acknowledged, cumulatively or by SACK.
    pub original_acked: bool,
}

/// What the sender does with the ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrtoVerdict {
    /// Stay in the current step (duplicate ACKs in step 2, ignored ACKs in
    /// step 3).
    Wait,
    /// Step 2b: send new data (if any can be sent) and go to step 3.
    SendNewData,
    /// Step 3b: the timeout was spurious.
    Spurious,
    /// Step 3a: the loss was real; conventional RTO recovery.
    Conventional,
}

/// Steps 2-3 for one ACK received in `step` (the sender has already left
/// F-RTO if the ACK covered RecoveryPoint, step 2a).
pub fn on_ack(step: FrtoStep, ack: FrtoAck) -> FrtoVerdict {
    if ack.original_acked {
        return FrtoVerdict::Spurious;
    }
    match step {
        FrtoStep::AwaitingAck if ack.advanced => FrtoVerdict::SendNewData,
        FrtoStep::AwaitingAck => FrtoVerdict::Wait,
        FrtoStep::NewDataSent if ack.advanced || ack.newly_sacked > 0 => FrtoVerdict::Conventional,
        FrtoStep::NewDataSent => FrtoVerdict::Wait,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(advanced: bool, newly_sacked: u32, original_acked: bool) -> FrtoAck {
        FrtoAck {
            advanced,
            newly_sacked,
            original_acked,
        }
    }

    #[test]
    fn rfc5682_sec3_steps() {
        use FrtoStep::*;
        use FrtoVerdict::*;
        // Step 2: duplicate ACKs wait; the first ACK advancing SND.UNA (the
        // retransmitted segment) sends new data.
        assert_eq!(on_ack(AwaitingAck, ack(false, 2, false)), Wait);
        assert_eq!(on_ack(AwaitingAck, ack(true, 0, false)), SendNewData);
        // Step 3b: a never-retransmitted segment below RecoveryPoint is
        // acknowledged (cumulatively or by SACK): spurious, in step 3 and,
        // as Linux, already in step 2.
        assert_eq!(on_ack(NewDataSent, ack(true, 0, true)), Spurious);
        assert_eq!(on_ack(NewDataSent, ack(false, 1, true)), Spurious);
        assert_eq!(on_ack(AwaitingAck, ack(true, 0, true)), Spurious);
        // Step 3a: SACKs of the new data only, or an ACK of retransmitted
        // data only: the loss was real.
        assert_eq!(on_ack(NewDataSent, ack(false, 2, false)), Conventional);
        assert_eq!(on_ack(NewDataSent, ack(true, 0, false)), Conventional);
        // An ACK that neither advances nor SACKs anything is ignored.
        assert_eq!(on_ack(NewDataSent, ack(false, 0, false)), Wait);
    }
}
