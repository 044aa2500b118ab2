//! Lowering a schedule to SPE operations with the notification protocol of seed 000 §3.1.
//!
//! Every rank keeps, in its local store, an ADDR and an ACK array of one 16-byte entry per rank.
//! To announce that data is ready (or, for a barrier, just "I am here"), a rank writes a counter
//! into its entry of the reader's ADDR array with one 16-byte DMA; the reader polls that entry,
//! gets the data straight from the writer's local store, and acknowledges the same way into the
//! writer's ACK array. No locks: each entry has one writer.
//!
//! Per round a rank (1) waits, in ordered mode, for the acknowledgements of the previous round's
//! readers, (2) announces its sends, (3) waits for each announcement it needs and gets the data
//! (reductions land in a scratch buffer), (4) acknowledges, (5) reduces. In unordered mode
//! ("simple") a rank announces every later send as soon as it has received all it will receive.
//!
//! The other channels a transfer may name ([`Via`]):
//! - mailbox (§3.2): the announcement is the 64-bit effective address of the sender's buffer as
//!   two 32-bit messages into the reader's inbound mailbox, high word first, ordered by a fenced
//!   put; a notification or an ACK is one message carrying the sender's rank. The reader takes
//!   the FIFO in order. Messages from different senders may mix, but the two halves of an
//!   address must arrive back to back: another address's half between them is the corruption
//!   the seed describes, reported as an error (schedules put a barrier between rounds to rule it
//!   out). A full mailbox loses the message, as on the hardware, and the run deadlocks.
//! - signal: the sender ORs its rank's bit into the reader's signal register 1.
//! - atomic: the sender atomically increments the reader's counter line in main memory (XDRAM0,
//!   one 128-byte line per rank), which the reader polls with DMA gets.
//!
//! A receiver-initiated schedule (CML's messages, [`Protocol::ReceiverInitiated`]) uses the same
//! arrays the other way round: the receiver posts a receive by writing a request into the
//! sender's ACK array, the sender waits for it, puts the data into the receiver's buffer (a
//! reduction's into its scratch), waits for the put, and writes a completion into the
//! receiver's ADDR array. A receive is posted as soon as the range it lands in is free: at the
//! start of the round after the last one in which the receiver used that range, a zero-byte
//! message's at the start of the call. Each end of a message runs the library's per-message
//! code once: the receiver as it posts, the sender as it answers the request.

use std::cell::Cell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use crate::error::{program_err, Result};
use crate::machine::memory::{LS_WINDOW, SPE_STRIDE};
use crate::spu::{AtomicOp, Spu};

use super::data::{combine, Dtype, ReduceOp};
use super::schedule::{Action, Protocol, Schedule, Via, Xfer};

const MAX_DMA: u32 = 16384;
/// Which way a data transfer between two local stores goes, seen from the rank that issues it.
#[derive(Clone, Copy)]
enum Way {
    Get,
    Put,
}
const DATA_TAG: u32 = 0;
/// Polls of an atomic counter in main memory.
const POLL_TAG: u32 = 1;
/// Notifications to peer q use tag NOTE_TAG + q, so only a notification to the same peer waits.
const NOTE_TAG: u32 = 2;
/// Mailbox words: an ACK or a notification carries the sender's rank under its marker. The
/// high word of a local-store address is `LS_WINDOW >> 32`, the low word is below 2^24, so
/// neither can be taken for a marked word.
const MBOX_ACK: u32 = 0xAC00_0000;
const MBOX_NOTE: u32 = 0xB000_0000;
const MBOX_MARK: u32 = 0xFF00_0000;
const EA_HIGH: u32 = (LS_WINDOW >> 32) as u32;

/// Local-store layout, the same on every rank so peers' addresses are known.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub buf: u32,
    pub tmp: u32,
    pub addr: u32,
    pub ack: u32,
    /// One outgoing quadword per peer and kind, so a word never changes while its DMA is queued.
    pub out: u32,
    /// A 128-byte line for getllar/putllc (atomic notifications).
    pub line: u32,
}

impl Layout {
    /// The array where `kind` (ADDR or ACK) notifications land, a quadword per peer.
    fn notes(&self, kind: usize) -> u32 {
        if kind == ADDR {
            self.addr
        } else {
            self.ack
        }
    }

    /// Local-store bytes schedule `s` takes on each SPE: the buffer, a scratch buffer of the
    /// same size if it reduces, and the notification arrays.
    pub fn footprint(s: &Schedule) -> u64 {
        let buffer = u64::from(s.buffer.max(16)).next_multiple_of(128);
        let scratch = if s.reduces() { buffer } else { 0 };
        let line = if s.uses(Via::Atomic) { 128 } else { 0 };
        buffer + scratch + 4 * 16 * s.p as u64 + line
    }

    /// Allocate the layout for `s` on `spu`; a collective that does not fit fails here.
    pub fn alloc(spu: &Spu, s: &Schedule) -> Result<Layout> {
        let need = Self::footprint(s);
        let (p, buffer, what) = (s.p, s.buffer, &s.algorithm);
        let fail = |e: crate::error::Error| program_err(format!("{what}: needs {need} bytes of local store on spe {}: {e}", spu.spe_id()));
        let buf = spu.ls_alloc(buffer.max(16), 128).map_err(fail)?;
        // Only reductions land in scratch first.
        let tmp = if s.reduces() { spu.ls_alloc(buffer.max(16), 128).map_err(fail)? } else { buf };
        let addr = spu.ls_alloc(16 * p as u32, 16).map_err(fail)?;
        let ack = spu.ls_alloc(16 * p as u32, 16).map_err(fail)?;
        let out = spu.ls_alloc(2 * 16 * p as u32, 16).map_err(fail)?;
        let line = if s.uses(Via::Atomic) { spu.ls_alloc(128, 128).map_err(fail)? } else { out };
        Ok(Layout { buf, tmp, addr, ack, out, line })
    }
}

/// What a collective's SPU work costs, from the machine file.
#[derive(Debug, Clone, Copy)]
pub struct Costs {
    /// Core cycles to combine one 16-byte quadword.
    pub reduce_cycles: u64,
    /// Core cycles to copy one quadword within the local store.
    pub copy_cycles: u64,
    /// Core cycles of control code a call that notifies through signal registers runs once.
    pub signal_call_cycles: u64,
    /// Core cycles of CML's code at each end of a receiver-initiated message.
    pub message_cycles: u64,
}

impl Costs {
    /// The costs the machine file gives for reductions of `dtype`.
    pub fn of(file: &crate::machine::config::MachineFile, dtype: Dtype) -> Costs {
        let spu = &file.spu;
        Costs {
            reduce_cycles: dtype.reduce_cycles_per_quadword(&crate::machine::config::Params::resolve(file)),
            copy_cycles: spu.copy_core_cycles_per_quadword,
            signal_call_cycles: spu.signal_call_core_cycles,
            message_cycles: spu.cml_message_core_cycles,
        }
    }
}

/// A wait a [`Watch`] does for the library.
pub type WaitFuture<'a> = Pin<Box<dyn Future<Output = Result<()>> + 'a>>;

/// Who follows a rank's notifications (an MPI job's deadlock tracker): `kind` is 0 for an
/// ADDR, 1 for an ACK; counts run from the rank's first call, as its entries' counters do.
pub trait Watch {
    /// `from` has sent its `n`-th notification of `kind` to `to`.
    fn notified(&self, from: usize, to: usize, kind: usize, n: u32);
    /// `me` waits for `peer`'s notification number `want` of `kind` (called on every poll of a
    /// local-store entry); an error ends the wait and the call. Polls are skipped until
    /// something writes into `me`'s local store or marks its SPE ([`Spu::poll_ls_u32`]), so
    /// every change that could alter the answer must mark it.
    fn waiting(&self, me: usize, peer: usize, kind: usize, want: u32) -> Result<()>;
    /// `me` has its notification and runs again.
    fn resumed(&self, me: usize);
    /// When the watcher has work of its own that must go on while `me` waits (an MPI rank's
    /// pending nonblocking requests), the wait for the local-store word `entry` to reach `want`,
    /// done by it; `None` to leave the wait to the library.
    fn wait_for(&self, me: usize, peer: usize, kind: usize, want: u32, entry: u32) -> Option<WaitFuture<'_>>;
}

/// One rank's state across collective calls: the counters that make ADDR/ACK entries reusable.
pub struct Rank {
    /// Told of every notification sent and awaited, when set.
    pub watch: Option<Rc<dyn Watch>>,
    pub spu: Spu,
    pub rank: usize,
    pub spes: Vec<usize>,
    pub layout: Layout,
    sent: Vec<[u32; 2]>,
    seen: Vec<[u32; 2]>,
    pub dtype: Dtype,
    pub rop: ReduceOp,
    pub costs: Costs,
    /// Effective address of rank 0's atomic counter line; rank r's is 128 r bytes further.
    pub counters: u64,
    /// Atomic notifications awaited so far: the value our counter must reach.
    atomic_seen: u32,
    /// Signal bits read but not yet consumed.
    signal_bits: u32,
    /// Complete mailbox messages read but not yet consumed: (kind, sender rank).
    mailbox: VecDeque<(usize, usize)>,
    /// Notification tag groups with a put issued since their last wait: only those are waited
    /// for before their outgoing word is written again.
    unconfirmed: u32,
}

const ADDR: usize = 0;
const ACK: usize = 1;

/// The (kind, sender rank) of a one-word mailbox message (an ACK or a notification); None for
/// a half of an address.
fn marked(word: u32) -> Option<(usize, usize)> {
    let sender = (word & !MBOX_MARK) as usize;
    match word & MBOX_MARK {
        MBOX_ACK => Some((ACK, sender)),
        MBOX_NOTE => Some((ADDR, sender)),
        _ => None,
    }
}

impl Rank {
    #[allow(clippy::too_many_arguments)]
    pub fn new(spu: Spu, rank: usize, spes: Vec<usize>, layout: Layout, dtype: Dtype, rop: ReduceOp, costs: Costs, counters: u64) -> Rank {
        let p = spes.len();
        Rank {
            watch: None,
            spu,
            rank,
            spes,
            layout,
            sent: vec![[0; 2]; p],
            seen: vec![[0; 2]; p],
            dtype,
            rop,
            costs,
            counters,
            atomic_seen: 0,
            signal_bits: 0,
            mailbox: VecDeque::new(),
            unconfirmed: 0,
        }
    }

    /// Tell `peer` our next ADDR or ACK through `via`; an ADDR announces `data` or, without,
    /// only notifies.
    async fn notify(&mut self, peer: usize, kind: usize, via: Via, data: bool) -> Result<()> {
        self.sent[peer][kind] += 1;
        if let Some(w) = &self.watch {
            w.notified(self.rank, peer, kind, self.sent[peer][kind]);
        }
        // ADDR through a mailbox may use both of the peer's quadwords (see below).
        let word = self.layout.out + 16 * (2 * peer + if via == Via::Mailbox { 0 } else { kind }) as u32;
        // The previous notification from this word must have left before we overwrite it. The
        // rank knows which tag groups it has put to since it last waited on them; it waits
        // only on those, as code that tracks its own puts does.
        let tag = NOTE_TAG + peer as u32;
        if self.unconfirmed & (1 << tag) != 0 {
            self.spu.mfc_write_tag_mask(1 << tag);
            self.spu.mfc_read_tag_status_all().await?;
            self.unconfirmed &= !(1 << tag);
        }
        if via != Via::Atomic {
            self.unconfirmed |= 1 << tag;
        }
        let spe = self.spes[peer];
        match (via, kind) {
            (Via::Signal, ADDR) => self.spu.signal_remote(word, spe, 1, 1 << self.rank, tag).await,
            (Via::Atomic, ADDR) => {
                self.spu.atomic_rmw(self.layout.line, self.counters + 128 * peer as u64, AtomicOp::Add(1)).await?;
                Ok(())
            }
            (Via::Mailbox, ADDR) if !data => self.spu.write_remote_in_mbox(word, spe, MBOX_NOTE | self.rank as u32, tag).await,
            (Via::Mailbox, ADDR) => {
                // The two halves from two quadwords (both idle: the tag group has drained), the
                // low half fenced behind the high one.
                let ea = Spu::ls_ea(self.spes[self.rank], self.layout.buf);
                self.spu.write_remote_in_mbox(word, spe, (ea >> 32) as u32, tag).await?;
                self.spu.write_remote_in_mboxf(word + 16, spe, ea as u32, tag).await
            }
            (Via::Mailbox, _) => self.spu.write_remote_in_mbox(word, spe, MBOX_ACK | self.rank as u32, tag).await,
            _ => {
                self.spu.ls_write_u32(word, self.sent[peer][kind])?;
                let ea = Spu::ls_ea(spe, self.layout.notes(kind) + 16 * self.rank as u32);
                self.spu.mfc_put(word, ea, 16, tag).await
            }
        }
    }

    /// Wait for `peer`'s next ADDR or ACK through `via`.
    async fn await_note(&mut self, peer: usize, kind: usize, via: Via) -> Result<()> {
        self.seen[peer][kind] += 1;
        let want = self.seen[peer][kind];
        match (via, kind) {
            (Via::Signal, ADDR) => {
                while self.signal_bits & (1 << peer) == 0 {
                    self.signal_bits |= self.spu.spu_read_signal1().await?;
                }
                self.signal_bits &= !(1 << peer);
                Ok(())
            }
            (Via::Atomic, ADDR) => {
                // All notifications to us land on one counter: wait for the total expected.
                // Polled with plain DMA gets, which leave the senders' lock-line reservations
                // alone (polling with getllar would take the line from them and starve them).
                self.atomic_seen += 1;
                let total = self.atomic_seen;
                let counter = self.counters + 128 * self.rank as u64;
                self.spu.mfc_write_tag_mask(1 << POLL_TAG);
                loop {
                    self.spu.mfc_get(self.layout.line, counter, 16, POLL_TAG).await?;
                    self.spu.mfc_read_tag_status_all().await?;
                    if self.spu.ls_read_u32(self.layout.line)? >= total {
                        return Ok(());
                    }
                }
            }
            (Via::Mailbox, _) => self.await_mailbox(peer, kind).await,
            _ => {
                let entry = self.layout.notes(kind) + 16 * peer as u32;
                let Some(w) = &self.watch else {
                    self.spu.poll_ls_u32(entry, |v| v >= want).await?;
                    return Ok(());
                };
                let me = self.rank;
                if let Some(wait) = w.wait_for(me, peer, kind, want, entry) {
                    return wait.await;
                }
                // The watcher is asked on every poll; its error stops the polling.
                let failed = Cell::new(None);
                self.spu
                    .poll_ls_u32(entry, |v| v >= want || w.waiting(me, peer, kind, want).map_err(|e| failed.set(Some(e))).is_err())
                    .await?;
                if let Some(e) = failed.take() {
                    return Err(e);
                }
                w.resumed(me);
                Ok(())
            }
        }
    }

    /// Read our inbound mailbox until `peer`'s next message of `kind` has come.
    async fn await_mailbox(&mut self, peer: usize, kind: usize) -> Result<()> {
        let me = self.spes[self.rank];
        loop {
            if let Some(i) = self.mailbox.iter().position(|&m| m == (kind, peer)) {
                self.mailbox.remove(i);
                return Ok(());
            }
            let word = self.spu.spu_read_in_mbox().await?;
            let message = match marked(word) {
                Some(m) => m,
                None if word == EA_HIGH => {
                    let low = loop {
                        let w = self.spu.spu_read_in_mbox().await?;
                        match marked(w) {
                            Some(m) => self.mailbox.push_back(m),
                            None if w == EA_HIGH => return Err(program_err(format!("spe {me}: two 64-bit addresses interleaved in its inbound mailbox (a barrier between rounds prevents this)"))),
                            None => break w,
                        }
                    };
                    let spe = ((((EA_HIGH as u64) << 32 | low as u64) - LS_WINDOW) / SPE_STRIDE) as usize;
                    let sender = self
                        .spes
                        .iter()
                        .position(|&s| s == spe)
                        .ok_or_else(|| program_err(format!("spe {me}: mailbox address {low:#x} names no rank")))?;
                    (ADDR, sender)
                }
                None => {
                    return Err(program_err(format!(
                        "spe {me}: unexpected word {word:#x} in its inbound mailbox (the low half of an address without its high half)"
                    )))
                }
            };
            self.mailbox.push_back(message);
        }
    }

    async fn get(&self, lsa: u32, peer: usize, src: u32, bytes: u32) -> Result<()> {
        self.dma(Way::Get, lsa, peer, src, bytes).await
    }

    /// Move `bytes` between our `lsa` and `peer`'s local store at `remote`, in DMAs of at most
    /// 16 KB: a get brings them here, a put sends them there.
    async fn dma(&self, way: Way, lsa: u32, peer: usize, remote: u32, bytes: u32) -> Result<()> {
        let ea = Spu::ls_ea(self.spes[peer], remote);
        let mut off = 0;
        while off < bytes {
            let n = (bytes - off).min(MAX_DMA);
            match way {
                Way::Get => self.spu.mfc_get(lsa + off, ea + off as u64, n, DATA_TAG).await?,
                Way::Put => self.spu.mfc_put(lsa + off, ea + off as u64, n, DATA_TAG).await?,
            }
            off += n;
        }
        Ok(())
    }

    /// Wait until every reader of our round-`k` sends has acknowledged, once per round.
    async fn await_readers(&mut self, s: &Schedule, k: usize, acked: &mut [bool]) -> Result<()> {
        if acked[k] {
            return Ok(());
        }
        acked[k] = true;
        let me = self.rank;
        for x in s.rounds[k].iter().filter(|x| x.src == me && !x.is_local() && x.action != Action::Notify) {
            self.await_note(x.dst, ACK, x.via).await?;
        }
        Ok(())
    }

    /// Copy within our own buffer with the SPU (a local transfer).
    async fn local_copy(&self, x: &Xfer) -> Result<()> {
        let data = self.spu.ls_read(self.layout.buf + x.src_offset, x.bytes)?;
        self.spu.ls_write(self.layout.buf + x.dst_offset, &data)?;
        self.spu.compute(self.costs.copy_cycles * x.bytes.div_ceil(16) as u64).await;
        Ok(())
    }

    /// Run one call of the collective `s`.
    pub async fn run(&mut self, s: &Schedule) -> Result<()> {
        let me = self.rank;
        if s.uses(Via::Signal) {
            self.spu.compute(self.costs.signal_call_cycles).await;
        }
        if s.protocol == Protocol::ReceiverInitiated {
            return self.run_receiver_initiated(s).await;
        }
        let last_recv = s.rounds.iter().rposition(|r| r.iter().any(|x| x.dst == me && !x.is_local()));
        let mut announced_through = None::<usize>;
        let mut acked = vec![false; s.rounds.len()];
        for (k, round) in s.rounds.iter().enumerate() {
            // (1) ordered: the readers of my previous round are done with my buffer.
            if s.ordered && k > 0 {
                self.await_readers(s, k - 1, &mut acked).await?;
            }
            // (2) announce.
            let upto = if !s.ordered && last_recv.is_none_or(|l| k > l) { s.rounds.len() - 1 } else { k };
            if announced_through.is_none_or(|a| a < upto) {
                let from = announced_through.map_or(0, |a| a + 1).max(k);
                for r in from..=upto {
                    for x in s.rounds[r].iter().filter(|x| x.src == me && !x.is_local()) {
                        self.notify(x.dst, ADDR, x.via, x.action != Action::Notify).await?;
                    }
                }
                announced_through = Some(upto);
            }
            // (3) local copies (they read the buffer as the round found it), then receive.
            for x in round.iter().filter(|x| x.dst == me && x.is_local()) {
                self.local_copy(x).await?;
            }
            let recvs: Vec<_> = round.iter().filter(|x| x.dst == me && !x.is_local()).copied().collect();
            for x in &recvs {
                self.await_note(x.src, ADDR, x.via).await?;
                match x.action {
                    Action::Notify => {}
                    Action::Copy => self.get(self.layout.buf + x.dst_offset, x.src, self.layout.buf + x.src_offset, x.bytes).await?,
                    Action::Reduce => self.get(self.layout.tmp + x.dst_offset, x.src, self.layout.buf + x.src_offset, x.bytes).await?,
                }
            }
            // Only gets need waiting for: a round that only notifies has none in flight.
            if recvs.iter().any(|x| x.action != Action::Notify) {
                self.spu.mfc_write_tag_mask(1 << DATA_TAG);
                self.spu.mfc_read_tag_status_all().await?;
            }
            // (4) acknowledge.
            for x in recvs.iter().filter(|x| x.action != Action::Notify) {
                self.notify(x.src, ACK, x.via, false).await?;
            }
            // (5) reduce, once this round's readers no longer need the old values.
            if recvs.iter().any(|x| x.action == Action::Reduce) {
                self.await_readers(s, k, &mut acked).await?;
            }
            for x in recvs.iter().filter(|x| x.action == Action::Reduce) {
                let (d, t) = (self.layout.buf + x.dst_offset, self.layout.tmp + x.dst_offset);
                let mut acc = self.spu.ls_read(d, x.bytes)?;
                combine(self.dtype, self.rop, &mut acc, &self.spu.ls_read(t, x.bytes)?);
                self.spu.ls_write(d, &acc)?;
                self.spu.compute(self.costs.reduce_cycles * x.bytes.div_ceil(16) as u64).await;
            }
        }
        // Before the next call may touch the buffer, every reader is done. Notifications still
        // in flight are waited for when their word is next written (see `notify`).
        for k in 0..s.rounds.len() {
            self.await_readers(s, k, &mut acked).await?;
        }
        Ok(())
    }

    /// Run one call of `s` with receiver-initiated messages (see the module docs).
    async fn run_receiver_initiated(&mut self, s: &Schedule) -> Result<()> {
        let me = self.rank;
        let posts = post_rounds(s, me);
        for (k, round) in s.rounds.iter().enumerate() {
            // Post the receives whose ranges are free from this round on.
            for x in posts.iter().filter(|&&(at, _)| at == k).map(|&(_, x)| x) {
                self.spu.compute(self.costs.message_cycles).await;
                self.notify(x.src, ACK, x.via, false).await?;
            }
            for x in round.iter().filter(|x| x.dst == me && x.is_local()) {
                self.local_copy(x).await?;
            }
            // Send: each request answered with the data, then, once the puts are done (the
            // buffer may change after this round), the completions.
            let sends: Vec<_> = round.iter().filter(|x| x.src == me && !x.is_local()).copied().collect();
            for x in &sends {
                self.await_note(x.dst, ACK, x.via).await?;
                self.spu.compute(self.costs.message_cycles).await;
                let into = if x.action == Action::Reduce { self.layout.tmp } else { self.layout.buf };
                self.put(self.layout.buf + x.src_offset, x.dst, into + x.dst_offset, x.bytes).await?;
            }
            if sends.iter().any(|x| x.action != Action::Notify) {
                self.spu.mfc_write_tag_mask(1 << DATA_TAG);
                self.spu.mfc_read_tag_status_all().await?;
            }
            for x in &sends {
                self.notify(x.dst, ADDR, x.via, false).await?;
            }
            // Receive: wait for each completion, then combine.
            let recvs: Vec<_> = round.iter().filter(|x| x.dst == me && !x.is_local()).copied().collect();
            for x in &recvs {
                self.await_note(x.src, ADDR, x.via).await?;
            }
            for x in recvs.iter().filter(|x| x.action == Action::Reduce) {
                self.combine_scratch(x).await?;
            }
        }
        Ok(())
    }

    /// Put `bytes` from our `lsa` into `peer`'s local store at `dst`, in DMAs of at most 16 KB.
    async fn put(&self, lsa: u32, peer: usize, dst: u32, bytes: u32) -> Result<()> {
        self.dma(Way::Put, lsa, peer, dst, bytes).await
    }

    /// Combine what transfer `x` left in our scratch buffer into our buffer.
    async fn combine_scratch(&self, x: &Xfer) -> Result<()> {
        let (d, t) = (self.layout.buf + x.dst_offset, self.layout.tmp + x.dst_offset);
        let mut acc = self.spu.ls_read(d, x.bytes)?;
        combine(self.dtype, self.rop, &mut acc, &self.spu.ls_read(t, x.bytes)?);
        self.spu.ls_write(d, &acc)?;
        self.spu.compute(self.costs.reduce_cycles * x.bytes.div_ceil(16) as u64).await;
        Ok(())
    }
}

/// Where `me` posts each of its receives in a receiver-initiated run of `s`: (round, transfer),
/// in the schedule's order. A receive lands in our buffer (a copy) or our scratch (a
/// reduction); it is posted at the start of the round after the last earlier round in which we
/// used an overlapping range of that area (sent from it, received into it, copied within it,
/// combined into it), so the sender may put at once without overwriting what we still read.
fn post_rounds(s: &Schedule, me: usize) -> Vec<(usize, Xfer)> {
    const BUF: u8 = 0;
    const TMP: u8 = 1;
    // The ranges of each area we use in each round.
    let uses = |round: &[Xfer]| -> Vec<(u8, u32, u32)> {
        let mut u = Vec::new();
        for x in round {
            if x.is_local() && x.dst == me {
                u.push((BUF, x.src_offset, x.bytes));
                u.push((BUF, x.dst_offset, x.bytes));
            } else if x.src == me && x.action != Action::Notify {
                u.push((BUF, x.src_offset, x.bytes));
            } else if x.dst == me && x.action == Action::Copy {
                u.push((BUF, x.dst_offset, x.bytes));
            } else if x.dst == me && x.action == Action::Reduce {
                u.push((TMP, x.dst_offset, x.bytes));
                u.push((BUF, x.dst_offset, x.bytes));
            }
        }
        u
    };
    let used: Vec<_> = s.rounds.iter().map(|r| uses(r)).collect();
    let mut out = Vec::new();
    for (k, round) in s.rounds.iter().enumerate() {
        for x in round.iter().filter(|x| x.dst == me && !x.is_local()) {
            let at = match x.action {
                Action::Notify => 0,
                a => {
                    let area = if a == Action::Reduce { TMP } else { BUF };
                    let overlaps = |&(ar, off, n): &(u8, u32, u32)| ar == area && off < x.dst_offset + x.bytes && x.dst_offset < off + n;
                    (0..k).rev().find(|&j| used[j].iter().any(overlaps)).map_or(0, |j| j + 1)
                }
            };
            out.push((at, *x));
        }
    }
    out
}
