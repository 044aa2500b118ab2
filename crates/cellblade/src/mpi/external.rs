//! Ranks driven by OS processes (`cellblade mpirun`): each rank's simulated SPE program serves
//! its process's MPI calls, read from a stream socket ([`super::wire`]), and answers each when
//! the simulated call returns.
//!
//! The simulator reads rank i's next request only when rank i's simulated program is ready to
//! run it, and blocks until the process sends it: simulated time cannot pass meanwhile, so
//! computation between MPI calls costs zero simulated time and a program gives the same
//! simulated numbers on every run, whatever the host does. A process's bytes are copied into
//! its rank's simulated buffer before a send and out of it after a receive, so the simulated
//! DMAs move the program's real data.

use std::cell::RefCell;
use std::io::{self, BufReader, Read};
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use crate::error::{program_err, Error, Result};
use crate::machine::config::MachineFile;

use super::wire::{self, Answer, Request};
use super::{Mode, MpiWorld, Rank, WorldReport};

/// How a job driven by processes ended (other than by an error of the simulation).
#[derive(Debug, Clone)]
pub enum ExternalOutcome {
    /// Every rank called `MPI_Finalize`.
    Finished(WorldReport),
    /// A rank called `MPI_Abort` with this error code.
    Aborted { rank: usize, code: i32 },
    /// A rank's process closed its connection without `MPI_Finalize` (it exited or crashed),
    /// while the simulator waited for its next call.
    Lost { rank: usize, after: String },
}

type Stop = Rc<RefCell<Option<ExternalOutcome>>>;

/// Run a job whose rank i is driven by the process at the other end of `streams[i]`; with
/// `trace`, the finished report carries a Chrome/Perfetto trace.
pub fn run_external(
    file: MachineFile,
    placement: Option<Vec<usize>>,
    mode: Mode,
    depth: u32,
    trace: bool,
    streams: Vec<UnixStream>,
) -> Result<ExternalOutcome> {
    let mut w = MpiWorld::with_trace(file, streams.len(), placement, mode, trace)?;
    w.set_depth(depth)?;
    let stop: Stop = Rc::default();
    for (rank, stream) in streams.into_iter().enumerate() {
        let stop = stop.clone();
        w.rank(rank, move |r| serve(r, stream, stop))?;
    }
    let result = w.run();
    if let Some(outcome) = stop.borrow_mut().take() {
        return Ok(outcome);
    }
    result.map(ExternalOutcome::Finished)
}

fn io_err(rank: usize, e: io::Error) -> Error {
    Error::Internal(format!("rank {rank}: the connection to its process failed: {e}"))
}

/// The rank's two message buffers (what it sends, what it receives into) in its simulated
/// memory, grown on demand; their contents do not outlive a call, so growing starts afresh.
struct Buffers {
    send: (u64, u64),
    recv: (u64, u64),
}

impl Buffers {
    /// The buffers' addresses, each of at least the given size.
    fn fit(&mut self, r: &Rank, send: u64, recv: u64) -> Result<(u64, u64)> {
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
}

/// Serve one rank's calls until `MPI_Finalize`.
async fn serve(r: Rc<Rank>, mut sock: UnixStream, stop: Stop) -> Result<()> {
    let rank = r.rank();
    let mut last = "none, before MPI_Init".to_string();
    let mut bufs = Buffers { send: (0, 0), recv: (0, 0) };
    let mut pending = super::nb_wire::Pending::default();
    // Buffered reads: a request's header and payload usually come in one system call.
    let mut rd = BufReader::with_capacity(1 << 16, sock.try_clone().map_err(|e| io_err(rank, e))?);
    loop {
        let Some(req) = wire::read_request(&mut rd).map_err(|e| io_err(rank, e))? else {
            *stop.borrow_mut() = Some(ExternalOutcome::Lost { rank, after: last.clone() });
            return Err(program_err(format!("rank {rank}: its process ended without MPI_Finalize")));
        };
        let mut payload = Vec::new();
        let answer = match req.op {
            wire::OP_INIT => Answer { source: rank as i32, tag: r.size() as i32, value: r.wtick(), ..Answer::default() },
            wire::OP_FINALIZE => {
                wire::write_answer(&mut sock, &Answer::default(), &[]).map_err(|e| io_err(rank, e))?;
                return Ok(());
            }
            wire::OP_SEND => {
                let mut data = vec![0u8; req.len as usize];
                rd.read_exact(&mut data).map_err(|e| io_err(rank, e))?;
                let (ea, _) = bufs.fit(&r, req.len, 0)?;
                r.write(ea, &data)?;
                let code = r.send(ea, req.len as u32, req.a as usize, req.b, req.c as u32).await?;
                Answer { err: code as i32, ..Answer::default() }
            }
            wire::OP_RECV => {
                let (_, ea) = bufs.fit(&r, 0, req.len)?;
                let st = r.recv(ea, req.len as u32, req.a, req.b, req.c as u32).await?;
                payload = r.read(ea, st.bytes)?;
                Answer { err: st.error as i32, source: st.source as i32, tag: st.tag, count: st.bytes as u64, value: st.sent as f64 }
            }
            wire::OP_SENDRECV => {
                let mut data = vec![0u8; req.len as usize];
                rd.read_exact(&mut data).map_err(|e| io_err(rank, e))?;
                let word = |at: usize| i32::from_ne_bytes(data[at..at + 4].try_into().expect("4 bytes"));
                let (source, rtag) = (word(0), word(4));
                let cap = u64::from_ne_bytes(data[8..16].try_into().expect("8 bytes"));
                let sent = &data[16..];
                let (sea, rea) = bufs.fit(&r, sent.len() as u64, cap)?;
                r.write(sea, sent)?;
                let (_, st) =
                    r.sendrecv(sea, sent.len() as u32, req.a as usize, req.b, rea, cap as u32, source, rtag, req.c as u32).await?;
                payload = r.read(rea, st.bytes)?;
                Answer { err: st.error as i32, source: st.source as i32, tag: st.tag, count: st.bytes as u64, value: st.sent as f64 }
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
                // A scalar (non-vectorised) double-precision multiply-add is one DP instruction;
                // the first-generation SPU issues one every `reduce_dp_core_cycles_per_quadword`
                // cycles (seed 002 §2.1), the loads and stores dual-issued beside it.
                let per = match req.a {
                    wire::COMPUTE_CYCLES => 1,
                    wire::COMPUTE_DP_FMA => r.spu().with_machine(|m| m.p.reduce_dp_cycles_per_quadword),
                    k => return Err(Error::Internal(format!("rank {rank}: unknown compute kind {k}"))),
                };
                r.spu().compute(req.len.saturating_mul(per)).await;
                Answer::default()
            }
            wire::OP_ISEND..=wire::OP_WAITANY => pending.serve(&r, &req, &mut rd, &mut payload).await?,
            wire::OP_WTIME => Answer { value: r.wtime(), ..Answer::default() },
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
        last = describe(&req);
        wire::write_answer(&mut sock, &answer, &payload).map_err(|e| io_err(rank, e))?;
    }
}

/// The call a request made, for "ended after ...".
fn describe(req: &Request) -> String {
    match req.op {
        wire::OP_INIT => "MPI_Init".into(),
        wire::OP_SEND => format!("MPI_Send to {}, tag {}", req.a, req.b),
        wire::OP_RECV => format!("MPI_Recv from {}, tag {}", req.a, req.b),
        wire::OP_WTIME => "MPI_Wtime".into(),
        wire::OP_COMPUTE => "MPIX_Compute".into(),
        wire::OP_BARRIER => "MPI_Barrier".into(),
        wire::OP_SENDRECV => format!("MPI_Sendrecv to {}, tag {}", req.a, req.b),
        wire::OP_PROBE => format!("MPI_Probe from {}, tag {}", req.a, req.b),
        wire::OP_IPROBE => format!("MPI_Iprobe from {}, tag {}", req.a, req.b),
        wire::OP_ISEND => format!("MPI_Isend to {}, tag {}", req.a, req.b),
        wire::OP_IRECV => format!("MPI_Irecv from {}, tag {}", req.a, req.b),
        wire::OP_WAIT | wire::OP_WAITANY => "MPI_Wait".into(),
        wire::OP_TEST => "MPI_Test".into(),
        op => format!("request {op}"),
    }
}
