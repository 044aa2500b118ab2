//! MPI on the simulated SPEs, as seed 004 builds it: every rank an SPE thread on its own
//! physical SPE, synchronous-mode point-to-point through per-pair meta-data entries in the
//! receivers' local stores (short messages inside the entry in buffered mode, §7, when the
//! machine file's `mpi.buffered_bytes` asks), nonblocking requests in flight together, and
//! collectives built on send and receive.
//!
//! ```text
//! heap.rs      a rank's buffers: bump allocation in its areas of memory
//! layout.rs    where things are: meta-data entries B_ij, staging chunks, boot structures, heaps
//! startup.rs   §3.2: the PPE passes each rank a boot structure through a mailbox message
//! tracker.rs   what every rank waits in, for the deadlock report ("rank 0 waits in MPI_Send ...")
//! rank.rs      one rank: §3.3 send (meta-data DMA, wait for the signal) and receive (poll, match, move, signal)
//! unexpected.rs  matching by tag and communicator: the unexpected queue, its protocol and costs
//! matching.rs  the receiver parks an entry no receive matches, and takes parked messages
//! nonblocking.rs  MPI_Isend/Irecv/Test/Wait: requests in flight together, a progress engine
//! pending.rs   the records of nonblocking requests: kind, state, how a report names them
//! nb_wire.rs   a rank process's nonblocking calls, served by that engine
//! transfer.rs  the receiver's data move: "memory" mode (chunks through the local store, double
//!              buffered) and "ls" mode (one SPE-to-SPE DMA per 16 KB)
//! world.rs     a blade running N ranks with a program per rank; deadlocks reported per rank
//! pingpong.rs  §5.1's ping-pong (decrementer timing), plain and congested
//! claims.rs    the ping-pong's and the matrix multiplication's published figures as `cellblade reproduce` rows
//! matmul.rs    §5.2's master-worker matrix multiplication, the twin of examples/mpi/matmul.c
//! wire.rs      the request/answer format between a rank process and the simulator
//! collective.rs `--coll`: MPI collectives on the collective library's schedules
//! channel.rs   the shared-memory call channel per rank process (spin, then futex)
//! share_core.rs  one core for the simulator and its ranks when they outnumber the host's cores
//! external.rs  ranks driven by OS processes (`cellblade mpirun`); compute charged as zero or CPU time
//! request.rs   the typed requests of `mpirun` and `pingpong`, their defaults and limits
//! job.rs       a job of in-process rank programs (Rust, or Python through the bindings) from a `JobRequest`
//! ```
//!
//! Contract (seed 004 §4, MPI-1 §3.5): per (sender, receiver, context) one entry holds one
//! message at a time; an entry whose message no posted receive matches is parked in the
//! receiver's unexpected queue (`unexpected.rs`), so a receive takes the oldest message from
//! the queue, then from the entries, that matches its source, tag and communicator. Messages
//! between a pair that match the same receive never overtake each other; `MPI_ANY_SOURCE` takes
//! the oldest parked match, else scans the senders' entries round robin. Sends stay
//! synchronous: a blocking or synchronous send completes once its receive has matched it.

mod cancel;
pub(crate) mod channel;
mod claims;
pub mod collective;
mod external;
mod heap;
mod job;
mod layout;
mod matching;
pub mod matmul;
mod nb_wire;
mod nonblocking;
mod pending;
mod pingpong;
mod rank;
pub mod request;
mod share_core;
mod startup;
mod tracker;
mod transfer;
mod unexpected;
pub mod wire;
mod world;

pub use claims::{claims, matmul_claims, pingpong_claims};
pub use external::{run_external, run_external_with, Buffers, Compute, ExternalOutcome, JobOptions};
pub use job::world;
pub use layout::{DEFAULT_DEPTH, MAX_DEPTH};
pub use pending::Request;
pub use pingpong::{default_reps, pingpong, PingPong, PingPongRow};
pub use rank::{Rank, Status};
pub use world::{MpiWorld, WorldReport};

use crate::error::{config_err, field_err, Result};
use crate::machine::topology::SPES;

/// At most one rank per SPE, so 16 on a blade (seed 004 §3.2).
pub const MAX_RANKS: usize = SPES;

/// Matches any sender (`MPI_ANY_SOURCE`).
pub const ANY_SOURCE: i32 = -1;
/// Matches any tag (`MPI_ANY_TAG`).
pub const ANY_TAG: i32 = -1;
/// The largest tag a program may use (`MPI_TAG_UB`, at least 32767 by the standard).
pub const TAG_UB: i32 = i32::MAX;

/// Error codes carried in the acknowledging signal and returned to programs (MPI's classes).
pub mod code {
    pub const SUCCESS: u32 = 0;
    pub const ERR_TRUNCATE: u32 = 15;
    /// Not an MPI class: the status of a receive `MPI_Cancel` cancelled (the rank library's
    /// `CB_CANCELLED`).
    pub const CANCELLED: u32 = 0x100;
}

/// Where message buffers live (seed 004 §3.3 and footnote 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Buffers in main memory; the receiver moves the data through its local store in chunks
    /// with double buffering, so every byte crosses the EIB twice (the seed's default).
    Memory,
    /// Buffers in the local stores ("small-memory applications"): one SPE-to-SPE DMA moves them.
    Ls,
}

impl Mode {
    /// Every mode's name, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["memory", "ls"];

    pub fn parse(text: &str) -> Result<Mode> {
        [Mode::Memory, Mode::Ls]
            .into_iter()
            .find(|m| m.name() == text)
            .ok_or_else(|| config_err(format!("unknown MPI mode '{text}': allowed {}", Mode::NAMES.join(", "))))
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Memory => Mode::NAMES[0],
            Mode::Ls => Mode::NAMES[1],
        }
    }
}

/// What a rank count may be, in words.
pub(crate) fn rank_words() -> String {
    format!("1 to {MAX_RANKS} (one rank per SPE, 8 SPEs per chip, 2 chips; seed 004 §3.2)")
}

/// What a pipeline depth may be, in words.
pub(crate) fn depth_words() -> String {
    format!("{DEFAULT_DEPTH} to {MAX_DEPTH} chunks in flight")
}

/// Check a rank count: 1 to 16.
pub fn check_ranks(n: usize) -> Result<()> {
    if n == 0 || n > MAX_RANKS {
        return Err(field_err("ranks", n, rank_words()));
    }
    Ok(())
}

/// Check the staging chunks in flight of memory mode: 2 to 8.
pub fn check_depth(depth: u32) -> Result<()> {
    if !(DEFAULT_DEPTH..=MAX_DEPTH).contains(&depth) {
        return Err(field_err("depth", depth, depth_words()));
    }
    Ok(())
}
