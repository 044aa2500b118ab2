//! Where the MPI layer keeps things: the same local-store layout on every rank (so a sender
//! knows the address of its entry B_ij in any receiver), the boot structures in XDRAM0, and one
//! heap per rank in the main memory of its own chip (the seed did not consider NUMA placement;
//! near memory is what libnuma's default gives a thread).
//!
//! ```text
//! local store   0x0000  B_0j .. B_15j: 16 meta-data entries of 128 B (entry i: from rank i);
//!                       a buffered message (seed 004 §7) rides in its last 80 bytes
//!               0x0800  C_0j .. C_15j: the same for the collective context
//!               0x1000  the outgoing meta-data entry (staged here, then DMAed into B_ij or C_ij)
//!               0x1080  signal scratch quadword
//!               0x1090  completion words: one per receiver, toggled by it (`unexpected.rs`)
//!               0x10d0  completion scratch quadword (a completion word on its way out)
//!               0x1100  the boot structure, once read
//!               0x1200  16 KB staging chunks, 2 by default (memory mode's double buffering)
//!               after   the rank's local-store heap (ls mode buffers) up to the end
//! XDRAM0        0x0000  boot structures, 256 B per rank
//! XDRAM(chip)   0x10000 + k * heap   the main-memory heap of the chip's k-th rank (by SPE)
//! ```
//!
//! Two entries per ordered pair, one per context (a communicator word's lowest bit: even for
//! point-to-point, odd for its collectives): a pending point-to-point message that its receiver
//! has not yet taken must not hold up a collective's message between the same two ranks (MPI
//! requires a nonblocking send to stay pending across a barrier its receiver enters first). The
//! seed's library has one entry per pair; it had no nonblocking calls.
//!
//! The chip's memory is shared by the ranks on it, as the seed's buffers share the launcher's
//! address space: each gets an equal part, so two ranks have 256 MB each and eight 64 MB.

use crate::machine::memory::Memory;
use crate::machine::topology::SPES_PER_CHIP;

use super::MAX_RANKS;

/// A meta-data entry (seed 004 §3.3): address, sender, tag, size, datatype, communicator, error
/// field and flag, in 128 bytes so that one DMA packet carries it whole.
pub const META_BYTES: u32 = 128;
pub const META_BASE: u32 = 0;
/// The collective context's entries follow the point-to-point ones.
pub const COLL_META_BASE: u32 = META_BASE + MAX_RANKS as u32 * META_BYTES;
pub const OUT_META: u32 = COLL_META_BASE + MAX_RANKS as u32 * META_BYTES;
pub const SIG_SCRATCH: u32 = OUT_META + META_BYTES;
/// A nonblocking sender's completion words, one per receiver (`unexpected.rs`).
pub const COMPLETIONS: u32 = SIG_SCRATCH + 16;
/// Where a receiver stages the completion word it DMAs to a sender.
pub const COMPLETION_OUT: u32 = COMPLETIONS + 4 * MAX_RANKS as u32;
pub const BOOT_LS: u32 = SIG_SCRATCH + 128;
pub const BOOT_BYTES: u32 = 256;
/// One staging chunk: the largest single DMA (MFC_MAX_DMA_SIZE).
pub const CHUNK_BYTES: u32 = 16384;
pub const CHUNKS: u32 = 0x1200;
/// Staging chunks in flight in memory mode: the seed double buffers (2); §5.1 names more DMAs
/// in flight as the way to more throughput, up to this many.
pub const DEFAULT_DEPTH: u32 = 2;
pub const MAX_DEPTH: u32 = 8;

/// What the layer reserves at the bottom of every rank's local store with `depth` chunks.
pub fn reserved_ls(depth: u32) -> u32 {
    CHUNKS + depth * CHUNK_BYTES
}

/// Main-memory offset of the rank heaps within each XDRAM module (the boot structures are below).
const HEAP_BASE: u64 = 0x10000;

/// Fields of a meta-data entry: byte offsets of big-endian words. The seed's datatype word
/// (offset 24) stays zero: messages travel as bytes, the C layer converts datatypes to bytes.
pub mod meta {
    pub const FLAG: u32 = 0;
    pub const SOURCE: u32 = 4;
    pub const TAG: u32 = 8;
    pub const SIZE: u32 = 12;
    pub const ADDR_HI: u32 = 16;
    pub const ADDR_LO: u32 = 20;
    pub const COMM: u32 = 28;
    pub const ERROR: u32 = 32;
    /// 1 when the message travels in the entry (buffered mode, seed 004 §7).
    pub const INLINE: u32 = 36;
    /// 1 when the receiver acknowledges with its bit in signal register 2 (a nonblocking send).
    pub const ACK2: u32 = 40;
    /// A nonblocking send's index among its sender's parked sends (`unexpected.rs`).
    pub const INDEX: u32 = 44;
    /// A buffered message's bytes, up to the end of the entry.
    pub const DATA: u32 = 48;
}

/// Tag groups the layer uses.
pub mod tag {
    pub const META: u32 = 1;
    pub const SIGNAL: u32 = 2;
    /// Chunk k uses CHUNK0 + k % depth.
    pub const CHUNK0: u32 = 16;
    pub const BOOT: u32 = 5;
    pub const DIRECT: u32 = 6;
}

/// Whether a communicator word names a collective context (its lowest bit).
pub fn collective(comm: u32) -> bool {
    comm & COLL_CONTEXT != 0
}

/// The collective context of a communicator word.
pub const COLL_CONTEXT: u32 = 1;

/// The local-store offset, in the receiver, of the entry that carries `sender`'s messages on
/// `comm`'s context: B_ij or C_ij.
pub fn entry(sender: usize, comm: u32) -> u32 {
    let base = if collective(comm) { COLL_META_BASE } else { META_BASE };
    base + sender as u32 * META_BYTES
}

/// The bit of one (rank, context) entry in signal register 2 and in a sender's busy mask: the
/// point-to-point entries take bits 0-15, the collective ones 16-31.
pub fn slot_bit(rank: usize, comm: u32) -> u32 {
    1 << (rank + if collective(comm) { MAX_RANKS } else { 0 })
}

/// Address of rank `rank`'s boot structure.
pub fn boot_ea(rank: usize) -> u64 {
    rank as u64 * BOOT_BYTES as u64
}

/// The main-memory heap of the rank on SPE `spe`, in a job whose ranks run on `spes`: its areas
/// (first address and size), nearest first. The ranks on a chip share its memory equally, in SPE
/// order; a chip that runs no rank lends its memory to the other chip's ranks the same way.
pub fn heap(mem: &Memory, spe: usize, spes: &[usize]) -> Vec<(u64, u64)> {
    let chip = spe / SPES_PER_CHIP;
    let on_chip = spes.iter().filter(|&&s| s / SPES_PER_CHIP == chip);
    let (sharers, before) = on_chip.fold((0u64, 0u64), |(n, k), &s| (n + 1, k + u64::from(s < spe)));
    let bytes = ((mem.xdram_bytes - HEAP_BASE) / sharers.max(1)) & !127;
    let mut areas = vec![(mem.xdram_ea(chip, HEAP_BASE + before * bytes), bytes)];
    let far = 1 - chip;
    if spes.iter().all(|&s| s / SPES_PER_CHIP != far) {
        areas.push((mem.xdram_ea(far, HEAP_BASE + before * bytes), bytes));
    }
    areas
}

/// The local-store heap of the rank on SPE `spe` as effective addresses: first and size.
pub fn ls_heap(ls_bytes: u32, spe: usize, depth: u32) -> (u64, u64) {
    (Memory::ls_ea(spe, reserved_ls(depth)), (ls_bytes - reserved_ls(depth)) as u64)
}

// The areas of the local store follow each other, and the chunk tags are tag groups.
const _: () = assert!(OUT_META == 0x1000 && BOOT_LS + BOOT_BYTES <= CHUNKS && CHUNKS.is_multiple_of(128));
const _: () = assert!(COMPLETION_OUT + 16 <= BOOT_LS && COMPLETIONS.is_multiple_of(16));
// Both contexts' bits of every rank fit signal register 2.
const _: () = assert!(2 * MAX_RANKS <= 32);
const _: () = assert!(tag::CHUNK0 + MAX_DEPTH <= 32);
// The machine file's limit on buffered messages is what the entry holds after its fields.
const _: () = assert!(META_BYTES - meta::DATA == crate::machine::config::MPI_BUFFERED_MAX_BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_do_not_overlap_and_are_aligned() {
        assert_eq!(reserved_ls(DEFAULT_DEPTH), 0x9200);
        assert!(boot_ea(MAX_RANKS) <= HEAP_BASE);
        let mem = Memory::new(512 << 20, 262144, 16);
        let all: Vec<usize> = (0..16).collect();
        let (a, n) = heap(&mem, 7, &all)[0];
        let (b, _) = heap(&mem, 8, &all)[0];
        assert_eq!(a % 128, 0);
        assert!(a + n <= mem.xdram_bytes, "spe 7's heap stays in XDRAM0");
        assert_eq!(b, mem.xdram_bytes + HEAP_BASE, "spe 8's heap is the first in XDRAM1");
        assert_eq!(heap(&mem, 7, &all).len(), 1, "both chips run ranks: near memory only");
        assert_eq!(entry(3, 0), 3 * META_BYTES);
        assert_eq!(entry(3, 5), COLL_META_BASE + 3 * META_BYTES);
        assert!(entry(MAX_RANKS - 1, 1) + META_BYTES <= OUT_META);
    }

    #[test]
    fn the_ranks_on_a_chip_share_its_memory_equally() {
        let mem = Memory::new(512 << 20, 262144, 16);
        let whole = (512 << 20) - HEAP_BASE;
        let two = [5, 2];
        let (a, n) = heap(&mem, 2, &two)[0];
        let (b, m) = heap(&mem, 5, &two)[0];
        assert_eq!((n, m), ((whole / 2) & !127, n), "two ranks: half each");
        assert_eq!((a, b), (mem.xdram_ea(0, HEAP_BASE), a + n), "in SPE order, one after the other");
        assert_eq!(heap(&mem, 5, &two)[1], (mem.xdram_ea(1, HEAP_BASE) + n, n), "and half of the idle chip's memory");
        let eight: Vec<usize> = (0..8).collect();
        assert_eq!(heap(&mem, 3, &eight)[0].1, (whole / 8) & !127);
        let split = [0, 8];
        assert_eq!(heap(&mem, 8, &split), vec![(mem.xdram_ea(1, HEAP_BASE), whole)], "alone on chip 1: all of XDRAM1");
    }

    #[test]
    fn slot_bits_are_distinct_per_rank_and_context() {
        let mut seen = 0u32;
        for r in 0..MAX_RANKS {
            for comm in [0, 1, 6, 7] {
                let b = slot_bit(r, comm);
                assert_eq!(b.trailing_zeros() as usize % MAX_RANKS, r);
                if comm < 2 {
                    assert_eq!(seen & b, 0);
                    seen |= b;
                }
            }
        }
        assert_eq!(seen, u32::MAX);
    }
}
