//! Seed 004 §5.1's ping-pong results as claims for `cellblade reproduce`: each published
//! figure beside the simulated one. Each is a published measurement, so it holds by the rule
//! for one (`evidence::rules::measured`, within 10%, as calibration rows). The 0-byte latency is fitted (the
//! machine file's `mpi.call_core_cycles` is chosen on it, and its note says so); the
//! throughputs are predictions. Seed 004 §5.2's matrix multiplication rates are published
//! measurements too ("we could achieve ... 5.85 Gflop/s"), predicted: nothing is fitted on them.

use crate::error::Result;
use crate::evidence::claim::{claim, skipped};
use crate::evidence::{rules, Claim};
use crate::machine::config::MachineFile;

use super::matmul::{matmul, DEFAULT_RANKS};
use super::{default_reps, pingpong, Mode, PingPong, DEFAULT_DEPTH};

const SOURCE: &str = "seed 004 §5.1, Table 1";

fn best(file: &MachineFile, mode: Mode, congested: bool, sizes: &[u32], reps_cap: u32) -> Result<f64> {
    let mut top = 0.0f64;
    for &bytes in sizes {
        let reps = default_reps(bytes).min(reps_cap);
        top = top.max(pingpong(file.clone(), PingPong { mode, congested, bytes, reps, depth: DEFAULT_DEPTH })?.throughput_gbps);
    }
    Ok(top)
}

fn value(text: &str, published: f64, simulated: f64, unit: &str, note: &str) -> Claim {
    let err = simulated / published - 1.0;
    let shown = format!("{simulated:.3} {unit} ({:+.0}%)", 100.0 * err);
    claim(text, SOURCE, &format!("{published} {unit}"), shown, rules::measured(simulated, published), note)
}

/// Seed 004 §5.2's rate of the master-worker multiplication of order `n` on 8 SPEs; a wrong
/// product makes the row `unverified`. `more` ends the note.
/// `skip`: state the row without running it (`--quick`).
fn matmul_row(file: &MachineFile, n: usize, published: f64, more: &str, skip: bool) -> Result<Claim> {
    let text = format!("master-worker matrix multiplication: {published} Gflop/s at n = {n}");
    let (source, published_text) = ("seed 004 §5.2", format!("{published} Gflop/s"));
    let note = format!("8 ranks (a master, 7 workers), scalar DP multiply-adds at seed 002's issue interval; the DMAs streaming B from memory are not modelled (mpi/matmul.rs, the twin of examples/mpi/matmul.c){more}");
    if skip {
        return Ok(skipped(&text, source, &published_text, &note));
    }
    let run = matmul(file.clone(), n, DEFAULT_RANKS)?;
    let shown = format!("{:.2} Gflop/s ({:+.0}%; {:.3} ms)", run.gflops, 100.0 * (run.gflops / published - 1.0), run.seconds * 1e3);
    let c = claim(&text, source, &published_text, shown, rules::measured(run.gflops, published), &note);
    Ok(if run.verified { c } else { Claim { holds: false, status: "unverified".into(), note: "the product was wrong".into(), ..c } })
}

/// The ping-pong rows, then the matrix multiplication at both of §5.2's orders.
pub fn claims(file: &MachineFile, quick: bool) -> Result<Vec<Claim>> {
    let mut rows = pingpong_claims(file, quick)?;
    rows.extend(matmul_claims(file, 512, quick)?);
    rows.extend(matmul_claims(file, 1024, quick)?);
    Ok(rows)
}

/// The ping-pong rows: 0-byte latency, and the best throughput in memory, congested and
/// local-store modes.
pub fn pingpong_claims(file: &MachineFile, quick: bool) -> Result<Vec<Claim>> {
    let cap = if quick { 16 } else { 64 };
    let big: &[u32] = if quick { &[262144, 1 << 20] } else { &[65536, 262144, 1 << 20] };
    let lat = pingpong(
        file.clone(),
        PingPong { mode: Mode::Memory, congested: false, bytes: 0, reps: default_reps(0).min(10 * cap), depth: DEFAULT_DEPTH },
    )?
    .latency_us;
    let mem = best(file, Mode::Memory, false, big, cap)?;
    let cong = best(file, Mode::Memory, true, big, cap)?;
    // The largest ls-mode message: both ping-pong buffers fill the local-store heap.
    let ls_max = (super::layout::ls_heap(file.spu.ls_bytes, 0, DEFAULT_DEPTH).1 / 2) as u32 & !127;
    let ls = best(file, Mode::Ls, false, &[16384, 65536, ls_max], cap)?;
    Ok(vec![
        value("MPI ping-pong: 0-byte latency about 0.65 us", 0.65, lat, "us",
            "fitted: mpi.call_core_cycles (the library's SPU code per send and per receive) is chosen on this row, beside the meta-data DMA and the signal the seed names (0.12 + 0.05 us)").fitted(),
        value("MPI ping-pong: maximum throughput 6.01 GB/s (main memory, double buffered)", 6.01, mem, "GB/s", ""),
        value("MPI ping-pong: maximum throughput 4.48 GB/s with every SPE of a chip in exchanging pairs", 4.48, cong, "GB/s",
            "four pairs of chip 0 in step after one barrier, buffers in XDRAM0: each byte crosses the MIC twice and the MIC gives 25.6 GB/s for reads and writes together, so 3.2 GB/s per pair is the bound, reached; the published figure takes 35.8 GB/s through one MIC, so the seed's pairs cannot all have moved data at once through one MIC (mpi/pingpong.rs)"),
        value("MPI ping-pong: maximum throughput 23.29 GB/s with buffers in local store", 23.29, ls, "GB/s", ""),
    ])
}

/// The matrix multiplication's row at order `n` (512 or 1024, §5.2's two); `quick` skips
/// n = 1024, as long as the rest of a quick run together.
pub fn matmul_claims(file: &MachineFile, n: usize, quick: bool) -> Result<Vec<Claim>> {
    let row = match n {
        512 => matmul_row(file, 512, 5.85, "", false)?,
        _ => matmul_row(
            file,
            1024,
            5.66,
            "; so the seed's drop from n = 512 is not reproduced: a larger n only amortises the broadcast better",
            quick,
        )?,
    };
    Ok(vec![row])
}
