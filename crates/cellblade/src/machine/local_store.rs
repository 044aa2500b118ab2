//! The SPEs' local stores as one block of anonymous memory, which the kernel zeroes page by
//! page at first touch. A blade's programs touch a few kilobytes of a few of its sixteen
//! stores; allocating them as vectors zeroed all 4 MB on every blade (calloc reuses freed
//! blocks and clears them), 4% of the CPU of `cellblade reproduce --quick`. What a store reads
//! is the same either way: zeros until written.

use std::ops::{Index, IndexMut};
use std::ptr::NonNull;

pub struct LocalStores {
    base: NonNull<u8>,
    /// Bytes of one store.
    bytes: usize,
    count: usize,
}

// The block is owned, as a `Vec<u8>`'s buffer is, and reached only through `&self`/`&mut self`.
unsafe impl Send for LocalStores {}
unsafe impl Sync for LocalStores {}

impl LocalStores {
    /// `count` stores of `bytes` bytes each, all zero.
    pub fn new(bytes: u32, count: usize) -> LocalStores {
        let (bytes, total) = (bytes as usize, bytes as usize * count);
        let base = if total == 0 {
            NonNull::dangling()
        } else {
            let prot = libc::PROT_READ | libc::PROT_WRITE;
            // SAFETY: a fresh private anonymous mapping, checked below; nothing else aliases it.
            let p = unsafe { libc::mmap(std::ptr::null_mut(), total, prot, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
            match NonNull::new(p.cast::<u8>()).filter(|_| p != libc::MAP_FAILED) {
                Some(p) => p,
                None => std::alloc::handle_alloc_error(std::alloc::Layout::from_size_align(total, 1).expect("a byte layout")),
            }
        };
        LocalStores { base, bytes, count }
    }

    /// How many stores there are.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn all(&self) -> &[u8] {
        // SAFETY: `base` points at `bytes * count` mapped bytes owned by `self` (or is dangling
        // with a length of zero).
        unsafe { std::slice::from_raw_parts(self.base.as_ptr(), self.bytes * self.count) }
    }

    fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `all`, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.base.as_ptr(), self.bytes * self.count) }
    }

    /// Store `from` to read and store `to` to write, at once (two different stores).
    pub fn pair(&mut self, from: usize, to: usize) -> (&[u8], &mut [u8]) {
        assert!(from != to && from.max(to) < self.count, "two different local stores of {}: {from} and {to}", self.count);
        let b = self.bytes;
        let (lo, hi) = self.all_mut().split_at_mut(from.max(to) * b);
        let (low, high) = (&mut lo[from.min(to) * b..][..b], &mut hi[..b]);
        if from < to {
            (low, high)
        } else {
            (high, low)
        }
    }
}

impl Index<usize> for LocalStores {
    type Output = [u8];
    fn index(&self, spe: usize) -> &[u8] {
        assert!(spe < self.count, "local store {spe} of {}", self.count);
        &self.all()[spe * self.bytes..][..self.bytes]
    }
}

impl IndexMut<usize> for LocalStores {
    fn index_mut(&mut self, spe: usize) -> &mut [u8] {
        assert!(spe < self.count, "local store {spe} of {}", self.count);
        let b = self.bytes;
        &mut self.all_mut()[spe * b..][..b]
    }
}

impl Drop for LocalStores {
    fn drop(&mut self) {
        let total = self.bytes * self.count;
        if total > 0 {
            // SAFETY: the mapping made in `new`, of this length, unmapped once.
            unsafe { libc::munmap(self.base.as_ptr().cast(), total) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_start_zero_and_keep_apart() {
        let mut ls = LocalStores::new(4096, 3);
        assert_eq!(ls.len(), 3);
        assert!((0..3).all(|s| ls[s].len() == 4096 && ls[s].iter().all(|&b| b == 0)));
        ls[1][4095] = 7;
        ls[2][0] = 9;
        assert_eq!((ls[0][4095], ls[1][4095], ls[2][0], ls[1][0]), (0, 7, 9, 0));
        for (from, to) in [(1, 2), (2, 0)] {
            let (src, dst) = ls.pair(from, to);
            dst[100] = src[if from == 1 { 4095 } else { 0 }];
        }
        assert_eq!((ls[2][100], ls[0][100]), (7, 9));
    }

    #[test]
    #[should_panic(expected = "two different local stores")]
    fn a_store_is_not_paired_with_itself() {
        LocalStores::new(128, 2).pair(1, 1);
    }
}
