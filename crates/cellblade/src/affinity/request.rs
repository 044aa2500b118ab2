//! The affinity programs' requests (run a pattern under placements, search the best placement),
//! with their defaults and limits.

use serde::Deserialize;

use super::placement::{self, Placement};
use super::search::{search, Objective, SearchResult};
use super::{pattern, run, Choice, PlacementResult, REPS};
use crate::error::{config_err, field_err, field_msg, Result};
use crate::machine::config::MachineFile;
use crate::request::{within, NameList, Request};

/// Ranks when a request names none: one chip.
pub const DEFAULT_SPES: usize = 8;
/// Ranks a pattern can run on: one chip, or both with the same placement on each.
pub const SPE_COUNTS: [usize; 2] = [8, 16];
/// Trials per placement (each with its own start skew and default assignment).
pub const DEFAULT_TRIALS: u32 = 8;
/// The most trials a run may ask for: each is a full simulation of `reps` operations.
pub const MAX_TRIALS: u32 = 100;
/// Draws of the default scheduler a search scores beside its best and worst placements.
pub const DEFAULT_SAMPLES: usize = 40;
/// The placement name that stands for the default (non-deterministic) scheduler.
pub const DEFAULT_PLACEMENT: &str = "default";

fn default_spes() -> usize {
    DEFAULT_SPES
}
fn default_trials() -> u32 {
    DEFAULT_TRIALS
}
fn default_samples() -> usize {
    DEFAULT_SAMPLES
}

fn spe_words() -> String {
    "8 (one chip) or 16 (both chips)".into()
}

fn allowed(field: &str) -> Option<String> {
    match field {
        "spes" => Some(spe_words()),
        "trials" => Some(format!("1 to {MAX_TRIALS}")),
        "reps" => Some(format!("1 to {}", u32::MAX)),
        "default_samples" => Some(format!("1 to {}", u64::MAX)),
        "placements" => Some(format!("\"all\", or names of placements and \"{DEFAULT_PLACEMENT}\"")),
        _ => None,
    }
}

/// The pattern `name` on `spes` ranks with its largest message `size` bytes (the pattern's
/// default when None).
fn pattern_of(name: &str, spes: usize, size: Option<u32>) -> Result<pattern::Pattern> {
    if !SPE_COUNTS.contains(&spes) {
        return Err(field_err("spes", spes, spe_words()));
    }
    if size == Some(0) {
        return Err(field_err("size", 0, "at least 1 byte"));
    }
    let Some(given) = size else {
        let size = pattern::default_size(name).map_err(|e| within("pattern", name, e))?;
        return pattern::build(name, spes, size).map_err(|e| within("pattern", name, e));
    };
    pattern::build(name, spes, given).map_err(|e| {
        // A pattern that builds at its own size but not at the one asked for: the size's fault,
        // so the error names `size` (and the CLI its flag), with the pattern's reason.
        let own = pattern::default_size(name).and_then(|s| pattern::build(name, spes, s));
        match own {
            Ok(_) => field_msg("size", format!("size {given} is not allowed: {}", e.message())),
            Err(_) => within("pattern", name, e),
        }
    })
}

/// Run a pattern under several placements (seed 001 §5's experiments).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// A pattern of the catalog, or a collective algorithm ("op.algorithm").
    pub pattern: String,
    /// "all" (the named placements and the default scheduler), or names.
    #[serde(default = "NameList::all")]
    pub placements: NameList,
    /// The text of a placement file, run after the named placements.
    #[serde(default)]
    pub placement_file: Option<String>,
    #[serde(default = "default_spes")]
    pub spes: usize,
    /// The largest message in bytes (the pattern's default when left out).
    #[serde(default)]
    pub size: Option<u32>,
    #[serde(default = "default_trials")]
    pub trials: u32,
    /// Operations per timed run ([`REPS`] when left out).
    #[serde(default)]
    pub reps: Option<u32>,
    #[serde(default)]
    pub seed: u64,
}

impl Request for RunRequest {
    const NAME: &'static str = "affinity run";
    type Output = Vec<PlacementResult>;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<Vec<PlacementResult>> {
        let pattern = pattern_of(&self.pattern, self.spes, self.size)?;
        if self.trials == 0 || self.trials > MAX_TRIALS {
            return Err(field_err("trials", self.trials, format!("1 to {MAX_TRIALS}")));
        }
        if self.reps == Some(0) {
            return Err(field_err("reps", 0, "at least 1"));
        }
        let names = self.placements.names().unwrap_or_else(|| placement::named().chain([DEFAULT_PLACEMENT]).map(String::from).collect());
        let mut choices = Vec::new();
        for n in &names {
            choices.push(if n == DEFAULT_PLACEMENT {
                Choice::Default
            } else {
                let p = Placement::named(n, self.spes).map_err(|_| {
                    let allowed = placement::named().chain([DEFAULT_PLACEMENT]).collect::<Vec<_>>().join(", ");
                    field_err("placements", n, format!("one of {allowed}"))
                })?;
                Choice::Fixed(n.to_lowercase(), p)
            });
        }
        if let Some(text) = &self.placement_file {
            choices.push(Choice::Fixed("file".into(), Placement::parse(text, self.spes)?));
        }
        if choices.is_empty() {
            return Err(config_err("no placement to run: name at least one, or give a placement file"));
        }
        let reps = self.reps.unwrap_or(REPS);
        choices.iter().map(|c| run(file, &pattern, c, self.spes, self.trials, reps, self.seed)).collect()
    }
}

/// Search the placement that does best on a pattern (seed 001 §7's future work).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    pub pattern: String,
    #[serde(default = "default_spes")]
    pub spes: usize,
    /// min_bandwidth or latency (latency for patterns of several phases when left out).
    #[serde(default)]
    pub objective: Option<String>,
    #[serde(default)]
    pub size: Option<u32>,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "default_samples")]
    pub default_samples: usize,
}

impl Request for SearchRequest {
    const NAME: &'static str = "affinity search";
    type Output = SearchResult;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<SearchResult> {
        let pattern = pattern_of(&self.pattern, self.spes, self.size)?;
        if self.default_samples == 0 {
            return Err(field_err("default_samples", 0, "at least 1 draw of the default scheduler"));
        }
        let objective = match self.objective.as_deref() {
            Some(o) => Objective::parse(o).map_err(|e| within("objective", o, e))?,
            None if pattern.phases.len() > 1 => Objective::Latency,
            None => Objective::MinBandwidth,
        };
        search(file, &pattern, self.spes, objective, self.seed, self.default_samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{parse, MachineChoice};
    use serde_json::{json, Value};

    fn err<R: Request>(v: Value) -> crate::error::Error {
        let file = MachineChoice::default().resolve().unwrap();
        match parse::<R>(v) {
            Ok(r) => r.run(&file).err().expect("refused"),
            Err(e) => e,
        }
    }

    #[test]
    fn bad_fields_are_named_with_value_and_range() {
        let e = err::<SearchRequest>(json!({"pattern": "ring", "default_samples": 0}));
        assert_eq!(
            (e.field(), e.message()),
            (Some("default_samples"), "default_samples 0 is not allowed: at least 1 draw of the default scheduler")
        );
        let e = err::<RunRequest>(json!({"pattern": "ring", "trials": 101}));
        assert_eq!(e.message(), "trials 101 is not allowed: 1 to 100");
        let e = err::<RunRequest>(json!({"pattern": "ring", "seed": -1}));
        assert_eq!(e.message(), "seed -1 is not allowed: a whole number from 0 to 18446744073709551615");
        let e = err::<RunRequest>(json!({"pattern": "ring", "spes": 12}));
        assert_eq!((e.field(), e.message()), (Some("spes"), "spes 12 is not allowed: 8 (one chip) or 16 (both chips)"));
        let e = err::<RunRequest>(json!({"pattern": "ring", "placements": ["nope"]}));
        assert_eq!(e.field(), Some("placements"));
        assert!(e.message().starts_with("placements nope is not allowed: one of identity"), "{}", e.message());
    }

    #[test]
    fn a_size_the_pattern_cannot_send_is_the_size_s_fault() {
        for r in [err::<RunRequest>(json!({"pattern": "ring", "size": 3})), err::<SearchRequest>(json!({"pattern": "ring", "size": 3}))] {
            assert_eq!(r.field(), Some("size"));
            assert_eq!(
                r.message(),
                "size 3 is not allowed: pattern ring with size 3 gives a 3-byte message: sizes must be multiples of 16"
            );
        }
        // A pattern that cannot run at any size stays the pattern's fault.
        let e = err::<RunRequest>(json!({"pattern": "nope", "size": 16}));
        assert_eq!(e.field(), Some("pattern"));
    }
}
