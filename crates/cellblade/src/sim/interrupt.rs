//! Stopping a long run from outside (Ctrl-C in a front): one process-wide hook that every
//! engine polls when a run starts and every [`POLL_EVENTS`] events after. When the hook answers
//! true the run ends with an [`crate::ErrorKind::Interrupted`] error. The core installs no hook;
//! the Python bindings install one that runs Python's signal handlers.

use std::sync::RwLock;

/// Events between two polls: at about ten million events a second, a poll every few
/// milliseconds, and the hook's cost (a lock read, a call) lost in the noise.
pub const POLL_EVENTS: u64 = 1 << 16;

static HOOK: RwLock<Option<fn() -> bool>> = RwLock::new(None);

/// Install `hook` (replacing any earlier one): it answers whether the caller wants the run stopped.
pub fn install(hook: fn() -> bool) {
    *HOOK.write().unwrap_or_else(|e| e.into_inner()) = Some(hook);
}

/// Whether the installed hook asks to stop (false with no hook).
pub(crate) fn requested() -> bool {
    let hook = *HOOK.read().unwrap_or_else(|e| e.into_inner());
    hook.is_some_and(|f| f())
}
