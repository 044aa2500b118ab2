//! The schedule: one collective algorithm written once, as data, for every reader (the
//! simulator's lowering, the data-only verifier, the drawing, the placement search).
//!
//! Each rank has one working buffer. A schedule is a list of rounds; in a round, each transfer
//! moves `bytes` from `src`'s buffer at `src_offset` to `dst`'s buffer at `dst_offset`, either
//! copying, or combining with the reduction operator (`dst op= src`), or, with no bytes, only
//! notifying (barriers). Within a round every transfer reads the buffers as they were at the start
//! of the round, and a rank's round starts when it has finished the previous one.
//!
//! Each transfer also names how its announcement travels ([`Via`]): local-store ADDR/ACK arrays
//! (the default, seed 000 §3.1), mailboxes (§3.2), OR-mode signal bits or atomic counters in
//! main memory (notifications only). A transfer with `src == dst` is a local copy by the SPU
//! (the staging copies of the CML-style baseline).
//!
//! A schedule also names its point-to-point protocol ([`Protocol`]): the seed's notifications
//! (the sender announces, the reader gets and acknowledges), or CML's receiver-initiated
//! messages (the reader asks, the sender puts the data, then a completion).
//!
//! Text form (stable, one line per transfer):
//! ```text
//! schedule allgather.rdb op=allgather p=4 root=0 size=64 buffer=256
//! round 0
//!   0 <- 1 copy 64 @64 -> @64
//!   2 <- 3 notify via mailbox
//! ```

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::error::{config_err, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
            // Saturating: a buffer past 4 GiB is refused by the local-store check either way.
            Op::Allgather => size.saturating_mul(p as u32),
            _ => size,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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

/// How a transfer's announcement (ADDR) and acknowledgement (ACK) travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// 16-byte entries of the ADDR and ACK arrays in local store, written by DMA (seed 000 §3.1).
    #[default]
    #[serde(rename = "ls")]
    LocalStore,
    /// The receiver's inbound mailbox: a 64-bit address as two 32-bit messages, an ACK or a
    /// notification as one (seed 000 §3.2). Four entries; a full one loses messages.
    Mailbox,
    /// One bit per sender in the receiver's signal register 1 in OR mode (notifications only).
    Signal,
    /// An atomic increment of the receiver's counter line in main memory, which it polls
    /// (notifications only: the centralized atomic barrier).
    Atomic,
}

impl Via {
    pub fn name(self) -> &'static str {
        match self {
            Via::LocalStore => "ls",
            Via::Mailbox => "mailbox",
            Via::Signal => "signal",
            Via::Atomic => "atomic",
        }
    }
}

/// The point-to-point protocol a schedule's transfers are lowered with (coll/lower.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// Seed 000 §3.1: the sender announces its data (ADDR), the reader gets it from the
    /// sender's local store and acknowledges (ACK).
    #[default]
    Notify,
    /// CML's messages (Pakin, IPDPS 2008, as seed 000 §4 names them): the receiver posts a
    /// receive by sending a request to the sender; the sender, once the request has come, puts
    /// the data into the receiver's buffer, then writes a completion the receiver waits for.
    /// Each end runs the library's per-message code (`spu.cml_message_core_cycles`).
    ReceiverInitiated,
}

/// One transfer. In JSON (the form Python schedule generators produce) the offsets, `bytes`
/// and `via` may be left out for a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Xfer {
    pub dst: usize,
    pub src: usize,
    #[serde(default)]
    pub src_offset: u32,
    #[serde(default)]
    pub dst_offset: u32,
    #[serde(default)]
    pub bytes: u32,
    pub action: Action,
    #[serde(default)]
    pub via: Via,
}

impl Xfer {
    pub fn copy(dst: usize, src: usize, offset: u32, bytes: u32) -> Xfer {
        Xfer { dst, src, src_offset: offset, dst_offset: offset, bytes, action: Action::Copy, via: Via::LocalStore }
    }
    pub fn reduce(dst: usize, src: usize, offset: u32, bytes: u32) -> Xfer {
        Xfer { dst, src, src_offset: offset, dst_offset: offset, bytes, action: Action::Reduce, via: Via::LocalStore }
    }
    pub fn notify(dst: usize, src: usize) -> Xfer {
        Xfer { dst, src, src_offset: 0, dst_offset: 0, bytes: 0, action: Action::Notify, via: Via::LocalStore }
    }
    /// A local copy within `rank`'s buffer, done by its SPU.
    pub fn local(rank: usize, src_offset: u32, dst_offset: u32, bytes: u32) -> Xfer {
        Xfer { dst: rank, src: rank, src_offset, dst_offset, bytes, action: Action::Copy, via: Via::LocalStore }
    }
    pub fn via(mut self, via: Via) -> Xfer {
        self.via = via;
        self
    }
    pub fn is_local(&self) -> bool {
        self.src == self.dst
    }
}

/// A schedule; its JSON form names `p` "spes", and `buffer` (0: the operation's) and `ordered`
/// (true) may be left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    pub algorithm: String,
    pub op: Op,
    #[serde(rename = "spes")]
    pub p: usize,
    pub root: usize,
    /// The message size: the broadcast or reduced vector, or each rank's all-gather block.
    pub size: u32,
    #[serde(default)]
    pub buffer: u32,
    /// Ordered rounds (the seed's "opt"): a rank starts a round only once everyone who read
    /// from it in the previous round has acknowledged. Unordered ("simple") rounds let a rank
    /// announce all its sends as soon as its own data is complete.
    #[serde(default = "ordered_by_default")]
    pub ordered: bool,
    /// How each transfer is carried out (the CML-style baseline's receiver-initiated messages,
    /// or the seed's notifications).
    #[serde(default)]
    pub protocol: Protocol,
    pub rounds: Vec<Vec<Xfer>>,
}

fn ordered_by_default() -> bool {
    true
}

/// The arguments every collective call must satisfy: 1 to 16 ranks, a root among them, and
/// (except for barriers) a message of whole quadwords.
pub fn check_call(algorithm: &str, op: Op, p: usize, root: usize, size: u32) -> Result<()> {
    if p == 0 || p > 16 {
        return Err(crate::error::field_err("spes", p, "1 to 16"));
    }
    if root >= p {
        return Err(crate::error::field_err("root", root, format!("0 to {}", p - 1)));
    }
    if op != Op::Barrier && (size == 0 || !size.is_multiple_of(16)) {
        return Err(config_err(format!("size {size} is not allowed for {algorithm}: a multiple of 16 bytes (a quadword)")));
    }
    Ok(())
}

impl Schedule {
    pub fn new(algorithm: &str, op: Op, p: usize, root: usize, size: u32) -> Schedule {
        Schedule {
            algorithm: algorithm.into(),
            op,
            p,
            root,
            size,
            buffer: op.buffer_bytes(p, size),
            ordered: true,
            protocol: Protocol::Notify,
            rounds: Vec::new(),
        }
    }

    /// A schedule written elsewhere (a Python generator), in its JSON form, checked.
    pub fn from_value(v: serde_json::Value) -> Result<Schedule> {
        let mut s: Schedule = serde_json::from_value(v).map_err(|e| config_err(format!("schedule: {e}")))?;
        check_call(&s.algorithm, s.op, s.p, s.root, s.size)?;
        let least = s.op.buffer_bytes(s.p, s.size);
        if s.buffer == 0 {
            s.buffer = least;
        }
        if s.buffer < least || !s.buffer.is_multiple_of(16) {
            return Err(config_err(format!(
                "{}: buffer {} is not allowed: a multiple of 16 bytes, at least the {least} bytes the {} needs",
                s.algorithm,
                s.buffer,
                s.op.name()
            )));
        }
        s.check()?;
        Ok(s)
    }

    /// Does any transfer go through `via`?
    pub fn uses(&self, via: Via) -> bool {
        self.rounds.iter().flatten().any(|x| x.via == via)
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
            if self.protocol == Protocol::ReceiverInitiated { " receiver_initiated" } else { "" },
        );
        for (k, round) in self.rounds.iter().enumerate() {
            let _ = writeln!(out, "round {k}");
            for x in round {
                let via = if x.via == Via::LocalStore { String::new() } else { format!(" via {}", x.via.name()) };
                let _ = match x.action {
                    Action::Notify => writeln!(out, "  {} <- {} notify{via}", x.dst, x.src),
                    a => writeln!(out, "  {} <- {} {} {} @{} -> @{}{via}", x.dst, x.src, a.name(), x.bytes, x.src_offset, x.dst_offset),
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
                if x.dst >= self.p || x.src >= self.p {
                    return Err(config_err(format!(
                        "{}: round {k}: transfer {} <- {} names a rank that does not exist: allowed 0 to {}",
                        self.algorithm,
                        x.dst,
                        x.src,
                        self.p - 1
                    )));
                }
                if x.is_local() && x.action != Action::Copy {
                    return Err(config_err(format!(
                        "{}: round {k}: transfer {} <- {} is a {} from a rank to itself: only a copy can be local (the SPU copies within its own buffer)",
                        self.algorithm,
                        x.dst,
                        x.src,
                        x.action.name()
                    )));
                }
                if matches!(x.via, Via::Signal | Via::Atomic) && x.action != Action::Notify {
                    return Err(config_err(format!(
                        "{}: round {k}: transfer {} <- {}: {} carries notifications only",
                        self.algorithm,
                        x.dst,
                        x.src,
                        x.via.name()
                    )));
                }
                let data = x.action != Action::Notify;
                if data && (x.bytes == 0 || [x.bytes, x.src_offset, x.dst_offset].iter().any(|v| v % 16 != 0)) {
                    return Err(config_err(format!("{}: round {k}: transfer {} <- {} moves {} bytes @{} -> @{}: DMAs move whole quadwords (bytes above 0, offsets and bytes multiples of 16)", self.algorithm, x.dst, x.src, x.bytes, x.src_offset, x.dst_offset)));
                }
                let end = |offset: u32| u64::from(offset) + u64::from(x.bytes);
                if end(x.src_offset) > u64::from(self.buffer) || end(x.dst_offset) > u64::from(self.buffer) {
                    return Err(config_err(format!(
                        "{}: round {k}: transfer {} <- {} runs past the {}-byte buffer",
                        self.algorithm, x.dst, x.src, self.buffer
                    )));
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
