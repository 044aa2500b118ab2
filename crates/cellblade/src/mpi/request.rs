//! The MPI programs' requests (a job of rank processes, `cellblade mpirun`; seed 004 §5.1's
//! ping-pong, `cellblade pingpong`), with their defaults and limits.

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;

use serde::{Deserialize, Serialize};

use super::{
    check_depth, check_ranks, collective, depth_words, external, layout, pingpong, rank_words, Mode, PingPong, PingPongRow, MAX_RANKS,
};
use crate::affinity::placement::Placement;
use crate::coll::request::{placement_of, PlacementSel};
use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;
use crate::model::params::ModelParams;
use crate::request::{within, Request};
use crate::sdk::cost::{Compute, Counter, Front};
use crate::sim::Time;

/// Where message buffers live when a request names no mode (the seed's default).
pub const DEFAULT_MODE: &str = "memory";
/// Message sizes of a ping-pong that names none: seed 004 Fig. 5's range.
pub const DEFAULT_SIZES: [u32; 7] = [0, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20];

fn default_mode() -> String {
    DEFAULT_MODE.into()
}
fn default_coll() -> String {
    collective::DEFAULT_COLL.into()
}
fn default_compute() -> String {
    Front::Mpi.default_compute().into()
}
fn default_depth() -> u32 {
    layout::DEFAULT_DEPTH
}
fn default_sizes() -> Vec<u32> {
    DEFAULT_SIZES.to_vec()
}

fn allowed(field: &str) -> Option<String> {
    match field {
        "ranks" => Some(rank_words()),
        "depth" => Some(depth_words()),
        "reps" => Some(format!("1 to {}", u32::MAX)),
        "mode" => Some(format!("one of {}", Mode::NAMES.join(", "))),
        "coll" => Some(collective::coll_words()),
        "compute" => Some(Front::Mpi.allowed()),
        "placement" => Some(format!("a placement name or the physical SPE (0 to {}) of each rank", MAX_RANKS - 1)),
        _ => None,
    }
}

pub(crate) fn mode_of(text: &str) -> Result<Mode> {
    Mode::parse(text).map_err(|e| within("mode", text, e))
}

/// A job of `ranks` rank processes, each at the other end of one of `streams`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobRequest {
    /// Rank processes, one per SPE.
    pub ranks: usize,
    /// "memory" (buffers in main memory) or "ls" (in the local stores).
    #[serde(default = "default_mode")]
    pub mode: String,
    /// A placement name, or the physical SPE of each rank (rank i on SPE i when left out).
    #[serde(default)]
    pub placement: Option<PlacementSel>,
    /// The text of a placement file (the seed's initialization file), instead of `placement`.
    #[serde(default)]
    pub placement_file: Option<String>,
    /// 16 KB staging chunks in flight in memory mode (2: the seed's double buffering).
    #[serde(default = "default_depth")]
    pub depth: u32,
    /// Whether the finished report carries a Chrome/Perfetto trace.
    #[serde(default)]
    pub trace: bool,
    /// A file the Chrome/Perfetto trace streams to as the run goes (memory stays bounded),
    /// instead of the report carrying it.
    #[serde(default)]
    pub trace_file: Option<String>,
    /// Which collectives run the collective library's schedules ([`collective`]): "seed",
    /// "library", "auto" or "OP=ALGO,...".
    #[serde(default = "default_coll")]
    pub coll: String,
    /// What computation between MPI calls costs: "zero", "model" (the SPU cycles of a PowerPC
    /// rank's code, counted by the cost plugin) or "cpu[:FACTOR]" (measured CPU time).
    #[serde(default = "default_compute")]
    pub compute: String,
    /// The model's parameters (a parameter file's text) that `auto` collectives choose by;
    /// left out, the job measures them first (seconds), so a front that caches them passes
    /// them here and can show that step's progress itself.
    #[serde(default)]
    pub params_toml: Option<String>,
    /// The simulator's ends of the rank processes' sockets, rank order: not request data, the
    /// front that started the processes hands them over.
    #[serde(skip)]
    pub streams: Vec<UnixStream>,
    /// Under `compute` "model", each rank's cost counter (the memory file its process's cost
    /// plugin adds to, `sdk::cost::Counter`), rank order; handed over as the streams are.
    #[serde(skip)]
    pub counters: Vec<OwnedFd>,
}

/// How a job ended.
#[derive(Debug, Serialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum JobOutcome {
    /// Every rank called `MPI_Finalize`; `wait_s` of the simulator's `wall_s` went to waiting
    /// for the rank processes' requests.
    Finished { simulated_ns: f64, events: u64, packets: u64, wall_s: f64, wait_s: f64, trace: Option<String>, trace_dropped: u64 },
    /// A rank called `MPI_Abort` with error code `code`.
    Aborted { rank: usize, code: i32 },
    /// A rank's process closed its connection without `MPI_Finalize`; `after` is its last call.
    Lost { rank: usize, after: String },
}

impl JobRequest {
    pub(crate) fn placement(&self) -> Result<Option<Vec<usize>>> {
        match (&self.placement, &self.placement_file) {
            (Some(_), Some(_)) => Err(config_err("choose a placement or a placement file, not both")),
            (None, Some(text)) => Ok(Some(Placement::parse(text, self.ranks)?.rank_to_spe)),
            (Some(_), None) => placement_of(&self.placement, self.ranks).map(Some),
            (None, None) => Ok(None),
        }
    }
}

impl Request for JobRequest {
    const NAME: &'static str = "mpirun";
    type Output = JobOutcome;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<JobOutcome> {
        check_ranks(self.ranks)?;
        let compute = Compute::parse(&self.compute, Front::Mpi)?;
        if self.streams.len() != self.ranks {
            return Err(config_err(format!("mpirun: {} rank connections for {} ranks", self.streams.len(), self.ranks)));
        }
        let mode = mode_of(&self.mode)?;
        check_depth(self.depth)?;
        let depth = self.depth;
        let placement = self.placement()?;
        let coll = collective::CollChoice::parse(&self.coll, self.ranks)?;
        let params = self.params_toml.as_deref().map(ModelParams::from_toml).transpose()?;
        let counters = match compute {
            Compute::Model if self.counters.len() != self.ranks => {
                return Err(config_err(format!(
                    "mpirun --compute model: {} cost counters for {} ranks (the front starts each rank under the cost plugin)",
                    self.counters.len(),
                    self.ranks
                )))
            }
            Compute::Model => self.counters.into_iter().map(Counter::adopt).collect::<Result<Vec<_>>>()?,
            _ => Vec::new(),
        };
        let opts = external::JobOptions { compute, counters, coll, trace_file: self.trace_file.clone(), params };
        Ok(match external::run_external_with(file.clone(), placement, mode, depth, self.trace, opts, self.streams)? {
            external::ExternalOutcome::Finished(r, wait_s) => JobOutcome::Finished {
                simulated_ns: Time::as_ns(r.simulated),
                events: r.events,
                packets: r.packets,
                wall_s: r.wall_s,
                wait_s,
                trace: r.trace.map(|t| t.to_string()),
                trace_dropped: r.trace_dropped,
            },
            external::ExternalOutcome::Aborted { rank, code } => JobOutcome::Aborted { rank, code },
            external::ExternalOutcome::Lost { rank, after } => JobOutcome::Lost { rank, after },
        })
    }
}

/// Seed 004 §5.1's ping-pong over message sizes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PingPongRequest {
    /// Message sizes in bytes.
    #[serde(default = "default_sizes")]
    pub sizes: Vec<u32>,
    /// "memory" or "ls".
    #[serde(default = "default_mode")]
    pub mode: String,
    /// All 8 SPEs of chip 0 in exchanging pairs, the pair 0-1 timed.
    #[serde(default)]
    pub congested: bool,
    /// Round trips per size ([`pingpong::default_reps`] when left out).
    #[serde(default)]
    pub reps: Option<u32>,
    /// 16 KB staging chunks in flight in memory mode.
    #[serde(default = "default_depth")]
    pub depth: u32,
}

impl Request for PingPongRequest {
    const NAME: &'static str = "pingpong";
    type Output = Vec<PingPongRow>;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<Vec<PingPongRow>> {
        let mode = mode_of(&self.mode)?;
        check_depth(self.depth)?;
        let depth = self.depth;
        self.sizes
            .iter()
            .map(|&bytes| {
                let reps = self.reps.unwrap_or_else(|| pingpong::default_reps(bytes));
                pingpong::pingpong(file.clone(), PingPong { mode, congested: self.congested, bytes, reps, depth })
            })
            .collect()
    }
}

/// The MPI requests' names, defaults and limits, for the fronts.
#[derive(Debug, Clone, Serialize)]
pub struct MpiCatalog {
    pub max_ranks: usize,
    pub modes: Vec<&'static str>,
    pub default_mode: &'static str,
    pub default_depth: u32,
    pub max_depth: u32,
    pub default_sizes: Vec<u32>,
    pub default_coll: &'static str,
    pub coll_families: Vec<&'static str>,
    pub coll_library_defaults: Vec<&'static str>,
    /// `mpirun`'s compute charge when none is named, and what the field allows.
    pub default_compute: &'static str,
    pub compute_allowed: String,
    /// The most bytes of events a trace streamed to a file holds; past them it is cut.
    pub trace_file_bytes: u64,
}

pub fn catalog() -> MpiCatalog {
    MpiCatalog {
        max_ranks: MAX_RANKS,
        modes: Mode::NAMES.to_vec(),
        default_mode: DEFAULT_MODE,
        default_depth: layout::DEFAULT_DEPTH,
        max_depth: layout::MAX_DEPTH,
        default_sizes: DEFAULT_SIZES.to_vec(),
        default_coll: collective::DEFAULT_COLL,
        coll_families: collective::FAMILIES.to_vec(),
        coll_library_defaults: collective::LIBRARY_DEFAULTS.to_vec(),
        default_compute: Front::Mpi.default_compute(),
        compute_allowed: Front::Mpi.allowed(),
        trace_file_bytes: crate::machine::trace::MAX_FILE_BYTES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{answer, parse, MachineChoice};
    use serde_json::json;

    #[test]
    fn bad_fields_are_named_with_what_is_allowed() {
        let e = parse::<PingPongRequest>(json!({"depth": 9})).unwrap().run(&MachineChoice::default().resolve().unwrap()).unwrap_err();
        assert_eq!((e.field(), e.message()), (Some("depth"), "depth 9 is not allowed: 2 to 8 chunks in flight"));
        let e = answer(&MachineChoice::default(), parse::<PingPongRequest>(json!({"mode": "shm"})).unwrap()).unwrap_err();
        assert_eq!((e.field(), e.message()), (Some("mode"), "mode shm is not allowed: one of memory, ls"));
        let e = answer(&MachineChoice::default(), parse::<PingPongRequest>(json!({"reps": 0})).unwrap()).unwrap_err();
        assert_eq!(e.message(), "reps 0 is not allowed: 1 to 4294967295");
        let e = parse::<JobRequest>(json!({"ranks": 2, "np": 2})).unwrap_err();
        assert_eq!(e.field(), Some("np"));
        let e = answer(&MachineChoice::default(), parse::<JobRequest>(json!({"ranks": 17})).unwrap()).unwrap_err();
        assert_eq!(e.message(), format!("ranks 17 is not allowed: {}", rank_words()));
        for bad in ["cpu:0", "cpu:x", "cpu:1001", "wall", "zero:2"] {
            let e = answer(&MachineChoice::default(), parse::<JobRequest>(json!({"ranks": 2, "compute": bad})).unwrap()).unwrap_err();
            assert_eq!(
                (e.field(), e.message()),
                (
                    Some("compute"),
                    format!("compute {bad} is not allowed: zero, model, cpu or cpu:FACTOR with FACTOR above 0 and at most 1000").as_str()
                )
            );
        }
    }

    #[test]
    fn a_job_reuses_the_collectives_placements() {
        let job = |p: serde_json::Value| parse::<JobRequest>(json!({"ranks": 2, "placement": p})).unwrap().placement();
        assert_eq!(job(json!([0, 8])).unwrap(), Some(vec![0, 8]));
        assert_eq!(job(json!([0, 1, 2])).unwrap_err().field(), Some("placement"));
        let file = parse::<JobRequest>(json!({"ranks": 2, "placement_file": "# pairs\n0 9\n1 3\n"})).unwrap();
        assert_eq!(file.placement().unwrap(), Some(vec![9, 3]));
    }

    #[test]
    fn the_default_ping_pong_is_the_seeds_figure_range() {
        let r = parse::<PingPongRequest>(json!({})).unwrap();
        assert_eq!((r.sizes.len(), r.mode.as_str(), r.depth), (7, "memory", 2));
    }
}
