//! Python bindings for the cellblade core, imported as `cellblade._core`.
//!
//! Every function takes and returns JSON text and delegates to `cellblade::api`; the
//! Python package (`python/cellblade`) builds the requests and parses the answers. Simulations
//! run with the GIL released, except those of Python programs ([`programs`]), which call back
//! into Python at every step. A core error becomes the exception class of its kind:
//!
//! ```text
//! CellbladeError            ErrorKind::Internal
//! ├── ConfigError           ErrorKind::Config    bad flag, machine-file key or value
//! ├── ProgramError          ErrorKind::Program   a simulated program broke a hardware rule
//! └── DeadlockError         ErrorKind::Deadlock  every simulated program is blocked
//! ```

use cellblade::{api, Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

mod programs;

create_exception!(
    cellblade,
    CellbladeError,
    PyException,
    "Base class of every error raised by the cellblade simulator."
);
create_exception!(
    cellblade,
    ConfigError,
    CellbladeError,
    "A bad flag, machine-file key or value."
);
create_exception!(
    cellblade,
    ProgramError,
    CellbladeError,
    "A simulated program did something the hardware forbids (illegal DMA, LS overflow, ...)."
);
create_exception!(
    cellblade,
    DeadlockError,
    CellbladeError,
    "Every simulated program is blocked and nothing is pending."
);

fn to_py(err: Error) -> PyErr {
    let message = err.to_string();
    match err.kind() {
        ErrorKind::Config => ConfigError::new_err(message),
        ErrorKind::Program => ProgramError::new_err(message),
        ErrorKind::Deadlock => DeadlockError::new_err(message),
        ErrorKind::Internal => CellbladeError::new_err(message),
    }
}

/// The text of a preset machine file ("qs20" or "qs22").
#[pyfunction]
fn preset_toml(name: &str) -> PyResult<String> {
    api::preset_toml(name).map_err(to_py)
}

/// Runs one CellStats experiment; request and answer are JSON.
#[pyfunction]
fn run_stats(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::run_stats(request_json)).map_err(to_py)
}

/// Compares simulated against published values; request and answer are JSON.
#[pyfunction]
fn calibrate(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::calibrate(request_json)).map_err(to_py)
}

/// Measures the simulator's own speed; request and answer are JSON.
#[pyfunction]
fn bench(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::bench(request_json)).map_err(to_py)
}

/// Runs a communication pattern under thread-to-SPE placements; request and answer are JSON.
#[pyfunction]
fn affinity_run(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::affinity_run(request_json)).map_err(to_py)
}

/// Searches the best and worst placements for a pattern; request and answer are JSON.
#[pyfunction]
fn affinity_search(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::affinity_search(request_json)).map_err(to_py)
}

/// The built-in communication patterns and named placements, as JSON.
#[pyfunction]
fn affinity_catalog() -> PyResult<String> {
    api::affinity_catalog().map_err(to_py)
}

/// The resolved machine file (preset or file plus overrides) as TOML; request is JSON.
#[pyfunction]
fn resolved_machine(request_json: &str) -> PyResult<String> {
    api::resolved_machine(request_json).map_err(to_py)
}

/// Re-checks the seeds' published claims on the simulated blade; request and answer are JSON.
#[pyfunction]
fn reproduce(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::reproduce(request_json)).map_err(to_py)
}

/// The claim groups of `reproduce`, in order, as JSON: each can be run apart.
#[pyfunction]
fn reproduce_groups() -> PyResult<String> {
    api::reproduce_groups().map_err(to_py)
}

/// The registry of collective algorithms, as JSON.
#[pyfunction]
fn coll_list() -> PyResult<String> {
    api::coll_list().map_err(to_py)
}

/// One collective algorithm's schedule (rounds of transfers and its text form); request and
/// answer are JSON.
#[pyfunction]
fn coll_schedule(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::coll_schedule(request_json)).map_err(to_py)
}

/// Measures collective algorithms of one operation over message sizes; request and answer are
/// JSON.
#[pyfunction]
fn coll_run(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::coll_run(request_json)).map_err(to_py)
}

/// Checks a schedule written in Python (structure and result); request and answer are JSON.
#[pyfunction]
fn coll_check(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::coll_check(request_json)).map_err(to_py)
}

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::{
        affinity_catalog, affinity_run, affinity_search, bench, calibrate, coll_check, coll_list, coll_run,
        coll_schedule, preset_toml, reproduce, resolved_machine, run_stats, CellbladeError,
        ConfigError, DeadlockError, ProgramError,
    };
    #[pymodule_export]
    use super::reproduce_groups;
    #[pymodule_export]
    use super::programs::{PpeHandle, ProgramBlade, PyOp, SpuHandle};
}
