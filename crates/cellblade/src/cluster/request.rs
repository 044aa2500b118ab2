//! `cluster run`: the hierarchical barrier or broadcast on a cluster of blades, with the model
//! of seed 003 §6.1 beside it when parameters are given.

use serde::{Deserialize, Serialize};

use super::coll::{barrier, broadcast, ClusterResult};
use super::{check_blades, MAX_BLADES};
use crate::coll::schedule::Op;
use crate::error::{field_err, Result};
use crate::machine::config::MachineFile;
use crate::machine::topology::SPES;
use crate::model::cluster::{measure, predict};
use crate::model::predict::error_pct;
use crate::model::ModelParams;
use crate::request::{within, Request};

/// Blades when a request names none: the smallest cluster.
pub const DEFAULT_BLADES: usize = 2;
/// SPEs per blade when a request names none: the whole blade, as the seed's 64-SPE runs.
pub const DEFAULT_SPES_PER_BLADE: usize = SPES;
/// Broadcast bytes when a request names no size.
pub const DEFAULT_SIZE: u32 = 1024;

fn default_blades() -> usize {
    DEFAULT_BLADES
}
fn default_spes() -> usize {
    DEFAULT_SPES_PER_BLADE
}

/// The cluster's defaults and limits, for the fronts (`catalog()["cluster"]`).
#[derive(Debug, Clone, Serialize)]
pub struct ClusterCatalog {
    pub max_blades: usize,
    pub default_blades: usize,
    pub default_spes_per_blade: usize,
    pub default_size: u32,
}

pub fn catalog() -> ClusterCatalog {
    ClusterCatalog {
        max_blades: MAX_BLADES,
        default_blades: DEFAULT_BLADES,
        default_spes_per_blade: DEFAULT_SPES_PER_BLADE,
        default_size: DEFAULT_SIZE,
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterRequest {
    /// barrier or broadcast.
    pub op: String,
    /// Blades, 1 to [`MAX_BLADES`].
    #[serde(default = "default_blades")]
    pub blades: usize,
    /// SPEs on each blade.
    #[serde(default = "default_spes")]
    pub spes: usize,
    /// Broadcast bytes, each run (barriers take none).
    #[serde(default)]
    pub sizes: Option<Vec<u32>>,
    /// The blade's model parameters (`model measure`): with them, each row has the prediction.
    #[serde(default)]
    pub params_toml: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClusterAnswer {
    /// The simulated run; its fields stand at the answer's top level.
    #[serde(flatten)]
    pub simulated: ClusterResult,
    pub predicted_ns: Option<f64>,
    pub error_pct: Option<f64>,
    /// The model's terms, named as in seed 003 §6.1.
    pub terms: Vec<(String, f64)>,
}

impl Request for ClusterRequest {
    const NAME: &'static str = "cluster run";
    type Output = Vec<ClusterAnswer>;

    fn allowed(field: &str) -> Option<String> {
        match field {
            "blades" => Some(format!("1 to {MAX_BLADES}")),
            "spes" => Some(format!("1 to {SPES} per blade")),
            "op" => Some("barrier or broadcast".into()),
            _ => None,
        }
    }

    fn run(self, file: &MachineFile) -> Result<Vec<ClusterAnswer>> {
        let op = Op::parse(&self.op).map_err(|e| within("op", &self.op, e))?;
        if !matches!(op, Op::Barrier | Op::Broadcast) {
            return Err(field_err("op", &self.op, "barrier or broadcast: seed 003 §6.1 builds only these on a cluster"));
        }
        check_blades(self.blades)?;
        let params = match &self.params_toml {
            Some(t) => Some(ModelParams::from_toml(t).map_err(|e| crate::error::field_msg("params_toml", format!("params_toml: {e}")))?),
            None => None,
        };
        let sizes = match (op, &self.sizes) {
            (Op::Barrier, _) => vec![0],
            (_, None) => vec![DEFAULT_SIZE],
            (_, Some(v)) if v.is_empty() => return Err(field_err("sizes", "[]", "at least one message size")),
            (_, Some(v)) => v.clone(),
        };
        let mut out = Vec::new();
        for size in sizes {
            let sim = if op == Op::Barrier {
                barrier(file, self.blades, self.spes, None)?
            } else {
                broadcast(file, self.blades, self.spes, size, None)?
            };
            let pred = match &params {
                Some(p) => Some(predict(p, &measure(file, size)?, op, self.blades, self.spes, size)?),
                None => None,
            };
            let latency_ns = sim.latency_ns;
            out.push(ClusterAnswer {
                simulated: sim,
                predicted_ns: pred.as_ref().map(|p| p.latency_ns),
                error_pct: pred.as_ref().map(|p| error_pct(p.latency_ns, latency_ns)),
                terms: pred.map(|p| p.terms).unwrap_or_default(),
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::parse;
    use serde_json::json;

    fn run(v: serde_json::Value) -> Result<Vec<ClusterAnswer>> {
        let file = crate::request::MachineChoice::default().resolve().unwrap();
        parse::<ClusterRequest>(v)?.run(&file)
    }

    #[test]
    fn blades_and_op_are_checked_by_field() {
        for b in [0, 5] {
            let e = run(json!({"op": "barrier", "blades": b})).unwrap_err();
            assert_eq!((e.field(), e.message().to_string()), (Some("blades"), format!("blades {b} is not allowed: 1 to 4")));
        }
        let e = run(json!({"op": "allreduce"})).unwrap_err();
        assert_eq!(e.message(), "op allreduce is not allowed: barrier or broadcast: seed 003 §6.1 builds only these on a cluster");
        let e = run(json!({"op": "barrier", "blades": -1})).unwrap_err();
        assert_eq!(e.field(), Some("blades"));
        let r = run(json!({"op": "broadcast", "blades": 2, "spes": 4, "sizes": [64, 256]})).unwrap();
        assert_eq!(
            r.iter().map(|a| (a.simulated.spes, a.simulated.size_bytes, a.simulated.verified)).collect::<Vec<_>>(),
            [(8, 64, true), (8, 256, true)]
        );
        assert!(r[0].predicted_ns.is_none());
    }
}
