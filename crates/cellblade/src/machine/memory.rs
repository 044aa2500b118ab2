//! Real bytes: main memory (XDRAM0 behind chip 0's MIC, XDRAM1 behind chip 1's), the 16 local
//! stores, and the effective-address map that makes local stores and problem-state registers
//! reachable by DMA, as a process's mapped SPE areas are on Linux.
//!
//! ```text
//! 0 .. xdram                      XDRAM0 (chip 0)
//! xdram .. 2*xdram                XDRAM1 (chip 1)
//! LS_WINDOW + spe*SPE_STRIDE      local store of SPE `spe` (ls_bytes)
//!   + PS_OFFSET + reg             its problem-state (MMIO) registers
//! ```

use crate::error::{program_err, Result};

use super::local_store::LocalStores;
use super::topology::Element;

pub const LS_WINDOW: u64 = 1 << 40;
pub const SPE_STRIDE: u64 = 1 << 20;
pub const PS_OFFSET: u64 = 0x40000;
const PAGE: u64 = 1 << 16;

/// Problem-state registers reachable by MMIO (offsets from Linux `struct spu_problem`).
pub mod reg {
    pub const SPU_OUT_MBOX: u64 = 0x4004;
    pub const SPU_IN_MBOX: u64 = 0x400C;
    pub const SPU_MBOX_STAT: u64 = 0x4014;
    pub const SIGNOTIFY1: u64 = 0x1400C;
    pub const SIGNOTIFY2: u64 = 0x1C00C;
}

/// What an effective address names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    Mem(u64),
    Ls {
        spe: usize,
        off: u32,
    },
    /// A register's offset in the problem-state area (below 2^20; 32 bits keep a `Loc` in 16
    /// bytes, and every bus transaction carries two).
    Mmio {
        spe: usize,
        reg: u32,
    },
}

impl Loc {
    /// The location `by` bytes further on (a register is only ever accessed whole).
    pub fn offset(self, by: u32) -> Loc {
        match self {
            Loc::Mem(ea) => Loc::Mem(ea + by as u64),
            Loc::Ls { spe, off } => Loc::Ls { spe, off: off + by },
            Loc::Mmio { .. } => self,
        }
    }
}

/// Main memory that lives in another process: a Cell SDK program's PPE process (`crate::sdk`),
/// whose own addresses are the effective addresses its SPE programs DMA to and from. A DMA reads
/// and writes it there, packet by packet at each packet's simulated time, as the MFC reads and
/// writes memory while the PPE goes on.
pub trait ExternalMemory {
    /// Whether every byte of `[ea, ea + len)` is memory of the program (mapped in its process).
    fn covers(&self, ea: u64, len: u32) -> bool;
    fn read(&self, ea: u64, out: &mut [u8]);
    fn write(&self, ea: u64, data: &[u8]);
    /// The bus element whose memory it is (the MIC of chip 0 or 1).
    fn chip(&self) -> usize;
}

pub struct Memory {
    pub xdram_bytes: u64,
    pub ls_bytes: u32,
    pages: Vec<Option<Box<[u8]>>>,
    pub ls: LocalStores,
    /// Writes into each local store, and into its SPE's inbound mailbox and signal registers,
    /// so far: a poller of one skips polls while it stays put ([`crate::sim::World::writes`]).
    pub ls_writes: Vec<u64>,
    /// Main memory in another process, instead of the simulated XDRAM pages (an SDK program's).
    pub external: Option<Box<dyn ExternalMemory>>,
}

impl Memory {
    pub fn new(xdram_bytes: u64, ls_bytes: u32, spes: usize) -> Memory {
        Memory {
            xdram_bytes,
            ls_bytes,
            pages: (0..(2 * xdram_bytes / PAGE)).map(|_| None).collect(),
            ls: LocalStores::new(ls_bytes, spes),
            ls_writes: vec![0; spes],
            external: None,
        }
    }

    pub fn ls_ea(spe: usize, off: u32) -> u64 {
        LS_WINDOW + spe as u64 * SPE_STRIDE + off as u64
    }

    pub fn mmio_ea(spe: usize, reg: u64) -> u64 {
        LS_WINDOW + spe as u64 * SPE_STRIDE + PS_OFFSET + reg
    }

    /// Main-memory address of byte `off` in XDRAM `module`.
    pub fn xdram_ea(&self, module: usize, off: u64) -> u64 {
        module as u64 * self.xdram_bytes + off
    }

    /// Resolve `[ea, ea+len)`; it must lie within one region.
    pub fn resolve(&self, ea: u64, len: u32) -> Result<Loc> {
        let end = ea.saturating_add(len as u64);
        if let Some(ext) = self.external.as_ref().filter(|_| end <= LS_WINDOW) {
            if ext.covers(ea, len) {
                return Ok(Loc::Mem(ea));
            }
            return Err(program_err(format!(
                "effective address {ea:#x} (+{len} bytes) maps to nothing: it is not memory of the PPE program's process"
            )));
        }
        if end <= 2 * self.xdram_bytes {
            return Ok(Loc::Mem(ea));
        }
        if ea >= LS_WINDOW {
            let spe = ((ea - LS_WINDOW) / SPE_STRIDE) as usize;
            let off = (ea - LS_WINDOW) % SPE_STRIDE;
            if spe < self.ls.len() {
                if off + len as u64 <= self.ls_bytes as u64 {
                    return Ok(Loc::Ls { spe, off: off as u32 });
                }
                let r = off.wrapping_sub(PS_OFFSET);
                if off >= PS_OFFSET
                    && [reg::SPU_OUT_MBOX, reg::SPU_IN_MBOX, reg::SPU_MBOX_STAT, reg::SIGNOTIFY1, reg::SIGNOTIFY2].contains(&r)
                {
                    if len != 4 {
                        return Err(program_err(format!(
                            "mmio access to register {r:#x} of spe {spe} is {len} bytes: problem-state registers take exactly 4"
                        )));
                    }
                    return Ok(Loc::Mmio { spe, reg: r as u32 });
                }
            }
        }
        Err(program_err(format!(
            "effective address {ea:#x} (+{len} bytes) maps to nothing: main memory is 0..{:#x}, local stores start at {LS_WINDOW:#x} with a stride of {SPE_STRIDE:#x}",
            2 * self.xdram_bytes
        )))
    }

    /// The EIB element that owns a location.
    pub fn owner(&self, loc: Loc) -> Element {
        match loc {
            // Two modules, and `resolve` keeps addresses below the end of the second.
            Loc::Mem(_) if self.external.is_some() => Element::mic(self.external.as_ref().map_or(0, |e| e.chip())),
            Loc::Mem(ea) => Element::mic((ea >= self.xdram_bytes) as usize),
            Loc::Ls { spe, .. } | Loc::Mmio { spe, .. } => Element::spe(spe),
        }
    }

    pub fn read_mem(&self, ea: u64, out: &mut [u8]) {
        match &self.external {
            Some(ext) => ext.read(ea, out),
            None => read_pages(&self.pages, ea, out),
        }
    }

    pub fn write_mem(&mut self, ea: u64, data: &[u8]) {
        match &self.external {
            Some(ext) => ext.write(ea, data),
            None => write_pages(&mut self.pages, ea, data),
        }
    }

    /// Copy `len` bytes between two resolved locations (neither an MMIO register). Runs once per
    /// bus packet, so the usual cases (memory and local store, either way) copy straight between
    /// the two, and only the others go through a line-sized stack buffer.
    pub fn copy(&mut self, src: Loc, dst: Loc, len: u32) {
        if let Loc::Ls { spe, .. } = dst {
            self.ls_writes[spe] += 1;
        }
        let n = len as usize;
        match (src, dst) {
            (Loc::Mem(ea), Loc::Ls { spe, off }) => {
                let into = self.ls.write(spe, off as usize, n);
                match &self.external {
                    Some(ext) => ext.read(ea, into),
                    None => read_pages(&self.pages, ea, into),
                }
            }
            (Loc::Ls { spe, off }, Loc::Mem(ea)) => {
                let from = &self.ls[spe][off as usize..off as usize + n];
                match &self.external {
                    Some(ext) => ext.write(ea, from),
                    None => write_pages(&mut self.pages, ea, from),
                }
            }
            (Loc::Ls { spe: a, off: from }, Loc::Ls { spe: b, off: to }) if a != b => {
                let (src, dst) = self.ls.pair((a, from as usize), (b, to as usize), n);
                dst.copy_from_slice(src);
            }
            _ => self.copy_buffered(src, dst, len),
        }
    }

    fn copy_buffered(&mut self, src: Loc, dst: Loc, len: u32) {
        let mut buf = [0u8; 128];
        let mut done = 0u32;
        while done < len {
            let n = (len - done).min(128);
            let chunk = &mut buf[..n as usize];
            match src {
                Loc::Mem(ea) => self.read_mem(ea + done as u64, chunk),
                Loc::Ls { spe, off } => chunk.copy_from_slice(&self.ls[spe][(off + done) as usize..(off + done + n) as usize]),
                Loc::Mmio { .. } => unreachable!("mmio reads are handled by the mailbox model"),
            }
            match dst {
                Loc::Mem(ea) => self.write_mem(ea + done as u64, chunk),
                Loc::Ls { spe, off } => self.ls.write(spe, (off + done) as usize, n as usize).copy_from_slice(chunk),
                Loc::Mmio { .. } => unreachable!("mmio writes are handled by the mailbox model"),
            }
            done += n;
        }
    }
}

fn read_pages(pages: &[Option<Box<[u8]>>], ea: u64, out: &mut [u8]) {
    let (pg, off) = ((ea / PAGE) as usize, (ea % PAGE) as usize);
    if let (Ok(line), true) = (<&mut [u8; 128]>::try_from(&mut *out), off + 128 <= PAGE as usize) {
        // A whole bus packet within one page: a fixed-size copy the compiler inlines, instead of
        // the general loop; most reads are these.
        match &pages[pg] {
            Some(p) => line.copy_from_slice(&p[off..off + 128]),
            None => line.fill(0),
        }
        return;
    }
    let mut done = 0;
    while done < out.len() {
        let a = ea + done as u64;
        let (pg, off) = ((a / PAGE) as usize, (a % PAGE) as usize);
        let n = (PAGE as usize - off).min(out.len() - done);
        match &pages[pg] {
            Some(p) => out[done..done + n].copy_from_slice(&p[off..off + n]),
            None => out[done..done + n].fill(0),
        }
        done += n;
    }
}

fn write_pages(pages: &mut [Option<Box<[u8]>>], ea: u64, data: &[u8]) {
    let mut done = 0;
    while done < data.len() {
        let a = ea + done as u64;
        let (pg, off) = ((a / PAGE) as usize, (a % PAGE) as usize);
        let n = (PAGE as usize - off).min(data.len() - done);
        let p = pages[pg].get_or_insert_with(|| vec![0u8; PAGE as usize].into_boxed_slice());
        p[off..off + n].copy_from_slice(&data[done..done + n]);
        done += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_resolves_each_region() {
        let m = Memory::new(1 << 20, 1 << 18, 16);
        assert_eq!(m.resolve(100, 16).unwrap(), Loc::Mem(100));
        assert_eq!(m.owner(Loc::Mem((1 << 20) + 5)), Element::mic(1));
        assert_eq!(m.resolve(Memory::ls_ea(3, 64), 16).unwrap(), Loc::Ls { spe: 3, off: 64 });
        assert_eq!(m.resolve(Memory::mmio_ea(9, reg::SIGNOTIFY1), 4).unwrap(), Loc::Mmio { spe: 9, reg: reg::SIGNOTIFY1 as u32 });
        assert!(m.resolve(Memory::ls_ea(3, (1 << 18) - 8), 16).is_err());
        assert!(m.resolve(Memory::mmio_ea(9, reg::SIGNOTIFY1), 8).unwrap_err().to_string().contains("exactly 4"));
    }

    #[test]
    fn bytes_round_trip_across_pages() {
        let mut m = Memory::new(1 << 20, 1 << 18, 2);
        let data: Vec<u8> = (0..200u8).collect();
        m.write_mem(PAGE - 100, &data);
        let mut out = vec![0u8; 200];
        m.read_mem(PAGE - 100, &mut out);
        assert_eq!(out, data);
        m.copy(Loc::Mem(PAGE - 100), Loc::Ls { spe: 1, off: 0 }, 200);
        assert_eq!(&m.ls[1][..200], &data[..]);
        // Local store to local store, both ways round, and back to memory.
        m.copy(Loc::Ls { spe: 1, off: 0 }, Loc::Ls { spe: 0, off: 16 }, 200);
        m.copy(Loc::Ls { spe: 0, off: 16 }, Loc::Ls { spe: 1, off: 256 }, 200);
        assert_eq!(&m.ls[1][256..456], &data[..]);
        m.copy(Loc::Ls { spe: 1, off: 256 }, Loc::Mem(3 * PAGE - 50), 200);
        m.copy(Loc::Mem(3 * PAGE - 50), Loc::Mem(5 * PAGE), 200);
        m.read_mem(5 * PAGE, &mut out);
        assert_eq!(out, data);
    }

    #[test]
    fn whole_packet_reads_match_the_bytes_written() {
        // 128-byte reads take a short path inside a page: check it against reads across a page
        // boundary and against pages never written (zeros).
        let mut m = Memory::new(1 << 20, 1 << 18, 1);
        let data: Vec<u8> = (0..=255u8).collect();
        m.write_mem(2 * PAGE - 128, &data);
        for (ea, want) in [(2 * PAGE - 128, &data[..128]), (2 * PAGE - 64, &data[64..192]), (2 * PAGE, &data[128..256])] {
            let mut out = [0u8; 128];
            m.read_mem(ea, &mut out);
            assert_eq!(&out[..], want, "read at {ea:#x}");
        }
        let mut out = [7u8; 128];
        m.read_mem(9 * PAGE, &mut out);
        assert_eq!(out, [0u8; 128]);
        out = [7u8; 128];
        m.read_mem(2 * PAGE + 64, &mut out);
        assert_eq!((&out[..64], &out[64..]), (&data[192..], &[0u8; 64][..]));
        out = [7u8; 128];
        m.read_mem(PAGE - 64, &mut out);
        assert_eq!(out, [0u8; 128], "a read across two pages never written");
    }
}
