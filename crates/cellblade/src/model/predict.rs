//! `cellblade model predict`: the seed's equation and the schedule price of algorithms of one
//! operation, optionally beside the simulated latency, with the errors.

use serde::{Deserialize, Serialize};

use super::equations::{self, COVERED};
use super::params::ModelParams;
use super::price::price;
use super::request::{check_iterations, default_dtype, default_simulate_iterations, DEFAULT_PREDICT_SPES};
use crate::coll::algorithms::{self, Algorithm};
use crate::coll::data::{Dtype, ReduceOp};
use crate::coll::request::{DEFAULT_SIZE, MAX_SPES};
use crate::coll::schedule::Op;
use crate::coll::{measure as coll_measure, Setup};
use crate::error::{field_err, field_msg, Result};
use crate::machine::config::MachineFile;
use crate::request::within;

fn default_spes() -> usize {
    DEFAULT_PREDICT_SPES
}

/// What to predict.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictRequest {
    /// The text of a parameter file (`model measure` writes one); read by the request's `run`.
    pub params_toml: String,
    /// The operation ("allreduce", ...).
    pub op: String,
    /// Registry names, or empty for every algorithm of `op` the schedule model covers.
    #[serde(default)]
    pub algorithms: Vec<String>,
    /// Ranks, 1 to `MAX_SPES` (`DEFAULT_PREDICT_SPES` when left out).
    #[serde(default = "default_spes")]
    pub spes: usize,
    /// Message sizes in bytes (ignored for barriers; `DEFAULT_SIZE` when empty).
    #[serde(default)]
    pub sizes: Vec<u32>,
    /// Physical SPE of each rank (default 0, 1, ..., as the seed places them).
    #[serde(default)]
    pub placement: Option<Vec<usize>>,
    /// The element type (`DEFAULT_DTYPE` when left out).
    #[serde(default = "default_dtype")]
    pub dtype: String,
    /// Also run each point on the simulated blade.
    #[serde(default)]
    pub simulate: bool,
    /// Timed calls per simulated point, 1 to `MAX_ITERATIONS`.
    #[serde(default = "default_simulate_iterations")]
    pub iterations: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct PredictRow {
    pub algorithm: String,
    pub spes: usize,
    pub size_bytes: u32,
    /// Seed 003's equation (tables 1-5), when it has one.
    pub seed_ns: Option<f64>,
    /// The table row, or why there is no equation.
    pub seed_source: String,
    /// The price read off the schedule.
    pub schedule_ns: f64,
    pub simulated_ns: Option<f64>,
    pub seed_error_pct: Option<f64>,
    pub schedule_error_pct: Option<f64>,
    /// A size lay beyond the largest measured one.
    pub extrapolated: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct PredictResult {
    pub op: String,
    pub rows: Vec<PredictRow>,
    pub warnings: Vec<String>,
}

/// Signed error of a prediction against the simulation, in percent of the simulation.
pub fn error_pct(predicted: f64, simulated: f64) -> f64 {
    100.0 * (predicted - simulated) / simulated
}

/// The placement of a request: physical SPEs, 0.. by default.
pub fn placement_of(p: usize, given: &Option<Vec<usize>>) -> Result<Vec<usize>> {
    if p == 0 || p > MAX_SPES {
        return Err(field_err("spes", p, format!("1 to {MAX_SPES}")));
    }
    match given {
        None => Ok((0..p).collect()),
        Some(v) => {
            if v.len() != p {
                return Err(field_err("placement", format!("{v:?}"), format!("one SPE per rank: it names {}, the run has {p}", v.len())));
            }
            let mut seen = [false; MAX_SPES];
            for &s in v {
                if s >= MAX_SPES || std::mem::replace(&mut seen[s], true) {
                    return Err(field_err(
                        "placement",
                        format!("{v:?}"),
                        format!("distinct SPEs 0 to {}: {s} is out of range or repeated", MAX_SPES - 1),
                    ));
                }
            }
            Ok(v.clone())
        }
    }
}

/// The element type named in field `dtype`.
pub fn check_dtype(name: &str) -> Result<Dtype> {
    Dtype::parse(name).map_err(|e| within("dtype", name, e))
}

/// The algorithms a request names, checked against its operation.
fn chosen(op: Op, names: &[String], p: usize) -> Result<Vec<&'static Algorithm>> {
    if names.is_empty() || names == ["all"] {
        return Ok(algorithms::REGISTRY
            .iter()
            .filter(|a| a.op == op && a.schedule(p, 0, 1024).is_ok_and(|s| super::price::check_covered(&s).is_ok()))
            .collect());
    }
    names
        .iter()
        .map(|n| {
            let a = algorithms::find(n).map_err(|e| within("algorithms", n, e))?;
            if a.op != op {
                return Err(field_msg("algorithms", format!("algorithms: {n} belongs to operation {}, not {}", a.op.name(), op.name())));
            }
            Ok(a)
        })
        .collect()
}

/// The seed equation of `alg` if it has one, else the reason.
pub fn seed_equation(params: &ModelParams, alg: &str, p: usize, size: u32, gamma: f64) -> (Option<f64>, String, bool) {
    match equations::predict(params, alg, p, size, gamma) {
        Ok(e) => (Some(e.latency_ns), e.source.to_string(), e.extrapolated),
        Err(e) => (None, e.to_string(), false),
    }
}

/// Predict (and optionally simulate) every requested algorithm and size.
pub fn predict(file: &MachineFile, params: &ModelParams, req: &PredictRequest) -> Result<PredictResult> {
    let op = Op::parse(&req.op).map_err(|e| within("op", &req.op, e))?;
    let dtype = check_dtype(&req.dtype)?;
    let placement = placement_of(req.spes, &req.placement)?;
    let p = req.spes;
    if req.simulate {
        check_iterations(req.iterations)?;
    }
    let algs = chosen(op, &req.algorithms, p)?;
    let sizes: Vec<u32> = if op == Op::Barrier {
        vec![0]
    } else if req.sizes.is_empty() {
        vec![DEFAULT_SIZE]
    } else {
        req.sizes.clone()
    };
    if let Some(s) = sizes.iter().find(|&&s| op != Op::Barrier && (s == 0 || s % dtype.bytes() != 0)) {
        return Err(field_err("sizes", s, format!("a positive multiple of the element size ({} bytes)", dtype.bytes())));
    }
    let mut warnings = Vec::new();
    let gamma = params.gamma_ns_per_byte(&req.dtype)?;
    let mut rows = Vec::new();
    for alg in &algs {
        for &size in &sizes {
            let s = alg.schedule(p, 0, size)?;
            let priced = price(params, &s, &placement, &req.dtype)?;
            let (seed_ns, seed_source, seed_ext) = seed_equation(params, alg.name, p, s.size, gamma);
            let simulated_ns = if req.simulate {
                let setup = Setup { root: 0, placement: placement.clone(), dtype, rop: ReduceOp::Sum, iterations: req.iterations };
                Some(coll_measure(file, alg, size, &setup)?.latency_ns)
            } else {
                None
            };
            let extrapolated = priced.extrapolated || seed_ext;
            if extrapolated {
                warnings.push(format!(
                    "{} at {size} bytes: beyond the largest measured size ({} bytes), extrapolated",
                    alg.name,
                    params.max_size()
                ));
            }
            rows.push(PredictRow {
                algorithm: alg.name.to_string(),
                spes: p,
                size_bytes: size,
                seed_error_pct: seed_ns.zip(simulated_ns).map(|(a, b)| error_pct(a, b)),
                schedule_error_pct: simulated_ns.map(|b| error_pct(priced.latency_ns, b)),
                seed_ns,
                seed_source,
                schedule_ns: priced.latency_ns,
                simulated_ns,
                extrapolated,
            });
        }
    }
    Ok(PredictResult { op: op.name().to_string(), rows, warnings })
}

/// Is `name` modelled by the seed's equations?
pub fn seed_covers(name: &str) -> bool {
    COVERED.contains(&name)
}
