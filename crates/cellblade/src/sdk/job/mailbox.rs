//! The mailboxes read and written by several PPE threads at once, as spufs serialises them: its
//! mbox and wbox files take the context's lock (spu_acquire) around each access, so that a
//! status check and the access it allows happen together.

use crate::error::Result;
use crate::machine::memory::reg;
use crate::ppe::{Access, Ppe};

use super::JobRef;

/// spe_in_mbox_write's words, as spufs's wbox file writes them: each checks for a free slot and
/// writes under the context's lock (spu_acquire), so that PPE threads writing one SPE's inbound
/// mailbox at once never overwrite each other's words (libspe2's test_wbox_simultaneous). A
/// writer that finds it full lets the lock go before it looks again, as spufs's wait does.
/// Behaviours (libspe2's): 1 ALL_BLOCKING writes every word, 2 ANY_BLOCKING waits for the first
/// only, 3 ANY_NONBLOCKING writes what fits.
pub(super) async fn in_mbox_write(p: &Ppe, job: &JobRef, n: usize, spe: usize, words: &[u32], behaviour: u32) -> Result<u64> {
    let mut written = 0u64;
    'words: for &w in words {
        loop {
            spufs_acquire(p, job, n).await?;
            let free = p.spe_in_mbox_status(spe).await;
            let free = match free {
                Ok(free) => free,
                Err(e) => {
                    spufs_release(p, job, n);
                    return Err(e);
                }
            };
            if free > 0 {
                // The posted store is performed before the next holder's status load (guarded
                // storage keeps the PPE's order), so that load sees this word in place.
                let done = p.spe_in_mbox_write(spe, w, Access::Syscall).await;
                spufs_release(p, job, n);
                done?;
                written += 1;
                continue 'words;
            }
            spufs_release(p, job, n);
            if behaviour == 3 || (behaviour == 2 && written > 0) {
                break 'words;
            }
        }
    }
    Ok(written)
}

/// Take context `n`'s spufs lock, waiting behind the threads that asked for it earlier.
async fn spufs_acquire(p: &Ppe, job: &JobRef, n: usize) -> Result<()> {
    let (sh, pid) = p.process();
    let held = {
        let mut j = job.borrow_mut();
        let ctx = &mut j.contexts[n];
        let held = ctx.spufs_held;
        if held {
            ctx.spufs_waiting.push_back(pid);
        }
        ctx.spufs_held = true;
        held
    };
    if held {
        sh.with(|_, s| s.set_waiting(pid, move || format!("context {n}'s mailbox, behind another PPE thread's call")));
        sh.suspend(pid).await?;
    }
    Ok(())
}

/// Let context `n`'s spufs lock go: to the thread that has waited longest, if any.
fn spufs_release(p: &Ppe, job: &JobRef, n: usize) {
    let next = {
        let mut j = job.borrow_mut();
        let ctx = &mut j.contexts[n];
        let next = ctx.spufs_waiting.pop_front();
        ctx.spufs_held = next.is_some();
        next
    };
    if let Some(pid) = next {
        p.process().0.with(|_, s| s.wake(pid, Ok(0)));
    }
}

/// spe_out_mbox_read of at most `count` words, as spufs's mbox file reads: never waiting, what
/// is there, each word's status check and read under the lock, so that two threads reading one
/// SPE's outbound mailbox never both take its one word (libspe2's test_mbox_simultaneous).
pub(super) async fn out_mbox_read(p: &Ppe, job: &JobRef, n: usize, spe: usize, count: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    spufs_acquire(p, job, n).await?;
    let read = async {
        while out.len() / 4 < count && p.spe_out_mbox_status(spe).await? > 0 {
            out.extend_from_slice(&p.mmio_read(spe, reg::SPU_OUT_MBOX).await?.to_be_bytes());
        }
        Ok::<(), crate::error::Error>(())
    }
    .await;
    spufs_release(p, job, n);
    read.map(|()| out)
}
