//! mailbox, signal and mkthread (seed 002 §3.1.1-3.1.3).
//!
//! PPE-to-SPE (no `-s`): the PPE writes the SPE's inbound mailbox or signal register (directly
//! through MMIO, or with `syscall` through the library), the SPE answers through its outbound
//! mailbox, and the PPE polls for and reads the answer. SPE-to-SPE (`-s`): SPE 0 writes the
//! partner's inbound mailbox (or signal register) with a 4-byte put to its MMIO address and the
//! partner answers the same way into SPE 0's; this is the cheapest reply an SPE can make, and
//! matches the ~150 ns round trip seed 000 §2.2 reports. Latency is one whole cycle.

use std::cell::RefCell;
use std::rc::Rc;

use super::{PerSpe, StatsParams};
use crate::blade::Blade;
use crate::error::Result;
use crate::ppe::Access;

pub fn mkthread(blade: &mut Blade, p: &StatsParams, out: Rc<RefCell<Vec<PerSpe>>>) -> Result<()> {
    let (iterations, spe) = (p.iterations, p.cell * 8);
    blade.ppe(move |ppe| async move {
        let t0 = ppe.now();
        for _ in 0..iterations {
            ppe.spe_thread_create_and_join().await;
        }
        let lat = (ppe.now() - t0).as_ns() / iterations as f64;
        out.borrow_mut().push(PerSpe { spe, latency_ns: lat, bandwidth_gbps: None });
        Ok(())
    });
    Ok(())
}

pub fn setup(blade: &mut Blade, p: &StatsParams, out: Rc<RefCell<Vec<PerSpe>>>) -> Result<()> {
    if p.spe_target {
        spe_to_spe(blade, p, out)
    } else {
        ppe_to_spe(blade, p, out)
    }
}

fn ppe_to_spe(blade: &mut Blade, p: &StatsParams, out: Rc<RefCell<Vec<PerSpe>>>) -> Result<()> {
    let spes = p.workers()?;
    let rounds = p.warmup + p.iterations;
    let signal = p.function == "signal";
    for &spe in &spes {
        blade.spe(spe, move |spu| async move {
            for _ in 0..rounds {
                let v = if signal { spu.spu_read_signal1().await? } else { spu.spu_read_in_mbox().await? };
                spu.spu_write_out_mbox(v).await?;
            }
            Ok(())
        })?;
    }
    let (warmup, iterations) = (p.warmup, p.iterations);
    let access = if p.syscall { Access::Syscall } else { Access::Mmio };
    blade.ppe(move |ppe| async move {
        let mut total = vec![0f64; spes.len()];
        for round in 0..rounds {
            for (k, &spe) in spes.iter().enumerate() {
                let t0 = ppe.now();
                if signal {
                    ppe.spe_signal_write(spe, 1, round + 1, access).await?;
                } else {
                    ppe.spe_in_mbox_write(spe, round + 1, access).await?;
                }
                ppe.spe_out_mbox_read(spe).await?;
                if round >= warmup {
                    total[k] += (ppe.now() - t0).as_ns();
                }
            }
        }
        let mut o = out.borrow_mut();
        for (k, &spe) in spes.iter().enumerate() {
            o.push(PerSpe { spe, latency_ns: total[k] / iterations as f64, bandwidth_gbps: None });
        }
        Ok(())
    });
    Ok(())
}

fn spe_to_spe(blade: &mut Blade, p: &StatsParams, out: Rc<RefCell<Vec<PerSpe>>>) -> Result<()> {
    let partners = p.workers()?;
    let rounds = p.warmup + p.iterations;
    let signal = p.function == "signal";
    for &spe in &partners {
        blade.spe(spe, move |spu| async move {
            let scratch = spu.ls_alloc(16, 16)?;
            spu.mfc_write_tag_mask(1);
            for _ in 0..rounds {
                let v = if signal { spu.spu_read_signal1().await? } else { spu.spu_read_in_mbox().await? };
                if signal {
                    spu.signal_remote(scratch, 0, 1, v, 0).await?;
                } else {
                    spu.write_remote_in_mbox(scratch, 0, v, 0).await?;
                }
                spu.mfc_read_tag_status_all().await?;
            }
            Ok(())
        })?;
    }
    let (warmup, iterations) = (p.warmup, p.iterations);
    blade.spe(0, move |spu| async move {
        let scratch = spu.ls_alloc(16, 16)?;
        spu.mfc_write_tag_mask(1);
        let mut ticks = vec![0u64; partners.len()];
        for round in 0..rounds {
            for (k, &partner) in partners.iter().enumerate() {
                let d0 = spu.spu_read_decrementer();
                if signal {
                    spu.signal_remote(scratch, partner, 1, round + 1, 0).await?;
                    spu.spu_read_signal1().await?;
                } else {
                    spu.write_remote_in_mbox(scratch, partner, round + 1, 0).await?;
                    spu.spu_read_in_mbox().await?;
                }
                if round >= warmup {
                    ticks[k] += d0.wrapping_sub(spu.spu_read_decrementer()) as u64;
                }
                spu.mfc_read_tag_status_all().await?;
            }
        }
        let period = spu.decrementer_period_ns();
        let mut o = out.borrow_mut();
        for (k, &partner) in partners.iter().enumerate() {
            o.push(PerSpe { spe: partner, latency_ns: ticks[k] as f64 * period / iterations as f64, bandwidth_gbps: None });
        }
        Ok(())
    })?;
    Ok(())
}
