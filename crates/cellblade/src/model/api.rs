//! JSON text in and out for the Python bindings of the model (as `crate::api` does for the
//! rest): each request names its machine as resolved TOML (`machine_toml`, from
//! `resolved_machine`) and, except for measuring, its parameters as TOML (`params_toml`).

use serde::Deserialize;
use serde_json::Value;

use super::params::ModelParams;
use super::validate::{self, Point};
use super::{auto, measure, predict, price, MeasureRequest, PredictRequest};
use crate::coll::schedule::{Op, Schedule};
use crate::error::{config_err, Result};
use crate::machine::config::{self, MachineFile, Params};

fn parse<T: for<'de> Deserialize<'de>>(text: &str, what: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| config_err(format!("model {what} request: {e}")))
}

fn take_str(v: &mut Value, key: &str, what: &str) -> Result<String> {
    match v.as_object_mut().and_then(|o| o.remove(key)) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(config_err(format!("model {what} request: '{key}' (a string) is required"))),
    }
}

fn machine(v: &mut Value, what: &str) -> Result<MachineFile> {
    config::load(&take_str(v, "machine_toml", what)?, &[])
}

fn params(v: &mut Value, what: &str) -> Result<ModelParams> {
    ModelParams::from_toml(&take_str(v, "params_toml", what)?)
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("model results serialise")
}

/// `{machine_toml, sizes?, iterations?}` -> `{params, toml}`.
pub fn model_measure(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "measure")?;
    let file = machine(&mut v, "measure")?;
    let req: MeasureRequest = serde_json::from_value(v).map_err(|e| config_err(format!("model measure request: {e}")))?;
    let p = measure(&file, &req)?;
    Ok(serde_json::json!({"params": p, "toml": p.to_toml()}).to_string())
}

/// `{machine_toml, params_toml, ...PredictRequest}` -> a [`predict::PredictResult`].
pub fn model_predict(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "predict")?;
    let file = machine(&mut v, "predict")?;
    let p = params(&mut v, "predict")?;
    let req: PredictRequest = serde_json::from_value(v).map_err(|e| config_err(format!("model predict request: {e}")))?;
    Ok(to_json(&predict::predict(&file, &p, &req)?))
}

/// `{machine_toml, params_toml}` -> the validation grid's points.
pub fn model_grid(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "grid")?;
    let file = machine(&mut v, "grid")?;
    let p = params(&mut v, "grid")?;
    Ok(to_json(&validate::grid(&file, &p)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SimulateReq {
    points: Vec<Point>,
    #[serde(default = "ten")]
    iterations: u32,
}
fn ten() -> u32 {
    10
}

/// `{machine_toml, points, iterations?}` -> each point's simulated latency (ns).
pub fn model_simulate(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "simulate")?;
    let file = machine(&mut v, "simulate")?;
    let req: SimulateReq = serde_json::from_value(v).map_err(|e| config_err(format!("model simulate request: {e}")))?;
    if req.iterations == 0 {
        return Err(config_err("iterations: 0 is not allowed: at least 1"));
    }
    Ok(to_json(&validate::simulate_points(&file, &req.points, req.iterations)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScoreReq {
    points: Vec<Point>,
    simulated: Vec<f64>,
}

/// `{params_toml, points, simulated}` -> a [`validate::Validation`].
pub fn model_score(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "score")?;
    let p = params(&mut v, "score")?;
    let req: ScoreReq = serde_json::from_value(v).map_err(|e| config_err(format!("model score request: {e}")))?;
    if req.points.len() != req.simulated.len() {
        return Err(config_err(format!("model score request: {} points but {} simulated latencies", req.points.len(), req.simulated.len())));
    }
    Ok(to_json(&validate::score(&p, &req.points, &req.simulated)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceReq {
    schedule: Value,
    #[serde(default)]
    placement: Option<Vec<usize>>,
    #[serde(default = "int32")]
    dtype: String,
}
fn int32() -> String {
    "int32".into()
}

/// `{params_toml, schedule, placement?, dtype?}` -> the price of a schedule written anywhere.
pub fn model_price(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "price")?;
    let p = params(&mut v, "price")?;
    let req: PriceReq = serde_json::from_value(v).map_err(|e| config_err(format!("model price request: {e}")))?;
    let s = Schedule::from_value(req.schedule)?;
    let placement = predict::placement_of(s.p, &req.placement)?;
    Ok(to_json(&price::price(&p, &s, &placement, &req.dtype)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChooseReq {
    op: String,
    spes: usize,
    size: u32,
    #[serde(default)]
    root: usize,
    #[serde(default)]
    placement: Option<Vec<usize>>,
    #[serde(default = "int32")]
    dtype: String,
}

/// `{machine_toml, params_toml, op, spes, size, root?, placement?, dtype?}` -> an [`auto::Choice`].
pub fn model_choose(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "choose")?;
    let file = machine(&mut v, "choose")?;
    let p = params(&mut v, "choose")?;
    let req: ChooseReq = serde_json::from_value(v).map_err(|e| config_err(format!("model choose request: {e}")))?;
    let op = Op::parse(&req.op)?;
    let placement = predict::placement_of(req.spes, &req.placement)?;
    let ls = Params::resolve(&file).ls_bytes;
    if req.root >= req.spes {
        return Err(config_err(format!("--root {} is out of range: allowed 0 to {}", req.root, req.spes - 1)));
    }
    Ok(to_json(&auto::choose(&p, op, &placement, req.root, req.size, &req.dtype, ls)?))
}

/// `{machine_toml, params_toml}` -> `{points, predict_s}`: the time to predict the whole
/// validation grid with every model, without simulating (`cellblade bench` prints it).
pub fn model_time_grid(request: &str) -> Result<String> {
    let mut v: Value = parse(request, "time grid")?;
    let file = machine(&mut v, "time grid")?;
    let p = params(&mut v, "time grid")?;
    let points = validate::grid(&file, &p);
    let t0 = std::time::Instant::now();
    validate::predict_points(&p, &points)?;
    let predict_s = t0.elapsed().as_secs_f64();
    Ok(serde_json::json!({"points": points.len(), "predict_s": predict_s}).to_string())
}
