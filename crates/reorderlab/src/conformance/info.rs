//! The sender's state as `struct tcp_info` reports it
//! (`include/uapi/linux/tcp.h`, filled by `tcp_get_info` in
//! `net/ipv4/tcp.c`): the fields a conformance script asserts on.

use crate::tcp::{CaState, Sender};

/// `TCP_INFINITE_SSTHRESH`: the ssthresh before the first reduction.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// `enum tcp_ca_state`.
pub const CA_OPEN: u8 = 0;
pub const CA_DISORDER: u8 = 1;
pub const CA_RECOVERY: u8 = 3;
pub const CA_LOSS: u8 = 4;

/// One reading of the sender's state, in the kernel's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// `tcpi_ca_state`.
    pub ca_state: u8,
    /// `tcpi_snd_cwnd`, segments (the model's window rounded down).
    pub snd_cwnd: u32,
    /// `tcpi_snd_ssthresh`, segments; [`INFINITE_SSTHRESH`] before a
    /// reduction.
    pub snd_ssthresh: u32,
    /// `tcpi_retrans` (`retrans_out`): retransmissions not yet delivered.
    pub retrans: u32,
    /// `tcpi_lost` (`lost_out`).
    pub lost: u32,
    /// `tcpi_sacked` (`sacked_out`).
    pub sacked: u32,
    /// `tcpi_reordering` (`tp->reordering`): the duplicate-ACK threshold.
    pub reordering: u32,
    /// `tcpi_rto`, microseconds, with the backoff.
    pub rto: u64,
    /// `tcpi_unacked` (`packets_out`).
    pub unacked: u32,
    /// `tcpi_total_retrans`.
    pub total_retrans: u64,
}

impl Info {
    pub fn of(s: &Sender) -> Info {
        let sb = s.scoreboard();
        let w = s.window();
        Info {
            ca_state: ca_state(s),
            snd_cwnd: w.cwnd.max(0.0).floor() as u32,
            snd_ssthresh: if w.ssthresh.is_finite() {
                (w.ssthresh.max(0.0).floor() as u32).min(INFINITE_SSTHRESH)
            } else {
                INFINITE_SSTHRESH
            },
            retrans: sb.retrans_out(),
            lost: sb.lost_out(),
            sacked: sb.sacked_out(),
            reordering: s.dupthresh(),
            rto: s.rtt().rto() / 1_000,
            unacked: sb.packets_out(),
            total_retrans: s.stats().retransmits,
        }
    }
}

/// The model has Open, Recovery and Loss; Linux's Disorder is Open with
/// segments SACKed or marked lost, or a retransmission done
/// (`tcp_try_keep_open`: `tcp_left_out(tp) || tcp_any_retrans_done(sk)`),
/// which the scoreboard shows.
fn ca_state(s: &Sender) -> u8 {
    match s.ca_state() {
        CaState::Recovery => CA_RECOVERY,
        CaState::Loss => CA_LOSS,
        CaState::Open => {
            let sb = s.scoreboard();
            let head_retransmitted = sb.seg(sb.una()).is_some_and(|g| g.copies > 1);
            if sb.sacked_out() + sb.lost_out() > 0 || sb.retrans_out() > 0 || head_retransmitted {
                CA_DISORDER
            } else {
                CA_OPEN
            }
        }
    }
}
