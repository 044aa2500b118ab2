//! MPI rank programs written in Python (`python/cellblade/programs_mpi.py`), run on the
//! simulated SPEs through the core's rank protocol (`cellblade::mpi::Rank`), as
//! `cellblade mpirun` runs a C rank process's calls.
//!
//! A rank program is a generator driven like the SPE programs of [`crate::programs`]: it
//! yields an operation built by its handle ([`RankHandle`], exported as `MpiRank`), the rank
//! runs it on its SPE, and the value of the `yield` is the result. Messages go through the
//! same per-rank buffers as a C rank's ([`cellblade::mpi::Buffers`]), so a Python program's
//! sends and receives cost what the C program's do. The Python layer adds the mpi4py-like
//! interface (objects, arrays, collectives built on these operations).
//!
//! Results: `send` the receiver's error code; `recv` `(bytes, status)`; `sendrecv` `(code,
//! bytes, status)`; `probe` a status, `iprobe` a status or None; `barrier` and `compute` None;
//! `wait` `(bytes or None, status)` (None for a send), `test` that or None while the request is
//! not done, `waitany` `(index, bytes or None, status)`. A status is `(source, tag, bytes,
//! sent, error)`. `isend` and `irecv` are not yielded: they return the request's number, and
//! the request is posted before the program's next operation runs (`mpi_requests`).

use std::cell::RefCell;
use std::rc::Rc;

use cellblade::error::field_err;
use cellblade::mpi::request::JobRequest;
use cellblade::mpi::{self, Buffers, MpiWorld, Rank, Status};
use cellblade::{request, Error};
use pyo3::exceptions::{PyRuntimeError, PyStopIteration, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict};

use crate::args::unsigned;
use crate::mpi_requests::{Done, Live, Post, Shared};
use crate::programs::run_report;
use crate::{fields_of, machine_of, to_py};

/// The first Python exception that escaped a rank program; `run` re-raises it.
type Failure = Rc<RefCell<Option<PyErr>>>;

/// An operation on the rank's SPE: what a rank program yields.
#[derive(Debug, Clone)]
enum Call {
    Send { data: Vec<u8>, dest: usize, tag: i32, comm: u32 },
    Recv { cap: u32, source: i32, tag: i32, comm: u32 },
    Sendrecv { data: Vec<u8>, dest: usize, stag: i32, cap: u32, source: i32, rtag: i32, comm: u32 },
    Probe { source: i32, tag: i32, comm: u32, wait: bool },
    Barrier { comm: u32 },
    Compute { core_cycles: u64 },
    Wait { request: u64 },
    Test { request: u64 },
    Waitany { requests: Vec<u64> },
}

impl Call {
    fn text(&self) -> String {
        match self {
            Call::Send { data, dest, tag, comm } => format!("send({} bytes, dest={dest}, tag={tag}, comm={comm})", data.len()),
            Call::Recv { cap, source, tag, comm } => format!("recv(cap={cap}, source={source}, tag={tag}, comm={comm})"),
            Call::Sendrecv { data, dest, stag, cap, source, rtag, comm } => format!(
                "sendrecv({} bytes, dest={dest}, sendtag={stag}, cap={cap}, source={source}, recvtag={rtag}, comm={comm})",
                data.len()
            ),
            Call::Probe { source, tag, comm, wait } => {
                format!("{}(source={source}, tag={tag}, comm={comm})", if *wait { "probe" } else { "iprobe" })
            }
            Call::Barrier { comm } => format!("barrier(comm={comm})"),
            Call::Compute { core_cycles } => format!("compute({core_cycles})"),
            Call::Wait { request } => format!("wait({request})"),
            Call::Test { request } => format!("test({request})"),
            Call::Waitany { requests } => format!("waitany({requests:?})"),
        }
    }
}

/// What a call returned, turned into Python values when the program resumes.
enum Outcome {
    Nothing,
    Code(u32),
    Received(Vec<u8>, Status),
    Exchanged(u32, Vec<u8>, Status),
    Probed(Option<Status>),
    Completed(Option<Done>),
    Any(usize, Done),
}

type StatusTuple = (usize, i32, u32, u32, u32);

fn status(st: Status) -> StatusTuple {
    (st.source, st.tag, st.bytes, st.sent, st.error)
}

impl Outcome {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self {
            Outcome::Nothing => py.None(),
            Outcome::Code(c) => c.into_pyobject(py)?.into_any().unbind(),
            Outcome::Received(data, st) => (PyBytes::new(py, &data), status(st)).into_pyobject(py)?.into_any().unbind(),
            Outcome::Exchanged(c, data, st) => (c, PyBytes::new(py, &data), status(st)).into_pyobject(py)?.into_any().unbind(),
            Outcome::Probed(st) => st.map(status).into_pyobject(py)?.into_any().unbind(),
            Outcome::Completed(done) => done.map(|d| done_py(py, d)).into_pyobject(py)?.into_any().unbind(),
            Outcome::Any(k, d) => {
                let (data, st) = done_py(py, d);
                (k, data, st).into_pyobject(py)?.into_any().unbind()
            }
        })
    }
}

fn done_py(py: Python<'_>, (data, st): Done) -> (Option<Bound<'_, PyBytes>>, StatusTuple) {
    (data.map(|d| PyBytes::new(py, &d)), status(st))
}

/// An operation built by a rank handle's method, to be yielded by the program.
#[pyclass(name = "MpiOp", module = "cellblade._core", frozen)]
pub struct PyMpiOp {
    call: Call,
}

#[pymethods]
impl PyMpiOp {
    fn __repr__(&self) -> String {
        format!("<cellblade mpi op {}>", self.call.text())
    }
}

fn op(call: Call) -> PyMpiOp {
    PyMpiOp { call }
}

/// A signed 32-bit argument (a source or tag that may be a wildcard): out of range is a
/// ConfigError naming the argument.
fn int32(value: &Bound<'_, PyAny>, name: &str) -> PyResult<i32> {
    let refused = || {
        let shown = value.repr().map_or_else(|_| "the value".to_string(), |r| r.to_string());
        to_py(field_err(name, shown, format!("a whole number from {} to {}", i32::MIN, i32::MAX)))
    };
    match value.extract::<i64>() {
        Ok(n) => i32::try_from(n).map_err(|_| refused()),
        Err(e) if e.is_instance_of::<PyTypeError>(value.py()) => Err(PyTypeError::new_err(format!("{name}: {}", e.value(value.py())))),
        Err(_) => Err(refused()),
    }
}

/// A message: at most 2^32 - 1 bytes (the meta-data entry's size field).
fn message(data: PyBackedBytes, name: &str) -> PyResult<Vec<u8>> {
    if u32::try_from(data.len()).is_err() {
        return Err(to_py(field_err(name, format!("{} bytes", data.len()), format!("at most {} bytes", u32::MAX))));
    }
    Ok(data.to_vec())
}

/// The handle a rank program receives: `fn(rank)`.
#[pyclass(name = "MpiRank", module = "cellblade._core", unsendable)]
pub struct RankHandle {
    rank: Option<Rc<Rank>>,
    queue: Shared,
    #[pyo3(get)]
    id: usize,
    #[pyo3(get)]
    size: usize,
}

impl RankHandle {
    fn live(&self) -> PyResult<&Rank> {
        self.rank.as_deref().ok_or_else(|| PyRuntimeError::new_err(format!("rank {}: its program has ended", self.id)))
    }
}

#[pymethods]
impl RankHandle {
    #[classattr]
    const ANY_SOURCE: i32 = mpi::ANY_SOURCE;
    #[classattr]
    const ANY_TAG: i32 = mpi::ANY_TAG;
    #[classattr]
    const TAG_UB: i32 = mpi::TAG_UB;
    #[classattr]
    const MAX_RANKS: usize = mpi::MAX_RANKS;
    #[classattr]
    const ERR_TRUNCATE: u32 = mpi::code::ERR_TRUNCATE;

    fn __repr__(&self) -> String {
        format!("<cellblade MpiRank {} of {}{}>", self.id, self.size, if self.rank.is_some() { "" } else { " ended" })
    }

    /// `MPI_Wtime`: simulated seconds, read from the decrementer.
    fn wtime(&self) -> PyResult<f64> {
        Ok(self.live()?.wtime())
    }

    /// `MPI_Wtick`: one decrementer period, in seconds.
    fn wtick(&self) -> PyResult<f64> {
        Ok(self.live()?.wtick())
    }

    /// The physical SPE this rank runs on.
    fn spe(&self) -> PyResult<usize> {
        Ok(self.live()?.spu().spe_id())
    }

    /// Name the MPI call the following operations belong to, for a deadlock report; None to stop.
    #[pyo3(signature = (label=None))]
    fn label(&self, label: Option<String>) -> PyResult<()> {
        self.live()?.set_label(label);
        Ok(())
    }

    /// Synchronous send of `data` (bytes). Result: the receiver's error code.
    #[pyo3(signature = (data, dest, tag, comm=0))]
    fn send(&self, data: PyBackedBytes, dest: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>, comm: u32) -> PyResult<PyMpiOp> {
        let (data, dest, tag) = (message(data, "data")?, unsigned::<usize>(dest, "dest")?, int32(tag, "tag")?);
        Ok(op(Call::Send { data, dest, tag, comm }))
    }

    /// Receive at most `cap` bytes. Result: `(bytes, status)`.
    #[pyo3(signature = (cap, source, tag, comm=0))]
    fn recv(&self, cap: &Bound<'_, PyAny>, source: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>, comm: u32) -> PyResult<PyMpiOp> {
        let (cap, source, tag) = (unsigned::<u32>(cap, "cap")?, int32(source, "source")?, int32(tag, "tag")?);
        Ok(op(Call::Recv { cap, source, tag, comm }))
    }

    /// The send-receive that cannot deadlock (seed 004 §7). Result: `(code, bytes, status)`.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (data, dest, sendtag, cap, source, recvtag, comm=0))]
    fn sendrecv(
        &self,
        data: PyBackedBytes,
        dest: &Bound<'_, PyAny>,
        sendtag: &Bound<'_, PyAny>,
        cap: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        recvtag: &Bound<'_, PyAny>,
        comm: u32,
    ) -> PyResult<PyMpiOp> {
        let (data, dest, stag) = (message(data, "data")?, unsigned::<usize>(dest, "dest")?, int32(sendtag, "sendtag")?);
        let (cap, source, rtag) = (unsigned::<u32>(cap, "cap")?, int32(source, "source")?, int32(recvtag, "recvtag")?);
        Ok(op(Call::Sendrecv { data, dest, stag, cap, source, rtag, comm }))
    }

    /// Wait for a matching message without taking it. Result: its status.
    #[pyo3(signature = (source, tag, comm=0))]
    fn probe(&self, source: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>, comm: u32) -> PyResult<PyMpiOp> {
        let (source, tag) = (int32(source, "source")?, int32(tag, "tag")?);
        Ok(op(Call::Probe { source, tag, comm, wait: true }))
    }

    /// One pass over the entries that can match. Result: a status, or None.
    #[pyo3(signature = (source, tag, comm=0))]
    fn iprobe(&self, source: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>, comm: u32) -> PyResult<PyMpiOp> {
        let (source, tag) = (int32(source, "source")?, int32(tag, "tag")?);
        Ok(op(Call::Probe { source, tag, comm, wait: false }))
    }

    /// The seed's barrier on communicator `comm` (the one `MPI_Barrier` on `MPI_COMM_WORLD` runs).
    #[pyo3(signature = (comm=0))]
    fn barrier(&self, comm: u32) -> PyMpiOp {
        op(Call::Barrier { comm })
    }

    /// Spend `core_cycles` computing on the rank's SPU.
    fn compute(&self, core_cycles: &Bound<'_, PyAny>) -> PyResult<PyMpiOp> {
        Ok(op(Call::Compute { core_cycles: unsigned::<u64>(core_cycles, "core_cycles")? }))
    }

    /// `MPI_Isend` of `data` (bytes), not yielded: the request's number (posted before the
    /// program's next operation runs).
    #[pyo3(signature = (data, dest, tag, comm=0))]
    fn isend(&self, data: PyBackedBytes, dest: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>, comm: u32) -> PyResult<u64> {
        self.live()?;
        let (data, dest, tag) = (message(data, "data")?, unsigned::<usize>(dest, "dest")?, int32(tag, "tag")?);
        Ok(self.queue.borrow_mut().push(Post::Send { data, dest, tag, comm }))
    }

    /// `MPI_Irecv` of at most `cap` bytes, not yielded: the request's number.
    #[pyo3(signature = (cap, source, tag, comm=0))]
    fn irecv(&self, cap: &Bound<'_, PyAny>, source: &Bound<'_, PyAny>, tag: &Bound<'_, PyAny>, comm: u32) -> PyResult<u64> {
        self.live()?;
        let (cap, source, tag) = (unsigned::<u32>(cap, "cap")?, int32(source, "source")?, int32(tag, "tag")?);
        Ok(self.queue.borrow_mut().push(Post::Recv { cap, source, tag, comm }))
    }

    /// `MPI_Wait` on a request. Result: `(bytes or None, status)`.
    fn wait(&self, request: &Bound<'_, PyAny>) -> PyResult<PyMpiOp> {
        Ok(op(Call::Wait { request: unsigned::<u64>(request, "request")? }))
    }

    /// `MPI_Test`: one pass of the progress engine. Result: `(bytes or None, status)`, or None
    /// while the request is not done.
    fn test(&self, request: &Bound<'_, PyAny>) -> PyResult<PyMpiOp> {
        Ok(op(Call::Test { request: unsigned::<u64>(request, "request")? }))
    }

    /// `MPI_Waitany` on a list of requests. Result: `(index, bytes or None, status)`.
    fn waitany(&self, requests: Vec<Bound<'_, PyAny>>) -> PyResult<PyMpiOp> {
        if requests.is_empty() {
            return Err(to_py(field_err("requests", "[]", "at least one request")));
        }
        let requests = requests.iter().map(|n| unsigned::<u64>(n, "requests")).collect::<PyResult<Vec<_>>>()?;
        Ok(op(Call::Waitany { requests }))
    }
}

/// Run one call on the rank's SPE, its message in the rank's buffers.
async fn exec(r: &Rank, bufs: &mut Buffers, live: &mut Live, call: Call) -> cellblade::Result<Outcome> {
    Ok(match call {
        Call::Send { data, dest, tag, comm } => {
            let (ea, _) = bufs.fit(r, data.len() as u64, 0)?;
            r.write(ea, &data)?;
            Outcome::Code(r.send(ea, data.len() as u32, dest, tag, comm).await?)
        }
        Call::Recv { cap, source, tag, comm } => {
            let (_, ea) = bufs.fit(r, 0, cap as u64)?;
            let st = r.recv(ea, cap, source, tag, comm).await?;
            Outcome::Received(r.read(ea, st.bytes)?, st)
        }
        Call::Sendrecv { data, dest, stag, cap, source, rtag, comm } => {
            let (sea, rea) = bufs.fit(r, data.len() as u64, cap as u64)?;
            r.write(sea, &data)?;
            let (code, st) = r.sendrecv(sea, data.len() as u32, dest, stag, rea, cap, source, rtag, comm).await?;
            Outcome::Exchanged(code, r.read(rea, st.bytes)?, st)
        }
        Call::Probe { source, tag, comm, wait: true } => Outcome::Probed(Some(r.probe(source, tag, comm).await?)),
        Call::Probe { source, tag, comm, wait: false } => Outcome::Probed(r.iprobe(source, tag, comm).await?),
        Call::Barrier { comm } => {
            r.barrier(comm).await?;
            Outcome::Nothing
        }
        Call::Compute { core_cycles } => {
            r.spu().compute(core_cycles).await;
            Outcome::Nothing
        }
        Call::Wait { request } => Outcome::Completed(Some(live.wait(r, request).await?)),
        Call::Test { request } => Outcome::Completed(live.test(r, request).await?),
        Call::Waitany { requests } => {
            let (k, done) = live.waitany(r, &requests).await?;
            Outcome::Any(k, done)
        }
    })
}

/// Clears the handle when the program ends, so no reference to the blade outlives the run.
struct Ended(Py<RankHandle>);

impl Drop for Ended {
    fn drop(&mut self) {
        Python::attach(|py| {
            if let Ok(mut h) = self.0.bind(py).try_borrow_mut() {
                h.rank = None;
            }
        })
    }
}

fn start(py: Python<'_>, r: &Rc<Rank>, queue: &Shared, program: &Py<PyAny>, who: &str) -> PyResult<(Ended, Py<PyAny>)> {
    let h = Py::new(py, RankHandle { rank: Some(r.clone()), queue: queue.clone(), id: r.rank(), size: r.size() })?;
    let gen = program.bind(py).call1((h.clone_ref(py),))?;
    if !gen.hasattr(intern!(py, "send"))? || !gen.hasattr(intern!(py, "throw"))? {
        let repr = gen.repr().map(|r| r.to_string()).unwrap_or_else(|_| "an object".into());
        return Err(PyTypeError::new_err(format!(
            "the program of {who} returned {repr}, not a generator: write it as a generator function (one that yields operations)"
        )));
    }
    Ok((Ended(h), gen.unbind()))
}

enum Next {
    Call(Call),
    Finished,
    /// The program yielded something it may not: thrown back into it.
    Refused(PyErr),
    /// An exception escaped the program.
    Raised(PyErr),
}

fn step(py: Python<'_>, gen: &Py<PyAny>, input: PyResult<Outcome>, who: &str) -> Next {
    let gen = gen.bind(py);
    let yielded = match input.and_then(|o| o.into_py(py)) {
        Ok(v) => gen.call_method1(intern!(py, "send"), (v,)),
        Err(e) => gen.call_method1(intern!(py, "throw"), (e.into_value(py),)),
    };
    let obj = match yielded {
        Ok(obj) => obj,
        Err(e) if e.is_instance_of::<PyStopIteration>(py) => return Next::Finished,
        Err(e) => return Next::Raised(e),
    };
    match obj.cast::<PyMpiOp>() {
        Ok(o) => Next::Call(o.get().call.clone()),
        Err(_) => {
            let repr = obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "an object".into());
            Next::Refused(PyTypeError::new_err(format!(
                "{who}: the program yielded {repr}, not an MPI operation: yield what a communicator method returns, e.g. `data = yield comm.recv(source=0)`"
            )))
        }
    }
}

/// One Python rank program as the rank's program in the world.
async fn drive(r: Rc<Rank>, program: Py<PyAny>, failure: Failure) -> cellblade::Result<()> {
    let who = format!("rank {}", r.rank());
    let raised = |e: PyErr| {
        failure.borrow_mut().get_or_insert(e);
        Error::Program(format!("{who}: the Python program raised an exception"))
    };
    let queue = Shared::default();
    let (_ended, gen) = Python::attach(|py| start(py, &r, &queue, &program, &who)).map_err(raised)?;
    let (mut bufs, mut live) = (Buffers::default(), Live::default());
    let mut input: PyResult<Outcome> = Ok(Outcome::Nothing);
    loop {
        let call = match Python::attach(|py| step(py, &gen, input, &who)) {
            Next::Call(c) => c,
            // Requests the program made last still go out, as a C rank's would.
            Next::Finished => return live.post_queued(&r, &queue).await,
            Next::Refused(e) => {
                input = Err(e);
                continue;
            }
            Next::Raised(e) => return Err(raised(e)),
        };
        input = match live.post_queued(&r, &queue).await {
            Ok(()) => exec(&r, &mut bufs, &mut live, call).await.map_err(to_py),
            Err(e) => Err(to_py(e)),
        };
    }
}

/// An MPI job of Python rank programs (`cellblade.programs_mpi.Job` wraps it).
#[pyclass(module = "cellblade._core", unsendable)]
pub struct MpiJob {
    world: Option<MpiWorld>,
    failure: Failure,
}

#[pymethods]
impl MpiJob {
    /// A job from the fields of `mpirun`'s request (ranks, mode, placement or placement_file,
    /// depth, trace) on the machine `machine` (as the program functions take it).
    #[new]
    #[pyo3(signature = (request, machine=None))]
    fn new(request: &Bound<'_, PyDict>, machine: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let job = request::parse::<JobRequest>(fields_of::<JobRequest>(request)?).map_err(to_py)?;
        let file = machine_of(machine)?.resolve().map_err(to_py)?;
        let world = mpi::world(&job, file).map_err(to_py)?;
        Ok(MpiJob { world: Some(world), failure: Failure::default() })
    }

    /// Run `program(rank)` (returning a generator) as rank `rank`.
    fn rank(&mut self, rank: &Bound<'_, PyAny>, program: Py<PyAny>) -> PyResult<()> {
        let rank = unsigned::<usize>(rank, "rank")?;
        let failure = self.failure.clone();
        let world = self.world.as_mut().ok_or_else(|| PyRuntimeError::new_err("this job has already run: build a new one"))?;
        world.rank(rank, move |r| drive(r, program, failure)).map_err(to_py)
    }

    /// Run every rank to completion; returns simulated_ns, events, packets, wall_s and trace
    /// (the Chrome trace as JSON text, or None).
    fn run<'py>(mut slf: PyRefMut<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let world = slf.world.take().ok_or_else(|| PyRuntimeError::new_err("this job has already run: build a new one"))?;
        let failure = slf.failure.clone();
        drop(slf);
        let result = world.run();
        if let Some(err) = failure.borrow_mut().take() {
            return Err(err);
        }
        let report = result.map_err(to_py)?;
        run_report(py, report.simulated, report.events, report.packets, report.wall_s, report.trace.map(|t| t.to_string()))
    }
}
