//! The engine layer: simulated time, the event queue and the process executor. Knows nothing of Cell.
//! Only time and the interrupt hook are public: programs run through [`crate::Blade`], and the
//! engine is the crate's business.
//!
//! ```compile_fail
//! use cellblade::sim::Engine;
//! ```
pub(crate) mod engine;
pub(crate) mod fifo;
pub mod interrupt;
pub(crate) mod polls;
pub(crate) mod queue;
pub mod time;

pub(crate) use engine::{Engine, Pid, Scheduler, Shared, World};
pub use polls::set_fast_paths;
pub(crate) use polls::Since;
pub use time::{Time, TICKS_PER_SECOND};
