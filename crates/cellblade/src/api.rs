//! A JSON-in/JSON-out facade over the crate for the Python bindings: each function takes a
//! request object and returns a result object as text, so the bindings stay a few lines each.
//! Machine selection in every request: `"machine": {"preset": "qs20"}` or `{"toml": "..."}`,
//! plus `"set": ["section.key=value", ...]`.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{config_err, Result};
use crate::machine::config::{self, MachineFile};
use crate::stats::{self, StatsParams};

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct MachineSel {
    preset: Option<String>,
    toml: Option<String>,
}

fn parse<T: for<'de> Deserialize<'de>>(text: &str, what: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| config_err(format!("{what} request: {e}")))
}

fn machine_of(v: &mut Value) -> Result<MachineFile> {
    let obj = v.as_object_mut().ok_or_else(|| config_err("request must be a JSON object"))?;
    let sel: MachineSel = match obj.remove("machine") {
        Some(m) => serde_json::from_value(m).map_err(|e| config_err(format!("machine selection: {e}")))?,
        None => MachineSel::default(),
    };
    let overrides: Vec<String> = match obj.remove("set") {
        Some(s) => serde_json::from_value(s).map_err(|e| config_err(format!("'set' must be a list of key=value strings: {e}")))?,
        None => Vec::new(),
    };
    let text = match (sel.preset, sel.toml) {
        (Some(_), Some(_)) => return Err(config_err("choose a machine preset or a machine file, not both")),
        (_, Some(t)) => t,
        (p, None) => config::preset_text(p.as_deref().unwrap_or("qs20"))?.to_string(),
    };
    config::load(&text, &overrides)
}

/// The text of a built-in machine preset.
pub fn preset_toml(name: &str) -> Result<String> {
    config::preset_text(name).map(str::to_string)
}

/// Run one CellStats measurement (see [`StatsParams`] for the request keys).
pub fn run_stats(request_json: &str) -> Result<String> {
    let mut v: Value = parse(request_json, "stats")?;
    let file = machine_of(&mut v)?;
    let params: StatsParams = serde_json::from_value(v).map_err(|e| config_err(format!("stats request: {e}")))?;
    let resolved = file.to_toml();
    let r = stats::run(file, &params)?;
    let rep = r.report.as_ref().expect("report");
    let mut out = serde_json::to_value(&r).expect("serialises");
    out["sim"] = sim_figures(rep);
    out["machine_toml"] = json!(resolved);
    out["trace"] = rep.trace.clone().unwrap_or(Value::Null);
    Ok(out.to_string())
}

pub(crate) fn sim_figures(rep: &crate::blade::RunReport) -> Value {
    json!({
        "simulated_ns": rep.simulated.as_ns(),
        "events": rep.events,
        "packets": rep.packets,
        "wall_s": rep.wall_s,
        "events_per_second": if rep.wall_s > 0.0 { rep.events as f64 / rep.wall_s } else { 0.0 },
    })
}

/// Every calibration row, re-run on the chosen machine.
pub fn calibrate(request_json: &str) -> Result<String> {
    let mut v: Value = parse(request_json, "calibrate")?;
    let file = machine_of(&mut v)?;
    if let Some(extra) = v.as_object().and_then(|o| o.keys().next()) {
        return Err(config_err(format!("calibrate request: unknown key '{extra}': allowed machine, set")));
    }
    let rows = crate::calibrate::run_all(&file)?;
    Ok(serde_json::to_string(&rows).expect("serialises"))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BenchReq {
    #[serde(default)]
    quick: bool,
}

/// The simulator speed benchmark.
pub fn bench(request_json: &str) -> Result<String> {
    let req: BenchReq = parse(request_json, "bench")?;
    let r = crate::bench::run(req.quick)?;
    Ok(serde_json::to_string(&r).expect("serialises"))
}

/// "all", a comma-separated string of names, or a list of names.
#[derive(Deserialize)]
#[serde(untagged)]
enum NameList {
    All(String),
    Names(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AffinityRunReq {
    pattern: String,
    #[serde(default = "all_names")]
    placements: NameList,
    #[serde(default)]
    placement_file: Option<String>,
    #[serde(default = "eight")]
    spes: usize,
    #[serde(default)]
    size: Option<u32>,
    #[serde(default = "eight_u32")]
    trials: u32,
    #[serde(default)]
    reps: Option<u32>,
    #[serde(default)]
    seed: u64,
}

fn all_names() -> NameList {
    NameList::All("all".into())
}
fn eight() -> usize {
    8
}
fn eight_u32() -> u32 {
    8
}

fn pattern_of(name: &str, spes: usize, size: Option<u32>) -> Result<crate::affinity::pattern::Pattern> {
    crate::affinity::placement::check_spes(spes)?;
    let size = match size {
        Some(s) => s,
        None => crate::affinity::pattern::default_size(name)?,
    };
    crate::affinity::pattern::build(name, spes, size)
}

/// Run a pattern under several placements (seed 001 §5's experiments).
pub fn affinity_run(request_json: &str) -> Result<String> {
    use crate::affinity::{placement::Placement, run, Choice};
    let mut v: Value = parse(request_json, "affinity run")?;
    let file = machine_of(&mut v)?;
    let req: AffinityRunReq = serde_json::from_value(v).map_err(|e| config_err(format!("affinity run request: {e}")))?;
    let pattern = pattern_of(&req.pattern, req.spes, req.size)?;
    let names: Vec<String> = match req.placements {
        NameList::All(s) if s == "all" => crate::affinity::placement::named().map(String::from).chain(["default".to_string()]).collect(),
        NameList::All(s) => s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect(),
        NameList::Names(v) => v,
    };
    let mut choices = Vec::new();
    for n in &names {
        choices.push(if n == "default" { Choice::Default } else { Choice::Fixed(n.to_lowercase(), Placement::named(n, req.spes)?) });
    }
    if let Some(text) = &req.placement_file {
        choices.push(Choice::Fixed("file".into(), Placement::parse(text, req.spes)?));
    }
    if choices.is_empty() {
        return Err(config_err("no placement to run: name at least one, or give a placement file"));
    }
    if req.trials == 0 || req.trials > 100 {
        return Err(config_err(format!("--trials {} is not allowed: 1 to 100", req.trials)));
    }
    let reps = req.reps.unwrap_or(crate::affinity::REPS);
    let out: Vec<_> = choices.iter().map(|c| run(&file, &pattern, c, req.spes, req.trials, reps, req.seed)).collect::<Result<_>>()?;
    Ok(serde_json::to_string(&out).expect("serialises"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AffinitySearchReq {
    pattern: String,
    #[serde(default = "eight")]
    spes: usize,
    #[serde(default)]
    objective: Option<String>,
    #[serde(default)]
    size: Option<u32>,
    #[serde(default)]
    seed: u64,
    #[serde(default = "forty")]
    default_samples: usize,
}

fn forty() -> usize {
    40
}

/// Search the placement that does best on a pattern (seed 001 §7's future work).
pub fn affinity_search(request_json: &str) -> Result<String> {
    use crate::affinity::search::{search, Objective};
    let mut v: Value = parse(request_json, "affinity search")?;
    let file = machine_of(&mut v)?;
    let req: AffinitySearchReq = serde_json::from_value(v).map_err(|e| config_err(format!("affinity search request: {e}")))?;
    let pattern = pattern_of(&req.pattern, req.spes, req.size)?;
    let objective = match req.objective.as_deref() {
        Some(o) => Objective::parse(o)?,
        None if pattern.phases.len() > 1 => Objective::Latency,
        None => Objective::MinBandwidth,
    };
    let r = search(&file, &pattern, req.spes, objective, req.seed, req.default_samples)?;
    Ok(serde_json::to_string(&r).expect("serialises"))
}

/// The built-in patterns and named placements.
pub fn affinity_catalog() -> Result<String> {
    use crate::affinity::{pattern::CATALOG, placement::Placement};
    let patterns: Vec<Value> = CATALOG
        .iter()
        .map(|(n, d, s)| json!({"name": n, "description": d, "phases": crate::affinity::pattern::build(n, 8, *s).map(|p| p.phases.len()).unwrap_or(0), "default_size_bytes": s}))
        .collect();
    let placements: Vec<Value> = crate::affinity::placement::named()
        .map(|n| json!({"name": n, "mapping": Placement::named(n, 8).map(|p| p.rank_to_spe).unwrap_or_default()}))
        .collect();
    Ok(json!({"patterns": patterns, "placements": placements}).to_string())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ReproduceReq {
    #[serde(default)]
    quick: bool,
    /// Only these claim groups (`reproduce_groups`); all when left out.
    #[serde(default)]
    claims: Option<Vec<String>>,
}

/// The seeds' findings as claims, each re-checked on the simulated blade.
pub fn reproduce(request_json: &str) -> Result<String> {
    let mut v: Value = parse(request_json, "reproduce")?;
    let file = machine_of(&mut v)?;
    let req: ReproduceReq = serde_json::from_value(v).map_err(|e| config_err(format!("reproduce request: {e}")))?;
    let ids = req.claims.unwrap_or_else(crate::reproduce::group_ids);
    let rows = crate::reproduce::run_groups(&file, req.quick, &ids)?;
    Ok(serde_json::to_string(&rows).expect("serialises"))
}

/// The claim groups of `reproduce`, in the order it states them: each can be run apart.
pub fn reproduce_groups() -> Result<String> {
    Ok(serde_json::to_string(&crate::reproduce::group_ids()).expect("serialises"))
}

/// The resolved machine file (preset or file, with overrides applied) as TOML: saved beside
/// every result so it can be traced to its configuration.
pub fn resolved_machine(request_json: &str) -> Result<String> {
    let mut v: Value = parse(request_json, "machine")?;
    Ok(machine_of(&mut v)?.to_toml())
}

/// The registry of collective algorithms.
pub fn coll_list() -> Result<String> {
    let v: Vec<Value> = crate::coll::algorithms::REGISTRY
        .iter()
        .map(|a| json!({"name": a.name, "op": a.op.name(), "description": a.description, "spes": if a.pow2 { "power of two" } else { "any" }, "source": a.source}))
        .collect();
    Ok(Value::Array(v).to_string())
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum PlacementSel {
    Name(String),
    Ids(Vec<usize>),
}

fn coll_placement(sel: &Option<PlacementSel>, spes: usize) -> Result<Vec<usize>> {
    use crate::affinity::placement::Placement;
    if spes == 0 || spes > 16 {
        return Err(config_err(format!("--spes {spes} is not allowed: 1 to 16")));
    }
    match sel {
        None => Ok((0..spes).collect()),
        Some(PlacementSel::Ids(v)) => {
            if v.len() != spes {
                return Err(config_err(format!("placement names {} SPEs, the run has {spes}", v.len())));
            }
            Ok(Placement::new(v.clone())?.rank_to_spe)
        }
        Some(PlacementSel::Name(n)) => Ok(Placement::named(n, if spes > 8 { 16 } else { 8 })?.rank_to_spe.into_iter().take(spes).collect()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CollScheduleReq {
    algorithm: String,
    #[serde(default = "eight")]
    spes: usize,
    #[serde(default)]
    size: Option<u32>,
    #[serde(default)]
    root: usize,
    #[serde(default)]
    placement: Option<PlacementSel>,
}

/// One algorithm's schedule, as data and as text.
pub fn coll_schedule(request_json: &str) -> Result<String> {
    let mut v: Value = parse(request_json, "coll schedule")?;
    let _ = machine_of(&mut v)?;
    let req: CollScheduleReq = serde_json::from_value(v).map_err(|e| config_err(format!("coll schedule request: {e}")))?;
    let alg = crate::coll::algorithms::find(&req.algorithm)?;
    let s = alg.schedule(req.spes, req.root, req.size.unwrap_or(1024))?;
    schedule_json(&s, &req.placement)
}

/// A schedule in its JSON form, with the physical SPE of each rank and the text form.
fn schedule_json(s: &crate::coll::schedule::Schedule, placement: &Option<PlacementSel>) -> Result<String> {
    let mut v = serde_json::to_value(s).expect("a schedule serialises");
    v["placement"] = json!(coll_placement(placement, s.p)?);
    v["text"] = json!(s.text());
    Ok(v.to_string())
}

/// A request's element type and reduction (int32 and sum when left out).
fn dtype_and_op(dtype: &Option<String>, reduce_op: &Option<String>) -> Result<(crate::coll::data::Dtype, crate::coll::data::ReduceOp)> {
    use crate::coll::data::{Dtype, ReduceOp};
    Ok((Dtype::parse(dtype.as_deref().unwrap_or("int32"))?, ReduceOp::parse(reduce_op.as_deref().unwrap_or("sum"))?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CollCheckReq {
    schedule: Value,
    #[serde(default)]
    placement: Option<PlacementSel>,
    #[serde(default)]
    dtype: Option<String>,
    #[serde(default)]
    reduce_op: Option<String>,
}

/// Check a schedule written elsewhere (a Python generator): its structure, then its result
/// through the data-only interpreter. Returns it as `coll_schedule` does.
pub fn coll_check(request_json: &str) -> Result<String> {
    use crate::coll::{schedule::Schedule, verify::verify};
    let mut v: Value = parse(request_json, "coll check")?;
    let _ = machine_of(&mut v)?;
    let req: CollCheckReq = serde_json::from_value(v).map_err(|e| config_err(format!("coll check request: {e}")))?;
    let s = Schedule::from_value(req.schedule)?;
    let (dtype, rop) = dtype_and_op(&req.dtype, &req.reduce_op)?;
    verify(&s, dtype, rop)?;
    schedule_json(&s, &req.placement)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CollRunReq {
    op: String,
    #[serde(default = "eight")]
    spes: usize,
    #[serde(default)]
    sizes: Vec<u32>,
    #[serde(default = "all_names")]
    algorithms: NameList,
    #[serde(default)]
    root: usize,
    #[serde(default)]
    placement: Option<PlacementSel>,
    #[serde(default)]
    dtype: Option<String>,
    #[serde(default)]
    reduce_op: Option<String>,
    #[serde(default)]
    iterations: Option<u32>,
    /// Schedules written elsewhere (Python generators), measured after the named algorithms.
    #[serde(default)]
    schedules: Vec<Value>,
}

/// The error for an algorithm or schedule of operation `has` in a run of `want`.
fn wrong_op(name: &str, has: crate::coll::schedule::Op, want: crate::coll::schedule::Op) -> crate::error::Error {
    config_err(format!("{name} belongs to operation {}, not {}", has.name(), want.name()))
}

/// Measure algorithms of one operation over sizes (seed 000 §4's experiments).
pub fn coll_run(request_json: &str) -> Result<String> {
    use crate::coll::{algorithms, measure, schedule::Op, Setup};
    let mut v: Value = parse(request_json, "coll run")?;
    let file = machine_of(&mut v)?;
    let req: CollRunReq = serde_json::from_value(v).map_err(|e| config_err(format!("coll run request: {e}")))?;
    let op = Op::parse(&req.op)?;
    let all = matches!(&req.algorithms, NameList::All(s) if s == "all");
    let names: Vec<String> = match req.algorithms {
        NameList::All(s) if s == "all" => algorithms::REGISTRY.iter().filter(|a| a.op == op && (!a.pow2 || req.spes.is_power_of_two())).map(|a| a.name.to_string()).collect(),
        NameList::All(s) => s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect(),
        NameList::Names(v) => v,
    };
    let algs = names.iter().map(|n| algorithms::find(n)).collect::<Result<Vec<_>>>()?;
    if let Some(a) = algs.iter().find(|a| a.op != op) {
        return Err(wrong_op(&a.name, a.op, op));
    }
    let (dtype, rop) = dtype_and_op(&req.dtype, &req.reduce_op)?;
    let setup = Setup {
        root: req.root,
        placement: coll_placement(&req.placement, req.spes)?,
        dtype,
        rop,
        iterations: match req.iterations.unwrap_or(20) {
            0 => return Err(config_err("--iterations 0 is not allowed: at least 1".to_string())),
            n => n,
        },
    };
    let sizes = if op == Op::Barrier { vec![0] } else if req.sizes.is_empty() { vec![1024] } else { req.sizes };
    if op != Op::Barrier && sizes.contains(&0) {
        return Err(config_err("size 0 is not allowed: at least one element".to_string()));
    }
    if let Some(s) = sizes.iter().find(|s| op != Op::Barrier && **s % setup.dtype.bytes() != 0) {
        return Err(config_err(format!("size {s} is not a multiple of the element size ({} bytes)", setup.dtype.bytes())));
    }
    let mut out = Vec::new();
    for alg in &algs {
        for &size in &sizes {
            // With every algorithm asked for, one that cannot take this size is left out;
            // one asked for by name fails with the reason.
            if all && alg.schedule(setup.placement.len(), setup.root, size).is_err() {
                continue;
            }
            out.push(measure(&file, alg, size, &setup)?);
        }
    }
    for v in req.schedules {
        let s = crate::coll::schedule::Schedule::from_value(v)?;
        if s.op != op {
            return Err(wrong_op(&s.algorithm, s.op, op));
        }
        out.push(crate::coll::measure_schedule(&file, &s, &setup)?);
    }
    Ok(serde_json::to_string(&out).expect("serialises"))
}
