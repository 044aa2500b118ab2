//! The hierarchical barrier and broadcast of seed 003 §6.1 on a cluster of blades.
//!
//! Barrier, on every blade at once:
//! 1. the blade's SPEs run the collective library's recursive-doubling barrier (`barrier.rdb`);
//! 2. rank 0 of the blade (the leader, SPE 0) tells the blade's PPE through its outbound
//!    mailbox (`spu_write_out_mbox`; the PPE polls the mailbox status register and reads the
//!    entry through the mapped problem-state area, each a charged MMIO access on the blade's bus);
//! 3. the PPEs run MPICH2's barrier over the network: Bruck's dissemination, ceil(log2 B)
//!    rounds, in round k blade b sends to b + 2^k and receives from b - 2^k (mod B);
//! 4. the PPE writes the leader's inbound mailbox (MMIO), and the leader enters a second rdb
//!    barrier that the blade's other SPEs entered already: they learn of the release in log2 p
//!    rounds, the seed's "binomial" ACK fan-out (3 L1(1) + L2(1) on 16 SPEs).
//!
//! Broadcast of m bytes from rank 0 of blade 0: the root puts the bytes to its blade's memory
//! and tells its PPE (outbound mailbox), then broadcasts on its blade with the library's
//! `broadcast.binomial_opt`; the PPEs run MPICH2's binomial-tree broadcast of the bytes over the
//! network; each other PPE lands them in its blade's memory and writes its leader's inbound
//! mailbox; the leader gets them into its local store and broadcasts on its blade the same way.
//! Every SPE's buffer is compared with the root's bytes.
//!
//! One call, every SPE starting at time 0; the latency is the time the last SPE finishes.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::Serialize;

use super::network::{Endpoint, Network};
use super::Cluster;
use crate::coll::algorithms;
use crate::coll::data::{inputs, Dtype, ReduceOp};
use crate::coll::lower::{Costs, Layout, Rank};
use crate::coll::schedule::{Op, Schedule};
use crate::error::{field_err, program_err, Result};
use crate::machine::config::MachineFile;
use crate::machine::topology::SPES;
use crate::ppe::Access;
use crate::sim::Time;

/// The blade's leader: rank 0, on SPE 0.
const LEADER: usize = 0;
/// The mailbox words of the leader-PPE handshake.
const ARRIVED: u32 = 0xA441_0001;
const RELEASE: u32 = 0x4E1E_0001;
/// Where a broadcast's bytes are staged in each blade's memory (XDRAM0, past the library's
/// notification counters).
const STAGING: u64 = 1 << 20;
const MAX_DMA: u32 = 16384;
const DATA_TAG: u32 = 5;
/// The library algorithm each blade's SPEs run.
pub const LOCAL_BARRIER: &str = "barrier.rdb";
pub const LOCAL_BROADCAST: &str = "broadcast.binomial_opt";

#[derive(Debug, Clone, Serialize)]
pub struct ClusterResult {
    pub op: String,
    /// The local algorithm and the network's, e.g. "barrier.rdb+bruck".
    pub algorithm: String,
    pub blades: usize,
    pub spes_per_blade: usize,
    pub spes: usize,
    pub size_bytes: u32,
    pub latency_ns: f64,
    /// Barrier: no SPE left before every SPE of every blade had arrived. Broadcast: every SPE
    /// holds the root's bytes.
    pub verified: bool,
    pub network_messages: u64,
}

/// SPEs per blade: 1 to 16.
fn check_spes(spes: usize) -> Result<()> {
    if spes == 0 || spes > SPES {
        return Err(field_err("spes", spes, format!("1 to {SPES} per blade")));
    }
    Ok(())
}

fn ceil_log2(n: usize) -> u32 {
    n.next_power_of_two().trailing_zeros()
}

/// What every SPE of the cluster shares: the schedule, its costs, the finishing times.
struct Common {
    sched: Schedule,
    costs: Costs,
    /// Latest time an SPE finished its local arrival (barrier), latest finish, earliest finish.
    arrived: Cell<Time>,
    last: Cell<Time>,
    first: Cell<Time>,
    ok: Cell<bool>,
}

fn common(file: &MachineFile, name: &str, p: usize, size: u32) -> Result<Rc<Common>> {
    let sched = algorithms::find(name)?.schedule(p, 0, size)?;
    crate::coll::check_fits(&sched, file.spu.ls_bytes)?;
    let costs = Costs::of(file, crate::coll::data::Dtype::Int32);
    Ok(Rc::new(Common {
        sched,
        costs,
        arrived: Cell::new(Time::ZERO),
        last: Cell::new(Time::ZERO),
        first: Cell::new(Time::HORIZON),
        ok: Cell::new(true),
    }))
}

fn rank(spu: &crate::spu::Spu, c: &Common, r: usize, p: usize, counters: u64) -> Result<Rank> {
    let layout = Layout::alloc(spu, &c.sched)?;
    Ok(Rank::new(spu.clone(), r, (0..p).collect(), layout, Dtype::Int32, ReduceOp::Sum, c.costs, counters))
}

fn finish(c: &Common, t: Time) {
    c.last.set(c.last.get().max(t));
    c.first.set(c.first.get().min(t));
}

fn result(op: Op, alg: String, blades: usize, p: usize, size: u32, c: &Common, messages: u64) -> ClusterResult {
    ClusterResult {
        op: op.name().into(),
        algorithm: alg,
        blades,
        spes_per_blade: p,
        spes: blades * p,
        size_bytes: size,
        latency_ns: c.last.get().as_ns(),
        verified: c.ok.get(),
        network_messages: messages,
    }
}

/// MPICH2's barrier between the PPEs: Bruck's dissemination.
async fn dissemination(ep: &Endpoint) -> Result<()> {
    let n = ep.blades();
    for k in 0..ceil_log2(n) {
        let d = 1 << k;
        ep.send((ep.blade + d) % n, k, Vec::new()).await?;
        ep.recv((ep.blade + n - d) % n, k).await?;
    }
    Ok(())
}

/// The hierarchical barrier on `blades` blades of `spes` SPEs each.
pub fn barrier(file: &MachineFile, blades: usize, spes: usize, window: Option<Time>) -> Result<ClusterResult> {
    check_spes(spes)?;
    let mut cl = Cluster::new(file, blades)?;
    if let Some(w) = window {
        cl.set_window(w)?;
    }
    let c = common(file, LOCAL_BARRIER, spes, 0)?;
    for b in 0..blades {
        let counters = cl.blades[b].machine().mem.xdram_ea(0, 0);
        for r in 0..spes {
            let c = c.clone();
            cl.blades[b].spe(r, move |spu| async move {
                let mut me = rank(&spu, &c, r, spes, counters)?;
                me.run(&c.sched).await?;
                c.arrived.set(c.arrived.get().max(spu.now()));
                if r == LEADER {
                    spu.spu_write_out_mbox(ARRIVED).await?;
                    let v = spu.spu_read_in_mbox().await?;
                    if v != RELEASE {
                        return Err(program_err(format!("spe {r}: expected the release word {RELEASE:#x} from the PPE, got {v:#x}")));
                    }
                }
                me.run(&c.sched).await?;
                finish(&c, spu.now());
                Ok(())
            })?;
        }
        let ep_net = cl.net.clone();
        cl.blades[b].ppe(move |ppe| async move {
            let ep = Endpoint { blade: b, ppe, net: ep_net };
            let v = ep.ppe.spe_out_mbox_read(LEADER).await?;
            if v != ARRIVED {
                return Err(program_err(format!("blade {b} ppe: expected the arrival word {ARRIVED:#x}, got {v:#x}")));
            }
            dissemination(&ep).await?;
            ep.ppe.spe_in_mbox_write(LEADER, RELEASE, Access::Mmio).await
        });
    }
    let report = cl.run()?;
    c.ok.set(c.first.get() >= c.arrived.get());
    Ok(result(Op::Barrier, format!("{LOCAL_BARRIER}+bruck"), blades, spes, 0, &c, report.messages))
}

/// MPICH2's binomial-tree broadcast between the PPEs, rooted at blade 0: receive from the
/// parent (unless the root), then send to each child, largest subtree first.
async fn binomial(ep: &Endpoint, data: Option<Vec<u8>>) -> Result<Vec<u8>> {
    let (n, me) = (ep.blades(), ep.blade);
    let mut mask = 1;
    let mut data = data;
    while mask < n {
        if me & mask != 0 {
            data = Some(ep.recv(me - mask, 0).await?);
            break;
        }
        mask <<= 1;
    }
    let data = data.ok_or_else(|| program_err(format!("blade {me}: the broadcast root has no data")))?;
    mask >>= 1;
    while mask > 0 {
        if me + mask < n {
            ep.send(me + mask, 0, data.clone()).await?;
        }
        mask >>= 1;
    }
    Ok(data)
}

/// Move `bytes` between the local store at `ls` and `ea`, 16 KB at a time, and wait.
async fn dma(spu: &crate::spu::Spu, ls: u32, ea: u64, bytes: u32, put: bool) -> Result<()> {
    let mut off = 0;
    while off < bytes {
        let n = (bytes - off).min(MAX_DMA);
        if put {
            spu.mfc_put(ls + off, ea + u64::from(off), n, DATA_TAG).await?;
        } else {
            spu.mfc_get(ls + off, ea + u64::from(off), n, DATA_TAG).await?;
        }
        off += n;
    }
    spu.mfc_write_tag_mask(1 << DATA_TAG);
    spu.mfc_read_tag_status_all().await?;
    Ok(())
}

/// The hierarchical broadcast of `size` bytes (a multiple of 16) from rank 0 of blade 0.
pub fn broadcast(file: &MachineFile, blades: usize, spes: usize, size: u32, window: Option<Time>) -> Result<ClusterResult> {
    check_spes(spes)?;
    if size == 0 || !size.is_multiple_of(16) {
        return Err(field_err("sizes", size, "a multiple of 16 bytes, at least 16, on a cluster"));
    }
    let mut cl = Cluster::new(file, blades)?;
    if let Some(w) = window {
        cl.set_window(w)?;
    }
    let c = common(file, LOCAL_BROADCAST, spes, size)?;
    let data = Rc::new(inputs(Op::Broadcast, 1, 0, size, Dtype::Int32).remove(0));
    for b in 0..blades {
        let counters = cl.blades[b].machine().mem.xdram_ea(0, 0);
        let staging = cl.blades[b].machine().mem.xdram_ea(0, STAGING);
        for r in 0..spes {
            let (c, data) = (c.clone(), data.clone());
            cl.blades[b].spe(r, move |spu| async move {
                let mut me = rank(&spu, &c, r, spes, counters)?;
                let buf = me.layout.buf;
                if r == LEADER && b == 0 {
                    spu.ls_write(buf, &data)?;
                    if blades > 1 {
                        dma(&spu, buf, staging, size, true).await?;
                        spu.spu_write_out_mbox(ARRIVED).await?;
                    }
                } else if r == LEADER {
                    let v = spu.spu_read_in_mbox().await?;
                    if v != RELEASE {
                        return Err(program_err(format!("blade {b} spe {r}: expected {RELEASE:#x} from the PPE, got {v:#x}")));
                    }
                    dma(&spu, buf, staging, size, false).await?;
                }
                me.run(&c.sched).await?;
                if spu.ls_read(buf, size)? != *data {
                    c.ok.set(false);
                }
                finish(&c, spu.now());
                Ok(())
            })?;
        }
        if blades > 1 {
            let net: Rc<RefCell<Network>> = cl.net.clone();
            let sh = cl.blades[b].shared();
            cl.blades[b].ppe(move |ppe| async move {
                let ep = Endpoint { blade: b, ppe, net };
                if b == 0 {
                    let v = ep.ppe.spe_out_mbox_read(LEADER).await?;
                    if v != ARRIVED {
                        return Err(program_err(format!("blade 0 ppe: expected {ARRIVED:#x}, got {v:#x}")));
                    }
                    let mut bytes = vec![0u8; size as usize];
                    sh.world.borrow().mem.read_mem(staging, &mut bytes);
                    binomial(&ep, Some(bytes)).await?;
                    return Ok(());
                }
                let bytes = binomial(&ep, None).await?;
                sh.world.borrow_mut().mem.write_mem(staging, &bytes);
                ep.ppe.spe_in_mbox_write(LEADER, RELEASE, Access::Mmio).await
            });
        }
    }
    let report = cl.run()?;
    Ok(result(Op::Broadcast, format!("{LOCAL_BROADCAST}+binomial"), blades, spes, size, &c, report.messages))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::config::{load, preset_text};

    fn qs20() -> MachineFile {
        load(preset_text("qs20").unwrap(), &[]).unwrap()
    }

    #[test]
    fn barrier_completes_on_2_and_4_blades_and_grows_with_the_network_rounds() {
        let f = qs20();
        let one = barrier(&f, 1, 16, None).unwrap();
        let two = barrier(&f, 2, 16, None).unwrap();
        let four = barrier(&f, 4, 16, None).unwrap();
        for r in [&one, &two, &four] {
            assert!(r.verified, "{r:?}");
        }
        assert_eq!((two.spes, four.spes), (32, 64));
        // Bruck: 1 round on 2 blades, 2 on 4; every blade sends one message per round.
        assert_eq!((one.network_messages, two.network_messages, four.network_messages), (0, 2, 8));
        // A round costs at least 2 overheads + latency (2.5 us with the preset). The PPE sees the
        // leader's arrival word at its next status poll (one load), so the runs' other parts may
        // differ by up to one poll.
        let poll = f.ppe.mmio_ns + 100.0;
        assert!(two.latency_ns - one.latency_ns >= 2500.0 - poll, "{one:?} {two:?}");
        assert!(four.latency_ns - two.latency_ns >= 2500.0 - poll, "{two:?} {four:?}");
    }

    #[test]
    fn broadcast_moves_the_roots_bytes_to_every_spe_of_every_blade() {
        let f = qs20();
        for (blades, spes, size) in [(2, 16, 1024), (4, 16, 4096), (3, 8, 16), (4, 5, 160)] {
            let r = broadcast(&f, blades, spes, size, None).unwrap();
            assert!(r.verified, "{r:?}");
            assert_eq!(r.network_messages, blades as u64 - 1);
        }
    }

    #[test]
    fn runs_are_deterministic_and_do_not_depend_on_the_window() {
        let f = qs20();
        let a = barrier(&f, 4, 16, None).unwrap();
        let b = barrier(&f, 4, 16, None).unwrap();
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        let w = Time::from_ns(f.network.latency_ns / 7.0);
        let c = barrier(&f, 4, 16, Some(w)).unwrap();
        assert_eq!(a.latency_ns.to_bits(), c.latency_ns.to_bits());
        let d = broadcast(&f, 3, 16, 2048, None).unwrap();
        let e = broadcast(&f, 3, 16, 2048, Some(Time::from_ns(33.0))).unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), serde_json::to_string(&e).unwrap());
        // A window past the latency could land a message in a blade's past: refused.
        let mut cl = Cluster::new(&f, 2).unwrap();
        let e = cl.set_window(Time::from_ns(f.network.latency_ns + 10.0)).unwrap_err().to_string();
        assert_eq!(e, "cluster window 1510.000 ns is not allowed: above zero and at most the network latency (1500.000 ns)");
    }

    #[test]
    fn bad_sizes_counts_and_a_deadlock_are_named() {
        let f = qs20();
        for b in [0, 5] {
            let e = barrier(&f, b, 16, None).unwrap_err();
            assert_eq!((e.field(), e.message().to_string()), (Some("blades"), format!("blades {b} is not allowed: 1 to 4")));
        }
        let e = barrier(&f, 2, 17, None).unwrap_err();
        assert_eq!(e.message(), "spes 17 is not allowed: 1 to 16 per blade");
        let e = broadcast(&f, 2, 16, 24, None).unwrap_err();
        assert_eq!(e.message(), "sizes 24 is not allowed: a multiple of 16 bytes, at least 16, on a cluster");
        // A PPE waiting for a message nobody sends: the report names it, blade by blade.
        let mut cl = Cluster::new(&f, 2).unwrap();
        let net = cl.net.clone();
        cl.blades[1].ppe(move |ppe| async move { Endpoint { blade: 1, ppe, net }.recv(0, 9).await.map(|_| ()) });
        let e = cl.run().unwrap_err().to_string();
        assert!(e.starts_with("the cluster deadlocks (no blade has an event pending): blade 1: deadlock at"), "{e}");
        assert!(e.contains("ppe waits for a network message from blade 0 to blade 1 with tag 9"), "{e}");
    }
}
