//! One MPI rank on one SPE: seed 004 §3.3's synchronous-mode send and receive.
//!
//! Send from i to j: stage the meta-data entry (flag set) in the local store, DMA its 128 bytes
//! into B_ij in j's local store, wait for the DMA, then wait for j's signal, which carries the
//! error code. Receive on j: poll the flags of the entries that can match (one for a specific
//! source; every sender in round-robin order for `MPI_ANY_SOURCE`), check tag and communicator,
//! move the data, unset the flag, signal the sender. A flagged entry whose tag or communicator
//! does not match is parked (see below), and a receive looks at the parked messages first, so a
//! sender's messages that match the same receive are still taken in the order sent.
//!
//! Buffered mode (seed 004 §7, "buffered mode for short messages"; off unless the machine file's
//! `mpi.buffered_bytes` is set): a message that small travels inside the entry and the send
//! returns once the entry has landed. The receiver copies it out, unsets the flag and sets its
//! own bit in the sender's signal register 2 (OR mode). The sender's next message to that
//! receiver, buffered or not, first waits for that bit, so B_ij still holds one message at a
//! time and messages stay non-overtaking. `MPI_Ssend` and `MPI_Issend` are never buffered: a
//! synchronous send completes only once the receiver has matched it. Every send and receive is
//! charged the SPU's own code, `mpi.call_core_cycles`.
//!
//! A flagged entry that matches no posted receive is not left in the way of the pair's later
//! messages: the receiver parks it in its unexpected queue (`unexpected.rs`, with its costs),
//! which every receive and probe looks at first.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::{config_err, program_err, Result};
use crate::machine::memory::{reg, Memory};
use crate::sim::{Time, TICKS_PER_SECOND};
use crate::spu::Spu;

use super::heap::Area;
use super::layout::{self, meta, tag, BOOT_BYTES, BOOT_LS, META_BYTES, OUT_META, SIG_SCRATCH};
use super::startup::Boot;
use super::tracker::Tracker;
use super::unexpected::{Parked, Queues};
use super::{code, transfer, Mode, ANY_SOURCE, ANY_TAG, MAX_RANKS};

/// How [`Rank::post`] sends a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Posting {
    /// The receiver acknowledges with its bit in signal 2 (a nonblocking send, one of several
    /// in flight) instead of the code in signal 1.
    pub ack2: bool,
    /// `MPI_Ssend`/`MPI_Issend`: never buffered, whatever `mpi.buffered_bytes` says, so the
    /// send completes only once the receiver has matched it.
    pub synchronous: bool,
    /// A nonblocking send's index among this rank's parked sends to the receiver (`unexpected.rs`).
    pub index: u32,
}

/// What a receive matched (MPI_Status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub source: usize,
    pub tag: i32,
    /// Bytes delivered into the receive buffer.
    pub bytes: u32,
    /// Bytes the sender sent (more than `bytes` when truncated).
    pub sent: u32,
    /// `code::SUCCESS` or `code::ERR_TRUNCATE`.
    pub error: u32,
}

/// A rank's handle: its SPE and what `MPI_Init` read from the boot structure.
pub struct Rank {
    spu: Spu,
    pub(super) boot: Boot,
    pub(super) tracker: Rc<Tracker>,
    /// The next sender an `MPI_ANY_SOURCE` scan looks at first.
    pub(super) rr: Cell<usize>,
    /// Entries (a bit per receiver and context, `layout::slot_bit`) that still hold this rank's
    /// buffered or nonblocking message: their bit in signal register 2 frees them.
    pub(super) busy: Cell<u32>,
    /// Nonblocking requests (`nonblocking.rs`), by handle.
    pub(super) reqs: RefCell<Vec<Option<super::pending::Req>>>,
    /// The handles of queued sends (`nonblocking.rs`), per entry (`layout::slot_bit`) in posting
    /// order; one that left the queue otherwise (cancelled) stays until it reaches the front.
    pub(super) queued: RefCell<Vec<(u32, std::collections::VecDeque<usize>)>>,
    /// The receives still pending, in posting order, as a pass of the engine reads them: kept
    /// until a receive is posted or completes, so that a pass over thousands of waiting
    /// requests does not read every request again (`nonblocking.rs`).
    pub(super) pending_recvs: RefCell<Option<Rc<Vec<super::nonblocking::Pending>>>>,
    /// Whether a send may be parked at its receiver (`nonblocking.rs`): false, no pass looks.
    pub(super) maybe_parked: Cell<bool>,
    /// Every rank's unexpected queue (messages out of their entries that no receive matched
    /// yet, oldest first): this rank's is [`Rank::parked`].
    queues: Rc<Queues>,
    /// Per sender, the completion word this rank last wrote into that sender's local store.
    pub(super) written: RefCell<[u32; MAX_RANKS]>,
    /// Per receiver, the completion word as this rank last took note of it.
    pub(super) seen: RefCell<[u32; MAX_RANKS]>,
    /// The main-memory heap's areas, nearest first, and the local store's.
    heap: Vec<Area>,
    ls_heap: Area,
    label: RefCell<Option<String>>,
}

impl Rank {
    /// `MPI_Init` (§3.2): read the boot structure's address from the inbound mailbox, DMA the
    /// structure into the local store and take the rank, size, mode and signal addresses from it.
    pub(super) async fn init(spu: Spu, tracker: Rc<Tracker>, queues: Rc<Queues>) -> Result<Rank> {
        // The boot structure lands inside the area reserved below, once its size is known.
        let ea = spu.spu_read_in_mbox().await? as u64;
        spu.mfc_get(BOOT_LS, ea, BOOT_BYTES, tag::BOOT).await?;
        spu.mfc_write_tag_mask(1 << tag::BOOT);
        spu.mfc_read_tag_status_all().await?;
        let boot = Boot::decode(&spu.ls_read(BOOT_LS, BOOT_BYTES)?);
        let at = spu.ls_alloc(layout::reserved_ls(boot.depth), 128)?;
        if at != 0 {
            return Err(program_err(format!("spe {}: MPI_Init must come before any local-store allocation", spu.spe_id())));
        }
        let spe = spu.spe_id();
        let (heap, ls_heap) = spu.with_machine(|m| (layout::heap(&m.mem, spe, &boot.spes), layout::ls_heap(m.p.ls_bytes, spe, boot.depth)));
        Ok(Rank {
            spu,
            boot,
            tracker,
            rr: Cell::new(0),
            busy: Cell::new(0),
            reqs: RefCell::new(Vec::new()),
            queued: RefCell::new(Vec::new()),
            pending_recvs: RefCell::new(None),
            maybe_parked: Cell::new(false),
            queues,
            written: RefCell::default(),
            seen: RefCell::default(),
            heap: heap.into_iter().map(Area::new).collect(),
            ls_heap: Area::new(ls_heap),
            label: RefCell::new(None),
        })
    }

    pub fn rank(&self) -> usize {
        self.boot.rank
    }

    /// This rank's unexpected queue.
    pub(super) fn parked(&self) -> &RefCell<Vec<Parked>> {
        self.queues.of(self.boot.rank)
    }

    /// `receiver`'s unexpected queue (a cancelling sender marks its message there).
    pub(super) fn parked_at(&self, receiver: usize) -> &RefCell<Vec<Parked>> {
        self.queues.of(receiver)
    }

    pub fn size(&self) -> usize {
        self.boot.size
    }

    pub fn mode(&self) -> Mode {
        self.boot.mode
    }

    pub fn spu(&self) -> &Spu {
        &self.spu
    }

    /// The physical SPE of every rank.
    pub fn spes(&self) -> &[usize] {
        &self.boot.spes
    }

    /// Take `bytes` off the top of the local-store heap (the collective library's area, at the
    /// same offset on every rank); returns its local-store offset. Before any allocation there.
    pub(crate) fn reserve_ls_top(&self, bytes: u32) -> Result<u32> {
        let top = self.ls_heap.reserve_top(u64::from(bytes)).ok_or_else(|| {
            program_err(format!("rank {}: the collective library's {bytes} bytes do not fit the local store", self.boot.rank))
        })?;
        Ok((top - Memory::ls_ea(self.spu.spe_id(), 0)) as u32)
    }

    /// `MPI_Wtime`: seconds since the run began, read from the decrementer (so in steps of
    /// `wtick`).
    pub fn wtime(&self) -> f64 {
        let hz = self.spu.with_machine(|m| m.p.decrementer_hz);
        let ticks = self.spu.now().0 as u128 * hz as u128 / TICKS_PER_SECOND as u128;
        ticks as f64 / hz as f64
    }

    /// `MPI_Wtick`: one decrementer period in seconds.
    pub fn wtick(&self) -> f64 {
        1.0 / self.spu.with_machine(|m| m.p.decrementer_hz) as f64
    }

    /// The areas where the mode keeps message buffers, in the order they are used, and their name.
    fn areas(&self) -> (&[Area], &'static str) {
        match self.boot.mode {
            Mode::Memory => (&self.heap, "main-memory heap"),
            Mode::Ls => (std::slice::from_ref(&self.ls_heap), "local store (ls mode keeps message buffers there)"),
        }
    }

    /// Reserve a message buffer of `bytes` (128-byte aligned) where the mode keeps buffers: in
    /// this rank's main-memory heap, or its local store in ls mode. Buffers live for the run.
    pub fn alloc(&self, bytes: u64) -> Result<u64> {
        let (areas, place) = self.areas();
        areas.iter().find_map(|a| a.alloc(bytes)).ok_or_else(|| {
            program_err(format!(
                "rank {}: a {bytes}-byte buffer does not fit its {place}: {} bytes are free",
                self.boot.rank,
                self.largest_free()
            ))
        })
    }

    /// Reserve a buffer of `bytes` for a nonblocking request, from the top of the heap down, so
    /// that [`Rank::free_all`] leaves it alone; [`Rank::free_requests`] releases them all.
    pub fn alloc_request(&self, bytes: u64) -> Result<u64> {
        let (areas, _) = self.areas();
        areas.iter().find_map(|a| a.alloc_top(bytes)).ok_or_else(|| {
            program_err(format!(
                "rank {}: a {bytes}-byte request buffer does not fit: {} bytes are free",
                self.boot.rank,
                self.largest_free()
            ))
        })
    }

    /// The largest message an area of the mode could ever hold: no send is larger, so neither
    /// is any receive's need, whatever capacity it was posted with.
    pub fn largest_message(&self) -> u64 {
        self.areas().0.iter().map(Area::size).max().unwrap_or(0)
    }

    /// Refuse a message of `bytes` that no area of the mode could ever hold, before its bytes
    /// are read from the rank's process into host memory.
    pub fn refuse_oversized(&self, bytes: u64) -> Result<()> {
        let (most, place) = (self.largest_message(), self.areas().1);
        if bytes <= most {
            return Ok(());
        }
        Err(program_err(format!("rank {}: a {bytes}-byte message does not fit its {place}: it holds at most {most} bytes", self.boot.rank)))
    }

    /// The largest buffer that would still fit.
    pub(super) fn largest_free(&self) -> u64 {
        self.areas().0.iter().map(Area::free).max().unwrap_or(0)
    }

    /// Lend `bytes` of the mode's areas (nearest first) to the unexpected queue for `what` (a
    /// parked message); the area's index. None free: the error names the message, the bytes,
    /// what is free and what the queue holds already.
    pub(super) fn hold_parked(&self, bytes: u64, what: &str) -> Result<usize> {
        let (areas, place) = self.areas();
        areas.iter().position(|a| a.hold(bytes)).ok_or_else(|| {
            let (n, held) = (self.parked().borrow().len(), areas.iter().map(Area::held).sum::<u64>());
            program_err(format!(
                "rank {}: the unexpected queue cannot park {what}: it needs {bytes} bytes of the {place}, {} are free \
                 ({n} parked messages hold {held} bytes; receive them, or post the receive first)",
                self.boot.rank,
                self.largest_free()
            ))
        })
    }

    /// Bytes the unexpected queue holds now.
    #[cfg(test)]
    pub(super) fn queue_held(&self) -> u64 {
        self.areas().0.iter().map(Area::held).sum()
    }

    /// Give back what [`Rank::hold_parked`] lent.
    pub(super) fn unhold_parked(&self, (area, bytes): (usize, u64)) {
        self.areas().0[area].unhold(bytes);
    }

    /// Release every request buffer (when no request is pending).
    pub fn free_requests(&self) {
        self.heap.iter().chain([&self.ls_heap]).for_each(Area::release_requests);
    }

    /// Release every buffer [`Rank::alloc`] gave out (their addresses become free again).
    pub fn free_all(&self) {
        self.heap.iter().chain([&self.ls_heap]).for_each(Area::release_buffers);
    }

    /// Write `data` to the buffer at `ea` (a host-side copy, taking no simulated time: what a
    /// program computed into its buffer).
    pub fn write(&self, ea: u64, data: &[u8]) -> Result<()> {
        self.spu.with_machine(|m| match m.mem.resolve(ea, data.len().max(1) as u32)? {
            crate::machine::memory::Loc::Mem(a) => {
                m.mem.write_mem(a, data);
                Ok(())
            }
            crate::machine::memory::Loc::Ls { spe, off } => {
                m.mem.ls[spe][off as usize..off as usize + data.len()].copy_from_slice(data);
                m.mem.ls_writes[spe] += 1;
                Ok(())
            }
            _ => Err(program_err(format!("rank {}: {ea:#x} is a register, not a buffer", self.boot.rank))),
        })
    }

    /// Read `len` bytes of the buffer at `ea` (host side, no simulated time).
    pub fn read(&self, ea: u64, len: u32) -> Result<Vec<u8>> {
        let mut out = vec![0u8; len as usize];
        self.spu.with_machine(|m| match m.mem.resolve(ea, len.max(1))? {
            crate::machine::memory::Loc::Mem(a) => {
                m.mem.read_mem(a, &mut out);
                Ok(())
            }
            crate::machine::memory::Loc::Ls { spe, off } => {
                out.copy_from_slice(&m.mem.ls[spe][off as usize..off as usize + len as usize]);
                Ok(())
            }
            _ => Err(program_err(format!("rank {}: {ea:#x} is a register, not a buffer", self.boot.rank))),
        })?;
        Ok(out)
    }

    /// Name the MPI call the following sends and receives belong to (e.g. "MPI_Barrier"), for
    /// the deadlock report; `None` to stop.
    pub fn set_label(&self, label: Option<String>) {
        *self.label.borrow_mut() = label;
    }

    pub(super) fn enter(&self, inner: String) {
        let what = match &*self.label.borrow() {
            Some(l) => format!("{l} ({inner})"),
            None => inner,
        };
        self.tracker.enter(self.boot.rank, what);
    }

    fn check_peer(&self, what: &str, peer: usize) -> Result<()> {
        if peer >= self.boot.size {
            // A crafted request's negative rank arrives wrapped (`i32 as usize`): show it as sent.
            let shown = peer as isize;
            return Err(config_err(format!(
                "rank {}: {what} rank {shown} does not exist: allowed 0 to {}",
                self.boot.rank,
                self.boot.size - 1
            )));
        }
        Ok(())
    }

    /// Standard send (`MPI_Send`) of `bytes` at `buf` to `dest`: synchronous (returns the
    /// receiver's error code once the receiver has copied the message), or buffered when the
    /// message is short enough for buffered mode.
    pub async fn send(&self, buf: u64, bytes: u32, dest: usize, tag: i32, comm: u32) -> Result<u32> {
        self.send_as(buf, bytes, dest, tag, comm, false).await
    }

    /// `MPI_Ssend`: as [`Rank::send`], never buffered, so it returns only once the receiver
    /// has matched the message, as MPI requires of a synchronous send.
    pub async fn ssend(&self, buf: u64, bytes: u32, dest: usize, tag: i32, comm: u32) -> Result<u32> {
        self.send_as(buf, bytes, dest, tag, comm, true).await
    }

    async fn send_as(&self, buf: u64, bytes: u32, dest: usize, tag: i32, comm: u32, synchronous: bool) -> Result<u32> {
        self.check_send(dest, tag)?;
        if self.has_requests() {
            // Pending requests keep progressing while this send waits (and keep their order).
            let id = self.isend_as(buf, bytes, dest, tag, comm, synchronous).await?;
            self.wait(id).await?;
            return Ok(code::SUCCESS);
        }
        let call = if synchronous { "MPI_Ssend" } else { "MPI_Send" };
        self.enter(format!("{call} to {dest}, tag {tag}"));
        if !self.post(buf, bytes, dest, tag, comm, Posting { ack2: false, synchronous, index: 0 }).await? {
            return Ok(code::SUCCESS);
        }
        self.tracker.acking(self.boot.rank);
        self.wait_ack().await
    }

    /// The SPU's own code of one send or receive call (`mpi.call_core_cycles`).
    pub(super) async fn charge_call(&self) {
        let dt = self.spu.with_machine(|m| m.p.mpi_call);
        self.sleep(dt).await;
    }

    /// Wait until `dest` has taken this rank's last buffered message on `comm`'s context (its
    /// bit in signal 2).
    async fn wait_slot(&self, dest: usize, comm: u32) -> Result<()> {
        let me = self.boot.rank;
        let bit = layout::slot_bit(dest, comm);
        while self.busy.get() & bit != 0 {
            self.tracker.slot_wait(me, bit);
            let freed = self.spu.spu_read_signal2().await?;
            self.tracker.slots_seen(me, freed);
            self.on_freed(freed);
        }
        Ok(())
    }

    pub(super) fn check_send(&self, dest: usize, tag: i32) -> Result<()> {
        self.check_peer("MPI_Send to", dest)?;
        if tag < 0 {
            return Err(config_err(format!("rank {}: MPI_Send tag {tag} is invalid: allowed 0 to {}", self.boot.rank, super::TAG_UB)));
        }
        Ok(())
    }

    /// The first half of a send: the meta-data entry is in B_ij once this returns. Returns
    /// whether the send is synchronous (it must wait for the receiver's signal); a buffered one
    /// carries its bytes in the entry and is done.
    pub(super) async fn post(&self, buf: u64, bytes: u32, dest: usize, tag: i32, comm: u32, how: Posting) -> Result<bool> {
        let me = self.boot.rank;
        let ack2 = how.ack2;
        self.charge_call().await;
        self.wait_slot(dest, comm).await?;
        let limit = self.spu.with_machine(|m| m.p.mpi_buffered_bytes);
        let inline = !how.synchronous && limit > 0 && bytes <= limit;
        let mut e = [0u8; META_BYTES as usize];
        let mut put = |off: u32, v: u32| e[off as usize..off as usize + 4].copy_from_slice(&v.to_be_bytes());
        put(meta::FLAG, 1);
        put(meta::SOURCE, me as u32);
        put(meta::TAG, tag as u32);
        put(meta::SIZE, bytes);
        put(meta::ADDR_HI, (buf >> 32) as u32);
        put(meta::ADDR_LO, buf as u32);
        put(meta::COMM, comm);
        put(meta::ERROR, code::SUCCESS);
        put(meta::INLINE, inline as u32);
        put(meta::ACK2, ack2 as u32);
        put(meta::INDEX, how.index);
        self.spu.ls_write(OUT_META, &e)?;
        if inline {
            transfer::ls_copy(&self.spu, OUT_META + meta::DATA, buf, bytes, true).await?;
        }
        let to = Memory::ls_ea(self.boot.spes[dest], layout::entry(me, comm));
        self.spu.mfc_put(OUT_META, to, META_BYTES, tag::META).await?;
        self.spu.mfc_write_tag_mask(1 << tag::META);
        self.spu.mfc_read_tag_status_all().await?;
        // The entry has landed: the receiver must rescan before it can count as stuck.
        self.tracker.landed(dest);
        if inline || ack2 {
            self.busy.set(self.busy.get() | layout::slot_bit(dest, comm));
        }
        Ok(!inline)
    }

    /// The second half: the receiver's signal, carrying its error code.
    async fn wait_ack(&self) -> Result<u32> {
        let code = self.spu.spu_read_signal1().await?;
        self.tracker.ack_received(self.boot.rank);
        Ok(code)
    }

    /// `MPI_Sendrecv` that cannot deadlock in synchronous mode (seed 004 §7): the send's entry
    /// is posted first, then the receive runs, then the send waits for its acknowledgement, so
    /// ranks that all call it (pairs, rings, shifts, a send to oneself) all get through.
    #[allow(clippy::too_many_arguments)]
    pub async fn sendrecv(
        &self,
        sbuf: u64,
        sbytes: u32,
        dest: usize,
        stag: i32,
        rbuf: u64,
        cap: u32,
        source: i32,
        rtag: i32,
        comm: u32,
    ) -> Result<(u32, Status)> {
        self.check_send(dest, stag)?;
        self.check_recv(source, rtag)?;
        if self.has_requests() {
            // As a pair of requests, behind the pending ones (the engine keeps their order).
            let r = self.irecv(rbuf, cap, source, rtag, comm)?;
            let s = self.isend(sbuf, sbytes, dest, stag, comm).await?;
            let st = self.wait(r).await?;
            self.wait(s).await?;
            return Ok((code::SUCCESS, st));
        }
        let inner = format!("MPI_Sendrecv to {dest}, tag {stag}, from {}, {}", source_text(source), tag_text(rtag));
        self.enter(inner);
        let synchronous = self.post(sbuf, sbytes, dest, stag, comm, Posting { ack2: false, synchronous: false, index: 0 }).await?;
        let st = self.receive(rbuf, cap, source, rtag, comm).await?;
        if !synchronous {
            return Ok((code::SUCCESS, st));
        }
        self.tracker.acking(self.boot.rank);
        let code = self.wait_ack().await?;
        Ok((code, st))
    }

    /// Synchronous receive into `cap` bytes at `buf` from `source` (or `ANY_SOURCE`) with `tag`
    /// (or `ANY_TAG`) on communicator `comm`. A longer message fills the buffer and reports
    /// `ERR_TRUNCATE` in the status (and to the sender, in the signal).
    pub async fn recv(&self, buf: u64, cap: u32, source: i32, tag: i32, comm: u32) -> Result<Status> {
        self.check_recv(source, tag)?;
        if self.has_requests() {
            // An earlier nonblocking receive that matches comes first.
            let id = self.irecv(buf, cap, source, tag, comm)?;
            return self.wait(id).await;
        }
        self.enter(format!("MPI_Recv from {}, {}", source_text(source), tag_text(tag)));
        self.receive(buf, cap, source, tag, comm).await
    }

    pub(super) fn check_recv(&self, source: i32, tag: i32) -> Result<()> {
        if source != ANY_SOURCE {
            if source < 0 {
                return Err(config_err(format!(
                    "rank {}: MPI_Recv source {source} is invalid: allowed 0 to {} or MPI_ANY_SOURCE",
                    self.boot.rank,
                    self.boot.size - 1
                )));
            }
            self.check_peer("MPI_Recv from", source as usize)?;
        }
        if tag < 0 && tag != ANY_TAG {
            return Err(config_err(format!(
                "rank {}: MPI_Recv tag {tag} is invalid: allowed 0 to {} or MPI_ANY_TAG",
                self.boot.rank,
                super::TAG_UB
            )));
        }
        Ok(())
    }

    async fn receive(&self, buf: u64, cap: u32, source: i32, tag: i32, comm: u32) -> Result<Status> {
        if let Some(k) = self.parked_match(source, tag, comm) {
            self.tracker.running(self.boot.rank);
            return self.take_parked(k, buf, cap).await;
        }
        let sender = self.poll(source, tag, comm).await?;
        self.tracker.running(self.boot.rank);
        self.take(sender, comm, buf, cap).await
    }

    /// Take `sender`'s matched message on `comm`'s context into `cap` bytes at `buf`: move the
    /// data, unset the flag, signal the sender.
    pub(super) async fn take(&self, sender: usize, comm: u32, buf: u64, cap: u32) -> Result<Status> {
        // Claimed in the instant it matched: a cancel that comes later finds the flag unset.
        let entry = layout::entry(sender, comm);
        self.spu.ls_write_u32(entry + meta::FLAG, 0)?;
        self.charge_call().await;
        let word = |off: u32| self.spu.ls_read_u32(entry + off).expect("meta-data entries lie inside the local store");
        let sent = word(meta::SIZE);
        let addr = ((word(meta::ADDR_HI) as u64) << 32) | word(meta::ADDR_LO) as u64;
        let status_tag = word(meta::TAG) as i32;
        let n = sent.min(cap);
        let inline = word(meta::INLINE) != 0;
        if inline {
            transfer::ls_copy(&self.spu, entry + meta::DATA, buf, n, false).await?;
        } else {
            transfer::move_data(&self.spu, addr, buf, n, self.boot.depth).await?;
        }
        let error = if sent > cap { code::ERR_TRUNCATE } else { code::SUCCESS };
        if inline || word(meta::ACK2) != 0 {
            // The sender has moved on; its next message to this rank waits for this bit.
            self.free_entry(sender, comm).await?;
        } else {
            // The sender's acknowledgement is on its way: it counts as running from now.
            self.tracker.acknowledged(sender);
            self.signal(self.boot.signal_ea[sender], error).await?;
        }
        self.tracker.running(self.boot.rank);
        Ok(Status { source: sender, tag: status_tag, bytes: n, sent, error })
    }

    /// `MPI_Iprobe`: one pass over the entries that can match, taking nothing.
    pub async fn iprobe(&self, source: i32, tag: i32, comm: u32) -> Result<Option<Status>> {
        self.check_recv(source, tag)?;
        if self.has_requests() {
            return self.probe_pending(source, tag, comm, false).await;
        }
        let size = self.boot.size;
        let poll = self.spu.with_machine(|m| m.p.poll);
        let candidates: Vec<usize> =
            if source == ANY_SOURCE { (0..size).map(|k| (self.rr.get() + k) % size).collect() } else { vec![source as usize] };
        if let Some(k) = self.parked_match(source, tag, comm) {
            return Ok(Some(self.parked().borrow()[k].status()));
        }
        for sender in candidates {
            self.sleep(poll).await;
            if let Some(st) = self.matching(sender, tag, comm) {
                return Ok(Some(st));
            }
            if self.flagged(sender, comm) {
                self.park(sender, comm).await?;
            }
        }
        Ok(None)
    }

    /// `MPI_Probe`: wait for a message that matches, taking nothing; a receive from its source
    /// with its tag then gets it.
    pub async fn probe(&self, source: i32, tag: i32, comm: u32) -> Result<Status> {
        self.check_recv(source, tag)?;
        self.enter(format!("MPI_Probe from {}, {}", source_text(source), tag_text(tag)));
        if self.has_requests() {
            return Ok(self.probe_pending(source, tag, comm, true).await?.expect("a blocking probe returns a match"));
        }
        if let Some(k) = self.parked_match(source, tag, comm) {
            return Ok(self.parked().borrow()[k].status());
        }
        let sender = self.poll(source, tag, comm).await?;
        self.rr.set(sender);
        self.tracker.running(self.boot.rank);
        Ok(self.matching(sender, tag, comm).expect("the entry just matched"))
    }

    /// The status of `sender`'s entry on `comm`'s context if it is flagged and matches.
    pub(super) fn matching(&self, sender: usize, tag: i32, comm: u32) -> Option<Status> {
        let entry = layout::entry(sender, comm);
        let word = |off: u32| self.spu.ls_read_u32(entry + off).expect("meta-data entries lie inside the local store");
        let (t, size) = (word(meta::TAG) as i32, word(meta::SIZE));
        (word(meta::FLAG) != 0 && word(meta::COMM) == comm && (tag == ANY_TAG || t == tag)).then_some(Status {
            source: sender,
            tag: t,
            bytes: size,
            sent: size,
            error: code::SUCCESS,
        })
    }

    /// Whether `sender`'s entry on `comm`'s context holds a message (of any tag or communicator).
    pub(super) fn flagged(&self, sender: usize, comm: u32) -> bool {
        self.spu.ls_read_u32(layout::entry(sender, comm) + meta::FLAG).expect("meta-data entries lie inside the local store") != 0
    }

    /// The oldest parked message that a receive from `source` with `tag` on `comm` matches.
    /// Messages their senders cancelled leave the queue first, giving back their space.
    pub(super) fn parked_match(&self, source: i32, tag: i32, comm: u32) -> Option<usize> {
        let mut queue = self.parked().borrow_mut();
        queue.retain(|p| {
            if p.cancelled {
                self.unhold_parked(p.held);
            }
            !p.cancelled
        });
        queue.iter().position(|p| p.matches(source, tag, comm))
    }

    /// Poll the entries that can match until one does; returns its sender. An entry that
    /// holds a message the receive does not match is parked, freeing it for the next one.
    ///
    /// Once a whole scan of the candidates has missed and the stuck check after it has passed,
    /// every later poll misses until something else happens; the engine may then skip polls
    /// ([`crate::sim::Shared::poll_sleep`]), and each skipped one is accounted here as a miss
    /// (round robin and miss count; its stuck check would pass, as the one after the scan did).
    /// Parking is something happening: the skipping starts again from a new whole scan.
    /// A poll reads only this rank's local store, its epoch and `stuck`, and the tracker marks
    /// a change to the last two as a write into the local store, so other ranks' runs do not
    /// wake it ([`crate::Spu::poll_stamp_own`]).
    async fn poll(&self, source: i32, tag: i32, comm: u32) -> Result<usize> {
        let (me, size) = (self.boot.rank, self.boot.size);
        let candidates = if source == ANY_SOURCE { size } else { 1 };
        let poll = self.spu.with_machine(|m| m.p.poll);
        let mut misses = 0;
        let mut epoch = self.tracker.epoch(me);
        // The activity count at the start of the scan under way, and at the start of the last
        // whole scan that passed its stuck check with nothing else happening.
        let (mut scan_start, mut since) = (self.spu.poll_stamp_own(), None);
        loop {
            let passed = self.spu.poll_sleep(poll, since).await;
            let next = |rr: usize| if source == ANY_SOURCE { (rr, (rr + 1) % size) } else { (source as usize, rr) };
            // The skipped polls, each a miss that moves the round robin on (any source) by one.
            let skipped = passed.saturating_sub(1);
            if source == ANY_SOURCE {
                self.rr.set(((self.rr.get() as u64 + skipped % size as u64) % size as u64) as usize);
            }
            misses = ((misses as u64 + skipped % candidates as u64) % candidates as u64) as usize;
            let (sender, rr) = next(self.rr.get());
            self.rr.set(rr);
            if misses == 0 {
                scan_start = self.spu.poll_stamp_own();
            }
            if self.matching(sender, tag, comm).is_some() {
                if source == ANY_SOURCE {
                    self.rr.set((sender + 1) % size);
                }
                self.spu.polled();
                return Ok(sender);
            }
            if self.flagged(sender, comm) {
                self.park(sender, comm).await?;
                epoch = self.tracker.epoch(me);
                (misses, since) = (0, None);
                continue;
            }
            misses += 1;
            if misses >= candidates {
                misses = 0;
                let now = self.tracker.epoch(me);
                if now == epoch {
                    self.stuck_polling()?;
                    since = (scan_start == self.spu.poll_stamp_own()).then_some(scan_start);
                }
                epoch = now;
            }
        }
    }

    /// This rank polls with nothing changing: the deadlock, if no rank can move any more.
    pub(super) fn stuck_polling(&self) -> Result<()> {
        self.tracker.polling(self.boot.rank);
        if self.tracker.stuck() {
            return Err(self.tracker.deadlock(self.spu.now()));
        }
        Ok(())
    }

    pub(super) async fn sleep(&self, dt: Time) {
        let cycles = self.spu.with_machine(|m| dt.0 / m.p.core_cycle.0);
        self.spu.compute(cycles).await;
    }

    /// Signal a sender: its register 1 with the error code (overwrite mode: one synchronous
    /// send waits at a time, so the whole register carries the code, §3.3), or its register 2
    /// with this rank's bit (OR mode) for a buffered message. The previous signal must have left
    /// the scratch quadword first.
    pub(super) async fn signal(&self, ea: u64, value: u32) -> Result<()> {
        self.spu.mfc_write_tag_mask(1 << tag::SIGNAL);
        self.spu.mfc_read_tag_status_all().await?;
        let lsa = SIG_SCRATCH + (ea % 16) as u32;
        self.spu.ls_write_u32(lsa, value)?;
        self.spu.mfc_sndsig(lsa, ea, tag::SIGNAL).await
    }

    /// The seed's barrier (§3.4, built on send and receive): everyone reports to rank 0, which
    /// then releases everyone, each a 0-byte synchronous message.
    pub async fn barrier(&self, comm: u32) -> Result<()> {
        let c = comm | COLL_COMM;
        self.set_label(Some("MPI_Barrier".into()));
        let done = self.barrier_steps(c).await;
        self.set_label(None);
        done
    }

    async fn barrier_steps(&self, c: u32) -> Result<()> {
        if self.boot.rank == 0 {
            for r in 1..self.boot.size {
                self.recv(0, 0, r as i32, BARRIER_TAG, c).await?;
            }
            for r in 1..self.boot.size {
                self.send(0, 0, r, BARRIER_TAG, c).await?;
            }
        } else {
            self.send(0, 0, 0, BARRIER_TAG, c).await?;
            self.recv(0, 0, 0, BARRIER_TAG, c).await?;
        }
        Ok(())
    }

    /// The rank has returned from `MPI_Finalize`.
    pub fn finalize(&self) {
        self.tracker.done(self.boot.rank);
    }
}

fn source_text(source: i32) -> String {
    if source == ANY_SOURCE {
        "any source".into()
    } else {
        source.to_string()
    }
}

fn tag_text(tag: i32) -> String {
    if tag == ANY_TAG {
        "any tag".into()
    } else {
        format!("tag {tag}")
    }
}

/// Signal register 2 lies this far after register 1 in an SPE's problem-state area, so the boot
/// structure's addresses of register 1 give both.
pub(super) const SIGNAL2_FROM_1: u64 = reg::SIGNOTIFY2 - reg::SIGNOTIFY1;

/// Collectives run on a communicator's collective context (its word's lowest bit set), so they
/// never match user messages and have entries of their own.
pub const COLL_COMM: u32 = layout::COLL_CONTEXT;
/// Apart from the tags of the C and Python collectives on the same context.
const BARRIER_TAG: i32 = 1 << 30;
