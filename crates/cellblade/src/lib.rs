//! # cellblade: a calibrated simulator of an IBM dual-Cell BE blade
//!
//! Where things are (layers, bottom up; a layer uses only those below it):
//!
//! ```text
//! request.rs    the one path of every program's typed request: parse, machine, run, answer
//! api.rs        the fronts' door: requests from JSON text, the catalog of names and limits
//! calibrate/    published measurements re-run on the simulated blade; leave-one-out; the arbiter policies identified
//! bench.rs      simulator speed benchmark
//! stats/        CellStats (seed 002 §3): the workloads behind `cellstats -f ...`
//! coll/         the collective library of seed 000: schedules, algorithms, verifier, lowering
//! mpi/          seed 004's synchronous-mode MPI on the SPEs, and ranks driven by OS processes
//! affinity/     thread-to-SPE placements, patterns and the placement search (seed 001)
//! reproduce.rs  the seeds' findings as claims, re-checked on the simulated blade
//! cluster/      up to 4 blades in one simulation: lock-step windows, the node network, §6.1's collectives
//! evidence/     a claim or a row, one rule per kind of claim, verdicts and counts (below every paper's module)
//! blade.rs      building and running a blade with SPE and PPE programs
//! spu.rs ppe.rs the programming interface, named after spu_mfcio.h and libspe2
//! machine/      EIB (its arbiter policies: policy.rs), BIF, MIC, MFC, local stores, mailboxes, signals, atomics (machine files)
//! progress.rs   how far the long runs under way are, for a front's progress bar
//! sim/          integer time, event queue, process executor (knows nothing of Cell)
//! ```
//!
//! A minimal run: one SPE gets 16 KB from XDRAM0.
//!
//! ```
//! use cellblade::{Blade, machine::config};
//! let file = config::load(config::preset_text("qs20").unwrap(), &[]).unwrap();
//! let mut blade = Blade::new(file, false);
//! blade.spe(0, |spu| async move {
//!     let buf = spu.ls_alloc(16384, 128)?;
//!     spu.mfc_get(buf, 0, 16384, 3).await?;
//!     spu.mfc_write_tag_mask(1 << 3);
//!     spu.mfc_read_tag_status_all().await?;
//!     Ok(())
//! });
//! let report = blade.run().unwrap();
//! assert!(report.simulated.as_ns() > 600.0);
//! ```

pub mod affinity;
pub mod api;
pub mod bench;
pub mod bench_wait;
pub mod blade;
pub mod calibrate;
pub mod cluster;
pub mod coll;
pub mod error;
pub mod evidence;
pub mod machine;
pub mod model;
pub mod mpi;
pub mod ppe;
pub mod progress;
pub mod reproduce;
pub mod request;
pub mod sdk;
pub mod sim;
pub mod spu;
pub mod stats;
pub mod threads;

pub use blade::{Blade, RunReport};
pub use error::{Error, ErrorKind, Result};
pub use ppe::Ppe;
pub use spu::Spu;
