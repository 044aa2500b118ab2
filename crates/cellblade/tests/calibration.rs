//! The acceptance test of the blade: every calibration row holds by its kind's rule (README,
//! "Calibration"), except the rows the README lists as not met, each with its reason. A row that
//! starts to hold, or a listed row that disappears, fails the test too, so the list never goes
//! stale; so does a change in the honest counts.

use cellblade::calibrate::{run_all, run_compared};
use cellblade::evidence::{counts, Counts, Row};
use cellblade::machine::config::{load, preset_text};
use cellblade::machine::parameters;

/// Rows the model does not meet, as listed in the README ("Calibration: rows not met").
const NOT_MET: &[&str] = &[
    "SPE-SPE signal write",
    "fetch-and-add, one shared 4-64 B variable, 16 SPEs",
    "shared fetch-and-add, SPEs from chip 1 minus chip 0, 10-15 SPEs",
    "shared fetch-and-add, 128 B, 4-15 SPEs: the linear growth to 8 us, farthest point",
    "private-buffer GET latency, 512 B, XDRAM1",
    "16 B GET latency, main memory / another SPE's LS",
    "blocking 16 KB GET from memory, one SPE",
    "1024 x 16 B list latency, 16 SPEs",
    "1024 x 16 B lists aggregate, 1-16 SPEs, farthest from 3",
    "Table 1 #5: 1 <- 3, loss",
    "Table 1 #9: 5 <- 4, loss",
    "Table 1 #9: 6 <- 0, loss",
    "Table 1 #9: 7 <- 2, loss",
    "Table 1 #10: 1 <- 6, loss",
    "Table 1 #10: 3 <- 4, loss",
    "Table 1 #10: 5 <- 2, loss",
];

fn rows() -> Vec<Row> {
    run_all(&load(preset_text("qs20").unwrap(), &[]).unwrap()).unwrap()
}

#[test]
fn every_row_holds_except_the_listed_ones() {
    let rows = rows();
    let mut surprises = Vec::new();
    for r in &rows {
        let listed = NOT_MET.contains(&r.name.as_str());
        if r.holds == listed {
            surprises.push(format!(
                "{}: published {} simulated {:.3} {} (error {:+.3}), listed as not met: {listed}",
                r.name, r.published, r.simulated, r.unit, r.error
            ));
        }
    }
    assert!(surprises.is_empty(), "{}", surprises.join("\n"));
    for name in NOT_MET {
        assert!(rows.iter().any(|r| r.name == *name), "listed row {name} no longer exists");
    }
}

#[test]
fn names_are_unique_and_same_as_names_a_counted_row() {
    let rows = rows();
    let mut names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), rows.len(), "duplicate row names");
    for r in rows.iter().filter_map(|r| r.same_as.as_ref().map(|s| (r, s))) {
        let target = rows.iter().find(|t| t.name == *r.1).unwrap_or_else(|| panic!("{} is the same as a missing row {}", r.0.name, r.1));
        assert!(target.same_as.is_none(), "{} points at another same_as row", r.0.name);
        assert_eq!(target.unit, r.0.unit);
    }
}

/// The README's counts ("Calibration") come from the rows' flags; a change must update both.
#[test]
fn honest_counts() {
    let c = counts(&run_compared(&load(preset_text("qs20").unwrap(), &[]).unwrap()).unwrap());
    // Eight predictions that hold are failed by a blade without contention: the losses of three
    // and four transfers one way (Table 1 #3, #4, #7), which need the rings' start gate and the
    // arbiter's blind assignments. #5's five rows are fitted (the start interval was chosen on
    // them), so they are not among the predictions.
    assert_eq!(
        c,
        Counts { rows: 66, fitted: 20, fitted_hold: 19, predictions: 46, predictions_hold: 32, predictions_hold_discriminating: 8 }
    );
    assert!(c.fitted * 2 <= c.rows, "{c:?}");
}

/// The blade without contention is what its name says: Table 1's contended patterns lose
/// nothing on it (so every loss row with a real published loss fails there), while the
/// uncontended rows and the ramps' own limit stay.
#[test]
fn a_blade_without_contention_loses_nothing_to_the_bus() {
    let free = run_all(&load(preset_text("qs20").unwrap(), &["eib.contention=false".into()]).unwrap()).unwrap();
    for r in free.iter().filter(|r| r.kind == "loss") {
        assert!(r.simulated.abs() < 0.01, "{} loses {:.3} without contention", r.name, r.simulated);
        assert_eq!(r.holds, r.published.abs() <= cellblade::evidence::rules::LOSS, "{}", r.name);
    }
    let alone = free.iter().find(|r| r.name.starts_with("Table 1 #1")).unwrap();
    assert!(alone.holds && alone.simulated < 25.6, "one transfer is still bound by its ramps: {}", alone.simulated);
}

#[test]
fn each_kind_applies_its_rule() {
    for r in rows() {
        let expected = match r.kind.as_str() {
            "value" => ((r.simulated - r.published) / r.published).abs() <= cellblade::evidence::rules::MEASURED,
            "upper_bound" => r.simulated <= r.published,
            "loss" => (r.simulated - r.published).abs() <= cellblade::evidence::rules::LOSS,
            other => panic!("{}: unknown kind {other}", r.name),
        };
        assert_eq!(r.holds, expected, "{}", r.name);
    }
}

/// The blind draws stand for arbiter state the seeds do not describe, so another draw seed is
/// an equally likely blade: no row's verdict may depend on which one runs, and the losses the
/// draws give move by well under the loss rule's 2.5 points.
#[test]
fn no_verdict_depends_on_the_draw_seed() {
    let base = rows();
    let mut moved = false;
    for seed in [1, 2] {
        let other = run_all(&load(preset_text("qs20").unwrap(), &[format!("eib.draw_seed={seed}")]).unwrap()).unwrap();
        assert_eq!(base.len(), other.len());
        for (a, b) in base.iter().zip(&other) {
            assert_eq!((&a.name, a.holds), (&b.name, b.holds), "seed {seed}: {} {:.3} against {:.3}", a.name, a.simulated, b.simulated);
            if a.kind == "loss" {
                assert!((a.simulated - b.simulated).abs() < 0.015, "seed {seed}: {} {:.3} against {:.3}", a.name, a.simulated, b.simulated);
                moved |= a.simulated != b.simulated;
            }
        }
    }
    assert!(moved, "the draw seed must change the draws");
}

/// The core's parameter table (`machine/parameters.rs`) and the calibration agree on what was
/// fitted on which row: checked here, above the machine layer the table lives in.
#[test]
fn every_fitted_key_names_a_fitted_row_that_names_it() {
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let rows = run_all(&file).unwrap();
    let fitted = |p: &&parameters::Parameter| p.origin == parameters::Origin::Fitted;
    for fit in parameters::PARAMETERS.iter().filter(fitted) {
        if ["mpi.call_core_cycles", "spu.signal_call_core_cycles", "spu.cml_message_core_cycles"].contains(&fit.key) {
            continue; // fitted on a claim of `reproduce` (seed 004's, seed 000's), checked with those claims
        }
        let row = rows.iter().find(|r| r.name == fit.source).unwrap_or_else(|| panic!("{}: no row '{}'", fit.key, fit.source));
        assert!(row.fitted && row.note.contains(fit.key), "{}: row '{}' is not marked as fitting it: {}", fit.key, row.name, row.note);
    }
    // A row marked fitted names a key that is declared fitted.
    for row in rows.iter().filter(|r| r.fitted) {
        let named = parameters::PARAMETERS.iter().filter(fitted).any(|p| row.note.contains(p.key));
        assert!(named || row.name == "PPE-SPE signal via library call", "row '{}' fits no declared key: {}", row.name, row.note);
    }
}
