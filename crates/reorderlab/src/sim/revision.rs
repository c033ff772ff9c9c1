//! The model's revision: with the crate's version, part of every cache key.

/// Bumped whenever a model change can alter results, so cached results of an
/// older engine are not reused. 6: scenario numbers parsed exactly
/// (serde_json's `float_roundtrip`; before, some were 1 ulp off). 7: TCP-PR
/// counts the DSACK blocks it receives (`dsacks_received` was always 0).
/// 8: the algorithms checked against their sources (issue 19): RFC 4653
/// TCP-NCR, RFC 7765 step 3b, RFC 8985 step 3, Linux 3.17's reordering
/// measurement and RTO rules for the Linux family, F-RTO on recurring
/// timeouts, RFC 3708 A.3, RFC 3042 for the Blanton-Allman schemes and
/// TD-FR, AVG-DEV from its sources, HyStart, the ns-2 estimator mode, and
/// `rto_expired_mean` in the flow results. 9: the Linux family (Linux-ER,
/// RTOR, TLP, TLPR, Linux) undoes by timestamps (`tcp_packet_delayed`)
/// and measures the reordering it reveals. 10: TLPR's timer is min(PTO,
/// RTO) - T_last (tail-loss Sec. 2.2-2.3), not min(PTO - T_last, RTO).
/// 11: logarithms, exponentials, powers and cosines from the `libm` crate
/// (`crate::num`), the same bits on every machine, not from the platform's
/// C library (glibc picks FMA variants by CPU), and HighSpeed TCP's p(w) as
/// exp(1.2 log w) (as ns-2 computes it; half the cost of `pow` there): of
/// the full reproduction's 5,884 runs, ten (HighSpeed TCP) end with a cwnd,
/// ssthresh or max_cwnd 1-2 ulps apart; nothing else changed. 12: the
/// Linux 3.17 loss decision (FACK, early retransmit) also on an ACK that
/// advances SND.UNA and SACKs new data (`tcp_ack_is_dubious`), not only on
/// duplicate ACKs: Linux-ER, RTOR, TLP and TLPR, mostly with delayed ACKs.
/// 13: the Blanton-Allman schemes (DSACK-BL-*) undo by slow start back to
/// the earlier window (the tcp-pr paper, footnote 2), not at once: only
/// their runs change.
/// 14: `Linux` and `Linux-classic` grow cwnd per segment acknowledged
/// (`tcp_slow_start`, `tcp_cong_avoid_ai`; issue 35's validation matrix:
/// the kernel's slow start ran 30 ms ahead in its third round).
/// 15: their PRR is the kernel's (`tcp_cwnd_reduction`): the extra
/// segment of PRR-SSRB only on an ACK that advanced SND.UNA and marked
/// nothing lost, and prior_cwnd for RecoverFS (the validation matrix: a
/// tail of three lost segments repaired one round trip apart, as the
/// kernel does, not at once).
/// 16: their loss probe and RACK reorder timers run in jiffies (HZ 250)
/// on the kernel's timer wheel (`tcp_schedule_loss_probe`,
/// `tcp_rack_mark_lost`, `calc_wheel_index`): 2 SRTT + 2 ms and the time
/// left + 2 ms, rounded up (the validation matrix: the kernel's probe went
/// 6-35 ms later than the simulator's).
/// 17: their window grows by the segments an ACK newly delivered, not
/// again by those SACKed before (`tcp_cong_control`'s `acked_sacked`; the
/// validation matrix: with 5 % of packets held, the simulator's slow start
/// ran a round trip ahead of the kernel's).
/// 18: the ACK that ends their fast recovery also grows cwnd from
/// ssthresh by the segments it delivered (`tcp_fastretrans_alert` ends the
/// reduction, then `tcp_cong_control` runs `tcp_cong_avoid`; the
/// conformance script recovery-full-ack).
/// 19: a finished transfer's ACKs still carry DSACKs to them, and a
/// DSACK of the last retransmission undoes the reduction after the
/// transfer ended (`tcp_ack`'s `no_queue` path -> `tcp_try_undo_dsack`;
/// the conformance script dsack-undo-fast-recovery).
/// 20: their DSACK undo counts copies, not segments (`undo_retrans`,
/// counted down per duplicate in `tcp_sacktag_one` / `tcp_check_dsack`;
/// RFC 3708 A.3's "no conclusion" for a segment sent three times does
/// not apply), and a loss probe's retransmission still out counts in the
/// timeout's (`tcp_init_undo`; the conformance script
/// dsack-undo-after-timeout).
/// 21: their RACK.rtt is the RTT of the last segment the kernel's
/// `tcp_rack_advance` is given on an ACK (SACKed ranges ascending, then
/// the cumulative ACK), not of the latest sent (RFC 8985): an ACK of a
/// retransmission and of originals above it keeps the originals' longer
/// RTT (the conformance script frto-spurious-undo: no segment marked lost
/// after the spurious timeout's undo).
/// 22: their F-RTO undo restores the window of before the ACK and then
/// grows it by what the ACK delivered, as the kernel undoes in
/// `tcp_fastretrans_alert` (`tcp_process_loss` -> `tcp_try_undo_loss`)
/// before `tcp_cong_control` (the conformance script frto-spurious-undo:
/// nine new segments, not four).
/// 23: their partial undo by timestamps in fast recovery forgets every
/// loss mark, and the segments RACK had marked stay off its send-time
/// list until retransmitted or a timeout marks them
/// (`tcp_try_undo_partial` -> `tcp_undo_cwnd_reduction(sk, true)`;
/// `tcp_rack_detect_loss` takes marked segments off `tsorted_sent_queue`;
/// the validation matrix's 25 %-held cells).
/// 24: their Open state sends while the packets in flight (the pipe:
/// SACKed and lost segments not counted, retransmissions out counted) are
/// below cwnd, as the kernel's `tcp_cwnd_test` does in every state, not
/// by packets out plus RFC 3042's limited transmit (the validation
/// matrix's 25 %-held cells: after a partial undo the simulator sent 0-2
/// segments per ACK where the kernel sent 2-4).
/// 25: their undo restores cwnd = max(cwnd, prior_cwnd) (`tcp_undo_cwnd_reduction`
/// with `tcp_reno_undo_cwnd`, CUBIC's `undo_cwnd` too) and ssthresh =
/// `tcp_current_ssthresh` of the reduction's start, max(ssthresh, 3/4
/// cwnd), not cwnd plus what the reduction took and the old ssthresh.
/// 26: their CUBIC is the kernel's integer arithmetic (`bictcp_update`
/// with its table cube root, jiffies and `cnt`, `tcp_cong_avoid_ai`,
/// `cubictcp_recalc_ssthresh` from cwnd, nothing restored on undo, all
/// forgotten on a timeout; `tcp/cc/cubic_kernel.rs`), not RFC 9438's
/// curve in floating point (the conformance script recovery-full-ack:
/// 7 -> 8, not 7.44).
/// 27: `Linux-classic` reads the DSACKs its peer sends and undoes by them
/// (its `tcp_dsack = 0` only stops the sending: `tcp_dsack_set`,
/// `tcp_send_dupack`); it ignored them, while RACK's reo_wnd grew on them
/// (a configuration no kernel has, issue 35). Without DSACKs from the
/// receiver (the validation's `Linux-classic`) nothing changes.
/// 28: the receiver of a Linux-family flow with timestamps applies PAWS
/// as the kernel does (`tcp_paws_discard`, `tcp_replace_ts_recent`,
/// `tcp_send_dupack`; `tcp/paws.rs`): a delayed original older than the
/// retransmission that filled the hole at RCV.NXT by more than 1 ms is
/// dropped and has to be retransmitted (found by the bbr helper: the
/// kernel's spurious retransmissions equal the receiver's PAWS drops).
/// 29: a `Linux` sender grows cwnd by what an ACK delivered, its newly
/// SACKed segments included (`tcp_newly_delivered` -> `tcp_cong_control`),
/// and, once `tp->reordering` is above 3, on ACKs that only SACK too
/// (`tcp_may_raise_cwnd`: `FLAG_FORWARD_PROGRESS`), outside Recovery; it
/// grew by the cumulatively acknowledged, never-SACKed segments only.
/// 30: a `Linux` sender's partial ACK for a delayed original while
/// retransmissions are out (`tcp_try_undo_partial` returns true) marks
/// nothing lost and retransmits nothing; it clocks out new data only
/// (`tcp_fastretrans_alert` returns before `tcp_identify_packet_loss`).
/// 31: `cc = "dctcp"` (RFC 8257; Linux `tcp_dctcp.c`): the sender reads
/// ECN-Echo per ACK (alpha once per window, a cut by alpha / 2 at most
/// once per window, a loss halves) and its receiver echoes CE by DCTCP's
/// two-state machine (`dctcp_ece_ack_update`) instead of the host's echo
/// per marked segment; UET flows (`crate::uet`). No existing flow
/// changes (none used ECN-Echo or these).
pub const MODEL_REVISION: u32 = 31;

/// Crate version plus model revision: part of every cache key.
pub fn engine_version() -> String {
    format!("{}+m{}", env!("CARGO_PKG_VERSION"), MODEL_REVISION)
}
