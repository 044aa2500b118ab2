//! The model's requests (measure, predict, grid, simulate, score, price, choose, time grid) on
//! the project's one request path ([`crate::request`]): each with its defaults, limits and
//! field-named errors. Parameters travel as the text of a parameter file (`params_toml`, which
//! `model measure` writes), the machine as every program's [`crate::request::MachineChoice`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::measure::{self, MeasureRequest, MAX_ITERATIONS, MAX_SIZE};
use super::params::ModelParams;
use super::predict::{self, PredictRequest, PredictResult};
use super::validate::{self, Point, Validation};
use super::{auto, price};
use crate::coll::algorithms;
use crate::coll::request::{DEFAULT_DTYPE, MAX_SPES};
use crate::coll::schedule::{Op, Schedule};
use crate::error::{field_err, field_msg, Result};
use crate::machine::config::{MachineFile, Params};
use crate::request::{within, Request};

/// Timed calls per simulated point of `model simulate` and `model predict --simulate`.
pub const DEFAULT_SIMULATE_ITERATIONS: u32 = 10;
/// Ranks of `model predict` when the request names none: one chip, as the seed's figures.
pub const DEFAULT_PREDICT_SPES: usize = 8;

pub(super) fn default_simulate_iterations() -> u32 {
    DEFAULT_SIMULATE_ITERATIONS
}
pub(super) fn default_dtype() -> String {
    DEFAULT_DTYPE.into()
}

/// The model requests' defaults and limits, for the fronts (`catalog()["model"]`).
#[derive(Debug, Clone, Serialize)]
pub struct ModelCatalog {
    pub measure_sizes: Vec<u32>,
    pub max_measure_size: u32,
    pub default_measure_iterations: u32,
    pub max_iterations: u32,
    pub default_simulate_iterations: u32,
    pub default_predict_spes: usize,
    /// The parameter file's format and measurement method: a cache of measured parameters
    /// keys on it, so a file from an older method is measured again.
    pub params_version: u32,
}

/// Raised whenever the parameter file's keys or a micro-benchmark's method change (2: the
/// butterfly's slowest DMA).
pub const PARAMS_VERSION: u32 = 2;

pub fn catalog() -> ModelCatalog {
    let measure = MeasureRequest::default();
    ModelCatalog {
        measure_sizes: measure.sizes,
        max_measure_size: MAX_SIZE,
        default_measure_iterations: measure.iterations,
        max_iterations: MAX_ITERATIONS,
        default_simulate_iterations: DEFAULT_SIMULATE_ITERATIONS,
        default_predict_spes: DEFAULT_PREDICT_SPES,
        params_version: PARAMS_VERSION,
    }
}

/// What the model requests' fields allow, for values that do not parse.
fn allowed(field: &str) -> Option<String> {
    match field {
        "spes" => Some(format!("1 to {MAX_SPES}")),
        "sizes" | "size" => Some(format!("message sizes in bytes, 0 to {}", u32::MAX)),
        "iterations" => Some(format!("1 to {MAX_ITERATIONS}")),
        "placement" => Some(format!("the physical SPE (0 to {}) of each rank", MAX_SPES - 1)),
        "params_toml" => Some("the text of a parameter file (`model measure` writes one)".into()),
        "points" => Some("a list of {algorithm, spes, size_bytes}".into()),
        "simulated" => Some("a list of latencies in ns, one per point".into()),
        _ => None,
    }
}

/// The model parameters in field `params_toml`.
fn params(text: &str) -> Result<ModelParams> {
    ModelParams::from_toml(text).map_err(|e| field_msg("params_toml", format!("params_toml: {e}")))
}

/// Timed calls per simulated point: 1 to [`MAX_ITERATIONS`].
pub(super) fn check_iterations(iterations: u32) -> Result<()> {
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(field_err("iterations", iterations, format!("1 to {MAX_ITERATIONS}")));
    }
    Ok(())
}

/// Every point names a registered algorithm and a possible SPE count.
fn check_points(points: &[Point]) -> Result<()> {
    for pt in points {
        algorithms::find(&pt.algorithm).map_err(|e| within("points", &pt.algorithm, e))?;
        if pt.spes == 0 || pt.spes > MAX_SPES {
            return Err(field_err("points", format!("spes {}", pt.spes), format!("1 to {MAX_SPES} SPEs per point")));
        }
    }
    Ok(())
}

/// The parameters measured and their file text.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    pub params: ModelParams,
    pub toml: String,
}

impl Request for MeasureRequest {
    const NAME: &'static str = "model measure";
    type Output = Measured;

    fn allowed(field: &str) -> Option<String> {
        match field {
            "sizes" => Some(format!("rising multiples of 16 bytes from 16 to {MAX_SIZE}")),
            _ => allowed(field),
        }
    }

    fn run(self, file: &MachineFile) -> Result<Measured> {
        let p = measure::measure(file, &self)?;
        Ok(Measured { toml: p.to_toml(), params: p })
    }
}

impl Request for PredictRequest {
    const NAME: &'static str = "model predict";
    type Output = PredictResult;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<PredictResult> {
        predict::predict(file, &params(&self.params_toml)?, &self)
    }
}

/// The validation grid's points (seed 003 §7.2) for these parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridRequest {
    /// The text of a parameter file.
    pub params_toml: String,
}

impl Request for GridRequest {
    const NAME: &'static str = "model grid";
    type Output = Vec<Point>;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<Vec<Point>> {
        Ok(validate::grid(file, &params(&self.params_toml)?))
    }
}

/// Simulates points of the grid (identity placement, int32 sum, root 0).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulateRequest {
    /// Points of the grid (`model grid`); any split of the grid gives the same latencies.
    pub points: Vec<Point>,
    /// Timed calls per point.
    #[serde(default = "default_simulate_iterations")]
    pub iterations: u32,
}

impl Request for SimulateRequest {
    const NAME: &'static str = "model simulate";
    type Output = Vec<f64>;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<Vec<f64>> {
        check_iterations(self.iterations)?;
        check_points(&self.points)?;
        validate::simulate_points(file, &self.points, self.iterations)
    }
}

/// Scores simulated points against the models; needs no machine.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreRequest {
    /// The text of a parameter file.
    pub params_toml: String,
    /// The points simulated (`model grid`).
    pub points: Vec<Point>,
    /// The simulated latency (ns) of each point, in order.
    pub simulated: Vec<f64>,
}

impl Request for ScoreRequest {
    const NAME: &'static str = "model score";
    const USES_MACHINE: bool = false;
    type Output = Validation;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, _: &MachineFile) -> Result<Validation> {
        let p = params(&self.params_toml)?;
        check_points(&self.points)?;
        if self.points.len() != self.simulated.len() {
            let n = self.simulated.len();
            return Err(field_err(
                "simulated",
                format!("({n} latencies)"),
                format!("one latency per point: there are {} points", self.points.len()),
            ));
        }
        if let Some(ns) = self.simulated.iter().find(|ns| !ns.is_finite() || **ns <= 0.0) {
            return Err(field_err("simulated", ns, "latencies above 0 ns"));
        }
        validate::score(&p, &self.points, &self.simulated)
    }
}

/// The price of any schedule (in its JSON form); needs no machine.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceRequest {
    /// The text of a parameter file.
    pub params_toml: String,
    /// A schedule in its JSON form (`coll schedule --json`, or a Python generator's).
    pub schedule: Value,
    /// The physical SPE of each rank (rank i on SPE i when left out).
    #[serde(default)]
    pub placement: Option<Vec<usize>>,
    /// The element type ([`DEFAULT_DTYPE`] when left out).
    #[serde(default = "default_dtype")]
    pub dtype: String,
}

impl Request for PriceRequest {
    const NAME: &'static str = "model price";
    const USES_MACHINE: bool = false;
    type Output = price::Price;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, _: &MachineFile) -> Result<price::Price> {
        let p = params(&self.params_toml)?;
        let s = Schedule::from_value(self.schedule)?;
        let placement = predict::placement_of(s.p, &self.placement)?;
        predict::check_dtype(&self.dtype)?;
        price::price(&p, &s, &placement, &self.dtype)
    }
}

/// The algorithm the model picks for one operation, SPE count and size (`--algos auto`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChooseRequest {
    /// The text of a parameter file.
    pub params_toml: String,
    /// The operation ("allreduce", ...).
    pub op: String,
    /// Ranks, 1 to [`MAX_SPES`].
    pub spes: usize,
    /// Message bytes (0 for a barrier).
    pub size: u32,
    /// The root rank of a broadcast or reduce.
    #[serde(default)]
    pub root: usize,
    /// The physical SPE of each rank (rank i on SPE i when left out).
    #[serde(default)]
    pub placement: Option<Vec<usize>>,
    /// The element type ([`DEFAULT_DTYPE`] when left out).
    #[serde(default = "default_dtype")]
    pub dtype: String,
}

impl Request for ChooseRequest {
    const NAME: &'static str = "model choose";
    type Output = auto::Choice;

    fn allowed(field: &str) -> Option<String> {
        match field {
            "root" => Some("a rank, from 0 to the number of SPEs - 1".into()),
            _ => allowed(field),
        }
    }

    fn run(self, file: &MachineFile) -> Result<auto::Choice> {
        let p = params(&self.params_toml)?;
        let op = Op::parse(&self.op).map_err(|e| within("op", &self.op, e))?;
        let placement = predict::placement_of(self.spes, &self.placement)?;
        if self.root >= self.spes {
            return Err(field_err("root", self.root, format!("0 to {}", self.spes - 1)));
        }
        predict::check_dtype(&self.dtype)?;
        auto::choose(&p, op, &placement, self.root, self.size, &self.dtype, Params::resolve(file).ls_bytes)
    }
}

/// The wall time to predict the whole validation grid with every model, without simulating
/// (`cellblade bench` prints it).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeGridRequest {
    /// The text of a parameter file.
    pub params_toml: String,
}

/// The grid's size and the wall time (s) to predict it with every model.
#[derive(Debug, Clone, Serialize)]
pub struct GridTime {
    pub points: usize,
    pub predict_s: f64,
}

impl Request for TimeGridRequest {
    const NAME: &'static str = "model time grid";
    type Output = GridTime;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<GridTime> {
        let p = params(&self.params_toml)?;
        let points = validate::grid(file, &p);
        let t0 = std::time::Instant::now();
        validate::predict_points(&p, &points)?;
        Ok(GridTime { points: points.len(), predict_s: t0.elapsed().as_secs_f64() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::parse;
    use crate::request::MachineChoice;
    use serde_json::json;

    fn qs20() -> MachineFile {
        MachineChoice::default().resolve().unwrap()
    }

    fn measured_toml() -> String {
        let quick = MeasureRequest { sizes: vec![64, 1024], iterations: 1 };
        quick.run(&qs20()).unwrap().toml
    }

    #[test]
    fn defaults_are_the_published_constants() {
        let r: SimulateRequest = parse(json!({"points": []})).unwrap();
        assert_eq!(r.iterations, DEFAULT_SIMULATE_ITERATIONS);
        let r: PredictRequest = parse(json!({"params_toml": "", "op": "barrier"})).unwrap();
        assert_eq!((r.spes, r.dtype.as_str(), r.iterations), (DEFAULT_PREDICT_SPES, DEFAULT_DTYPE, DEFAULT_SIMULATE_ITERATIONS));
    }

    #[test]
    fn bad_fields_are_named() {
        let e = parse::<ChooseRequest>(json!({"params_toml": "", "op": "allreduce", "spes": -1, "size": 64})).unwrap_err();
        assert_eq!((e.field(), e.message()), (Some("spes"), "spes -1 is not allowed: 1 to 16"));
        let e = parse::<GridRequest>(json!({"params_toml": "", "machine_toml": ""})).unwrap_err();
        assert_eq!(e.field(), Some("machine_toml"));
        let e = SimulateRequest { points: vec![], iterations: 0 }.run(&qs20()).unwrap_err();
        assert_eq!((e.field(), e.message()), (Some("iterations"), "iterations 0 is not allowed: 1 to 100000"));
        let mut predict: PredictRequest =
            parse(json!({"params_toml": "", "op": "barrier", "simulate": true, "iterations": 100_001})).unwrap();
        predict.params_toml = measured_toml();
        let e = predict.clone().run(&qs20()).unwrap_err();
        assert_eq!(e.message(), "iterations 100001 is not allowed: 1 to 100000");
        predict.simulate = false;
        assert_eq!(predict.run(&qs20()).unwrap().rows.len(), 5, "every modelled barrier, not simulated");
        let pt = Point { algorithm: "allreduce.nope".into(), spes: 8, size_bytes: 64 };
        let e = SimulateRequest { points: vec![pt], iterations: 1 }.run(&qs20()).unwrap_err();
        assert_eq!(e.field(), Some("points"));
        assert!(e.message().starts_with("points allreduce.nope is not allowed: one of "), "{}", e.message());
        let e = GridRequest { params_toml: "x = 1".into() }.run(&qs20()).unwrap_err();
        assert_eq!(e.field(), Some("params_toml"));
        assert!(e.message().starts_with("params_toml: model parameters key 'x' at line 1: unknown field `x`"), "{}", e.message());
    }
}
