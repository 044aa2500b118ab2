//! Thread-to-SPE affinity (seed 001): placements, communication patterns, the default
//! scheduler, measurement with the seed's method, and the search for the best placement.
//!
//! | file | what |
//! |---|---|
//! | `placement.rs` | rank -> physical SPE maps: named, from a file, validated |
//! | `pattern.rs` | the patterns of Table 2 and the multi-phase collectives of §5 |
//! | `scheduler.rs` | the default (non-deterministic) assignment, as a seeded distribution |
//! | `measure.rs` | one run of a pattern under a placement |
//! | `search.rs` | exhaustive search on one chip (with symmetries), heuristic on two |
//! | `request.rs` | the run and search requests: fields, defaults, limits |
//! | `claims.rs` | seed 001's findings as claims of `cellblade reproduce` |
//! | `rows.rs` | seed 001 Table 1's bandwidth losses as calibration rows |

pub mod claims;
pub mod measure;
pub mod pattern;
pub mod placement;
pub mod rank;
pub mod request;
pub mod rows;
pub mod scheduler;
pub mod search;

use serde::Serialize;

use crate::error::Result;
use crate::machine::config::MachineFile;
use measure::measure;
use pattern::Pattern;
use placement::Placement;
use scheduler::DefaultScheduler;

/// Operations per timed run (the seed repeats each operation 100 times, §3).
pub const REPS: u32 = 100;

/// What a run of a pattern under one placement gives, over `trials` trials.
#[derive(Debug, Clone, Serialize)]
pub struct PlacementResult {
    pub pattern: String,
    pub placement: String,
    /// Physical SPE per rank; None for the default scheduler (it changes between trials).
    pub mapping: Option<Vec<usize>>,
    /// Minimum bandwidth over ranks, averaged over trials (the seed's metric).
    pub min_bandwidth_gbps: f64,
    /// Mean bandwidth over ranks and trials.
    pub mean_bandwidth_gbps: f64,
    /// Sample standard deviation (N-1) of the per-trial minimum bandwidth.
    pub stddev_gbps: f64,
    /// Time of one operation, in us.
    pub latency_us: f64,
    /// Per-trial minimum bandwidth.
    pub trials: Vec<f64>,
    /// Mean bandwidth of each rank over trials (None: the rank receives nothing).
    pub per_rank_gbps: Vec<Option<f64>>,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Sample standard deviation, normalised by N-1 as in the seed (§3).
pub fn sample_stddev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

/// Which placement a run uses: a fixed one (named or from a file), or the default scheduler.
#[derive(Debug, Clone)]
pub enum Choice {
    Fixed(String, Placement),
    Default,
}

/// Run `pattern` under `choice` for `trials` trials of `reps` operations; each trial has its own
/// start skew, and under the default scheduler its own assignment.
pub fn run(
    file: &MachineFile,
    pattern: &Pattern,
    choice: &Choice,
    spes: usize,
    trials: u32,
    reps: u32,
    seed: u64,
) -> Result<PlacementResult> {
    let mut sched = DefaultScheduler::new(file, seed, spes);
    let mut mins = Vec::new();
    let mut means = Vec::new();
    let mut lat = Vec::new();
    let mut per_rank = vec![Vec::new(); spes];
    for trial in 0..trials.max(1) {
        let placement = match choice {
            Choice::Fixed(_, p) => p.clone(),
            Choice::Default => sched.next_placement(),
        };
        let m = measure(file, pattern, &placement, reps, Some(seed ^ (trial as u64) << 32))?;
        mins.push(m.min_gbps());
        means.push(m.mean_gbps());
        lat.push(m.op_ns / 1000.0);
        for (r, b) in m.per_rank_gbps.iter().enumerate() {
            if let Some(b) = b {
                per_rank[r].push(*b);
            }
        }
    }
    let (name, mapping) = match choice {
        Choice::Fixed(n, p) => (n.clone(), Some(p.rank_to_spe.clone())),
        Choice::Default => ("default".to_string(), None),
    };
    Ok(PlacementResult {
        pattern: pattern.name.clone(),
        placement: name,
        mapping,
        min_bandwidth_gbps: mean(&mins),
        mean_bandwidth_gbps: mean(&means),
        stddev_gbps: sample_stddev(&mins),
        latency_us: mean(&lat),
        trials: mins,
        per_rank_gbps: per_rank.iter().map(|v| (!v.is_empty()).then(|| mean(v))).collect(),
    })
}
