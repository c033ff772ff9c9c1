//! Applications: what data a flow has to send, and when.
//!
//! * [`Bulk`]: a transfer of N segments (or unlimited) from a start time; the
//!   scenario's `flows`.
//! * [`http::HttpSource`]: web-like sessions that open a finite flow per
//!   object; the scenario's `traffic` with `kind = "http"`
//!   (`docs/traffic.md`).
//! * [`web::PageSource`]: web page downloads over persistent connections;
//!   `traffic` with `kind = "page"`.

pub mod http;
pub mod web;

use crate::engine::Time;

pub use http::{HttpSource, ObjectStart};
pub use web::{AfterObject, Assign, PageObject, PageSource};

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
