//! The discrete-event engine: integer time, the event queue, timers with lazy
//! cancellation and per-component random streams (docs/architecture.md, "Layers").

pub mod event;
pub mod rng;
pub mod time;
pub mod timer;
pub mod tournament;

pub use event::{Event, EventQueue, TimerKind};
pub use rng::Rng;
pub use time::Time;
pub use timer::TimerSlot;
