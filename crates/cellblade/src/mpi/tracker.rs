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

use std::cell::RefCell;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Polling,
    Acking,
    /// A sender waits for the receiver (the rank given) to free its last buffered entry.
    SlotWait(usize),
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
    /// Per sender, the receivers (a bit each) that have freed its buffered entry and signalled,
    /// before the sender read the signal.
    freed: RefCell<Vec<u32>>,
}

impl Tracker {
    pub fn new(ranks: usize) -> Tracker {
        Tracker {
            state: RefCell::new(vec![State::Running; ranks]),
            call: RefCell::new(vec![String::new(); ranks]),
            epoch: RefCell::new(vec![0; ranks]),
            acked: RefCell::new(vec![false; ranks]),
            freed: RefCell::new(vec![0; ranks]),
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
        self.epoch.borrow_mut()[rank] += 1;
    }

    pub fn epoch(&self, rank: usize) -> u64 {
        self.epoch.borrow()[rank]
    }

    pub fn polling(&self, rank: usize) {
        self.state.borrow_mut()[rank] = State::Polling;
    }

    /// The sender's meta-data has landed: it waits for the signal unless that is already sent.
    pub fn acking(&self, rank: usize) {
        if !self.acked.borrow()[rank] {
            self.state.borrow_mut()[rank] = State::Acking;
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

    /// `rank` waits for `dest` to free its buffered entry, unless `dest` already signalled it.
    pub fn slot_wait(&self, rank: usize, dest: usize) {
        if self.freed.borrow()[rank] & (1 << dest) == 0 {
            self.state.borrow_mut()[rank] = State::SlotWait(dest);
        }
    }

    /// Receiver `by` has taken `sender`'s buffered message and signals it: a sender waiting for
    /// that entry will run again.
    pub fn slot_freed(&self, sender: usize, by: usize) {
        self.freed.borrow_mut()[sender] |= 1 << by;
        // A sender waiting in a nonblocking wait (polling) may progress on it too.
        if matches!(self.state.borrow()[sender], State::SlotWait(b) if b == by) || self.state.borrow()[sender] == State::Polling {
            self.running(sender);
        }
    }

    /// Whether a receiver in `mask` has signalled `rank` and the signal is not yet read.
    pub fn signal_pending(&self, rank: usize, mask: u32) -> bool {
        self.freed.borrow()[rank] & mask != 0
    }

    /// `rank` has read the signals of the receivers in `bits`.
    pub fn slots_seen(&self, rank: usize, bits: u32) {
        self.freed.borrow_mut()[rank] &= !bits;
        self.running(rank);
    }

    pub fn done(&self, rank: usize) {
        self.state.borrow_mut()[rank] = State::Done;
    }

    /// True when no rank still running can make progress.
    pub fn stuck(&self) -> bool {
        let s = self.state.borrow();
        s.iter().any(|&x| x != State::Done) && s.iter().all(|&x| x != State::Running)
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
        t.slot_wait(0, 1);
        assert!(t.stuck());
        // Freed by another receiver: still stuck; by rank 1: running.
        t.slot_freed(0, 0);
        assert!(t.stuck());
        t.slot_freed(0, 1);
        assert!(!t.stuck());
        // A signal already sent but not yet read: waiting for it is not stuck.
        t.slot_wait(0, 1);
        assert!(!t.stuck());
        t.slots_seen(0, 0b11);
        t.slot_wait(0, 1);
        assert!(t.stuck());
    }
}
