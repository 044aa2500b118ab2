//! Bindings of the performance model (seed 003): JSON text in and out, delegating to
//! `cellblade::model::api`; exported from `_core` by one `use` in `lib.rs`.

use cellblade::model::api;
use pyo3::prelude::*;

use super::to_py;

/// Runs the micro-benchmarks into model parameters; request and answer are JSON.
#[pyfunction]
pub fn model_measure(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_measure(request_json)).map_err(to_py)
}

/// Seed equations and schedule prices (and simulations) of one operation; JSON.
#[pyfunction]
pub fn model_predict(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_predict(request_json)).map_err(to_py)
}

/// The validation grid's points; JSON.
#[pyfunction]
pub fn model_grid(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_grid(request_json)).map_err(to_py)
}

/// Simulates a list of grid points; JSON.
#[pyfunction]
pub fn model_simulate(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_simulate(request_json)).map_err(to_py)
}

/// Scores simulated points against the models; JSON.
#[pyfunction]
pub fn model_score(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_score(request_json)).map_err(to_py)
}

/// The price of any schedule; JSON.
#[pyfunction]
pub fn model_price(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_price(request_json)).map_err(to_py)
}

/// The automatic algorithm choice; JSON.
#[pyfunction]
pub fn model_choose(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_choose(request_json)).map_err(to_py)
}

/// The time to predict the validation grid with every model; JSON.
#[pyfunction]
pub fn model_time_grid(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.detach(|| api::model_time_grid(request_json)).map_err(to_py)
}
