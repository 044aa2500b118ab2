//! Seed 004 §5.1's ping-pong (mpptest's pingpong): rank 0 sends a message to rank 1 and
//! receives it back, `reps` times between two decrementer reads; the latency is the time per
//! message (half a round trip) and the throughput the size over it. "Congested": all 8 SPEs
//! of chip 0 in exchanging pairs (0-1, 2-3, 4-5, 6-7), the pair 0-1 timed.
//!
//! The seed says only that it divided "the SPEs into pairs, [each] exchanging messages. One
//! pair was timed" (§5.1). Here the four pairs start together after one barrier and run the
//! same sizes and repetitions, so they move data through the whole timed span, in step in
//! effect (nothing holds them together after the barrier). In memory mode each rank's buffers
//! are in its chip's XDRAM (`layout::heap`) and every byte crosses chip 0's MIC twice (the
//! receiver GETs it from the sender's buffer into its local store and PUTs it into its own),
//! and the MIC gives 25.6 GB/s for reads and writes together (seed 001 §2; `machine::bus`,
//! "The MIC"): four pairs can move at most 25.6 / (4 x 2) = 3.2 GB/s each, which the
//! simulation reaches (3.20 GB/s at 1 MB). The published 4.48 GB/s (Table 1) would take
//! 4 x 2 x 4.48 = 35.8 GB/s through one MIC; the seed's pairs can only have reached it if
//! they did not all move data at once (the untimed pairs' loops starting later or ending
//! sooner, or running other sizes), or if not all their buffers sat behind one MIC (the
//! seed's 1 GB blade has 512 MB per chip). The seed does not say which, so the simulation
//! does not guess.
//!
//! The seed repeats 1000 times to beat the decrementer's 70 ns resolution and averages runs;
//! a simulated run is deterministic, so one run is the average, and large messages repeat
//! fewer times (at least 8, and enough that the timed span covers thousands of decrementer
//! ticks) to keep the simulation short.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::Result;
use crate::machine::config::MachineFile;

use super::{Mode, MpiWorld};

/// One ping-pong measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PingPong {
    pub mode: Mode,
    pub congested: bool,
    pub bytes: u32,
    pub reps: u32,
    /// Staging chunks in flight in memory mode (2: the seed's double buffering).
    pub depth: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PingPongRow {
    pub bytes: u32,
    pub reps: u32,
    /// Time per message (half a round trip), from the decrementer, in microseconds.
    pub latency_us: f64,
    /// Bytes per second over that time, in GB/s (10^9).
    pub throughput_gbps: f64,
}

/// The seed's repetition count, reduced for long messages: 1000 up to 1 KB, then as many as
/// move 1 MB each way, at least 8.
pub fn default_reps(bytes: u32) -> u32 {
    if bytes <= 1024 {
        1000
    } else {
        ((1u32 << 20) / bytes).clamp(8, 1000)
    }
}

/// Run one ping-pong on a fresh blade.
pub fn pingpong(file: MachineFile, p: PingPong) -> Result<PingPongRow> {
    if p.reps == 0 {
        return Err(crate::error::field_err("reps", 0, format!("1 to {}", u32::MAX)));
    }
    let ranks = if p.congested { 8 } else { 2 };
    let mut w = MpiWorld::new(file, ranks, None, p.mode)?;
    w.set_depth(p.depth)?;
    let timed = Rc::new(RefCell::new(None));
    for rank in 0..ranks {
        let timed = timed.clone();
        w.rank(rank, move |r| async move {
            let (sbuf, rbuf) = (r.alloc(p.bytes as u64)?, r.alloc(p.bytes as u64)?);
            let pattern: Vec<u8> = (0..p.bytes).map(|i| (i as u8) ^ (rank as u8)).collect();
            r.write(sbuf, &pattern)?;
            let peer = rank ^ 1;
            r.barrier(0).await?;
            let t0 = r.wtime();
            for _ in 0..p.reps {
                if rank % 2 == 0 {
                    r.send(sbuf, p.bytes, peer, 1, 0).await?;
                    r.recv(rbuf, p.bytes, peer as i32, 1, 0).await?;
                } else {
                    r.recv(rbuf, p.bytes, peer as i32, 1, 0).await?;
                    r.send(sbuf, p.bytes, peer, 1, 0).await?;
                }
            }
            let t1 = r.wtime();
            let want: Vec<u8> = (0..p.bytes).map(|i| (i as u8) ^ (peer as u8)).collect();
            if r.read(rbuf, p.bytes)? != want {
                return Err(crate::error::Error::Internal(format!("ping-pong: rank {rank} received wrong bytes")));
            }
            if rank == 0 {
                *timed.borrow_mut() = Some(t1 - t0);
            }
            Ok(())
        })?;
    }
    w.run()?;
    let secs = timed.borrow().expect("rank 0 ran");
    let per_msg = secs / (2.0 * p.reps as f64);
    Ok(PingPongRow { bytes: p.bytes, reps: p.reps, latency_us: per_msg * 1e6, throughput_gbps: p.bytes as f64 / per_msg / 1e9 })
}
