//! Matching by source, tag and communicator (MPI-1 §3.5) on top of seed 004's one meta-data
//! entry per (sender, receiver, context): the unexpected queue.
//!
//! Seed 004 §3.3 has the receiver poll the entry B_ij, and a flagged entry whose tag does not
//! match the receive was left where it lay. But the entry carries every message from i to j on
//! that context, so one message nobody has asked for yet (tag 1 while the receiver wants tag
//! 2, or a message on a duplicate communicator while it receives on `MPI_COMM_WORLD`) blocked
//! every later one between the pair: correct MPI-1 programs deadlocked.
//!
//! What the receiver does now with a flagged entry that matches no posted receive (the blocking
//! receive it polls for, or none of the pending nonblocking ones): it *parks* it. It copies the
//! entry's fields out of the local store into its unexpected queue, unsets the flag, and frees
//! the entry for the sender's next message. A later receive (or probe) looks at the queue first,
//! oldest first, then at the entries, so messages between a pair that match the same receive
//! stay in order, and `MPI_ANY_SOURCE`/`MPI_ANY_TAG` take the earliest eligible message.
//!
//! ```text
//! sender's kind               at parking                            when a receive takes it
//! blocking send (signal 1)    meta-data only; no signal             data moved; signal 1 with the code
//! nonblocking (signal 2 bit)  meta-data only; completion word       data moved; completion word
//!                             toggled, then the entry's bit         toggled again (the send is done)
//! buffered (§7, in the entry) meta-data and bytes copied out;       bytes copied from the queue
//!                             the entry's bit (the send was done)
//! ```
//!
//! The sender stays synchronous: its data stays in its own buffer until a receive matches it,
//! and a blocking or synchronous send completes only then. A nonblocking sender learns which
//! of its sends a freed entry means through its completion word for that receiver (one 32-bit
//! word per receiver in its local store, `layout::COMPLETIONS`; bit `index` for the
//! point-to-point context, `16 + index` for the collective one): the receiver toggles the send's
//! bit before the entry's signal when it parks the message, and again when it completes it. Only
//! the receiver writes that word, so a 4-byte DMA of its own copy suffices, and a toggle never
//! races with a clear. A sender has at most [`INDICES`] nonblocking sends in flight per receiver
//! and context (parked, or in the entry: the index travels in it); a further one waits in its
//! queue until one completes. That is a resource limit of this implementation: a program whose
//! receiver wants the 17th before any of the 16 is reported as a deadlock, not hung.
//!
//! Costs: parking copies the 128-byte entry (and a buffered message's bytes) by the SPU's loads
//! and stores (`spu.copy_core_cycles_per_quadword` a quadword), plus one 4-byte DMA and the
//! signal a nonblocking sender needs; taking a parked buffered message copies its bytes out as
//! the entry's would be. In-order traffic never parks, so it keeps seed 004's protocol and cost
//! to the tick.
//!
//! Space: a parked message takes room where the mode keeps message buffers, as the seed-path
//! buffers do (`Rank::alloc`): the local store's heap in ls mode, the main-memory heap in memory
//! mode. It holds [`parked_bytes`] (its 128-byte entry, and a buffered message's bytes, each
//! rounded to 128 as buffers are) from the moment it is parked until a receive takes it or its
//! sender cancels it; meanwhile no buffer can have those bytes. A message that does not fit
//! ends the job with an error naming the message, the bytes it needs, the bytes free and what
//! the queue already holds: a local store is 256 KB, and a queue that silently grew past it
//! would be a blade no one could build. The simulator keeps the queue's bytes itself, so the
//! charge is of space, not of addresses.
//!
//! `MPI_Cancel` of a send (MPI-1 §3.8.4) retracts it if no receive has matched it yet
//! (`cancel.rs`): a send still queued at the sender is dropped there; one whose entry is still
//! flagged in the receiver's local store is unflagged by the sender's atomic update of that
//! line; one the receiver has parked is marked cancelled in the receiver's queue, which drops
//! it (and gives back its space) the next time it looks. The receiver claims an entry (clears
//! its flag) and a parked message (takes it off the queue) at the instant it matches it, so a
//! send is either cancelled or received, never both.

use std::cell::RefCell;

use super::rank::Status;
use super::{ANY_SOURCE, ANY_TAG};

/// Parked sends a sender may have per receiver and context (the bits of half a completion word).
pub const INDICES: u32 = 16;

/// How the receiver tells the sender that a parked message has been taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ack {
    /// A blocking sender waits for signal 1 with the receiver's code.
    Code,
    /// A nonblocking sender waits for its completion word's bit.
    Word(u32),
    /// A buffered message: its send completed when the entry landed.
    None,
}

/// A message out of its entry: the meta-data's fields, and a buffered message's bytes.
#[derive(Debug, Clone)]
pub(super) struct Parked {
    pub source: usize,
    pub tag: i32,
    pub comm: u32,
    pub size: u32,
    /// The sender's buffer (a buffered message carries its bytes in `inline` instead).
    pub addr: u64,
    pub inline: Option<Vec<u8>>,
    pub ack: Ack,
    /// Its sender cancelled it: no receive may take it, and its receiver drops it.
    pub cancelled: bool,
    /// The area of the receiver's (`Rank::alloc` order) that holds its bytes, and how many.
    pub held: (usize, u64),
}

impl Parked {
    /// Whether a receive from `source` (or `ANY_SOURCE`) with `tag` (or `ANY_TAG`) on `comm`
    /// matches this message.
    pub fn matches(&self, source: i32, tag: i32, comm: u32) -> bool {
        !self.cancelled
            && (source == ANY_SOURCE || source == self.source as i32)
            && (tag == ANY_TAG || tag == self.tag)
            && comm == self.comm
    }

    pub fn status(&self) -> Status {
        Status { source: self.source, tag: self.tag, bytes: self.size, sent: self.size, error: super::code::SUCCESS }
    }
}

/// The space a parked message of `size` bytes holds: its entry, and its bytes if it travelled
/// in the entry (buffered), each rounded to 128 bytes as message buffers are.
pub fn parked_bytes(size: u32, inline: bool) -> u64 {
    u64::from(super::layout::META_BYTES) + if inline { u64::from(size).next_multiple_of(128) } else { 0 }
}

/// Every rank's unexpected queue, oldest first: its receiver matches and takes from it, and a
/// sender's `MPI_Cancel` marks its own message there.
#[derive(Debug)]
pub(super) struct Queues(Vec<RefCell<Vec<Parked>>>);

impl Queues {
    pub fn new(ranks: usize) -> Queues {
        Queues((0..ranks).map(|_| RefCell::default()).collect())
    }

    /// The queue of `rank`.
    pub fn of(&self, rank: usize) -> &RefCell<Vec<Parked>> {
        &self.0[rank]
    }
}

/// The bit of a parked send's `index` on `comm`'s context in a completion word.
pub fn completion_bit(index: u32, comm: u32) -> u32 {
    1 << (index + if super::layout::collective(comm) { INDICES } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parked_message_matches_by_source_tag_and_communicator() {
        let mut p = Parked { source: 2, tag: 7, comm: 4, size: 8, addr: 0, inline: None, ack: Ack::Code, cancelled: false, held: (0, 128) };
        assert!(p.matches(2, 7, 4) && p.matches(ANY_SOURCE, 7, 4) && p.matches(2, ANY_TAG, 4));
        assert!(!p.matches(1, 7, 4) && !p.matches(2, 8, 4) && !p.matches(2, 7, 0), "another source, tag or communicator");
        p.cancelled = true;
        assert!(!p.matches(2, 7, 4) && !p.matches(ANY_SOURCE, ANY_TAG, 4), "a cancelled message matches nothing");
        assert_eq!((parked_bytes(80, true), parked_bytes(1 << 20, false), parked_bytes(0, true)), (256, 128, 128));
        assert_eq!(completion_bit(3, 0), 1 << 3);
        assert_eq!(completion_bit(3, 1), 1 << 19);
        assert_eq!(completion_bit(INDICES - 1, 7), 1 << 31);
    }
}
