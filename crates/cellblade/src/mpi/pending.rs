//! The records of a rank's nonblocking requests (`MPI_Isend`, `MPI_Issend`, `MPI_Irecv`): what
//! each is, where it stands, and how it reads in a deadlock report. The progress engine that
//! moves them is `nonblocking.rs`.

use super::rank::Status;
use super::{code, ANY_SOURCE};

/// A nonblocking request's handle, valid until a wait or a successful test returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request(pub(super) usize);

impl Request {
    /// The handle as a number (its position in posting order), for the wire.
    pub fn id(self) -> usize {
        self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SendState {
    /// Waiting for the receiver's entry to be free.
    Queued,
    /// The entry is in the receiver's local store; waiting for its bit in signal 2.
    Posted,
    /// The receiver parked the message; waiting for the completion bit to toggle again.
    Parked,
    Done,
}

#[derive(Debug, Clone)]
pub(super) enum Req {
    /// `synchronous`: an `MPI_Issend`, never buffered.
    Send {
        buf: u64,
        bytes: u32,
        dest: usize,
        tag: i32,
        comm: u32,
        synchronous: bool,
        state: SendState,
        /// Its index among the sends to `dest` that may be parked (`unexpected.rs`).
        index: u32,
        freed: bool,
        /// `MPI_Cancel` retracted it (`cancel.rs`): done without being received.
        cancelled: bool,
    },
    Recv {
        buf: u64,
        cap: u32,
        source: i32,
        tag: i32,
        comm: u32,
        status: Option<Status>,
        freed: bool,
    },
}

impl Req {
    pub(super) fn done(&self) -> Option<Status> {
        match *self {
            Req::Send { bytes, dest, tag, state: SendState::Done, cancelled, .. } => {
                let error = if cancelled { code::CANCELLED } else { code::SUCCESS };
                Some(Status { source: dest, tag, bytes, sent: bytes, error })
            }
            Req::Recv { status, .. } => status,
            _ => None,
        }
    }

    pub(super) fn freed(&self) -> bool {
        match *self {
            Req::Send { freed, .. } | Req::Recv { freed, .. } => freed,
        }
    }

    pub(super) fn describe(&self) -> String {
        match *self {
            Req::Send { dest, tag, synchronous, .. } => {
                format!("{} to {dest}, tag {tag}", if synchronous { "MPI_Issend" } else { "MPI_Isend" })
            }
            Req::Recv { source, tag, .. } => {
                let from = if source == ANY_SOURCE { "any source".to_string() } else { source.to_string() };
                let tag = if tag == super::ANY_TAG { "any tag".to_string() } else { format!("tag {tag}") };
                format!("MPI_Irecv from {from}, {tag}")
            }
        }
    }
}
