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
    /// The claim held with some of the [`DRAW_SEEDS`] draw seeds of the blind arbiter and not
    /// with the others ([`redrawn`]): its verdict rests on the draws, not on the mechanism, so
    /// it does not hold.
    pub depends_on_draws: bool,
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
        depends_on_draws: false,
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

/// Draw seeds of the blind arbiter every claim runs under: the machine file's and the next
/// ones. Each is an equally likely blade, so a claim holds only if it holds under all of them;
/// a claim that holds with probability q under a random seed passes by luck with q^4.
pub const DRAW_SEEDS: u64 = 4;

/// The note of a claim or row that held under `held` of `seeds` draw seeds; None when the
/// verdict is the same under all of them.
pub(super) fn draws_note(held: usize, seeds: usize) -> Option<String> {
    (held != 0 && held != seeds).then(|| format!("holds with {held} of {seeds} draw seeds of the arbiter: the verdict rests on the draws"))
}

/// `note` with `more` after it.
pub(super) fn noted(note: &str, more: String) -> String {
    if note.is_empty() {
        more
    } else {
        format!("{note}; {more}")
    }
}

/// `claims` judged again against the same claims on equally likely blades with other draws
/// (`others[k]`: the draw seed k + 1 further on, each in the same order): a claim whose verdict
/// is not the same under every draw seed does not hold, and says under how many it held and
/// what the first seed that disagrees measured.
pub fn redrawn(mut claims: Vec<Claim>, others: Vec<Vec<Claim>>) -> Vec<Claim> {
    let seeds = others.len() + 1;
    let mut others: Vec<std::vec::IntoIter<Claim>> = others.into_iter().map(Vec::into_iter).collect();
    for c in claims.iter_mut() {
        let again: Vec<Claim> = others.iter_mut().map(|o| o.next().expect("a group states the same claims on every machine")).collect();
        debug_assert!(again.iter().all(|o| o.claim == c.claim), "a group states the same claims on every machine");
        if !c.judged() || again.iter().any(|o| !o.judged()) {
            continue;
        }
        let held = usize::from(c.holds) + again.iter().filter(|o| o.holds).count();
        let (Some(why), Some((k, differs))) = (draws_note(held, seeds), again.iter().enumerate().find(|(_, o)| o.holds != c.holds)) else {
            continue;
        };
        c.depends_on_draws = true;
        c.holds = false;
        c.status = "does not hold".into();
        c.simulated = format!("{}; with draw seed +{}: {}", c.simulated, k + 1, differs.simulated);
        c.note = noted(&c.note, why);
    }
    claims
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(holds: bool) -> Claim {
        claim("EvenOdd best", "seed 001 §5", "best", format!("{}", if holds { 100 } else { 97 }), holds, "")
    }

    #[test]
    fn a_verdict_that_changes_with_the_draws_does_not_hold() {
        let out = redrawn(
            vec![judged(true), judged(false), judged(true), judged(false)],
            vec![vec![judged(false), judged(true), judged(true), judged(false)]],
        );
        let verdicts: Vec<(bool, bool)> = out.iter().map(|c| (c.holds, c.depends_on_draws)).collect();
        assert_eq!(verdicts, [(false, true), (false, true), (true, false), (false, false)]);
        assert_eq!(out[0].status, "does not hold");
        assert_eq!(out[0].simulated, "100; with draw seed +1: 97");
        assert!(out[0].note.contains("holds with 1 of 2 draw seeds of the arbiter"), "{}", out[0].note);
        assert!(out[1].note.contains("holds with 1 of 2 draw seeds of the arbiter"), "{}", out[1].note);
        assert!(out[2].note.is_empty() && out[3].note.is_empty());
    }

    /// Every seed must agree: one dissenting seed among several is enough, it is the one shown,
    /// and the note counts the seeds the claim held with.
    #[test]
    fn one_dissenting_seed_of_several_is_enough() {
        let out = redrawn(
            vec![judged(true), judged(true)],
            vec![vec![judged(true), judged(true)], vec![judged(true), judged(true)], vec![judged(false), judged(true)]],
        );
        assert_eq!((out[0].holds, out[0].depends_on_draws), (false, true));
        assert_eq!(out[0].simulated, "100; with draw seed +3: 97");
        assert!(out[0].note.contains("holds with 3 of 4 draw seeds"), "{}", out[0].note);
        assert_eq!((out[1].holds, out[1].depends_on_draws), (true, false));
    }

    #[test]
    fn claims_that_are_not_judged_are_left_alone() {
        let shown = not_modelled("EvenOdd best", "seed 001 §5", "best", "-".into(), "");
        let out = redrawn(vec![shown.clone()], vec![vec![judged(true)], vec![judged(false)]]);
        assert_eq!((out[0].status.as_str(), out[0].depends_on_draws), ("not modelled", false));
    }
}
