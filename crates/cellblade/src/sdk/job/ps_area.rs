//! A PPE program's loads and stores to an SPE's problem-state areas (spe_ps_area_get), which
//! sdk/ppu/ps_area.c turns into requests: each is the register's access on the blade.
//!
//! | area | register (offset) | what it is here |
//! |---|---|---|
//! | control | SPU_Out_Mbox (0x4) load, SPU_Mbox_Stat (0x14) load | the bus round trip [`Ppe::mmio_read`] models, and its value |
//! | control | SPU_In_Mbox (0xC) store | the posted store [`Ppe::mmio_write`] models |
//! | signal 1, 2 | SPU_Sig_Notify_1/2 (0xC) store | the same |
//! | MFC command | MFC_LSA, _EAH, _EAL, _Size_Tag (0x4-0x10) store | kept for the command: posted, they cost the PPE nothing, and their own bus time is not modelled |
//! | MFC command | MFC_ClassID_CMD (0x14) store | the proxy command enters the SPE's MFC queue (which the blade's proxy commands share here, as [`Ppe::spe_mfcio`] says) |
//! | MFC command | MFC_CMDStatus (0x14), MFC_QStatus (0x104), Prxy_TagStatus (0x22C) load | the command's outcome (0, or 2 when the queue was full, 1 when the MFC refused it), the free slots (bit 31: none queued), the groups of Prxy_QueryMask (0x21C) complete; each timed as a load of SPU_Mbox_Stat, a register on the same path |
//! | MFC command | MFC_LSA ... MFC_Size_Tag load | what was stored, timed as a load of SPU_Mbox_Stat |
//! | control | SPU_Status (0x24) load | running 0x1, or stopped by a stop-and-signal 0x2 with its code in the upper half (Linux's spu.h bits), else 0; timed so too |
//! | MSSync | MFC_MSSync (0x0) store, load | starts; reads 1 while the SPE's MFC has transfers not complete (those queued after the start too), else 0 |
//!
//! Any other register (SPU_RunCntl, SPU_NPC, a read of a signal register) is refused
//! with a note naming it, and the PPE program ends by its fault.

use crate::error::{Error, Result};
use crate::machine::memory::reg;
use crate::machine::mfc::{CmdKind, MfcCommand};
use crate::ppe::Ppe;

use super::wire::{self, Answer, Request};
use super::{effective_address, refused, JobRef};

const MSSYNC: u32 = 0;
const MFC_COMMAND: u32 = 1;
const CONTROL: u32 = 2;
const SIG_NOTIFY_1: u32 = 3;
const SIG_NOTIFY_2: u32 = 4;
/// spe_mssync_* without the mapped area: a write or read of spufs's mss file.
const THROUGH_SPUFS: u32 = 0x100;

/// The proxy command being written in a context's MFC command area.
#[derive(Default, Clone, Copy)]
pub(super) struct ProxyRegisters {
    lsa: u32,
    eah: u32,
    eal: u32,
    size_tag: u32,
    /// MFC_CMDStatus: the last command's outcome.
    status: u32,
    query_mask: u32,
}

/// CB_PS_ACCESS: a = context, b = area (| THROUGH_SPUFS), c = offset, d = the value stored, e
/// = 1 for a store; the answer's value is what a load read.
pub(super) async fn ps_access(p: &Ppe, job: &JobRef, spe: usize, req: &Request) -> Result<Answer> {
    let (n, offset, store, value) = (req.a as usize, req.c, req.e == 1, req.d as u32);
    let ok = |value: u32| Ok(Answer { value: value as u64, ..Answer::default() });
    match (req.b, offset, store) {
        (CONTROL, 0x4, false) => ok(p.mmio_read(spe, reg::SPU_OUT_MBOX).await?),
        (CONTROL, 0x14, false) => ok(p.mmio_read(spe, reg::SPU_MBOX_STAT).await?),
        (CONTROL, 0xC, true) => p.mmio_write(spe, reg::SPU_IN_MBOX, value).await.and(ok(0)),
        (SIG_NOTIFY_1, 0xC, true) => p.mmio_write(spe, reg::SIGNOTIFY1, value).await.and(ok(0)),
        (SIG_NOTIFY_2, 0xC, true) => p.mmio_write(spe, reg::SIGNOTIFY2, value).await.and(ok(0)),
        (CONTROL, 0x24, false) => {
            // SPU_Status (Linux's spu.h bits): running 0x1; stopped by a stop instruction 0x2,
            // its code in the upper half; else 0. Timed as a load of SPU_Mbox_Stat, a register
            // on the same path.
            p.mmio_read(spe, reg::SPU_MBOX_STAT).await?;
            let j = job.borrow();
            let ctx = &j.contexts[n];
            let stopped = match ctx.last_stop {
                Some((wire::SPE_STOP_AND_SIGNAL, code)) => (code as u32) << 16 | 0x2,
                _ => 0,
            };
            ok(if ctx.paused.is_some() {
                stopped
            } else if ctx.child.is_some() {
                0x1
            } else {
                0
            })
        }
        (MFC_COMMAND, 0x4..=0x10, false) => {
            // The command's parameters read back as written, timed as a load on the same path.
            p.mmio_read(spe, reg::SPU_MBOX_STAT).await?;
            let r = job.borrow().contexts[n].proxy;
            ok([r.lsa, r.eah, r.eal, r.size_tag][(offset / 4 - 1) as usize])
        }
        (MFC_COMMAND, 0x4..=0x10 | 0x204 | 0x21C, true) => {
            let mut j = job.borrow_mut();
            let r = &mut j.contexts[n].proxy;
            match offset {
                0x4 => r.lsa = value,
                0x8 => r.eah = value,
                0xC => r.eal = value,
                0x10 => r.size_tag = value,
                0x21C => r.query_mask = value,
                _ => {} // Prxy_QueryType: the status read is immediate whatever it asks
            }
            ok(0)
        }
        (MFC_COMMAND, 0x14, true) => {
            let status = enqueue(p, job, n, spe, value);
            job.borrow_mut().contexts[n].proxy.status = status;
            ok(0)
        }
        (MFC_COMMAND, 0x14 | 0x104 | 0x22C, false) => {
            p.mmio_read(spe, reg::SPU_MBOX_STAT).await?;
            let (sh, _) = p.process();
            let m = sh.world.borrow();
            let r = job.borrow().contexts[n].proxy;
            ok(match offset {
                0x14 => r.status,
                0x104 => {
                    let queued = m.mfc[spe].queue.len();
                    (m.p.mfc_queue_depth.saturating_sub(queued) as u32) | if queued == 0 { 1 << 31 } else { 0 }
                }
                _ => m.mfc[spe].done_tags(r.query_mask),
            })
        }
        (MSSYNC | 0x100, 0, _) => {
            if req.b & THROUGH_SPUFS != 0 {
                p.kernel_call().await;
            } else if !store {
                p.mmio_read(spe, reg::SPU_MBOX_STAT).await?;
            }
            let (sh, _) = p.process();
            let pending = sh.world.borrow().mfc[spe].done_tags(u32::MAX) != u32::MAX;
            ok(if store { 0 } else { pending as u32 })
        }
        (area, offset, store) => {
            job.borrow_mut().notes.push(format!(
                "the PPE program: a {} of offset {offset:#x} of problem-state area {} of context {n} (SPE {spe}): the simulated blade has no such register there",
                if store { "store" } else { "load" },
                area_name(area)
            ));
            Ok(refused(wire::EINVAL))
        }
    }
}

fn area_name(area: u32) -> &'static str {
    match area & !THROUGH_SPUFS {
        MSSYNC => "SPE_MSSYNC_AREA",
        MFC_COMMAND => "SPE_MFC_COMMAND_AREA",
        CONTROL => "SPE_CONTROL_AREA",
        SIG_NOTIFY_1 => "SPE_SIG_NOTIFY_1_AREA",
        SIG_NOTIFY_2 => "SPE_SIG_NOTIFY_2_AREA",
        _ => "(none)",
    }
}

/// MFC_ClassID_CMD written: the command the area's registers hold enters the MFC queue, or its
/// MFC_CMDStatus says why not (the hardware's two bits: 2, the queue full; 1, a command the MFC
/// refuses, with a note saying why).
fn enqueue(p: &Ppe, job: &JobRef, n: usize, spe: usize, class_cmd: u32) -> u32 {
    let r = job.borrow().contexts[n].proxy;
    let (kind, fence, barrier) = match class_cmd & 0xffff {
        0x40 => (CmdKind::Get, false, false),
        0x41 => (CmdKind::Get, false, true),
        0x42 => (CmdKind::Get, true, false),
        0x20 => (CmdKind::Put, false, false),
        0x21 => (CmdKind::Put, false, true),
        0x22 => (CmdKind::Put, true, false),
        op => {
            job.borrow_mut().notes.push(format!("the PPE program: proxy command {op:#x} written to context {n}'s MFC command area: not one cellblade has (get, put and their fenced and barriered forms)"));
            return 1;
        }
    };
    let (sh, pid) = p.process();
    let ls_bytes = sh.world.borrow().p.ls_bytes as u64;
    let ea = effective_address(job, (r.eah as u64) << 32 | r.eal as u64, ls_bytes);
    let cmd = MfcCommand { kind, lsa: r.lsa, ea, size: r.size_tag >> 16, tag: r.size_tag & 0xffff, fence, barrier, list: Vec::new() };
    let full = {
        let m = sh.world.borrow();
        m.mfc[spe].queue.len() >= m.p.mfc_queue_depth
    };
    if full {
        return 2;
    }
    match sh.with(|m, s| m.mfc_enqueue(s, spe, pid, cmd)) {
        Ok(_) => {
            job.borrow_mut().contexts[n].proxy_queued = true;
            0
        }
        Err(Error::Program(why)) => {
            job.borrow_mut().notes.push(format!(
                "the PPE program: proxy command {:#x} written to context {n}'s MFC command area refused: {why}",
                class_cmd & 0xffff
            ));
            1
        }
        Err(_) => 1,
    }
}
