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
