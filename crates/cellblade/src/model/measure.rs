//! Running the §3.3 micro-benchmarks into the model's parameters (seed 003 §7.1: L from SPE0
//! to every other SPE, averaged; g, g1, g2 and g_Ack from bursts at one root; C from the
//! BIF-n butterfly).

use serde::{Deserialize, Serialize};

use super::bench::{burst, free_running, half_rtt, note_train, train, Move};
use super::params::{CongestionRow, GammaRow, ModelParams};
use crate::coll::data::Dtype;
use crate::error::{field_err, field_msg, Result};
use crate::machine::config::{MachineFile, Params};

/// The largest message the micro-benchmarks move: two such buffers and the collectives'
/// arrays fit a 256 KB local store, and seed 003's figures stop at 32 KB.
pub const MAX_SIZE: u32 = 32768;
/// BIF-n counts of the butterfly benchmark (figure 8: BIF-2 ... BIF-16; BIF-1 to check that it
/// equals BIF-2).
pub const BIF_COUNTS: [u32; 9] = [1, 2, 4, 6, 8, 10, 12, 14, 16];

/// Readers of the gap bursts: SPEs 1-7 on the root's chip, 8-15 on the other.
pub const NEAR_READERS: usize = 7;
pub const FAR_READERS: usize = 8;

fn default_sizes() -> Vec<u32> {
    (4..=15).map(|k| 1u32 << k).collect()
}
/// Timed repetitions of every micro-benchmark when a request names none: enough for the
/// deterministic simulator, whose repetitions differ only by the pipeline's warm-up.
pub const DEFAULT_ITERATIONS: u32 = 32;
/// The most repetitions a request may ask for: the seed's own count on hardware (§7.1).
pub const MAX_ITERATIONS: u32 = 100_000;

fn default_iterations() -> u32 {
    DEFAULT_ITERATIONS
}

/// What to measure. Sizes default to 16 B .. 32 KB in powers of two.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureRequest {
    #[serde(default = "default_sizes")]
    pub sizes: Vec<u32>,
    /// Timed repetitions of every micro-benchmark (the seed: 100,000 on hardware).
    #[serde(default = "default_iterations")]
    pub iterations: u32,
}

impl Default for MeasureRequest {
    fn default() -> Self {
        MeasureRequest { sizes: default_sizes(), iterations: default_iterations() }
    }
}

impl MeasureRequest {
    pub fn check(&self) -> Result<()> {
        if self.sizes.len() < 2 || self.sizes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(field_msg("sizes", "sizes: at least two rising sizes are needed to interpolate"));
        }
        if let Some(s) = self.sizes.iter().find(|&&s| s == 0 || s % 16 != 0 || s > MAX_SIZE) {
            return Err(field_err("sizes", s, format!("a multiple of 16 bytes from 16 to {MAX_SIZE}")));
        }
        if self.iterations == 0 || self.iterations > MAX_ITERATIONS {
            return Err(field_err("iterations", self.iterations, format!("1 to {MAX_ITERATIONS}")));
        }
        Ok(())
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

/// Mean half round trip from SPE0 to each SPE of `peers`.
fn latency(file: &MachineFile, peers: std::ops::Range<usize>, bytes: u32, it: u32) -> Result<f64> {
    let v = peers.map(|b| half_rtt(file, 0, b, bytes, it)).collect::<Result<Vec<_>>>()?;
    Ok(mean(&v))
}

/// One root (SPE0) and every SPE of `readers` moving at once: the time of the last of each
/// chip's group over the group's size, (chip 0, chip 1).
fn gaps(file: &MachineFile, readers: std::ops::Range<usize>, mv: impl Fn() -> Move, it: u32) -> Result<(f64, f64)> {
    let moves: Vec<(usize, Move)> = readers.clone().map(|s| (s, mv())).collect();
    let t = burst(file, &moves, it)?;
    let (near, far): (Timed, Timed) = readers.zip(t).partition(|(s, _)| *s < 8);
    let per = |g: &[(usize, f64)]| if g.is_empty() { 0.0 } else { max(&g.iter().map(|x| x.1).collect::<Vec<_>>()) / g.len() as f64 };
    Ok((per(&near), per(&far)))
}

/// The pairs of the BIF-n butterfly: n/2 pairs (i, 8+i) exchange m bytes, each SPE getting from
/// its partner (BIF-1: SPE 8 reads SPE 0 alone). As (reader, source).
fn butterfly_pairs(n: u32) -> Vec<(usize, usize)> {
    if n == 1 {
        vec![(8, 0)]
    } else {
        (0..n as usize / 2).flat_map(|i| [(i, 8 + i), (8 + i, i)]).collect()
    }
}

/// Gets before and after the timed ones of a free-running butterfly: enough for the SPEs to
/// fall into their steady pace (the simulated loop settles within two) and to keep the link
/// loaded while the last ones are timed.
pub const FREE_RUNNING_WARMUP: u32 = 8;

/// The BIF-n butterfly as the seed times it (§3.3, §7: each SPE's DMAs averaged over many
/// iterations, nothing re-aligning the SPEs between them): each SPE of the pairs gets m bytes
/// from its partner again and again at its own pace; the mean time of the n DMAs.
pub fn butterfly(file: &MachineFile, n: u32, bytes: u32, it: u32) -> Result<f64> {
    let gets: Vec<(usize, usize, u32)> = butterfly_pairs(n).into_iter().map(|(r, s)| (r, s, bytes)).collect();
    Ok(mean(&free_running(file, &gets, FREE_RUNNING_WARMUP, it)?))
}

/// The BIF-n butterfly with the n DMAs issued at one instant in every iteration, as a round of
/// a collective issues them: the time of the slowest.
pub fn butterfly_at_once(file: &MachineFile, n: u32, bytes: u32, it: u32) -> Result<f64> {
    let moves: Vec<(usize, Move)> = butterfly_pairs(n).into_iter().map(|(r, s)| (r, Move::GetFrom(s, bytes))).collect();
    Ok(max(&burst(file, &moves, it)?))
}

/// Gamma from the SPU cycles the collectives' lowering charges to combine a quadword of each
/// type (the machine file's `spu.reduce_*core_cycles_per_quadword`); every operator costs the same.
fn gamma(file: &MachineFile) -> Vec<GammaRow> {
    let p = Params::resolve(file);
    let core_ns = p.core_cycle.as_ns();
    let mut rows = Vec::new();
    for (name, dtype) in Dtype::NAMES.iter().zip([Dtype::Int32, Dtype::Float32, Dtype::Float64]) {
        let cycles = dtype.reduce_cycles_per_quadword(&p);
        for op in ["sum", "min", "max", "prod"] {
            rows.push(GammaRow { dtype: (*name).into(), op: op.into(), ns_per_byte: cycles as f64 * core_ns / 16.0 });
        }
    }
    rows
}

/// Run every micro-benchmark on the blade `file` describes.
pub fn measure(file: &MachineFile, req: &MeasureRequest) -> Result<ModelParams> {
    req.check()?;
    let it = req.iterations;
    let mut p = ModelParams {
        source: format!("simulated blade, {} iterations per point", it),
        sizes_bytes: req.sizes.clone(),
        l1_ack_ns: latency(file, 1..8, 0, it)?,
        l2_ack_ns: latency(file, 8..16, 0, it)?,
        l1_ns: Vec::new(),
        l2_ns: Vec::new(),
        g_ns: Vec::new(),
        g1_ns: Vec::new(),
        g2_ns: Vec::new(),
        g_ack_ns: gaps(file, 1..1 + NEAR_READERS, || Move::NoteTo(0), it)?.0,
        g1_ack_ns: 0.0,
        g2_ack_ns: 0.0,
        g_note_issue_ns: {
            let one = note_train(file, 0, &[1], it)?;
            let seven = note_train(file, 0, &[1, 2, 3, 4, 5, 6, 7], it)?;
            ((seven - one) / 6.0).max(0.0)
        },
        g_kielmann_ns: Vec::new(),
        congestion: Vec::new(),
        gamma: gamma(file),
        copy_ns_per_byte: {
            let mp = Params::resolve(file);
            mp.copy_cycles_per_quadword as f64 * mp.core_cycle.as_ns() / 16.0
        },
    };
    (p.g1_ack_ns, p.g2_ack_ns) = gaps(file, 1..1 + NEAR_READERS + FAR_READERS, || Move::NoteTo(0), it)?;
    for &m in &req.sizes {
        p.l1_ns.push(latency(file, 1..8, m, it)?);
        p.l2_ns.push(latency(file, 8..16, m, it)?);
        p.g_ns.push(gaps(file, 1..1 + NEAR_READERS, || Move::GetFrom(0, m), it)?.0);
        let (g1, g2) = gaps(file, 1..1 + NEAR_READERS + FAR_READERS, || Move::GetFrom(0, m), it)?;
        p.g1_ns.push(g1);
        p.g2_ns.push(g2);
        p.g_kielmann_ns.push(train(file, 0, 1, m, 8, it)?);
        let base = butterfly(file, 2, m, it)?;
        let base_at_once = butterfly_at_once(file, 2, m, it)?;
        for n in BIF_COUNTS {
            let latency_ns = if n == 2 { base } else { butterfly(file, n, m, it)? };
            let slowest_latency_ns = if n == 2 { base_at_once } else { butterfly_at_once(file, n, m, it)? };
            let excess = |t: f64, base: f64| if n <= 2 { 0.0 } else { t - base };
            p.congestion.push(CongestionRow {
                bif_messages: n,
                size_bytes: m,
                latency_ns,
                excess_ns: excess(latency_ns, base),
                slowest_latency_ns,
                slowest_excess_ns: excess(slowest_latency_ns, base_at_once),
            });
        }
    }
    p.check()?;
    Ok(p)
}

/// (SPE, time) pairs of the readers on one side of the BIF.
type Timed = Vec<(usize, f64)>;
