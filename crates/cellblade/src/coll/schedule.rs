//! The schedule: one collective algorithm written once, as data, for every reader (the
//! simulator's lowering, the data-only verifier, the drawing, the placement search).
//!
//! Each rank has one working buffer. A schedule is a list of rounds; in a round, each transfer
//! moves `bytes` from `src`'s buffer at `src_offset` to `dst`'s buffer at `dst_offset`, either
//! copying, or combining with the reduction operator (`dst op= src`), or, with no bytes, only
//! notifying (barriers). Within a round every transfer reads the buffers as they were at the start
//! of the round, and a rank's round starts when it has finished the previous one.
//!
//! Text form (stable, one line per transfer):
//! ```text
//! schedule allgather.rdb op=allgather p=4 root=0 size=64 buffer=256
//! round 0
//!   0 <- 1 copy 64 @64 -> @64
//! ```

use std::fmt::Write;

use crate::error::{config_err, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Barrier,
    Broadcast,
    Reduce,
    Allreduce,
    Allgather,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::Barrier, Op::Broadcast, Op::Reduce, Op::Allreduce, Op::Allgather];

    pub fn name(self) -> &'static str {
        match self {
            Op::Barrier => "barrier",
            Op::Broadcast => "broadcast",
            Op::Reduce => "reduce",
            Op::Allreduce => "allreduce",
            Op::Allgather => "allgather",
        }
    }

    pub fn parse(s: &str) -> Result<Op> {
        Op::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| config_err(format!("unknown operation '{s}': allowed barrier, broadcast, reduce, allreduce, allgather")))
    }

    /// Bytes of each rank's working buffer for a message of `size` bytes on `p` ranks.
    pub fn buffer_bytes(self, p: usize, size: u32) -> u32 {
        match self {
            Op::Barrier => 0,
            Op::Allgather => size * p as u32,
            _ => size,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Copy,
    Reduce,
    Notify,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Copy => "copy",
            Action::Reduce => "reduce",
            Action::Notify => "notify",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Xfer {
    pub dst: usize,
    pub src: usize,
    pub src_offset: u32,
    pub dst_offset: u32,
    pub bytes: u32,
    pub action: Action,
}

impl Xfer {
    pub fn copy(dst: usize, src: usize, offset: u32, bytes: u32) -> Xfer {
        Xfer { dst, src, src_offset: offset, dst_offset: offset, bytes, action: Action::Copy }
    }
    pub fn reduce(dst: usize, src: usize, offset: u32, bytes: u32) -> Xfer {
        Xfer { dst, src, src_offset: offset, dst_offset: offset, bytes, action: Action::Reduce }
    }
    pub fn notify(dst: usize, src: usize) -> Xfer {
        Xfer { dst, src, src_offset: 0, dst_offset: 0, bytes: 0, action: Action::Notify }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pub algorithm: String,
    pub op: Op,
    pub p: usize,
    pub root: usize,
    /// The message size: the broadcast or reduced vector, or each rank's all-gather block.
    pub size: u32,
    pub buffer: u32,
    /// Ordered rounds (the seed's "opt"): a rank starts a round only once everyone who read
    /// from it in the previous round has acknowledged. Unordered ("simple") rounds let a rank
    /// announce all its sends as soon as its own data is complete.
    pub ordered: bool,
    /// Announcements go through signal register 1 in OR mode, one bit per sender, instead of
    /// the local-store ADDR array. Only for schedules where a sender cannot announce to the same
    /// rank again before that rank has seen the previous announcement (one-to-all barriers).
    pub signals: bool,
    pub rounds: Vec<Vec<Xfer>>,
}

impl Schedule {
    pub fn new(algorithm: &str, op: Op, p: usize, root: usize, size: u32) -> Schedule {
        Schedule { algorithm: algorithm.into(), op, p, root, size, buffer: op.buffer_bytes(p, size), ordered: true, signals: false, rounds: Vec::new() }
    }

    pub fn round(&mut self, xfers: Vec<Xfer>) {
        if !xfers.is_empty() {
            self.rounds.push(xfers);
        }
    }

    /// Does any transfer combine with the reduction operator?
    pub fn reduces(&self) -> bool {
        self.rounds.iter().flatten().any(|x| x.action == Action::Reduce)
    }

    /// The stable text form.
    pub fn text(&self) -> String {
        let mut out = format!(
            "schedule {} op={} p={} root={} size={} buffer={}{}{}\n",
            self.algorithm,
            self.op.name(),
            self.p,
            self.root,
            self.size,
            self.buffer,
            if self.ordered { "" } else { " unordered" },
            if self.signals { " signals" } else { "" }
        );
        for (k, round) in self.rounds.iter().enumerate() {
            let _ = writeln!(out, "round {k}");
            for x in round {
                let _ = match x.action {
                    Action::Notify => writeln!(out, "  {} <- {} notify", x.dst, x.src),
                    a => writeln!(out, "  {} <- {} {} {} @{} -> @{}", x.dst, x.src, a.name(), x.bytes, x.src_offset, x.dst_offset),
                };
            }
        }
        out
    }

    /// Structural checks every reader relies on: ranks in range, ranges inside the buffer, and
    /// no rank writes a range another rank reads from it in the same round.
    pub fn check(&self) -> Result<()> {
        for (k, round) in self.rounds.iter().enumerate() {
            for x in round {
                if x.dst >= self.p || x.src >= self.p || x.dst == x.src {
                    return Err(config_err(format!("{}: round {k}: transfer {} <- {} names a bad rank (p = {})", self.algorithm, x.dst, x.src, self.p)));
                }
                if x.src_offset + x.bytes > self.buffer || x.dst_offset + x.bytes > self.buffer {
                    return Err(config_err(format!("{}: round {k}: transfer {} <- {} runs past the {}-byte buffer", self.algorithm, x.dst, x.src, self.buffer)));
                }
            }
            for w in round.iter().filter(|x| x.action == Action::Copy) {
                for r in round.iter().filter(|r| r.src == w.dst && r.action != Action::Notify) {
                    let overlap = w.dst_offset < r.src_offset + r.bytes && r.src_offset < w.dst_offset + w.bytes;
                    if overlap {
                        return Err(config_err(format!(
                            "{}: round {k}: rank {} writes @{}+{} while rank {} reads @{}+{} from it",
                            self.algorithm, w.dst, w.dst_offset, w.bytes, r.dst, r.src_offset, r.bytes
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}
