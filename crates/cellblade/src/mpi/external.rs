//! Ranks driven by OS processes (`cellblade mpirun`): each rank's simulated SPE program serves
//! its process's MPI calls, read from the rank's shared-memory channel ([`super::channel`]) or
//! its stream socket ([`super::wire`]), and answers each when the simulated call returns.
//!
//! The simulator reads rank i's next request only when rank i's simulated program is ready to
//! run it, and waits until the process sends it: simulated time cannot pass meanwhile, so by
//! default ([`Compute::Zero`]) computation between MPI calls costs zero simulated time and a
//! program gives the same simulated numbers on every run, whatever the host does. With
//! [`Compute::Model`] each rank is a PowerPC program under qemu-user with the SPU cost plugin
//! (`sdk/cost/`, the SDK's mechanism and its [`Counter`]): at each request the simulator reads
//! the rank's counter and charges the SPU cycles counted since the last one to its SPE before
//! it serves the call, exactly and the same on every run. With [`Compute::Cpu`] the rank
//! reports the CPU time it used since its last call returned, and that times a factor is
//! charged to its SPE before the call. A process's bytes are copied into its rank's simulated
//! buffer before a send and out of it after a receive, so the simulated DMAs move the
//! program's real data; the fields the simulator reads are in the rank's byte order
//! ([`Order`]).

use std::cell::{Cell, RefCell};
use std::io::{self, BufReader, Read};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::error::{program_err, Error, Result};
use crate::machine::config::MachineFile;
use crate::model::params::ModelParams;
use crate::sim::Time;

use super::channel::{self, Channel, Reported};
use super::collective::{self, CollChoice};
use super::nb_wire::received;
use super::share_core::SharedCore;
use super::wire::{self, Answer, Order, Request};
use super::{Mode, MpiWorld, Rank, WorldReport};
pub use crate::sdk::cost::Compute;
use crate::sdk::cost::Counter;

/// How a job driven by processes ended (other than by an error of the simulation).
#[derive(Debug, Clone)]
pub enum ExternalOutcome {
    /// Every rank called `MPI_Finalize`; the seconds of wall time the simulator spent waiting
    /// for the rank processes' requests (the rest of its wall time is its own work).
    Finished(WorldReport, f64),
    /// A rank called `MPI_Abort` with this error code.
    Aborted { rank: usize, code: i32 },
    /// A rank's process closed its connection without `MPI_Finalize` (it exited or crashed),
    /// while the simulator waited for its next call.
    Lost { rank: usize, after: String },
}

type Stop = Rc<RefCell<Option<ExternalOutcome>>>;
type Waited = Rc<Cell<Duration>>;

/// Run a job whose rank i is driven by the process at the other end of `streams[i]`; with
/// `trace`, the finished report carries a Chrome/Perfetto trace; `compute` prices the ranks'
/// computation between calls. Collectives are the seed's.
pub fn run_external(
    file: MachineFile,
    placement: Option<Vec<usize>>,
    mode: Mode,
    depth: u32,
    trace: bool,
    compute: Compute,
    streams: Vec<UnixStream>,
) -> Result<ExternalOutcome> {
    run_external_with(
        file,
        placement,
        mode,
        depth,
        trace,
        JobOptions { compute, coll: CollChoice::seed(), trace_file: None, params: None, counters: Vec::new() },
        streams,
    )
}

/// How a job driven by processes prices computation and runs its collectives.
#[derive(Debug)]
pub struct JobOptions {
    pub compute: Compute,
    /// Under [`Compute::Model`], each rank's cost counter in rank order (the front made them
    /// and gave each rank process's plugin its own); empty otherwise.
    pub counters: Vec<Counter>,
    pub coll: CollChoice,
    /// Stream the trace to this file as the run goes (see [`MpiWorld::trace_to_file`]).
    pub trace_file: Option<String>,
    /// The model's parameters for `auto` collectives; measured when the job starts if `None`.
    pub params: Option<ModelParams>,
}

/// [`run_external`] with the collectives `opts.coll` puts on the collective library.
pub fn run_external_with(
    file: MachineFile,
    placement: Option<Vec<usize>>,
    mode: Mode,
    depth: u32,
    trace: bool,
    opts: JobOptions,
    streams: Vec<UnixStream>,
) -> Result<ExternalOutcome> {
    let mut counters: Vec<Option<Counter>> = match opts.compute {
        Compute::Model if opts.counters.len() != streams.len() => {
            return Err(Error::Internal(format!(
                "compute model with {} cost counters for {} ranks: the front starts every rank under the cost plugin",
                opts.counters.len(),
                streams.len()
            )))
        }
        Compute::Model => opts.counters.into_iter().map(Some).collect(),
        _ => streams.iter().map(|_| None).collect(),
    };
    let shared = collective::Shared::with_params(&file, opts.coll, opts.params)?;
    let hz = file.clock.decrementer_hz;
    let mut w = MpiWorld::with_trace(file, streams.len(), placement, mode, trace)?;
    w.set_depth(depth)?;
    if let Some(path) = &opts.trace_file {
        w.trace_to_file(std::path::Path::new(path))?;
    }
    let stop: Stop = Rc::default();
    let waited: Waited = Rc::default();
    // Held until the job ends: the ranks are served from this thread.
    let core = SharedCore::for_job(streams.len()).map(Rc::new);
    let started = Instant::now();
    let largest = (0..streams.len()).map(|rank| w.largest_message(rank, depth)).collect();
    let init = InitAnswer { size: streams.len(), largest, hz, compute: opts.compute, cpu: core.as_ref().map(|c| c.cpu()) };
    let links = open_links(streams, &init, core.is_none(), &mut counters);
    waited.set(started.elapsed());
    for (rank, link) in links.into_iter().enumerate() {
        let (stop, waited, shared, core) = (stop.clone(), waited.clone(), shared.clone(), core.clone());
        let counter = counters[rank].take();
        let job = Served { compute: opts.compute, counter, core, stop, waited, shared };
        w.rank(rank, move |r| serve(r, link, job))?;
    }
    let result = w.run();
    if let Some(outcome) = stop.borrow_mut().take() {
        return Ok(outcome);
    }
    result.map(|r| ExternalOutcome::Finished(r, waited.get().as_secs_f64()))
}

/// `MPIX_Compute_dp_fma(count)`: a scalar (non-vectorised) double-precision multiply-add is one
/// DP instruction; the first-generation SPU issues one every `reduce_dp_core_cycles_per_quadword`
/// cycles (seed 002 §2.1), the loads and stores dual-issued beside it.
pub(super) async fn compute_dp_fma(r: &Rank, count: u64) {
    let per = r.spu().with_machine(|m| m.p.reduce_dp_cycles_per_quadword);
    r.spu().compute(count.saturating_mul(per)).await;
}

/// `MPI_Wtime` on the SPU, in core cycles: one decrementer read (a channel read, hardware notes
/// §5: channel 8, RdDec) and its count made seconds in double precision, a conversion and a
/// multiply by the period: two DP operations, which the first-generation SPU issues 7 cycles
/// apart (`spu.reduce_dp_core_cycles_per_quadword`, seed 002 §2.1). 20 cycles on the presets.
fn wtime_cycles(r: &Rank) -> u64 {
    r.spu().with_machine(|m| m.p.channel.0 / m.p.core_cycle.0 + 2 * m.p.reduce_dp_cycles_per_quadword)
}

fn io_err(rank: usize, e: io::Error) -> Error {
    Error::Internal(format!("rank {rank}: the connection to its process failed: {e}"))
}

/// The rank's two message buffers (what it sends, what it receives into) in its simulated
/// memory, grown on demand; their contents do not outlive a call, so growing starts afresh.
/// Rank programs written in Python use the same ones, so their messages cost what C's do.
#[derive(Debug, Default)]
pub struct Buffers {
    send: (u64, u64),
    recv: (u64, u64),
}

impl Buffers {
    /// The buffers' addresses, each of at least the given size.
    pub fn fit(&mut self, r: &Rank, send: u64, recv: u64) -> Result<(u64, u64)> {
        if send > self.send.1 || recv > self.recv.1 {
            let grow = |need: u64, cap: u64| {
                if need > cap {
                    need.max(2 * cap).max(128)
                } else {
                    cap
                }
            };
            let (s, rc) = (grow(send, self.send.1), grow(recv, self.recv.1));
            r.free_all();
            let fit = |s: u64, rc: u64| -> Result<(u64, u64)> { Ok((r.alloc(s)?, r.alloc(rc)?)) };
            // Doubling may not fit the local store where the exact sizes do.
            let (sa, ra, s, rc) = match fit(s, rc) {
                Ok((sa, ra)) => (sa, ra, s, rc),
                Err(_) => {
                    r.free_all();
                    let (s, rc) = (send, recv);
                    let (sa, ra) = fit(s, rc)?;
                    (sa, ra, s, rc)
                }
            };
            self.send = (sa, s);
            self.recv = (ra, rc);
        }
        Ok((self.send.0, self.recv.0))
    }

    /// As [`Buffers::fit`], for a receive posted with capacity `cap`: it needs room only for
    /// what can arrive, never more than the largest message, nor than fits beside the send
    /// buffer (issue 43: a 2 GB buffer posted for 4 bytes). Also the capacity it got.
    pub fn fit_receive(&mut self, r: &Rank, send: u64, cap: u64) -> Result<(u64, u64, u64)> {
        let cap = cap.min(r.largest_message());
        let refused = match self.fit(r, send, cap) {
            Ok((s, rc)) => return Ok((s, rc, cap)),
            Err(e) => e,
        };
        r.free_all();
        let sa = r.alloc(send)?;
        let room = cap.min(r.largest_free());
        let ra = r.alloc(room).map_err(|_| refused)?;
        self.send = (sa, send);
        self.recv = (ra, room);
        Ok((sa, ra, room))
    }
}

/// How a rank's calls reach the simulator: the socket alone, or the shared-memory channel
/// the rank sent with its first request (the socket then carries only payloads too large for it).
struct Link {
    sock: UnixStream,
    rd: BufReader<UnixStream>,
    channel: Option<Channel>,
    /// The rank's byte order, which its first request shows.
    order: Order,
    /// The first request, read with the channel file before the link was set up.
    first: Option<Request>,
    /// The first request when it was `MPI_Init`, answered as the link opened ([`open_links`]).
    answered: Option<Request>,
}

impl Link {
    /// `spin`: whether waiting for a request spins before it sleeps ([`Channel::open`]).
    fn open(rank: usize, sock: UnixStream, spin: bool) -> Result<Option<Link>> {
        // Buffered reads: a request's header and payload usually come in one system call.
        let rd = BufReader::with_capacity(1 << 16, sock.try_clone().map_err(|e| io_err(rank, e))?);
        let Some((first, order, file)) = channel::first_request(&sock).map_err(|e| io_err(rank, e))? else { return Ok(None) };
        let channel = file.map(|f| Channel::open(f, spin, order)).transpose().map_err(|e| io_err(rank, e))?;
        Ok(Some(Link { sock, rd, channel, order, first: Some(first), answered: None }))
    }

    /// The next request and what the rank reports before it; `None` if the process ended.
    /// `long_wait`: as [`Channel::next_request`]'s.
    fn next(&mut self, rank: usize, long_wait: impl FnMut()) -> Result<Option<(Request, Reported)>> {
        if let Some(first) = self.first.take() {
            return Ok(Some((first, Reported::default())));
        }
        match &mut self.channel {
            Some(ch) => Ok(ch.next_request(&self.sock, long_wait)),
            None => Ok(wire::read_request(&mut self.rd, self.order).map_err(|e| io_err(rank, e))?.map(|r| (r, Reported::default()))),
        }
    }

    fn payload(&mut self, rank: usize, len: u64) -> Result<Vec<u8>> {
        match &self.channel {
            Some(ch) => ch.payload(len as usize, &mut self.rd),
            None => {
                let mut data = vec![0u8; len as usize];
                self.rd.read_exact(&mut data).map(|()| data)
            }
        }
        .map_err(|e| io_err(rank, e))
    }

    fn answer(&mut self, rank: usize, a: &Answer, payload: &[u8], op: u32) -> Result<()> {
        match &self.channel {
            // The answer to the first request goes where the rank waits for it: the socket.
            Some(ch) if op != wire::OP_INIT => ch.answer(a, payload, &mut self.sock),
            _ => wire::write_answer(&mut self.sock, a, payload, self.order),
        }
        .map_err(|e| io_err(rank, e))
    }
}

/// What `MPI_Init` answers: nothing in it depends on simulated time.
struct InitAnswer {
    size: usize,
    /// Per rank, the largest message its buffers can hold ([`Rank::largest_message`]): the
    /// answer's payload, so that the library refuses a larger send through the program's error
    /// handler, naming its call, before the bytes are copied.
    largest: Vec<u64>,
    /// The decrementer's rate, whose period is `MPI_Wtick`.
    hz: u64,
    compute: Compute,
    /// The core the simulator shares with the ranks, if it does.
    cpu: Option<usize>,
}

impl InitAnswer {
    /// Rank `rank`'s answer, its payload in the rank's byte order.
    fn of(&self, rank: usize, order: Order) -> (Answer, [u8; 8]) {
        let answer = Answer {
            source: rank as i32,
            tag: self.size as i32,
            value: 1.0 / self.hz as f64,
            flags: if matches!(self.compute, Compute::Cpu(_)) { wire::FLAG_CPU_TIME } else { 0 }
                | self.cpu.map_or(0, wire::share_core_flags),
            count: 8,
            ..Answer::default()
        };
        (answer, order.put_u64(self.largest[rank]))
    }
}

/// Open every rank's link as its first request comes, in whatever order the processes send
/// them, and answer an `MPI_Init` at once. Its answer depends on nothing simulated, while the
/// simulator reaches a rank's `MPI_Init` only in simulated order, after waiting for every rank
/// before it: answered there, a rank would stay in `MPI_Init` for as long as rank 0 computes
/// after its own, and could neither run nor die meanwhile (issue 43). The simulated call still
/// happens in its place: [`serve`] starts from the answered request. Per rank: its link, `None`
/// if its process ended first, or the error that broke its connection.
/// `counters`: each rank's cost counter under [`Compute::Model`], read as its link opens.
fn open_links(streams: Vec<UnixStream>, init: &InitAnswer, spin: bool, counters: &mut [Option<Counter>]) -> Vec<Result<Option<Link>>> {
    let mut links: Vec<Option<Result<Option<Link>>>> = streams.iter().map(|_| None).collect();
    let mut waiting: Vec<(usize, UnixStream)> = streams.into_iter().enumerate().collect();
    while !waiting.is_empty() {
        let mut fds: Vec<libc::pollfd> =
            waiting.iter().map(|(_, s)| libc::pollfd { fd: s.as_raw_fd(), events: libc::POLLIN, revents: 0 }).collect();
        // SAFETY: `fds` holds valid pollfds of open sockets; it outlives the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            for (rank, _) in waiting.drain(..) {
                links[rank] = Some(Err(io_err(rank, io::Error::new(e.kind(), e.to_string()))));
            }
            break;
        }
        let (ready, rest): (Vec<_>, Vec<_>) = waiting.into_iter().zip(&fds).partition(|(_, p)| p.revents != 0);
        waiting = rest.into_iter().map(|(w, _)| w).collect();
        for ((rank, sock), _) in ready {
            links[rank] = Some(open_answered(rank, sock, init, spin, counters[rank].as_mut()));
        }
    }
    links.into_iter().map(|l| l.expect("every rank's link is opened")).collect()
}

/// Open rank `rank`'s link, whose first request has come, and answer it if it is `MPI_Init`.
fn open_answered(rank: usize, sock: UnixStream, init: &InitAnswer, spin: bool, counter: Option<&mut Counter>) -> Result<Option<Link>> {
    let Some(mut link) = Link::open(rank, sock, spin)? else { return Ok(None) };
    if let Some(c) = counter {
        // What ran before the first request (MPI_Init) is qemu's start of the C library and
        // the program's set-up before it joined the job, which no MPI_Wtime can time: dropped,
        // as the SDK drops what its hello finds counted. Read now, while the rank waits for
        // the answer: once answered it runs on, and a later read would drop its code too.
        c.take()?;
    }
    if let Some(first) = link.first.take_if(|f| f.op == wire::OP_INIT) {
        let (answer, largest) = init.of(rank, link.order);
        link.answer(rank, &answer, &largest, first.op)?;
        link.answered = Some(first);
    }
    Ok(Some(link))
}

/// What serving one rank needs beside its link.
struct Served {
    compute: Compute,
    /// The rank's cost counter under [`Compute::Model`].
    counter: Option<Counter>,
    /// The core the simulator shares with the ranks, if it does.
    core: Option<Rc<SharedCore>>,
    stop: Stop,
    waited: Waited,
    shared: Rc<collective::Shared>,
}

/// Serve one rank's calls until `MPI_Finalize`.
async fn serve(r: Rc<Rank>, link: Result<Option<Link>>, job: Served) -> Result<()> {
    let Served { compute, mut counter, core, stop, waited, shared } = job;
    let rank = r.rank();
    let mut library = collective::Library::new(&r, shared)?;
    let mut bufs = Buffers { send: (0, 0), recv: (0, 0) };
    let lost = |last: &Option<Request>| {
        let after = last.as_ref().map_or("none, before MPI_Init".into(), describe);
        *stop.borrow_mut() = Some(ExternalOutcome::Lost { rank, after });
        program_err(format!("rank {rank}: its process ended without MPI_Finalize"))
    };
    let cpu = core.as_ref().map(|c| c.cpu());
    let Some(mut link) = link? else { return Err(lost(&None)) };
    let order = link.order;
    let mut pending = super::nb_wire::Pending::new(order);
    // The last call answered, described only if the process ends without MPI_Finalize.
    let mut last: Option<Request> = link.answered;
    if let (Some(core), Some(tid)) = (&core, link.channel.as_ref().and_then(Channel::rank_tid)) {
        core.enrol(rank, tid);
    }
    let float_all = || core.as_deref().map_or((), SharedCore::float_all);
    loop {
        let start = Instant::now();
        let next = link.next(rank, float_all)?;
        waited.set(waited.get() + start.elapsed());
        let Some((req, reported)) = next else { return Err(lost(&last)) };
        if let Some(c) = counter.as_mut() {
            // The SPU cycles of the rank's code since its last call (the plugin published the
            // count at the request's system call, which the socket orders before this read).
            let cycles = c.take()?;
            if cycles > 0 {
                r.spu().compute(cycles).await;
            }
        }
        if let Compute::Cpu(factor) = compute {
            // The rank's computation since its last call, as SPE time before this call.
            let cycle = r.spu().with_machine(|m| m.p.core_cycle);
            let cycles = (Time::from_ns(reported.cpu_ns as f64 * factor).0 as f64 / cycle.0 as f64).round() as u64;
            if cycles > 0 {
                r.spu().compute(cycles).await;
            }
        }
        if reported.wtimes > 0 {
            // The MPI_Wtime calls the rank answered itself, each as if it had come here.
            r.spu().compute(reported.wtimes.saturating_mul(wtime_cycles(&r))).await;
        }
        let mut payload = Vec::new();
        // A send's bytes, before its payload comes into host memory; not a receive's capacity,
        // which needs room only for what arrives (issue 43: a 2 GB buffer posted for 4 bytes).
        if !matches!(req.op, wire::OP_WAITANY | wire::OP_RECV) {
            r.refuse_oversized(req.len)?;
        }
        let mut answer = match req.op {
            wire::OP_INIT => {
                let largest = vec![r.largest_message(); rank + 1];
                let (answer, bytes) =
                    InitAnswer { size: r.size(), largest, hz: r.spu().with_machine(|m| m.p.decrementer_hz), compute, cpu }.of(rank, order);
                payload = bytes.to_vec();
                answer
            }
            wire::OP_FINALIZE => {
                pending.finish(&r).await?;
                link.answer(rank, &Answer::default(), &[], req.op)?;
                return Ok(());
            }
            wire::OP_SEND | wire::OP_SSEND => {
                let data = link.payload(rank, req.len)?;
                let (ea, _) = bufs.fit(&r, req.len, 0)?;
                r.write(ea, &data)?;
                let (dest, tag, comm) = (req.a as usize, req.b, req.c as u32);
                let code = if req.op == wire::OP_SSEND {
                    r.ssend(ea, req.len as u32, dest, tag, comm).await?
                } else {
                    r.send(ea, req.len as u32, dest, tag, comm).await?
                };
                Answer { err: code as i32, ..Answer::default() }
            }
            wire::OP_RECV => {
                let (_, ea, cap) = bufs.fit_receive(&r, 0, req.len)?;
                let st = r.recv(ea, cap as u32, req.a, req.b, req.c as u32).await?;
                payload = r.read(ea, st.bytes)?;
                received(&st)
            }
            wire::OP_SENDRECV => {
                let data = link.payload(rank, req.len)?;
                if data.len() < 16 {
                    return Err(malformed(
                        rank,
                        &req,
                        format!("{} bytes of payload: at least 16 expected (source, tag, capacity)", data.len()),
                    ));
                }
                let (source, rtag) = (order.i32(&data[0..]), order.i32(&data[4..]));
                let cap = order.u64(&data[8..]);
                let sent = &data[16..];
                let (sea, rea, cap) = bufs.fit_receive(&r, sent.len() as u64, cap)?;
                r.write(sea, sent)?;
                let (_, st) =
                    r.sendrecv(sea, sent.len() as u32, req.a as usize, req.b, rea, cap as u32, source, rtag, req.c as u32).await?;
                payload = r.read(rea, st.bytes)?;
                received(&st)
            }
            wire::OP_PROBE | wire::OP_IPROBE => {
                let st = if req.op == wire::OP_PROBE {
                    Some(r.probe(req.a, req.b, req.c as u32).await?)
                } else {
                    r.iprobe(req.a, req.b, req.c as u32).await?
                };
                match st {
                    Some(st) => Answer { source: st.source as i32, tag: st.tag, value: st.sent as f64, ..Answer::default() },
                    None => Answer { source: wire::NO_MATCH, ..Answer::default() },
                }
            }
            wire::OP_COMPUTE => {
                match req.a {
                    wire::COMPUTE_CYCLES => r.spu().compute(req.len).await,
                    wire::COMPUTE_DP_FMA => compute_dp_fma(&r, req.len).await,
                    k => return Err(Error::Internal(format!("rank {rank}: unknown compute kind {k}"))),
                };
                Answer::default()
            }
            wire::OP_COLL => {
                let data = link.payload(rank, req.len)?;
                let (answer, out) = library.serve(&r, req.a, req.b, &data, order, |s, rc| bufs.fit(&r, s, rc)).await?;
                payload = out;
                answer
            }
            wire::OP_ISEND | wire::OP_ISSEND | wire::OP_IRECV | wire::OP_WAITANY => {
                let data = link.payload(rank, req.len)?;
                pending.serve(&r, &req, &data, &mut payload).await?
            }
            wire::OP_WAIT | wire::OP_TEST | wire::OP_REQUEST_FREE | wire::OP_COLLECT | wire::OP_CANCEL => {
                pending.serve(&r, &req, &[], &mut payload).await?
            }
            wire::OP_WTIME => {
                // A spin on `MPI_Wtime` (with the default `--compute zero`) advances by one call's
                // cost per call, exactly. The clock goes with the answer, so that the rank answers
                // the calls that follow until its next request itself (libmpi/src/env/channel.c).
                let cycles = wtime_cycles(&r);
                r.spu().compute(cycles).await;
                let (cycle, hz) = r.spu().with_machine(|m| (m.p.core_cycle, m.p.decrementer_hz));
                let clock = [r.spu().now().0, cycles * cycle.0, hz, crate::sim::TICKS_PER_SECOND];
                payload = clock.iter().flat_map(|&w| order.put_u64(w)).collect();
                Answer { value: r.wtime(), count: payload.len() as u64, ..Answer::default() }
            }
            wire::OP_BARRIER => {
                r.barrier(req.c as u32).await?;
                Answer::default()
            }
            wire::OP_ABORT => {
                *stop.borrow_mut() = Some(ExternalOutcome::Aborted { rank, code: req.a });
                return Err(program_err(format!("rank {rank} called MPI_Abort with error code {}", req.a)));
            }
            op => return Err(Error::Internal(format!("rank {rank}: unknown request {op}: the rank library and the simulator disagree"))),
        };
        if pending.collect(&r)? {
            answer.flags |= wire::FLAG_FREED_DONE;
        }
        if core.as_ref().is_some_and(|c| c.take_floated(rank)) {
            answer.flags |= wire::FLAG_REPIN;
        }
        last = Some(req);
        link.answer(rank, &answer, &payload, req.op)?;
    }
}

/// A request whose fields the simulator cannot serve, named with its call.
fn malformed(rank: usize, req: &Request, what: String) -> Error {
    program_err(format!("rank {rank}: malformed request {} ({}): {what}", req.op, describe(req)))
}

/// The call a request made, for "ended after ...".
fn describe(req: &Request) -> String {
    match req.op {
        wire::OP_INIT => "MPI_Init".into(),
        wire::OP_SEND => format!("MPI_Send to {}, tag {}", req.a, req.b),
        wire::OP_SSEND => format!("MPI_Ssend to {}, tag {}", req.a, req.b),
        wire::OP_RECV => format!("MPI_Recv from {}, tag {}", req.a, req.b),
        wire::OP_WTIME => "MPI_Wtime".into(),
        wire::OP_COMPUTE => "MPIX_Compute".into(),
        wire::OP_BARRIER => "MPI_Barrier".into(),
        wire::OP_COLL => collective::FAMILIES.get(req.a as usize).map_or("a collective".into(), |f| format!("a collective ({f})")),
        wire::OP_SENDRECV => format!("MPI_Sendrecv to {}, tag {}", req.a, req.b),
        wire::OP_PROBE => format!("MPI_Probe from {}, tag {}", req.a, req.b),
        wire::OP_IPROBE => format!("MPI_Iprobe from {}, tag {}", req.a, req.b),
        wire::OP_ISEND => format!("MPI_Isend to {}, tag {}", req.a, req.b),
        wire::OP_ISSEND => format!("MPI_Issend to {}, tag {}", req.a, req.b),
        wire::OP_IRECV => format!("MPI_Irecv from {}, tag {}", req.a, req.b),
        wire::OP_WAIT | wire::OP_WAITANY => "MPI_Wait".into(),
        wire::OP_TEST => "MPI_Test".into(),
        wire::OP_REQUEST_FREE => "MPI_Request_free".into(),
        wire::OP_COLLECT => "collecting freed receives".into(),
        wire::OP_CANCEL => "MPI_Cancel".into(),
        op => format!("request {op}"),
    }
}
