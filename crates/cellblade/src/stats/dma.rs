//! dmaget, dmaput, dmalistget, dmalistput: blocking transfers between each SPE's local store
//! and a buffer in XDRAM `-m` (or SPE 0's local store with `-s`), shared (`-n`) or private
//! (`-N`, `-t` apart).

use std::cell::RefCell;
use std::rc::Rc;

use super::{gbps, timed_loop, PerSpe, StatsParams};
use crate::blade::Blade;
use crate::error::Result;
use crate::machine::mfc::ListElement;
use crate::spu::Spu;

/// Where buffers start in main memory: 1 MiB into the module, 128-byte aligned.
const MEM_BASE: u64 = 1 << 20;

pub fn setup(blade: &mut Blade, p: &StatsParams, out: Rc<RefCell<Vec<PerSpe>>>) -> Result<()> {
    let workers = p.workers()?;
    let stride = p.effective_stride();
    let bytes = p.transfer_bytes();
    let target_base = if p.spe_target {
        // SPE 0's local store: private buffers must fit in it.
        let need = if p.shared { bytes as u64 } else { stride * workers.len() as u64 };
        let ls = blade.machine().p.ls_bytes as u64;
        let base = blade.machine().ls_alloc(0, need.min(u32::MAX as u64) as u32, 128).map_err(|_| {
            crate::error::field_msg("spe_target", format!("spe_target with {} private buffers {stride} bytes apart does not fit: needs {need} bytes, SPE 0's local store has {ls}", workers.len()))
        })?;
        Spu::ls_ea(0, base)
    } else {
        blade.machine().mem.xdram_ea(p.xdram, MEM_BASE)
    };
    let get = p.function.ends_with("get");
    let list = p.function.starts_with("dmalist");
    for (i, &spe) in workers.iter().enumerate() {
        let ea = if p.shared { target_base } else { target_base + i as u64 * stride };
        let (size, elements, warmup, iterations) = (p.size(), p.elements(), p.warmup, p.iterations);
        let out = out.clone();
        blade.spe(spe, move |spu| async move {
            let buf = spu.ls_alloc(bytes, 128)?;
            spu.mfc_write_tag_mask(1);
            let elems: Vec<ListElement> = (0..elements).map(|k| ListElement { size, eal: (ea as u32).wrapping_add(k * size) }).collect();
            let lat = timed_loop(&spu, warmup, iterations, async || {
                match (list, get) {
                    (false, true) => spu.mfc_get(buf, ea, size, 0).await?,
                    (false, false) => spu.mfc_put(buf, ea, size, 0).await?,
                    (true, true) => spu.mfc_getl(buf, ea, &elems, 0).await?,
                    (true, false) => spu.mfc_putl(buf, ea, &elems, 0).await?,
                }
                spu.mfc_read_tag_status_all().await?;
                Ok(())
            })
            .await?;
            out.borrow_mut().push(PerSpe { spe, latency_ns: lat, bandwidth_gbps: Some(gbps(bytes as u64, lat)) });
            Ok(())
        })?;
    }
    Ok(())
}
