//! A Cell SDK program on the simulated blade: its PPE process and, for each SPE context it
//! runs, one SPE process, every one of them a PowerPC program under qemu-user whose libspe2 or
//! spu_mfcio.h calls come here as requests ([`super::wire`]).
//!
//! The simulator serves a process's next request only when that process's simulated thread is
//! ready to run it, and waits until the process sends it, so computation between two calls costs
//! no simulated time and the same program gives the same simulated numbers on every run
//! (`--compute zero`). Each call costs what the blade says: an MFC command goes through the
//! SPE's MFC and the EIB ([`crate::spu::Spu`]), a mailbox write from the PPE through the
//! problem-state area ([`crate::ppe::Ppe`]).
//!
//! What the programs' bytes are: the local stores are memory files shared with the SPE processes,
//! which see theirs at addresses 0 to 256 KB ([`crate::machine::local_store::LocalStores::shared`]);
//! main memory is the PPE process's own ([`super::process_memory`]), so an effective address is
//! a PPE pointer, as on the blade.
//!
//! `spe_context_run` starts the SPE process (`spe_command` and the image), after the blade's
//! thread-creation time (seed 002 §4.2 measured create, load, run and join of an empty program
//! together; the SPE starts at its end). An SPE program's stdio is PPE-assisted as libspe2's
//! default C99 handler made it: the SPE thread stops, the PPE thread that runs the context writes
//! the bytes to its own stdio, and the SPE goes on.

use std::cell::RefCell;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::rc::Rc;

use crate::blade::{Blade, RunReport};
use crate::error::{program_err, Error, Result};
use crate::machine::config::MachineFile;
use crate::machine::local_store::LocalStores;
use crate::machine::mfc::ListElement;
use crate::machine::topology::SPES;
use crate::ppe::{Access, Ppe};
use crate::sim::{Pid, Shared, Time};
use crate::spu::Spu;

use super::cost::{self, Compute, Counter};
use super::process_memory::ProcessMemory;
use super::wire::{self, Answer, Request};

mod mailbox;
mod ps_area;
use mailbox::in_mbox_write;

/// How the SPE processes are started and where the PPE process's memory is.
#[derive(Debug, Clone)]
pub struct SdkOptions {
    /// The command that runs an SPE executable (qemu-user with its CPU), before the image.
    pub spe_command: Vec<String>,
    /// The PPE process: its pid, qemu-user's guest base in it, and its pointer width.
    pub ppe_pid: i32,
    pub guest_base: u64,
    pub bits: u32,
    pub trace: bool,
    /// What the SPE programs' own code costs, and the cost plugin that counts it under
    /// [`Compute::Model`] ([`super::cost`]).
    pub compute: Compute,
    pub cost_plugin: Option<PathBuf>,
}

/// How the program ended, as the simulator saw it.
#[derive(Debug, Clone)]
pub struct SdkOutcome {
    pub report: RunReport,
    /// What went wrong on an SPE that the PPE program was told of (a context's runtime error),
    /// for the user.
    pub notes: Vec<String>,
}

/// The descriptors an SPE process finds its local store and its socket at.
const LS_FD: i32 = 3;
const SDK_FD: i32 = 4;
/// And, under `--compute model`, its cost counter (the plugin's `fd=`).
const COST_FD: i32 = 5;

/// One SPE context of the PPE program.
struct Context {
    spe: usize,
    image: Option<PathBuf>,
    /// While its program runs: the SPE process and what it has asked of the PPE.
    child: Option<Child>,
    /// Its cost counter, under `--compute model`.
    counter: Option<Counter>,
    /// What the PPE thread running the context is told next: a stop or a PPE-assisted call.
    event: Option<Event>,
    /// The simulated PPE thread waiting in spe_context_run, and the SPE thread waiting for a
    /// PPE-assisted call to be done.
    ppe_waiting: Option<Pid>,
    spe_waiting: Option<Pid>,
    destroyed: bool,
    /// Its gang, and whether a context was placed next to it by affinity (one may be).
    gang: Option<usize>,
    has_follower: bool,
    /// The SPE thread stopped by a stop-and-signal, waiting to continue.
    paused: Option<Pid>,
    /// Created with SPE_EVENTS_ENABLE: its stops are queued for spe_stop_info_read and are
    /// SPE_EVENT_SPE_STOPPED events while unread.
    events: bool,
    stops: std::collections::VecDeque<(u32, u64)>,
    /// Its last stop's reason and code (SPU_Status reads them while it is stopped).
    last_stop: Option<(u32, u64)>,
    /// A proxy DMA was queued since the last SPE_EVENT_TAG_GROUP reported.
    proxy_queued: bool,
    /// The flags of the run under way (spe_context_run's): SPE_NO_CALLBACKS makes a library
    /// call's stop a plain stop-and-signal.
    run_flags: u32,
    /// spufs's context lock, as its mailbox files take it ([`mailbox`]): held, and the PPE
    /// threads waiting for it.
    spufs_held: bool,
    spufs_waiting: std::collections::VecDeque<Pid>,
    /// The proxy command its MFC command area holds (spe_ps_area_get).
    proxy: ps_area::ProxyRegisters,
}

/// A gang of contexts (spe_gang_context_create): what affinity may still place in it.
#[derive(Default)]
struct Gang {
    memory_affinity: bool,
    /// One of its contexts has run: spufs has placed the gang.
    ran: bool,
    destroyed: bool,
}

#[derive(Debug, Clone)]
enum Event {
    Stopped {
        reason: u32,
        code: u64,
    },
    Call {
        fd: u32,
        bytes: Vec<u8>,
    },
    /// A stop 0x2100 + `callnum` with callbacks on: the PPE thread runs handler `callnum` with
    /// the SPU's next PC.
    Library {
        callnum: u32,
        npc: u32,
    },
}

/// A thread of the PPE program that talks to the simulator.
#[derive(Default)]
struct PpeThread {
    exited: bool,
    /// The simulated PPE threads waiting in pthread_join for it.
    joiners: Vec<Pid>,
}

struct Job {
    contexts: Vec<Context>,
    gangs: Vec<Gang>,
    threads: Vec<PpeThread>,
    local_stores: Vec<OwnedFd>,
    opts: SdkOptions,
    notes: Vec<String>,
    /// Whether the PPE program has ended (the run ends with it).
    ppe_ended: bool,
    /// Where the PPE mapped each context's local store (spe_ls_area_get): its address, the SPE.
    ls_windows: Vec<(u64, usize)>,
    /// The run's own folder (embedded SPE images written for qemu-user), removed with it.
    folder: Option<PathBuf>,
    embedded: Vec<(Vec<u8>, PathBuf)>,
    /// Under `--compute model`, qemu's `-plugin` argument: the cost plugin, the counter's
    /// descriptor and the machine's cost table (the same for every SPE process of the run).
    cost_plugin: Option<String>,
}

type JobRef = Rc<RefCell<Job>>;

/// Run the PPE program at the other end of `ppe` until its process ends.
pub fn run_sdk(file: MachineFile, ppe: UnixStream, opts: SdkOptions) -> Result<SdkOutcome> {
    let cost_plugin = match (opts.compute, &opts.cost_plugin) {
        (Compute::Zero, _) => None,
        (Compute::Cpu(_), _) => return Err(Error::Internal("compute cpu for an SDK program: the request refuses it".into())),
        (Compute::Model, Some(plugin)) => Some(format!("{},fd={COST_FD},{}", plugin.display(), cost::plugin_args(&file.spu_cost))),
        (Compute::Model, None) => return Err(Error::Internal("compute model without the cost plugin: the front passes it".into())),
    };
    let mut blade = Blade::new(file, opts.trace);
    let ls_bytes = blade.machine().p.ls_bytes;
    let (stores, files) = LocalStores::shared(ls_bytes, SPES).map_err(|e| Error::Internal(e.to_string()))?;
    {
        let mut m = blade.machine();
        m.mem.ls = stores;
        m.mem.external = Some(Box::new(ProcessMemory::new(opts.ppe_pid, opts.guest_base, opts.bits)));
    }
    let job: JobRef = Rc::new(RefCell::new(Job {
        contexts: Vec::new(),
        gangs: Vec::new(),
        threads: vec![PpeThread::default()],
        local_stores: files,
        opts,
        notes: Vec::new(),
        ppe_ended: false,
        folder: None,
        embedded: Vec::new(),
        ls_windows: Vec::new(),
        cost_plugin,
    }));
    let served = job.clone();
    blade.ppe(move |p| serve_ppe(p, ppe, served, 0));
    let result = blade.run();
    let mut job = job.borrow_mut();
    for ctx in &mut job.contexts {
        end_process(ctx);
    }
    let notes = std::mem::take(&mut job.notes);
    result.map(|report| SdkOutcome { report, notes })
}

fn io_err(what: &str, e: std::io::Error) -> Error {
    Error::Internal(format!("{what}: the connection to its process failed: {e}"))
}

fn end_process(ctx: &mut Context) {
    if let Some(mut child) = ctx.child.take() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The PPE program has ended: so do its SPE processes, and the run with them (SPE threads still
/// waiting on the blade, for a mailbox word say, end with the PPE process, as on Linux).
fn end_all(job: &JobRef, p: &Ppe) {
    let mut j = job.borrow_mut();
    j.ppe_ended = true;
    for ctx in &mut j.contexts {
        end_process(ctx);
    }
    p.process().0.end_run();
}

fn refused(status: i32) -> Answer {
    Answer { status, ..Answer::default() }
}

/// Serve PPE thread `thread`'s calls (0: the program's main thread) until it exits.
async fn serve_ppe(p: Ppe, sock: UnixStream, job: JobRef, thread: usize) -> Result<()> {
    loop {
        let next = wire::read_request(&sock).map_err(|e| io_err("the PPE program", e))?;
        let Some((req, payload, fd)) = next else {
            ppe_thread_gone(&job, &p);
            return Ok(());
        };
        if let Some(sent) = serve_ls_request(&job, &sock, &req) {
            if sent.is_err() {
                ppe_thread_gone(&job, &p);
                return Ok(());
            }
            continue;
        }
        let Some((answer, out)) = serve_ppe_call(&p, thread, &req, &payload, fd, &job, &sock).await? else {
            ppe_thread_gone(&job, &p);
            return Ok(());
        };
        if wire::write_answer(&mut &sock, &answer, &out).is_err() {
            // The PPE process ended while the call was under way (the launcher ended its group).
            ppe_thread_gone(&job, &p);
            return Ok(());
        }
        if req.op == wire::THREAD_EXIT {
            return Ok(());
        }
    }
}

/// spe_ls_area_get's two requests, served the moment they come (they take no simulated time),
/// also while a PPE-assisted call is under way, whose handler may map the local store first:
/// LS_AREA's answer carries the context's local-store file, which the PPE maps, and LS_MAPPED
/// says where. `None` for any other request.
fn serve_ls_request(job: &JobRef, sock: &UnixStream, req: &Request) -> Option<std::io::Result<()>> {
    match (req.op, context_of(job, req.a)) {
        (wire::LS_AREA, Ok(spe)) => Some(wire::write_answer_passing(sock, &Answer::default(), job.borrow().local_stores[spe].as_raw_fd())),
        (wire::LS_MAPPED, Ok(spe)) => {
            job.borrow_mut().ls_windows.push((req.d, spe));
            Some(wire::write_answer(&mut &*sock, &Answer::default(), &[]))
        }
        (wire::LS_AREA | wire::LS_MAPPED, Err(refusal)) => Some(wire::write_answer(&mut &*sock, &refusal, &[])),
        _ => None,
    }
}

/// A PPE thread's connection closed without its exit: the process has ended (its main thread
/// returned, or it was killed), and its SPE contexts end with it, as on Linux.
fn ppe_thread_gone(job: &JobRef, p: &Ppe) {
    // A thread's connection closes with the process (a thread that exits says so first): the
    // first to close marks the PPE program's end.
    if !job.borrow().ppe_ended {
        end_all(job, p);
    }
}

/// Thread `thread` has exited: wake those joining it.
fn thread_exited(job: &JobRef, p: &Ppe, thread: usize) {
    let joiners = {
        let mut j = job.borrow_mut();
        let t = &mut j.threads[thread];
        t.exited = true;
        std::mem::take(&mut t.joiners)
    };
    let (sh, _) = p.process();
    for pid in joiners {
        sh.with(|_, s| s.wake(pid, Ok(0)));
    }
}

fn context_of(job: &JobRef, n: u32) -> std::result::Result<usize, Answer> {
    let j = job.borrow();
    match j.contexts.get(n as usize) {
        Some(c) if !c.destroyed => Ok(c.spe),
        _ => Err(refused(wire::ESRCH)),
    }
}

#[allow(clippy::too_many_arguments)]
async fn serve_ppe_call(
    p: &Ppe,
    thread: usize,
    req: &Request,
    payload: &[u8],
    fd: Option<OwnedFd>,
    job: &JobRef,
    sock: &UnixStream,
) -> Result<Option<(Answer, Vec<u8>)>> {
    let ok = Answer::default();
    Ok(Some(match req.op {
        wire::PPE_HELLO => (ok, Vec::new()),
        wire::THREAD_CREATE => {
            let Some(fd) = fd else {
                return Err(Error::Internal(
                    "the PPE program: a thread created without its socket: libspe2 and the simulator disagree".into(),
                ));
            };
            // The new thread starts at its creator's time; pthread_create's own cost on the PPE
            // is not in the machine file (it is not among the seeds' measurements).
            let n = {
                let mut j = job.borrow_mut();
                j.threads.push(PpeThread::default());
                j.threads.len() - 1
            };
            let (sh, _) = p.process();
            let sh = sh.clone();
            let pid = sh.next_pid();
            let ppe = Ppe::new(sh.clone(), pid, 0);
            sh.spawn(format!("ppe thread {n}"), serve_ppe(ppe, UnixStream::from(fd), job.clone(), n));
            (Answer { value: n as u64, ..ok }, Vec::new())
        }
        wire::THREAD_EXIT => {
            thread_exited(job, p, thread);
            (ok, Vec::new())
        }
        wire::THREAD_JOIN => {
            let n = req.a as usize;
            let (sh, pid) = p.process();
            let exited = match job.borrow().threads.get(n) {
                None => return Ok(Some((refused(wire::ESRCH), Vec::new()))),
                Some(t) => t.exited,
            };
            if !exited {
                job.borrow_mut().threads[n].joiners.push(pid);
                sh.with(|_, s| s.set_waiting(pid, move || format!("pthread_join of PPE thread {n}")));
                sh.suspend(pid).await?;
            }
            (ok, Vec::new())
        }
        wire::CONTEXT_CREATE => (create_context(p, job, req), Vec::new()),
        wire::GANG_CREATE => {
            let mut j = job.borrow_mut();
            j.gangs.push(Gang::default());
            (Answer { value: (j.gangs.len() - 1) as u64, ..ok }, Vec::new())
        }
        wire::GANG_DESTROY => {
            let mut j = job.borrow_mut();
            match j.gangs.get_mut(req.a as usize) {
                Some(g) if !g.destroyed => {
                    g.destroyed = true;
                    (ok, Vec::new())
                }
                _ => (refused(wire::ESRCH), Vec::new()),
            }
        }
        wire::PROGRAM_LOAD => {
            if let Err(a) = context_of(job, req.a) {
                return Ok(Some((a, Vec::new())));
            }
            let path = match req.b {
                wire::IMAGE_PATH => PathBuf::from(String::from_utf8_lossy(payload).into_owned()),
                wire::IMAGE_BYTES => embedded_image(job, payload)?,
                kind => {
                    return Err(Error::Internal(format!(
                        "the PPE program: spe_program_load of image kind {kind}: libspe2 and the simulator disagree"
                    )))
                }
            };
            job.borrow_mut().contexts[req.a as usize].image = Some(path);
            (ok, Vec::new())
        }
        wire::CONTEXT_RUN => {
            if payload.len() != 16 {
                return Err(program_err(format!(
                    "spe_context_run of context {}: {} bytes of speid and r4, 16 expected",
                    req.a,
                    payload.len()
                )));
            }
            let speid = u64::from_be_bytes(payload[..8].try_into().expect("8 bytes"));
            let arg_rest = u64::from_be_bytes(payload[8..].try_into().expect("8 bytes"));
            return run_context(p, req, [speid, req.d, req.e, arg_rest], job, sock).await;
        }
        wire::CONTEXT_DESTROY => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(_) => {
                let mut j = job.borrow_mut();
                let ctx = &mut j.contexts[req.a as usize];
                abandon_paused(p.process().0, ctx);
                end_process(ctx);
                ctx.destroyed = true;
                // Its cost counter's descriptor goes with it: a program that creates, runs and
                // destroys thousands of contexts (libspe2's test_multiple_context) would run
                // out of descriptors otherwise.
                ctx.counter = None;
                let spe = ctx.spe;
                j.ls_windows.retain(|&(_, s)| s != spe);
                (ok, Vec::new())
            }
        },
        wire::IN_MBOX_WRITE => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => {
                let words: Vec<u32> = payload.chunks_exact(4).map(|w| u32::from_be_bytes(w.try_into().expect("4 bytes"))).collect();
                let written = in_mbox_write(p, job, req.a as usize, spe, &words, req.b).await?;
                (Answer { value: written, ..ok }, Vec::new())
            }
        },
        wire::OUT_MBOX_READ => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => {
                let out = mailbox::out_mbox_read(p, job, req.a as usize, spe, req.b as usize).await?;
                (Answer { value: (out.len() / 4) as u64, ..ok }, out)
            }
        },
        wire::SIGNAL_WRITE => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => match req.b {
                1 | 2 => {
                    p.spe_signal_write(spe, req.b, req.d as u32, Access::Syscall).await?;
                    (ok, Vec::new())
                }
                _ => (refused(wire::EINVAL), Vec::new()),
            },
        },
        wire::OUT_INTR_MBOX_READ => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => {
                // libspe2's behaviours: ALL_BLOCKING waits for every word, ANY_BLOCKING for the
                // first only, ANY_NONBLOCKING for none.
                let mut out = Vec::new();
                for i in 0..req.c {
                    let block = req.b == 1 || (req.b == 2 && i == 0);
                    match p.spe_out_intr_mbox_read(spe, block).await? {
                        Some(w) => out.extend_from_slice(&w.to_be_bytes()),
                        None => break,
                    }
                }
                (Answer { value: (out.len() / 4) as u64, ..ok }, out)
            }
        },
        wire::OUT_INTR_MBOX_STATUS => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => (Answer { value: p.spe_out_intr_mbox_status(spe).await? as u64, ..ok }, Vec::new()),
        },
        wire::CPU_INFO => cpu_info(req.a, req.b as i32),
        wire::EVENT_WAIT => event_wait(p, job, req, payload).await?,
        wire::PS_ACCESS => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => (ps_area::ps_access(p, job, spe, req).await?, Vec::new()),
        },
        wire::STOP_INFO_READ => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(_) => match job.borrow_mut().contexts[req.a as usize].stops.pop_front() {
                Some((reason, code)) => (Answer { a: reason, value: code, ..ok }, Vec::new()),
                None => (refused(wire::EAGAIN), Vec::new()),
            },
        },
        wire::PPE_WAIT_HOST => {
            // The thread is off the blade until another thread lets it go on: the poll
            // interval is the machine's, as an SPE polling a word waits.
            let (sh, pid) = p.process();
            let dt = sh.world.borrow().p.poll;
            sh.sleep(pid, dt).await;
            (ok, Vec::new())
        }
        wire::MFCIO => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => {
                let (lsa, size) = ((req.e >> 32) as u32, req.e as u32);
                let ls_bytes = p.process().0.world.borrow().p.ls_bytes as u64;
                let ea = effective_address(job, req.d, ls_bytes);
                let (get, fence, barrier) = match req.b {
                    0x40 => (true, false, false),
                    0x41 => (true, false, true),
                    0x42 => (true, true, false),
                    0x20 => (false, false, false),
                    0x21 => (false, false, true),
                    0x22 => (false, true, false),
                    _ => return Ok(Some((refused(wire::EINVAL), Vec::new()))),
                };
                match p.spe_mfcio(spe, get, lsa, ea, size, req.c, fence, barrier).await {
                    Ok(()) => {
                        job.borrow_mut().contexts[req.a as usize].proxy_queued = true;
                        (ok, Vec::new())
                    }
                    // A command the MFC refuses (size, alignment, range): the call fails, as
                    // spufs refuses the write, and the note says why.
                    Err(Error::Program(why)) => {
                        job.borrow_mut().notes.push(format!(
                            "the PPE program: proxy DMA {:#x} to context {} (SPE {spe}) (lsa={lsa:#x}, ea={:#x}, size={size}, tag={}) refused: {why}: the call fails with EINVAL",
                            req.b, req.a, req.d, req.c
                        ));
                        (refused(wire::EINVAL), Vec::new())
                    }
                    Err(e) => return Err(e),
                }
            }
        },
        wire::MFCIO_TAG_STATUS => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => {
                // A mask of 0 is every proxy tag group (0 to 15), all of them waited for.
                let (mask, all, any) = if req.c == 0 { (0xffff, req.b != 3, false) } else { (req.c, req.b == 1, req.b == 2) };
                let done = p.spe_mfcio_tag_status(spe, mask, all, any).await?;
                (Answer { value: done as u64, ..ok }, Vec::new())
            }
        },
        wire::OUT_MBOX_STATUS | wire::IN_MBOX_STATUS => match context_of(job, req.a) {
            Err(a) => (a, Vec::new()),
            Ok(spe) => {
                let n = if req.op == wire::OUT_MBOX_STATUS { p.spe_out_mbox_status(spe).await? } else { p.spe_in_mbox_status(spe).await? };
                (Answer { value: n as u64, ..ok }, Vec::new())
            }
        },
        op => return Err(Error::Internal(format!("the PPE program: unknown request {op}: libspe2 and the simulator disagree"))),
    }))
}

/// spe_context_create(_affinity): req.a = flags, req.b = the gang's number + 1 (0: none), req.c
/// = the affinity neighbour's context number + 1 (0: none). A context takes the first free SPE
/// in physical order; one created with affinity takes the free SPE fewest ring hops from its
/// neighbour's (SPE_AFFINITY_MEMORY: from the memory interface), on the same chip, as spufs
/// places a gang's affinity chain. Linux's scheduler places plain contexts otherwise (seed 001
/// studies its placements), which a later placement option will model.
fn create_context(p: &Ppe, job: &JobRef, req: &Request) -> Answer {
    const AFFINITY_MEMORY: u32 = 0x2000;
    let mut j = job.borrow_mut();
    let flags = req.a;
    let gang = req.b.checked_sub(1).map(|g| g as usize);
    if let Some(g) = gang {
        if j.gangs.get(g).is_none_or(|g| g.destroyed) {
            return refused(wire::ESRCH);
        }
    }
    let neighbour = match req.c.checked_sub(1) {
        None => None,
        Some(n) => match j.contexts.get(n as usize) {
            Some(c) if !c.destroyed => Some(n as usize),
            _ => return refused(wire::ESRCH),
        },
    };
    let affinity = neighbour.is_some() || flags & AFFINITY_MEMORY != 0;
    if affinity {
        // As libspe2 and spufs refuse them: affinity only within a gang, a neighbour of the
        // same gang, one context next to each neighbour and one next to memory per gang.
        let Some(g) = gang else { return refused(wire::EINVAL) };
        // A gang that has run is placed: nothing more joins its chain.
        if j.gangs[g].ran {
            return refused(wire::EBUSY);
        }
        if let Some(n) = neighbour {
            if j.contexts[n].gang != Some(g) {
                return refused(wire::ESRCH);
            }
            if j.contexts[n].has_follower {
                return refused(wire::EEXIST);
            }
        }
        if flags & AFFINITY_MEMORY != 0 && j.gangs[g].memory_affinity {
            return refused(wire::EEXIST);
        }
    }
    let used: Vec<usize> = j.contexts.iter().filter(|c| !c.destroyed).map(|c| c.spe).collect();
    let free = (0..SPES).filter(|s| !used.contains(s));
    let chosen = if affinity {
        let m = p.process().0.world.borrow();
        let (chip, from) = match neighbour {
            Some(n) => {
                let e = crate::machine::topology::Element::spe(j.contexts[n].spe);
                (e.chip(), e.index())
            }
            None => (0, crate::machine::topology::MIC),
        };
        free.filter(|&s| s / crate::machine::topology::SPES_PER_CHIP == chip)
            .min_by_key(|&s| (crate::machine::topology::route(&m.p, from, crate::machine::topology::Element::spe(s).index()).hops, s))
    } else {
        free.min()
    };
    // A chain longer than a chip's free SPEs cannot be placed (spufs: EEXIST).
    let Some(spe) = chosen else {
        return refused(if affinity { wire::EEXIST } else { wire::EAGAIN });
    };
    if let Some(n) = neighbour {
        j.contexts[n].has_follower = true;
    }
    if let (Some(g), true) = (gang, flags & AFFINITY_MEMORY != 0) {
        j.gangs[g].memory_affinity = true;
    }
    // SPE_CFG_SIGNOTIFY1_OR and _2_OR: each register ORs what is written to it. A new context's
    // local store is all zeros, as spufs gives it, whatever the SPE's last context left there.
    let or_mode = [flags & 0x10 != 0, flags & 0x20 != 0];
    let mut m = p.process().0.world.borrow_mut();
    m.ch[spe].signal_or_mode = or_mode;
    m.mem.ls[spe].fill(0);
    drop(m);
    j.contexts.push(Context {
        spe,
        image: None,
        child: None,
        counter: None,
        event: None,
        ppe_waiting: None,
        spe_waiting: None,
        destroyed: false,
        gang,
        has_follower: false,
        paused: None,
        events: flags & 0x1000 != 0,
        stops: Default::default(),
        last_stop: None,
        proxy_queued: false,
        run_flags: 0,
        spufs_held: false,
        spufs_waiting: Default::default(),
        proxy: Default::default(),
    });
    Answer { value: (j.contexts.len() - 1) as u64, ..Answer::default() }
}

/// spe_event_wait: the registered units' events that have happened, waiting for one in
/// simulated time (epoll_wait on the contexts' spufs files, one kernel call, then a check every
/// poll interval) until the timeout. The events are levels, as epoll reports them: an
/// interrupt-mailbox word there, room in the inbound mailbox, a stop not yet read; and a proxy
/// DMA's tag groups all complete, reported once after it was queued.
async fn event_wait(p: &Ppe, job: &JobRef, req: &Request, payload: &[u8]) -> Result<(Answer, Vec<u8>)> {
    let units: Vec<(u32, u32)> = payload
        .chunks_exact(8)
        .map(|w| (u32::from_be_bytes(w[0..4].try_into().expect("4 bytes")), u32::from_be_bytes(w[4..8].try_into().expect("4 bytes"))))
        .collect();
    for &(n, _) in &units {
        if let Err(a) = context_of(job, n) {
            return Ok((a, Vec::new()));
        }
    }
    let timeout_ms = req.d as i64;
    let (sh, pid) = p.process();
    let (syscall, poll) = {
        let m = sh.world.borrow();
        (m.p.syscall, Time(m.p.poll.0.max(1)))
    };
    sh.sleep(pid, syscall).await;
    let started = sh.now();
    loop {
        let mut out = Vec::new();
        {
            let m = sh.world.borrow();
            let mut j = job.borrow_mut();
            for (i, &(n, mask)) in units.iter().enumerate() {
                if out.len() / 8 >= req.c as usize {
                    break;
                }
                let ctx = &mut j.contexts[n as usize];
                let (ch, mfc) = (&m.ch[ctx.spe], &m.mfc[ctx.spe]);
                let mut fired = 0;
                if mask & 1 != 0 && ch.out_intr_mbox.is_some() {
                    fired |= 1;
                }
                if mask & 2 != 0 && ch.in_mbox.len() < crate::machine::channels::IN_MBOX_DEPTH {
                    fired |= 2;
                }
                if mask & 4 != 0 && ctx.proxy_queued && mfc.done_tags(0xffff) == 0xffff {
                    ctx.proxy_queued = false;
                    fired |= 4;
                }
                if mask & 8 != 0 && !ctx.stops.is_empty() {
                    fired |= 8;
                }
                if fired != 0 {
                    out.extend_from_slice(&(i as u32).to_be_bytes());
                    out.extend_from_slice(&(fired as u32).to_be_bytes());
                }
            }
        }
        let waited = sh.now().0 - started.0;
        let timed_out = timeout_ms >= 0 && Time::as_ns(Time(waited)) >= timeout_ms as f64 * 1e6;
        if !out.is_empty() || timed_out {
            return Ok((Answer { value: (out.len() / 8) as u64, ..Answer::default() }, out));
        }
        sh.sleep(pid, poll).await;
    }
}

/// spe_cpu_info_get(question, node): the blade's two Cell BE chips of eight SPEs each, every
/// SPE usable by the program (none is taken by another program on the simulated blade).
fn cpu_info(question: u32, node: i32) -> (Answer, Vec<u8>) {
    let nodes = crate::machine::topology::CHIPS as i32;
    if node < -1 || node >= nodes {
        return (refused(wire::EINVAL), Vec::new());
    }
    let spes = if node == -1 { SPES } else { crate::machine::topology::SPES_PER_CHIP } as u64;
    let value = match question {
        // The count of nodes is of the whole system: libspe2 refuses a node for it.
        1 if node == -1 => nodes as u64,
        2 | 3 => spes,
        4 => 1, // SPE_CPU_IS_CELLBE
        _ => return (refused(wire::EINVAL), Vec::new()),
    };
    (Answer { value, ..Answer::default() }, Vec::new())
}

/// spe_context_run: start the SPE process and its thread, then tell the PPE thread of each
/// PPE-assisted call and, last, of the stop.
async fn run_context(p: &Ppe, req: &Request, start: [u64; 4], job: &JobRef, sock: &UnixStream) -> Result<Option<(Answer, Vec<u8>)>> {
    let n = req.a as usize;
    let spe = match context_of(job, req.a) {
        Err(a) => return Ok(Some((a, Vec::new()))),
        Ok(spe) => spe,
    };
    let Some(image) = job.borrow().contexts[n].image.clone() else {
        return Ok(Some((refused(wire::EINVAL), Vec::new())));
    };
    let (sh, ppe_pid) = p.process();
    let sh = sh.clone();
    job.borrow_mut().contexts[n].run_flags = req.b;
    // After a stop-and-signal, an entry other than SPE_DEFAULT_ENTRY continues after the stop
    // (libspe2 hands back the SPU's next PC); the default entry starts the program again.
    let paused = job.borrow_mut().contexts[n].paused.take();
    if let Some(spe_pid) = paused {
        if req.c != u32::MAX {
            // spu_run entered again: one kernel crossing.
            let dt = sh.world.borrow().p.syscall;
            sh.sleep(ppe_pid, dt).await;
            job.borrow_mut().contexts[n].event = None;
            sh.with(|_, s| s.wake(spe_pid, Ok(0)));
            return wait_for_stop(&sh, ppe_pid, n, spe, job, sock).await;
        }
        sh.with(|_, s| s.wake(spe_pid, Ok(ABANDON)));
        end_process(&mut job.borrow_mut().contexts[n]);
    }
    let gang = job.borrow().contexts[n].gang;
    if let Some(g) = gang {
        job.borrow_mut().gangs[g].ran = true;
    }
    let dt = sh.world.borrow().p.thread_create;
    sh.sleep(ppe_pid, dt).await;
    let (ours, theirs) = UnixStream::pair().map_err(|e| io_err("an SPE program", e))?;
    let (child, counter) = spawn_spe(job, spe, &image, start, theirs)?;
    {
        let mut j = job.borrow_mut();
        let ctx = &mut j.contexts[n];
        ctx.child = Some(child);
        ctx.counter = counter;
        ctx.event = None;
    }
    let pid = sh.next_pid();
    let spu = Spu::new(sh.clone(), pid, spe);
    let served = job.clone();
    sh.spawn(format!("spe{spe}"), serve_spe(spu, n, ours, served));
    wait_for_stop(&sh, ppe_pid, n, spe, job, sock).await
}

/// Tell the PPE thread in spe_context_run of context `n` of each PPE-assisted call and, last,
/// of the stop.
async fn wait_for_stop(
    sh: &Rc<Shared<crate::machine::Machine>>,
    ppe_pid: Pid,
    n: usize,
    spe: usize,
    job: &JobRef,
    sock: &UnixStream,
) -> Result<Option<(Answer, Vec<u8>)>> {
    loop {
        let event = job.borrow_mut().contexts[n].event.take();
        let event = match event {
            Some(e) => e,
            None => {
                job.borrow_mut().contexts[n].ppe_waiting = Some(ppe_pid);
                sh.with(|_, s| s.set_waiting(ppe_pid, move || format!("spe_context_run of context {n} (SPE {spe})")));
                sh.suspend(ppe_pid).await?;
                continue;
            }
        };
        match event {
            Event::Stopped { reason, code } => {
                // A stopped SPE process lives on, to continue; others have ended.
                if job.borrow().contexts[n].paused.is_none() {
                    if let Some(mut child) = job.borrow_mut().contexts[n].child.take() {
                        let _ = child.wait();
                    }
                }
                return Ok(Some((Answer { status: wire::RUN_STOPPED, a: reason, value: code }, Vec::new())));
            }
            Event::Call { fd, bytes } => {
                // The call crosses to the PPE and back: spu_run returns to libspe2, which runs it
                // and enters spu_run again, two kernel crossings.
                let dt = Time(sh.world.borrow().p.syscall.0 * 2);
                sh.sleep(ppe_pid, dt).await;
                if wire::write_answer(&mut &*sock, &Answer { status: wire::RUN_CALL, a: fd, value: 0 }, &bytes).is_err() {
                    return Ok(None); // the PPE process has ended
                }
                if read_resume(job, sock, n)?.is_none() {
                    return Ok(None);
                }
                let waiting = job.borrow_mut().contexts[n].spe_waiting.take();
                if let Some(spe_pid) = waiting {
                    sh.with(|_, s| s.wake(spe_pid, Ok(0)));
                }
            }
            Event::Library { callnum, npc } => {
                // As a write of the SPE's stdio: out of spu_run, the handler, and in again.
                let dt = Time(sh.world.borrow().p.syscall.0 * 2);
                sh.sleep(ppe_pid, dt).await;
                let asked = Answer { status: wire::RUN_LIBRARY_CALL, a: callnum, value: npc as u64 };
                if wire::write_answer(&mut &*sock, &asked, &[]).is_err() {
                    return Ok(None);
                }
                let Some(handled) = read_resume(job, sock, n)? else { return Ok(None) };
                let waiting = job.borrow_mut().contexts[n].spe_waiting.take();
                if handled == 0 {
                    // libspe2 restarts the SPU at the next PC + 4, after the call's word.
                    if let Some(spe_pid) = waiting {
                        sh.with(|_, s| s.wake(spe_pid, Ok(4)));
                    }
                    continue;
                }
                // The handler failed: the run ends, the SPE stays stopped at the call (a later
                // run that continues goes on from the next PC).
                let code = handled as u64;
                let mut j = job.borrow_mut();
                let ctx = &mut j.contexts[n];
                ctx.paused = waiting;
                if ctx.events {
                    ctx.stops.push_back((wire::SPE_CALLBACK_ERROR, code));
                }
                return Ok(Some((Answer { status: wire::RUN_STOPPED, a: wire::SPE_CALLBACK_ERROR, value: code }, Vec::new())));
            }
        }
    }
}

fn disagree(op: u32, n: usize) -> Error {
    Error::Internal(format!(
        "the PPE program: request {op} while context {n}'s PPE-assisted call was under way: libspe2 and the simulator disagree"
    ))
}

/// The PPE thread's CONTEXT_RESUME of context `n` after a PPE-assisted call: its b (a library
/// call handler's value), serving the local-store requests that may come first; `None` when the
/// PPE process has ended.
fn read_resume(job: &JobRef, sock: &UnixStream, n: usize) -> Result<Option<u32>> {
    loop {
        match wire::read_request(sock) {
            Ok(Some((r, _, _))) if r.op == wire::CONTEXT_RESUME && r.a as usize == n => return Ok(Some(r.b)),
            Ok(Some((r, _, _))) => match serve_ls_request(job, sock, &r) {
                Some(Ok(())) => {}
                Some(Err(_)) => return Ok(None),
                None => return Err(disagree(r.op, n)),
            },
            Ok(None) | Err(_) => return Ok(None),
        }
    }
}

/// An SPE executable embedded in the PPE program (ppu-embedspu), as a file qemu-user can start:
/// written once per distinct image into the run's folder, which goes with the run.
fn embedded_image(job: &JobRef, bytes: &[u8]) -> Result<PathBuf> {
    let mut j = job.borrow_mut();
    if let Some((_, path)) = j.embedded.iter().find(|(b, _)| b.as_slice() == bytes) {
        return Ok(path.clone());
    }
    let fail = |e: std::io::Error| Error::Internal(format!("writing an embedded SPE image for qemu-user: {e}"));
    if j.folder.is_none() {
        let folder = std::env::temp_dir().join(format!("cellblade-run-{}-{}", std::process::id(), j.opts.ppe_pid));
        std::fs::create_dir_all(&folder).map_err(fail)?;
        j.folder = Some(folder);
    }
    let path = j.folder.as_ref().expect("made above").join(format!("embedded-{}.elf", j.embedded.len()));
    std::fs::write(&path, bytes).map_err(fail)?;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o700)).map_err(fail)?;
    j.embedded.push((bytes.to_vec(), path.clone()));
    Ok(path)
}

impl Drop for Job {
    fn drop(&mut self) {
        if let Some(folder) = self.folder.take() {
            let _ = std::fs::remove_dir_all(folder);
        }
    }
}

/// Start the SPE process of a context and, under `--compute model`, the counter its cost plugin
/// adds to.
fn spawn_spe(job: &JobRef, spe: usize, image: &PathBuf, start: [u64; 4], theirs: UnixStream) -> Result<(Child, Option<Counter>)> {
    let j = job.borrow();
    let (program, args) = j.opts.spe_command.split_first().ok_or_else(|| Error::Internal("no SPE command".into()))?;
    let ls = j.local_stores[spe].as_raw_fd();
    let ppe_pid = j.opts.ppe_pid;
    let sock = theirs.as_raw_fd();
    let mut cmd = Command::new(program);
    cmd.args(args);
    let counter = match &j.cost_plugin {
        Some(plugin) => {
            cmd.arg("-plugin").arg(plugin);
            Some(Counter::new()?)
        }
        None => None,
    };
    // -1: no counter to hand down.
    let cost = counter.as_ref().map_or(-1, Counter::raw_fd);
    cmd.arg(image);
    cmd.env("CELLBLADE_LS_FD", LS_FD.to_string()).env("CELLBLADE_SDK_FD", SDK_FD.to_string());
    // speid, argp, envp and r4's second doubleword (sdk/spu/start.c reads them).
    let [speid, argp, envp, arg_rest] = start;
    cmd.env("CELLBLADE_SPE_ARGS", format!("{speid:#x},{argp:#x},{envp:#x},{arg_rest:#x}"));
    // SAFETY: between fork and exec only async-signal-safe calls: fcntl, dup2, close, prctl.
    unsafe {
        cmd.pre_exec(move || {
            // Above the target numbers first, so that neither overwrites the other.
            let (l, s) = (libc::fcntl(ls, libc::F_DUPFD, 10), libc::fcntl(sock, libc::F_DUPFD, 10));
            if l < 0 || s < 0 || libc::dup2(l, LS_FD) < 0 || libc::dup2(s, SDK_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(l);
            libc::close(s);
            if cost >= 0 {
                // Not closed on exec (dup2 clears the flag): the plugin maps it.
                let c = libc::fcntl(cost, libc::F_DUPFD, 10);
                if c < 0 || libc::dup2(c, COST_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(c);
            }
            // An SPE process does not outlive the simulator's thread, and it joins the PPE
            // process's group, which the launcher ends with the PPE program.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::setpgid(0, ppe_pid);
            Ok(())
        });
    }
    let child = cmd.spawn().map_err(|e| program_err(format!("starting the SPE program {}: {program}: {e}", image.display())))?;
    drop(theirs);
    Ok((child, counter))
}

/// The SPU cycles context `n`'s program has run since the last charge (0 under `--compute
/// zero`).
fn counted(job: &JobRef, n: usize) -> Result<u64> {
    job.borrow_mut().contexts[n].counter.as_mut().map_or(Ok(0), Counter::take)
}

/// Tell the PPE thread running context `n` of `event`.
fn tell_ppe(sh: &Shared<crate::machine::Machine>, job: &JobRef, n: usize, event: Event) {
    let waiting = {
        let mut j = job.borrow_mut();
        let ctx = &mut j.contexts[n];
        if let Event::Stopped { reason, code } = &event {
            ctx.last_stop = Some((*reason, *code));
            if ctx.events {
                ctx.stops.push_back((*reason, *code));
            }
        }
        ctx.event = Some(event);
        ctx.ppe_waiting.take()
    };
    if let Some(pid) = waiting {
        sh.with(|_, s| s.wake(pid, Ok(0)));
    }
}

/// Serve context `n`'s SPE program until it stops.
async fn serve_spe(spu: Spu, n: usize, sock: UnixStream, job: JobRef) -> Result<()> {
    let spe = spu.spe_id();
    let what = format!("the SPE program of context {n} (SPE {spe})");
    let sh = spu.shared();
    let mut tag_update = 0u32;
    let ls_bytes = sh.world.borrow().p.ls_bytes as u64;
    // MFC_RdAtomicStat: the last lock-line command's outcome, cleared when read.
    let mut atomic_status = 0u32;
    loop {
        let next = wire::read_request(&sock).map_err(|e| io_err(&what, e))?;
        // The code the SPE ran since its last request, as the SPU would have run it: the
        // request happens when that code ends. The hello, the first request, is made by the
        // launcher's start-up code (the C library's, copying the loaded data into the local
        // store), which is no SPE code: what it counted is dropped.
        let cycles = counted(&job, n)?;
        if cycles > 0 && !matches!(&next, Some((r, _, _)) if r.op == wire::SPU_HELLO) {
            spu.compute(cycles).await;
        }
        let Some((req, payload, _)) = next else {
            // Ended without a stop: a crash of SPE code is the context's runtime error.
            let status = job.borrow_mut().contexts[n].child.take().and_then(|mut c| c.wait().ok());
            let how = match status {
                Some(s) if s.signal().is_some() => format!("killed by signal {}", s.signal().unwrap_or(0)),
                Some(s) => format!("exited with status {} before stopping", s.code().unwrap_or(-1)),
                None => "ended".into(),
            };
            // An illegal instruction is the SPU's invalid-instruction error, as libspe2 reports it.
            let (code, named) = match status.and_then(|s| s.signal()) {
                Some(libc::SIGILL) => (runtime_error::INVALID_INSTR, " (SPE_SPU_INVALID_INSTR)"),
                _ => (0, ""),
            };
            if !job.borrow().ppe_ended {
                job.borrow_mut().notes.push(format!("{what}: its process was {how}: the context stops with SPE_RUNTIME_ERROR{named}"));
            }
            tell_ppe(&sh, &job, n, Event::Stopped { reason: wire::SPE_RUNTIME_ERROR, code });
            return Ok(());
        };
        let mut answer = Answer::default();
        match req.op {
            wire::SPU_HELLO => {}
            wire::SPU_MFC => {
                let mut req = req;
                req.d = effective_address(&job, req.d, ls_bytes);
                let done = match req.a {
                    GETLLAR => spu.mfc_getllar(req.b, req.d).await.map(|()| atomic_status = atomic::GETLLAR),
                    PUTLLC => spu.mfc_putllc(req.b, req.d).await.map(|s| atomic_status = s),
                    _ => mfc_command(&spu, &req).await,
                };
                match done {
                    Ok(()) => {}
                    // The MFC refuses the command: the SPE stops with a DMA exception, as on the
                    // blade, and the PPE program goes on; its earlier DMAs still complete.
                    Err(Error::Program(why)) => {
                        let code = dma_exception(&why);
                        job.borrow_mut().notes.push(format!(
                            "{what}: MFC command {:#x} (lsa={:#x}, ea={:#x}, size={}, tag={}) refused: {why}: the context stops with SPE_RUNTIME_EXCEPTION ({})",
                            req.a, req.b, req.d, req.e, req.c, code.1
                        ));
                        if let Some(mut child) = job.borrow_mut().contexts[n].child.take() {
                            let _ = child.kill();
                            let _ = child.wait();
                        }
                        tell_ppe(&sh, &job, n, Event::Stopped { reason: wire::SPE_RUNTIME_EXCEPTION, code: code.0 });
                        return Ok(());
                    }
                    Err(e) => return Err(e),
                }
            }
            wire::SPU_WRITE_CHANNEL => match req.a {
                channel::WR_TAG_MASK => spu.mfc_write_tag_mask(req.d as u32),
                channel::WR_TAG_UPDATE => tag_update = req.d as u32,
                channel::WR_OUT_MBOX => spu.spu_write_out_mbox(req.d as u32).await?,
                channel::WR_OUT_INTR_MBOX => spu.spu_write_out_intr_mbox(req.d as u32).await?,
                channel::WR_DEC => spu.spu_write_decrementer(req.d as u32),
                ch => return channel_refused(&job, &sh, n, &what, "spu_writech", ch),
            },
            wire::SPU_READ_CHANNEL => {
                answer.value = match req.a {
                    channel::RD_TAG_STAT => match tag_update {
                        0 => spu.mfc_read_tag_status_immediate(),
                        1 => spu.mfc_read_tag_status_any().await?,
                        _ => spu.mfc_read_tag_status_all().await?,
                    },
                    channel::RD_IN_MBOX => spu.spu_read_in_mbox().await?,
                    channel::RD_DEC => spu.spu_read_decrementer(),
                    channel::RD_SIG_NOTIFY_1 => spu.spu_read_signal1().await?,
                    channel::RD_SIG_NOTIFY_2 => spu.spu_read_signal2().await?,
                    channel::RD_ATOMIC_STAT => std::mem::take(&mut atomic_status),
                    ch => return channel_refused(&job, &sh, n, &what, "spu_readch", ch),
                } as u64
            }
            wire::SPU_CHANNEL_COUNT => {
                answer.value = match req.a {
                    channel::RD_IN_MBOX => spu.spu_stat_in_mbox(),
                    channel::WR_OUT_MBOX => 1 - spu.spu_stat_out_mbox(),
                    channel::WR_OUT_INTR_MBOX => 1 - spu.spu_stat_out_intr_mbox(),
                    channel::RD_TAG_STAT | channel::WR_TAG_MASK | channel::WR_TAG_UPDATE => 1,
                    ch => return channel_refused(&job, &sh, n, &what, "spu_readchcnt", ch),
                } as u64
            }
            wire::SPU_STOP if (0x2100..=0x21ff).contains(&req.a) && job.borrow().contexts[n].run_flags & wire::SPE_NO_CALLBACKS == 0 => {
                // A PPE-assisted library call: the SPE waits while the PPE thread runs the
                // handler; it goes on past the call's word, or stays stopped if the handler
                // failed, until run again or abandoned.
                let pid = spu.pid();
                job.borrow_mut().contexts[n].spe_waiting = Some(pid);
                tell_ppe(&sh, &job, n, Event::Library { callnum: req.a & 0xff, npc: req.b });
                sh.with(|_, s| s.set_waiting(pid, move || format!("a PPE-assisted library call of context {n}")));
                let skip = sh.suspend(pid).await?;
                if skip == ABANDON {
                    return Ok(());
                }
                answer.value = skip;
            }
            wire::SPU_STOP if req.a == ISOLATED_LOAD_COMPLETE => {
                // libspe2 runs the SPU on at once after this one (its debugger's hook).
            }
            wire::SPU_STOP => {
                let (reason, code) = match req.a {
                    c @ 0x2000..=0x20ff => (wire::SPE_EXIT, (c & 0xff) as u64),
                    wire::STOP_HALT => (wire::SPE_RUNTIME_ERROR, runtime_error::HALT),
                    c @ 0x2200..=0x220f => (wire::SPE_ISOLATION_ERROR, (c & 0xf) as u64),
                    c => (wire::SPE_STOP_AND_SIGNAL, c as u64),
                };
                // An SPU stopped by a stop instruction keeps its state and may be run on from
                // its next PC; a program that ended by exit() or a halt has not.
                let resumable = reason == wire::SPE_STOP_AND_SIGNAL || (req.c == wire::STOP_RESUMABLE && reason != wire::SPE_RUNTIME_ERROR);
                if resumable && !pause_at_stop(&spu, n, &job, Event::Stopped { reason, code }).await? {
                    return Ok(()); // run again from its entry or destroyed: this program ends
                }
                wire::write_answer(&mut &sock, &answer, &[]).map_err(|e| io_err(&what, e))?;
                if resumable {
                    continue; // the SPE goes on after its stop
                }
                tell_ppe(&sh, &job, n, Event::Stopped { reason, code });
                return Ok(());
            }
            wire::SPU_PPE_CALL if req.a == wire::CALL_WRITE => {
                job.borrow_mut().contexts[n].spe_waiting = Some(spu.pid());
                tell_ppe(&sh, &job, n, Event::Call { fd: req.b, bytes: payload });
                let pid = spu.pid();
                sh.with(|_, s| s.set_waiting(pid, move || format!("a PPE-assisted call of context {n}")));
                sh.suspend(pid).await?;
            }
            op => return Err(Error::Internal(format!("{what}: unknown request {op}: the SPE library and the simulator disagree"))),
        }
        wire::write_answer(&mut &sock, &answer, &[]).map_err(|e| io_err(&what, e))?;
    }
}

/// libspe2's runtime errors (spe_runtime_error of SPE_RUNTIME_ERROR).
mod runtime_error {
    pub const HALT: u64 = 0x04;
    pub const INVALID_INSTR: u64 = 0x20;
    pub const INVALID_CHANNEL: u64 = 0x40;
}

/// A channel access the simulator does not serve: one the SPU does not have (a read of a write
/// channel, say) stops the SPE with SPE_RUNTIME_ERROR (SPE_SPU_INVALID_CHANNEL), as on the
/// blade, and the PPE program goes on (Ok); one the SPU has that cellblade does not yet is an
/// error of the run naming it.
fn channel_refused(job: &JobRef, sh: &Shared<crate::machine::Machine>, n: usize, what: &str, call: &str, ch: u32) -> Result<()> {
    // The SPU's channels (spu_channels.h's numbers), by direction.
    const READ: [u32; 12] = [0, 3, 4, 8, 11, 12, 13, 15, 24, 25, 27, 29];
    const WRITE: [u32; 16] = [1, 2, 7, 9, 14, 16, 17, 18, 19, 20, 21, 22, 23, 26, 28, 30];
    let exists = match call {
        "spu_readch" => READ.contains(&ch),
        "spu_writech" => WRITE.contains(&ch),
        _ => READ.contains(&ch) || WRITE.contains(&ch),
    };
    if exists {
        return Err(program_err(format!("{what}: {call} of channel {ch}: not implemented in cellblade yet")));
    }
    job.borrow_mut().notes.push(format!(
        "{what}: {call} of channel {ch}: the SPU has no such channel: the context stops with SPE_RUNTIME_ERROR (SPE_SPU_INVALID_CHANNEL)"
    ));
    if let Some(mut child) = job.borrow_mut().contexts[n].child.take() {
        let _ = child.kill();
        let _ = child.wait();
    }
    tell_ppe(sh, job, n, Event::Stopped { reason: wire::SPE_RUNTIME_ERROR, code: runtime_error::INVALID_CHANNEL });
    Ok(())
}

/// libspe2's SPE_PROGRAM_ISO_LOAD_COMPLETE: the stop after which it runs the SPU on at once.
const ISOLATED_LOAD_COMPLETE: u32 = 0x2206;

/// What a paused SPE thread is woken with when its context is not continued but run again from
/// its entry or destroyed.
const ABANDON: u64 = u64::MAX;

/// A stop-and-signal: the SPE thread waits, stopped, until the context runs again (continuing
/// after the stop: true) or is abandoned (false), as a stopped SPU keeps its state in spufs.
async fn pause_at_stop(spu: &Spu, n: usize, job: &JobRef, stop: Event) -> Result<bool> {
    let (sh, pid) = (spu.shared(), spu.pid());
    job.borrow_mut().contexts[n].paused = Some(pid);
    tell_ppe(&sh, job, n, stop);
    sh.with(|_, s| s.set_waiting(pid, move || format!("context {n}, stopped, to be run again")));
    Ok(sh.suspend(pid).await? != ABANDON)
}

/// Context `n`'s SPE thread, if it waits stopped, will not continue: it ends.
fn abandon_paused(sh: &Shared<crate::machine::Machine>, ctx: &mut Context) {
    if let Some(pid) = ctx.paused.take() {
        sh.with(|_, s| s.wake(pid, Ok(ABANDON)));
    }
}

/// The SPU channels the SPE library reads and writes (spu_mfcio.h's numbers).
mod channel {
    pub const RD_SIG_NOTIFY_1: u32 = 3;
    pub const RD_SIG_NOTIFY_2: u32 = 4;
    pub const WR_DEC: u32 = 7;
    pub const RD_DEC: u32 = 8;
    pub const WR_TAG_MASK: u32 = 22;
    pub const WR_TAG_UPDATE: u32 = 23;
    pub const RD_TAG_STAT: u32 = 24;
    pub const WR_OUT_MBOX: u32 = 28;
    pub const RD_IN_MBOX: u32 = 29;
    pub const WR_OUT_INTR_MBOX: u32 = 30;
    pub const RD_ATOMIC_STAT: u32 = 27;
}

/// The blade's effective address for a PPE address an SPE program DMAs to: a local store where
/// the PPE mapped one (spe_ls_area_get), the PPE's own memory elsewhere.
fn effective_address(job: &JobRef, ea: u64, ls_bytes: u64) -> u64 {
    let j = job.borrow();
    match j.ls_windows.iter().find(|&&(at, _)| ea >= at && ea - at < ls_bytes) {
        Some(&(at, spe)) => crate::machine::memory::Memory::ls_ea(spe, (ea - at) as u32),
        None => ea,
    }
}

/// libspe2's runtime exception (and its name) for an MFC command the blade refused, from the
/// machine's reason: a size or an alignment the MFC does not take, an effective address that
/// maps to nothing, or anything else that makes the command invalid (a local-store range, a tag).
fn dma_exception(why: &str) -> (u64, &'static str) {
    if why.contains("maps to nothing") {
        (0x0020, "SPE_DMA_SEGMENTATION")
    } else if why.contains("illegal") || why.contains("aligned") || why.contains("same offset") {
        (0x0008, "SPE_DMA_ALIGNMENT")
    } else {
        (0x0800, "SPE_INVALID_DMA")
    }
}

/// The lock-line commands (spu_mfcio.h's MFC_GETLLAR_CMD, MFC_PUTLLC_CMD) and MFC_RdAtomicStat's
/// bit for a getllar.
const GETLLAR: u32 = 0xD0;
const PUTLLC: u32 = 0xB4;
mod atomic {
    pub const GETLLAR: u32 = 4;
}

/// An MFC command from the SPE program (spu_mfcdma32/64): opcode, local-store address, tag,
/// effective address (a PPE address) and size.
async fn mfc_command(spu: &Spu, req: &Request) -> Result<()> {
    let (lsa, tag, ea, size) = (req.b, req.c, req.d, req.e as u32);
    if let 0x24 | 0x44 = req.a {
        // A list command: the list is in local store at the effective address's low word, eight
        // bytes an element ({stall-and-notify, size} then the element's low address word), and
        // the high word is every element's.
        let at = ea as u32;
        if size == 0 || size % 8 != 0 || size > 2048 * 8 {
            return Err(program_err(format!(
                "spe {}: MFC list command {:#x}: a list of {size} bytes: 8 bytes an element, 1 to 2048 elements",
                spu.spe_id(),
                req.a
            )));
        }
        let bytes = spu.ls_read(at, size)?;
        let list: Vec<ListElement> = bytes
            .chunks_exact(8)
            .map(|e| ListElement {
                size: u32::from_be_bytes(e[0..4].try_into().expect("4 bytes")) & 0x7fff,
                eal: u32::from_be_bytes(e[4..8].try_into().expect("4 bytes")),
            })
            .collect();
        let high = ea & 0xffff_ffff_0000_0000;
        return if req.a == 0x44 { spu.mfc_getl(lsa, high, &list, tag).await } else { spu.mfc_putl(lsa, high, &list, tag).await };
    }
    match req.a {
        0x20 => spu.mfc_put(lsa, ea, size, tag).await,
        0x21 => spu.mfc_putb(lsa, ea, size, tag).await,
        0x22 => spu.mfc_putf(lsa, ea, size, tag).await,
        0x40 => spu.mfc_get(lsa, ea, size, tag).await,
        0x41 => spu.mfc_getb(lsa, ea, size, tag).await,
        0x42 => spu.mfc_getf(lsa, ea, size, tag).await,
        op => Err(program_err(format!("spe {}: MFC command {op:#x}: not implemented in cellblade yet", spu.spe_id()))),
    }
}
