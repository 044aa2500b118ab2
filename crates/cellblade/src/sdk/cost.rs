//! What an SPE program's own code costs in simulated time (`cellblade run --compute`).
//!
//! Under `model` (the default) each SPE process runs under qemu-user with the SPU cost plugin
//! (`sdk/cost/`), which adds the SPU cycles of every block of PowerPC code it executes to a
//! 64-bit counter in a memory file of the simulator's. At each request of that SPE (and at its
//! stop or exit) the simulator reads the counter and charges the cycles since its last read to
//! the SPE's simulated clock before it serves the request, so the request happens when the SPU
//! would have reached it. The count is exact and the same on every run and host; no host timer
//! is read. The plugin's cost table is the machine file's `[spu_cost]`, passed as its arguments.
//!
//! Under `zero` the code between two requests costs nothing, as before.
//!
//! MPI ranks (`cellblade mpirun --compute model`) use the same plugin and counters: each rank
//! is a PowerPC program under qemu-user, whose counter the simulator reads at each MPI call
//! (`mpi/external.rs`). [`Compute`] is both fronts' type; `cpu[:FACTOR]` is mpirun's alone.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;

use crate::error::{field_err, Error, Result};
use crate::machine::config::SpuCostCfg;

/// What a program's computation between two requests (an SPE program's channel operations, a
/// rank's MPI calls) costs in simulated time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Compute {
    /// Nothing: the program's code is free, only its requests cost.
    Zero,
    /// The SPU cycles of the code it ran, counted by the cost plugin.
    Model,
    /// mpirun's alone: the rank's measured CPU time (its thread's `CLOCK_THREAD_CPUTIME_ID`)
    /// times this factor, which changes from run to run and from host to host.
    Cpu(f64),
}

/// Which front a [`Compute`] is for: what it allows and its default differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// `cellblade run`: Cell SDK programs.
    Sdk,
    /// `cellblade mpirun`: MPI ranks.
    Mpi,
}

impl Front {
    /// The default: `model` for SDK programs (issue 41); `zero` for MPI ranks, whose programs
    /// are built for the host unless built with `mpicc --target=ppc32` (the MPI guide says why).
    pub fn default_compute(self) -> &'static str {
        match self {
            Front::Sdk => "model",
            Front::Mpi => "zero",
        }
    }

    /// What `compute` allows, for the fronts' help and the error.
    pub fn allowed(self) -> String {
        match self {
            Front::Sdk => "model or zero (cpu[:FACTOR] is mpirun's: an SPE program runs under qemu-user, whose host CPU time is the emulation's, not the SPU's)"
                .into(),
            Front::Mpi => format!("zero, model, cpu or cpu:FACTOR with FACTOR above 0 and at most {}", Compute::MAX_FACTOR),
        }
    }
}

impl Compute {
    /// The largest factor: a host second as a thousand simulated seconds is already far past
    /// any SPU-to-host speed ratio.
    pub const MAX_FACTOR: f64 = 1000.0;

    /// "zero", "model", and for mpirun "cpu" (factor 1) or "cpu:FACTOR"; a field error naming
    /// the value and what `front` allows for anything else.
    pub fn parse(text: &str, front: Front) -> Result<Compute> {
        let cpu = |factor: &str| factor.parse::<f64>().ok().filter(|x| *x > 0.0 && *x <= Self::MAX_FACTOR).map(Compute::Cpu);
        let chosen = match text.split_once(':') {
            None if text == "model" => Some(Compute::Model),
            None if text == "zero" => Some(Compute::Zero),
            None if text == "cpu" => cpu("1"),
            Some(("cpu", f)) => cpu(f),
            _ => None,
        };
        match chosen {
            Some(Compute::Cpu(_)) if front == Front::Sdk => Err(field_err("compute", text, front.allowed())),
            Some(c) => Ok(c),
            None => Err(field_err("compute", text, front.allowed())),
        }
    }
}

/// The plugin's arguments for a machine's cost table: `NAME=EVEN:ODD:STALL:LATENCY` per class,
/// comma-separated as qemu's `-plugin FILE,ARG,ARG` takes them.
pub fn plugin_args(table: &SpuCostCfg) -> String {
    table.classes().iter().map(|(name, [e, o, s, l])| format!("{name}={e}:{o}:{s}:{l}")).collect::<Vec<_>>().join(",")
}

/// One SPE or rank process's counter: the memory file the plugin adds to, and what was charged so far.
#[derive(Debug)]
pub struct Counter {
    file: File,
    charged: u64,
}

impl Counter {
    /// A new counter at zero (eight bytes of a memory file, closed on exec: the SPE process gets
    /// its own copy of the descriptor at a fixed number).
    pub(crate) fn new() -> Result<Counter> {
        // SAFETY: memfd_create with a static, NUL-terminated name; the result is checked.
        let fd = unsafe { libc::memfd_create(c"cellblade-spu-cost".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(Error::Internal(format!("memfd_create for an SPE's cost counter: {}", std::io::Error::last_os_error())));
        }
        // SAFETY: fd is a new descriptor that nothing else owns.
        let file = unsafe { File::from_raw_fd(fd) };
        file.set_len(8).map_err(|e| Error::Internal(format!("sizing an SPE's cost counter: {e}")))?;
        Ok(Counter { file, charged: 0 })
    }

    /// A counter in a memory file the front made (mpirun starts the rank processes itself and
    /// hands the plugin the same file): it must hold the eight bytes, at zero.
    pub fn adopt(fd: OwnedFd) -> Result<Counter> {
        let file = File::from(fd);
        let len = file.metadata().map_err(|e| Error::Internal(format!("a rank's cost counter: {e}")))?.len();
        if len != 8 {
            return Err(Error::Internal(format!(
                "a rank's cost counter has {len} bytes, 8 expected: the front and the simulator disagree"
            )));
        }
        Ok(Counter { file, charged: 0 })
    }

    pub(crate) fn raw_fd(&self) -> i32 {
        self.file.as_raw_fd()
    }

    /// The cycles counted since the last call. The plugin's add is done before the SPE process
    /// makes the system call that sends its request (a block is charged when it starts), and
    /// the socket orders that write before this read.
    pub(crate) fn take(&mut self) -> Result<u64> {
        let mut bytes = [0u8; 8];
        self.file.read_exact_at(&mut bytes, 0).map_err(|e| Error::Internal(format!("reading an SPE's cost counter: {e}")))?;
        let total = u64::from_ne_bytes(bytes);
        let new = total.saturating_sub(self.charged);
        self.charged = total;
        Ok(new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_parses_model_and_zero_and_refuses_cpu_with_the_reason() {
        assert_eq!(Compute::parse("model", Front::Sdk).unwrap(), Compute::Model);
        assert_eq!(Compute::parse("zero", Front::Sdk).unwrap(), Compute::Zero);
        for bad in ["cpu", "cpu:2", "Model", ""] {
            let e = Compute::parse(bad, Front::Sdk).unwrap_err().to_string();
            assert!(e.starts_with(&format!("compute {bad} is not allowed: model or zero")), "{e}");
            assert!(e.contains("qemu-user"), "{e}");
        }
    }

    #[test]
    fn mpirun_takes_model_zero_and_cpu_factors() {
        assert_eq!(Compute::parse("zero", Front::Mpi).unwrap(), Compute::Zero);
        assert_eq!(Compute::parse("model", Front::Mpi).unwrap(), Compute::Model);
        assert_eq!(Compute::parse("cpu", Front::Mpi).unwrap(), Compute::Cpu(1.0));
        assert_eq!(Compute::parse("cpu:2.5", Front::Mpi).unwrap(), Compute::Cpu(2.5));
        assert_eq!(Compute::parse("cpu:1000", Front::Mpi).unwrap(), Compute::Cpu(1000.0));
        for bad in ["", "cpu:", "cpu:-1", "cpu:0", "cpu:inf", "cpu:NaN", "CPU", "zero:1", "model:1"] {
            let e = Compute::parse(bad, Front::Mpi).unwrap_err().to_string();
            assert_eq!(e, format!("compute {bad} is not allowed: zero, model, cpu or cpu:FACTOR with FACTOR above 0 and at most 1000"));
        }
    }

    #[test]
    fn an_adopted_counter_must_be_eight_bytes() {
        let c = Counter::new().unwrap();
        let fd: OwnedFd = c.file.try_clone().unwrap().into();
        assert!(Counter::adopt(fd).is_ok());
        let short = Counter::new().unwrap();
        short.file.set_len(4).unwrap();
        let e = Counter::adopt(short.file.try_clone().unwrap().into()).unwrap_err().to_string();
        assert!(e.contains("has 4 bytes, 8 expected"), "{e}");
    }

    #[test]
    fn a_counter_charges_what_was_added_since_its_last_read() {
        let mut c = Counter::new().unwrap();
        assert_eq!(c.take().unwrap(), 0);
        c.file.write_all_at(&1234u64.to_ne_bytes(), 0).unwrap();
        assert_eq!(c.take().unwrap(), 1234);
        assert_eq!(c.take().unwrap(), 0);
        c.file.write_all_at(&2000u64.to_ne_bytes(), 0).unwrap();
        assert_eq!(c.take().unwrap(), 766);
    }

    #[test]
    fn the_plugin_gets_every_class_of_the_machine_file() {
        let file = crate::machine::config::load(crate::machine::config::preset_text("qs20").unwrap(), &[]).unwrap();
        let args = plugin_args(&file.spu_cost);
        assert_eq!(args.split(',').count(), 16);
        assert!(args.contains("sp=1:0:0:6"), "{args}");
        assert!(args.contains("dp=1:0:6:13"), "{args}");
        let text = crate::machine::config::preset_text("qs20").unwrap();
        let set = crate::machine::config::load(text, &["spu_cost.sp=[1, 0, 0, 7]".into()]).unwrap();
        assert!(plugin_args(&set.spu_cost).contains("sp=1:0:0:7"));
        let e = crate::machine::config::load(text, &["spu_cost.sp=[1, 0, 0, 1001]".into()]).unwrap_err().to_string();
        assert_eq!(e, "machine key 'spu_cost.sp' = [1, 0, 0, 1001] is out of range: allowed [even, odd, stall, latency], each 0 to 1000");
    }
}
