//! A blade running an MPI job: N ranks on N SPEs (a placement maps rank to physical SPE,
//! identity by default), the PPE's start-up, one program per rank, and a deadlock reported as
//! every rank's pending MPI call.
//!
//! ```
//! use cellblade::machine::config;
//! use cellblade::mpi::{Mode, MpiWorld};
//! let file = config::load(config::preset_text("qs20").unwrap(), &[]).unwrap();
//! let mut w = MpiWorld::new(file, 2, None, Mode::Memory).unwrap();
//! w.rank(0, |r| async move {
//!     let buf = r.alloc(4)?;
//!     r.write(buf, b"ping")?;
//!     r.send(buf, 4, 1, 7, 0).await?;
//!     Ok(())
//! }).unwrap();
//! w.rank(1, |r| async move {
//!     let buf = r.alloc(4)?;
//!     let st = r.recv(buf, 4, 0, 7, 0).await?;
//!     assert_eq!((st.source, st.bytes), (0, 4));
//!     assert_eq!(r.read(buf, 4)?, b"ping");
//!     Ok(())
//! }).unwrap();
//! w.run().unwrap();
//! ```

use std::future::Future;
use std::rc::Rc;

use crate::affinity::placement::Placement;
use crate::blade::Blade;
use crate::error::{config_err, Error, Result};
use crate::machine::config::MachineFile;
use crate::sim::Time;

use super::layout::DEFAULT_DEPTH;
use super::rank::Rank;
use super::startup;
use super::tracker::Tracker;
use super::unexpected::Queues;
use super::{check_depth, check_ranks, Mode};

/// What a finished job measured about itself.
#[derive(Debug, Clone)]
pub struct WorldReport {
    pub simulated: Time,
    pub events: u64,
    pub packets: u64,
    pub wall_s: f64,
    /// The Chrome/Perfetto trace, when the world was built with one.
    pub trace: Option<serde_json::Value>,
    /// Trace events dropped past the trace's limit.
    pub trace_dropped: u64,
}

pub struct MpiWorld {
    blade: Blade,
    spes: Vec<usize>,
    mode: Mode,
    tracker: Rc<Tracker>,
    queues: Rc<Queues>,
    given: Vec<bool>,
}

impl MpiWorld {
    /// A job of `ranks` ranks; `placement` gives each rank's physical SPE (identity if `None`).
    pub fn new(file: MachineFile, ranks: usize, placement: Option<Vec<usize>>, mode: Mode) -> Result<MpiWorld> {
        Self::with_trace(file, ranks, placement, mode, false)
    }

    pub fn with_trace(file: MachineFile, ranks: usize, placement: Option<Vec<usize>>, mode: Mode, trace: bool) -> Result<MpiWorld> {
        check_ranks(ranks)?;
        let spes = match placement {
            None => (0..ranks).collect(),
            Some(p) if p.len() != ranks => {
                return Err(config_err(format!("placement names {} SPEs, the job has {ranks} ranks", p.len())));
            }
            Some(p) => Placement::new(p)?.rank_to_spe,
        };
        let mut blade = Blade::new(file, trace);
        // Buffered messages are freed by OR-ing the receiver's bit into signal register 2 (the
        // SPE context is created with SPE_CFG_SIGNOTIFY2_OR).
        for &spe in &spes {
            blade.machine().ch[spe].signal_or_mode[1] = true;
        }
        startup::store_boot(&mut blade.machine(), &spes, mode, DEFAULT_DEPTH);
        let launch = spes.clone();
        blade.ppe(move |ppe| startup::launch(ppe, launch));
        let marks = blade.machine().marks.clone();
        Ok(MpiWorld {
            blade,
            tracker: Rc::new(Tracker::marking(marks, spes.clone())),
            queues: Rc::new(Queues::new(ranks)),
            given: vec![false; ranks],
            spes,
            mode,
        })
    }

    /// Keep `depth` staging chunks in flight in memory mode (2, the seed's double buffering, by
    /// default; seed 004 §5.1 names more DMAs in flight as the way to more throughput).
    pub fn set_depth(&mut self, depth: u32) -> Result<()> {
        check_depth(depth)?;
        startup::store_boot(&mut self.blade.machine(), &self.spes, self.mode, depth);
        Ok(())
    }

    /// Stream the trace to the file at `path` as the run goes, as `cellstats --trace` does.
    pub fn trace_to_file(&mut self, path: &std::path::Path) -> Result<()> {
        self.blade.machine().trace = crate::machine::trace::Tracer::to_file(path)?;
        Ok(())
    }

    /// The physical SPE of each rank.
    /// The largest message rank `rank`'s buffers can hold, as its [`Rank::largest_message`]
    /// will say once it runs with `depth` staging chunks: known before, for the answer to
    /// `MPI_Init` (`external.rs`).
    pub fn largest_message(&mut self, rank: usize, depth: u32) -> u64 {
        let (spes, spe) = (&self.spes, self.spes[rank]);
        let m = self.blade.machine();
        match self.mode {
            Mode::Memory => super::layout::heap(&m.mem, spe, spes).iter().map(|a| a.1).max().unwrap_or(0),
            Mode::Ls => super::layout::ls_heap(m.p.ls_bytes, spe, depth).1,
        }
    }

    pub fn spes(&self) -> &[usize] {
        &self.spes
    }

    /// Run `program` as rank `rank`: it starts in `MPI_Init` and ends with `MPI_Finalize`.
    pub fn rank<F, Fut>(&mut self, rank: usize, program: F) -> Result<()>
    where
        F: FnOnce(Rc<Rank>) -> Fut + 'static,
        Fut: Future<Output = Result<()>> + 'static,
    {
        if rank >= self.spes.len() {
            return Err(config_err(format!("rank {rank} does not exist: allowed 0 to {}", self.spes.len() - 1)));
        }
        if std::mem::replace(&mut self.given[rank], true) {
            return Err(config_err(format!("rank {rank} already has a program")));
        }
        let (tracker, queues) = (self.tracker.clone(), self.queues.clone());
        self.blade.spe(self.spes[rank], move |spu| async move {
            let r = Rc::new(Rank::init(spu, tracker, queues).await?);
            program(r.clone()).await?;
            r.finalize();
            Ok(())
        })
    }

    /// Run the job to completion. A deadlock names every rank's pending call.
    pub fn run(self) -> Result<WorldReport> {
        if let Some(r) = self.given.iter().position(|g| !g) {
            return Err(config_err(format!("rank {r} has no program: every rank needs one")));
        }
        let tracker = self.tracker;
        match self.blade.run() {
            Ok(r) => Ok(WorldReport {
                simulated: r.simulated,
                events: r.events,
                packets: r.packets,
                wall_s: r.wall_s,
                trace: r.trace,
                trace_dropped: r.trace_dropped,
            }),
            // The engine found every process blocked (senders waiting for signals): say it in
            // MPI terms. Pollers report their own deadlocks already in these terms.
            Err(Error::Deadlock(msg)) if msg.contains("no event is pending") => {
                let at = msg.split(':').next().unwrap_or("deadlock");
                Err(Error::Deadlock(format!("{at}: {}", tracker.report())))
            }
            Err(e) => Err(e),
        }
    }
}
