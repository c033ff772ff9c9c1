//! Applications: what data a flow has to send, and when.
//!
//! For now: bulk transfer, unlimited or of N segments, starting at a given
//! time. Request/response and web-like traffic build on the same hook (the
//! sender's `segments` budget and start event).

use crate::engine::Time;

/// A bulk transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bulk {
    pub start: Time,
    /// Segments to send; `None` = unlimited.
    pub segments: Option<u64>,
}

impl Bulk {
    pub fn is_finite(&self) -> bool {
        self.segments.is_some()
    }
}
