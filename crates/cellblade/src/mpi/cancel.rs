//! `MPI_Cancel` (MPI-1 §3.8.4): a request not yet matched completes as cancelled, and
//! `MPI_Test_cancelled` says so; one already matched completes as it would have.
//!
//! A receive is the rank's own record: cancelling it costs nothing. A send may be in three
//! places, and is retracted from each without the receiver's help (MPI requires the wait on a
//! cancelled request to return whatever the other ranks do):
//!
//! ```text
//! where the send is                  what the sender does
//! queued here (its entry is busy)    drops it
//! posted: B_ij flagged               reads B_ij's line and, if still flagged, unflags it
//!                                    (an atomic update of the line: get it, put it back)
//! parked by the receiver             the same line's cost; marks the message cancelled in the
//!                                    receiver's queue, which drops it when it next looks
//! anything else                      not cancelled: a receive has matched it
//! ```
//!
//! The decision falls in the instant the line's get completes, and the receiver claims an entry
//! or a parked message in the instant it matches it (`unexpected.rs`), so a message is either
//! cancelled or received. A send cancelled while the receiver parks it still waits for the
//! entry's bit in signal 2 (which the receiver sends when it parks), so the completion word's
//! toggle is noted and the index can be used again.

use crate::error::Result;
use crate::machine::memory::Memory;

use super::layout::{self, meta, tag, META_BYTES, OUT_META};
use super::pending::{Req, Request, SendState};
use super::rank::{Rank, Status};
use super::unexpected::Ack;

impl Rank {
    /// `MPI_Cancel`: whether the request was cancelled (its wait then reports `code::CANCELLED`).
    pub(super) async fn cancel(&self, id: Request) -> Result<bool> {
        self.check_request("MPI_Cancel", id)?;
        let req = self.reqs.borrow()[id.0].clone();
        match req {
            Some(Req::Recv { status: None, tag, .. }) => {
                self.complete_recv(id.0, Status { source: 0, tag, bytes: 0, sent: 0, error: super::code::CANCELLED });
                Ok(true)
            }
            Some(Req::Send { state: SendState::Queued, .. }) => {
                self.mark_cancelled(id, SendState::Done);
                Ok(true)
            }
            Some(Req::Send { state: state @ (SendState::Posted | SendState::Parked), dest, comm, index, cancelled: false, .. }) => {
                self.charge_call().await;
                let line = Memory::ls_ea(self.boot.spes[dest], layout::entry(self.boot.rank, comm));
                self.spu().mfc_get(OUT_META, line, META_BYTES, tag::META).await?;
                self.spu().mfc_write_tag_mask(1 << tag::META);
                self.spu().mfc_read_tag_status_all().await?;
                let Some(now) = self.retract(state, dest, comm, index) else { return Ok(false) };
                if now == SendState::Done && state == SendState::Posted {
                    // Unflagged in its entry: the line goes back, and the entry is free again.
                    self.spu().ls_write_u32(OUT_META + meta::FLAG, 0)?;
                    self.spu().mfc_put(OUT_META, line, META_BYTES, tag::META).await?;
                    self.spu().mfc_read_tag_status_all().await?;
                }
                self.mark_cancelled(id, now);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// In one instant: take the send out of `dest`'s entry or queue if no receive has claimed
    /// it; its state from now on (`None`: it was matched, and is not cancelled).
    fn retract(&self, state: SendState, dest: usize, comm: u32, index: u32) -> Option<SendState> {
        let (spe, at) = (self.boot.spes[dest], (layout::entry(self.boot.rank, comm) + meta::FLAG) as usize);
        let flagged = self.spu().with_machine(|m| m.mem.ls[spe][at..at + 4] != [0; 4]);
        if state == SendState::Posted && flagged {
            self.spu().with_machine(|m| {
                m.mem.ls[spe][at..at + 4].fill(0);
                m.mem.ls_writes[spe] += 1;
            });
            self.busy.set(self.busy.get() & !layout::slot_bit(dest, comm));
            return Some(SendState::Done);
        }
        let me = self.boot.rank;
        let mut queue = self.parked_at(dest).borrow_mut();
        let p = queue.iter_mut().find(|p| p.source == me && p.comm == comm && p.ack == Ack::Word(index) && !p.cancelled)?;
        p.cancelled = true;
        // Parked but not yet seen parked: the entry's bit in signal 2 is still to come.
        Some(if state == SendState::Posted { SendState::Posted } else { SendState::Done })
    }

    fn mark_cancelled(&self, id: Request, now: SendState) {
        if let Some(Req::Send { state, cancelled, .. }) = &mut self.reqs.borrow_mut()[id.0] {
            *state = now;
            *cancelled = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::machine::config;
    use crate::mpi::{code, Mode, MpiWorld};

    fn qs20() -> config::MachineFile {
        config::load(config::preset_text("qs20").unwrap(), &[]).unwrap()
    }

    #[test]
    fn cancel_completes_an_unmatched_receive_and_leaves_a_matched_one() {
        let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
        w.rank(0, |r| async move {
            let b = r.alloc(8)?;
            let never = r.irecv(b, 8, 1, 9, 0)?;
            assert!(r.cancel(never).await?, "no message matched it");
            assert_eq!(r.wait(never).await?.error, code::CANCELLED);
            let q = r.irecv(b, 8, 1, 3, 0)?;
            let t = r.alloc(4)?;
            r.recv(t, 4, 1, 4, 0).await?; // tag 3 was sent first: q has matched by now
            assert!(!r.cancel(q).await?, "a matched receive completes");
            let st = r.wait(q).await?;
            assert_eq!((st.error, st.bytes), (code::SUCCESS, 8));
            Ok(())
        })
        .unwrap();
        w.rank(1, |r| async move {
            let b = r.alloc(8)?;
            r.send(b, 8, 0, 3, 0).await?;
            r.send(b, 4, 0, 4, 0).await?;
            Ok(())
        })
        .unwrap();
        w.run().unwrap();
    }

    /// Rank 0 isends tag 5 (and a queued tag 6 behind it), waits `delay` core cycles, runs
    /// `test` passes, cancels both, then sends tag 7 with `[7; 16]`; rank 1 receives only tag 7
    /// (after `busy` cycles of computing). Both cancels succeed, tag 7 arrives whole, and rank 1's
    /// queue gives back every byte.
    fn cancel_case(delay: u64, tests: usize, busy: u64) {
        let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
        w.rank(0, move |r| async move {
            let b = r.alloc(16)?;
            r.write(b, &[5; 16])?;
            let q5 = r.isend(b, 16, 1, 5, 0).await?;
            let q6 = r.isend(b, 16, 1, 6, 0).await?;
            r.spu().compute(delay).await;
            for _ in 0..tests {
                assert!(r.test(q5).await?.is_none(), "nobody receives tag 5");
            }
            assert!(r.cancel(q6).await? && r.cancel(q5).await?);
            assert_eq!(r.wait(q5).await?.error, code::CANCELLED);
            assert_eq!(r.wait(q6).await?.error, code::CANCELLED);
            let c = r.alloc(16)?;
            r.write(c, &[7; 16])?;
            r.send(c, 16, 1, 7, 0).await?;
            Ok(())
        })
        .unwrap();
        w.rank(1, move |r| async move {
            r.spu().compute(busy).await;
            let b = r.alloc(16)?;
            let st = r.recv(b, 16, 0, 7, 0).await?;
            assert_eq!((st.tag, st.bytes), (7, 16));
            assert_eq!(r.read(b, 16)?, vec![7; 16]);
            assert!(r.iprobe(0, crate::mpi::ANY_TAG, 0).await?.is_none(), "nothing cancelled is left");
            assert_eq!(r.queue_held(), 0);
            Ok(())
        })
        .unwrap();
        w.run().unwrap();
    }

    #[test]
    fn a_send_still_in_its_entry_is_unflagged() {
        // Rank 1 computes until long after the cancel: it never sees the entry flagged.
        cancel_case(0, 0, 1_000_000);
    }

    #[test]
    fn a_send_the_receiver_parked_is_dropped_from_its_queue() {
        // Rank 1 polls for tag 7 at once and parks tag 5; rank 0 cancels before it has read the
        // entry's bit (still posted), or after a test pass has seen it parked.
        cancel_case(200_000, 0, 0);
        cancel_case(200_000, 3, 0);
    }

    #[test]
    fn a_matched_send_is_not_cancelled() {
        let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
        w.rank(0, |r| async move {
            let b = r.alloc(16)?;
            r.write(b, &[3; 16])?;
            let q = r.isend(b, 16, 1, 5, 0).await?;
            r.recv(b, 0, 1, 9, 0).await?; // rank 1 has received tag 5 by now
            assert!(!r.cancel(q).await?, "a received send completes");
            assert_eq!(r.wait(q).await?.error, code::SUCCESS);
            Ok(())
        })
        .unwrap();
        w.rank(1, |r| async move {
            let b = r.alloc(16)?;
            assert_eq!(r.recv(b, 16, 0, 5, 0).await?.bytes, 16);
            assert_eq!(r.read(b, 16)?, vec![3; 16]);
            r.send(b, 0, 0, 9, 0).await?;
            Ok(())
        })
        .unwrap();
        w.run().unwrap();
    }
}
