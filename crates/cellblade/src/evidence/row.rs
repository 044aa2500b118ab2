//! A calibration row: one published measurement beside the simulated one, judged by its kind's
//! rule (`value`: [`rules::measured`], `upper_bound`: [`rules::under`], `loss`: [`rules::loss`]).
//!
//! Rows marked `fitted` were used to choose a machine-file value (the file names the row), or a
//! structural choice of the model (the note says which); the others are predictions. A row
//! with `same_as` measures the same simulated quantity as the row it names (another published
//! number for it): it is shown, but counted once, under that row.

use serde::Serialize;

use super::rules;

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Row {
    pub name: String,
    pub source: String,
    pub published: f64,
    pub simulated: f64,
    pub unit: String,
    /// `value`, `upper_bound`: (simulated - published) / published; `loss`: simulated - published.
    pub error: f64,
    pub fitted: bool,
    /// "value", "upper_bound" or "loss" (the rules are in [`super::rules`]).
    pub kind: String,
    pub holds: bool,
    /// The row measuring the same simulated quantity, under which this one is counted.
    pub same_as: Option<String>,
    pub note: String,
    /// Whether the row also holds on a blade without contention (`eib.contention = false`);
    /// `None` where that was not run. A prediction that holds here and fails there is evidence
    /// for the contention model; one that holds on both could not tell them apart.
    #[serde(default)]
    pub without_contention: Option<bool>,
    /// The row held with some of the [`super::claim::DRAW_SEEDS`] draw seeds of the blind
    /// arbiter and not with the others ([`redrawn`]): its verdict rests on the draws, so it does
    /// not hold.
    #[serde(default)]
    pub depends_on_draws: bool,
}

/// A published value ("about", "around" and plain numbers).
pub fn row(name: &str, source: &str, published: f64, simulated: f64, unit: &str, fitted: bool, note: &str) -> Row {
    Row {
        name: name.into(),
        source: source.into(),
        published,
        simulated,
        unit: unit.into(),
        error: (simulated - published) / published,
        fitted,
        kind: "value".into(),
        holds: rules::measured(simulated, published),
        same_as: None,
        note: note.into(),
        without_contention: None,
        depends_on_draws: false,
    }
}

/// A published limit ("under 100 ns").
pub fn bound(name: &str, source: &str, limit: f64, simulated: f64, unit: &str, note: &str) -> Row {
    Row { kind: "upper_bound".into(), holds: rules::under(simulated, limit), ..row(name, source, limit, simulated, unit, false, note) }
}

/// A bandwidth loss against the uncontended transfer, published and simulated as fractions;
/// `error` is the difference in points, not relative.
pub fn loss(name: &str, source: &str, published: f64, simulated: f64, fitted: bool, note: &str) -> Row {
    Row {
        kind: "loss".into(),
        error: simulated - published,
        holds: rules::loss(simulated, published),
        ..row(name, source, published, simulated, "fraction", fitted, note)
    }
}

/// `rows` judged again against the same rows on equally likely blades with other draws
/// (`others[k]`: the draw seed k + 1 further on, each in the same order), as claims are
/// ([`super::claim::redrawn`]): a row whose verdict is not the same under every draw seed does
/// not hold, and its note says under how many it held.
pub fn redrawn(mut rows: Vec<Row>, others: Vec<Vec<Row>>) -> Vec<Row> {
    let seeds = others.len() + 1;
    for (i, r) in rows.iter_mut().enumerate() {
        debug_assert!(others.iter().all(|o| o[i].name == r.name), "the same rows on every machine");
        let held = usize::from(r.holds) + others.iter().filter(|o| o[i].holds).count();
        if let Some(why) = super::claim::draws_note(held, seeds) {
            r.depends_on_draws = true;
            r.holds = false;
            r.note = super::claim::noted(&r.note, why);
        }
    }
    rows
}

/// Mark `r` as measuring the same simulated quantity as the row named `of`.
pub fn same(mut r: Row, of: &str) -> Row {
    r.same_as = Some(of.into());
    r
}

/// Whether `simulated` passes the rule of a row of `kind` published at `published`.
pub fn judge(kind: &str, simulated: f64, published: f64) -> bool {
    match kind {
        "upper_bound" => rules::under(simulated, published),
        "loss" => rules::loss(simulated, published),
        _ => rules::measured(simulated, published),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row whose verdict changes from one draw seed to another does not hold and says under
    /// how many it held; one that holds, or fails, under every seed is left alone.
    #[test]
    fn a_row_whose_verdict_changes_with_the_draws_does_not_hold() {
        let at = |simulated: f64| loss("a loss", "seed 001", 0.20, simulated, false, "");
        let out = redrawn(vec![at(0.20), at(0.20), at(0.30)], vec![vec![at(0.20), at(0.30), at(0.30)], vec![at(0.21), at(0.20), at(0.30)]]);
        let verdicts: Vec<(bool, bool)> = out.iter().map(|r| (r.holds, r.depends_on_draws)).collect();
        assert_eq!(verdicts, [(true, false), (false, true), (false, false)]);
        assert_eq!(out[1].note, "holds with 2 of 3 draw seeds of the arbiter: the verdict rests on the draws");
        assert_eq!(out[1].simulated, 0.20, "the machine file's own run is the one shown");
    }
}
