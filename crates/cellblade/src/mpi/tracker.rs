//! What each rank is doing, so that a deadlock is reported in MPI terms ("rank 0 waits in
//! MPI_Send to 1, tag 5; rank 1 waits in MPI_Send to 0, tag 5") and found even though receivers
//! poll their local stores (their polling keeps events pending, so the engine alone would spin).
//!
//! A receiver that has scanned its entries without a match is `Polling`; a sender whose
//! meta-data has landed is `Acking` (waiting for the signal). When every rank still running is in
//! one of the two, no entry can change any more: nobody else is moving data or writing an entry,
//! and every waiting sender's entry was seen by its receiver (a sender marks its receiver
//! `Running` again when its entry lands, so the receiver rescans before it can count as stuck;
//! a receiver marks the sender `Running` when it sends the acknowledging signal).
//!
//! A rank inside a library collective (`--coll`) waits for one peer's notification at a time
//! ([`crate::coll::lower`]): it is `CollWait` and blocked while that peer has not yet sent the
//! notification (every sent one is counted here, so one in flight or unread does not count).
//! Only a blocked peer can leave it blocked, so when every rank still running is blocked in one
//! of these ways, no rank can move again. Waiting for every member is not the rule: a
//! broadcast's leaf finishes once its parent has sent, whatever the other leaves do.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::Error;
use crate::sim::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Polling,
    Acking,
    /// A sender waits for the receiver to free its last buffered entry (the entry's slot bit).
    SlotWait(u32),
    /// In a library collective, waiting for `peer`'s notification number `want` of `kind`.
    CollWait {
        peer: usize,
        kind: usize,
        want: u32,
    },
    /// In a library collective that another rank entered as a different call: it never runs.
    CollRefused,
    Done,
}

pub struct Tracker {
    state: RefCell<Vec<State>>,
    call: RefCell<Vec<String>>,
    /// Counts how often each rank was set running: a poller compares it across a scan.
    epoch: RefCell<Vec<u64>>,
    /// The receiver has signalled this rank's pending send (the signal may still be in flight,
    /// and may even come before the sender sees its own meta-data DMA complete).
    acked: RefCell<Vec<bool>>,
    /// Per sender, the entries (their slot bits, `layout::slot_bit`) whose receivers have freed
    /// them and signalled, before the sender read the signal.
    freed: RefCell<Vec<u32>>,
    /// Library notifications sent, per (sender, receiver) pair (index sender * ranks +
    /// receiver) and kind: counted from the job's start, as the library's own counters are.
    notes: RefCell<Vec<[u32; 2]>>,
    /// Per sender, the completion-word bits (`unexpected.rs`) its receivers have toggled and it
    /// has not yet seen, by receiver: a toggle may be in flight when the sender looks.
    toggled: RefCell<Vec<[u32; super::MAX_RANKS]>>,
    /// The machine's marks ([`crate::machine::Machine::marks`]) and each rank's SPE: a rank's
    /// poll reads its epoch and, at the end of a scan, `stuck`; a change to either counts as a
    /// write into its SPE, so that the engine skips its polls across other ranks' runs.
    marks: Option<(Marks, Vec<usize>)>,
}

/// Per SPE, a count of changes ([`crate::machine::Machine::marks`]).
type Marks = Rc<[Cell<u64>]>;

impl Tracker {
    /// A tracker whose changes mark the SPEs `spes` (rank i's is `spes[i]`) in `marks`.
    pub fn marking(marks: Marks, spes: Vec<usize>) -> Tracker {
        let ranks = spes.len();
        Tracker { marks: Some((marks, spes)), ..Tracker::new(ranks) }
    }

    pub fn new(ranks: usize) -> Tracker {
        Tracker {
            marks: None,
            state: RefCell::new(vec![State::Running; ranks]),
            call: RefCell::new(vec![String::new(); ranks]),
            epoch: RefCell::new(vec![0; ranks]),
            acked: RefCell::new(vec![false; ranks]),
            freed: RefCell::new(vec![0; ranks]),
            notes: RefCell::new(vec![[0; 2]; ranks * ranks]),
            toggled: RefCell::new(vec![[0; super::MAX_RANKS]; ranks]),
        }
    }

    /// `rank`'s epoch changed: its poll must look again.
    fn mark(&self, rank: usize) {
        if let Some((marks, spes)) = &self.marks {
            let m = &marks[spes[rank]];
            m.set(m.get() + 1);
        }
    }

    /// A rank became blocked: if nobody can move any more, every poller's next scan finds it.
    fn blocked(&self) {
        if self.marks.is_some() && self.stuck() {
            (0..self.state.borrow().len()).for_each(|r| self.mark(r));
        }
    }

    /// Set `rank`'s state, and see whether that leaves the job stuck.
    fn set_blocked(&self, rank: usize, state: State) {
        let old = std::mem::replace(&mut self.state.borrow_mut()[rank], state);
        if old != state {
            self.blocked();
        }
    }

    /// Rank `rank` enters the MPI call described by `what` ("MPI_Send to 1, tag 5").
    pub fn enter(&self, rank: usize, what: String) {
        self.call.borrow_mut()[rank] = what;
        self.running(rank);
    }

    /// A finished rank stays finished: a message landing in its entries (a freed send's, whose
    /// sender then waits in `MPI_Finalize`) does not make it run again.
    pub fn running(&self, rank: usize) {
        let mut state = self.state.borrow_mut();
        if state[rank] != State::Done {
            state[rank] = State::Running;
        }
        drop(state);
        self.epoch.borrow_mut()[rank] += 1;
        self.mark(rank);
    }

    /// A sender's entry has landed in `rank`'s local store: a polling rank rescans before it can
    /// count as stuck, but one blocked on a signal (its own synchronous send) stays blocked.
    pub fn landed(&self, rank: usize) {
        let mut state = self.state.borrow_mut();
        if state[rank] == State::Polling {
            state[rank] = State::Running;
        }
        drop(state);
        self.epoch.borrow_mut()[rank] += 1;
        self.mark(rank);
    }

    pub fn epoch(&self, rank: usize) -> u64 {
        self.epoch.borrow()[rank]
    }

    pub fn polling(&self, rank: usize) {
        self.set_blocked(rank, State::Polling);
    }

    /// The sender's meta-data has landed: it waits for the signal unless that is already sent.
    pub fn acking(&self, rank: usize) {
        if !self.acked.borrow()[rank] {
            self.set_blocked(rank, State::Acking);
        }
    }

    /// A receiver signals `rank`'s send: that rank will run again.
    pub fn acknowledged(&self, rank: usize) {
        self.acked.borrow_mut()[rank] = true;
        self.running(rank);
    }

    /// `rank` has read its acknowledging signal.
    pub fn ack_received(&self, rank: usize) {
        self.acked.borrow_mut()[rank] = false;
        self.running(rank);
    }

    /// `rank` waits for the entry `slot` to be freed, unless its receiver already signalled it.
    pub fn slot_wait(&self, rank: usize, slot: u32) {
        if self.freed.borrow()[rank] & slot == 0 {
            self.set_blocked(rank, State::SlotWait(slot));
        }
    }

    /// The receiver of `sender`'s entry `slot` has taken its message and signals it: a sender
    /// waiting for that entry will run again.
    pub fn slot_freed(&self, sender: usize, slot: u32) {
        self.freed.borrow_mut()[sender] |= slot;
        // A sender waiting in a nonblocking wait (polling) may progress on it too.
        if matches!(self.state.borrow()[sender], State::SlotWait(b) if b == slot) || self.state.borrow()[sender] == State::Polling {
            self.running(sender);
        }
    }

    /// Whether the receiver of an entry in `mask` has signalled `rank` and the signal is not yet
    /// read, or a receiver has toggled a completion bit of `rank`'s that it has not yet seen.
    pub fn signal_pending(&self, rank: usize, mask: u32) -> bool {
        self.freed.borrow()[rank] & mask != 0 || self.toggled.borrow()[rank].iter().any(|&w| w != 0)
    }

    /// `receiver` toggles `bits` of `sender`'s completion word for it: the sender will run again.
    pub fn toggle(&self, sender: usize, receiver: usize, bits: u32) {
        self.toggled.borrow_mut()[sender][receiver] ^= bits;
        self.running(sender);
    }

    /// `sender` has seen the toggles of `bits` in its completion word for `receiver`.
    pub fn toggle_seen(&self, sender: usize, receiver: usize, bits: u32) {
        self.toggled.borrow_mut()[sender][receiver] ^= bits;
    }

    /// `rank` has read the signals of the entries in `bits`.
    pub fn slots_seen(&self, rank: usize, bits: u32) {
        self.freed.borrow_mut()[rank] &= !bits;
        self.running(rank);
    }

    pub fn done(&self, rank: usize) {
        self.set_blocked(rank, State::Done);
    }

    /// `from` has sent its `n`-th library notification of `kind` to `to`.
    pub fn notified(&self, from: usize, to: usize, kind: usize, n: u32) {
        let ranks = self.state.borrow().len();
        self.notes.borrow_mut()[from * ranks + to][kind] = n;
        self.blocked();
    }

    /// `rank`, in a library collective, waits for `peer`'s notification number `want` of `kind`.
    pub fn coll_wait(&self, rank: usize, peer: usize, kind: usize, want: u32) {
        self.set_blocked(rank, State::CollWait { peer, kind, want });
    }

    /// `rank` waits in a library collective that can never run (another rank entered a
    /// different call as the same collective).
    pub fn coll_refused(&self, rank: usize) {
        self.set_blocked(rank, State::CollRefused);
    }

    /// True when no rank still running can make progress.
    pub fn stuck(&self) -> bool {
        let s = self.state.borrow();
        let notes = self.notes.borrow();
        let blocked = |r: usize| match s[r] {
            State::Running => false,
            State::CollWait { peer, kind, want } => notes[peer * s.len() + r][kind] < want,
            _ => true,
        };
        s.iter().any(|&x| x != State::Done) && (0..s.len()).all(|r| s[r] == State::Done || blocked(r))
    }

    /// The deadlock found at `now`, as every rank's pending call.
    pub fn deadlock(&self, now: Time) -> Error {
        Error::Deadlock(format!("deadlock at {now}: {}", self.report()))
    }

    /// "rank 0 waits in MPI_Send to 1, tag 5; rank 1 has finished; ..." over every rank.
    pub fn report(&self) -> String {
        let s = self.state.borrow();
        let c = self.call.borrow();
        (0..s.len())
            .map(|r| match s[r] {
                State::Done => format!("rank {r} has finished"),
                _ => format!("rank {r} waits in {}", c[r]),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stuck_only_when_nobody_runs_and_report_names_calls() {
        let t = Tracker::new(3);
        t.enter(0, "MPI_Send to 1, tag 5".into());
        t.enter(1, "MPI_Send to 0, tag 5".into());
        t.acking(0);
        assert!(!t.stuck());
        t.acking(1);
        t.done(2);
        assert!(t.stuck());
        assert_eq!(t.report(), "rank 0 waits in MPI_Send to 1, tag 5; rank 1 waits in MPI_Send to 0, tag 5; rank 2 has finished");
        t.done(0);
        t.done(1);
        assert!(!t.stuck(), "all finished is not stuck");
    }

    #[test]
    fn a_sender_waiting_for_a_freed_entry_is_stuck_only_until_it_is_freed() {
        let t = Tracker::new(2);
        t.enter(0, "MPI_Send to 1, tag 0".into());
        t.enter(1, "MPI_Recv from 0, tag 9".into());
        t.polling(1);
        let (to1, to1_coll, to0) = (0b10, 0b10 << 16, 0b01);
        t.slot_wait(0, to1);
        assert!(t.stuck());
        // Freed by another receiver, or rank 1's other context: still stuck; this one: running.
        t.slot_freed(0, to0);
        t.slot_freed(0, to1_coll);
        assert!(t.stuck());
        t.slot_freed(0, to1);
        assert!(!t.stuck());
        // A signal already sent but not yet read: waiting for it is not stuck.
        t.slot_wait(0, to1);
        assert!(!t.stuck());
        t.slots_seen(0, to0 | to1 | to1_coll);
        t.slot_wait(0, to1);
        assert!(t.stuck());
    }

    #[test]
    fn a_collective_wait_is_blocked_only_until_its_peer_has_sent() {
        let t = Tracker::new(3);
        t.enter(0, "MPI_Bcast from root 0 of 4 bytes (library broadcast.binomial)".into());
        t.enter(1, "MPI_Bcast from root 0 of 4 bytes (library broadcast.binomial)".into());
        t.enter(2, "MPI_Recv from 1, tag 3".into());
        // The leaf waits for the root's first announcement, the root for the leaf's ACK.
        t.coll_wait(1, 0, 0, 1);
        t.polling(2);
        assert!(!t.stuck(), "the root runs");
        t.coll_wait(0, 1, 1, 1);
        assert!(t.stuck(), "each waits for a notification nobody has sent");
        // Sent (perhaps still in flight): the leaf will finish its part and may then send to 2.
        t.notified(0, 1, 0, 1);
        assert!(!t.stuck());
        // Another kind, or an earlier count, does not release it.
        t.notified(0, 1, 0, 0);
        t.notified(0, 1, 1, 1);
        assert!(t.stuck());
        t.done(2);
        assert!(t.stuck(), "a finished rank sends nothing");
        assert_eq!(
            t.report(),
            "rank 0 waits in MPI_Bcast from root 0 of 4 bytes (library broadcast.binomial); \
             rank 1 waits in MPI_Bcast from root 0 of 4 bytes (library broadcast.binomial); rank 2 has finished"
        );
    }

    #[test]
    fn a_refused_collective_never_runs() {
        let t = Tracker::new(2);
        t.enter(0, "MPI_Barrier (library barrier.rdb)".into());
        t.enter(1, "MPI_Bcast".into());
        t.coll_refused(1);
        assert!(!t.stuck());
        t.coll_wait(0, 1, 0, 1);
        assert!(t.stuck());
        t.notified(1, 0, 0, 1);
        assert!(!t.stuck(), "sent: rank 0 goes on");
    }
}
