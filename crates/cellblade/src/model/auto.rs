//! Automatic algorithm choice (`cellblade coll OP --algo auto`): for an operation, SPE count,
//! size and placement, the algorithm with the lowest schedule price, without simulating.
//! Candidates are the registry's algorithms of the operation that take the call, fit the
//! local store and that the model covers (local-store notifications).

use serde::Serialize;

use super::params::ModelParams;
use super::price::price;
use crate::coll::algorithms;
use crate::coll::lower::Layout;
use crate::coll::schedule::Op;
use crate::error::{field_err, Result};

#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    pub algorithm: String,
    pub predicted_ns: f64,
    /// A size was above the largest measured one: some candidate's price was extrapolated.
    pub extrapolated: bool,
    /// Every candidate's price, cheapest first.
    pub candidates: Vec<(String, f64)>,
}

/// Choose for `op` rooted at `root` on the ranks' physical SPEs `placement` with `size` bytes.
pub fn choose(params: &ModelParams, op: Op, placement: &[usize], root: usize, size: u32, dtype: &str, ls_bytes: u32) -> Result<Choice> {
    let p = placement.len();
    let mut candidates = Vec::new();
    let mut extrapolated = false;
    for alg in algorithms::REGISTRY.iter().filter(|a| a.op == op) {
        let Ok(s) = alg.schedule(p, root, size) else { continue };
        if Layout::footprint(&s) > u64::from(ls_bytes) * 3 / 4 {
            continue;
        }
        if let Ok(pr) = price(params, &s, placement, dtype) {
            candidates.push((alg.name.to_string(), pr.latency_ns));
            extrapolated |= pr.extrapolated;
        }
    }
    candidates.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let (algorithm, predicted_ns) = candidates
        .first()
        .cloned()
        .ok_or_else(|| field_err("size", size, format!("no modelled {} algorithm takes it on {p} SPEs: each refuses the size or the SPE count, or its buffers pass three quarters of the local store", op.name())))?;
    Ok(Choice { algorithm, predicted_ns, extrapolated, candidates })
}
