//! A rank process's nonblocking calls (`MPI_Isend`, `MPI_Issend`, `MPI_Irecv`, `MPI_Wait`, `MPI_Test`,
//! `MPI_Waitany`) served by its simulated rank's progress engine (`nonblocking.rs`). A request
//! holds a simulated buffer (from the top of the rank's heap) until no request is pending: a
//! send's bytes are copied in when it is posted, a receive's are read out when it completes.
//! Requests on the same buffer of the rank process share one simulated buffer, as they share the
//! memory on a real machine: a benchmark's window of 64 sends of one 1 MB buffer (osu_bw) needs
//! 1 MB, not 64. A send shares only a buffer that still holds its bytes.
//!
//! `MPI_Request_free` (`OP_REQUEST_FREE`) leaves the request in the engine, and in this table
//! with its simulated buffer, until it is done; after every call [`Pending::collect`] drops the
//! freed requests done meanwhile and keeps each freed receive's status and bytes, and the
//! call's answer carries `FLAG_FREED_DONE`, so the rank library fetches them (`OP_COLLECT`) and
//! copies the bytes into the program's buffer before the call returns to the program. What a
//! program can rely on: a freed receive's bytes are in its buffer by the time any later call
//! that completed after the receive matched has returned, so by the time a later message from
//! the same sender (messages between a pair do not overtake), or any later collective, has been
//! received; and at the latest when `MPI_Finalize` returns, which waits for every freed request.

use std::collections::HashMap;

use crate::error::{Error, Result};

use super::pending::Request;
use super::wire::{self, Answer, Order, ANSWER_BYTES};
use super::{Rank, Status};

/// The pending requests of one rank process, by wire handle.
pub(super) struct Pending {
    /// The rank's byte order: of the addresses, capacities and handles in its payloads, and of
    /// `OP_COLLECT`'s records.
    order: Order,
    reqs: HashMap<i32, (Request, Option<u64>)>,
    /// Simulated buffers by (the rank process's buffer address, is a send): address, bytes.
    shared: HashMap<(u64, bool), (u64, u64)>,
    /// Handles of freed requests not yet done.
    freed: Vec<i32>,
    /// Done freed receives not yet collected, as `OP_COLLECT`'s records.
    ready: Vec<u8>,
}

/// The answer to a call that received a message (its status in the answer's fields).
pub(super) fn received(st: &Status) -> Answer {
    Answer {
        err: st.error as i32,
        source: st.source as i32,
        tag: st.tag,
        count: st.bytes as u64,
        value: st.sent as f64,
        ..Answer::default()
    }
}

fn bad(rank: usize, what: String) -> Error {
    Error::Internal(format!("rank {rank}: {what}: the rank library and the simulator disagree"))
}

impl Pending {
    pub(super) fn new(order: Order) -> Pending {
        Pending { order, reqs: HashMap::new(), shared: HashMap::new(), freed: Vec::new(), ready: Vec::new() }
    }

    /// Serve one nonblocking request whose payload (a send's bytes, the handles of a waitany)
    /// is `data`; `payload` receives the answer's bytes.
    pub(super) async fn serve(&mut self, r: &Rank, req: &wire::Request, data: &[u8], payload: &mut Vec<u8>) -> Result<Answer> {
        let rank = r.rank();
        match req.op {
            wire::OP_ISEND | wire::OP_ISSEND => {
                let (host, bytes) = data.split_at_checked(8).ok_or_else(|| bad(rank, "a send without its buffer's address".into()))?;
                let ea = self.buffer(r, self.order.u64(host), bytes.len() as u64, Some(bytes))?;
                let q = r.isend_as(ea, bytes.len() as u32, req.a as usize, req.b, req.c as u32, req.op == wire::OP_ISSEND).await?;
                Ok(self.keep(q, None))
            }
            wire::OP_IRECV => {
                if data.len() != 16 {
                    return Err(bad(rank, format!("a receive's {} bytes of address and capacity (16 expected)", data.len())));
                }
                // What arrives, not what was posted, needs room: no more than there is
                // ([`Rank::largest_message`]; a request's buffer comes from what is free).
                let cap = self.order.u64(&data[8..]).min(r.largest_message()).min(r.largest_free());
                let ea = self.buffer(r, self.order.u64(&data[..8]), cap, None)?;
                let q = r.irecv(ea, cap as u32, req.a, req.b, req.c as u32)?;
                Ok(self.keep(q, Some(ea)))
            }
            wire::OP_WAIT | wire::OP_TEST => {
                let (q, buf) = *self.reqs.get(&req.a).ok_or_else(|| bad(rank, format!("request {} is not pending", req.a)))?;
                let st = if req.op == wire::OP_WAIT { Some(r.wait(q).await?) } else { r.test(q).await? };
                match st {
                    Some(st) => self.done(r, req.a, buf, st, payload),
                    None => Ok(Answer { source: wire::NO_MATCH, ..Answer::default() }),
                }
            }
            wire::OP_WAITANY => {
                let handles: Vec<i32> = data.chunks_exact(4).map(|c| self.order.i32(c)).collect();
                let mut qs = Vec::with_capacity(handles.len());
                for h in &handles {
                    qs.push(self.reqs.get(h).ok_or_else(|| bad(rank, format!("request {h} is not pending")))?.0);
                }
                let (k, st) = r.waitany(&qs).await?;
                let buf = self.reqs[&handles[k]].1;
                let mut answer = self.done(r, handles[k], buf, st, payload)?;
                answer.value = k as f64;
                Ok(answer)
            }
            wire::OP_REQUEST_FREE => {
                let (q, _) = *self.reqs.get(&req.a).ok_or_else(|| bad(rank, format!("request {} is not pending", req.a)))?;
                r.request_free(q)?;
                self.freed.push(req.a);
                Ok(Answer::default())
            }
            wire::OP_CANCEL => {
                let (q, _) = *self.reqs.get(&req.a).ok_or_else(|| bad(rank, format!("request {} is not pending", req.a)))?;
                Ok(Answer { value: f64::from(u8::from(r.cancel(q).await?)), ..Answer::default() })
            }
            wire::OP_COLLECT => {
                if req.a == wire::COLLECT_ALL {
                    self.finish(r).await?;
                }
                self.collect(r)?;
                *payload = std::mem::take(&mut self.ready);
                Ok(Answer { count: payload.len() as u64, ..Answer::default() })
            }
            op => Err(bad(rank, format!("request {op} is not a nonblocking call"))),
        }
    }

    /// The simulated buffer of `len` bytes for the rank process's buffer at `host`: the one
    /// pending requests on it already use if it is large enough (and, for a send, still holds
    /// `bytes`), else a new one.
    fn buffer(&mut self, r: &Rank, host: u64, len: u64, bytes: Option<&[u8]>) -> Result<u64> {
        let key = (host, bytes.is_some());
        if let Some(&(ea, cap)) = self.shared.get(&key) {
            let same = match bytes {
                Some(b) => r.read(ea, b.len() as u32)? == b,
                None => true,
            };
            if cap >= len && same {
                return Ok(ea);
            }
        }
        let ea = r.alloc_request(len)?;
        if let Some(b) = bytes {
            r.write(ea, b)?;
        }
        self.shared.insert(key, (ea, len));
        Ok(ea)
    }

    fn keep(&mut self, q: Request, buf: Option<u64>) -> Answer {
        let handle = q.id() as i32;
        self.reqs.insert(handle, (q, buf));
        Answer { tag: handle, ..Answer::default() }
    }

    /// A request is done: its receive's bytes go back, and with no request left the request
    /// buffers are free again.
    fn done(&mut self, r: &Rank, handle: i32, buf: Option<u64>, st: Status, payload: &mut Vec<u8>) -> Result<Answer> {
        self.reqs.remove(&handle);
        let answer = match buf {
            Some(ea) => {
                *payload = r.read(ea, st.bytes)?;
                received(&st)
            }
            None => Answer { source: st.source as i32, tag: st.tag, ..Answer::default() },
        };
        self.release(r);
        Ok(answer)
    }

    /// With no request left, the request buffers are free again.
    fn release(&mut self, r: &Rank) {
        if self.reqs.is_empty() {
            r.free_requests();
            self.shared.clear();
        }
    }

    /// Drop the freed requests that are done, keeping each receive's status and bytes for
    /// `OP_COLLECT`; whether any such are waiting (the answer's `FLAG_FREED_DONE`).
    pub(super) fn collect(&mut self, r: &Rank) -> Result<bool> {
        if !self.freed.is_empty() {
            for (q, st) in r.reap_freed() {
                let k = (self.freed.iter().position(|h| self.reqs.get(h).is_some_and(|e| e.0 == q)))
                    .ok_or_else(|| bad(r.rank(), format!("freed request {} is not in the table", q.id())))?;
                let handle = self.freed.swap_remove(k);
                if let Some((_, Some(ea))) = self.reqs.remove(&handle) {
                    let mut head = [0u8; ANSWER_BYTES];
                    wire::encode_answer(&Answer { flags: handle as u32, ..received(&st) }, &mut head, self.order);
                    self.ready.extend_from_slice(&head);
                    self.ready.extend_from_slice(&r.read(ea, st.bytes)?);
                }
            }
            self.release(r);
        }
        Ok(!self.ready.is_empty())
    }

    /// `MPI_Finalize`: run the engine until every freed request is done, then collect them.
    pub(super) async fn finish(&mut self, r: &Rank) -> Result<()> {
        if !self.freed.is_empty() {
            r.finish_freed().await?;
            self.collect(r)?;
        }
        Ok(())
    }
}
