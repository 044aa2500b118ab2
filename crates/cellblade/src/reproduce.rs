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
//! about) or `unverified` (a collective run behind it computed a wrong result): only the first
//! two are counted.

use crate::error::Result;
use crate::evidence::claim::{compared, redrawn};
use crate::evidence::Claim;
use crate::machine::config::MachineFile;

pub fn run_all(file: &MachineFile, quick: bool) -> Result<Vec<Claim>> {
    run_groups(file, quick, &group_ids())
}

/// A group of claims: an id and the function that runs the simulations its claims share and
/// states them. Groups share nothing, so a front may run them apart (one per worker) and
/// concatenate their claims in the order of `GROUPS`, which is `run_all`'s.
type Group = (&'static str, fn(&MachineFile, bool) -> Result<Vec<Claim>>);

/// Groups small enough that a front running them on two cores keeps both busy, the largest
/// first (affinity's ten pattern experiments are half the work): a front that starts them in
/// this order ends with the small ones instead of waiting on the largest (README: "Parallel
/// sweeps and Dask" has the times).
const GROUPS: [Group; 6] = [
    ("affinity", crate::affinity::claims::claims),
    ("barriers", crate::coll::claims::barriers),
    ("broadcasts", crate::coll::claims::broadcasts),
    ("reductions", crate::coll::claims::reductions),
    ("model", crate::model::claims::claims),
    ("mpi", crate::mpi::claims),
];

/// The claim-group ids, in the order `run_all` states them.
pub fn group_ids() -> Vec<&'static str> {
    GROUPS.iter().map(|(id, _)| *id).collect()
}

/// The claims of the groups `ids`, in the order of `GROUPS` (not of `ids`); an unknown id is
/// an error of field `claims` naming the known ones.
pub fn run_groups<S: AsRef<str>>(file: &MachineFile, quick: bool, ids: &[S]) -> Result<Vec<Claim>> {
    if let Some(bad) = ids.iter().map(AsRef::as_ref).find(|id| !GROUPS.iter().any(|(known, _)| known == id)) {
        return Err(crate::error::field_err("claims", bad, format!("one of {}", group_ids().join(", "))));
    }
    let (free, other) = (file.without_contention(), file.redrawn());
    let mut out = Vec::new();
    for (_, run) in GROUPS.iter().filter(|(id, _)| ids.iter().any(|wanted| wanted.as_ref() == *id)) {
        let claims = run(file, quick)?;
        let claims = if file.draws() { redrawn(claims, run(&other, quick)?) } else { claims };
        out.extend(compared(claims, run(&free, quick)?));
    }
    Ok(out)
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
}

impl crate::request::Request for ReproduceRequest {
    const NAME: &'static str = "reproduce";
    type Output = Vec<Claim>;

    fn run(self, machine: &MachineFile) -> Result<Vec<Claim>> {
        match self.claims {
            Some(ids) => run_groups(machine, self.quick, &ids),
            None => run_all(machine, self.quick),
        }
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
        let err = run_groups(&qs20(), true, &["barriers", "nope"]).unwrap_err();
        assert_eq!(err.field(), Some("claims"));
        assert_eq!(err.to_string(), "claims nope is not allowed: one of affinity, barriers, broadcasts, reductions, model, mpi");
    }

    #[test]
    fn no_group_states_no_claim() {
        assert!(run_groups::<&str>(&qs20(), true, &[]).unwrap().is_empty());
    }
}
