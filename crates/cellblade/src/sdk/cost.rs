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

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::FileExt;

use crate::error::{field_err, Error, Result};
use crate::machine::config::SpuCostCfg;

/// What an SPE program's computation between two requests costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compute {
    /// Nothing: the program's code is free, only its requests cost.
    Zero,
    /// The SPU cycles of the code it ran, counted by the cost plugin.
    Model,
}

impl Compute {
    pub const DEFAULT: &'static str = "model";

    /// What `compute` allows, and why not MPI's `cpu`: for the fronts' help and the error.
    pub fn allowed() -> String {
        "model or zero (cpu[:FACTOR] is mpirun's: an SPE program runs under qemu-user, whose host CPU time is the emulation's, not the SPU's)"
            .into()
    }

    /// "model" or "zero"; a field error naming the value and what is allowed for anything else.
    pub fn parse(text: &str) -> Result<Compute> {
        match text {
            "model" => Ok(Compute::Model),
            "zero" => Ok(Compute::Zero),
            _ => Err(field_err("compute", text, Self::allowed())),
        }
    }
}

/// The plugin's arguments for a machine's cost table: `NAME=EVEN:ODD:STALL:LATENCY` per class,
/// comma-separated as qemu's `-plugin FILE,ARG,ARG` takes them.
pub fn plugin_args(table: &SpuCostCfg) -> String {
    table.classes().iter().map(|(name, [e, o, s, l])| format!("{name}={e}:{o}:{s}:{l}")).collect::<Vec<_>>().join(",")
}

/// One SPE process's counter: the memory file the plugin adds to, and what was charged so far.
pub(crate) struct Counter {
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
        assert_eq!(Compute::parse("model").unwrap(), Compute::Model);
        assert_eq!(Compute::parse("zero").unwrap(), Compute::Zero);
        for bad in ["cpu", "cpu:2", "Model", ""] {
            let e = Compute::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("compute {bad} is not allowed: model or zero")), "{e}");
            assert!(e.contains("qemu-user"), "{e}");
        }
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
