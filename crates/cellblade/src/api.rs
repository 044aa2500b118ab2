//! The fronts' door to the programs: every program's request goes through one generic path
//! ([`crate::request`]: parse the typed request, resolve the machine, run, answer with the
//! machine it ran on), and the [`catalog`] gives the names, defaults and limits a front shows,
//! so no front retypes them. The Python bindings call [`crate::request`] with Python values;
//! [`run_json`] is the same path for JSON text (examples, tests, other languages).

use serde::Serialize;
use serde_json::Value;

use crate::error::{config_err, Result};
use crate::machine::config::{self, PRESETS};
use crate::machine::topology::{CHIPS, SPES_PER_CHIP};
use crate::request::{self, MachineChoice, Request, DEFAULT_PRESET};
use crate::stats::{StatsParams, FUNCTIONS};
use crate::{affinity, coll};

/// Runs request `R` from JSON text: its fields, plus `"machine": {"preset": "qs20"}` or
/// `{"toml": "..."}` and `"set": ["section.key=value", ...]`. Answers `{"result": ...,
/// "machine_toml": ...}`.
pub fn run_json<R: Request>(text: &str) -> Result<String> {
    let mut fields: Value = serde_json::from_str(text).map_err(|e| config_err(format!("{} request: {e}", R::NAME)))?;
    let obj = fields.as_object_mut().ok_or_else(|| config_err(format!("{} request: a JSON object is needed", R::NAME)))?;
    let mut choice: MachineChoice = match obj.remove("machine") {
        Some(m) => serde_json::from_value(m).map_err(|e| config_err(format!("machine selection: {e}")))?,
        None => MachineChoice::default(),
    };
    if let Some(set) = obj.remove("set") {
        choice.set = serde_json::from_value(set).map_err(|e| config_err(format!("'set' must be a list of key=value strings: {e}")))?;
    }
    let answer = request::answer(&choice, request::parse::<R>(fields)?)?;
    Ok(serde_json::to_string(&answer).expect("an answer serialises"))
}

/// The text of a built-in machine preset.
pub fn preset_toml(name: &str) -> Result<String> {
    config::preset_text(name).map(str::to_string)
}

/// The resolved machine file (preset or file, with overrides applied) as TOML: saved beside
/// every result so it can be traced to its configuration.
pub fn resolved_machine(choice: &MachineChoice) -> Result<String> {
    Ok(choice.resolve()?.to_toml())
}

/// One collective algorithm of the registry.
#[derive(Debug, Clone, Serialize)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub op: &'static str,
    pub description: &'static str,
    /// "any" or "power of two".
    pub spes: &'static str,
    pub source: &'static str,
}

/// The registry of collective algorithms.
pub fn coll_list() -> Vec<AlgorithmInfo> {
    coll::algorithms::REGISTRY
        .iter()
        .map(|a| AlgorithmInfo {
            name: a.name,
            op: a.op.name(),
            description: a.description,
            spes: if a.pow2 { "power of two" } else { "any" },
            source: a.source,
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct PatternInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub phases: usize,
    pub default_size_bytes: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlacementInfo {
    pub name: &'static str,
    /// The physical SPE of each of 8 ranks.
    pub mapping: Vec<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AffinityCatalog {
    pub patterns: Vec<PatternInfo>,
    pub placements: Vec<PlacementInfo>,
}

/// The built-in patterns and named placements.
pub fn affinity_catalog() -> AffinityCatalog {
    use affinity::{pattern, placement::Placement};
    let patterns = pattern::CATALOG
        .iter()
        .map(|&(name, description, size)| PatternInfo {
            name,
            description,
            phases: pattern::build(name, 8, size).map_or(0, |p| p.phases.len()),
            default_size_bytes: size,
        })
        .collect();
    let placements = affinity::placement::named()
        .map(|name| PlacementInfo { name, mapping: Placement::named(name, 8).map(|p| p.rank_to_spe).unwrap_or_default() })
        .collect();
    AffinityCatalog { patterns, placements }
}

/// Names, defaults and limits of every request, for the fronts to read instead of retyping.
#[derive(Debug, Clone, Serialize)]
pub struct Catalog {
    pub presets: Vec<&'static str>,
    pub default_preset: &'static str,
    /// Cell chips of the blade, each with its XDRAM module (CellStats -c and -m pick one).
    pub chips: usize,
    pub spes_per_chip: usize,
    pub stats: StatsCatalog,
    pub coll: CollCatalog,
    pub affinity: AffinityLimits,
    pub model: crate::model::request::ModelCatalog,
    pub mpi: crate::mpi::request::MpiCatalog,
    pub sdk: crate::sdk::request::SdkCatalog,
    /// The claim groups of `reproduce`, in the order it states them: each can be run apart.
    pub reproduce_groups: Vec<&'static str>,
    /// The claims whose `reproduce --quick` verdict differs from the full run's on the qs20
    /// preset: (claim, the full run's status).
    pub quick_differs: &'static [(&'static str, &'static str)],
    pub cluster: crate::cluster::request::ClusterCatalog,
    /// Every machine-file key: its unit, what it is and where its value comes from.
    pub machine_parameters: &'static [crate::machine::parameters::Parameter],
    /// How this core was built ("release, native" as the build script names it; `cellblade
    /// --version` prints it).
    pub build: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatsCatalog {
    pub functions: Vec<&'static str>,
    pub max_spes: usize,
    /// Every field of the request at its default.
    pub defaults: StatsParams,
}

#[derive(Debug, Clone, Serialize)]
pub struct CollCatalog {
    pub ops: Vec<&'static str>,
    pub dtypes: Vec<&'static str>,
    pub reduce_ops: Vec<&'static str>,
    pub default_spes: usize,
    pub max_spes: usize,
    pub default_size: u32,
    pub default_iterations: u32,
    pub default_dtype: &'static str,
    pub default_reduce_op: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct AffinityLimits {
    pub spe_counts: Vec<usize>,
    pub default_spes: usize,
    pub default_trials: u32,
    pub max_trials: u32,
    pub default_samples: usize,
    pub objectives: Vec<&'static str>,
    pub placements: Vec<&'static str>,
    pub default_placement: &'static str,
    /// Bytes per rank of a collective algorithm run as a pattern.
    pub collective_default_size: u32,
    /// The two-chip search's pruning constants, which the model guide quotes.
    pub search: SearchLimits,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchLimits {
    /// Random placements the ranking scores to pick the pruned climb's starts.
    pub ranked_starts: usize,
    /// Swaps the pruned climb simulates per step.
    pub pruned_keep: usize,
    /// Simulations of the unpruned climb that polishes the result.
    pub polish_budget: usize,
}

pub fn catalog() -> Catalog {
    use affinity::request as a;
    use coll::request as c;
    Catalog {
        presets: PRESETS.to_vec(),
        default_preset: DEFAULT_PRESET,
        chips: CHIPS,
        spes_per_chip: SPES_PER_CHIP,
        stats: StatsCatalog { functions: FUNCTIONS.to_vec(), max_spes: crate::machine::topology::SPES, defaults: StatsParams::default() },
        coll: CollCatalog {
            ops: coll::schedule::Op::ALL.iter().map(|o| o.name()).collect(),
            dtypes: coll::data::Dtype::NAMES.to_vec(),
            reduce_ops: coll::data::ReduceOp::NAMES.to_vec(),
            default_spes: c::DEFAULT_SPES,
            max_spes: c::MAX_SPES,
            default_size: c::DEFAULT_SIZE,
            default_iterations: c::DEFAULT_ITERATIONS,
            default_dtype: c::DEFAULT_DTYPE,
            default_reduce_op: c::DEFAULT_REDUCE_OP,
        },
        affinity: AffinityLimits {
            spe_counts: a::SPE_COUNTS.to_vec(),
            default_spes: a::DEFAULT_SPES,
            default_trials: a::DEFAULT_TRIALS,
            max_trials: a::MAX_TRIALS,
            default_samples: a::DEFAULT_SAMPLES,
            objectives: affinity::search::Objective::NAMES.to_vec(),
            placements: affinity::placement::named().collect(),
            default_placement: a::DEFAULT_PLACEMENT,
            collective_default_size: affinity::pattern::COLLECTIVE_DEFAULT_SIZE,
            search: SearchLimits {
                ranked_starts: affinity::search::RANKED_STARTS,
                pruned_keep: affinity::search::PRUNED_KEEP,
                polish_budget: affinity::search::POLISH_BUDGET,
            },
        },
        model: crate::model::request::catalog(),
        mpi: crate::mpi::request::catalog(),
        sdk: crate::sdk::request::catalog(),
        reproduce_groups: crate::reproduce::group_ids(),
        quick_differs: crate::reproduce::QUICK_DIFFERS,
        cluster: crate::cluster::request::catalog(),
        machine_parameters: crate::machine::parameters::PARAMETERS,
        build: crate::bench::build_kind(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_requests_take_the_same_path() {
        let out: Value =
            serde_json::from_str(&run_json::<coll::request::ScheduleRequest>(r#"{"algorithm": "barrier.rdb", "spes": 4}"#).unwrap())
                .unwrap();
        assert_eq!(out["result"]["placement"], serde_json::json!([0, 1, 2, 3]));
        assert!(out["machine_toml"].is_null());
        let e = run_json::<StatsParams>(r#"{"function": "signal", "machine": {"preset": "qs20", "toml": "x"}}"#).unwrap_err();
        assert_eq!(e.message(), "choose a machine preset or a machine file, not both");
    }

    #[test]
    fn the_catalog_reads_the_programs_constants() {
        let c = catalog();
        assert_eq!(c.coll.default_size, coll::request::DEFAULT_SIZE);
        assert_eq!(c.stats.defaults.iterations, StatsParams::default().iterations);
        assert!(c.stats.functions.contains(&"dmaget"));
        assert_eq!(c.affinity.spe_counts, vec![8, 16]);
    }
}
