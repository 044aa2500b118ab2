//! Calibration: every published measurement the blade must reproduce, re-run on the simulated
//! blade with the seed's method, beside the published value with its source and the error,
//! judged under each of the arbiter's draw seeds and again on the blade without contention. This module only gathers: the rows live
//! beside the code they measure (`stats/rows.rs`, `affinity/rows.rs`), and the row, its rules
//! (`value`, `upper_bound`, `loss`) and its counts are the evidence layer's
//! ([`crate::evidence::row`]). `leave_one_out` refits each fitted parameter on another row of
//! its group.

pub mod leave_one_out;
pub mod policies;

use crate::error::Result;
use crate::evidence::claim::DRAW_SEEDS;
use crate::evidence::Row;
use crate::machine::config::MachineFile;

/// Every row, judged under each of the arbiter's [`DRAW_SEEDS`] draw seeds (a row holds only
/// if it holds under all of them), each with its verdict on the same blade without contention.
pub fn run_compared(file: &MachineFile) -> Result<Vec<Row>> {
    let mut runs = file.redraws(DRAW_SEEDS).iter().map(run_all).collect::<Result<Vec<_>>>()?.into_iter();
    let first = runs.next().expect("a blade runs under its own draw seed");
    let mut rows = crate::evidence::row::redrawn(first, runs.collect());
    for (r, free) in rows.iter_mut().zip(run_all(&file.without_contention())?) {
        debug_assert_eq!(r.name, free.name, "the same rows on every machine");
        r.without_contention = Some(free.holds);
    }
    Ok(rows)
}

/// Every row: seed 000-004's measurements (`stats/rows.rs`), then seed 001's Table 1
/// (`affinity/rows.rs`).
pub fn run_all(file: &MachineFile) -> Result<Vec<Row>> {
    let mut rows = crate::stats::rows::all(file)?;
    rows.extend(crate::affinity::rows::rows(file)?);
    Ok(rows)
}

/// Every calibration row on the chosen machine: the request has no fields of its own.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrateRequest {}

impl crate::request::Request for CalibrateRequest {
    const NAME: &'static str = "calibrate";
    type Output = Vec<Row>;

    fn run(self, machine: &MachineFile) -> Result<Vec<Row>> {
        run_compared(machine)
    }
}
