//! Python bindings for the cellblade core, imported as `cellblade._core`.
//!
//! Every program function takes its request as a Python dict of the request's fields and the
//! machine as a dict (`{"preset": "qs20"}` or `{"toml": TEXT}`, plus `"set": ["key=value"]`),
//! and answers `{"result": ..., "machine_toml": ...}` as Python values. The dicts become the
//! core's typed requests through `pythonize` (serde over Python objects), not JSON text:
//! chosen over pyclasses because every request is already a serde type in the core, with its
//! fields, defaults and limits in one place (`cellblade::request`), and pythonize reads and
//! writes them without a second definition here. pythonize 0.29 is built against pyo3 0.29,
//! which pins pyo3. Simulations run with the GIL released, except those of Python programs
//! ([`programs`]), which call back into Python at every step. A core error becomes the
//! exception class of its kind, with the request field it is about in `err.field` (None
//! otherwise):
//!
//! ```text
//! CellbladeError            ErrorKind::Internal
//! ├── ConfigError           ErrorKind::Config    bad request field, machine-file key or value
//! ├── ProgramError          ErrorKind::Program   a simulated program broke a hardware rule
//! └── DeadlockError         ErrorKind::Deadlock  every simulated program is blocked
//! ```

use cellblade::request::{self, MachineChoice, Request};
use cellblade::{api, Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use pythonize::{depythonize, pythonize};
use serde::Serialize;

mod args;
mod interrupt;
mod mpi;
mod mpi_programs;
mod mpi_requests;
mod programs;
mod sdk;

create_exception!(cellblade, CellbladeError, PyException, "Base class of every error raised by the cellblade simulator.");
create_exception!(cellblade, ConfigError, CellbladeError, "A bad flag, machine-file key or value.");
create_exception!(
    cellblade,
    ProgramError,
    CellbladeError,
    "A simulated program did something the hardware forbids (illegal DMA, LS overflow, ...)."
);
create_exception!(cellblade, DeadlockError, CellbladeError, "Every simulated program is blocked and nothing is pending.");

pub(crate) fn to_py(err: Error) -> PyErr {
    let message = err.to_string();
    let e = match err.kind() {
        ErrorKind::Config => ConfigError::new_err(message),
        ErrorKind::Program => ProgramError::new_err(message),
        ErrorKind::Deadlock => DeadlockError::new_err(message),
        ErrorKind::Internal => CellbladeError::new_err(message),
        ErrorKind::Interrupted => interrupt::to_py(message),
    };
    if let Some(field) = err.field() {
        Python::attach(|py| e.value(py).setattr("field", field)).expect("an exception takes attributes");
    }
    e
}

/// Python values as data for the core. A value that is not plain data (numbers, strings,
/// lists, dicts) or an integer past 64 bits fails here, reported for its field like a value the
/// request refuses.
pub(crate) fn fields_of<R: Request>(request: &Bound<'_, PyDict>) -> PyResult<serde_json::Value> {
    let mut fields = serde_json::Map::new();
    for (key, value) in request.iter() {
        let key: String = key.extract()?;
        match depythonize::<serde_json::Value>(&value) {
            Ok(v) => fields.insert(key, v),
            Err(_) => {
                let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "the value".into());
                let listed = value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>();
                return Err(to_py(cellblade::error::field_err(&key, shown, allowed::<R>(&key, listed))));
            }
        };
    }
    Ok(serde_json::Value::Object(fields))
}

/// What field `field` of request `R` allows, as the request says it for a value out of range
/// (-1, alone or in a list): the words the core gives for a value it can read.
fn allowed<R: Request>(field: &str, listed: bool) -> String {
    let probe = if listed { serde_json::json!([-1]) } else { serde_json::json!(-1) };
    let refused = request::parse::<R>(serde_json::json!({ field: probe })).err();
    match refused.as_ref().filter(|e| e.field() == Some(field)).and_then(|e| e.message().split_once(" is not allowed: ")) {
        Some((_, allowed)) => allowed.to_string(),
        None => R::allowed(field).unwrap_or_else(|| "plain data: numbers, text, lists".into()),
    }
}

pub(crate) fn machine_of(machine: Option<&Bound<'_, PyAny>>) -> PyResult<MachineChoice> {
    match machine {
        None => Ok(MachineChoice::default()),
        Some(m) => depythonize(m).map_err(|e| ConfigError::new_err(format!("machine selection: {e}"))),
    }
}

pub(crate) fn to_python<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    Ok(pythonize(py, value)?.unbind())
}

/// The one path of every program: fields to typed request, run with the GIL released, answer.
fn call<R>(py: Python<'_>, request: &Bound<'_, PyDict>, machine: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>>
where
    R: Request + Send,
    R::Output: Send,
{
    let typed = request::parse::<R>(fields_of::<R>(request)?).map_err(to_py)?;
    let choice = machine_of(machine)?;
    let answer = py.detach(|| request::answer(&choice, typed)).map_err(to_py)?;
    to_python(py, &answer)
}

/// The text of a preset machine file ("qs20" or "qs22").
#[pyfunction]
fn preset_toml(name: &str) -> PyResult<String> {
    api::preset_toml(name).map_err(to_py)
}

/// The resolved machine file (preset or file plus overrides) as TOML.
#[pyfunction]
#[pyo3(signature = (machine=None))]
fn resolved_machine(machine: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    api::resolved_machine(&machine_of(machine)?).map_err(to_py)
}

/// Names, defaults and limits of every request (functions, operations, SPE counts, sizes...).
#[pyfunction]
fn catalog(py: Python<'_>) -> PyResult<Py<PyAny>> {
    to_python(py, &api::catalog())
}

/// The claim groups of `reproduce`, in the order it states them: each can be run apart.
#[pyfunction]
fn reproduce_groups(py: Python<'_>) -> PyResult<Py<PyAny>> {
    to_python(py, &cellblade::reproduce::group_ids())
}

/// How far the long core calls under way in this process are: (done, total) in their own units
/// (0, 0 when none reports); read by a progress bar while they run.
#[pyfunction]
fn progress() -> (u32, u32) {
    cellblade::progress::snapshot()
}

/// The registry of collective algorithms.
#[pyfunction]
fn coll_list(py: Python<'_>) -> PyResult<Py<PyAny>> {
    to_python(py, &api::coll_list())
}

/// The built-in communication patterns and named placements.
#[pyfunction]
fn affinity_catalog(py: Python<'_>) -> PyResult<Py<PyAny>> {
    to_python(py, &api::affinity_catalog())
}

macro_rules! program {
    ($(#[$doc:meta])* $name:ident => $request:ty) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (request, machine=None))]
        fn $name(py: Python<'_>, request: &Bound<'_, PyDict>, machine: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
            call::<$request>(py, request, machine)
        }
    };
}

program!(
    /// Runs one CellStats experiment.
    run_stats => cellblade::stats::StatsParams
);
program!(
    /// Compares simulated against published values.
    calibrate => cellblade::calibrate::CalibrateRequest
);
program!(
    /// Refits each fitted machine parameter on the other rows of its group.
    leave_one_out => cellblade::calibrate::leave_one_out::LeaveOneOutRequest
);
program!(
    /// Runs every data-arbiter policy, fitted on named rows and judged on the rest.
    identify_policies => cellblade::calibrate::policies::PoliciesRequest
);
program!(
    /// Measures the simulator's own speed.
    bench => cellblade::bench::BenchRequest
);
program!(
    /// Runs a communication pattern under thread-to-SPE placements.
    affinity_run => cellblade::affinity::request::RunRequest
);
program!(
    /// Searches the best and worst placements for a pattern.
    affinity_search => cellblade::affinity::request::SearchRequest
);
program!(
    /// Re-checks the seeds' published claims on the simulated blade.
    reproduce => cellblade::reproduce::ReproduceRequest
);
program!(
    /// Seed 004 §5.2's master-worker matrix multiplication as in-simulator rank programs.
    mpi_matmul => cellblade::mpi::matmul::MatmulRequest
);
program!(
    /// One collective algorithm's schedule (rounds of transfers and its text form).
    coll_schedule => cellblade::coll::request::ScheduleRequest
);
program!(
    /// Measures collective algorithms of one operation over message sizes.
    coll_run => cellblade::coll::request::RunRequest
);
program!(
    /// Checks a schedule written in Python (structure and result).
    coll_check => cellblade::coll::request::CheckRequest
);
program!(
    /// Runs seed 003's micro-benchmarks into the performance model's parameters.
    model_measure => cellblade::model::MeasureRequest
);
program!(
    /// Seed equations and schedule prices (and simulations) of one operation's algorithms.
    model_predict => cellblade::model::PredictRequest
);
program!(
    /// The model's validation grid (seed 003 section 7.2).
    model_grid => cellblade::model::request::GridRequest
);
program!(
    /// Simulates points of the validation grid.
    model_simulate => cellblade::model::request::SimulateRequest
);
program!(
    /// Scores simulated points against the models.
    model_score => cellblade::model::request::ScoreRequest
);
program!(
    /// The model's price of any schedule.
    model_price => cellblade::model::request::PriceRequest
);
program!(
    /// The algorithm the model picks (`--algos auto`).
    model_choose => cellblade::model::request::ChooseRequest
);
program!(
    /// The time to predict the validation grid with every model.
    model_time_grid => cellblade::model::request::TimeGridRequest
);
program!(
    /// Seed 004 §5.1's MPI ping-pong over message sizes.
    mpi_pingpong => cellblade::mpi::request::PingPongRequest
);

program!(
    /// The hierarchical barrier or broadcast of seed 003 section 6.1 on a cluster of blades.
    cluster_run => cellblade::cluster::request::ClusterRequest
);

#[pymodule]
mod _core {
    use super::*;

    #[pymodule_export]
    use super::cluster_run;
    #[pymodule_export]
    use super::identify_policies;
    #[pymodule_export]
    use super::leave_one_out;
    #[pymodule_export]
    use super::mpi_matmul;
    #[pymodule_export]
    use super::mpi_programs::{MpiJob, PyMpiOp, RankHandle};
    #[pymodule_export]
    use super::programs::{PpeHandle, ProgramBlade, PyOp, SpuHandle};
    #[pymodule_export]
    use super::sdk::sdk_run;
    #[pymodule_export]
    use super::{
        affinity_catalog, affinity_run, affinity_search, bench, calibrate, catalog, coll_check, coll_list, coll_run, coll_schedule,
        preset_toml, reproduce, resolved_machine, run_stats, CellbladeError, ConfigError, DeadlockError, ProgramError,
    };
    #[pymodule_export]
    use super::{model_choose, model_grid, model_measure, model_predict, model_price, model_score, model_simulate, model_time_grid};
    #[pymodule_export]
    use super::{mpi::mpi_run, mpi_pingpong};
    #[pymodule_export]
    use super::{progress, reproduce_groups};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        super::interrupt::install();
        // Every error has a `field`: the request field it is about, or None.
        m.py().get_type::<CellbladeError>().setattr("field", m.py().None())
    }
}
