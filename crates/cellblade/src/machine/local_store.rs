//! The SPEs' local stores: one block for all of them, taken from the blocks the blades this
//! thread dropped, with only the bytes those blades wrote cleared again. A blade's programs
//! write a few kilobytes of a few of its sixteen stores, and zeroing all 4 MB for each new blade
//! was 4% of the CPU of `cellblade reproduce --quick` (a fresh mapping per blade instead, zeroed
//! by the kernel page by page, cost more in page faults). What a store reads is the same either
//! way: zeros until written.
//!
//! A blade that runs Cell SDK programs (`crate::sdk`) keeps its stores in shared memory
//! instead ([`LocalStores::shared`]): one memory file per store, which the SPE program's process
//! maps at its local-store addresses 0 to 256 KB and the PPE program maps as the context's local
//! store area, so that a DMA the simulator moves lands where the programs read it.
//!
//! Every write goes through [`LocalStores::write`], [`LocalStores::pair`] or `IndexMut` (which
//! counts the whole store as written), so the written span of each store is known and a block
//! comes back all zeros.

use std::cell::RefCell;
use std::io;
use std::ops::{Index, IndexMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;

/// Blocks kept per thread for the next blades: one blade at a time is the usual case.
const KEPT: usize = 2;

thread_local! {
    /// Dropped blocks, all zeros, by size.
    static FREE: RefCell<Vec<Box<[u8]>>> = const { RefCell::new(Vec::new()) };
}

/// The stores' bytes, one after the other: the simulator's own allocation (kept for the next
/// blade when dropped) or a mapping of the programs' memory files.
#[derive(Clone, Copy)]
struct Block {
    ptr: NonNull<u8>,
    len: usize,
    mapped: bool,
}

impl Block {
    fn owned(bytes: Box<[u8]>) -> Block {
        let len = bytes.len();
        // SAFETY: Box::into_raw never gives null; `drop` rebuilds the box from the same parts.
        let ptr = unsafe { NonNull::new_unchecked(Box::into_raw(bytes).cast::<u8>()) };
        Block { ptr, len, mapped: false }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: ptr..ptr+len is this block's live allocation or mapping, borrowed with self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `bytes`, borrowed mutably with self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

pub struct LocalStores {
    block: Block,
    /// Bytes of one store.
    bytes: usize,
    /// The span of each store written so far, `(start, end)`, empty when `start >= end`.
    written: Vec<(usize, usize)>,
}

impl LocalStores {
    /// `count` stores of `bytes` bytes each, all zero.
    pub fn new(bytes: u32, count: usize) -> LocalStores {
        let (bytes, total) = (bytes as usize, bytes as usize * count);
        let reused = FREE.with(|f| {
            let mut free = f.borrow_mut();
            let i = free.iter().position(|b| b.len() == total)?;
            Some(free.swap_remove(i))
        });
        let block = reused.unwrap_or_else(|| vec![0u8; total].into_boxed_slice());
        LocalStores { block: Block::owned(block), bytes, written: vec![(usize::MAX, 0); count] }
    }

    /// `count` stores of `bytes` bytes each, all zero, in shared memory: one memory file per
    /// store (returned, to hand to the programs' processes), mapped one after the other.
    pub fn shared(bytes: u32, count: usize) -> io::Result<(LocalStores, Vec<OwnedFd>)> {
        let (bytes, total) = (bytes as usize, bytes as usize * count);
        let fail = |what: &str| {
            let e = io::Error::last_os_error();
            io::Error::new(e.kind(), format!("sharing the local stores: {what}: {e}"))
        };
        // SAFETY: a fresh private reservation of `total` bytes; nothing else refers to it.
        let base = unsafe { libc::mmap(std::ptr::null_mut(), total, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        if base == libc::MAP_FAILED {
            return Err(fail("reserving the addresses"));
        }
        let block = Block { ptr: NonNull::new(base.cast()).expect("mmap gives no null mapping"), len: total, mapped: true };
        // Made first, so that a failure below unmaps what was mapped.
        let stores = LocalStores { block, bytes, written: vec![(usize::MAX, 0); count] };
        let mut files = Vec::with_capacity(count);
        for spe in 0..count {
            // SAFETY: the name is a NUL-terminated literal.
            let fd = unsafe { libc::memfd_create(c"cellblade-local-store".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return Err(fail("memfd_create"));
            }
            // SAFETY: fd is the descriptor just created, owned from here on.
            let file = unsafe { OwnedFd::from_raw_fd(fd) };
            // SAFETY: ftruncate on an owned descriptor; mmap replaces part of the reservation
            // made above (block is unmapped whole on drop).
            let at = unsafe {
                if libc::ftruncate(file.as_raw_fd(), bytes as libc::off_t) != 0 {
                    return Err(fail("sizing a store"));
                }
                libc::mmap(
                    base.cast::<u8>().add(spe * bytes).cast(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_FIXED,
                    file.as_raw_fd(),
                    0,
                )
            };
            if at == libc::MAP_FAILED {
                return Err(fail("mapping a store"));
            }
            files.push(file);
        }
        Ok((stores, files))
    }

    /// How many stores there are.
    pub fn len(&self) -> usize {
        self.written.len()
    }

    pub fn is_empty(&self) -> bool {
        self.written.is_empty()
    }

    fn mark(&mut self, spe: usize, start: usize, end: usize) {
        let w = &mut self.written[spe];
        *w = (w.0.min(start), w.1.max(end));
    }

    /// Bytes `off .. off + len` of store `spe`, to write.
    pub fn write(&mut self, spe: usize, off: usize, len: usize) -> &mut [u8] {
        self.mark(spe, off, off + len);
        let b = self.bytes;
        &mut self.block.bytes_mut()[spe * b..][..b][off..off + len]
    }

    /// `len` bytes at `from_off` of store `from`, to read, and at `to_off` of store `to`, to
    /// write, at once (two different stores).
    pub fn pair(&mut self, (from, from_off): (usize, usize), (to, to_off): (usize, usize), len: usize) -> (&[u8], &mut [u8]) {
        assert!(from != to && from.max(to) < self.len(), "two different local stores of {}: {from} and {to}", self.len());
        self.mark(to, to_off, to_off + len);
        let b = self.bytes;
        let (lo, hi) = self.block.bytes_mut().split_at_mut(from.max(to) * b);
        let (low, high) = (&mut lo[from.min(to) * b..][..b], &mut hi[..b]);
        let (src, dst) = if from < to { (low, high) } else { (high, low) };
        (&src[from_off..from_off + len], &mut dst[to_off..to_off + len])
    }
}

impl Index<usize> for LocalStores {
    type Output = [u8];
    fn index(&self, spe: usize) -> &[u8] {
        assert!(spe < self.len(), "local store {spe} of {}", self.len());
        &self.block.bytes()[spe * self.bytes..][..self.bytes]
    }
}

/// The whole store, counted as written (for writers that do not say where).
impl IndexMut<usize> for LocalStores {
    fn index_mut(&mut self, spe: usize) -> &mut [u8] {
        assert!(spe < self.len(), "local store {spe} of {}", self.len());
        let b = self.bytes;
        self.mark(spe, 0, b);
        &mut self.block.bytes_mut()[spe * b..][..b]
    }
}

impl Drop for LocalStores {
    /// Clears what was written and keeps the block for this thread's next blade.
    fn drop(&mut self) {
        let Block { ptr, len, mapped } = self.block;
        if mapped {
            // SAFETY: the reservation made in `shared`, with the stores mapped over it.
            unsafe { libc::munmap(ptr.as_ptr().cast(), len) };
            return;
        }
        // SAFETY: the parts Block::owned took from this box; the block is not used again.
        let mut block = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr.as_ptr(), len)) };
        for (spe, &(start, end)) in self.written.iter().enumerate() {
            if start < end {
                block[spe * self.bytes + start..spe * self.bytes + end].fill(0);
            }
        }
        // During thread exit the pool may be gone: the block is then simply freed.
        let _ = FREE.try_with(|f| {
            let mut free = f.borrow_mut();
            if free.len() < KEPT {
                free.push(block);
            }
        });
    }
}

// SAFETY: a LocalStores owns its block alone within this process (the processes that share a
// mapped one are other processes), so it may move to another thread as a Box would.
unsafe impl Send for LocalStores {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_stores_are_the_files_bytes() {
        let (mut ls, files) = LocalStores::shared(65536, 2).expect("memfd");
        ls.write(1, 10, 3).copy_from_slice(&[1, 2, 3]);
        let mut seen = [0u8; 3];
        // SAFETY: pread into a local buffer from a descriptor we own.
        let n = unsafe { libc::pread(files[1].as_raw_fd(), seen.as_mut_ptr().cast(), 3, 10) };
        assert_eq!((n, seen), (3, [1, 2, 3]));
        // SAFETY: pwrite from a local buffer.
        unsafe { libc::pwrite(files[0].as_raw_fd(), [9u8].as_ptr().cast(), 1, 65535) };
        assert_eq!((ls[0][65535], ls[1][0]), (9, 0));
    }

    #[test]
    fn stores_start_zero_keep_apart_and_come_back_zero() {
        for round in 0..3 {
            let mut ls = LocalStores::new(4096, 3);
            assert_eq!(ls.len(), 3);
            assert!((0..3).all(|s| ls[s].len() == 4096 && ls[s].iter().all(|&b| b == 0)), "round {round}: a reused block is zero");
            ls.write(1, 4090, 6).fill(7);
            ls.write(2, 0, 1)[0] = 9;
            assert_eq!((ls[0][4095], ls[1][4095], ls[2][0], ls[1][0]), (0, 7, 9, 0));
            for (from, to, off) in [(1, 2, 4094), (2, 0, 0)] {
                let (src, dst) = ls.pair((from, off), (to, 100), 2);
                dst.copy_from_slice(src);
            }
            assert_eq!((ls[2][100], ls[2][101], ls[0][100]), (7, 7, 9));
            ls[0][17] = 3; // written through IndexMut: the whole store counts as written
        }
    }

    #[test]
    #[should_panic(expected = "two different local stores")]
    fn a_store_is_not_paired_with_itself() {
        LocalStores::new(128, 2).pair((1, 0), (1, 16), 16);
    }
}
