//! The MPI layer for `cellblade mpirun` (`python/cellblade/mpi/launcher.py`): the launcher
//! starts the rank processes and hands over the simulator's ends of their sockets; the job
//! runs with the GIL released.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

use cellblade::machine::config;
use cellblade::mpi::{self, ExternalOutcome, Mode};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{to_py, ConfigError};

fn machine(preset: Option<&str>, toml: Option<&str>, set: &[String]) -> PyResult<config::MachineFile> {
    let text = match (preset, toml) {
        (Some(_), Some(_)) => return Err(ConfigError::new_err("choose a machine preset or a machine file, not both")),
        (_, Some(t)) => t,
        (p, None) => config::preset_text(p.unwrap_or("qs20")).map_err(to_py)?,
    };
    config::load(text, set).map_err(to_py)
}

/// Run a job whose rank i is the process at the other end of socket `fds[i]` (this call takes
/// ownership of the descriptors). Returns {"outcome": "finished" | "aborted" | "lost", ...}.
#[pyfunction]
#[pyo3(signature = (fds, mode="memory", placement=None, preset=None, toml=None, set=Vec::new()))]
pub fn mpi_run<'py>(
    py: Python<'py>,
    fds: Vec<i32>,
    mode: &str,
    placement: Option<Vec<usize>>,
    preset: Option<&str>,
    toml: Option<&str>,
    set: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    // SAFETY: the launcher detached these sockets from their Python objects and passes them here once.
    let streams: Vec<UnixStream> = fds.iter().map(|&fd| UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) })).collect();
    let file = machine(preset, toml, &set)?;
    let mode = Mode::parse(mode).map_err(to_py)?;
    let outcome = py.detach(|| mpi::run_external(file, placement, mode, streams)).map_err(to_py)?;
    let out = PyDict::new(py);
    match outcome {
        ExternalOutcome::Finished(r) => {
            out.set_item("outcome", "finished")?;
            out.set_item("simulated_ns", r.simulated.as_ns())?;
            out.set_item("events", r.events)?;
            out.set_item("packets", r.packets)?;
            out.set_item("wall_s", r.wall_s)?;
        }
        ExternalOutcome::Aborted { rank, code } => {
            out.set_item("outcome", "aborted")?;
            out.set_item("rank", rank)?;
            out.set_item("code", code)?;
        }
        ExternalOutcome::Lost { rank, after } => {
            out.set_item("outcome", "lost")?;
            out.set_item("rank", rank)?;
            out.set_item("after", after)?;
        }
    }
    Ok(out)
}

/// The most ranks a job may have (one per SPE).
#[pyfunction]
pub fn mpi_max_ranks() -> usize {
    mpi::MAX_RANKS
}
