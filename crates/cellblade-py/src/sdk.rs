//! `cellblade run` (`python/cellblade/sdk/launcher.py`): the launcher starts the PPE process
//! and hands over the simulator's end of its socket beside the run's request
//! (`cellblade::sdk::request::RunRequest`); the run goes with the GIL released.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

use cellblade::request;
use cellblade::sdk::request::RunRequest;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{fields_of, machine_of, to_py, to_python};

/// Run the Cell SDK program whose PPE process is at the other end of socket `fd` (this call
/// takes ownership of the descriptor, also when it fails).
#[pyfunction]
#[pyo3(signature = (fd, request, machine=None))]
pub fn sdk_run(py: Python<'_>, fd: i32, request: &Bound<'_, PyDict>, machine: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    // SAFETY: the launcher detached this socket from its Python object and passes it here once.
    let stream = UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let mut run = request::parse::<RunRequest>(fields_of::<RunRequest>(request)?).map_err(to_py)?;
    run.stream = Some(stream);
    let choice = machine_of(machine)?;
    let answer = py.detach(|| request::answer(&choice, run)).map_err(to_py)?;
    to_python(py, &answer)
}
