//! `cellblade reproduce`: the seeds' findings, each stated as a claim with its source, re-run
//! on the simulated blade, on the same blade with the arbiter's next draw seed, and on the
//! blade without contention, and marked as holding or not. A claim holds only if it holds with
//! both draw seeds: the blind draws stand for arbiter state the seeds do not describe, and a
//! verdict that changes with them is the draws' doing, not the mechanism's.
//! This module only gathers: each paper's claims live beside the code they check (seed 000's
//! collectives in `coll/claims/`, seed 001's affinity in `affinity/claims.rs`, seed 003's model
//! in `model/claims.rs` and `model/cluster.rs`, seed 004's MPI in `mpi/claims.rs`), and the
//! claim, its rules and its counts are the evidence layer's ([`crate::evidence`]).
//!
//! A claim is `holds`, `does not hold`, `not modelled` (the model has nothing that the claim is
//! about), `unverified` (a collective run behind it computed a wrong result) or `skipped` (not
//! run by `--quick`): only the first two are counted.

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::Result;
use crate::evidence::claim::{compared, redrawn};
use crate::evidence::Claim;
use crate::machine::config::MachineFile;

pub fn run_all(file: &MachineFile, quick: bool) -> Result<Vec<Claim>> {
    run_groups(file, quick, &group_ids(), 1)
}

/// What one piece measured, read back by its group's `state`.
type Measured = Box<dyn Any + Send>;

/// A group of claims: the simulations its claims share, cut into independent pieces, and the
/// function that states the claims from what the pieces measured. Groups share nothing, so
/// their claims are concatenated in the order of `GROUPS`, which is `run_all`'s.
struct Group {
    id: &'static str,
    /// The pieces' names with their weights (below), in the order `state` reads them.
    pieces: fn(bool) -> Vec<(&'static str, f64)>,
    measure: fn(&MachineFile, bool, &str) -> Result<Measured>,
    state: fn(Vec<Measured>) -> Result<Vec<Claim>>,
}

/// A piece's weight: seconds of CPU it took on the qs20 preset (`cargo run --release --example
/// reproduce -- pieces [quick]` prints them), full and quick. Only their order matters: the
/// pieces start the longest first, so that the short ones fill in at the end instead of a
/// long one starting last (results do not depend on it). Measured on a loaded host with the
/// model in one piece (4.2 s full, 4.5 s quick): its four pieces' weights are estimates.
const fn weight(full: f64, quick: f64, is_quick: bool) -> f64 {
    if is_quick {
        quick
    } else {
        full
    }
}

/// Claims stated by the piece itself, concatenated in the order of the pieces.
fn concat(measured: Vec<Measured>) -> Result<Vec<Claim>> {
    Ok(measured.into_iter().flat_map(|m| *m.downcast::<Vec<Claim>>().expect("a piece of claims")).collect())
}

/// What a piece of a group measured, as the type its `measure` gave.
fn take<T: 'static>(m: Measured) -> T {
    *m.downcast().expect("a piece's own type")
}

fn boxed(claims: Result<Vec<Claim>>) -> Result<Measured> {
    Ok(Box::new(claims?))
}

/// The weights of `affinity::claims::PATTERNS`' pieces, in their order.
const AFFINITY_WEIGHTS: [(f64, f64); 10] =
    [(3.6, 0.12), (2.6, 0.09), (3.5, 0.11), (2.9, 0.08), (4.4, 0.12), (1.3, 0.04), (4.7, 0.12), (1.0, 0.03), (5.6, 0.22), (5.6, 0.21)];

const GROUPS: [Group; 6] = [
    Group {
        id: "affinity",
        pieces: |q| crate::affinity::claims::PATTERNS.into_iter().zip(AFFINITY_WEIGHTS).map(|(p, (f, k))| (p, weight(f, k, q))).collect(),
        measure: |f, q, p| Ok(Box::new(crate::affinity::claims::pattern_run(f, q, p)?)),
        state: |m| Ok(crate::affinity::claims::claims_of(m.into_iter().map(take).collect())),
    },
    Group {
        id: "barriers",
        pieces: |q| vec![("", weight(0.27, 0.08, q))],
        measure: |f, q, _| boxed(crate::coll::claims::barriers(f, q)),
        state: concat,
    },
    Group {
        id: "broadcasts",
        pieces: |q| vec![("", weight(1.7, 0.53, q))],
        measure: |f, q, _| boxed(crate::coll::claims::broadcasts(f, q)),
        state: concat,
    },
    Group {
        id: "reductions",
        pieces: |q| vec![("", weight(7.9, 2.9, q))],
        measure: |f, q, _| boxed(crate::coll::claims::reductions(f, q)),
        state: concat,
    },
    Group {
        id: "model",
        pieces: |q| {
            vec![
                ("parameters", weight(0.5, 0.5, q)),
                ("grid 8", weight(1.5, 1.5, q)),
                ("grid 16", weight(2.0, 2.0, q)),
                ("cluster", weight(0.5, 0.5, q)),
            ]
        },
        measure: |f, q, p| {
            use crate::model::claims as model;
            match p {
                "parameters" => Ok(Box::new(model::parameters(f, q)?)),
                "grid 8" => Ok(Box::new(model::grid_part(f, q, 8)?)),
                "grid 16" => Ok(Box::new(model::grid_part(f, q, 16)?)),
                _ => boxed(model::cluster_claims(f, q)),
            }
        },
        state: |m| {
            let [p, g8, g16, cluster]: [Measured; 4] = m.try_into().expect("the model's four pieces");
            crate::model::claims::claims_of(take(p), vec![take(g8), take(g16)], take(cluster))
        },
    },
    Group {
        id: "mpi",
        pieces: |q| vec![("pingpong", weight(0.21, 0.17, q)), ("matmul 512", weight(0.64, 0.63, q)), ("matmul 1024", weight(4.8, 0.0, q))],
        measure: |f, q, p| match p {
            "pingpong" => boxed(crate::mpi::pingpong_claims(f, q)),
            "matmul 512" => boxed(crate::mpi::matmul_claims(f, 512, q)),
            _ => boxed(crate::mpi::matmul_claims(f, 1024, q)),
        },
        state: concat,
    },
];

/// The claim-group ids, in the order `run_all` states them.
pub fn group_ids() -> Vec<&'static str> {
    GROUPS.iter().map(|g| g.id).collect()
}

/// The blades every piece runs on: the chosen one, the same with the arbiter's next draw seed
/// (only when the arbiter draws), and the one without contention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Blade {
    Drawn,
    Redrawn,
    Free,
}

/// One piece to run: group `group`'s piece `name` on one of the [`Blade`]s.
struct Task {
    group: usize,
    blade: Blade,
    name: &'static str,
    weight: f64,
}

/// The claims of the groups `ids`, in the order of `GROUPS` (not of `ids`), their pieces run
/// on `jobs` threads, the heaviest first; an unknown id is an error of field `claims` naming
/// the known ones. Each piece is a simulation of its own, so the claims (and the first error,
/// in the order of the pieces) do not depend on `jobs`.
pub fn run_groups<S: AsRef<str>>(file: &MachineFile, quick: bool, ids: &[S], jobs: usize) -> Result<Vec<Claim>> {
    if let Some(bad) = ids.iter().map(AsRef::as_ref).find(|id| !GROUPS.iter().any(|g| g.id == *id)) {
        return Err(crate::error::field_err("claims", bad, format!("one of {}", group_ids().join(", "))));
    }
    let (free, other) = (file.without_contention(), file.redrawn());
    let blades: &[Blade] = if file.draws() { &[Blade::Drawn, Blade::Redrawn, Blade::Free] } else { &[Blade::Drawn, Blade::Free] };
    let wanted: Vec<usize> = (0..GROUPS.len()).filter(|&g| ids.iter().any(|id| id.as_ref() == GROUPS[g].id)).collect();
    let tasks: Vec<Task> = wanted
        .iter()
        .flat_map(|&group| {
            blades.iter().flat_map(move |&blade| {
                (GROUPS[group].pieces)(quick).into_iter().map(move |(name, weight)| Task { group, blade, name, weight })
            })
        })
        .collect();
    let machine = |b: Blade| match b {
        Blade::Drawn => file,
        Blade::Redrawn => &other,
        Blade::Free => &free,
    };
    let mut results = run_tasks(&tasks, jobs, |t| (GROUPS[t.group].measure)(machine(t.blade), quick, t.name)).into_iter();
    let mut out = Vec::new();
    for &group in &wanted {
        let g = &GROUPS[group];
        let n = (g.pieces)(quick).len();
        // The results come in the order of `blades`.
        let mut state = || -> Result<Vec<Claim>> { (g.state)(results.by_ref().take(n).collect::<Result<_>>()?) };
        let blade = state()?;
        let blade = if file.draws() { redrawn(blade, state()?) } else { blade };
        let without = state()?;
        out.extend(compared(blade, without));
    }
    Ok(out)
}

/// Each piece's name (`group piece`, with `free` on the blade without contention) and the
/// seconds of CPU it took, run one after another: where `Group::pieces`' weights come from.
pub fn piece_times(file: &MachineFile, quick: bool) -> Result<Vec<(String, f64)>> {
    let free = file.without_contention();
    let mut out = Vec::new();
    for g in &GROUPS {
        for side in [false, true] {
            for (name, _) in (g.pieces)(quick) {
                let start = crate::bench_wait::usage().0;
                (g.measure)(if side { &free } else { file }, quick, name)?;
                out.push((format!("{} {name}{}", g.id, if side { " free" } else { "" }), crate::bench_wait::usage().0 - start));
            }
        }
    }
    Ok(out)
}

/// `run(task)` for each of `tasks` on `jobs` threads, the heaviest started first; the results
/// in the order of `tasks`.
fn run_tasks<R: Send>(tasks: &[Task], jobs: usize, run: impl Fn(&Task) -> R + Sync) -> Vec<R> {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by(|&a, &b| tasks[b].weight.total_cmp(&tasks[a].weight));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = tasks.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let r = run(&tasks[i]);
            *slots[i].lock().expect("a result slot") = Some(r);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..jobs.clamp(1, tasks.len().max(1)) {
            scope.spawn(work);
        }
        work();
    });
    slots.into_iter().map(|s| s.into_inner().expect("a result slot").expect("every task ran")).collect()
}

/// The seeds' findings re-checked on the chosen machine.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReproduceRequest {
    /// Fewer trials and repetitions: the same claims, checked faster and less precisely.
    pub quick: bool,
    /// Only these claim groups (`group_ids`), so that a front can run them apart; all when
    /// left out.
    pub claims: Option<Vec<String>>,
    /// How many pieces to simulate at once, on threads of this process (at least 1; when left
    /// out, one per core). The claims are the same whatever it is.
    pub jobs: Option<usize>,
}

impl crate::request::Request for ReproduceRequest {
    const NAME: &'static str = "reproduce";
    type Output = Vec<Claim>;

    fn run(self, machine: &MachineFile) -> Result<Vec<Claim>> {
        let jobs = match self.jobs {
            Some(0) => return Err(crate::error::field_err("jobs", 0, "at least 1")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let ids = self.claims.unwrap_or_else(|| group_ids().into_iter().map(String::from).collect());
        run_groups(machine, self.quick, &ids, jobs)
    }
}

#[cfg(test)]
mod group_tests {
    use super::*;

    fn qs20() -> MachineFile {
        crate::machine::config::load(crate::machine::config::preset_text("qs20").unwrap(), &[]).unwrap()
    }

    #[test]
    fn an_unknown_group_is_refused_with_the_known_ones() {
        let err = run_groups(&qs20(), true, &["barriers", "nope"], 1).unwrap_err();
        assert_eq!(err.field(), Some("claims"));
        assert_eq!(err.to_string(), "claims nope is not allowed: one of affinity, barriers, broadcasts, reductions, model, mpi");
    }

    #[test]
    fn the_claims_do_not_depend_on_the_number_of_threads() {
        let groups = ["affinity", "barriers", "broadcasts"];
        let one = serde_json::to_string(&run_groups(&qs20(), true, &groups, 1).unwrap()).unwrap();
        for jobs in [2, 5] {
            assert_eq!(serde_json::to_string(&run_groups(&qs20(), true, &groups, jobs).unwrap()).unwrap(), one, "{jobs} jobs");
        }
    }

    #[test]
    fn zero_jobs_is_refused() {
        let request = ReproduceRequest { quick: true, claims: Some(vec![]), jobs: Some(0) };
        let err = crate::request::Request::run(request, &qs20()).unwrap_err();
        assert_eq!(err.to_string(), "jobs 0 is not allowed: at least 1");
    }

    #[test]
    fn no_group_states_no_claim() {
        assert!(run_groups::<&str>(&qs20(), true, &[], 1).unwrap().is_empty());
    }
}
