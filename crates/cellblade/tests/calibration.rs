//! The acceptance test of the blade: every calibration row within 10% of its published value,
//! except the rows the README lists as not met, each with its reason. A row that starts to
//! hold is reported too, so the list never goes stale.

use cellblade::calibrate::run_all;
use cellblade::machine::config::{load, preset_text};

/// Rows the model does not meet, as listed in the README ("Calibration: rows not met").
const NOT_MET: &[&str] = &[
    "PPE-SPE mailbox, SPE on chip 0",
    "fetch-and-add, one shared variable, 16 SPEs",
    "1024 x 16 B list latency, 16 SPEs",
    "SPE-SPE signal write",
    "Table 1 #9: 6 <- 0, 64 KB",
    "Table 1 #10: 1 <- 6, 64 KB",
    "Table 1 #10: 3 <- 4, 64 KB",
    "Table 1 #10: 5 <- 2, 64 KB",
];

#[test]
fn every_row_holds_except_the_listed_ones() {
    let rows = run_all(&load(preset_text("qs20").unwrap(), &[]).unwrap()).unwrap();
    assert!(rows.len() >= 60, "only {} rows", rows.len());
    let mut surprises = Vec::new();
    for r in &rows {
        let listed = NOT_MET.contains(&r.name.as_str());
        if r.holds == listed {
            surprises.push(format!("{}: published {} simulated {:.2} {} ({:+.1}%), listed as not met: {listed}", r.name, r.published, r.simulated, r.unit, 100.0 * r.error));
        }
    }
    assert!(surprises.is_empty(), "{}", surprises.join("\n"));
    for name in NOT_MET {
        assert!(rows.iter().any(|r| r.name == *name), "listed row {name} no longer exists");
    }
}

#[test]
fn at_least_half_the_rows_are_predictions() {
    let rows = run_all(&load(preset_text("qs20").unwrap(), &[]).unwrap()).unwrap();
    let fitted = rows.iter().filter(|r| r.fitted).count();
    assert!(fitted * 2 <= rows.len(), "{fitted} of {} rows fitted", rows.len());
}
