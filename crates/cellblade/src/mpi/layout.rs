//! Where the MPI layer keeps things: the same local-store layout on every rank (so a sender
//! knows the address of its entry B_ij in any receiver), the boot structures in XDRAM0, and one
//! heap per rank in the main memory of its own chip (the seed did not consider NUMA placement;
//! near memory is what libnuma's default gives a thread).
//!
//! ```text
//! local store   0x0000  B_0j .. B_15j: 16 meta-data entries of 128 B (entry i: from rank i);
//!                       a buffered message (seed 004 §7) rides in its last 80 bytes
//!               0x0800  the outgoing meta-data entry (staged here, then DMAed into B_ij)
//!               0x0880  signal scratch quadword
//!               0x0900  the boot structure, once read
//!               0x1000  16 KB staging chunks, 2 by default (memory mode's double buffering)
//!               after   the rank's local-store heap (ls mode buffers) up to the end
//! XDRAM0        0x0000  boot structures, 256 B per rank
//! XDRAM(chip)   0x10000 + (spe % 8) * heap   the rank's main-memory heap
//! ```

use crate::machine::memory::Memory;
use crate::machine::topology::SPES_PER_CHIP;

use super::MAX_RANKS;

/// A meta-data entry (seed 004 §3.3): address, sender, tag, size, datatype, communicator, error
/// field and flag, in 128 bytes so that one DMA packet carries it whole.
pub const META_BYTES: u32 = 128;
pub const META_BASE: u32 = 0;
pub const OUT_META: u32 = META_BASE + MAX_RANKS as u32 * META_BYTES;
pub const SIG_SCRATCH: u32 = OUT_META + META_BYTES;
pub const BOOT_LS: u32 = SIG_SCRATCH + 128;
pub const BOOT_BYTES: u32 = 256;
/// One staging chunk: the largest single DMA (MFC_MAX_DMA_SIZE).
pub const CHUNK_BYTES: u32 = 16384;
pub const CHUNKS: u32 = 0x1000;
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

/// Entry B_ij's local-store offset in the receiver j.
pub fn entry(sender: usize) -> u32 {
    META_BASE + sender as u32 * META_BYTES
}

/// Address of rank `rank`'s boot structure.
pub fn boot_ea(rank: usize) -> u64 {
    rank as u64 * BOOT_BYTES as u64
}

/// The main-memory heap of the rank on SPE `spe`: its first address and size.
pub fn heap(mem: &Memory, spe: usize) -> (u64, u64) {
    let bytes = ((mem.xdram_bytes - HEAP_BASE) / SPES_PER_CHIP as u64) & !127;
    let chip = spe / SPES_PER_CHIP;
    (mem.xdram_ea(chip, HEAP_BASE + (spe % SPES_PER_CHIP) as u64 * bytes), bytes)
}

/// The local-store heap of the rank on SPE `spe` as effective addresses: first and size.
pub fn ls_heap(ls_bytes: u32, spe: usize, depth: u32) -> (u64, u64) {
    (Memory::ls_ea(spe, reserved_ls(depth)), (ls_bytes - reserved_ls(depth)) as u64)
}

// The areas of the local store follow each other, and the chunk tags are tag groups.
const _: () = assert!(OUT_META == 0x800 && BOOT_LS + BOOT_BYTES <= CHUNKS);
const _: () = assert!(tag::CHUNK0 + MAX_DEPTH <= 32);
// The machine file's limit on buffered messages is what the entry holds after its fields.
const _: () = assert!(META_BYTES - meta::DATA == crate::machine::config::MPI_BUFFERED_MAX_BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_do_not_overlap_and_are_aligned() {
        assert_eq!(reserved_ls(DEFAULT_DEPTH), 0x9000);
        assert!(boot_ea(MAX_RANKS) <= HEAP_BASE);
        let mem = Memory::new(512 << 20, 262144, 16);
        let (a, n) = heap(&mem, 7);
        let (b, _) = heap(&mem, 8);
        assert_eq!(a % 128, 0);
        assert!(a + n <= mem.xdram_bytes, "spe 7's heap stays in XDRAM0");
        assert_eq!(b, mem.xdram_bytes + HEAP_BASE, "spe 8's heap is the first in XDRAM1");
    }
}
