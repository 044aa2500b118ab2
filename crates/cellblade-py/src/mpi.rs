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

/// Run a job whose rank i is the process at the other end of socket `fds[i]` (this call takes
/// ownership of the descriptors, also when it fails). Answers {"result": {"outcome":
/// "finished" | "aborted" | "lost", ...}, "machine_toml": ...}.
#[pyfunction]
#[pyo3(signature = (fds, request, machine=None))]
pub fn mpi_run(py: Python<'_>, fds: Vec<i32>, request: &Bound<'_, PyDict>, machine: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    // SAFETY: the launcher detached these sockets from their Python objects and passes them here once.
    let streams: Vec<UnixStream> = fds.iter().map(|&fd| UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) })).collect();
    let mut job = request::parse::<JobRequest>(fields_of::<JobRequest>(request)?).map_err(to_py)?;
    job.streams = streams;
    let choice = machine_of(machine)?;
    let answer = py.detach(|| request::answer(&choice, job)).map_err(to_py)?;
    to_python(py, &answer)
}
