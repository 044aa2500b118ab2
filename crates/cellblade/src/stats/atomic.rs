//! fetchadd, fetchsub, fetchinc, fetchdec, fetchset (seed 002 §3.1.5): each SPE applies the
//! operation to a 32-bit word in main memory, a shared variable (`-n`) or its own (`-N`, `-t`
//! apart), with a getllar/putllc loop.

use std::cell::RefCell;
use std::rc::Rc;

use super::{PerSpe, StatsParams};
use crate::blade::Blade;
use crate::error::Result;
use crate::spu::AtomicOp;

const MEM_BASE: u64 = 2 << 20;

pub fn setup(blade: &mut Blade, p: &StatsParams, out: Rc<RefCell<Vec<PerSpe>>>) -> Result<()> {
    let op = match p.function.as_str() {
        "fetchadd" => AtomicOp::Add(1),
        "fetchsub" => AtomicOp::Sub(1),
        "fetchinc" => AtomicOp::Inc,
        "fetchdec" => AtomicOp::Dec,
        _ => AtomicOp::Set(1),
    };
    let base = blade.machine().mem.xdram_ea(p.xdram, MEM_BASE);
    let stride = p.stride.map_or(128, u64::from);
    for (i, spe) in p.workers()?.into_iter().enumerate() {
        let ea = if p.shared { base } else { base + i as u64 * stride };
        let (warmup, iterations) = (p.warmup, p.iterations);
        let out = out.clone();
        blade.spe(spe, move |spu| async move {
            let scratch = spu.ls_alloc(128, 128)?;
            let lat = super::timed_loop(&spu, warmup, iterations, async || spu.atomic_rmw(scratch, ea, op).await.map(|_| ())).await?;
            out.borrow_mut().push(PerSpe { spe, latency_ns: lat, bandwidth_gbps: None });
            Ok(())
        })?;
    }
    Ok(())
}
