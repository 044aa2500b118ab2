//! SPE and PPE programs written in Python, run on the simulated blade; wrapped by
//! `python/cellblade/programs.py`.
//!
//! A Python program is a generator function taking a handle ([`SpuHandle`], exported as
//! `Spu`, or [`PpeHandle`], `Ppe`). It `yield`s each operation that takes simulated time,
//! built by the handle's methods named after spu_mfcio.h and libspe2 (an [`PyOp`]), and the
//! value of the `yield` is the operation's result. Calls that take no simulated time (local
//! store access, the tag mask, the clock) are plain methods.
//!
//! ```text
//! ProgramBlade.run ── cellblade::Blade::run ── engine polls drive() for each program
//!                                                 │ gen.send(result) / gen.throw(error)
//!                                                 ▼
//!                    Python generator ── yields Op ──► drive() awaits the Spu/Ppe method
//! ```
//!
//! Each Python program is one async program on the blade, so it shares the engine, costs and
//! hardware rules of the built-in Rust programs. The run holds the GIL throughout (programs
//! call back into Python at every step).
//!
//! Errors: a simulator error from an operation is thrown into the generator at its `yield`
//! (ProgramError, ConfigError, ...), so it ends the run unless the program catches it, as `?`
//! would in Rust. An exception escaping a generator ends the run and `run` re-raises it
//! unchanged. A deadlock ends the run with DeadlockError. A handle only works while its
//! program runs: the blade's state is released when the run ends.

use std::cell::RefCell;
use std::rc::Rc;

use cellblade::machine::memory::reg;
use cellblade::machine::mfc::ListElement;
use cellblade::ppe::Access;
use cellblade::{Blade, Error, Ppe, Spu};
use pyo3::exceptions::{PyRuntimeError, PyStopIteration, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict};

use crate::args::{list_of, unsigned};
use crate::{to_py, ConfigError, ProgramError};

/// `ls_alloc`'s alignment when none is given: one quadword.
const LS_ALLOC_ALIGN: u32 = 16;

/// The first Python exception that escaped a program; `run` re-raises it.
type Failure = Rc<RefCell<Option<PyErr>>>;

#[derive(Debug, Clone, Copy)]
enum Dma {
    Get,
    Getf,
    Getb,
    Put,
    Putf,
    Putb,
}

/// An operation that takes simulated time: what a program yields.
#[derive(Debug, Clone)]
enum Op {
    Dma { kind: Dma, lsa: u32, ea: u64, size: u32, tag: u32 },
    List { put: bool, lsa: u32, ea: u64, list: Vec<ListElement>, tag: u32 },
    Sndsig { lsa: u32, ea: u64, tag: u32 },
    Barrier { tag: u32 },
    TagStatus { all: bool },
    ReadInMbox,
    WriteOutMbox { value: u32 },
    ReadSignal { which: u32 },
    Getllar { lsa: u32, ea: u64 },
    Putllc { lsa: u32, ea: u64 },
    Compute { core_cycles: u64 },
    InMboxWrite { spe: usize, value: u32, syscall: bool },
    SignalWrite { spe: usize, which: u32, value: u32, syscall: bool },
    OutMboxRead { spe: usize },
    InMboxStatus { spe: usize },
    OutMboxStatus { spe: usize },
    MmioRead { spe: usize, register: u64 },
    MmioWrite { spe: usize, register: u64, value: u32 },
}

impl Op {
    /// True for SPE operations, false for PPE ones.
    fn on_spu(&self) -> bool {
        !matches!(
            self,
            Op::InMboxWrite { .. }
                | Op::SignalWrite { .. }
                | Op::OutMboxRead { .. }
                | Op::InMboxStatus { .. }
                | Op::OutMboxStatus { .. }
                | Op::MmioRead { .. }
                | Op::MmioWrite { .. }
        )
    }

    /// The call as a program would write it.
    fn text(&self) -> String {
        match self {
            Op::Dma { kind, lsa, ea, size, tag } => {
                let name = match kind {
                    Dma::Get => "mfc_get",
                    Dma::Getf => "mfc_getf",
                    Dma::Getb => "mfc_getb",
                    Dma::Put => "mfc_put",
                    Dma::Putf => "mfc_putf",
                    Dma::Putb => "mfc_putb",
                };
                format!("{name}(lsa={lsa:#x}, ea={ea:#x}, size={size}, tag={tag})")
            }
            Op::List { put, lsa, ea, list, tag } => format!(
                "{}(lsa={lsa:#x}, ea={ea:#x}, list=[{}], tag={tag})",
                if *put { "mfc_putl" } else { "mfc_getl" },
                list.iter().map(|e| format!("({}, {:#x})", e.size, e.eal)).collect::<Vec<_>>().join(", ")
            ),
            Op::Sndsig { lsa, ea, tag } => format!("mfc_sndsig(lsa={lsa:#x}, ea={ea:#x}, tag={tag})"),
            Op::Barrier { tag } => format!("mfc_barrier(tag={tag})"),
            Op::TagStatus { all: true } => "mfc_read_tag_status_all()".into(),
            Op::TagStatus { all: false } => "mfc_read_tag_status_any()".into(),
            Op::ReadInMbox => "spu_read_in_mbox()".into(),
            Op::WriteOutMbox { value } => format!("spu_write_out_mbox({value:#x})"),
            Op::ReadSignal { which } => format!("spu_read_signal{which}()"),
            Op::Getllar { lsa, ea } => format!("mfc_getllar(lsa={lsa:#x}, ea={ea:#x})"),
            Op::Putllc { lsa, ea } => format!("mfc_putllc(lsa={lsa:#x}, ea={ea:#x})"),
            Op::Compute { core_cycles } => format!("compute({core_cycles})"),
            Op::InMboxWrite { spe, value, syscall } => format!("spe_in_mbox_write({spe}, {value:#x}, syscall={})", py_bool(*syscall)),
            Op::SignalWrite { spe, which, value, syscall } => {
                format!("spe_signal_write({spe}, {which}, {value:#x}, syscall={})", py_bool(*syscall))
            }
            Op::OutMboxRead { spe } => format!("spe_out_mbox_read({spe})"),
            Op::InMboxStatus { spe } => format!("spe_in_mbox_status({spe})"),
            Op::OutMboxStatus { spe } => format!("spe_out_mbox_status({spe})"),
            Op::MmioRead { spe, register } => format!("mmio_read({spe}, {register:#x})"),
            Op::MmioWrite { spe, register, value } => format!("mmio_write({spe}, {register:#x}, {value:#x})"),
        }
    }
}

/// A finished run as the dict the `run()` methods return: simulated_ns, events, packets, wall_s
/// and trace (the Chrome trace as JSON text, or None).
pub(crate) fn run_report(
    py: Python<'_>,
    simulated: cellblade::sim::Time,
    events: u64,
    packets: u64,
    wall_s: f64,
    trace: Option<String>,
) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("simulated_ns", simulated.as_ns())?;
    out.set_item("events", events)?;
    out.set_item("packets", packets)?;
    out.set_item("wall_s", wall_s)?;
    out.set_item("trace", trace)?;
    Ok(out)
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

fn access(syscall: bool) -> Access {
    if syscall {
        Access::Syscall
    } else {
        Access::Mmio
    }
}

/// An operation built by a handle method, to be yielded by the program.
#[pyclass(name = "Op", module = "cellblade._core", frozen)]
pub struct PyOp {
    op: Op,
}

#[pymethods]
impl PyOp {
    fn __repr__(&self) -> String {
        format!("<cellblade op {}>", self.op.text())
    }
}

fn op(op: Op) -> PyOp {
    PyOp { op }
}

/// What a program runs on.
enum Target {
    Spu(Spu),
    Ppe(Ppe),
}

impl Target {
    fn name(&self) -> String {
        match self {
            Target::Spu(s) => format!("spe {}", s.spe_id()),
            Target::Ppe(_) => "the ppe".to_string(),
        }
    }

    /// Perform `op`; its result is `None` or a 32-bit value.
    async fn exec(&self, op: Op) -> cellblade::Result<Option<u32>> {
        let none = |r: cellblade::Result<()>| r.map(|_| None);
        match (self, op) {
            (Target::Spu(s), Op::Dma { kind, lsa, ea, size, tag }) => none(match kind {
                Dma::Get => s.mfc_get(lsa, ea, size, tag).await,
                Dma::Getf => s.mfc_getf(lsa, ea, size, tag).await,
                Dma::Getb => s.mfc_getb(lsa, ea, size, tag).await,
                Dma::Put => s.mfc_put(lsa, ea, size, tag).await,
                Dma::Putf => s.mfc_putf(lsa, ea, size, tag).await,
                Dma::Putb => s.mfc_putb(lsa, ea, size, tag).await,
            }),
            (Target::Spu(s), Op::List { put: false, lsa, ea, list, tag }) => none(s.mfc_getl(lsa, ea, &list, tag).await),
            (Target::Spu(s), Op::List { put: true, lsa, ea, list, tag }) => none(s.mfc_putl(lsa, ea, &list, tag).await),
            (Target::Spu(s), Op::Sndsig { lsa, ea, tag }) => none(s.mfc_sndsig(lsa, ea, tag).await),
            (Target::Spu(s), Op::Barrier { tag }) => none(s.mfc_barrier(tag).await),
            (Target::Spu(s), Op::TagStatus { all: true }) => s.mfc_read_tag_status_all().await.map(Some),
            (Target::Spu(s), Op::TagStatus { all: false }) => s.mfc_read_tag_status_any().await.map(Some),
            (Target::Spu(s), Op::ReadInMbox) => s.spu_read_in_mbox().await.map(Some),
            (Target::Spu(s), Op::WriteOutMbox { value }) => none(s.spu_write_out_mbox(value).await),
            (Target::Spu(s), Op::ReadSignal { which: 1 }) => s.spu_read_signal1().await.map(Some),
            (Target::Spu(s), Op::ReadSignal { .. }) => s.spu_read_signal2().await.map(Some),
            (Target::Spu(s), Op::Getllar { lsa, ea }) => none(s.mfc_getllar(lsa, ea).await),
            (Target::Spu(s), Op::Putllc { lsa, ea }) => s.mfc_putllc(lsa, ea).await.map(Some),
            (Target::Spu(s), Op::Compute { core_cycles }) => {
                s.compute(core_cycles).await;
                Ok(None)
            }
            (Target::Ppe(p), Op::InMboxWrite { spe, value, syscall }) => none(p.spe_in_mbox_write(spe, value, access(syscall)).await),
            (Target::Ppe(p), Op::SignalWrite { spe, which, value, syscall }) => {
                none(p.spe_signal_write(spe, which, value, access(syscall)).await)
            }
            (Target::Ppe(p), Op::OutMboxRead { spe }) => p.spe_out_mbox_read(spe).await.map(Some),
            (Target::Ppe(p), Op::InMboxStatus { spe }) => p.spe_in_mbox_status(spe).await.map(Some),
            (Target::Ppe(p), Op::OutMboxStatus { spe }) => p.spe_out_mbox_status(spe).await.map(Some),
            (Target::Ppe(p), Op::MmioRead { spe, register }) => p.mmio_read(spe, register).await.map(Some),
            (Target::Ppe(p), Op::MmioWrite { spe, register, value }) => none(p.mmio_write(spe, register, value).await),
            (t, op) => Err(Error::Internal(format!("{}: operation {} reached the wrong processor", t.name(), op.text()))),
        }
    }
}

fn ended(who: &str) -> PyErr {
    PyRuntimeError::new_err(format!("the program of {who} has ended: its handle works only while the program runs"))
}

/// The handle an SPE program receives: `fn(spu)`.
#[pyclass(name = "Spu", module = "cellblade._core", unsendable)]
pub struct SpuHandle {
    spu: Option<Spu>,
    spe: usize,
    ls_bytes: u32,
}

impl SpuHandle {
    fn spu(&self) -> PyResult<&Spu> {
        self.spu.as_ref().ok_or_else(|| ended(&format!("spe {}", self.spe)))
    }

    fn check_ls(&self, what: &str, off: u32, len: usize) -> PyResult<()> {
        if off as u64 + len as u64 > self.ls_bytes as u64 {
            return Err(ProgramError::new_err(format!(
                "spe {}: {what}(off={off:#x}, {len} bytes) is outside the local store: allowed offsets 0 to {:#x}",
                self.spe, self.ls_bytes
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl SpuHandle {
    #[classattr]
    const SPU_OUT_MBOX: u64 = reg::SPU_OUT_MBOX;
    #[classattr]
    const SPU_IN_MBOX: u64 = reg::SPU_IN_MBOX;
    #[classattr]
    const SPU_MBOX_STAT: u64 = reg::SPU_MBOX_STAT;
    #[classattr]
    const SIGNOTIFY1: u64 = reg::SIGNOTIFY1;
    #[classattr]
    const SIGNOTIFY2: u64 = reg::SIGNOTIFY2;

    fn __repr__(&self) -> String {
        let state = if self.spu.is_some() { "" } else { ", ended" };
        format!("<cellblade Spu spe_id={}{state}>", self.spe)
    }

    /// The physical SPE (0 to 15) this program runs on.
    #[getter]
    fn spe_id(&self) -> usize {
        self.spe
    }

    /// Simulated time now, in ns.
    fn now_ns(&self) -> PyResult<f64> {
        Ok(self.spu()?.now().as_ns())
    }

    /// Effective address of byte `off` of SPE `spe`'s local store.
    #[staticmethod]
    fn ls_ea(spe: &Bound<'_, PyAny>, off: &Bound<'_, PyAny>) -> PyResult<u64> {
        let (spe, off) = (unsigned::<usize>(spe, "spe")?, unsigned::<u32>(off, "off")?);
        Ok(Spu::ls_ea(spe, off))
    }

    /// Effective address of problem-state register `register` of SPE `spe`.
    #[staticmethod]
    fn mmio_ea(spe: &Bound<'_, PyAny>, register: &Bound<'_, PyAny>) -> PyResult<u64> {
        let (spe, register) = (unsigned::<usize>(spe, "spe")?, unsigned::<u64>(register, "register")?);
        Ok(Spu::mmio_ea(spe, register))
    }

    /// Reserve `size` bytes of this SPE's local store aligned to `align`; returns the offset.
    #[pyo3(signature = (size, align=None))]
    fn ls_alloc(&self, size: &Bound<'_, PyAny>, align: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
        let size = unsigned::<u32>(size, "size")?;
        let align = align.map(|a| unsigned::<u32>(a, "align")).transpose()?.unwrap_or(LS_ALLOC_ALIGN);
        self.spu()?.ls_alloc(size, align).map_err(to_py)
    }

    /// Write bytes into this SPE's local store at `off` (takes no simulated time).
    fn ls_write(&self, off: &Bound<'_, PyAny>, data: PyBackedBytes) -> PyResult<()> {
        let off = unsigned::<u32>(off, "off")?;
        let spu = self.spu()?;
        self.check_ls("ls_write", off, data.len())?;
        spu.ls_write(off, &data).map_err(to_py)
    }

    /// Read `n` bytes of this SPE's local store from `off` (takes no simulated time).
    fn ls_read<'py>(&self, py: Python<'py>, off: &Bound<'_, PyAny>, n: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        let (off, n) = (unsigned::<u32>(off, "off")?, unsigned::<u32>(n, "n")?);
        let spu = self.spu()?;
        self.check_ls("ls_read", off, n as usize)?;
        Ok(PyBytes::new(py, &spu.ls_read(off, n).map_err(to_py)?))
    }

    /// Set the tag-group mask used by the tag-status reads.
    fn mfc_write_tag_mask(&self, mask: &Bound<'_, PyAny>) -> PyResult<()> {
        let mask = unsigned::<u32>(mask, "mask")?;
        self.spu()?.mfc_write_tag_mask(mask);
        Ok(())
    }

    /// The completed tag groups of the mask, without waiting.
    fn mfc_read_tag_status_immediate(&self) -> PyResult<u32> {
        Ok(self.spu()?.mfc_read_tag_status_immediate())
    }

    /// Entries waiting in this SPE's inbound mailbox.
    fn spu_stat_in_mbox(&self) -> PyResult<u32> {
        Ok(self.spu()?.spu_stat_in_mbox())
    }

    /// The decrementer, counting down from 0xffffffff at the timebase rate.
    fn spu_read_decrementer(&self) -> PyResult<u32> {
        Ok(self.spu()?.spu_read_decrementer())
    }

    // Operations: each returns an Op to yield; the yield's value is the result.

    /// Move `size` bytes from effective address `ea` to local store `lsa` in tag group `tag`.
    fn mfc_get(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, size, tag) =
            (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(size, "size")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::Dma { kind: Dma::Get, lsa, ea, size, tag }))
    }
    /// mfc_get, fenced: after earlier commands of the tag group.
    fn mfc_getf(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, size, tag) =
            (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(size, "size")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::Dma { kind: Dma::Getf, lsa, ea, size, tag }))
    }
    /// mfc_get with a barrier: after earlier commands of the tag group, before later ones.
    fn mfc_getb(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, size, tag) =
            (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(size, "size")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::Dma { kind: Dma::Getb, lsa, ea, size, tag }))
    }
    /// Move `size` bytes from local store `lsa` to effective address `ea` in tag group `tag`.
    fn mfc_put(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, size, tag) =
            (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(size, "size")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::Dma { kind: Dma::Put, lsa, ea, size, tag }))
    }
    /// mfc_put, fenced: after earlier commands of the tag group.
    fn mfc_putf(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, size, tag) =
            (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(size, "size")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::Dma { kind: Dma::Putf, lsa, ea, size, tag }))
    }
    /// mfc_put with a barrier: after earlier commands of the tag group, before later ones.
    fn mfc_putb(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, size, tag) =
            (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(size, "size")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::Dma { kind: Dma::Putb, lsa, ea, size, tag }))
    }

    /// Gather the list's `(size, eal)` elements (high address bits from `ea`) into `lsa`.
    fn mfc_getl(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, list: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, tag) = (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::List { put: false, lsa, ea, list: list_of(list)?, tag }))
    }
    /// Scatter local store from `lsa` to the list's `(size, eal)` elements.
    fn mfc_putl(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, list: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, tag) = (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::List { put: true, lsa, ea, list: list_of(list)?, tag }))
    }

    /// Write the 4 bytes at `lsa` to the signal register at `ea`.
    fn mfc_sndsig(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea, tag) = (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?, unsigned::<u32>(tag, "tag")?);
        Ok(op(Op::Sndsig { lsa, ea, tag }))
    }
    /// Order every later command after every earlier one.
    fn mfc_barrier(&self, tag: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let tag = unsigned::<u32>(tag, "tag")?;
        Ok(op(Op::Barrier { tag }))
    }
    /// Result: the completed tag groups, once all groups of the mask are complete.
    fn mfc_read_tag_status_all(&self) -> PyOp {
        op(Op::TagStatus { all: true })
    }
    /// Result: the completed tag groups, once any group of the mask is complete.
    fn mfc_read_tag_status_any(&self) -> PyOp {
        op(Op::TagStatus { all: false })
    }
    /// Result: the next inbound mailbox entry (waits for one).
    fn spu_read_in_mbox(&self) -> PyOp {
        op(Op::ReadInMbox)
    }
    /// Waits for room in the outbound mailbox.
    fn spu_write_out_mbox(&self, value: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let value = unsigned::<u32>(value, "value")?;
        Ok(op(Op::WriteOutMbox { value }))
    }
    /// Result: signal register 1 (waits for a signal).
    fn spu_read_signal1(&self) -> PyOp {
        op(Op::ReadSignal { which: 1 })
    }
    /// Result: signal register 2 (waits for a signal).
    fn spu_read_signal2(&self) -> PyOp {
        op(Op::ReadSignal { which: 2 })
    }
    /// Load the 128-byte line at `ea` into `lsa` and reserve it.
    fn mfc_getllar(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea) = (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?);
        Ok(op(Op::Getllar { lsa, ea }))
    }
    /// Result: 0 if the line was stored, 1 if the reservation was lost.
    fn mfc_putllc(&self, lsa: &Bound<'_, PyAny>, ea: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (lsa, ea) = (unsigned::<u32>(lsa, "lsa")?, unsigned::<u64>(ea, "ea")?);
        Ok(op(Op::Putllc { lsa, ea }))
    }
    /// Spend `core_cycles` computing.
    fn compute(&self, core_cycles: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let core_cycles = unsigned::<u64>(core_cycles, "core_cycles")?;
        Ok(op(Op::Compute { core_cycles }))
    }
}

/// The handle a PPE program receives: `fn(ppe)`.
#[pyclass(name = "Ppe", module = "cellblade._core", unsendable)]
pub struct PpeHandle {
    ppe: Option<Ppe>,
}

#[pymethods]
impl PpeHandle {
    fn __repr__(&self) -> String {
        format!("<cellblade Ppe{}>", if self.ppe.is_some() { "" } else { " ended" })
    }

    /// Simulated time now, in ns.
    fn now_ns(&self) -> PyResult<f64> {
        Ok(self.ppe.as_ref().ok_or_else(|| ended("the ppe"))?.now().as_ns())
    }

    #[staticmethod]
    fn ls_ea(spe: &Bound<'_, PyAny>, off: &Bound<'_, PyAny>) -> PyResult<u64> {
        let (spe, off) = (unsigned::<usize>(spe, "spe")?, unsigned::<u32>(off, "off")?);
        Ok(Spu::ls_ea(spe, off))
    }

    #[staticmethod]
    fn mmio_ea(spe: &Bound<'_, PyAny>, register: &Bound<'_, PyAny>) -> PyResult<u64> {
        let (spe, register) = (unsigned::<usize>(spe, "spe")?, unsigned::<u64>(register, "register")?);
        Ok(Spu::mmio_ea(spe, register))
    }

    /// Write SPE `spe`'s inbound mailbox, waiting for a free slot (MMIO, or the library call).
    #[pyo3(signature = (spe, value, syscall=false))]
    fn spe_in_mbox_write(&self, spe: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>, syscall: bool) -> PyResult<PyOp> {
        let (spe, value) = (unsigned::<usize>(spe, "spe")?, unsigned::<u32>(value, "value")?);
        Ok(op(Op::InMboxWrite { spe, value, syscall }))
    }
    /// Write signal register `which` (1 or 2) of SPE `spe`.
    #[pyo3(signature = (spe, which, value, syscall=false))]
    fn spe_signal_write(
        &self,
        spe: &Bound<'_, PyAny>,
        which: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        syscall: bool,
    ) -> PyResult<PyOp> {
        let (spe, which, value) = (unsigned::<usize>(spe, "spe")?, unsigned::<u32>(which, "which")?, unsigned::<u32>(value, "value")?);
        Ok(op(Op::SignalWrite { spe, which, value, syscall }))
    }
    /// Result: the next entry of SPE `spe`'s outbound mailbox (polls until there is one).
    fn spe_out_mbox_read(&self, spe: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let spe = unsigned::<usize>(spe, "spe")?;
        Ok(op(Op::OutMboxRead { spe }))
    }
    /// Result: free slots in SPE `spe`'s inbound mailbox.
    fn spe_in_mbox_status(&self, spe: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let spe = unsigned::<usize>(spe, "spe")?;
        Ok(op(Op::InMboxStatus { spe }))
    }
    /// Result: entries in SPE `spe`'s outbound mailbox.
    fn spe_out_mbox_status(&self, spe: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let spe = unsigned::<usize>(spe, "spe")?;
        Ok(op(Op::OutMboxStatus { spe }))
    }
    /// Result: a load from problem-state register `register` of SPE `spe`.
    fn mmio_read(&self, spe: &Bound<'_, PyAny>, register: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (spe, register) = (unsigned::<usize>(spe, "spe")?, unsigned::<u64>(register, "register")?);
        Ok(op(Op::MmioRead { spe, register }))
    }
    /// A store to problem-state register `register` of SPE `spe` (posted).
    fn mmio_write(&self, spe: &Bound<'_, PyAny>, register: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<PyOp> {
        let (spe, register, value) =
            (unsigned::<usize>(spe, "spe")?, unsigned::<u64>(register, "register")?, unsigned::<u32>(value, "value")?);
        Ok(op(Op::MmioWrite { spe, register, value }))
    }
}

/// A program's handle; cleared when the program ends so that no reference to the blade
/// outlives the run (however long Python keeps the handle).
enum Handle {
    Spu(Py<SpuHandle>),
    Ppe(Py<PpeHandle>),
}

impl Drop for Handle {
    fn drop(&mut self) {
        Python::attach(|py| match self {
            Handle::Spu(h) => {
                if let Ok(mut h) = h.bind(py).try_borrow_mut() {
                    h.spu = None;
                }
            }
            Handle::Ppe(h) => {
                if let Ok(mut h) = h.bind(py).try_borrow_mut() {
                    h.ppe = None;
                }
            }
        })
    }
}

/// Create the handle and call the program function with it; returns the generator.
fn start(py: Python<'_>, target: &Target, program: &Py<PyAny>, ls_bytes: u32, who: &str) -> PyResult<(Handle, Py<PyAny>)> {
    let (handle, arg) = match target {
        Target::Spu(s) => {
            let h = Py::new(py, SpuHandle { spu: Some(s.clone()), spe: s.spe_id(), ls_bytes })?;
            let arg = h.clone_ref(py).into_any();
            (Handle::Spu(h), arg)
        }
        Target::Ppe(p) => {
            let h = Py::new(py, PpeHandle { ppe: Some(p.clone()) })?;
            let arg = h.clone_ref(py).into_any();
            (Handle::Ppe(h), arg)
        }
    };
    let gen = program.bind(py).call1((arg,))?;
    if !gen.hasattr(intern!(py, "send"))? || !gen.hasattr(intern!(py, "throw"))? {
        let repr = gen.repr().map(|r| r.to_string()).unwrap_or_else(|_| "an object".into());
        return Err(PyTypeError::new_err(format!(
            "the program of {who} returned {repr}, not a generator: write it as a generator function (one that yields operations)"
        )));
    }
    Ok((handle, gen.unbind()))
}

enum Next {
    Op(Op),
    Finished,
    /// The program yielded something it may not: thrown back into it.
    Refused(PyErr),
    /// An exception escaped the program.
    Raised(PyErr),
}

/// Resume the generator with the last result (or throw the last error into it) and read the
/// operation it yields next.
fn step(py: Python<'_>, gen: &Py<PyAny>, input: PyResult<Option<u32>>, target: &Target, who: &str) -> Next {
    let gen = gen.bind(py);
    let yielded = match input {
        Ok(v) => gen.call_method1(intern!(py, "send"), (v,)),
        Err(e) => gen.call_method1(intern!(py, "throw"), (e.into_value(py),)),
    };
    let obj = match yielded {
        Ok(obj) => obj,
        Err(e) if e.is_instance_of::<PyStopIteration>(py) => return Next::Finished,
        Err(e) => return Next::Raised(e),
    };
    let Ok(o) = obj.cast::<PyOp>() else {
        let repr = obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "an object".into());
        return Next::Refused(PyTypeError::new_err(format!(
            "{who}: the program yielded {repr}, not an operation: yield what a handle method returns, e.g. `v = yield spu.spu_read_in_mbox()`"
        )));
    };
    let op = o.get().op.clone();
    let on_spu = matches!(target, Target::Spu(_));
    if op.on_spu() != on_spu {
        let kind = if op.on_spu() { "an SPE" } else { "a PPE" };
        return Next::Refused(PyTypeError::new_err(format!("{who}: {} is {kind} operation: it cannot run on {who}", op.text())));
    }
    Next::Op(op)
}

/// One Python program as an async program of the blade.
async fn drive(target: Target, program: Py<PyAny>, ls_bytes: u32, failure: Failure) -> cellblade::Result<()> {
    let who = target.name();
    let raised = |e: PyErr| {
        failure.borrow_mut().get_or_insert(e);
        Error::Program(format!("{who}: the Python program raised an exception"))
    };
    let (_handle, gen) = match Python::attach(|py| start(py, &target, &program, ls_bytes, &who)) {
        Ok(started) => started,
        Err(e) => return Err(raised(e)),
    };
    let mut input: PyResult<Option<u32>> = Ok(None);
    loop {
        let op = match Python::attach(|py| step(py, &gen, input, &target, &who)) {
            Next::Op(op) => op,
            Next::Finished => return Ok(()),
            Next::Refused(e) => {
                input = Err(e);
                continue;
            }
            Next::Raised(e) => return Err(raised(e)),
        };
        input = target.exec(op).await.map_err(to_py);
    }
}

/// A blade to run Python programs on (`cellblade.programs.Blade` wraps it).
#[pyclass(module = "cellblade._core", unsendable)]
pub struct ProgramBlade {
    blade: Option<Blade>,
    ls_bytes: u32,
    ppe_used: bool,
    failure: Failure,
}

impl ProgramBlade {
    fn blade(&mut self) -> PyResult<&mut Blade> {
        self.blade.as_mut().ok_or_else(|| PyRuntimeError::new_err("this blade has already run: build a new one for another run"))
    }
}

#[pymethods]
impl ProgramBlade {
    /// A blade from a preset or the text of a machine file, with `key=value` overrides.
    #[new]
    #[pyo3(signature = (preset=None, toml=None, set=Vec::new(), trace=false))]
    fn new(preset: Option<&str>, toml: Option<&str>, set: Vec<String>, trace: bool) -> PyResult<Self> {
        let choice = cellblade::request::MachineChoice { preset: preset.map(str::to_string), toml: toml.map(str::to_string), set };
        let file = choice.resolve().map_err(to_py)?;
        let blade = Blade::new(file, trace);
        let ls_bytes = blade.machine().mem.ls_bytes;
        Ok(ProgramBlade { blade: Some(blade), ls_bytes, ppe_used: false, failure: Failure::default() })
    }

    /// Run `program(spu)` (returning a generator) on physical SPE `spe` from time 0.
    fn spe(&mut self, spe: &Bound<'_, PyAny>, program: Py<PyAny>) -> PyResult<()> {
        let spe = unsigned::<usize>(spe, "spe")?;
        let (ls_bytes, failure) = (self.ls_bytes, self.failure.clone());
        self.blade()?.spe(spe, move |spu| drive(Target::Spu(spu), program, ls_bytes, failure)).map_err(to_py)
    }

    /// Run `program(ppe)` (returning a generator) on the PPE from time 0.
    fn ppe(&mut self, program: Py<PyAny>) -> PyResult<()> {
        let (ls_bytes, failure, ppe_used) = (self.ls_bytes, self.failure.clone(), self.ppe_used);
        let blade = self.blade()?;
        if ppe_used {
            return Err(ConfigError::new_err("the ppe already runs a program: one PPE program per blade"));
        }
        blade.ppe(move |ppe| drive(Target::Ppe(ppe), program, ls_bytes, failure));
        self.ppe_used = true;
        Ok(())
    }

    /// Run every program to completion; returns simulated_ns, events, packets, wall_s and
    /// trace (the Chrome trace as JSON text, or None).
    fn run<'py>(mut slf: PyRefMut<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let blade =
            slf.blade.take().ok_or_else(|| PyRuntimeError::new_err("this blade has already run: build a new one for another run"))?;
        let failure = slf.failure.clone();
        // Programs may call back into this object while the blade runs.
        drop(slf);
        let result = blade.run();
        if let Some(err) = failure.borrow_mut().take() {
            return Err(err);
        }
        let report = result.map_err(to_py)?;
        run_report(py, report.simulated, report.events, report.packets, report.wall_s, report.trace.map(|t| t.to_string()))
    }
}
