//! The shared-memory call channel between a rank process and the simulator: a memory file the
//! rank creates in `MPI_Init` and hands over with its first request (`SCM_RIGHTS` on the
//! socket), holding one request slot, one answer slot and a data area, each slot published by
//! a sequence number. The simulator, waiting for a request, spins on the number for up to
//! [`SPIN`] of wall time, then sleeps on its futex (when the job outnumbers the cores, both
//! sides sleep at once, on one core: [`super::share_core`]); the publishing side
//! wakes it only if it sleeps. Neither yields the core: where runnable processes outnumber the
//! cores (more ranks than cores, or other work on the host), `sched_yield` hands the core to
//! another process for the rest of its time slice, milliseconds, so a job whose every call
//! waits for such a turn starves, while a sleeper woken on the futex runs at once. The socket
//! stays, to notice a rank whose process ended (`POLLHUP`) and to carry payloads larger than
//! the data area.
//!
//! ```text
//! 0     u32 request sequence (the rank increments it)    4   u32 simulator sleeps on it
//! 8     u32 the id of the rank's thread that calls MPI (written before the first request)
//! 64    u32 answer sequence (the simulator increments it) 68  u32 rank sleeps on it
//! 128   request: u32 op, i32 a, i32 b, i32 c, u64 len,
//!       u64 cpu_ns (the rank's CPU time since its last call returned),
//!       u64 wtimes (the MPI_Wtime calls the rank answered itself since its last request)
//! 192   answer: as wire::ANSWER_BYTES
//! 4096  data area, DATA_BYTES: a request's or an answer's payload when it fits
//! ```
//! The rank side is `libmpi/src/env/channel.c`, which mirrors these numbers. Every field is in
//! the rank's byte order ([`Order`]): a PowerPC rank under qemu-user stores its words
//! big-endian, and qemu's futex call compares the word in the guest's order, so the simulator
//! stores the answer's sequence number reversed for it and waits on the request's as stored.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use super::share_core::FLOAT_AFTER;
use super::wire::{Answer, Order, Request, ANSWER_BYTES, REQUEST_BYTES};

pub const REQ_SEQ: usize = 0;
pub const SIM_SLEEPS: usize = 4;
pub const RANK_TID: usize = 8;
pub const ANS_SEQ: usize = 64;
pub const RANK_SLEEPS: usize = 68;
pub const REQ_AT: usize = 128;
pub const ANS_AT: usize = 192;
pub const DATA_AT: usize = 4096;
/// The largest payload carried in shared memory; a larger one goes over the socket.
pub const DATA_BYTES: usize = 1 << 20;
pub const CHANNEL_BYTES: usize = DATA_AT + DATA_BYTES;
/// How long a waiting side spins before it sleeps: a short call's round trip takes a few
/// microseconds when both sides have a core, a futex wake-up tens to hundreds.
pub const SPIN: Duration = Duration::from_micros(20);
/// How long a sleep lasts before the waiting side looks whether the other end is gone.
const SLEEP_NS: i64 = 20_000_000;

/// What a rank reports beside a request on the channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reported {
    /// Its CPU time since its last call returned (measured only with `--compute cpu`).
    pub cpu_ns: u64,
    /// The `MPI_Wtime` calls it answered itself since its last request, each to be charged
    /// before this one (external.rs, OP_WTIME).
    pub wtimes: u64,
}

/// A rank's mapped channel, simulator side.
pub struct Channel {
    base: *mut u8,
    last: u32,
    order: Order,
    /// Whether to spin before sleeping: not on a core shared with the ranks ([`super::share_core`]).
    spin: bool,
}

impl Drop for Channel {
    fn drop(&mut self) {
        // SAFETY: `base` is the mapping made in `open`, of CHANNEL_BYTES, unmapped once.
        unsafe { libc::munmap(self.base.cast(), CHANNEL_BYTES) };
    }
}

fn os_err(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// Read the first request from the socket together with the channel file the rank may send
/// beside it, and the rank's byte order, which the request shows ([`Order::of_first`]):
/// `Ok(None)` if the rank closed the socket before any request.
pub fn first_request(sock: &UnixStream) -> io::Result<Option<(Request, Order, Option<OwnedFd>)>> {
    let mut b = [0u8; REQUEST_BYTES];
    Ok(recv_exact_with_fd(sock, &mut b)?.map(|file| {
        let order = Order::of_first(&b);
        (super::wire::decode_request(&b, order), order, file)
    }))
}

/// Fill `b` from the socket, taking the first descriptor sent beside the bytes (SCM_RIGHTS),
/// if any: `Ok(None)` if the peer closed the socket before the first byte. Shared with the Cell
/// SDK's wire (`crate::sdk::wire`), whose PPE threads send their own sockets so.
pub(crate) fn recv_exact_with_fd(sock: &UnixStream, b: &mut [u8]) -> io::Result<Option<Option<OwnedFd>>> {
    let mut got = 0;
    let mut file = None;
    while got < b.len() {
        let mut iov = libc::iovec { iov_base: b[got..].as_mut_ptr().cast(), iov_len: b.len() - got };
        let mut control = [0u64; 8];
        // SAFETY: a zeroed msghdr is valid; it points at `iov` and `control`, which outlive the call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        // SAFETY: the descriptor is open; msg is set up above.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        // SAFETY: the CMSG_* walk stays within what recvmsg filled in.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                    let fds = ((*c).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / std::mem::size_of::<i32>();
                    for i in 0..fds {
                        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<i32>().add(i));
                        let owned = OwnedFd::from_raw_fd(fd);
                        file.get_or_insert(owned);
                    }
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        match n as usize {
            0 if got == 0 => return Ok(None),
            0 => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "a request was cut short")),
            n => got += n,
        }
    }
    Ok(Some(file))
}

fn futex(word: &AtomicU32, op: i32, val: u32, timeout: Option<&libc::timespec>) {
    let t = timeout.map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a live u32 in a shared mapping; FUTEX_WAIT/WAKE (not private) work across processes.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), op, val, t, std::ptr::null::<u32>(), 0) };
}

/// Spin until `done` or [`SPIN`] passes: whether it came. The clock is read every 64 looks.
fn spin_for(done: impl Fn() -> bool) -> bool {
    let end = Instant::now() + SPIN;
    for i in 1u32.. {
        if done() {
            return true;
        }
        std::hint::spin_loop();
        if i % 64 == 0 && Instant::now() > end {
            return false;
        }
    }
    unreachable!("the loop returns")
}

/// Whether the process at the other end of `sock` has gone (closed its end, exited, was killed).
pub fn peer_gone(sock: &UnixStream) -> bool {
    let mut p = libc::pollfd { fd: sock.as_raw_fd(), events: libc::POLLRDHUP, revents: 0 };
    // SAFETY: one valid pollfd, no waiting.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && p.revents & (libc::POLLHUP | libc::POLLRDHUP | libc::POLLERR) != 0
}

impl Channel {
    /// Map the channel file a rank of byte order `order` sent; it must be CHANNEL_BYTES long.
    /// `spin`: whether waiting for a request spins for [`SPIN`] before it sleeps.
    pub fn open(file: OwnedFd, spin: bool, order: Order) -> io::Result<Channel> {
        // SAFETY: fstat into a zeroed stat of an open descriptor.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(file.as_raw_fd(), &mut st) } != 0 {
            return Err(os_err("the rank's channel file"));
        }
        if st.st_size as usize != CHANNEL_BYTES {
            return Err(io::Error::other(format!(
                "the rank's channel file has {} bytes, {CHANNEL_BYTES} expected: the rank library and the simulator disagree",
                st.st_size
            )));
        }
        // SAFETY: a fresh shared mapping of the whole file; the descriptor may close afterwards.
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), CHANNEL_BYTES, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0)
        };
        if p == libc::MAP_FAILED {
            return Err(os_err("mapping the rank's channel file"));
        }
        let ch = Channel { base: p.cast(), last: 0, order, spin };
        ch.word(REQ_SEQ).store(0, Ordering::SeqCst);
        ch.word(ANS_SEQ).store(0, Ordering::SeqCst);
        Ok(ch)
    }

    fn word(&self, at: usize) -> &AtomicU32 {
        // SAFETY: `at` is one of the 4-aligned word offsets above, inside the mapping, which lives as long as self.
        unsafe { &*(self.base.add(at) as *const AtomicU32) }
    }

    fn bytes(&self, at: usize, len: usize) -> &[u8] {
        assert!(at + len <= CHANNEL_BYTES);
        // SAFETY: in bounds; the rank does not write the slot while the simulator owns it (sequence protocol).
        unsafe { std::slice::from_raw_parts(self.base.add(at), len) }
    }

    fn put(&self, at: usize, data: &[u8]) {
        assert!(at + data.len() <= CHANNEL_BYTES);
        // SAFETY: in bounds; the rank does not read the slot until the sequence number is published.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.base.add(at), data.len()) };
    }

    /// The id of the rank's thread that calls MPI, as the rank wrote it (`None` if it did not).
    pub fn rank_tid(&self) -> Option<libc::pid_t> {
        libc::pid_t::try_from(self.order.stored(self.word(RANK_TID).load(Ordering::Acquire))).ok().filter(|&t| t > 0)
    }

    /// Wait for the rank's next request and what it reports beside it: `None` if its process
    /// ended first. `long_wait` is called once if the wait lasts [`FLOAT_AFTER`].
    pub fn next_request(&mut self, sock: &UnixStream, mut long_wait: impl FnMut()) -> Option<(Request, Reported)> {
        let (seq, order) = (self.word(REQ_SEQ), self.order);
        // Compared as stored: a changed word is a new request in either order.
        let ready = |last: u32| seq.load(Ordering::Acquire) != order.stored(last);
        if !(self.spin && spin_for(|| ready(self.last))) {
            self.sleep_for_request(sock, &mut long_wait)?;
        }
        self.last = self.last.wrapping_add(1);
        let r = self.bytes(REQ_AT, 40);
        let reported = Reported { cpu_ns: order.u64(&r[24..]), wtimes: order.u64(&r[32..]) };
        Some((super::wire::decode_request(r[..REQUEST_BYTES].try_into().expect("24 bytes"), order), reported))
    }

    /// Sleep on the request sequence's futex until a request comes: `None` if the rank's process ended first.
    fn sleep_for_request(&self, sock: &UnixStream, long_wait: &mut dyn FnMut()) -> Option<()> {
        let (seq, order) = (self.word(REQ_SEQ), self.order);
        let ready = |last: u32| seq.load(Ordering::Acquire) != order.stored(last);
        let start = Instant::now();
        let mut told = false;
        while !ready(self.last) {
            let sleeps = self.word(SIM_SLEEPS);
            sleeps.store(1, Ordering::SeqCst);
            if seq.load(Ordering::SeqCst) == order.stored(self.last) {
                let ns = if told { SLEEP_NS } else { FLOAT_AFTER.as_nanos() as i64 };
                let t = libc::timespec { tv_sec: 0, tv_nsec: ns };
                futex(seq, libc::FUTEX_WAIT, order.stored(self.last), Some(&t));
            }
            sleeps.store(0, Ordering::SeqCst);
            if !told && !ready(self.last) && start.elapsed() >= FLOAT_AFTER {
                long_wait();
                told = true;
            }
            if !ready(self.last) && peer_gone(sock) {
                return None;
            }
        }
        Some(())
    }

    /// The current request's payload: from the data area, or from the socket when larger.
    pub fn payload(&self, len: usize, socket: &mut impl Read) -> io::Result<Vec<u8>> {
        if len <= DATA_BYTES {
            return Ok(self.bytes(DATA_AT, len).to_vec());
        }
        let mut data = vec![0u8; len];
        socket.read_exact(&mut data)?;
        Ok(data)
    }

    /// Publish the answer to the current request (its payload after it on the socket when larger
    /// than the data area) and wake the rank if it sleeps.
    pub fn answer(&self, a: &Answer, payload: &[u8], socket: &mut impl Write) -> io::Result<()> {
        let big = payload.len() > DATA_BYTES;
        if !big {
            self.put(DATA_AT, payload);
        }
        let mut b = [0u8; ANSWER_BYTES];
        super::wire::encode_answer(a, &mut b, self.order);
        self.put(ANS_AT, &b);
        let seq = self.word(ANS_SEQ);
        seq.store(self.order.stored(self.last), Ordering::SeqCst);
        if self.word(RANK_SLEEPS).load(Ordering::SeqCst) != 0 {
            futex(seq, libc::FUTEX_WAKE, 1, None);
        }
        if big {
            socket.write_all(payload)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::wire::OP_SEND;

    /// A second mapping of the channel file, as the rank process has it.
    fn rank_side(file: &OwnedFd) -> usize {
        // SAFETY: a fresh shared mapping of the whole file, never unmapped during the test.
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), CHANNEL_BYTES, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0)
        };
        assert_ne!(p, libc::MAP_FAILED);
        p as usize
    }

    fn channel_file() -> OwnedFd {
        // SAFETY: memfd_create with a NUL-terminated name; the descriptor is owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(libc::memfd_create(c"test".as_ptr(), libc::MFD_CLOEXEC)) };
        assert_eq!(unsafe { libc::ftruncate(fd.as_raw_fd(), CHANNEL_BYTES as i64) }, 0);
        fd
    }

    #[test]
    fn requests_and_answers_cross_after_a_sleep_and_a_gone_rank_is_noticed() {
        crossing(Order::HOST);
    }

    /// A big-endian rank (a PowerPC program under qemu-user) stores every word reversed.
    #[test]
    fn a_big_endian_ranks_requests_and_answers_cross_in_its_order() {
        crossing(Order::BIG);
    }

    /// Three requests of a rank of byte order `order`, each after the simulator has gone to sleep.
    fn crossing(order: Order) {
        let file = channel_file();
        let base = rank_side(&file);
        let mut ch = Channel::open(file.try_clone().unwrap(), true, order).unwrap();
        let (sim_sock, rank_sock) = UnixStream::pair().unwrap();
        let rank = std::thread::spawn(move || {
            let at = |off: usize| unsafe { &*((base + off) as *const AtomicU32) };
            for seq in 1..=3u32 {
                // Late enough that the simulator has gone to sleep on the futex.
                std::thread::sleep(std::time::Duration::from_millis(30));
                let mut r = [0u8; 40];
                r[0..4].copy_from_slice(&order.put_u32(OP_SEND));
                r[4..8].copy_from_slice(&order.put_i32(seq as i32));
                r[16..24].copy_from_slice(&order.put_u64(5));
                r[24..32].copy_from_slice(&order.put_u64(1000 * seq as u64));
                r[32..40].copy_from_slice(&order.put_u64(seq as u64 + 6));
                unsafe { std::ptr::copy_nonoverlapping(r.as_ptr(), (base + REQ_AT) as *mut u8, 40) };
                unsafe { std::ptr::copy_nonoverlapping(b"hello".as_ptr(), (base + DATA_AT) as *mut u8, 5) };
                at(REQ_SEQ).store(order.stored(seq), Ordering::SeqCst);
                if at(SIM_SLEEPS).load(Ordering::SeqCst) != 0 {
                    futex(at(REQ_SEQ), libc::FUTEX_WAKE, 1, None);
                }
                while at(ANS_SEQ).load(Ordering::SeqCst) != order.stored(seq) {
                    std::thread::yield_now();
                }
                let tag = unsafe { std::ptr::read_unaligned((base + ANS_AT + 8) as *const [u8; 4]) };
                assert_eq!(order.i32(&tag), 10 * seq as i32);
            }
            drop(rank_sock);
        });
        for seq in 1..=3u32 {
            let (req, got) = ch.next_request(&sim_sock, || {}).expect("a request");
            assert_eq!((req.op, req.a, req.len), (OP_SEND, seq as i32, 5));
            assert_eq!(got, Reported { cpu_ns: 1000 * seq as u64, wtimes: seq as u64 + 6 });
            assert_eq!(ch.payload(5, &mut &sim_sock).unwrap(), b"hello");
            ch.answer(&Answer { tag: 10 * seq as i32, ..Answer::default() }, &[], &mut &sim_sock).unwrap();
        }
        rank.join().unwrap();
        assert!(ch.next_request(&sim_sock, || {}).is_none(), "the rank's end of the socket is closed");
    }

    #[test]
    fn a_file_of_the_wrong_size_is_refused() {
        let file = channel_file();
        assert_eq!(unsafe { libc::ftruncate(file.as_raw_fd(), 4096) }, 0);
        let e = Channel::open(file, true, Order::HOST).err().expect("refused");
        assert!(e.to_string().starts_with("the rank's channel file has 4096 bytes"), "{e}");
    }
}
