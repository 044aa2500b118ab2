//! Ctrl-C inside a long core call: the hook the core's engine polls (`cellblade::sim::interrupt`)
//! runs Python's signal handlers, and the exception one raises (KeyboardInterrupt for SIGINT)
//! is kept until the interrupted call returns and re-raised in its place.

use std::sync::Mutex;

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

/// The exception a signal handler raised during the current core call.
static PENDING: Mutex<Option<PyErr>> = Mutex::new(None);

/// Polled by the engine (with the GIL released, so it takes it for the check).
fn python_wants_to_stop() -> bool {
    match Python::attach(|py| py.check_signals()) {
        Ok(()) => false,
        Err(err) => {
            *PENDING.lock().unwrap_or_else(|e| e.into_inner()) = Some(err);
            true
        }
    }
}

/// Install the hook; called once when the module is imported.
pub fn install() {
    cellblade::sim::interrupt::install(python_wants_to_stop);
}

/// The exception to raise for an interrupted core call: the one the signal handler raised, or
/// a KeyboardInterrupt carrying the core's message.
pub fn to_py(message: String) -> PyErr {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_else(|| PyKeyboardInterrupt::new_err(message))
}
