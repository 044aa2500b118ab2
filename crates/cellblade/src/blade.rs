//! Building and running a blade: load a machine file, attach one program per SPE thread and
//! optionally one for the PPE, run to completion, read the report.

use std::cell::RefMut;
use std::future::Future;
use std::rc::Rc;
use std::time::Instant;

use serde_json::Value;

use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;
use crate::machine::topology::SPES;
use crate::machine::Machine;
use crate::ppe::Ppe;
use crate::sim::{Engine, Shared, Time};
use crate::spu::Spu;

/// What a finished run measured about itself.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub simulated: Time,
    pub events: u64,
    pub packets: u64,
    pub wall_s: f64,
    /// The trace object of a blade traced in memory ([`Blade::new`] with `trace`).
    pub trace: Option<Value>,
    /// Trace events dropped past the trace's limit (0 when not tracing).
    pub trace_dropped: u64,
}

pub struct Blade {
    engine: Engine<Machine>,
    shared: Rc<Shared<Machine>>,
    spe_used: [bool; SPES],
}

impl Blade {
    pub fn new(file: MachineFile, trace: bool) -> Blade {
        let engine = Engine::new(Machine::new(file, trace));
        let shared = engine.shared();
        Blade { engine, shared, spe_used: [false; SPES] }
    }

    /// A blade whose trace streams to the file at `path` as the run goes (memory stays
    /// bounded); the file appears there, complete, when the run succeeds.
    pub fn with_trace_file(file: MachineFile, path: &std::path::Path) -> Result<Blade> {
        let blade = Blade::new(file, false);
        blade.machine().trace = crate::machine::trace::Tracer::to_file(path)?;
        Ok(blade)
    }

    /// Set-up access to the machine before the run (memory contents, signal modes, ...).
    pub fn machine(&self) -> RefMut<'_, Machine> {
        self.shared.world.borrow_mut()
    }

    /// spe_context_create + spe_context_run: run `program` on physical SPE `spe` from time 0.
    pub fn spe<F, Fut>(&mut self, spe: usize, program: F) -> Result<()>
    where
        F: FnOnce(Spu) -> Fut,
        Fut: Future<Output = Result<()>> + 'static,
    {
        if spe >= SPES {
            return Err(config_err(format!("spe {spe} does not exist: allowed 0 to {}", SPES - 1)));
        }
        if std::mem::replace(&mut self.spe_used[spe], true) {
            return Err(config_err(format!("spe {spe} already runs a thread: one thread per SPE")));
        }
        let pid = self.engine.next_pid();
        let spu = Spu::new(self.engine.shared(), pid, spe);
        self.engine.spawn(format!("spe{spe}"), program(spu));
        Ok(())
    }

    /// Run `program` on the PPE of chip 0.
    pub fn ppe<F, Fut>(&mut self, program: F)
    where
        F: FnOnce(Ppe) -> Fut,
        Fut: Future<Output = Result<()>> + 'static,
    {
        let pid = self.engine.next_pid();
        let ppe = Ppe::new(self.engine.shared(), pid, 0);
        self.engine.spawn("ppe", program(ppe));
    }

    /// Lock-step use by [`crate::cluster`]: run the events before `limit`; true when every
    /// program has finished.
    pub(crate) fn run_until(&mut self, limit: Time) -> Result<bool> {
        self.engine.run_until(limit)
    }

    /// The time of this blade's next pending event, if any.
    pub(crate) fn pending(&self) -> Option<Time> {
        self.engine.pending()
    }

    pub(crate) fn deadlock_error(&self) -> crate::error::Error {
        self.engine.deadlock_error()
    }

    pub(crate) fn shared(&self) -> Rc<Shared<Machine>> {
        self.shared.clone()
    }

    pub(crate) fn now(&self) -> Time {
        self.engine.now()
    }

    pub(crate) fn events(&self) -> u64 {
        self.engine.events()
    }

    /// Run every program to completion.
    pub fn run(mut self) -> Result<RunReport> {
        let t0 = Instant::now();
        if let Err(e) = self.engine.run() {
            std::mem::take(&mut self.shared.world.borrow_mut().trace).abandon();
            return Err(e);
        }
        let wall_s = t0.elapsed().as_secs_f64();
        let simulated = self.engine.now();
        let events = self.engine.events();
        let shared = self.shared;
        drop(self.engine);
        let machine = Rc::try_unwrap(shared).ok().expect("programs finished").world.into_inner();
        let trace = machine.trace.finish()?;
        Ok(RunReport { simulated, events, packets: machine.bus.packets, wall_s, trace: trace.trace, trace_dropped: trace.dropped })
    }
}
