//! Nonblocking point-to-point (`MPI_Isend`, `MPI_Irecv`, `MPI_Test`, `MPI_Wait`,
//! `MPI_Waitany`): requests are in flight together, and every test or wait runs one pass of a
//! progress engine on the SPU, as a real library's would.
//!
//! An `MPI_Isend` posts its meta-data entry at once (when B_ij is free) and returns; its
//! receiver acknowledges with its bit in the sender's signal register 2 (OR mode), so sends to
//! several receivers are pending together. A send to a receiver whose entry still holds an
//! earlier message waits in the request queue and is posted when the bit frees it: B_ij holds
//! one message, and messages do not overtake. A freed entry whose send's completion bit has
//! toggled was parked by the receiver (`unexpected.rs`): the send stays pending until the bit
//! toggles again. An `MPI_Irecv` is recorded; a pass first gives each pending receive, in
//! posting order, its oldest parked match, then polls the entries that can match, takes a
//! matched message (moving its data) for the earliest-posted receive that matches it, and parks
//! one that no pending receive matches. While a rank has requests, its blocking sends and receives
//! go through the same engine, so pending requests keep progressing and keep their order.
//!
//! `MPI_Request_free` (MPI-1 §3.7.3) marks a request freed: the program can no longer wait on
//! it, but it stays in the engine and every later pass moves it on, as any pending request's;
//! once done it waits for [`Rank::reap_freed`] to hand its status to whoever owns its buffer
//! (`nb_wire.rs`) and drop it. `MPI_Finalize` first runs the engine until every freed request is
//! done ([`Rank::finish_freed`]), so one that can never finish is reported as a deadlock.

use std::rc::Rc;

use crate::error::{config_err, Result};

use super::pending::{Req, Request, SendState};
use super::rank::{Posting, Rank, Status};
use super::unexpected::{completion_bit, INDICES};
use super::ANY_SOURCE;
use crate::sim::Since;

/// How many of its requests an `MPI_Waitany` names in a deadlock report.
const WAITANY_NAMED: usize = 8;

/// A pending receive: its request's index, buffer, capacity, source, tag and context.
pub(super) type Pending = (usize, u64, u32, i32, i32, u32);

impl Rank {
    /// Whether any nonblocking request is still pending (a freed one only until it is done).
    pub(super) fn has_requests(&self) -> bool {
        self.reqs.borrow().iter().flatten().any(|r| !r.freed() || r.done().is_none())
    }

    /// Handles are positions in posting order; the list restarts when every request is done.
    fn push(&self, r: Req) -> Request {
        let mut reqs = self.reqs.borrow_mut();
        if reqs.iter().all(Option::is_none) {
            reqs.clear();
            self.queued.borrow_mut().clear();
        }
        if let Req::Send { dest, comm, .. } = r {
            let slot = super::layout::slot_bit(dest, comm);
            let mut queued = self.queued.borrow_mut();
            match queued.iter_mut().find(|(s, _)| *s == slot) {
                Some((_, q)) => q.push_back(reqs.len()),
                None => queued.push((slot, [reqs.len()].into())),
            }
        }
        if matches!(r, Req::Recv { .. }) {
            self.pending_recvs.take();
        }
        reqs.push(Some(r));
        Request(reqs.len() - 1)
    }

    /// `MPI_Isend`: post the entry now if the receiver's B_ij is free, else queue it.
    pub async fn isend(&self, buf: u64, bytes: u32, dest: usize, tag: i32, comm: u32) -> Result<Request> {
        self.isend_as(buf, bytes, dest, tag, comm, false).await
    }

    /// `MPI_Issend`: as [`Rank::isend`], never buffered, so it completes only once the receiver
    /// has matched the message.
    pub async fn issend(&self, buf: u64, bytes: u32, dest: usize, tag: i32, comm: u32) -> Result<Request> {
        self.isend_as(buf, bytes, dest, tag, comm, true).await
    }

    pub(super) async fn isend_as(&self, buf: u64, bytes: u32, dest: usize, tag: i32, comm: u32, synchronous: bool) -> Result<Request> {
        self.check_send(dest, tag)?;
        let id = self.push(Req::Send {
            buf,
            bytes,
            dest,
            tag,
            comm,
            synchronous,
            state: SendState::Queued,
            index: 0,
            freed: false,
            cancelled: false,
        });
        self.start_sends().await?;
        Ok(id)
    }

    /// `MPI_Irecv`: record the receive; tests and waits match it.
    pub fn irecv(&self, buf: u64, cap: u32, source: i32, tag: i32, comm: u32) -> Result<Request> {
        self.check_recv(source, tag)?;
        Ok(self.push(Req::Recv { buf, cap, source, tag, comm, status: None, freed: false }))
    }

    /// The lowest index no posted or parked send to `dest` on `comm`'s context holds.
    fn free_index(&self, dest: usize, comm: u32) -> Option<u32> {
        let slot = super::layout::slot_bit(dest, comm);
        let used = self.reqs.borrow().iter().flatten().fold(0u32, |used, r| match *r {
            Req::Send { dest: d, comm: c, index, state: SendState::Posted | SendState::Parked, .. }
                if super::layout::slot_bit(d, c) == slot =>
            {
                used | 1 << index
            }
            _ => used,
        });
        (0..INDICES).find(|k| used & 1 << k == 0)
    }

    /// The oldest queued send whose entry is not in `busy`: the front of its entry's queue,
    /// found among the entries, not among every request.
    #[allow(clippy::type_complexity)]
    fn oldest_queued(&self, busy: u32) -> Option<(usize, u64, u32, usize, i32, u32, bool)> {
        let reqs = self.reqs.borrow();
        let mut oldest: Option<usize> = None;
        for (slot, q) in self.queued.borrow_mut().iter_mut() {
            while q.front().is_some_and(|&i| !matches!(reqs[i], Some(Req::Send { state: SendState::Queued, .. }))) {
                q.pop_front();
            }
            if let (0, Some(&i)) = (busy & *slot, q.front()) {
                oldest = Some(oldest.map_or(i, |o| o.min(i)));
            }
        }
        match reqs[oldest?] {
            Some(Req::Send { buf, bytes, dest, tag, comm, synchronous, .. }) => Some((oldest?, buf, bytes, dest, tag, comm, synchronous)),
            _ => None,
        }
    }

    /// Post the oldest queued send of every receiver whose entry is free (and that has an index
    /// free for it, should the receiver park it).
    async fn start_sends(&self) -> Result<bool> {
        let mut progressed = false;
        let mut blocked = 0u32;
        loop {
            let busy = self.busy.get() | blocked;
            let next = self.oldest_queued(busy);
            let Some((i, buf, bytes, dest, tag, comm, synchronous)) = next else { return Ok(progressed) };
            let Some(index) = self.free_index(dest, comm) else {
                // Every index is parked at that receiver: the send waits for one to complete.
                blocked |= super::layout::slot_bit(dest, comm);
                continue;
            };
            if let Some((_, q)) = self.queued.borrow_mut().iter_mut().find(|(s, _)| *s == super::layout::slot_bit(dest, comm)) {
                q.pop_front(); // `i`, the front
            }
            self.spu().polled();
            let waits = self.post(buf, bytes, dest, tag, comm, Posting { ack2: true, synchronous, index }).await?;
            if let Some(Req::Send { state, index: at, .. }) = &mut self.reqs.borrow_mut()[i] {
                *state = if waits { SendState::Posted } else { SendState::Done };
                *at = index;
            }
            progressed = true;
        }
    }

    /// The entries in `bits` (`layout::slot_bit`) have been freed by their receivers: a posted
    /// send through each is done, or parked if its completion bit has toggled (and done if it
    /// was cancelled there, `cancel.rs`).
    pub(super) fn on_freed(&self, bits: u32) {
        self.busy.set(self.busy.get() & !bits);
        for r in self.reqs.borrow_mut().iter_mut().flatten() {
            if let Req::Send { dest, comm, state, index, cancelled, .. } = r {
                if *state == SendState::Posted && bits & super::layout::slot_bit(*dest, *comm) != 0 {
                    let parked = self.completions_seen(*dest, completion_bit(*index, *comm)) != 0;
                    *state = if parked && !*cancelled { SendState::Parked } else { SendState::Done };
                    if *state == SendState::Parked {
                        self.maybe_parked.set(true);
                    }
                }
            }
        }
    }

    /// Parked sends whose completion bit has toggled again are done; whether any was.
    fn parked_done(&self) -> bool {
        if !self.maybe_parked.get() {
            return false;
        }
        let mut any = false;
        let mut still = false;
        for r in self.reqs.borrow_mut().iter_mut().flatten() {
            if let Req::Send { dest, comm, state: state @ SendState::Parked, index, .. } = r {
                if self.completions_seen(*dest, completion_bit(*index, *comm)) != 0 {
                    *state = SendState::Done;
                    any = true;
                } else {
                    still = true;
                }
            }
        }
        self.maybe_parked.set(still);
        any
    }

    /// One pass of the progress engine: read the acknowledgements in signal 2 (if its channel
    /// has a count), post queued sends, poll the entries of each pending receive in posting
    /// order and take what matches. Returns whether anything moved.
    pub(super) async fn progress(&self) -> Result<bool> {
        let (mut moved, pending, mut taken) = self.prologue().await?;
        for sender in self.senders(&pending) {
            self.poll_sleep(None).await;
            moved |= self.read_entry(sender, &pending, &mut taken).await?;
        }
        Ok(moved)
    }

    /// A pass up to its polls: read the acknowledgements, finish parked sends, post queued
    /// sends, give each pending receive, in posting order, its oldest parked match. Whether
    /// anything moved, the receives pending at the start, and which of them that took. Its
    /// reads cost no simulated time; the pass's polls come after it ([`Rank::senders`]).
    async fn prologue(&self) -> Result<(bool, Rc<Vec<Pending>>, Vec<bool>)> {
        let me = self.boot.rank;
        let mut progressed = false;
        let spe = self.spu().spe_id();
        if self.busy.get() != 0 && self.spu().with_machine(|m| m.ch[spe].signal[1].is_some()) {
            self.spu().polled();
            let bits = self.spu().spu_read_signal2().await?;
            self.tracker.slots_seen(me, bits);
            self.on_freed(bits);
            progressed = true;
        }
        if self.parked_done() {
            self.spu().polled();
            progressed = true;
        }
        progressed |= self.start_sends().await?;
        let pending = self.pending_recvs();
        let mut taken = vec![false; pending.len()];
        // Nothing parked, nothing to give: a pass costs the host what moves, not what waits.
        let parked = !self.parked().borrow().is_empty();
        for (k, &(i, buf, cap, source, tag, comm)) in pending.iter().enumerate().filter(|_| parked) {
            if let Some(at) = self.parked_match(source, tag, comm) {
                self.spu().polled();
                let st = self.take_parked(at, buf, cap).await?;
                self.complete_recv(i, st);
                taken[k] = true;
                progressed = true;
            }
        }
        Ok((progressed, pending, taken))
    }

    /// The entries a pass polls, one poll interval each, in order: each that some pending
    /// receive could take, round robin from the last any-source match.
    fn senders(&self, pending: &[Pending]) -> Vec<usize> {
        let (size, start) = (self.size(), self.rr.get());
        if pending.is_empty() {
            return Vec::new();
        }
        (0..size).map(|k| (start + k) % size).filter(|&s| pending.iter().any(|p| p.3 == ANY_SOURCE || p.3 == s as i32)).collect()
    }

    /// Read `sender`'s entry after a poll: a flagged one goes to the earliest-posted receive
    /// not yet `taken` that matches it, and one that none of them matches is parked. Whether
    /// anything moved; a poll that moved nothing changed nothing.
    async fn read_entry(&self, sender: usize, pending: &[Pending], taken: &mut [bool]) -> Result<bool> {
        // Both of the sender's entries empty (the usual poll of a wait): nothing to take or
        // park, whatever the number of receives that poll them.
        if !self.flagged(sender, 0) && !self.flagged(sender, super::layout::COLL_CONTEXT) {
            return Ok(false);
        }
        let from = |k: usize, p: &Pending| !taken[k] && (p.3 == ANY_SOURCE || p.3 == sender as i32);
        // The entry of each context read once, whatever the number of receives that poll it.
        let mut seen: Vec<(u32, Option<i32>)> = Vec::new();
        let mut holds = |comm: u32| match seen.iter().find(|(c, _)| *c == comm) {
            Some(&(_, tag)) => tag,
            None => {
                let tag = self.matching(sender, super::ANY_TAG, comm).map(|st| st.tag);
                seen.push((comm, tag));
                tag
            }
        };
        let first = pending.iter().enumerate().find(|&(k, p)| from(k, p) && holds(p.5).is_some_and(|t| p.4 == super::ANY_TAG || p.4 == t));
        let Some((k, &(i, buf, cap, source, _, comm))) = first else {
            // A message in an entry these receives poll that none of them matches is parked.
            let mut contexts: Vec<u32> = pending.iter().enumerate().filter(|&(k, p)| from(k, p)).map(|(_, p)| p.5).collect();
            contexts.dedup_by_key(|c| super::layout::collective(*c));
            let mut moved = false;
            for comm in contexts {
                if self.flagged(sender, comm) {
                    self.spu().polled();
                    self.park(sender, comm).await?;
                    moved = true;
                }
            }
            return Ok(moved);
        };
        self.spu().polled();
        if source == ANY_SOURCE {
            self.rr.set((sender + 1) % self.size());
        }
        let st = self.take(sender, comm, buf, cap).await?;
        self.complete_recv(i, st);
        taken[k] = true;
        Ok(true)
    }

    /// Sleep one poll interval of the engine ([`Rank::until_else`] says when `since` may skip
    /// polls); returns the intervals that passed.
    async fn poll_sleep(&self, since: Option<Since>) -> usize {
        let poll = self.spu().with_machine(|m| m.p.poll);
        self.spu().poll_sleep(poll, since).await as usize
    }

    /// The receives still pending, in posting order (kept between passes: [`Rank::pending_recvs`]'s field).
    fn pending_recvs(&self) -> Rc<Vec<Pending>> {
        let mut kept = self.pending_recvs.borrow_mut();
        kept.get_or_insert_with(|| {
            Rc::new(
                (self.reqs.borrow().iter().enumerate())
                    .filter_map(|(i, r)| match r {
                        Some(Req::Recv { buf, cap, source, tag, comm, status: None, .. }) => Some((i, *buf, *cap, *source, *tag, *comm)),
                        _ => None,
                    })
                    .collect(),
            )
        })
        .clone()
    }

    pub(super) fn complete_recv(&self, i: usize, st: Status) {
        self.pending_recvs.take();
        if let Some(Req::Recv { status, .. }) = &mut self.reqs.borrow_mut()[i] {
            *status = Some(st);
        }
    }

    /// The program's own requests: a freed one is the engine's alone.
    pub(super) fn check_request(&self, call: &str, id: Request) -> Result<()> {
        if !matches!(self.reqs.borrow().get(id.0), Some(Some(r)) if !r.freed()) {
            return Err(config_err(format!("rank {}: {call}: request {} is not pending", self.boot.rank, id.0)));
        }
        Ok(())
    }

    /// The request's status if it is done; it is then freed.
    fn finish(&self, id: Request) -> Option<Status> {
        let mut reqs = self.reqs.borrow_mut();
        let st = reqs[id.0].as_ref().and_then(Req::done)?;
        reqs[id.0] = None;
        Some(st)
    }

    /// `MPI_Test`: one pass of the engine (at least one polling iteration of SPU time); the
    /// status if the request is done, which frees it.
    pub async fn test(&self, id: Request) -> Result<Option<Status>> {
        self.check_request("MPI_Test", id)?;
        if !self.progress().await? {
            self.poll_sleep(None).await;
        }
        // The program runs on after the engine's polls.
        self.spu().polled();
        Ok(self.finish(id))
    }

    /// `MPI_Wait`: run the engine until the request is done.
    pub async fn wait(&self, id: Request) -> Result<Status> {
        self.check_request("MPI_Wait", id)?;
        let what = self.reqs.borrow()[id.0].as_ref().map(Req::describe).unwrap_or_default();
        self.enter(format!("MPI_Wait for {what}"));
        let (index, st) = self.until_one(&[id]).await?;
        debug_assert_eq!(index, 0);
        Ok(st)
    }

    /// `MPI_Waitany`: run the engine until one of `ids` is done; its index and status.
    pub async fn waitany(&self, ids: &[Request]) -> Result<(usize, Status)> {
        for &id in ids {
            self.check_request("MPI_Waitany", id)?;
        }
        // A deadlock report names a few: described in full, a call over thousands of requests
        // cost more than its pass of the engine.
        let what: Vec<String> =
            ids.iter().take(WAITANY_NAMED).filter_map(|id| self.reqs.borrow()[id.0].as_ref().map(Req::describe)).collect();
        let more = if ids.len() > WAITANY_NAMED { format!(" and {} more", ids.len() - WAITANY_NAMED) } else { String::new() };
        self.enter(format!("MPI_Waitany for {}{more}", what.join(", ")));
        self.until_one(ids).await
    }

    /// `MPI_Probe` (`block`) or `MPI_Iprobe` while requests are pending: each pass runs the
    /// engine first (a pending receive takes what it matches), then looks at the entries. A
    /// blocking probe's passes are a cycle of polls, skipped as [`Rank::until_else`]'s are.
    pub(super) async fn probe_pending(&self, source: i32, tag: i32, comm: u32, block: bool) -> Result<Option<Status>> {
        let (me, size) = (self.boot.rank, self.size());
        let mut since = None;
        loop {
            let (before, start) = (self.tracker.epoch(me), self.spu().poll_stamp());
            let (mut moved, pending, mut taken) = self.prologue().await?;
            let senders = self.senders(&pending);
            let candidates: Vec<usize> =
                if source == ANY_SOURCE { (0..size).map(|k| (self.rr.get() + k) % size).collect() } else { vec![source as usize] };
            // Slots 0..senders.len() poll for the pending receives, the rest for the probe.
            let len = senders.len() + candidates.len();
            let mut slot = 0;
            while slot < len {
                if slot == senders.len() {
                    if let Some(k) = self.parked_match(source, tag, comm) {
                        self.spu().polled();
                        self.tracker.running(me);
                        return Ok(Some(self.parked().borrow()[k].status()));
                    }
                }
                let passed = self.poll_sleep(since.filter(|_| !moved && block)).await;
                slot = (slot + passed - 1) % len;
                if slot < senders.len() {
                    moved |= self.read_entry(senders[slot], &pending, &mut taken).await?;
                } else {
                    let sender = candidates[slot - senders.len()];
                    if let Some(st) = self.matching(sender, tag, comm) {
                        self.spu().polled();
                        self.tracker.running(me);
                        return Ok(Some(st));
                    }
                    if self.flagged(sender, comm) {
                        self.spu().polled();
                        self.park(sender, comm).await?;
                        moved = true;
                    }
                }
                slot += 1;
            }
            if !block {
                self.spu().polled();
                return Ok(None);
            }
            since = None;
            if !moved && self.tracker.epoch(me) == before && !self.tracker.signal_pending(me, self.busy.get()) {
                self.stuck_polling()?;
                since = (self.spu().poll_stamp() == start).then_some(start);
            }
        }
    }

    /// `MPI_Request_free`: the request is no longer the program's; the engine finishes it.
    pub(super) fn request_free(&self, id: Request) -> Result<()> {
        self.check_request("MPI_Request_free", id)?;
        if let Some(Req::Send { freed, .. } | Req::Recv { freed, .. }) = &mut self.reqs.borrow_mut()[id.0] {
            *freed = true;
        }
        Ok(())
    }

    /// Drop the freed requests that are done; each one's handle and status.
    pub(super) fn reap_freed(&self) -> Vec<(Request, Status)> {
        let mut reqs = self.reqs.borrow_mut();
        let mut out = Vec::new();
        for (i, slot) in reqs.iter_mut().enumerate() {
            if let Some(st) = slot.as_ref().filter(|r| r.freed()).and_then(Req::done) {
                out.push((Request(i), st));
                *slot = None;
            }
        }
        out
    }

    /// `MPI_Finalize` with freed requests not yet done: run the engine until they are, or
    /// report the deadlock naming them ("MPI_Finalize for MPI_Isend to 1, tag 5 (freed)").
    pub(super) async fn finish_freed(&self) -> Result<()> {
        let open = |r: &&Req| r.freed() && r.done().is_none();
        let what: Vec<String> = self.reqs.borrow().iter().flatten().filter(open).map(Req::describe).collect();
        if what.is_empty() {
            return Ok(());
        }
        self.enter(format!("MPI_Finalize for {} (freed)", what.join(", ")));
        // Described once, for the report: each pass only looks (formatting every pass was most
        // of the host time of a long wait).
        self.until(|| (!self.reqs.borrow().iter().flatten().any(|r| open(&r))).then_some(())).await
    }

    /// Progress until one of `ids` is done.
    async fn until_one(&self, ids: &[Request]) -> Result<(usize, Status)> {
        self.until(|| ids.iter().enumerate().find_map(|(k, &id)| self.finish(id).map(|st| (k, st)))).await
    }

    /// Progress until `done` answers. A pass that moves nothing and during which nobody set
    /// this rank running counts it as stuck, unless an acknowledgement is on its way.
    async fn until<T>(&self, done: impl FnMut() -> Option<T>) -> Result<T> {
        self.until_else(done, || self.stuck_polling()).await
    }

    /// [`Rank::until`], with `idle` saying what the rank waits for when a pass moved nothing
    /// (its error ends the wait).
    ///
    /// A pass that moved nothing polls each sender's entry and then sleeps once more (the idle
    /// poll). Once such a pass and its stuck check have gone by with nothing else happening
    /// (the SPU's stamp unchanged, [`crate::Spu::poll_stamp`]), every later pass polls the same
    /// entries in the same order and fails alike until something does: the engine may skip
    /// polls ([`crate::sim::Shared::poll_sleep`]), and the pass goes on at the slot of its
    /// cycle the intervals that passed bring it to. The skipped stuck checks would pass as
    /// this one did (`idle` sets the same state each time), and nothing else a skipped pass
    /// does changes anything.
    pub(super) async fn until_else<T>(&self, mut done: impl FnMut() -> Option<T>, idle: impl Fn() -> Result<()>) -> Result<T> {
        let me = self.boot.rank;
        let mut since = None;
        loop {
            if let Some(out) = done() {
                self.spu().polled();
                self.tracker.running(me);
                return Ok(out);
            }
            let (before, start) = (self.tracker.epoch(me), self.spu().poll_stamp());
            let (mut moved, pending, mut taken) = self.prologue().await?;
            let senders = self.senders(&pending);
            // Slots 0..senders.len() poll the entries, the last one is the idle poll.
            let len = senders.len() + 1;
            let mut slot = 0;
            while slot < senders.len() || !moved && slot == senders.len() {
                let passed = self.poll_sleep(since.filter(|_| !moved)).await;
                slot = (slot + passed - 1) % len;
                if slot == senders.len() {
                    break;
                }
                moved |= self.read_entry(senders[slot], &pending, &mut taken).await?;
                slot += 1;
            }
            since = None;
            if !moved && self.tracker.epoch(me) == before && !self.tracker.signal_pending(me, self.busy.get()) {
                idle()?;
                since = (self.spu().poll_stamp() == start).then_some(start);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::machine::config;
    use crate::mpi::{Mode, MpiWorld};

    fn qs20() -> config::MachineFile {
        config::load(config::preset_text("qs20").unwrap(), &[]).unwrap()
    }

    #[test]
    fn a_freed_send_never_received_is_a_deadlock_at_finalize() {
        let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
        w.rank(0, |r| async move {
            let b = r.alloc(16)?;
            let q = r.isend(b, 16, 1, 5, 0).await?;
            r.request_free(q)?;
            assert!(r.wait(q).await.is_err(), "a freed request is no longer the program's");
            r.finish_freed().await
        })
        .unwrap();
        w.rank(1, |_| async move { Ok(()) }).unwrap();
        let e = w.run().unwrap_err();
        assert!(e.to_string().ends_with("rank 0 waits in MPI_Finalize for MPI_Isend to 1, tag 5 (freed); rank 1 has finished"), "{e}");
    }

    #[test]
    fn a_freed_irecv_finishes_in_later_passes_and_is_reaped_with_its_status() {
        let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
        w.rank(0, |r| async move {
            let b = r.alloc(64)?;
            let q = r.irecv(b, 64, 1, 7, 0)?;
            r.request_free(q)?;
            assert!(r.has_requests(), "a freed receive not yet done is pending");
            assert!(r.reap_freed().is_empty());
            let t = r.alloc(4)?;
            r.recv(t, 4, 1, 8, 0).await?;
            let reaped = r.reap_freed();
            assert_eq!(reaped.len(), 1);
            assert_eq!((reaped[0].0, reaped[0].1.source, reaped[0].1.tag, reaped[0].1.bytes), (q, 1, 7, 64));
            assert_eq!(r.read(b, 64)?, (0..64u8).collect::<Vec<_>>());
            assert!(!r.has_requests());
            r.finish_freed().await
        })
        .unwrap();
        w.rank(1, |r| async move {
            let b = r.alloc(64)?;
            r.write(b, &(0..64u8).collect::<Vec<_>>())?;
            r.send(b, 64, 0, 7, 0).await?;
            r.send(b, 4, 0, 8, 0).await?;
            Ok(())
        })
        .unwrap();
        w.run().unwrap();
    }
}
