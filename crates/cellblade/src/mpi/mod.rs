//! MPI on the simulated SPEs, as seed 004 builds it: every rank an SPE thread on its own
//! physical SPE, synchronous-mode point-to-point through per-pair meta-data entries in the
//! receivers' local stores, and collectives built on send and receive.
//!
//! ```text
//! layout.rs    where things are: meta-data entries B_ij, staging chunks, boot structures, heaps
//! startup.rs   §3.2: the PPE passes each rank a boot structure through a mailbox message
//! tracker.rs   what every rank waits in, for the deadlock report ("rank 0 waits in MPI_Send ...")
//! rank.rs      one rank: §3.3 send (meta-data DMA, wait for the signal) and receive (poll, match, move, signal)
//! transfer.rs  the receiver's data move: "memory" mode (chunks through the local store, double
//!              buffered) and "ls" mode (one SPE-to-SPE DMA per 16 KB)
//! world.rs     a blade running N ranks with a program per rank; deadlocks reported per rank
//! pingpong.rs  §5.1's ping-pong (decrementer timing), plain and congested
//! claims.rs    the ping-pong's published figures as `cellblade reproduce` rows
//! wire.rs      the request/answer format between a rank process and the simulator
//! external.rs  ranks driven by OS processes over sockets (`cellblade mpirun`)
//! ```
//!
//! Contract (seed 004 §4): per (sender, receiver) pair one message is in flight at a time, so
//! messages between a pair are non-overtaking, a receive with a specific source takes that
//! sender's oldest message only if its tag and communicator match (otherwise it keeps polling:
//! synchronous mode cannot let a later message overtake), and `MPI_ANY_SOURCE` scans the
//! senders round robin.

mod claims;
mod external;
mod layout;
mod pingpong;
mod rank;
mod startup;
mod tracker;
mod transfer;
pub mod wire;
mod world;

pub use claims::claims;
pub use external::{run_external, ExternalOutcome};
pub use layout::{DEFAULT_DEPTH, MAX_DEPTH};
pub use pingpong::{default_reps, pingpong, PingPong, PingPongRow};
pub use rank::{Rank, Status};
pub use world::{MpiWorld, WorldReport};

use crate::error::{config_err, Result};
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
    pub fn parse(text: &str) -> Result<Mode> {
        match text {
            "memory" => Ok(Mode::Memory),
            "ls" => Ok(Mode::Ls),
            other => Err(config_err(format!(
                "unknown MPI mode '{other}': allowed memory or ls"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Memory => "memory",
            Mode::Ls => "ls",
        }
    }
}

/// Check a rank count: 1 to 16.
pub fn check_ranks(n: usize) -> Result<()> {
    if n == 0 || n > MAX_RANKS {
        return Err(config_err(format!(
            "ranks = {n} is out of range: allowed 1 to {MAX_RANKS} (one rank per SPE, 8 SPEs per chip, 2 chips; seed 004 §3.2)"
        )));
    }
    Ok(())
}
