//! The engine layer: simulated time, the event queue and the process executor. Knows nothing of Cell.
pub mod engine;
pub mod fifo;
pub mod interrupt;
pub mod queue;
pub mod time;

pub use engine::{Engine, Pid, Resume, Scheduler, Shared, World};
pub use time::{Time, TICKS_PER_SECOND};
