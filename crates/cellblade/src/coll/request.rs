//! The collective programs' requests (run, schedule, check), with their defaults and limits.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::data::{Dtype, ReduceOp};
use super::schedule::{Op, Schedule};
use super::{algorithms, measure, measure_schedule, CollResult, Setup};
use crate::affinity::placement::Placement;
use crate::error::{config_err, field_err, field_msg, Error, Result};
use crate::machine::config::MachineFile;
use crate::machine::topology::SPES;
use crate::request::{within, NameList, Request};

/// Ranks when a request names none: one chip.
pub const DEFAULT_SPES: usize = 8;
/// Ranks a collective can have: one per SPE of the blade.
pub const MAX_SPES: usize = SPES;
/// Message bytes when a request names no size.
pub const DEFAULT_SIZE: u32 = 1024;
/// Timed calls per measurement.
pub const DEFAULT_ITERATIONS: u32 = 20;
pub const DEFAULT_DTYPE: &str = "int32";
pub const DEFAULT_REDUCE_OP: &str = "sum";

/// A placement name, or the physical SPE of each rank.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PlacementSel {
    Name(String),
    Ids(Vec<usize>),
}

fn default_spes() -> usize {
    DEFAULT_SPES
}
fn default_dtype() -> String {
    DEFAULT_DTYPE.into()
}
fn default_reduce_op() -> String {
    DEFAULT_REDUCE_OP.into()
}
fn default_iterations() -> u32 {
    DEFAULT_ITERATIONS
}

/// What the shared fields of the collective requests allow, for values that do not parse.
fn allowed(field: &str) -> Option<String> {
    match field {
        "spes" => Some(format!("1 to {MAX_SPES}")),
        "root" => Some("a rank, from 0 to the number of SPEs - 1".into()),
        "placement" => Some(format!("a placement name or the physical SPE (0 to {}) of each rank", MAX_SPES - 1)),
        "algorithms" => Some("\"all\", or names of algorithms".into()),
        "iterations" => Some(format!("1 to {}", u32::MAX)),
        _ => None,
    }
}

/// The physical SPE of each of `spes` ranks (rank i on SPE i when no placement is given).
pub(crate) fn placement_of(sel: &Option<PlacementSel>, spes: usize) -> Result<Vec<usize>> {
    if spes == 0 || spes > MAX_SPES {
        return Err(field_err("spes", spes, format!("1 to {MAX_SPES}")));
    }
    match sel {
        None => Ok((0..spes).collect()),
        Some(PlacementSel::Ids(v)) => {
            if v.len() != spes {
                return Err(field_err(
                    "placement",
                    format!("{v:?}"),
                    format!("one SPE per rank: it names {}, the run has {spes}", v.len()),
                ));
            }
            // "placement repeats SPE 0 ...": the field's own words, so the CLI names its flag.
            let named = |e: Error| if e.message().starts_with("placement ") { field_msg("placement", e.message()) } else { e };
            Ok(Placement::new(v.clone()).map_err(named)?.rank_to_spe)
        }
        Some(PlacementSel::Name(n)) => {
            let placement = Placement::named(n, if spes > 8 { 16 } else { 8 }).map_err(|e| within("placement", n, e))?;
            Ok(placement.rank_to_spe.into_iter().take(spes).collect())
        }
    }
}

/// A schedule in its JSON form, with the physical SPE of each rank and the text form.
fn schedule_value(s: &Schedule, placement: &Option<PlacementSel>) -> Result<Value> {
    let mut v = serde_json::to_value(s).expect("a schedule serialises");
    v["placement"] = json!(placement_of(placement, s.p)?);
    v["text"] = json!(s.text());
    Ok(v)
}

fn dtype_and_op(dtype: &str, reduce_op: &str) -> Result<(Dtype, ReduceOp)> {
    Ok((
        Dtype::parse(dtype).map_err(|e| within("dtype", dtype, e))?,
        ReduceOp::parse(reduce_op).map_err(|e| within("reduce_op", reduce_op, e))?,
    ))
}

/// An algorithm of the registry named in field `field`.
fn algorithm(field: &str, name: &str) -> Result<&'static algorithms::Algorithm> {
    algorithms::find(name).map_err(|e| within(field, name, e))
}

/// One algorithm's schedule, as data and as text.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleRequest {
    /// "op.algorithm", from the registry.
    pub algorithm: String,
    #[serde(default = "default_spes")]
    pub spes: usize,
    /// Message bytes ([`DEFAULT_SIZE`] when left out).
    #[serde(default)]
    pub size: Option<u32>,
    #[serde(default)]
    pub root: usize,
    #[serde(default)]
    pub placement: Option<PlacementSel>,
}

impl Request for ScheduleRequest {
    const NAME: &'static str = "coll schedule";
    const USES_MACHINE: bool = false;
    type Output = Value;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, _: &MachineFile) -> Result<Value> {
        let alg = algorithm("algorithm", &self.algorithm)?;
        placement_of(&self.placement, self.spes)?;
        let s = alg.schedule(self.spes, self.root, self.size.unwrap_or(DEFAULT_SIZE))?;
        schedule_value(&s, &self.placement)
    }
}

/// Check a schedule written elsewhere (a Python generator): its structure, then its result
/// through the data-only interpreter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// A schedule in its JSON form.
    pub schedule: Value,
    #[serde(default)]
    pub placement: Option<PlacementSel>,
    #[serde(default = "default_dtype")]
    pub dtype: String,
    #[serde(default = "default_reduce_op")]
    pub reduce_op: String,
}

impl Request for CheckRequest {
    const NAME: &'static str = "coll check";
    const USES_MACHINE: bool = false;
    type Output = Value;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<Value> {
        let s = Schedule::from_value(self.schedule)?;
        let (dtype, rop) = dtype_and_op(&self.dtype, &self.reduce_op)?;
        super::check_fits(&s, file.spu.ls_bytes)?;
        super::verify::verify(&s, dtype, rop)?;
        schedule_value(&s, &self.placement)
    }
}

/// Measure algorithms of one operation over sizes (seed 000 §4's experiments).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// barrier, broadcast, reduce, allreduce or allgather.
    pub op: String,
    #[serde(default = "default_spes")]
    pub spes: usize,
    /// Message bytes, each measured ([`DEFAULT_SIZE`] when left out; barriers take none).
    #[serde(default)]
    pub sizes: Option<Vec<u32>>,
    /// "all" (every algorithm of `op` that takes `spes`), or names.
    #[serde(default = "NameList::all")]
    pub algorithms: NameList,
    #[serde(default)]
    pub root: usize,
    #[serde(default)]
    pub placement: Option<PlacementSel>,
    #[serde(default = "default_dtype")]
    pub dtype: String,
    #[serde(default = "default_reduce_op")]
    pub reduce_op: String,
    /// Timed calls per measurement.
    #[serde(default = "default_iterations")]
    pub iterations: u32,
    /// Schedules written elsewhere (Python generators), measured after the named algorithms.
    #[serde(default)]
    pub schedules: Vec<Value>,
}

/// The error for an algorithm or schedule of operation `has` in a run of `want`.
fn wrong_op(name: &str, has: Op, want: Op) -> Error {
    config_err(format!("{name} belongs to operation {}, not {}", has.name(), want.name()))
}

impl RunRequest {
    /// The sizes to measure, checked: a message larger than a local store fits no algorithm.
    fn sizes(&self, op: Op, dtype: Dtype, ls_bytes: u32) -> Result<Vec<u32>> {
        if op == Op::Barrier {
            return Ok(vec![0]);
        }
        let sizes = match &self.sizes {
            None => vec![DEFAULT_SIZE],
            Some(v) if v.is_empty() => return Err(field_err("sizes", "[]", "at least one message size")),
            Some(v) => v.clone(),
        };
        if sizes.contains(&0) {
            return Err(field_err("sizes", 0, "at least one element"));
        }
        if let Some(s) = sizes.iter().find(|s| **s % dtype.bytes() != 0) {
            return Err(field_err("sizes", s, format!("a multiple of the element size ({} bytes)", dtype.bytes())));
        }
        if let Some(s) = sizes.iter().find(|s| **s > ls_bytes) {
            return Err(field_err("sizes", s, format!("at most the local store's {ls_bytes} bytes")));
        }
        Ok(sizes)
    }
}

impl Request for RunRequest {
    const NAME: &'static str = "coll run";
    type Output = Vec<CollResult>;

    fn allowed(field: &str) -> Option<String> {
        allowed(field)
    }

    fn run(self, file: &MachineFile) -> Result<Vec<CollResult>> {
        let op = Op::parse(&self.op).map_err(|e| within("op", &self.op, e))?;
        let asked = self.algorithms.names();
        let algs = match &asked {
            None => algorithms::REGISTRY.iter().filter(|a| a.op == op && (!a.pow2 || self.spes.is_power_of_two())).collect(),
            Some(names) => names.iter().map(|n| algorithm("algorithms", n)).collect::<Result<Vec<_>>>()?,
        };
        if let Some(a) = algs.iter().find(|a| a.op != op) {
            return Err(wrong_op(a.name, a.op, op));
        }
        let (dtype, rop) = dtype_and_op(&self.dtype, &self.reduce_op)?;
        if self.iterations == 0 {
            return Err(field_err("iterations", 0, "at least 1"));
        }
        let setup =
            Setup { root: self.root, placement: placement_of(&self.placement, self.spes)?, dtype, rop, iterations: self.iterations };
        let sizes = self.sizes(op, dtype, file.spu.ls_bytes)?;
        let mut out = Vec::new();
        for alg in &algs {
            for &size in &sizes {
                // With every algorithm asked for, one that cannot take this size is left out;
                // one asked for by name fails with the reason.
                if asked.is_none() && alg.schedule(setup.placement.len(), setup.root, size).is_err() {
                    continue;
                }
                out.push(measure(file, alg, size, &setup)?);
            }
        }
        for v in self.schedules {
            let s = Schedule::from_value(v)?;
            if s.op != op {
                return Err(wrong_op(&s.algorithm, s.op, op));
            }
            out.push(measure_schedule(file, &s, &setup)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::parse;

    fn err<R: Request>(v: Value) -> Error {
        let file = crate::request::MachineChoice::default().resolve().unwrap();
        match parse::<R>(v) {
            Ok(r) => r.run(&file).err().expect("refused"),
            Err(e) => e,
        }
    }

    #[test]
    fn bad_fields_are_named_with_value_and_range() {
        let e = err::<RunRequest>(json!({"op": "allreduce", "root": -1}));
        assert_eq!((e.field(), e.message()), (Some("root"), "root -1 is not allowed: a rank, from 0 to the number of SPEs - 1"));
        let e = err::<RunRequest>(json!({"op": "broadcast", "sizes": [1048576]}));
        assert_eq!((e.field(), e.message()), (Some("sizes"), "sizes 1048576 is not allowed: at most the local store's 262144 bytes"));
        let e = err::<RunRequest>(json!({"op": "allreduce", "sizes": []}));
        assert_eq!((e.field(), e.message()), (Some("sizes"), "sizes [] is not allowed: at least one message size"));
        let e = err::<RunRequest>(json!({"op": "allreduce", "spes": 20}));
        assert_eq!((e.field(), e.message()), (Some("spes"), "spes 20 is not allowed: 1 to 16"));
        let e = err::<RunRequest>(json!({"op": "barrier", "iterations": 0}));
        assert_eq!((e.field(), e.message()), (Some("iterations"), "iterations 0 is not allowed: at least 1"));
        let e = err::<ScheduleRequest>(json!({"algorithm": "barrier.rdb", "spes": 4, "placement": [0, 1]}));
        assert_eq!(e.message(), "placement [0, 1] is not allowed: one SPE per rank: it names 2, the run has 4");
        let e = err::<ScheduleRequest>(json!({"algorithm": "barrier.rdb", "spes": 2, "placement": [0, 0]}));
        assert_eq!((e.field(), e.message()), (Some("placement"), "placement repeats SPE 0 (ranks 0 and 1): it must be a permutation"));
        let e = err::<RunRequest>(json!({"op": "allreduce", "dtype": "int8"}));
        assert_eq!((e.field(), e.message()), (Some("dtype"), "dtype int8 is not allowed: one of int32, float32, float64"));
        let e = err::<RunRequest>(json!({"op": "scatter"}));
        assert_eq!(
            (e.field(), e.message()),
            (Some("op"), "op scatter is not allowed: one of barrier, broadcast, reduce, allreduce, allgather")
        );
        let e = err::<ScheduleRequest>(json!({"algorithm": "barrier.nope"}));
        assert_eq!(e.field(), Some("algorithm"));
    }
}
