//! The SPEs' local stores: one block for all of them, taken from the blocks the blades this
//! thread dropped, with only the bytes those blades wrote cleared again. A blade's programs
//! write a few kilobytes of a few of its sixteen stores, and zeroing all 4 MB for each new blade
//! was 4% of the CPU of `cellblade reproduce --quick` (a fresh mapping per blade instead, zeroed
//! by the kernel page by page, cost more in page faults). What a store reads is the same either
//! way: zeros until written.
//!
//! Every write goes through [`LocalStores::write`], [`LocalStores::pair`] or `IndexMut` (which
//! counts the whole store as written), so the written span of each store is known and a block
//! comes back all zeros.

use std::cell::RefCell;
use std::ops::{Index, IndexMut};

/// Blocks kept per thread for the next blades: one blade at a time is the usual case.
const KEPT: usize = 2;

thread_local! {
    /// Dropped blocks, all zeros, by size.
    static FREE: RefCell<Vec<Box<[u8]>>> = const { RefCell::new(Vec::new()) };
}

pub struct LocalStores {
    block: Box<[u8]>,
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
        LocalStores { block, bytes, written: vec![(usize::MAX, 0); count] }
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
        &mut self.block[spe * b..][..b][off..off + len]
    }

    /// `len` bytes at `from_off` of store `from`, to read, and at `to_off` of store `to`, to
    /// write, at once (two different stores).
    pub fn pair(&mut self, (from, from_off): (usize, usize), (to, to_off): (usize, usize), len: usize) -> (&[u8], &mut [u8]) {
        assert!(from != to && from.max(to) < self.len(), "two different local stores of {}: {from} and {to}", self.len());
        self.mark(to, to_off, to_off + len);
        let b = self.bytes;
        let (lo, hi) = self.block.split_at_mut(from.max(to) * b);
        let (low, high) = (&mut lo[from.min(to) * b..][..b], &mut hi[..b]);
        let (src, dst) = if from < to { (low, high) } else { (high, low) };
        (&src[from_off..from_off + len], &mut dst[to_off..to_off + len])
    }
}

impl Index<usize> for LocalStores {
    type Output = [u8];
    fn index(&self, spe: usize) -> &[u8] {
        assert!(spe < self.len(), "local store {spe} of {}", self.len());
        &self.block[spe * self.bytes..][..self.bytes]
    }
}

/// The whole store, counted as written (for writers that do not say where).
impl IndexMut<usize> for LocalStores {
    fn index_mut(&mut self, spe: usize) -> &mut [u8] {
        assert!(spe < self.len(), "local store {spe} of {}", self.len());
        let b = self.bytes;
        self.mark(spe, 0, b);
        &mut self.block[spe * b..][..b]
    }
}

impl Drop for LocalStores {
    /// Clears what was written and keeps the block for this thread's next blade.
    fn drop(&mut self) {
        let mut block = std::mem::take(&mut self.block);
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

#[cfg(test)]
mod tests {
    use super::*;

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
