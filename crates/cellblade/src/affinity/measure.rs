//! Running a pattern under a placement with the seed's method (seed 001 §3): barrier, timer,
//! (barrier,) the operation repeated, (barrier,) timer.
//!
//! - Single-phase patterns: each receiving rank times its own repetitions, so ranks report
//!   different bandwidths, as in the seed's Figure 2 (right).
//! - Multi-phase patterns: rank 0 times the whole sequence, and the barriers at both ends
//!   are included. Within an operation a rank gets its phase-k data only after the source
//!   has said it holds that data: the source sends a signal (OR mode, bit k) once its own earlier
//!   phases are done. The operation ends with a barrier, as in the seed.
//! - The barrier is one-to-all through signal register 2 in OR mode. The seed used a fast
//!   barrier of ~0.4 us on 8 SPEs (§3); seed 000 §4 measures its OR-signal version at ~400 ns.

use std::cell::RefCell;
use std::rc::Rc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::pattern::{Pattern, Transfer};
use super::placement::Placement;
use crate::blade::Blade;
use crate::error::Result;
use crate::machine::config::MachineFile;
use crate::ppe::Access;
use crate::spu::Spu;

/// What one run measured.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Bandwidth each rank received at (GB/s); None for ranks that receive nothing.
    pub per_rank_gbps: Vec<Option<f64>>,
    /// Time of one operation (ns): rank 0's for multi-phase patterns, the slowest rank's otherwise.
    pub op_ns: f64,
}

impl Measurement {
    pub fn min_gbps(&self) -> f64 {
        self.per_rank_gbps.iter().flatten().copied().fold(f64::INFINITY, f64::min)
    }

    pub fn mean_gbps(&self) -> f64 {
        let v: Vec<f64> = self.per_rank_gbps.iter().flatten().copied().collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    }
}

const MAX_DMA: u32 = 16384;
/// Phases a pattern may have (log2 of 16 ranks).
const MAX_PHASES: usize = 4;

/// One-to-all barrier over `spes` (rank order) through signal register 2 in OR mode; its
/// control code costs what the collective library's signal barrier's does
/// (`spu.signal_call_core_cycles`).
async fn barrier(spu: &Spu, rank: usize, spes: &[usize], scratch: u32) -> Result<()> {
    spu.compute(spu.with_machine(|m| m.file.spu.signal_call_core_cycles)).await;
    if rank == 0 {
        let all: u32 = (1..spes.len()).fold(0, |m, r| m | 1 << r);
        let mut seen = 0;
        while seen != all {
            seen |= spu.spu_read_signal2().await?;
        }
        for &spe in &spes[1..] {
            spu.signal_remote(scratch, spe, 2, 1, 31).await?;
        }
    } else {
        spu.signal_remote(scratch, spes[0], 2, 1 << rank, 31).await?;
        spu.spu_read_signal2().await?;
    }
    spu.mfc_write_tag_mask(1 << 31);
    spu.mfc_read_tag_status_all().await?;
    Ok(())
}

/// Get `bytes` from `src_ea` into `lsa` as 16 KB DMAs on tag 0.
async fn get(spu: &Spu, lsa: u32, src_ea: u64, bytes: u32) -> Result<()> {
    let mut off = 0;
    while off < bytes {
        let n = (bytes - off).min(MAX_DMA);
        spu.mfc_get(lsa + off, src_ea + off as u64, n, 0).await?;
        off += n;
    }
    Ok(())
}

/// Run `pattern` under `placement`, `reps` operations; `jitter` seeds a start skew of up to
/// 64 core cycles per rank (the scatter of real start times), or none.
pub fn measure(file: &MachineFile, pattern: &Pattern, placement: &Placement, reps: u32, jitter: Option<u64>) -> Result<Measurement> {
    let p = placement.spes();
    let spes = placement.rank_to_spe.clone();
    let max_bytes = pattern.phases.iter().flatten().map(|t| t.bytes).max().unwrap_or(16);
    let mut blade = Blade::new(file.clone(), false);
    {
        let mut m = blade.machine();
        for &s in &spes {
            m.ch[s].signal_or_mode = [true, true];
        }
    }
    let times = Rc::new(RefCell::new(vec![None::<f64>; p]));
    let multi = pattern.phases.len() > 1;
    // Seed 001 §3: the PPE creates the threads, learns the physical SPE each one runs on, and
    // sends each its rank from the placement; the SPEs wait for it before they start.
    let ranks_of = spes.clone();
    blade.ppe(move |ppe| async move {
        for (rank, &spe) in ranks_of.iter().enumerate() {
            ppe.spe_in_mbox_write(spe, rank as u32, Access::Mmio).await?;
        }
        Ok(())
    });
    for &spe in &spes {
        let spes = spes.clone();
        let phases = pattern.phases.clone();
        let times = times.clone();
        blade.spe(spe, move |spu| async move {
            let rank = spu.spu_read_in_mbox().await? as usize;
            // Same layout on every SPE: one message buffer (a rank forwards what it received,
            // and the seed's 128 KB broadcast leaves no room for two), then scratch.
            let buf = spu.ls_alloc(max_bytes, 128)?;
            // One quadword per phase signal, one for acknowledgements, one for the barrier: a
            // DMA reads its source when it runs, so a word must not change while in flight.
            let scratch = spu.ls_alloc(16 * (MAX_PHASES as u32 + 2), 16)?;
            let ack_slot = scratch + 16 * MAX_PHASES as u32;
            let barrier_slot = ack_slot + 16;
            let of = |k: usize, f: &dyn Fn(&Transfer) -> bool| {
                phases.get(k).map(|ph| ph.iter().filter(|t| f(t)).copied().collect::<Vec<_>>()).unwrap_or_default()
            };
            let received: u64 = phases.iter().flatten().filter(|t| t.dst == rank).map(|t| t.bytes as u64).sum();
            barrier(&spu, rank, &spes, barrier_slot).await?;
            if let Some(seed) = jitter {
                let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(31).wrapping_add(rank as u64));
                spu.compute(rng.gen_range(0..=64)).await;
            }
            let t0 = spu.now();
            if multi {
                barrier(&spu, rank, &spes, barrier_slot).await?;
            }
            spu.mfc_write_tag_mask(1 | 1 << 30);
            for _ in 0..reps {
                // Signal-register-1 bits seen this operation: bit k "phase-k data is ready",
                // bit 16+r "rank r has finished reading what I sent it".
                let mut seen = 0u32;
                for k in 0..phases.len() {
                    let gets = of(k, &|t| t.dst == rank);
                    let sends = of(k, &|t| t.src == rank);
                    if multi && !sends.is_empty() {
                        // Phases follow each other: first the readers of my previous phase finish.
                        for t in of(k.wrapping_sub(1), &|t| t.src == rank) {
                            while seen & (1 << (16 + t.dst)) == 0 {
                                seen |= spu.spu_read_signal1().await?;
                            }
                        }
                        for t in &sends {
                            spu.signal_remote(scratch + 16 * k as u32, spes[t.dst], 1, 1 << k, 30).await?;
                        }
                    }
                    for t in &gets {
                        while multi && seen & (1 << k) == 0 {
                            seen |= spu.spu_read_signal1().await?;
                        }
                        get(&spu, buf, Spu::ls_ea(spes[t.src], buf), t.bytes).await?;
                    }
                    spu.mfc_read_tag_status_all().await?;
                    // Acknowledge to sources that send again in the next phase.
                    for t in &gets {
                        if multi && !of(k + 1, &|x| x.src == t.src).is_empty() {
                            spu.signal_remote(ack_slot, spes[t.src], 1, 1 << (16 + rank), 30).await?;
                        }
                    }
                }
                if multi {
                    barrier(&spu, rank, &spes, barrier_slot).await?;
                }
            }
            let dt = (spu.now() - t0).as_ns() / reps as f64;
            if received > 0 || rank == 0 {
                times.borrow_mut()[rank] = Some(dt);
            }
            Ok(())
        })?;
    }
    blade.run()?;
    let times = times.borrow().clone();
    let received = |r: usize| pattern.phases.iter().flatten().filter(|t| t.dst == r).map(|t| t.bytes as u64).sum::<u64>();
    let op_ns = if multi { times[0].unwrap_or(0.0) } else { times.iter().flatten().copied().fold(0.0, f64::max) };
    let per_rank_gbps = (0..p)
        .map(|r| {
            let bytes = received(r);
            let t = if multi { Some(op_ns) } else { times[r] };
            (bytes > 0).then(|| bytes as f64 / t.unwrap_or(f64::INFINITY))
        })
        .collect();
    Ok(Measurement { per_rank_gbps, op_ns })
}
