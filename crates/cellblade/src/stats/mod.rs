//! CellStats (seed 002 §3): the characterisation tool's functions as workloads on the simulated
//! blade. Each SPE times its own loop with the decrementer, as the original does (§3.2), and
//! the report gives per-SPE average latency and bandwidth and their aggregate.
//!
//! Thread selection follows the seed: `-c CELL` picks the cell the SPEs come from (SPE0 or SPE8
//! first; beyond 8 the rest come from the other cell); with `-s` SPE 0 is the partner or target
//! (its local store) and the others come from `-c`.

mod atomic;
mod dma;
pub mod pattern;
mod request;
pub use request::{SimFigures, StatsAnswer};
mod sync;

use serde::{Deserialize, Serialize};

use crate::blade::{Blade, RunReport};
use crate::affinity::placement::Placement;
use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;
use crate::machine::topology::{SPES, SPES_PER_CHIP};
use crate::spu::Spu;

pub const FUNCTIONS: [&str; 12] =
    ["mkthread", "mailbox", "signal", "dmaget", "dmaput", "dmalistget", "dmalistput", "fetchadd", "fetchsub", "fetchinc", "fetchdec", "fetchset"];

/// One CellStats invocation: the seed's flags by name.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StatsParams {
    pub function: String,
    /// -n / -N: number of SPEs.
    pub spes: usize,
    /// -n (true): one shared buffer; -N (false): private buffers `stride` apart.
    pub shared: bool,
    /// -c: the cell the SPEs belong to.
    pub cell: usize,
    /// -m: the XDRAM module holding the buffers.
    pub xdram: usize,
    /// -s: SPE-to-SPE (mailbox, signal) or SPE 0's local store as the target (DMA).
    pub spe_target: bool,
    /// -b: bytes per transfer (per list element for lists; variable size for atomics);
    /// 0 means the function's default (128 B for DMA, a 32-bit word otherwise).
    pub size: u32,
    /// -t: distance between private buffers (0: the size rounded up to 128 bytes).
    pub stride: u32,
    /// -l: elements per DMA list.
    pub list_elements: u32,
    pub iterations: u32,
    pub warmup: u32,
    /// Mailbox/signal from the PPE through the library call instead of direct MMIO.
    pub syscall: bool,
    pub trace: bool,
    pub seed: u64,
    /// Thread ranks onto physical SPEs: a named placement (seed 001 §5) ...
    pub placement: Option<String>,
    /// ... or the text of a placement file. Rank i runs the i-th thread of the run.
    pub placement_file: Option<String>,
}

impl Default for StatsParams {
    fn default() -> Self {
        StatsParams {
            function: "dmaget".into(),
            spes: 1,
            shared: true,
            cell: 0,
            xdram: 0,
            spe_target: false,
            size: 0,
            stride: 0,
            list_elements: 1,
            iterations: 100,
            warmup: 10,
            syscall: false,
            trace: false,
            seed: 0,
            placement: None,
            placement_file: None,
        }
    }
}

/// One SPE's (or, for PPE-driven functions, one partner's) result.
#[derive(Debug, Clone, Serialize)]
pub struct PerSpe {
    pub spe: usize,
    pub latency_ns: f64,
    /// None for functions that move no data (mailbox, signal, atomics, mkthread).
    pub bandwidth_gbps: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatsResult {
    pub function: String,
    pub spes: usize,
    pub size_bytes: u64,
    pub iterations: u32,
    pub latency_ns: f64,
    pub per_spe: Vec<PerSpe>,
    pub aggregate_bandwidth_gbps: Option<f64>,
    #[serde(skip)]
    pub report: Option<RunReport>,
}

/// A field's value that is not allowed; fronts put their own name for the field (a CLI flag).
fn bad(field: &str, value: impl std::fmt::Display, allowed: &str) -> crate::error::Error {
    crate::error::field_err(field, value, allowed)
}

impl StatsParams {
    pub fn validate(&self, ls_bytes: u32) -> Result<()> {
        if !FUNCTIONS.contains(&self.function.as_str()) {
            return Err(bad("function", &self.function, &format!("one of {}", FUNCTIONS.join(", "))));
        }
        if self.spes == 0 || self.spes > SPES {
            return Err(bad("spes", self.spes, "1 to 16 SPEs"));
        }
        if self.cell > 1 {
            return Err(bad("cell", self.cell, "cell 0 or 1"));
        }
        if self.xdram > 1 {
            return Err(bad("xdram", self.xdram, "XDRAM module 0 or 1"));
        }
        if self.iterations == 0 {
            return Err(bad("iterations", 0, "at least 1 iteration"));
        }
        if self.spe_target && self.spes < 2 && self.function != "mkthread" {
            return Err(bad("spes", self.spes, "at least 2 SPEs with spe_target (SPE 0 is the partner or target)"));
        }
        let f = self.function.as_str();
        if f.starts_with("dmalist") && (self.list_elements == 0 || self.list_elements > 2048) {
            return Err(bad("list_elements", self.list_elements, "1 to 2048 list elements"));
        }
        if f.starts_with("fetch") {
            if self.spe_target {
                return Err(bad("spe_target", true, "atomic operations work on main memory only (seed 002 §3.1.5)"));
            }
            if !(4..=128).contains(&self.size()) || self.size() % 4 != 0 {
                return Err(bad("size", self.size(), "4 to 128 bytes, a multiple of 4, for atomic variables"));
            }
        }
        if f.starts_with("dma") {
            let total = self.transfer_bytes() as u64;
            if total > ls_bytes as u64 / 2 {
                return Err(bad("size", self.size(), &format!("a transfer of at most {} bytes (half the local store); this one moves {total}", ls_bytes / 2)));
            }
            if !self.shared && self.stride != 0 && self.stride < self.transfer_bytes() {
                return Err(bad("stride", self.stride, &format!("a stride of at least the buffer size ({} bytes) for private buffers", self.transfer_bytes())));
            }
        }
        Ok(())
    }

    /// -b, or the function's default.
    pub fn size(&self) -> u32 {
        match (self.size, self.function.as_str()) {
            (0, "mkthread") => 0,
            (0, f) if f.starts_with("dma") => 128,
            (0, _) => 4,
            (s, _) => s,
        }
    }

    /// Bytes one operation moves.
    pub fn transfer_bytes(&self) -> u32 {
        if self.function.starts_with("dmalist") {
            self.size().saturating_mul(self.list_elements)
        } else {
            self.size()
        }
    }

    /// Distance between private buffers.
    pub fn effective_stride(&self) -> u64 {
        if self.stride != 0 {
            self.stride as u64
        } else {
            (self.transfer_bytes() as u64).next_multiple_of(128)
        }
    }

    /// The physical SPEs that run the measured loop, in order: from `-c` as the seed picks
    /// them, or thread rank i on the placement's SPE for rank i.
    pub fn workers(&self) -> Result<Vec<usize>> {
        let placed = match (&self.placement, &self.placement_file) {
            (Some(_), Some(_)) => return Err(config_err("give a placement name or a placement file, not both")),
            (Some(name), None) => Some(Placement::named(name, if self.spes > 8 { 16 } else { 8 })?),
            (None, Some(text)) => Some(Placement::parse(text, if self.spes > 8 { 16 } else { 8 })?),
            (None, None) => None,
        };
        if let Some(pl) = placed {
            if self.spe_target {
                return Err(crate::error::field_msg("placement", "placement does not combine with spe_target (SPE 0 is the partner or target)"));
            }
            // A one-chip placement on cell 1 runs on SPEs 8-15.
            let shift = if self.spes <= 8 { self.cell * SPES_PER_CHIP } else { 0 };
            return Ok(pl.rank_to_spe.iter().take(self.spes).map(|s| s + shift).collect());
        }
        let from_cell = |n: usize, skip0: bool| -> Vec<usize> {
            let start = self.cell * SPES_PER_CHIP;
            (0..SPES).map(|k| (start + k) % SPES).filter(|&s| !(skip0 && s == 0)).take(n).collect()
        };
        Ok(if self.spe_target { from_cell(self.spes - 1, true) } else { from_cell(self.spes, false) })
    }
}

/// Time `iterations` runs of `op` on one SPE with its decrementer, after `warmup` untimed ones.
/// Returns the mean latency in ns.
pub(crate) async fn timed_loop(spu: &Spu, warmup: u32, iterations: u32, mut op: impl AsyncFnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..warmup {
        op().await?;
    }
    let start = spu.spu_read_decrementer();
    for _ in 0..iterations {
        op().await?;
    }
    let ticks = start.wrapping_sub(spu.spu_read_decrementer());
    Ok(ticks as f64 * spu.decrementer_period_ns() / iterations as f64)
}

/// Run one CellStats measurement.
pub fn run(file: MachineFile, p: &StatsParams) -> Result<StatsResult> {
    p.validate(file.spu.ls_bytes)?;
    let mut blade = Blade::new(file, p.trace);
    let results = std::rc::Rc::new(std::cell::RefCell::new(Vec::<PerSpe>::new()));
    match p.function.as_str() {
        "mkthread" => sync::mkthread(&mut blade, p, results.clone())?,
        "mailbox" | "signal" => sync::setup(&mut blade, p, results.clone())?,
        f if f.starts_with("dma") => dma::setup(&mut blade, p, results.clone())?,
        _ => atomic::setup(&mut blade, p, results.clone())?,
    }
    let report = blade.run()?;
    let mut per_spe = results.borrow().clone();
    per_spe.sort_by_key(|r| r.spe);
    let n = per_spe.len().max(1) as f64;
    Ok(StatsResult {
        function: p.function.clone(),
        spes: p.spes,
        size_bytes: p.transfer_bytes() as u64,
        iterations: p.iterations,
        latency_ns: per_spe.iter().map(|r| r.latency_ns).sum::<f64>() / n,
        aggregate_bandwidth_gbps: per_spe.iter().map(|r| r.bandwidth_gbps).sum(),
        per_spe,
        report: Some(report),
    })
}

/// GB/s for `bytes` every `ns`.
pub(crate) fn gbps(bytes: u64, ns: f64) -> f64 {
    if ns > 0.0 {
        bytes as f64 / ns
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(spes: usize, cell: usize, placement: Option<&str>) -> StatsParams {
        StatsParams { spes, cell, placement: placement.map(String::from), ..StatsParams::default() }
    }

    #[test]
    fn workers_follow_the_seed_or_a_placement() {
        assert_eq!(params(3, 0, None).workers().unwrap(), vec![0, 1, 2]);
        assert_eq!(params(10, 1, None).workers().unwrap(), vec![8, 9, 10, 11, 12, 13, 14, 15, 0, 1]);
        assert_eq!(params(4, 0, Some("evenodd")).workers().unwrap(), vec![0, 4, 2, 6]);
        assert_eq!(params(2, 1, Some("ring")).workers().unwrap(), vec![8, 10]);
        assert_eq!(params(16, 0, Some("evenodd")).workers().unwrap()[8..10], [8, 12]);
        let mut p = params(2, 0, Some("ring"));
        p.spe_target = true;
        assert!(p.workers().unwrap_err().to_string().contains("does not combine with spe_target"));
        assert!(params(2, 0, Some("zigzag")).workers().unwrap_err().to_string().contains("unknown placement 'zigzag'"));
    }
}
