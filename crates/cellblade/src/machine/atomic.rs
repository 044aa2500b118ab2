//! Lock-line reservations (getllar/putllc on 128-byte lines) and the MFC atomic caches.
//!
//! Model: a line lives in at most one SPE's atomic cache. getllar on a line held elsewhere hands
//! the line over as the reference note §3 describes it: a contended coherent command (through
//! the address concentrators, with retries and address-collision stalls: one fitted cost,
//! `atomic.handover_bus_cycles`, and the coherent crossing when the two are on different
//! chips), after which the holder loses its reservation and a 128-byte intervention carries the
//! line to the requester. One hand-over at a time per line, in request order; the
//! new holder keeps the line for a guard time (one atomic-cache access and the modify) so that
//! its putllc can land before the next snoop. A putllc after the snoop fails and the loop
//! retries, as `atomic_add_return`-style loops do. Private lines stay in their SPE's cache: both
//! commands hit.

use std::collections::{HashMap, VecDeque};

use crate::sim::Pid;

use super::topology::SPES;

#[derive(Default)]
pub struct Line {
    pub holder: Option<usize>,
    pub busy: bool,
    pub waiting: VecDeque<(usize, Pid)>,
    /// The requester whose getllar the holder is being asked to give the line up for.
    pub snooped_by: Option<(usize, Pid)>,
}

#[derive(Default)]
pub struct Atomic {
    pub lines: HashMap<u64, Line>,
    pub reservation: [Option<u64>; SPES],
}

pub fn line_of(ea: u64) -> u64 {
    ea & !127
}

impl Atomic {
    /// Does `spe` hold `line` in its atomic cache, with no hand-over under way?
    pub fn hit(&self, spe: usize, line: u64) -> bool {
        self.lines.get(&line).is_some_and(|l| l.holder == Some(spe) && l.waiting.is_empty())
    }

    /// putllc's check: the reservation is intact and the line still here.
    pub fn conditional_store_ok(&self, spe: usize, line: u64) -> bool {
        self.reservation[spe] == Some(line) && self.lines.get(&line).is_some_and(|l| l.holder == Some(spe))
    }

    /// A successful store to `line` kills every reservation on it.
    pub fn stored(&mut self, line: u64) {
        for r in self.reservation.iter_mut() {
            if *r == Some(line) {
                *r = None;
            }
        }
    }
}
