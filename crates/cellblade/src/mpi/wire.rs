//! The request/answer format between a rank process (`libmpi/src/pt2pt/pt2pt.c`)
//! and the simulator, over a stream socket; in the rank's byte order ([`Order`]): the host's
//! for a program built for the host, big-endian for a PowerPC rank under qemu-user
//! (`mpirun --compute model`). The first request's op word says which.
//!
//! ```text
//! request  u32 op, i32 a, i32 b, i32 c, u64 len, then len payload bytes
//! answer   i32 err, i32 source, i32 tag, u32 flags, u64 count, f64 value, then count bytes
//! ```
//!
//! A rank that sends a channel file with its first request (`OP_INIT`) makes every later call
//! through shared memory instead ([`super::channel`]), in the same format.
//!
//! The C side mirrors these numbers; `tests/test_mpi_c.py` checks that the two agree.

use std::io::{self, Read, Write};

pub const OP_INIT: u32 = 1;
pub const OP_FINALIZE: u32 = 2;
/// a = dest, b = tag, c = communicator; payload: the message.
pub const OP_SEND: u32 = 3;
/// a = source, b = tag, c = communicator, len = capacity; answer: status and the bytes.
pub const OP_RECV: u32 = 4;
/// answer: value = simulated seconds (decrementer), count = 0.
pub const OP_WTIME: u32 = 5;
/// c = communicator.
pub const OP_BARRIER: u32 = 6;
/// a = error code.
pub const OP_ABORT: u32 = 7;
/// a = dest, b = send tag, c = communicator, len = 16 + send bytes; payload: i32 source,
/// i32 receive tag, u64 capacity, then the message; answer as `OP_RECV`.
pub const OP_SENDRECV: u32 = 8;
/// a = source, b = tag, c = communicator; answer: source, tag, value = the message's bytes.
pub const OP_PROBE: u32 = 9;
/// As `OP_PROBE`, without waiting: source = `NO_MATCH` when nothing matches.
pub const OP_IPROBE: u32 = 10;
pub const NO_MATCH: i32 = -32766;
/// Charge the rank's SPU for work its process did: a = `COMPUTE_CYCLES` (len core cycles) or
/// `COMPUTE_DP_FMA` (len scalar double-precision multiply-adds).
pub const OP_COMPUTE: u32 = 11;
pub const COMPUTE_CYCLES: i32 = 0;
pub const COMPUTE_DP_FMA: i32 = 1;
/// A collective on the collective library ([`super::collective`]): a = family (0 barrier,
/// 1 bcast, 2 reduce, 3 allreduce, 4 allgather) or `COLL_QUERY`, b = root, c = communicator;
/// payload: u32 datatype (0 bytes, 1 int32, 2 float32, 3 float64), u32 operation (0 none, 1 sum,
/// 2 min, 3 max, 4 prod), u64 bytes of one rank's message, then the rank's contribution.
/// Answer: the result's bytes, or err = `COLL_SEED`: take the seed's path. To `COLL_QUERY`:
/// source has bit f set if family f may run the library.
pub const OP_COLL: u32 = 12;
pub const COLL_QUERY: i32 = -1;
pub const COLL_SEED: i32 = -2;

/// Answer flag to `OP_INIT`: the job charges measured CPU time, so the rank measures it.
pub const FLAG_CPU_TIME: u32 = 1;
/// Answer flag to any later call: freed receives are done and wait for `OP_COLLECT`.
pub const FLAG_FREED_DONE: u32 = 2;
/// Answer flag to `OP_INIT`: the job outnumbers the host's cores, so the rank's MPI thread
/// waits on the simulator's core, named by the flags' bits from [`SHARE_CORE_SHIFT`] on, and
/// sleeps at once ([`super::share_core`]). In the flags, not a payload, so that a program
/// built with an earlier rank library, which ignores the bits, still runs.
pub const FLAG_SHARE_CORE: u32 = 4;
pub const SHARE_CORE_SHIFT: u32 = 8;
/// Answer flag to any call after `OP_INIT`: the simulator gave the rank's MPI thread its former
/// cores while the rank computed; it returns to the shared core ([`super::share_core`]).
pub const FLAG_REPIN: u32 = 8;

/// The answer to `OP_INIT`'s flags that tell a rank to wait on core `cpu` (a core number past
/// the bits' range is not told: the rank then keeps its cores).
pub fn share_core_flags(cpu: usize) -> u32 {
    u32::try_from(cpu).ok().filter(|&c| c < 1 << (32 - SHARE_CORE_SHIFT)).map_or(0, |c| FLAG_SHARE_CORE | c << SHARE_CORE_SHIFT)
}

/// Nonblocking point-to-point (`nb_wire.rs`). `OP_ISEND`: as `OP_SEND`, its payload led by the
/// address (u64) of the rank process's buffer; `OP_IRECV`: a = source, b = tag, c =
/// communicator, payload = that address and the capacity (u64 each); both answer tag = the
/// request's handle.
/// `OP_WAIT` and `OP_TEST`: a = handle; answer as `OP_RECV` (source = `NO_MATCH` from a test
/// of a request not yet done). `OP_WAITANY`: payload = the handles (i32 each); answer as
/// `OP_WAIT`, value = the index of the one done.
pub const OP_ISEND: u32 = 13;
pub const OP_IRECV: u32 = 14;
pub const OP_WAIT: u32 = 15;
pub const OP_TEST: u32 = 16;
pub const OP_WAITANY: u32 = 17;
/// `MPI_Ssend` and `MPI_Issend`: as `OP_SEND` and `OP_ISEND`, never buffered (they complete
/// only once the receiver has matched the message, whatever `mpi.buffered_bytes` says).
pub const OP_SSEND: u32 = 18;
pub const OP_ISSEND: u32 = 19;
/// `MPI_Request_free` (`nb_wire.rs`): a = handle; the request finishes in the background.
pub const OP_REQUEST_FREE: u32 = 20;
/// Collect the freed receives that are done: a = `COLLECT_NOW`, or `COLLECT_ALL` (at
/// `MPI_Finalize`: first run the engine until every freed request is done). Answer: count =
/// the payload's bytes, records one after the other, each an answer header as `OP_WAIT`'s
/// whose flags field holds the request's handle, then its count bytes. Charges no simulated
/// time beyond what the engine does.
pub const OP_COLLECT: u32 = 21;
/// `MPI_Cancel`: a = handle. A receive or a send that no receive has matched yet completes as
/// cancelled (its status's error is `code::CANCELLED`, `cancel.rs`); anything else completes as
/// it would have. Answer: value = 1 if it was cancelled.
pub const OP_CANCEL: u32 = 22;
pub const COLLECT_NOW: i32 = 0;
pub const COLLECT_ALL: i32 = 1;

pub const REQUEST_BYTES: usize = 24;
pub const ANSWER_BYTES: usize = 32;

/// A rank's byte order: the simulator reads every field it interprets (headers, the numbers in
/// payloads, reduction operands) in it and writes its answers so. Payload bytes it only moves
/// stay as the rank wrote them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Order {
    /// Whether the rank's order is the host's reversed.
    swapped: bool,
}

impl Order {
    /// A rank built for the host.
    pub const HOST: Order = Order { swapped: false };
    /// A big-endian rank (a PowerPC program under qemu-user).
    pub const BIG: Order = Order { swapped: cfg!(target_endian = "little") };

    /// The order of a rank whose first request's header is `b`: its op word is `OP_INIT` in the
    /// rank's order (the rank library's first call is always `MPI_Init`), so one whose bytes
    /// read `OP_INIT` only reversed comes from a rank of the other order. Anything else is
    /// taken as the host's (and refused as an unknown request if it is not one).
    pub fn of_first(b: &[u8; REQUEST_BYTES]) -> Order {
        let op = u32::from_ne_bytes(b[0..4].try_into().expect("4 bytes"));
        Order { swapped: op != OP_INIT && op.swap_bytes() == OP_INIT }
    }

    pub fn is_big_endian(self) -> bool {
        cfg!(target_endian = "big") != self.swapped
    }

    pub fn u32(self, b: &[u8]) -> u32 {
        let v = u32::from_ne_bytes(b[..4].try_into().expect("4 bytes"));
        if self.swapped {
            v.swap_bytes()
        } else {
            v
        }
    }

    pub fn i32(self, b: &[u8]) -> i32 {
        self.u32(b) as i32
    }

    pub fn u64(self, b: &[u8]) -> u64 {
        let v = u64::from_ne_bytes(b[..8].try_into().expect("8 bytes"));
        if self.swapped {
            v.swap_bytes()
        } else {
            v
        }
    }

    /// A 32-bit word as the rank stores it from its value, or its value from how it is stored
    /// (the same reversal both ways): for words both sides load and store whole, such as the
    /// shared-memory channel's sequence numbers.
    pub fn stored(self, v: u32) -> u32 {
        if self.swapped {
            v.swap_bytes()
        } else {
            v
        }
    }

    /// A 32-bit word as the rank stores it.
    pub fn put_u32(self, v: u32) -> [u8; 4] {
        if self.swapped { v.swap_bytes() } else { v }.to_ne_bytes()
    }

    pub fn put_i32(self, v: i32) -> [u8; 4] {
        self.put_u32(v as u32)
    }

    pub fn put_u64(self, v: u64) -> [u8; 8] {
        if self.swapped { v.swap_bytes() } else { v }.to_ne_bytes()
    }

    pub fn put_f64(self, v: f64) -> [u8; 8] {
        self.put_u64(v.to_bits())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub op: u32,
    pub a: i32,
    pub b: i32,
    pub c: i32,
    pub len: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Answer {
    pub err: i32,
    pub source: i32,
    pub tag: i32,
    /// In the answer to `OP_INIT`: `FLAG_CPU_TIME` when the rank is to report its CPU time,
    /// `FLAG_SHARE_CORE` when it is to wait on the simulator's core.
    pub flags: u32,
    pub count: u64,
    pub value: f64,
}

/// Read one request header in the rank's order; `Ok(None)` if the rank closed the stream before it.
pub fn read_request(r: &mut impl Read, order: Order) -> io::Result<Option<Request>> {
    let mut b = [0u8; REQUEST_BYTES];
    let mut got = 0;
    while got < b.len() {
        match r.read(&mut b[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "a request was cut short")),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(decode_request(&b, order)))
}

pub fn decode_request(b: &[u8; REQUEST_BYTES], order: Order) -> Request {
    Request { op: order.u32(&b[0..]), a: order.i32(&b[4..]), b: order.i32(&b[8..]), c: order.i32(&b[12..]), len: order.u64(&b[16..]) }
}

/// An answer's header in the rank's order, as `write_answer` sends it.
pub fn encode_answer(a: &Answer, b: &mut [u8; ANSWER_BYTES], order: Order) {
    b[0..4].copy_from_slice(&order.put_i32(a.err));
    b[4..8].copy_from_slice(&order.put_i32(a.source));
    b[8..12].copy_from_slice(&order.put_i32(a.tag));
    b[12..16].copy_from_slice(&order.put_u32(a.flags));
    b[16..24].copy_from_slice(&order.put_u64(a.count));
    b[24..32].copy_from_slice(&order.put_f64(a.value));
}

pub fn write_answer(w: &mut impl Write, a: &Answer, payload: &[u8], order: Order) -> io::Result<()> {
    let mut b = [0u8; ANSWER_BYTES];
    encode_answer(a, &mut b, order);
    // One write per answer: a system call is most of a round trip's wall time.
    if payload.is_empty() {
        return w.write_all(&b);
    }
    let mut all = Vec::with_capacity(ANSWER_BYTES + payload.len());
    all.extend_from_slice(&b);
    all.extend_from_slice(payload);
    w.write_all(&all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_round_trip_and_clean_end() {
        let mut b = Vec::new();
        for v in [OP_SEND, 3, (-1i32) as u32, 7] {
            b.extend_from_slice(&v.to_ne_bytes());
        }
        b.extend_from_slice(&9u64.to_ne_bytes());
        let mut r = &b[..];
        assert_eq!(read_request(&mut r, Order::HOST).unwrap(), Some(Request { op: OP_SEND, a: 3, b: -1, c: 7, len: 9 }));
        assert_eq!(read_request(&mut r, Order::HOST).unwrap(), None);
        let mut cut = &b[..10];
        assert!(read_request(&mut cut, Order::HOST).is_err());
    }

    #[test]
    fn a_big_endian_rank_is_known_by_its_first_request_and_read_and_answered_in_its_order() {
        // MPI_Init as a PowerPC rank writes it: every field big-endian.
        let mut b = [0u8; REQUEST_BYTES];
        b[0..4].copy_from_slice(&OP_INIT.to_be_bytes());
        b[4..8].copy_from_slice(&(-2i32).to_be_bytes());
        b[16..24].copy_from_slice(&0x0102_0304_0506_0708u64.to_be_bytes());
        let order = Order::of_first(&b);
        assert!(order.is_big_endian());
        assert_eq!(decode_request(&b, order), Request { op: OP_INIT, a: -2, b: 0, c: 0, len: 0x0102_0304_0506_0708 });
        let mut host = [0u8; REQUEST_BYTES];
        host[0..4].copy_from_slice(&OP_INIT.to_ne_bytes());
        assert_eq!(Order::of_first(&host), Order::HOST);
        let mut out = [0u8; ANSWER_BYTES];
        encode_answer(&Answer { err: -1, source: 3, tag: 7, flags: FLAG_CPU_TIME, count: 9, value: 0.5 }, &mut out, order);
        assert_eq!(out[0..4], (-1i32).to_be_bytes());
        assert_eq!(out[12..16], FLAG_CPU_TIME.to_be_bytes());
        assert_eq!(out[16..24], 9u64.to_be_bytes());
        assert_eq!(out[24..32], 0.5f64.to_be_bytes());
        assert_eq!(order.u64(&order.put_u64(42)), 42);
    }

    #[test]
    fn the_shared_core_rides_in_the_flags_above_the_others() {
        assert_eq!(share_core_flags(0), FLAG_SHARE_CORE);
        assert_eq!(share_core_flags(37), FLAG_SHARE_CORE | 37 << 8);
        assert_eq!(share_core_flags(37) & (FLAG_CPU_TIME | FLAG_FREED_DONE | FLAG_REPIN), 0);
        assert_eq!(share_core_flags((1 << 24) - 1) >> SHARE_CORE_SHIFT, (1 << 24) - 1);
        assert_eq!(share_core_flags(1 << 24), 0, "a core past the bits is not told");
    }
}
