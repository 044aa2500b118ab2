//! Leave-one-out: each fitted machine parameter whose group has more than one published row is
//! refitted on each other row of its group, by bisection through the simulator, and the table
//! shows what every row of the group becomes. A mechanism that holds only on the row it was
//! fitted on is not a mechanism.
//!
//! The groups are [`FITS`]: the parameter and the rows it moves; the row it is fitted on is its
//! declaration's (`machine::parameters`). Parameters fitted on a row of their own (thread
//! creation, the private fetch-and-add, the XDRAM1 aggregate) have nothing to leave out: they
//! are not in the table.

use serde::Serialize;

use crate::error::{config_err, field_err, Result};
use crate::evidence::row::judge;
use crate::evidence::Row;
use crate::machine::config::{load, MachineFile};
use crate::machine::parameters::parameter;
use crate::stats::rows as stats_rows;

/// The rows a group's parameter moves, as one row set of `stats/rows.rs`.
type RowSet = fn(&MachineFile) -> Result<Vec<Row>>;

/// One fitted parameter and its group.
pub struct Fit {
    /// The machine-file key.
    pub key: &'static str,
    /// The other published rows of its group, each refitted on in turn.
    pub others: &'static [&'static str],
    rows: &'static [RowSet],
    /// Whole numbers only (cycles).
    integer: bool,
    /// Where the bisection looks: wide enough for every row of the group, and inside the values
    /// at which the calibration runs at all (below 20 command-phase cycles or above 200
    /// tag-update cycles a second signal overwrites the first before it is read, in the
    /// register's overwrite mode as on the hardware, and the signal round trip waits forever).
    range: (f64, f64),
}

impl Fit {
    /// The row the machine file fits it on (its declaration in `machine::parameters`).
    pub fn fitted_on(&self) -> &'static str {
        parameter(self.key).expect("every group's key is declared").source
    }
}

/// Every fitted parameter whose group has more than one published row.
pub const FITS: &[Fit] = &[
    Fit {
        key: "eib.command_phase_bus_cycles",
        others: &[
            "SPE-SPE signal sync, same chip",
            "32-bit RTT through mailbox",
            "32-bit RTT through local store",
            "64-bit RTT through mailbox (2 messages)",
        ],
        rows: &[stats_rows::spe_sync_rows],
        integer: true,
        range: (20.0, 400.0),
    },
    Fit {
        key: "bif.noncacheable_crossing_ns",
        others: &["SPE-SPE signal sync, other chip", "PPE-SPE mailbox, SPE on chip 1", "PPE-SPE signal, SPE on chip 1"],
        rows: &[stats_rows::spe_sync_rows, stats_rows::ppe_rows],
        integer: false,
        range: (0.0, 2000.0),
    },
    Fit {
        key: "bif.noncacheable_read_return_ns",
        others: &["PPE-SPE signal, SPE on chip 1"],
        rows: &[stats_rows::ppe_rows],
        integer: false,
        range: (0.0, 1000.0),
    },
    Fit {
        key: "ppe.mmio_ns",
        others: &["PPE-SPE mailbox, SPE on chip 0", "PPE-SPE mailbox, SPE on chip 1", "PPE-SPE signal, SPE on chip 1"],
        rows: &[stats_rows::ppe_rows],
        integer: false,
        range: (0.0, 2000.0),
    },
    Fit {
        key: "ppe.syscall_ns",
        others: &["PPE-SPE signal via library call"],
        rows: &[stats_rows::ppe_rows],
        integer: false,
        range: (0.0, 40000.0),
    },
    Fit {
        key: "mic.read_latency_ns",
        others: &["private-buffer GET latency, 512 B, XDRAM0", "private-buffer GET latency, 512 B, XDRAM1"],
        rows: &[stats_rows::memory_rows],
        integer: false,
        range: (0.0, 1000.0),
    },
    Fit {
        key: "bif.crossing_latency_ns",
        others: &["private-buffer GET latency, 512 B, XDRAM1"],
        rows: &[stats_rows::memory_rows],
        integer: false,
        range: (0.0, 1000.0),
    },
    Fit {
        key: "eib.data_grants_per_bus_cycle",
        others: &[
            "Table 1 #7: 1 <- 3, loss",
            "Table 1 #7: 2 <- 0 (printed 0 <- 2), loss",
            "Table 1 #7: 5 <- 7, loss",
            "Table 1 #7: 6 <- 4, loss",
        ],
        rows: &[crate::affinity::rows::rows],
        integer: true,
        range: (1.0, 8.0),
    },
    Fit {
        key: "eib.blind_share",
        others: &[
            "Table 1 #4: 1 <- 3, loss",
            "Table 1 #4: 6 <- 4, loss",
            "Table 1 #3: 2 <- 0, loss",
            "Table 1 #7: 5 <- 7, loss",
            "Table 1 #5: 2 <- 0, loss",
        ],
        rows: &[crate::affinity::rows::rows],
        integer: false,
        range: (0.0, 1.0),
    },
    Fit {
        key: "mfc.tag_update_bus_cycles",
        others: &["16 B GET latency, main memory / another SPE's LS"],
        rows: &[stats_rows::small_dma_rows],
        integer: true,
        range: (0.0, 200.0),
    },
];

/// One row of a group: published, with the machine file's value, and with the refit value.
#[derive(Debug, Clone, Serialize)]
pub struct GroupRow {
    pub name: String,
    pub published: f64,
    pub unit: String,
    pub simulated: f64,
    pub holds: bool,
    /// `None` where no value in the range reproduces the row refitted on.
    pub refit_simulated: Option<f64>,
    pub refit_holds: Option<bool>,
}

/// A parameter refitted on one row of its group.
#[derive(Debug, Clone, Serialize)]
pub struct Refit {
    pub parameter: String,
    /// The machine file's value, fitted on `fitted_on`.
    pub value: f64,
    pub fitted_on: String,
    pub refit_on: String,
    /// The value that reproduces `refit_on`; `None` if none in `searched` does.
    pub refit_value: Option<f64>,
    pub searched: (f64, f64),
    /// Every row of the group, `fitted_on` first.
    pub rows: Vec<GroupRow>,
}

/// `file` with `key` set to `value`, as `--set` would.
fn with(file: &MachineFile, key: &str, value: f64, integer: bool) -> Result<MachineFile> {
    let v = if integer { format!("{}", value.round() as i64) } else { format!("{value:?}") };
    load(&file.to_toml(), &[format!("{key}={v}")])
}

/// The current value of `key` in `file`.
fn value_of(file: &MachineFile, key: &str) -> Result<f64> {
    let table: toml::Table = file.to_toml().parse().map_err(|e| config_err(format!("machine file does not parse: {e}")))?;
    let (section, name) = key.split_once('.').unwrap_or(("", key));
    table
        .get(section)
        .and_then(|s| s.get(name))
        .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
        .ok_or_else(|| config_err(format!("machine file has no numeric key '{key}'")))
}

fn run_rows(file: &MachineFile, fit: &Fit) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for set in fit.rows {
        rows.extend(set(file)?);
    }
    Ok(rows)
}

fn named<'a>(rows: &'a [Row], name: &str) -> Result<&'a Row> {
    rows.iter().find(|r| r.name == name).ok_or_else(|| config_err(format!("leave-one-out: no calibration row named '{name}'")))
}

/// The value of `fit.key` that makes row `target` come out at its published value: bisection on
/// the sign of simulated minus published over `fit.range` (every row here moves one way with its
/// parameter); `None` if both ends fall on one side. Stops within 0.1% of the published value.
pub fn solve(file: &MachineFile, fit: &Fit, target: &str) -> Result<Option<f64>> {
    let at = |v: f64| -> Result<f64> {
        let rows = run_rows(&with(file, fit.key, v, fit.integer)?, fit)?;
        let r = named(&rows, target)?;
        Ok(r.simulated - r.published)
    };
    let published = named(&run_rows(file, fit)?, target)?.published;
    let (mut lo, mut hi) = fit.range;
    let (mut f_lo, f_hi) = (at(lo)?, at(hi)?);
    if f_lo.signum() == f_hi.signum() {
        return Ok(None);
    }
    let mut best = if f_lo.abs() < f_hi.abs() { (lo, f_lo) } else { (hi, f_hi) };
    for _ in 0..60 {
        if best.1.abs() <= 1e-3 * published.abs() || (fit.integer && hi - lo <= 1.0) {
            break;
        }
        let mid = if fit.integer { ((lo + hi) / 2.0).floor() } else { (lo + hi) / 2.0 };
        let f_mid = at(mid)?;
        if f_mid.abs() < best.1.abs() {
            best = (mid, f_mid);
        }
        if f_mid.signum() == f_lo.signum() {
            (lo, f_lo) = (mid, f_mid);
        } else {
            hi = mid;
        }
    }
    Ok(Some(best.0))
}

/// `fit` refitted on each row of `fit.others`.
pub fn refits(file: &MachineFile, fit: &Fit) -> Result<Vec<Refit>> {
    let base = run_rows(file, fit)?;
    let names: Vec<&str> = std::iter::once(fit.fitted_on()).chain(fit.others.iter().copied()).collect();
    let mut out = Vec::new();
    for &target in fit.others {
        let refit_value = solve(file, fit, target)?;
        let refit_rows = refit_value.map(|v| run_rows(&with(file, fit.key, v, fit.integer)?, fit)).transpose()?;
        let mut rows = Vec::new();
        for &name in &names {
            let r = named(&base, name)?;
            let again = refit_rows.as_ref().map(|rs| named(rs, name).map(|x| x.simulated)).transpose()?;
            rows.push(GroupRow {
                name: name.into(),
                published: r.published,
                unit: r.unit.clone(),
                simulated: r.simulated,
                holds: r.holds,
                refit_simulated: again,
                refit_holds: again.map(|s| judge(&r.kind, s, r.published)),
            });
        }
        out.push(Refit {
            parameter: fit.key.into(),
            value: value_of(file, fit.key)?,
            fitted_on: fit.fitted_on().into(),
            refit_on: target.into(),
            refit_value,
            searched: fit.range,
            rows,
        });
    }
    Ok(out)
}

/// The leave-one-out table of the parameters `keys` (every one of [`FITS`] when empty).
pub fn run(file: &MachineFile, keys: &[String]) -> Result<Vec<Refit>> {
    if let Some(bad) = keys.iter().find(|k| !FITS.iter().any(|f| f.key == k.as_str())) {
        let known: Vec<&str> = FITS.iter().map(|f| f.key).collect();
        return Err(field_err("parameters", bad, format!("one of {}", known.join(", "))));
    }
    let mut out = Vec::new();
    for fit in FITS.iter().filter(|f| keys.is_empty() || keys.iter().any(|k| k == f.key)) {
        out.extend(refits(file, fit)?);
    }
    Ok(out)
}

/// Every fitted parameter refitted on each other row of its group.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LeaveOneOutRequest {
    /// Only these parameters (machine-file keys); every fitted one with a group when empty.
    pub parameters: Vec<String>,
}

impl crate::request::Request for LeaveOneOutRequest {
    const NAME: &'static str = "leave_one_out";
    type Output = Vec<Refit>;

    fn run(self, machine: &MachineFile) -> Result<Vec<Refit>> {
        run(machine, &self.parameters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::config::preset_text;

    fn qs20() -> MachineFile {
        load(preset_text("qs20").unwrap(), &[]).unwrap()
    }

    #[test]
    fn a_refit_value_reproduces_its_new_row_within_the_rows_tolerance() {
        let file = qs20();
        let out = run(&file, &["mic.read_latency_ns".into()]).unwrap();
        assert_eq!(out.len(), 2, "one refit per other row of the group");
        for refit in &out {
            let v = refit.refit_value.expect("300 ns is reachable from 0 to 1000 ns of read latency");
            assert!(v != refit.value, "{refit:?}");
            let row = refit.rows.iter().find(|r| r.name == refit.refit_on).unwrap();
            assert_eq!(row.refit_holds, Some(true), "{refit:?}");
            assert!((row.refit_simulated.unwrap() / row.published - 1.0).abs() <= 0.01, "{refit:?}");
            // The row fitted on comes first, with the machine file's verdict.
            assert_eq!(refit.rows[0].name, refit.fitted_on);
            assert!(refit.rows[0].holds);
        }
    }

    #[test]
    fn the_groups_name_rows_that_exist_and_fit_on_what_the_machine_file_says() {
        let file = qs20();
        let all = crate::calibrate::run_all(&file).unwrap();
        for fit in FITS {
            let fitted = named(&all, fit.fitted_on()).unwrap();
            assert!(fitted.fitted && fitted.note.contains(fit.key), "{}: {}", fit.key, fitted.note);
            for other in fit.others {
                named(&all, other).unwrap();
            }
            let v = value_of(&file, fit.key).unwrap();
            assert!(fit.range.0 <= v && v <= fit.range.1, "{} = {v} outside its search range", fit.key);
        }
    }

    #[test]
    fn an_unknown_parameter_is_refused_with_the_known_ones() {
        let e = run(&qs20(), &["eib.nope".into()]).unwrap_err();
        assert_eq!(e.field(), Some("parameters"));
        assert!(e.to_string().starts_with("parameters eib.nope is not allowed: one of eib.command_phase_bus_cycles, "), "{e}");
    }
}
