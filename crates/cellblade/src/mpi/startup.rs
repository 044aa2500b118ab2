//! Start-up (seed 004 §3.2): `mpirun` on the PPE stores, for each rank, a structure with its
//! rank, the world size, the data mode, every rank's SPE and the effective address of every
//! rank's signal register, then sends each SPE thread the structure's address in a mailbox
//! message; `MPI_Init` on the SPE reads the mailbox and DMAs the structure in.
//!
//! Charged: the PPE's mailbox writes (an MMIO status read and an MMIO store each, as libspe2's
//! blocking `spe_in_mbox_write` does), the SPE's mailbox read and its DMA of the structure.
//! Not charged: the PPE's stores that build the structures (cached stores, before the mailbox
//! writes that publish them) and SPE thread creation, which happens before simulated time 0.

use crate::error::Result;
use crate::machine::memory::{reg, Memory};
use crate::machine::Machine;
use crate::ppe::{Access, Ppe};

use super::layout::{boot_ea, BOOT_BYTES};
use super::Mode;

const MAGIC: u32 = 0x4d50_4931; // "MPI1"

/// The boot structure: what one rank learns in `MPI_Init`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Boot {
    pub rank: usize,
    pub size: usize,
    pub mode: Mode,
    pub spes: Vec<usize>,
    pub signal_ea: Vec<u64>,
    /// Staging chunks in flight in memory mode.
    pub depth: u32,
}

impl Boot {
    pub fn encode(&self) -> [u8; BOOT_BYTES as usize] {
        let mut b = [0u8; BOOT_BYTES as usize];
        b[0..4].copy_from_slice(&(self.rank as u32).to_be_bytes());
        b[4..8].copy_from_slice(&(self.size as u32).to_be_bytes());
        let mode: u32 = if self.mode == Mode::Ls { 1 } else { 0 };
        b[8..12].copy_from_slice(&mode.to_be_bytes());
        b[12..16].copy_from_slice(&MAGIC.to_be_bytes());
        b[48..52].copy_from_slice(&self.depth.to_be_bytes());
        for (r, &spe) in self.spes.iter().enumerate() {
            b[16 + r] = spe as u8;
            b[64 + 8 * r..72 + 8 * r].copy_from_slice(&self.signal_ea[r].to_be_bytes());
        }
        b
    }

    pub fn decode(b: &[u8]) -> Boot {
        let word = |at: usize| u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        debug_assert_eq!(word(12), MAGIC, "boot structure");
        let size = word(4) as usize;
        Boot {
            rank: word(0) as usize,
            size,
            mode: if word(8) == 1 { Mode::Ls } else { Mode::Memory },
            spes: (0..size).map(|r| b[16 + r] as usize).collect(),
            signal_ea: (0..size).map(|r| u64::from_be_bytes(b[64 + 8 * r..72 + 8 * r].try_into().expect("8 bytes"))).collect(),
            depth: word(48),
        }
    }
}

/// Store every rank's boot structure in XDRAM0 (before the run: the PPE's own stores).
pub fn store_boot(m: &mut Machine, spes: &[usize], mode: Mode, depth: u32) {
    for rank in 0..spes.len() {
        let boot = Boot {
            rank,
            size: spes.len(),
            mode,
            spes: spes.to_vec(),
            signal_ea: spes.iter().map(|&s| Memory::mmio_ea(s, reg::SIGNOTIFY1)).collect(),
            depth,
        };
        m.mem.write_mem(boot_ea(rank), &boot.encode());
    }
}

/// The PPE side of start-up: one mailbox message per rank, carrying its structure's address.
pub async fn launch(ppe: Ppe, spes: Vec<usize>) -> Result<()> {
    for (rank, &spe) in spes.iter().enumerate() {
        ppe.spe_in_mbox_write(spe, boot_ea(rank) as u32, Access::Mmio).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boot_round_trips() {
        let b = Boot { rank: 3, size: 4, mode: Mode::Ls, spes: vec![0, 2, 9, 15], signal_ea: vec![1, 2, 3, u64::MAX], depth: 5 };
        assert_eq!(Boot::decode(&b.encode()), b);
    }
}
