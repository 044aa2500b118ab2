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
