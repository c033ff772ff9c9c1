//! The registry of named sender variants: each name maps to a composition
//! of components plus parameters. Adding a variant = its components (see
//! `docs/architecture.md`), a function in [`compositions`] and one entry in
//! [`registry::VARIANTS`].
//!
//! * [`registry`]: names, descriptions, sources, each paper's congestion
//!   control, aliases, and the canonical spelling of a name;
//! * [`compositions`]: the base configuration and each variant's changes;
//! * [`resolve`](mod@resolve): a name plus a scenario's overrides to a
//!   [`crate::tcp::SenderConfig`].

pub mod compositions;
pub mod registry;
pub mod resolve;

pub use compositions::base_config;
pub use registry::{canonical_name, find, names, VariantInfo, ALIASES, VARIANTS};
pub use resolve::resolve;
