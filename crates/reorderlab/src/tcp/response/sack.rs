//! Conservative SACK-based loss recovery (RFC 6675 Sec. 5): cwnd =
//! ssthresh at the fast retransmit, segments sent while pipe + 1 <= cwnd,
//! the episode over once the recovery point is acknowledged. These are the
//! defaults of [`LossResponse`]; this response changes none of them.

use crate::tcp::response::LossResponse;

#[derive(Debug, Clone, Copy, Default)]
pub struct SackPipe;

impl LossResponse for SackPipe {}
