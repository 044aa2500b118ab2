//! CellStats (seed 002 §3): the characterisation tool's functions as workloads on the simulated
//! blade. Each SPE times its own loop with the decrementer, as the original does (§3.2), and
//! the report gives per-SPE average latency and bandwidth and their aggregate.
//!
//! Thread selection follows the seed: `-c CELL` picks the cell the SPEs come from (SPE0 or SPE8
//! first; beyond 8 the rest come from the other cell); with `-s` SPE 0 is the partner or target
//! (its local store) and the others come from `-c`.
//!
//! `rows.rs` holds the calibration rows measured this way (seeds 000-004), for `calibrate`.

mod atomic;
mod dma;
pub mod pattern;
mod request;
pub use request::{SimFigures, StatsAnswer};
pub mod rows;
mod sync;

use serde::{Deserialize, Serialize};

use crate::affinity::placement::Placement;
use crate::blade::{Blade, RunReport};
use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;
use crate::machine::topology::{SPES, SPES_PER_CHIP};
use crate::spu::Spu;

pub const FUNCTIONS: [&str; 12] = [
    "mkthread",
    "mailbox",
    "signal",
    "dmaget",
    "dmaput",
    "dmalistget",
    "dmalistput",
    "fetchadd",
    "fetchsub",
    "fetchinc",
    "fetchdec",
    "fetchset",
];

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
    /// -b: bytes per transfer (per list element for lists; variable size for atomics); none
    /// means the function's default (128 B for DMA, a 32-bit word for atomics). Mailboxes,
    /// signals and thread creation take none.
    pub size: Option<u32>,
    /// -t: distance between private buffers (none: the size rounded up to 128 bytes).
    pub stride: Option<u32>,
    /// -l: elements per DMA list (dmalist* only; none: 1).
    pub list_elements: Option<u32>,
    pub iterations: u32,
    pub warmup: u32,
    /// Mailbox/signal from the PPE through the library call instead of direct MMIO.
    pub syscall: bool,
    /// --trace: the file a Chrome/Perfetto trace of the run streams to.
    pub trace: Option<String>,
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
            size: None,
            stride: None,
            list_elements: None,
            iterations: 100,
            warmup: 10,
            syscall: false,
            trace: None,
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
    /// With a trace: events it dropped past its limit (the front says so on the console).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_dropped_events: Option<u64>,
    #[serde(skip)]
    pub report: Option<RunReport>,
}

/// A field's value that is not allowed; fronts put their own name for the field (a CLI flag).
fn bad(field: &str, value: impl std::fmt::Display, allowed: &str) -> crate::error::Error {
    crate::error::field_err(field, value, allowed)
}

/// A request field given where it means nothing.
fn unused(field: &str, why: &str) -> crate::error::Error {
    crate::error::field_msg(field, format!("{field} is not allowed here: {why}"))
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
        if self.syscall && (!matches!(f, "mailbox" | "signal") || self.spe_target) {
            return Err(unused("syscall", "only the PPE's mailbox and signal writes go through the library call"));
        }
        match self.list_elements {
            Some(n) if !f.starts_with("dmalist") => {
                return Err(unused("list_elements", &format!("{f} is not a list function (dmalistget, dmalistput) ({n} given)")))
            }
            Some(n) if n == 0 || n > 2048 => return Err(bad("list_elements", n, "1 to 2048 list elements")),
            _ => {}
        }
        if matches!(f, "mkthread" | "mailbox" | "signal") {
            if let Some(size) = self.size {
                return Err(unused("size", &format!("{f} moves no buffer (a mailbox entry or signal is one 32-bit word) ({size} given)")));
            }
            if self.stride.is_some() {
                return Err(unused("stride", &format!("{f} uses no buffers")));
            }
        }
        if let Some(stride) = self.stride {
            if self.shared {
                return Err(unused("stride", "it spaces private buffers, and shared is true (one buffer for all SPEs)"));
            }
            if stride < self.transfer_bytes() {
                return Err(bad(
                    "stride",
                    stride,
                    &format!("at least the buffer size ({} bytes) for private buffers", self.transfer_bytes()),
                ));
            }
        }
        if f.starts_with("fetch") {
            if self.spe_target {
                return Err(bad("spe_target", true, "atomic operations work on main memory only (seed 002 §3.1.5)"));
            }
            if !(4..=128).contains(&self.size()) || !self.size().is_multiple_of(4) {
                return Err(bad("size", self.size(), "4 to 128 bytes, a multiple of 4, for atomic variables"));
            }
            if let Some(stride) = self.stride.filter(|s| s % 4 != 0) {
                return Err(bad("stride", stride, "a multiple of 4 for atomic variables (word-aligned)"));
            }
        }
        if f.starts_with("dma") {
            if self.size == Some(0) {
                return Err(bad("size", 0, "at least 1 byte per transfer"));
            }
            let total = self.transfer_bytes() as u64;
            if total > ls_bytes as u64 / 2 {
                return Err(bad(
                    "size",
                    self.size(),
                    &format!("a transfer of at most {} bytes (half the local store); this one moves {total}", ls_bytes / 2),
                ));
            }
        }
        Ok(())
    }

    /// -b, or the function's default.
    pub fn size(&self) -> u32 {
        match (self.size, self.function.as_str()) {
            (Some(s), _) => s,
            (None, "mkthread") => 0,
            (None, f) if f.starts_with("dma") => 128,
            (None, _) => 4,
        }
    }

    /// Elements per list (1 for a function that is not a list).
    pub fn elements(&self) -> u32 {
        self.list_elements.unwrap_or(1)
    }

    /// Bytes one operation moves.
    pub fn transfer_bytes(&self) -> u32 {
        if self.function.starts_with("dmalist") {
            self.size().saturating_mul(self.elements())
        } else {
            self.size()
        }
    }

    /// Distance between private buffers.
    pub fn effective_stride(&self) -> u64 {
        match self.stride {
            Some(stride) => stride as u64,
            None => (self.transfer_bytes() as u64).next_multiple_of(128),
        }
    }

    /// The physical SPEs that run the measured loop, in order: from `-c` as the seed picks
    /// them, or thread rank i on the placement's SPE for rank i.
    pub fn workers(&self) -> Result<Vec<usize>> {
        let placed = match (&self.placement, &self.placement_file) {
            (Some(_), Some(_)) => return Err(config_err("give a placement name or a placement file, not both")),
            (Some(name), None) => {
                Some(Placement::named(name, if self.spes > 8 { 16 } else { 8 }).map_err(|e| crate::request::within("placement", name, e))?)
            }
            (None, Some(text)) => Some(Placement::parse(text, self.spes)?),
            (None, None) => None,
        };
        if let Some(pl) = placed {
            if self.spe_target {
                return Err(crate::error::field_msg(
                    "placement",
                    "placement is not allowed with spe_target: SPE 0 is the partner or target",
                ));
            }
            // A one-chip placement on cell 1 runs on SPEs 8-15.
            let shift = if self.spes <= 8 { self.cell * SPES_PER_CHIP } else { 0 };
            if let Some((rank, spe)) = pl.rank_to_spe.iter().enumerate().find(|(_, &s)| s + shift >= SPES) {
                return Err(config_err(format!(
                    "placement gives rank {rank} SPE {spe}, which on cell {} is SPE {}, which does not exist: a placement of up to 8 ranks names SPEs 0 to 7 of its cell",
                    self.cell,
                    spe + shift
                )));
            }
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
/// Returns the mean latency in ns. A loop longer than the 32-bit decrementer spans (about 300 s
/// at 14.318 MHz) is refused: the count would have wrapped, as on the hardware, into a
/// plausible wrong latency.
pub(crate) async fn timed_loop(spu: &Spu, warmup: u32, iterations: u32, mut op: impl AsyncFnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..warmup {
        op().await?;
    }
    let (start, t0) = (spu.spu_read_decrementer(), spu.now());
    for _ in 0..iterations {
        op().await?;
    }
    let span_ns = spu.decrementer_span_ns();
    let elapsed_ns = (spu.now() - t0).as_ns();
    if elapsed_ns >= span_ns {
        return Err(bad(
            "iterations",
            iterations,
            &format!(
                "spe {} would time them over {:.1} s of simulated time, longer than its 32-bit decrementer counts before it wraps ({:.1} s)",
                spu.spe_id(),
                elapsed_ns / 1e9,
                span_ns / 1e9
            ),
        ));
    }
    let ticks = start.wrapping_sub(spu.spu_read_decrementer());
    Ok(ticks as f64 * spu.decrementer_period_ns() / iterations as f64)
}

/// Run one CellStats measurement.
pub fn run(file: MachineFile, p: &StatsParams) -> Result<StatsResult> {
    p.validate(file.spu.ls_bytes)?;
    let mut blade = match &p.trace {
        Some(path) => Blade::with_trace_file(file, std::path::Path::new(path))?,
        None => Blade::new(file, false),
    };
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
        trace_dropped_events: p.trace.as_ref().map(|_| report.trace_dropped),
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
        assert_eq!(p.workers().unwrap_err().to_string(), "placement is not allowed with spe_target: SPE 0 is the partner or target");
        let e = params(2, 0, Some("zigzag")).workers().unwrap_err();
        assert_eq!(e.field(), Some("placement"));
        assert!(e.to_string().starts_with("placement zigzag is not allowed: one of identity, "), "{e}");
    }

    fn from_file(spes: usize, cell: usize, text: &str) -> Result<Vec<usize>> {
        StatsParams { spes, cell, placement_file: Some(text.into()), ..StatsParams::default() }.workers()
    }

    #[test]
    fn a_placement_file_names_one_spe_per_thread_of_the_run() {
        // The bug: with 4 threads the file had to name 8 SPEs, with 12 threads 16.
        assert_eq!(from_file(4, 0, "6 4 2 0\n").unwrap(), vec![6, 4, 2, 0]);
        assert_eq!(from_file(4, 1, "0 1\n1 3\n2 5\n3 7\n").unwrap(), vec![9, 11, 13, 15]);
        let twelve: String = (0..12).map(|s| format!("{} ", 15 - s)).collect();
        assert_eq!(from_file(12, 0, &twelve).unwrap(), (4..16).rev().collect::<Vec<_>>());
        assert_eq!(from_file(4, 0, "0 1 2 3 4 5 6 7").unwrap_err().to_string(), "placement file names 8 SPEs, the run has 4");
        assert_eq!(from_file(12, 0, &format!("{twelve} 0 1 2 3")).unwrap_err().to_string(), "placement file names 16 SPEs, the run has 12");
        assert_eq!(
            from_file(3, 1, "0 9 2").unwrap_err().to_string(),
            "placement gives rank 1 SPE 9, which on cell 1 is SPE 17, which does not exist: a placement of up to 8 ranks names SPEs 0 to 7 of its cell"
        );
    }

    fn check(json: serde_json::Value) -> String {
        let p: StatsParams = serde_json::from_value(json).unwrap();
        p.validate(262_144).map_or_else(|e| e.to_string(), |_| "ok".into())
    }

    #[test]
    fn values_that_mean_nothing_are_refused_naming_the_field() {
        use serde_json::json;
        let cases = [
            (json!({"size": 0}), "size 0 is not allowed: at least 1 byte per transfer"),
            (json!({"function": "fetchadd", "size": 0}), "size 0 is not allowed: 4 to 128 bytes, a multiple of 4, for atomic variables"),
            (
                json!({"spes": 2, "shared": false, "stride": 0}),
                "stride 0 is not allowed: at least the buffer size (128 bytes) for private buffers",
            ),
            (
                json!({"spes": 2, "stride": 4096}),
                "stride is not allowed here: it spaces private buffers, and shared is true (one buffer for all SPEs)",
            ),
            (
                json!({"function": "mailbox", "size": 65536}),
                "size is not allowed here: mailbox moves no buffer (a mailbox entry or signal is one 32-bit word) (65536 given)",
            ),
            (json!({"function": "signal", "shared": false, "stride": 256}), "stride is not allowed here: signal uses no buffers"),
            (
                json!({"function": "dmaget", "list_elements": 16}),
                "list_elements is not allowed here: dmaget is not a list function (dmalistget, dmalistput) (16 given)",
            ),
            (json!({"function": "dmalistget", "list_elements": 0}), "list_elements 0 is not allowed: 1 to 2048 list elements"),
            (
                json!({"function": "dmaget", "syscall": true}),
                "syscall is not allowed here: only the PPE's mailbox and signal writes go through the library call",
            ),
            (
                json!({"function": "fetchadd", "shared": false, "stride": 6}),
                "stride 6 is not allowed: a multiple of 4 for atomic variables (word-aligned)",
            ),
            (
                json!({"function": "fetchadd", "shared": false, "size": 8, "stride": 4}),
                "stride 4 is not allowed: at least the buffer size (8 bytes) for private buffers",
            ),
            (json!({"spes": 17}), "spes 17 is not allowed: 1 to 16 SPEs"),
            (
                json!({"function": "dmaget", "size": 262144}),
                "size 262144 is not allowed: a transfer of at most 131072 bytes (half the local store); this one moves 262144",
            ),
        ];
        for (req, want) in cases {
            assert_eq!(check(req.clone()), want, "{req}");
        }
        // What they meant is still allowed.
        for ok in [
            json!({"size": 1}),
            json!({"function": "fetchadd", "shared": false, "stride": 8}),
            json!({"spes": 2, "shared": false, "size": 4096, "stride": 4096}),
            json!({"function": "dmalistget", "list_elements": 2048, "size": 16}),
            json!({"function": "mailbox", "syscall": true}),
            json!({"function": "mailbox", "spes": 2, "spe_target": true}),
        ] {
            assert_eq!(check(ok.clone()), "ok", "{ok}");
        }
    }

    #[test]
    fn a_timed_loop_longer_than_the_decrementer_counts_is_refused() {
        // A 1 GHz decrementer wraps after 4.29 s; 100 us memory reads make 50000 GETs longer.
        let sets = ["clock.decrementer_hz=1000000000".into(), "mic.read_latency_ns=100000".into()];
        let file = crate::machine::config::load(crate::machine::config::preset_text("qs20").unwrap(), &sets).unwrap();
        let p = StatsParams { iterations: 50_000, warmup: 0, ..StatsParams::default() };
        let e = run(file.clone(), &p).unwrap_err().to_string();
        assert!(e.starts_with("iterations 50000 is not allowed: spe 0 would time them over 5.0 s of simulated time, longer than its 32-bit decrementer counts before it wraps (4.3 s)"), "{e}");
        let p = StatsParams { iterations: 40_000, ..p };
        let lat = run(file, &p).unwrap().latency_ns;
        assert!((100_000.0..101_000.0).contains(&lat), "{lat}");
    }
}
