//! The model of seed 003 §6.1 for a cluster of blades, and its parameters measured as the seed
//! does: the blade's terms by the micro-benchmarks of §3.3 ([`ModelParams`]), the SPE-to-PPE
//! latency by a mailbox ping-pong on the simulated blade, the node network's latency-plus-gap by
//! a PPE ping-pong over the simulated network (logp_mpi's PLogP measure: half the round trip is
//! L_node(m) + g_node(m)).
//!
//! Barrier (§6.1 "Cluster Barrier Implementation and Modeling"), B blades of p SPEs:
//!   T = rdb(p) + L_spe-ppe(1) + ceil(log2 B) [L_node(1) + g_node(1)] + L_ppe-spe(1) + rdb(p)
//! with rdb(p) table 1's recursive doubling (3 L1(1) + L2(1) on 16 SPEs, the seed's figure for
//! both the on-blade barrier and the binomial ACK fan-out). The seed overlaps the on-blade
//! barrier with its SPEs' ACKs to the PPE (a max of the two, plus g_spe-ppe(1)); here one SPE
//! (the leader) tells the PPE after the on-blade barrier, so the terms add and no SPE-to-PPE gap
//! appears (one message each way).
//!
//! Broadcast (the seed: "the performance models of other collectives could also be extended"):
//! the root's blade costs put(m) + bcast(p, m); every other blade
//!   put(m) + L_spe-ppe(1) + tree_b(m) + L_ppe-spe(1) + get(m) + bcast(p, m)
//! with bcast table 2's binomial-tree-opt, put/get one SPE's DMA of m bytes to and from memory
//! (measured), and tree_b MPICH2's binomial tree priced as Kielmann's PLogP prices it: a blade
//! sends to its children g_node(m) apart, each message L_node(m) + g_node(m) on its way
//! (ceil(log2 B) rounds on 2 and 4 blades; on 3, one round plus the root's second send's gap).
//! g_node(m) is measured as logp_mpi does, (RTT(n) - RTT(1)) / (n - 1) for a train of n. The
//! prediction is the largest blade's.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;

use super::equations;
use super::params::ModelParams;
use super::predict::error_pct;
use crate::blade::Blade;
use crate::cluster::coll::{LOCAL_BARRIER, LOCAL_BROADCAST};
use crate::cluster::network::Endpoint;
use crate::cluster::{check_blades, Cluster};
use crate::coll::schedule::Op;
use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;
use crate::ppe::Access;

/// The cluster terms measured on the simulated blade and network.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterParams {
    /// Half an SPE-PPE mailbox round trip: L_spe-ppe(1), taken equal to L_ppe-spe(1).
    pub spe_ppe_ns: f64,
    /// Half a PPE-PPE round trip of m bytes over the network: L_node(m) + g_node(m).
    pub node_ns: f64,
    /// g_node(m): the time between two messages of m bytes sent back to back by one PPE.
    pub node_gap_ns: f64,
    /// One SPE's DMA of m bytes to memory, then from it (0 for a barrier).
    pub put_ns: f64,
    pub get_ns: f64,
}

/// Timed repetitions of the cluster micro-benchmarks (they are deterministic: a few suffice).
const ITERATIONS: u32 = 8;

/// Half the round trip of SPE 0's outbound mailbox to the PPE and the PPE's write back into
/// SPE 0's inbound mailbox, timed by the SPE.
fn spe_ppe_half_rtt(file: &MachineFile) -> Result<f64> {
    let mut blade = Blade::new(file.clone(), false);
    let out = Rc::new(RefCell::new(0.0));
    let o = out.clone();
    blade.spe(0, move |spu| async move {
        let mut t0 = spu.now();
        for i in 0..=ITERATIONS {
            if i == 1 {
                t0 = spu.now();
            }
            spu.spu_write_out_mbox(i).await?;
            spu.spu_read_in_mbox().await?;
        }
        *o.borrow_mut() = (spu.now() - t0).as_ns() / f64::from(ITERATIONS) / 2.0;
        Ok(())
    })?;
    blade.ppe(|ppe| async move {
        for _ in 0..=ITERATIONS {
            let v = ppe.spe_out_mbox_read(0).await?;
            ppe.spe_in_mbox_write(0, v, Access::Mmio).await?;
        }
        Ok(())
    });
    blade.run()?;
    let v = *out.borrow();
    Ok(v)
}

/// logp_mpi's train between two blades' PPEs: blade 0 sends `count` messages of `bytes`
/// back to back, blade 1 answers the last with one; the mean time of that exchange.
fn node_train(file: &MachineFile, bytes: u32, count: u32) -> Result<f64> {
    let mut cl = Cluster::new(file, 2)?;
    let out = Rc::new(RefCell::new(0.0));
    for b in 0..2 {
        let (net, o) = (cl.net.clone(), out.clone());
        cl.blades[b].ppe(move |ppe| async move {
            let ep = Endpoint { blade: b, ppe, net };
            let mut t0 = ep.ppe.now();
            for i in 0..=ITERATIONS {
                if i == 1 {
                    t0 = ep.ppe.now();
                }
                if b == 0 {
                    for _ in 0..count {
                        ep.send(1, 0, vec![0; bytes as usize]).await?;
                    }
                    ep.recv(1, 0).await?;
                } else {
                    for _ in 0..count {
                        ep.recv(0, 0).await?;
                    }
                    ep.send(0, 0, vec![0; bytes as usize]).await?;
                }
            }
            if b == 0 {
                *o.borrow_mut() = (ep.ppe.now() - t0).as_ns() / f64::from(ITERATIONS);
            }
            Ok(())
        });
    }
    cl.run()?;
    let v = *out.borrow();
    Ok(v)
}

/// Messages in the train that measures g_node (PLogP's gap: (RTT(n) - RTT(1)) / (n - 1)).
const TRAIN: u32 = 8;

/// One SPE's put of `bytes` to XDRAM0 and get back: the mean time of each.
fn memory_dma(file: &MachineFile, bytes: u32) -> Result<(f64, f64)> {
    let mut blade = Blade::new(file.clone(), false);
    let out = Rc::new(RefCell::new((0.0, 0.0)));
    let ea = blade.machine().mem.xdram_ea(0, 1 << 20);
    let o = out.clone();
    blade.spe(0, move |spu| async move {
        let buf = spu.ls_alloc(bytes.max(16), 128)?;
        let (mut put, mut get) = (0.0, 0.0);
        for _ in 0..ITERATIONS {
            for is_put in [true, false] {
                let t0 = spu.now();
                let mut off = 0;
                while off < bytes {
                    let n = (bytes - off).min(16384);
                    if is_put {
                        spu.mfc_put(buf + off, ea + u64::from(off), n, 0).await?;
                    } else {
                        spu.mfc_get(buf + off, ea + u64::from(off), n, 0).await?;
                    }
                    off += n;
                }
                spu.mfc_write_tag_mask(1);
                spu.mfc_read_tag_status_all().await?;
                let dt = (spu.now() - t0).as_ns();
                if is_put {
                    put += dt;
                } else {
                    get += dt;
                }
            }
        }
        *o.borrow_mut() = (put / f64::from(ITERATIONS), get / f64::from(ITERATIONS));
        Ok(())
    })?;
    blade.run()?;
    let v = *out.borrow();
    Ok(v)
}

/// Measure the cluster terms for messages of `size` bytes (0: a barrier's 1-byte messages).
pub fn measure(file: &MachineFile, size: u32) -> Result<ClusterParams> {
    let (put_ns, get_ns) = if size == 0 { (0.0, 0.0) } else { memory_dma(file, size)? };
    let rtt = node_train(file, size.max(1), 1)?;
    let node_gap_ns = (node_train(file, size.max(1), TRAIN)? - rtt) / f64::from(TRAIN - 1);
    Ok(ClusterParams { spe_ppe_ns: spe_ppe_half_rtt(file)?, node_ns: rtt / 2.0, node_gap_ns, put_ns, get_ns })
}

/// A prediction and the terms it adds, named as in the seed.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterPrediction {
    pub op: String,
    pub blades: usize,
    pub spes_per_blade: usize,
    pub size_bytes: u32,
    pub latency_ns: f64,
    pub terms: Vec<(String, f64)>,
    pub params: ClusterParams,
}

fn ceil_log2(n: usize) -> u32 {
    n.next_power_of_two().trailing_zeros()
}

/// When each blade has the bytes in MPICH2's binomial broadcast from blade 0: a blade sends to
/// its children one after another, a gap apart, each arriving one L_node + g_node later.
fn binomial_arrivals(blades: usize, node_ns: f64, gap_ns: f64) -> Vec<f64> {
    let mut at = vec![0.0; blades];
    for me in 0..blades {
        // A blade's parent has the lower index, so `at[me]` is final here.
        let mut mask = 1;
        while mask < blades && me & mask == 0 {
            mask <<= 1;
        }
        let mut k = 0.0;
        mask >>= 1;
        while mask > 0 {
            if me + mask < blades {
                at[me + mask] = at[me] + k * gap_ns + node_ns;
                k += 1.0;
            }
            mask >>= 1;
        }
    }
    at
}

/// The seed's equation for the on-blade part (0 on one SPE: nothing to synchronise).
fn local(params: &ModelParams, alg: &str, p: usize, size: u32) -> Result<f64> {
    if p < 2 {
        return Ok(0.0);
    }
    Ok(equations::predict(params, alg, p, size, 0.0)?.latency_ns)
}

/// Predict `op` (barrier or broadcast) on `blades` blades of `spes` SPEs.
pub fn predict(params: &ModelParams, cp: &ClusterParams, op: Op, blades: usize, spes: usize, size: u32) -> Result<ClusterPrediction> {
    check_blades(blades)?;
    let rounds = f64::from(ceil_log2(blades));
    let net = rounds * cp.node_ns;
    let mut terms = Vec::new();
    let latency_ns = match op {
        Op::Barrier => {
            let rdb = local(params, LOCAL_BARRIER, spes, 0)?;
            terms.push(("rdb(p), arrival".to_string(), rdb));
            terms.push(("L_spe-ppe(1)".into(), cp.spe_ppe_ns));
            terms.push((format!("{rounds} x [L_node(1) + g_node(1)]"), net));
            terms.push(("L_ppe-spe(1)".into(), cp.spe_ppe_ns));
            terms.push(("rdb(p), release".into(), rdb));
            terms.iter().map(|t| t.1).sum()
        }
        Op::Broadcast => {
            let bcast = local(params, LOCAL_BROADCAST, spes, size)?;
            let (put, get) = if blades > 1 { (cp.put_ns, cp.get_ns) } else { (0.0, 0.0) };
            terms.push(("put(m)".into(), put));
            terms.push(("bcast(p, m)".into(), bcast));
            if blades == 1 {
                put + bcast
            } else {
                let tree = binomial_arrivals(blades, cp.node_ns, cp.node_gap_ns).into_iter().fold(0.0, f64::max);
                terms.push(("L_spe-ppe(1)".into(), cp.spe_ppe_ns));
                terms.push(("binomial tree: depth x [L_node(m) + g_node(m)] + sends x g_node(m)".into(), tree));
                terms.push(("L_ppe-spe(1)".into(), cp.spe_ppe_ns));
                terms.push(("get(m)".into(), get));
                (put + bcast).max(put + 2.0 * cp.spe_ppe_ns + tree + get + bcast)
            }
        }
        other => return Err(config_err(format!("{}: seed 003 §6.1 models a cluster's barrier and broadcast only", other.name()))),
    };
    Ok(ClusterPrediction { op: op.name().into(), blades, spes_per_blade: spes, size_bytes: size, latency_ns, terms, params: cp.clone() })
}

/// A prediction beside the simulated run.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterRow {
    pub op: String,
    pub blades: usize,
    pub spes: usize,
    pub size_bytes: u32,
    pub predicted_ns: f64,
    pub simulated_ns: f64,
    pub error_pct: f64,
    pub verified: bool,
}

/// Predict and simulate `op` on `blades` x `spes` SPEs with `size` bytes.
pub fn compare(file: &MachineFile, params: &ModelParams, op: Op, blades: usize, spes: usize, size: u32) -> Result<ClusterRow> {
    let cp = measure(file, size)?;
    let pred = predict(params, &cp, op, blades, spes, size)?;
    let sim = match op {
        Op::Barrier => crate::cluster::coll::barrier(file, blades, spes, None)?,
        _ => crate::cluster::coll::broadcast(file, blades, spes, size, None)?,
    };
    Ok(ClusterRow {
        op: op.name().into(),
        blades,
        spes: sim.spes,
        size_bytes: size,
        predicted_ns: pred.latency_ns,
        simulated_ns: sim.latency_ns,
        error_pct: error_pct(pred.latency_ns, sim.latency_ns),
        verified: sim.verified,
    })
}

/// The cluster points of `cellblade reproduce`, on 2 to 4 blades of 16 SPEs.
pub const CLAIM_POINTS: [(Op, u32); 3] = [(Op::Barrier, 0), (Op::Broadcast, 128), (Op::Broadcast, 4096)];

/// Seed 003 §7.2's cluster claim, one row per operation: the worst error over 2 to 4 blades.
pub fn claims(file: &MachineFile, params: &ModelParams) -> Result<Vec<crate::evidence::Claim>> {
    let mut out = Vec::new();
    for op in [Op::Barrier, Op::Broadcast] {
        let mut rows = Vec::new();
        for &(_, size) in CLAIM_POINTS.iter().filter(|(o, _)| *o == op) {
            for blades in 2..=crate::cluster::MAX_BLADES {
                rows.push(compare(file, params, op, blades, 16, size)?);
            }
        }
        let worst = rows.iter().map(|r| r.error_pct).fold(0.0, |a: f64, e| if e.abs() > a.abs() { e } else { a });
        let shown: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{} SPEs{}: {:+.1}%",
                    r.spes,
                    if r.size_bytes > 0 { format!(" {} B", r.size_bytes) } else { String::new() },
                    r.error_pct
                )
            })
            .collect();
        out.push(crate::evidence::claim::claim(
            &format!("{} up to 64 SPEs (4 blades) predicted within 13%", op.name()),
            "seed 003 §7.2, §6.1",
            "within 13%",
            format!("worst {:+.1}% ({})", worst, shown.join(", ")),
            crate::evidence::rules::within(&rows.iter().map(|r| r.error_pct).collect::<Vec<_>>(), 13.0) && rows.iter().all(|r| r.verified),
            "simulated: --blades 2 to 4, 16 SPEs each, one call; the network is the machine file's assumed 4x DDR InfiniBand",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::config::{load, preset_text};
    use crate::model::measure::{measure as measure_blade, MeasureRequest};

    #[test]
    fn the_model_predicts_the_simulated_cluster_within_the_seeds_13_percent() {
        let f = load(preset_text("qs20").unwrap(), &[]).unwrap();
        let params = measure_blade(&f, &MeasureRequest { sizes: vec![16, 128, 1024, 4096], iterations: 4 }).unwrap();
        let mut rows = Vec::new();
        for (op, size) in [(Op::Barrier, 0), (Op::Broadcast, 128), (Op::Broadcast, 4096)] {
            for blades in [1, 2, 3, 4] {
                rows.push(compare(&f, &params, op, blades, 16, size).unwrap());
            }
        }
        for r in &rows {
            eprintln!(
                "{} B={} m={} predicted {:.0} simulated {:.0} error {:+.1}%",
                r.op, r.blades, r.size_bytes, r.predicted_ns, r.simulated_ns, r.error_pct
            );
        }
        // The one row outside the seed's 13%, as `reproduce` reports it ("broadcast up to 64
        // SPEs predicted within 13%" does not hold): the blade's own 128-byte broadcast is
        // faster than seed 003's binomial-tree-opt equation gives since the library waits only
        // on the notifications it has in flight. Listed both ways: a row that comes back
        // inside fails too.
        const OUTSIDE: &[(&str, usize, u32)] = &[("broadcast", 2, 128)];
        for r in &rows {
            assert!(r.verified);
            if r.blades > 1 {
                let listed = OUTSIDE.contains(&(r.op.as_str(), r.blades, r.size_bytes));
                assert_eq!(r.error_pct.abs() > 13.0, listed, "{r:?}");
            }
        }
    }

    #[test]
    fn measured_terms_follow_the_machine_file() {
        let f = load(preset_text("qs20").unwrap(), &[]).unwrap();
        let cp = measure(&f, 0).unwrap();
        // A 1-byte ping-pong: 2 overheads + latency each way (2.5 us with the preset).
        assert!((cp.node_ns - 2500.0).abs() < 1.0, "{cp:?}");
        // Back to back, the adapter's gap (1 us) binds, not the PPE's 0.5 us overhead.
        assert!((cp.node_gap_ns - 1000.0).abs() < 1.0, "{cp:?}");
        let slower = load(preset_text("qs20").unwrap(), &["network.latency_ns=3500".into()]).unwrap();
        assert!((measure(&slower, 0).unwrap().node_ns - 4500.0).abs() < 1.0);
        let e = predict(&dummy(), &cp, Op::Allreduce, 2, 16, 64).unwrap_err();
        assert_eq!(e.to_string(), "allreduce: seed 003 §6.1 models a cluster's barrier and broadcast only");
        let e = predict(&dummy(), &cp, Op::Barrier, 5, 16, 0).unwrap_err();
        assert_eq!(e.to_string(), "blades 5 is not allowed: 1 to 4");
    }

    #[test]
    fn the_binomial_tree_sends_a_gap_apart() {
        assert_eq!(binomial_arrivals(4, 10.0, 1.0), [0.0, 11.0, 10.0, 20.0]);
        assert_eq!(binomial_arrivals(3, 10.0, 1.0), [0.0, 11.0, 10.0]);
        assert_eq!(binomial_arrivals(1, 10.0, 1.0), [0.0]);
    }

    fn dummy() -> ModelParams {
        let f = load(preset_text("qs20").unwrap(), &[]).unwrap();
        measure_blade(&f, &MeasureRequest { sizes: vec![16, 32], iterations: 1 }).unwrap()
    }
}
