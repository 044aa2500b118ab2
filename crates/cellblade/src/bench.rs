//! The speed benchmark: simulated 128-byte bus packets per second of wall time, and the wall
//! time of fixed workloads. A benchmark that prints figures, not a timed test: `cellblade bench`.

use serde::Serialize;

use crate::affinity::pattern::build;
use crate::affinity::search::{search, search_with, Objective};
use crate::blade::Blade;
use crate::error::Result;
use crate::machine::config::{load, preset_text};
use crate::machine::topology::{SPES, SPES_PER_CHIP};
use crate::spu::Spu;

#[derive(Debug, Clone, Serialize)]
pub struct Workload {
    pub name: String,
    pub wall_s: f64,
    pub simulated_ns: f64,
    pub packets: u64,
    pub events: u64,
}

/// The exhaustive one-chip placement search (seed 001's future work), timed.
#[derive(Debug, Clone, Serialize)]
pub struct SearchBench {
    pub pattern: String,
    pub evaluated: usize,
    pub wall_s: f64,
}

/// `cellblade reproduce`, timed (target: under 5 minutes for the full form).
#[derive(Debug, Clone, Serialize)]
pub struct ReproduceBench {
    pub quick: bool,
    pub claims: usize,
    pub holding: usize,
    pub wall_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchResult {
    /// How the measured code was built: "release" (cargo), or "release, native" as
    /// scripts/build-extension.sh builds the extension.
    pub build: &'static str,
    pub packets_per_second: f64,
    pub workloads: Vec<Workload>,
    /// Where users wait on simulated polling: collectives and an MPI loop.
    pub waiting: Vec<crate::bench_wait::WaitWorkload>,
    pub affinity_search: SearchBench,
    pub placement_pruning: Vec<PruningBench>,
    pub reproduce: ReproduceBench,
}

/// The two-chip placement search with and without the ring/BIF ranking's pruning, on one
/// pattern: runs interleaved (unpruned, pruned, ...), median wall times, the best each reached.
#[derive(Debug, Clone, Serialize)]
pub struct PruningBench {
    pub pattern: String,
    pub runs: usize,
    pub unpruned_s: f64,
    pub pruned_s: f64,
    pub speedup: f64,
    pub unpruned_evaluated: usize,
    pub pruned_evaluated: usize,
    /// Minimum bandwidth over ranks of the best placement (GB/s).
    pub unpruned_best_gbps: f64,
    pub pruned_best_gbps: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seed 001 patterns on 16 SPEs (16 KB), each searched `runs` times both ways, interleaved.
fn placement_pruning(quick: bool) -> Result<Vec<PruningBench>> {
    let file = load(preset_text("qs20")?, &[])?;
    let (names, runs): (&[&str], usize) = if quick { (&["rd1"], 1) } else { (&["ring", "rd1", "bruck2"], 3) };
    let mut out = Vec::new();
    for &name in names {
        let pattern = build(name, 16, 16384)?;
        let (mut full, mut pruned) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            full.push(search_with(&file, &pattern, 16, Objective::MinBandwidth, 0, 1, false)?);
            pruned.push(search_with(&file, &pattern, 16, Objective::MinBandwidth, 0, 1, true)?);
        }
        let (unpruned_s, pruned_s) = (median(full.iter().map(|r| r.wall_s).collect()), median(pruned.iter().map(|r| r.wall_s).collect()));
        out.push(PruningBench {
            pattern: name.into(),
            runs,
            unpruned_s,
            pruned_s,
            speedup: unpruned_s / pruned_s.max(1e-9),
            unpruned_evaluated: full[0].evaluated,
            pruned_evaluated: pruned[0].evaluated,
            unpruned_best_gbps: full[0].best.value,
            pruned_best_gbps: pruned[0].best.value,
        });
    }
    Ok(out)
}

fn measure(name: String, blade: Blade) -> Result<Workload> {
    let r = blade.run()?;
    Ok(Workload { name, wall_s: r.wall_s, simulated_ns: r.simulated.as_ns(), packets: r.packets, events: r.events })
}

/// Blocking gets of `bytes` (in 16 KB DMAs) by each `(dst, src_ea)`, `reps` times.
fn gets(pairs: Vec<(usize, u64)>, bytes: u32, reps: u32) -> Result<Blade> {
    let file = load(preset_text("qs20")?, &[])?;
    let mut blade = Blade::new(file, false);
    for (spe, ea) in pairs {
        blade.spe(spe, move |spu| async move {
            let buf = spu.ls_alloc(bytes, 128)?;
            spu.mfc_write_tag_mask(1);
            for _ in 0..reps {
                for off in (0..bytes).step_by(16384) {
                    spu.mfc_get(buf + off, ea + off as u64, 16384.min(bytes - off), 0).await?;
                }
                spu.mfc_read_tag_status_all().await?;
            }
            Ok(())
        })?;
    }
    Ok(blade)
}

/// The two packet workloads of the issue: pairwise exchange on one chip, gets across the BIF.
pub fn packet_workloads(quick: bool) -> Result<Vec<Workload>> {
    let scale = if quick { 10 } else { 1 };
    let exchange_reps = 1000 / scale;
    // All 8 SPEs of chip 0 exchange 64 KB pairwise (rank 2i with 2i+1), as recursive doubling's first step.
    let pairs = (0..SPES_PER_CHIP).map(|s| (s, Spu::ls_ea(s ^ 1, 0))).collect();
    let w1 = measure(format!("8 SPEs exchange 64 KB pairwise, {exchange_reps} times"), gets(pairs, 65536, exchange_reps)?)?;
    // 16 SPEs each get 16 KB from the far chip's XDRAM.
    let far_reps = 10_000 / scale;
    let xdram = load(preset_text("qs20")?, &[])?.memory.xdram_bytes;
    let far = (0..SPES).map(|s| {
        let far_module = 1 - s / SPES_PER_CHIP;
        (s, far_module as u64 * xdram + (1 << 20) + s as u64 * 16384)
    });
    let w2 = measure(format!("16 SPEs get 16 KB from the far XDRAM, {far_reps} times"), gets(far.collect(), 16384, far_reps)?)?;
    Ok(vec![w1, w2])
}

/// The build being measured, as the build script named it.
pub fn build_kind() -> &'static str {
    option_env!("CELLBLADE_BUILD").unwrap_or(if cfg!(debug_assertions) { "debug" } else { "release" })
}

pub fn run(quick: bool) -> Result<BenchResult> {
    let workloads = packet_workloads(quick)?;
    let packets: u64 = workloads.iter().map(|w| w.packets).sum();
    let wall: f64 = workloads.iter().map(|w| w.wall_s).sum();
    let waiting = crate::bench_wait::run(quick)?;
    // The ring pattern has the fewest symmetries of the Table 2 patterns: the longest search.
    let name = if quick { "rd1" } else { "ring" };
    let file = load(preset_text("qs20")?, &[])?;
    let s = search(&file, &build(name, 8, 65536)?, 8, Objective::MinBandwidth, 0, 1)?;
    let affinity_search = SearchBench { pattern: name.into(), evaluated: s.evaluated, wall_s: s.wall_s };
    let placement_pruning = placement_pruning(quick)?;
    let start = std::time::Instant::now();
    let claims = crate::reproduce::run_all(&file, quick)?;
    let reproduce = ReproduceBench {
        quick,
        claims: claims.len(),
        holding: claims.iter().filter(|c| c.holds).count(),
        wall_s: start.elapsed().as_secs_f64(),
    };
    Ok(BenchResult {
        build: build_kind(),
        packets_per_second: packets as f64 / wall.max(1e-9),
        workloads,
        waiting,
        affinity_search,
        placement_pruning,
        reproduce,
    })
}

/// The speed benchmark; it runs its own fixed workloads on the qs20 preset, whatever machine
/// the request names.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BenchRequest {
    /// Smaller workloads, for a quick look.
    pub quick: bool,
}

impl crate::request::Request for BenchRequest {
    const NAME: &'static str = "bench";
    const USES_MACHINE: bool = false;
    type Output = BenchResult;

    fn run(self, _: &crate::machine::config::MachineFile) -> Result<BenchResult> {
        run(self.quick)
    }
}
