//! What a Cell SDK program's processes say to the simulator: one request, then its answer, on
//! the process's socket, every field big-endian (the processes are big-endian PowerPC programs
//! under qemu-user). `sdk/common/sdk_wire.h` is the C side and mirrors these numbers.
//!
//! ```text
//! request  u32 op, u32 a, u32 b, u32 c, u64 d, u64 e, u32 len, u32 0    then len payload bytes
//! answer   i32 status, u32 a, u64 value, u32 len, u32 0                 then len payload bytes
//! ```

use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;

use crate::mpi::channel::recv_exact_with_fd;

pub const REQUEST_BYTES: usize = 40;
pub const ANSWER_BYTES: usize = 24;
/// The largest payload either way: an embedded SPE image (a static C library makes one of about
/// 850 KB), a PPE-assisted write of an SPE's stdio, an image path.
pub const MAX_PAYLOAD: u32 = 16 << 20;

// An SPE program's requests (sdk/spu/).
/// The program has started: answered when its simulated SPE thread begins.
pub const SPU_HELLO: u32 = 1;
/// An MFC command: a = opcode (MFC_GET_CMD, ...), b = local-store address, c = tag, d = effective
/// address, e = size.
pub const SPU_MFC: u32 = 2;
/// spu_writech: a = channel, d = value.
pub const SPU_WRITE_CHANNEL: u32 = 3;
/// spu_readch: a = channel; the answer's value is what it read.
pub const SPU_READ_CHANNEL: u32 = 4;
/// spu_readchcnt: a = channel.
pub const SPU_CHANNEL_COUNT: u32 = 5;
/// spu_stop / exit: a = the stop code (0x2000 | exit code for an exit), b = the SPU's next PC
/// (the local-store address after the stop instruction, which a PPE-assisted call's handler
/// reads). The answer's value is how many bytes the SPE skips after it: 4 after a library call
/// served (libspe2 resumes at the next PC + 4), else 0.
pub const SPU_STOP: u32 = 6;
/// SPU_STOP's code for a halt (spu_hcmpeq and the other halts): beyond the 14 bits of a stop
/// code, so no stop-and-signal is mistaken for it.
pub const STOP_HALT: u32 = 0x1_0000;
/// SPU_STOP's c for a stop the SPE goes on from when run again (a stop instruction); 0 for an
/// exit by exit() or main's return, which ends the program.
pub const STOP_RESUMABLE: u32 = 1;
/// A PPE-assisted call (a stop in the 0x2100 class): a = the call, b = its descriptor, the
/// payload its bytes; answered when the PPE has run it.
pub const SPU_PPE_CALL: u32 = 7;

// A PPE program's requests (sdk/ppu/libspe2.c).
/// a = the pointer width (32 or 64).
pub const PPE_HELLO: u32 = 32;
/// spe_context_create: a = flags; the answer's value is the context's number.
pub const CONTEXT_CREATE: u32 = 33;
/// spe_program_load: a = context, b = [`IMAGE_PATH`] (the payload the SPE executable's path)
/// or [`IMAGE_BYTES`] (the payload the executable itself, embedded in the PPE program).
pub const PROGRAM_LOAD: u32 = 34;
pub const IMAGE_PATH: u32 = 0;
pub const IMAGE_BYTES: u32 = 1;
/// spe_context_run: a = context, b = run flags, c = entry, d = argp, e = envp, the payload the
/// 8-byte speid (the context's PPE address) and, with SPE_RUN_USER_REGS, r4's second doubleword
/// (else 0), 16 bytes. Answered by [`RUN_STOPPED`] or [`RUN_CALL`].
pub const CONTEXT_RUN: u32 = 35;
/// After a [`RUN_CALL`] or [`RUN_LIBRARY_CALL`] answer: the call is done (a = context, b = a
/// library call's handler's return value: 0, the SPE goes on; else the run ends with
/// SPE_CALLBACK_ERROR and that code).
pub const CONTEXT_RESUME: u32 = 36;
/// spe_context_destroy: a = context.
pub const CONTEXT_DESTROY: u32 = 37;
/// spe_in_mbox_write: a = context, b = behaviour, the payload the words.
pub const IN_MBOX_WRITE: u32 = 38;
/// spe_out_mbox_read: a = context, b = how many words at most; the payload the words read.
pub const OUT_MBOX_READ: u32 = 39;
/// spe_out_mbox_status: a = context.
pub const OUT_MBOX_STATUS: u32 = 40;
/// spe_in_mbox_status: a = context.
pub const IN_MBOX_STATUS: u32 = 41;
/// pthread_create: the new thread's socket comes beside the request (SCM_RIGHTS); the answer's
/// value is its number.
pub const THREAD_CREATE: u32 = 42;
/// The calling thread exits (its last request).
pub const THREAD_EXIT: u32 = 43;
/// pthread_join: a = the thread's number; answered once it has exited.
pub const THREAD_JOIN: u32 = 44;
/// spe_signal_write: a = context, b = the register (1 or 2), d = the value.
pub const SIGNAL_WRITE: u32 = 45;
/// spe_ls_area_get: a = context; the context's local-store file comes beside the answer.
pub const LS_AREA: u32 = 46;
/// The PPE has mapped context a's local store at its address d: a DMA to d + offset is one to
/// that local store.
pub const LS_MAPPED: u32 = 47;
/// spe_out_intr_mbox_read: a = context, b = behaviour (libspe2's SPE_MBOX_*), c = how many
/// words at most; the payload the words read.
pub const OUT_INTR_MBOX_READ: u32 = 48;
/// spe_out_intr_mbox_status: a = context.
pub const OUT_INTR_MBOX_STATUS: u32 = 49;
/// spe_cpu_info_get: a = the question (libspe2's SPE_COUNT_*, SPE_CPU_TYPE), b = the node
/// (-1: all) as a two's-complement word.
pub const CPU_INFO: u32 = 50;
/// spe_gang_context_create; the answer's value is the gang's number.
pub const GANG_CREATE: u32 = 51;
/// spe_gang_context_destroy: a = gang.
pub const GANG_DESTROY: u32 = 52;
/// spe_mfcio_*: a = context, b = the opcode (MFC_GET_CMD ..., spu_mfcio.h's), c = tag, d =
/// the effective address (a PPE address), e = local-store address << 32 | size.
pub const MFCIO: u32 = 53;
/// spe_mfcio_tag_status_read: a = context, b = behaviour (libspe2's SPE_TAG_*), c = mask.
pub const MFCIO_TAG_STATUS: u32 = 54;
/// The calling PPE thread waits on the host for another (a mutex, a condition variable): one
/// poll interval passes for it, then it tries again (sdk/ppu/threads.c).
pub const PPE_WAIT_HOST: u32 = 55;
/// spe_event_wait: c = the most events to return, d = the timeout in milliseconds (negative:
/// none), the payload (context, events) word pairs; the answer's payload is (unit index, events
/// that happened) pairs, value their count.
pub const EVENT_WAIT: u32 = 56;
/// spe_stop_info_read of a context with events: a = context; the answer a = the reason, value
/// = the code, or EAGAIN when no stop is left unread.
pub const STOP_INFO_READ: u32 = 57;
/// A load or store to a problem-state area (sdk/ppu/ps_area.c): a = context, b = the area
/// (libspe2's enum ps_area; | 0x100 for spe_mssync_* through spufs), c = the offset, d = the
/// value stored, e = 1 for a store; the answer's value is what a load read.
pub const PS_ACCESS: u32 = 58;

/// CONTEXT_RUN's answers: the status, then a = the stop reason (libspe2's SPE_EXIT, ...) and
/// value = its code; or a = the descriptor and the payload the bytes of an SPE's stdio write.
pub const RUN_STOPPED: i32 = 0;
pub const RUN_CALL: i32 = 1;
/// A PPE-assisted library call (a stop 0x2100 + n, libspe2's callbacks): a = n, value = the
/// SPU's next PC.
pub const RUN_LIBRARY_CALL: i32 = 2;

/// The PPE-assisted calls an SPE program makes (SPU_PPE_CALL's a).
pub const CALL_WRITE: u32 = 1;

/// libspe2's stop reasons (libspe2-types.h).
pub const SPE_EXIT: u32 = 1;
pub const SPE_STOP_AND_SIGNAL: u32 = 2;
pub const SPE_RUNTIME_ERROR: u32 = 3;
pub const SPE_RUNTIME_EXCEPTION: u32 = 4;
pub const SPE_CALLBACK_ERROR: u32 = 6;
pub const SPE_ISOLATION_ERROR: u32 = 7;

/// spe_context_run's flag that makes a 0x2100-class stop a plain stop-and-signal.
pub const SPE_NO_CALLBACKS: u32 = 2;

/// An answer's status for a call refused: the errno the library sets.
pub const EINVAL: i32 = -22;
pub const ESRCH: i32 = -3;
pub const EAGAIN: i32 = -11;
pub const EBUSY: i32 = -16;
pub const EEXIST: i32 = -17;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Request {
    pub op: u32,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub d: u64,
    pub e: u64,
    pub len: u32,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Answer {
    pub status: i32,
    pub a: u32,
    pub value: u64,
}

fn word(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn dword(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// A request's fields from its header.
pub fn decode(b: &[u8; REQUEST_BYTES]) -> Request {
    Request { op: word(b, 0), a: word(b, 4), b: word(b, 8), c: word(b, 12), d: dword(b, 16), e: dword(b, 24), len: word(b, 32) }
}

/// A request as read: its fields, its payload and the descriptor sent with it (a PPE thread's
/// new socket).
pub type Received = (Request, Vec<u8>, Option<OwnedFd>);

/// The next request; `None` when the process closed its end (it ended).
pub fn read_request(sock: &UnixStream) -> io::Result<Option<Received>> {
    let mut b = [0u8; REQUEST_BYTES];
    let fd = match recv_exact_with_fd(sock, &mut b) {
        Ok(Some(fd)) => fd,
        Ok(None) => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(None),
        Err(e) => return Err(e),
    };
    let r = decode(&b);
    if r.len > MAX_PAYLOAD {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("request {} carries {} bytes: at most {MAX_PAYLOAD}", r.op, r.len)));
    }
    let mut payload = vec![0u8; r.len as usize];
    (&mut &*sock).read_exact(&mut payload)?;
    Ok(Some((r, payload, fd)))
}

pub fn write_answer(to: &mut impl Write, a: &Answer, payload: &[u8]) -> io::Result<()> {
    let mut b = Vec::with_capacity(ANSWER_BYTES + payload.len());
    b.extend_from_slice(&a.status.to_be_bytes());
    b.extend_from_slice(&a.a.to_be_bytes());
    b.extend_from_slice(&a.value.to_be_bytes());
    b.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(payload);
    to.write_all(&b)
}

/// [`write_answer`] with descriptor `fd` sent beside it (SCM_RIGHTS).
pub fn write_answer_passing(sock: &UnixStream, a: &Answer, fd: i32) -> io::Result<()> {
    let mut b = Vec::with_capacity(ANSWER_BYTES);
    write_answer(&mut b, a, &[])?;
    let mut iov = libc::iovec { iov_base: b.as_mut_ptr().cast(), iov_len: b.len() };
    let mut control = [0u64; 4];
    // SAFETY: a zeroed msghdr is valid; it points at `iov` and `control`, which outlive the
    // call, and the control message is built within `control` by the CMSG_* macros.
    let sent = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<i32>() as u32) as _;
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<i32>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<i32>(), fd);
        libc::sendmsg(std::os::fd::AsRawFd::as_raw_fd(sock), &msg, 0)
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    if (sent as usize) < b.len() {
        (&mut &*sock).write_all(&b[sent as usize..])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_big_endian_with_their_payload_and_descriptor() {
        let mut b = Vec::new();
        for w in [SPU_MFC, 0x40, 0x3000, 5] {
            b.extend_from_slice(&w.to_be_bytes());
        }
        b.extend_from_slice(&0x1_0000_2000u64.to_be_bytes());
        b.extend_from_slice(&16384u64.to_be_bytes());
        b.extend_from_slice(&3u32.to_be_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(b"abc");
        let (mut ours, theirs) = UnixStream::pair().unwrap();
        ours.write_all(&b).unwrap();
        let (r, payload, fd) = read_request(&theirs).unwrap().unwrap();
        assert_eq!(r, Request { op: SPU_MFC, a: 0x40, b: 0x3000, c: 5, d: 0x1_0000_2000, e: 16384, len: 3 });
        assert_eq!((payload.as_slice(), fd.is_none()), (&b"abc"[..], true));
        ours.write_all(&b[..7]).unwrap();
        drop(ours);
        assert!(read_request(&theirs).is_err(), "a request cut short");
        assert!(read_request(&theirs).unwrap().is_none(), "the peer has gone");
    }

    #[test]
    fn answers_are_written_big_endian() {
        let mut out = Vec::new();
        write_answer(&mut out, &Answer { status: -22, a: 2, value: 0x0102_0304_0506_0708 }, b"xy").unwrap();
        assert_eq!(out.len(), ANSWER_BYTES + 2);
        assert_eq!(&out[..4], &(-22i32).to_be_bytes());
        assert_eq!(&out[8..16], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&out[16..20], &[0, 0, 0, 2]);
        assert_eq!(&out[24..], b"xy");
    }
}
