//! A claim: one finding of a paper, stated in words with its source, the published and the
//! simulated figure, and its verdict by one of [`super::rules`].

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    pub claim: String,
    pub source: String,
    pub published: String,
    pub simulated: String,
    /// `status == "holds"`.
    pub holds: bool,
    /// "holds", "does not hold", "not modelled" or "unverified".
    pub status: String,
    pub note: String,
    /// A machine-file value was chosen to match this claim: it holds by construction and is
    /// not counted among the predictions.
    pub fitted: bool,
    /// Whether the claim also holds on a blade without contention (`eib.contention = false`);
    /// `None` where that was not run. A prediction that holds here and not there is evidence
    /// of the contention model; one that holds on both says nothing about it.
    pub without_contention: Option<bool>,
}

impl Claim {
    /// Mark the claim as the one a machine-file value was fitted on.
    pub fn fitted(self) -> Claim {
        Claim { fitted: true, ..self }
    }

    /// The claim with its status `unverified` (a run behind it computed a wrong result): not
    /// counted, whatever its timing says; `note` says which.
    pub fn unverified(self, note: String) -> Claim {
        Claim { holds: false, status: "unverified".into(), note, ..self }
    }

    /// Judged: it holds or it does not (neither not modelled nor unverified).
    pub fn judged(&self) -> bool {
        self.status == "holds" || self.status == "does not hold"
    }
}

/// A claim judged by `holds` (computed by one of [`super::rules`]).
pub fn claim(claim: &str, source: &str, published: &str, simulated: String, holds: bool, note: &str) -> Claim {
    let status = if holds { "holds" } else { "does not hold" };
    Claim {
        claim: claim.into(),
        source: source.into(),
        published: published.into(),
        simulated,
        holds,
        status: status.into(),
        note: note.into(),
        fitted: false,
        without_contention: None,
    }
}

/// A claim about something the model does not have: shown, not counted.
pub fn not_modelled(claim_text: &str, source: &str, published: &str, simulated: String, note: &str) -> Claim {
    Claim { status: "not modelled".into(), ..claim(claim_text, source, published, simulated, false, note) }
}

/// A claim that `reproduce --quick` does not check (its run takes longer than the rest of a
/// quick run): shown with its text, not counted.
pub fn skipped(claim_text: &str, source: &str, published: &str, note: &str) -> Claim {
    Claim { status: SKIPPED.into(), ..claim(claim_text, source, published, "not run with --quick".into(), false, note) }
}

/// The status of a claim that `--quick` skips.
pub const SKIPPED: &str = "skipped";

/// `claims` with each one's verdict on the blade without contention (`free`: the same claims
/// in the same order).
pub fn compared(mut claims: Vec<Claim>, free: Vec<Claim>) -> Vec<Claim> {
    debug_assert_eq!(claims.len(), free.len());
    for (c, f) in claims.iter_mut().zip(free) {
        debug_assert_eq!(c.claim, f.claim, "a group states the same claims on every machine");
        c.without_contention = (c.judged() && f.judged()).then_some(f.holds);
    }
    claims
}
