//! SPE-to-SPE get patterns (seed 001 §4, Table 1): each listed SPE gets `bytes` from another
//! SPE's local store as non-blocking 16 KB DMAs, all starting together, `reps` times; each
//! reports its own bandwidth. The affinity work builds on this.

use std::cell::RefCell;
use std::rc::Rc;

use crate::blade::Blade;
use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;

/// One transfer of a pattern: `dst` gets from `src` (physical SPE ids), written `dst <- src`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Get {
    pub dst: usize,
    pub src: usize,
}

/// Bandwidth (GB/s) each transfer achieved, in the order given.
pub fn run_gets(file: MachineFile, gets: &[Get], bytes: u32, reps: u32) -> Result<Vec<f64>> {
    let max = file.mfc.max_dma_bytes;
    if bytes == 0 || !bytes.is_multiple_of(16) || bytes > file.spu.ls_bytes / 2 {
        return Err(config_err(format!("message size {bytes} is not allowed: a multiple of 16 up to half the local store")));
    }
    let mut blade = Blade::new(file, false);
    let out = Rc::new(RefCell::new(vec![0f64; gets.len()]));
    // Sources publish a buffer at the same LS offset; destinations receive into theirs.
    let mut dsts = std::collections::BTreeMap::<usize, Vec<(usize, usize)>>::new();
    for (k, g) in gets.iter().enumerate() {
        dsts.entry(g.dst).or_default().push((k, g.src));
    }
    for (dst, list) in dsts {
        let out = out.clone();
        blade.spe(dst, move |spu| async move {
            let buf = spu.ls_alloc(bytes, 128)?;
            let (k, src) = list[0];
            if list.len() > 1 {
                return Err(config_err(format!("spe {dst} appears twice as a destination: one get per SPE")));
            }
            let src_ea = crate::spu::Spu::ls_ea(src, buf);
            spu.mfc_write_tag_mask(1);
            let t0 = spu.now();
            for _ in 0..reps {
                let mut off = 0;
                while off < bytes {
                    let n = (bytes - off).min(max);
                    spu.mfc_get(buf + off, src_ea + off as u64, n, 0).await?;
                    off += n;
                }
                spu.mfc_read_tag_status_all().await?;
            }
            let ns = (spu.now() - t0).as_ns();
            out.borrow_mut()[k] = super::gbps(bytes as u64 * reps as u64, ns);
            Ok(())
        })?;
    }
    blade.run()?;
    let v = out.borrow().clone();
    Ok(v)
}
