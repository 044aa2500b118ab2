//! The MPI layer for `cellblade mpirun` (`python/cellblade/mpi/launcher.py`): the launcher
//! starts the rank processes and hands over the simulator's ends of their sockets; the job
//! runs with the GIL released.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

use cellblade::affinity::placement::Placement;
use cellblade::machine::config;
use cellblade::mpi::{self, ExternalOutcome, Mode, PingPong};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{to_py, ConfigError};

fn machine(
    preset: Option<&str>,
    toml: Option<&str>,
    set: &[String],
) -> PyResult<config::MachineFile> {
    let text = match (preset, toml) {
        (Some(_), Some(_)) => {
            return Err(ConfigError::new_err(
                "choose a machine preset or a machine file, not both",
            ))
        }
        (_, Some(t)) => t,
        (p, None) => config::preset_text(p.unwrap_or("qs20")).map_err(to_py)?,
    };
    config::load(text, set).map_err(to_py)
}

/// A placement for `ranks` ranks from its text: a named placement (8 or 16 ranks), or the
/// SPE ids in rank order (commas or spaces), or a placement file's text.
fn placement_of(text: &str, ranks: usize) -> PyResult<Vec<usize>> {
    let ids: Option<Vec<usize>> = (!text.contains('\n'))
        .then(|| {
            text.split([',', ' '])
                .filter(|w| !w.is_empty())
                .map(|w| w.parse().ok())
                .collect()
        })
        .flatten();
    let p = if text.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
        Placement::named(text, ranks)
    } else if let Some(ids) = ids {
        // One line of ids in rank order (also for 2 ranks, which a placement file would read as
        // one "rank spe" pair).
        if ids.len() != ranks {
            return Err(ConfigError::new_err(format!(
                "--placement names {} SPEs, the job has {ranks} ranks",
                ids.len()
            )));
        }
        Placement::new(ids)
    } else {
        Placement::parse(text, ranks)
    };
    Ok(p.map_err(to_py)?.rank_to_spe)
}

/// Run a job whose rank i is the process at the other end of socket `fds[i]` (this call takes
/// ownership of the descriptors). Returns {"outcome": "finished" | "aborted" | "lost", ...}.
#[pyfunction]
#[pyo3(signature = (fds, mode="memory", placement=None, preset=None, toml=None, set=Vec::new(), trace=false, depth=mpi::DEFAULT_DEPTH))]
#[allow(clippy::too_many_arguments)]
pub fn mpi_run<'py>(
    py: Python<'py>,
    fds: Vec<i32>,
    mode: &str,
    placement: Option<&str>,
    preset: Option<&str>,
    toml: Option<&str>,
    set: Vec<String>,
    trace: bool,
    depth: u32,
) -> PyResult<Bound<'py, PyDict>> {
    // SAFETY: the launcher detached these sockets from their Python objects and passes them here once.
    let streams: Vec<UnixStream> = fds
        .iter()
        .map(|&fd| UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) }))
        .collect();
    let file = machine(preset, toml, &set)?;
    let resolved = file.to_toml();
    let mode = Mode::parse(mode).map_err(to_py)?;
    let placement = placement
        .map(|t| placement_of(t, streams.len()))
        .transpose()?;
    let outcome = py
        .detach(|| mpi::run_external(file, placement, mode, depth, trace, streams))
        .map_err(to_py)?;
    let out = PyDict::new(py);
    out.set_item("machine_toml", resolved)?;
    match outcome {
        ExternalOutcome::Finished(r) => {
            out.set_item("outcome", "finished")?;
            out.set_item("simulated_ns", r.simulated.as_ns())?;
            out.set_item("events", r.events)?;
            out.set_item("packets", r.packets)?;
            out.set_item("wall_s", r.wall_s)?;
            out.set_item("trace", r.trace.map(|t| t.to_string()))?;
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

/// Seed 004 §5.1's ping-pong over `sizes` (bytes); `reps` None takes the default per size.
/// Returns one dict per size: bytes, reps, latency_us, throughput_gbps.
#[pyfunction]
#[pyo3(signature = (sizes, mode="memory", congested=false, reps=None, preset=None, toml=None, set=Vec::new(), depth=mpi::DEFAULT_DEPTH))]
#[allow(clippy::too_many_arguments)]
pub fn mpi_pingpong<'py>(
    py: Python<'py>,
    sizes: Vec<u32>,
    mode: &str,
    congested: bool,
    reps: Option<u32>,
    preset: Option<&str>,
    toml: Option<&str>,
    set: Vec<String>,
    depth: u32,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let file = machine(preset, toml, &set)?;
    let mode = Mode::parse(mode).map_err(to_py)?;
    let rows = py
        .detach(|| {
            sizes
                .iter()
                .map(|&bytes| {
                    mpi::pingpong(
                        file.clone(),
                        PingPong {
                            mode,
                            congested,
                            bytes,
                            reps: reps.unwrap_or_else(|| mpi::default_reps(bytes)),
                            depth,
                        },
                    )
                })
                .collect::<cellblade::Result<Vec<_>>>()
        })
        .map_err(to_py)?;
    rows.into_iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("bytes", r.bytes)?;
            d.set_item("reps", r.reps)?;
            d.set_item("latency_us", r.latency_us)?;
            d.set_item("throughput_gbps", r.throughput_gbps)?;
            Ok(d)
        })
        .collect()
}
