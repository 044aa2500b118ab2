//! The collective communication library of seed 000 on the simulated blade.
//!
//! | file | what |
//! |---|---|
//! | `schedule.rs` | the schedule: rounds of transfers, one algorithm written once, text form |
//! | `algorithms.rs` | the algorithms as schedule generators, and the registry |
//! | `data.rs` | element types, reductions, reference inputs and expected results |
//! | `verify.rs` | the data-only interpreter that checks a schedule's result |
//! | `lower.rs` | the notification protocol that runs a schedule on SPEs |
//! | `request.rs` | the run, schedule and check requests: fields, defaults, limits |
//! | `claims/` | seed 000's findings as claims of `cellblade reproduce`, one file per operation |
//!
//! Measuring follows seed 000 §4: each rank times many calls with its decrementer; a broadcast
//! is followed by a barrier whose cost is included; the reported latency is the slowest rank's.

pub mod algorithms;
pub mod claims;
pub mod data;
pub mod lower;
pub mod request;
pub mod schedule;
pub mod verify;

use std::cell::Cell;
use std::rc::Rc;

use serde::Serialize;

use crate::blade::Blade;
use crate::error::{config_err, program_err, Result};
use crate::machine::config::MachineFile;
use algorithms::Algorithm;
use data::{expected, inputs, Dtype, ReduceOp};
use lower::{Costs, Layout, Rank};
use schedule::{Op, Schedule};

#[derive(Debug, Clone, Serialize)]
pub struct CollResult {
    pub op: String,
    pub algorithm: String,
    pub spes: usize,
    pub size_bytes: u32,
    pub latency_ns: f64,
    /// The data-only interpreter and the simulated run both gave the reference result.
    pub verified: bool,
}

/// How a measurement is set up.
#[derive(Debug, Clone)]
pub struct Setup {
    pub root: usize,
    /// Physical SPE of each rank.
    pub placement: Vec<usize>,
    pub dtype: Dtype,
    pub rop: ReduceOp,
    pub iterations: u32,
}

/// Refuse schedule `s` if its local-store footprint on each SPE exceeds `ls_bytes`: checked
/// before any buffer is built (the reference data and the interpreter's take `p` buffers each).
pub fn check_fits(s: &Schedule, ls_bytes: u32) -> Result<()> {
    fits(&s.algorithm, Layout::footprint(s), ls_bytes)
}

fn fits(what: &str, need: u64, ls_bytes: u32) -> Result<()> {
    if need > u64::from(ls_bytes) {
        return Err(program_err(format!("{what}: does not fit: needs {need} bytes, the local store has {ls_bytes}")));
    }
    Ok(())
}

/// Run `alg` on `setup.placement.len()` ranks with messages of `size` bytes.
/// The result names the size asked for; the run moves it padded to whole quadwords.
pub fn measure(file: &MachineFile, alg: &Algorithm, size: u32, setup: &Setup) -> Result<CollResult> {
    // Every rank's buffer holds at least the message: a size past the local store is refused
    // before its schedule is built.
    fits(alg.name, u64::from(size), file.spu.ls_bytes)?;
    let mut r = measure_schedule(file, &alg.schedule(setup.placement.len(), setup.root, size)?, setup)?;
    if alg.op != Op::Barrier {
        r.size_bytes = size;
    }
    Ok(r)
}

/// Run the schedule `sched` (a built-in's or one written in Python) as [`measure`] does.
pub fn measure_schedule(file: &MachineFile, sched: &Schedule, setup: &Setup) -> Result<CollResult> {
    let p = setup.placement.len();
    if sched.p != p || sched.root != setup.root {
        return Err(config_err(format!(
            "{}: the schedule is for {} SPEs and root {}, the run has {p} and root {}",
            sched.algorithm, sched.p, sched.root, setup.root
        )));
    }
    check_fits(sched, file.spu.ls_bytes)?;
    let barrier = algorithms::find("barrier.rdb")?.schedule(p, 0, 0)?;
    let inputs = inputs(sched.op, p, sched.root, sched.size, setup.dtype);
    let want = expected(sched.op, p, sched.root, sched.size, setup.dtype, setup.rop);
    // The data-only check runs on the same reference data (a reduction's result is the
    // costly part to build).
    let model_ok = verify::verify_on(sched, setup.dtype, setup.rop, inputs.clone(), &want).is_ok();
    let costs = Costs::of(file, setup.dtype);
    let mut blade = Blade::new(file.clone(), false);
    // Atomic notification counters: one line per rank at the start of XDRAM0.
    let counters = blade.machine().mem.xdram_ea(0, 0);
    for &spe in &setup.placement {
        // Signal-register announcements accumulate one bit per sender.
        blade.machine().ch[spe].signal_or_mode[0] = true;
    }
    let ok = Rc::new(Cell::new(true));
    let worst = Rc::new(Cell::new(0f64));
    // Each rank takes its own input (moved, not copied: at 128 KB a copy of each was a fresh
    // allocation, page faults and all) and shares the expected result.
    for ((rank, &spe), (input, want)) in setup.placement.iter().enumerate().zip(inputs.into_iter().zip(want)) {
        let (sched, barrier, spes) = (sched.clone(), barrier.clone(), setup.placement.clone());
        let (ok, worst) = (ok.clone(), worst.clone());
        let (dtype, rop, iterations) = (setup.dtype, setup.rop, setup.iterations);
        let with_barrier = sched.op == Op::Broadcast;
        blade.spe(spe, move |spu| async move {
            let layout = Layout::alloc(&spu, &sched)?;
            let mut me = Rank::new(spu.clone(), rank, spes, layout, dtype, rop, costs, counters);
            // One checked call on the reference data, then the timed calls.
            spu.ls_write(layout.buf, &input)?;
            me.run(&sched).await?;
            if let Some(w) = want {
                if spu.ls_read(layout.buf, w.len() as u32)? != *w {
                    ok.set(false);
                }
            }
            me.run(&barrier).await?;
            let (d0, t0) = (spu.spu_read_decrementer(), spu.now());
            for _ in 0..iterations {
                me.run(&sched).await?;
                if with_barrier {
                    me.run(&barrier).await?;
                }
            }
            let elapsed_ns = (spu.now() - t0).as_ns();
            if elapsed_ns >= spu.decrementer_span_ns() {
                return Err(config_err(format!(
                    "iterations {iterations} is not allowed: rank {rank} would time them over {:.1} s of simulated time, longer than its 32-bit decrementer counts before it wraps ({:.1} s)",
                    elapsed_ns / 1e9,
                    spu.decrementer_span_ns() / 1e9
                )));
            }
            let ticks = d0.wrapping_sub(spu.spu_read_decrementer());
            let ns = ticks as f64 * spu.decrementer_period_ns() / iterations as f64;
            worst.set(worst.get().max(ns));
            Ok(())
        })?;
    }
    blade.run()?;
    Ok(CollResult {
        op: sched.op.name().into(),
        algorithm: sched.algorithm.clone(),
        spes: p,
        size_bytes: sched.size,
        latency_ns: worst.get(),
        verified: model_ok && ok.get(),
    })
}
