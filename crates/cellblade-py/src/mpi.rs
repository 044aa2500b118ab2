//! The MPI layer for `cellblade mpirun` (`python/cellblade/mpi/launcher.py`): the launcher
//! starts the rank processes and hands over the simulator's ends of their sockets beside the
//! job's request (`cellblade::mpi::request::JobRequest`); the job runs with the GIL released.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

use cellblade::mpi::request::JobRequest;
use cellblade::request;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{fields_of, machine_of, to_py, to_python};

/// Run a job whose rank i is the process at the other end of socket `fds[i]`; under `compute`
/// "model", `counters[i]` is rank i's cost counter, the memory file its cost plugin adds to
/// (this call takes ownership of every descriptor, also when it fails). Answers {"result":
/// {"outcome": "finished" | "aborted" | "lost", ...}, "machine_toml": ...}.
#[pyfunction]
#[pyo3(signature = (fds, request, machine=None, counters=Vec::new()))]
pub fn mpi_run(
    py: Python<'_>,
    fds: Vec<i32>,
    request: &Bound<'_, PyDict>,
    machine: Option<&Bound<'_, PyAny>>,
    counters: Vec<i32>,
) -> PyResult<Py<PyAny>> {
    // SAFETY: the launcher detached these sockets and counters from their Python objects and passes them here once.
    let streams: Vec<UnixStream> = fds.iter().map(|&fd| UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) })).collect();
    let counters: Vec<OwnedFd> = counters.iter().map(|&fd| unsafe { OwnedFd::from_raw_fd(fd) }).collect();
    let mut job = request::parse::<JobRequest>(fields_of::<JobRequest>(request)?).map_err(to_py)?;
    job.streams = streams;
    job.counters = counters;
    let choice = machine_of(machine)?;
    let answer = py.detach(|| request::answer(&choice, job)).map_err(to_py)?;
    to_python(py, &answer)
}
