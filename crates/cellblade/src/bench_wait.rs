//! The workloads where users wait on simulated polling (issue 24): a 16-SPE all-reduce of the
//! collective library at 128 B and at 8 KB, and a 16-rank MPI job looping over a broadcast and
//! an all-reduce written with sends and any-source receives. Each prints the events it
//! handled, the CPU it took per simulated microsecond, and the process's peak RSS after it.

use serde::Serialize;

use crate::coll::algorithms::find;
use crate::coll::data::{Dtype, ReduceOp};
use crate::coll::{measure, Setup};
use crate::error::Result;
use crate::machine::config::{load, preset_text};
use crate::mpi::{Mode, MpiWorld, ANY_SOURCE};
use crate::sim::engine::finished_on_thread;

#[derive(Debug, Clone, Serialize)]
pub struct WaitWorkload {
    pub name: String,
    pub events: u64,
    pub simulated_us: f64,
    /// CPU time of the thread that ran it.
    pub cpu_s: f64,
    pub events_per_simulated_us: f64,
    /// CPU microseconds per simulated microsecond.
    pub cpu_us_per_simulated_us: f64,
    /// The process's peak resident set so far, after this workload (KiB).
    pub peak_rss_kib: u64,
}

/// This thread's CPU time (user and system), and the process's peak RSS in KiB. The time is
/// the scheduler's, to the nanosecond: `getrusage`'s thread times advance by whole clock ticks
/// here (4 ms), which made a short workload read 0 or one tick.
pub(crate) fn usage() -> (f64, u64) {
    // SAFETY: both calls fill the struct they are given; zeroed values are valid ones.
    let (cpu, process) = unsafe {
        let mut t: libc::timespec = std::mem::zeroed();
        let mut p: libc::rusage = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t);
        libc::getrusage(libc::RUSAGE_SELF, &mut p);
        (t, p)
    };
    (cpu.tv_sec as f64 + cpu.tv_nsec as f64 * 1e-9, process.ru_maxrss.max(0) as u64)
}

/// Time `run` on this thread: the events and simulated time of the engines it dropped.
fn timed(name: String, run: impl FnOnce() -> Result<()>) -> Result<WaitWorkload> {
    let ((events0, ticks0), (cpu0, _)) = (finished_on_thread(), usage());
    run()?;
    let ((events1, ticks1), (cpu1, peak_rss_kib)) = (finished_on_thread(), usage());
    let (events, cpu_s) = (events1 - events0, cpu1 - cpu0);
    let simulated_us = crate::sim::Time(ticks1 - ticks0).as_ns() / 1000.0;
    let per_us = |x: f64| x / simulated_us.max(1e-9);
    Ok(WaitWorkload {
        name,
        events,
        simulated_us,
        cpu_s,
        events_per_simulated_us: per_us(events as f64),
        cpu_us_per_simulated_us: per_us(cpu_s * 1e6),
        peak_rss_kib,
    })
}

/// 16 ranks, `rounds` times: rank 0 broadcasts 1 KB (a send to each), then every rank sends
/// 64 bytes to rank 0, which takes them from any source and answers each (an all-reduce).
fn mpi_loop(rounds: u32) -> Result<()> {
    let ranks = 16;
    let mut w = MpiWorld::new(load(preset_text("qs20")?, &[])?, ranks, None, Mode::Memory)?;
    for rank in 0..ranks {
        w.rank(rank, move |r| async move {
            let b = r.alloc(1024)?;
            for _ in 0..rounds {
                if rank == 0 {
                    for to in 1..ranks {
                        r.send(b, 1024, to, 1, 0).await?;
                    }
                    for _ in 1..ranks {
                        r.recv(b, 64, ANY_SOURCE, 2, 0).await?;
                    }
                    for to in 1..ranks {
                        r.send(b, 64, to, 3, 0).await?;
                    }
                } else {
                    r.recv(b, 1024, 0, 1, 0).await?;
                    r.send(b, 64, 0, 2, 0).await?;
                    r.recv(b, 64, 0, 3, 0).await?;
                }
            }
            Ok(())
        })?;
    }
    w.run().map(|_| ())
}

pub fn run(quick: bool) -> Result<Vec<WaitWorkload>> {
    let file = load(preset_text("qs20")?, &[])?;
    let iterations = if quick { 20 } else { 200 };
    let mut out = Vec::new();
    for size in [128u32, 8192] {
        let setup = Setup { root: 0, placement: (0..16).collect(), dtype: Dtype::Int32, rop: ReduceOp::Sum, iterations };
        let name = format!("16-SPE allreduce.rdb of {size} B, {iterations} calls");
        out.push(timed(name, || measure(&file, find("allreduce.rdb")?, size, &setup).map(|_| ()))?);
    }
    let rounds = if quick { 5 } else { 50 };
    out.push(timed(format!("16-rank MPI broadcast and all-reduce loop, {rounds} rounds"), || mpi_loop(rounds))?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    /// A workload shorter than a clock tick still reads the CPU it used, not 0.
    #[test]
    fn thread_cpu_time_is_finer_than_a_clock_tick() {
        let (start, _) = super::usage();
        let wall = std::time::Instant::now();
        let mut x = 0u64;
        while wall.elapsed() < std::time::Duration::from_millis(2) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let (used, peak_rss_kib) = super::usage();
        assert!(used > start && used - start < 1.0, "{start} -> {used}");
        assert!(peak_rss_kib > 0);
    }
}
