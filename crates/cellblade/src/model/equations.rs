//! The model equations of seed 003 tables 1-5, as written, each mapped to the registry name of
//! the collective library that implements its algorithm. One chip when p <= 8 (the seed puts
//! the first eight SPEs on the first Cell, §5.1), two chips above.
//!
//! Reading of the symbols (§3.3): L(1) is the 16-byte latency; in barriers (table 1) it is the
//! figure 3(a) ACK latency, elsewhere the figure 3(b) latency of a 16-byte message (§5.2: "we
//! use the second latency micro-benchmark ... for the other algorithms"). g(1) is the gap at
//! 16 bytes. The one-to-all X term, 0 <= X <= q g_Ack(1), is taken at its midpoint. C(m > 256)
//! is C(m, n) with n the BIF-crossing messages the seed's text gives for that step (16 for the
//! last rdb round and the first reduce-scatter round, 14 for the segmented exchange, y for a
//! hybrid), and 0 at 256 bytes or less. In the reduce-scatter equations m is the segment,
//! size / p ("the total size of the reduced data is p m").

use super::params::ModelParams;
use crate::error::{config_err, Result};

/// A value of the seed's equations, and whether a size was extrapolated.
#[derive(Debug, Clone, Copy)]
pub struct Equation {
    pub latency_ns: f64,
    pub extrapolated: bool,
    /// The table and row the equation comes from.
    pub source: &'static str,
}

/// Registry names the seed's tables model.
pub const COVERED: &[&str] = &[
    "barrier.rdb",
    "barrier.bruck",
    "barrier.gather_bcast",
    "barrier.ota",
    "broadcast.ota",
    "broadcast.binomial_simple",
    "broadcast.binomial_opt",
    "broadcast.segmented",
    "broadcast.hybrid_segmented",
    "allgather.rdb",
    "allgather.hybrid_2_8",
    "allgather.hybrid_3_4",
    "allgather.hybrid_4_2",
    "reduce.binomial",
    "reduce.rabenseifner",
    "allreduce.rdb",
    "allreduce.rs_ag",
    "allreduce.rs_gather_bcast",
    "allreduce.hybrid_a_2_8",
    "allreduce.hybrid_a_3_4",
    "allreduce.hybrid_a_4_2",
    "allreduce.hybrid_b_2_8",
    "allreduce.hybrid_b_3_4",
    "allreduce.hybrid_b_4_2",
];

struct E<'a> {
    p: &'a ModelParams,
    ext: bool,
}

impl E<'_> {
    fn l(&mut self, chip: u8, m: u32) -> f64 {
        let v = if chip == 2 { &self.p.l2_ns } else { &self.p.l1_ns };
        let l = self.p.at(v, m);
        self.ext |= l.extrapolated;
        l.ns
    }
    /// L(1) of the data micro-benchmark: 16 bytes.
    fn l1(&mut self, chip: u8) -> f64 {
        self.l(chip, 16)
    }
    fn ack(&self, chip: u8) -> f64 {
        if chip == 2 {
            self.p.l2_ack_ns
        } else {
            self.p.l1_ack_ns
        }
    }
    fn g(&mut self, which: u8, m: u32) -> f64 {
        let v = match which {
            0 => &self.p.g_ns,
            1 => &self.p.g1_ns,
            _ => &self.p.g2_ns,
        };
        let l = self.p.at(v, m);
        self.ext |= l.extrapolated;
        l.ns
    }
    /// C(m, n) when m > 256, else 0.
    fn c(&mut self, m: u32, n: u32) -> f64 {
        if m <= 256 {
            return 0.0;
        }
        let l = self.p.congestion_ns(m, n);
        self.ext |= l.extrapolated;
        l.ns
    }
}

fn log2(p: usize) -> u32 {
    p.trailing_zeros()
}
fn floor_log2(p: usize) -> u32 {
    usize::BITS - 1 - p.leading_zeros()
}
fn ceil_log2(p: usize) -> u32 {
    p.next_power_of_two().trailing_zeros()
}

/// The seed's prediction for `algorithm` on `p` SPEs with `size` bytes (an all-gather's block
/// per SPE; the vector otherwise). `gamma` is ns per byte of the reduction's data type.
pub fn predict(params: &ModelParams, algorithm: &str, p: usize, size: u32, gamma: f64) -> Result<Equation> {
    if !COVERED.contains(&algorithm) {
        return Err(config_err(format!("{algorithm}: seed 003 gives no equation for it (tables 1-5 model {})", COVERED.join(", "))));
    }
    if p < 2 {
        return Err(config_err(format!("{algorithm}: the seed's equations need at least 2 SPEs, got {p}")));
    }
    let c = Call { algorithm, p, m: size, gamma, lg: log2(p) as f64, pow2: p.is_power_of_two(), two: p > 8 };
    let mut e = E { p: params, ext: false };
    let (t, source) = match algorithm.split('.').next() {
        Some("barrier") => barrier(&mut e, &c)?,
        Some("broadcast") => broadcast(&mut e, &c)?,
        Some("allgather") => allgather(&mut e, &c)?,
        Some("reduce") => reduce(&mut e, &c)?,
        _ => allreduce(&mut e, &c)?,
    };
    Ok(Equation { latency_ns: t, extrapolated: e.ext, source })
}

/// One call to predict, and the checks the tables' rows state.
struct Call<'a> {
    algorithm: &'a str,
    p: usize,
    m: u32,
    gamma: f64,
    lg: f64,
    pow2: bool,
    two: bool,
}

impl Call<'_> {
    fn need_pow2(&self, row: &str) -> Result<()> {
        if self.pow2 {
            return Ok(());
        }
        Err(config_err(format!("{}: the seed's equation ({row}) is for a power-of-two number of SPEs, got {}", self.algorithm, self.p)))
    }
    fn two_only(&self, row: &str) -> Result<()> {
        if self.two {
            return Ok(());
        }
        Err(config_err(format!("{}: the seed models it on two chips only ({row}): more than 8 SPEs, got {}", self.algorithm, self.p)))
    }
    fn none(&self) -> crate::error::Error {
        config_err(format!("{}: no equation of seed 003 for {} SPEs", self.algorithm, self.p))
    }
}

/// Seed 003's barrier rows.
fn barrier(e: &mut E, c: &Call) -> Result<(f64, &'static str)> {
    let (algorithm, p, lg, pow2, two) = (c.algorithm, c.p, c.lg, c.pow2, c.two);
    let params = e.p;
    Ok(match (algorithm, two) {
        ("barrier.rdb", false) if pow2 => (lg * e.ack(1), "table 1, recursive doubling, one Cell"),
        ("barrier.rdb", false) => ((floor_log2(p) + 2) as f64 * e.ack(1), "table 1, recursive doubling, one Cell"),
        ("barrier.rdb", true) if pow2 => ((lg - 1.0) * e.ack(1) + e.ack(2), "table 1, recursive doubling, two Cells"),
        ("barrier.rdb", true) => ((floor_log2(p) + 1) as f64 * e.ack(1) + e.ack(2), "table 1, recursive doubling, two Cells"),
        ("barrier.bruck", false) => (ceil_log2(p) as f64 * e.ack(1), "table 1, Bruck, one Cell"),
        ("barrier.bruck", true) => (ceil_log2(p) as f64 * e.ack(1).max(e.ack(2)), "table 1, Bruck, two Cells"),
        ("barrier.gather_bcast", false) => (2.0 * ceil_log2(p) as f64 * e.ack(1), "table 1, gather-broadcast, one Cell"),
        ("barrier.gather_bcast", true) => {
            let k = ceil_log2(p) as f64 - 1.0;
            ((2.0 * k * e.ack(1)).max(2.0 * (e.ack(2) + k * e.ack(1))), "table 1, gather-broadcast, two Cells")
        }
        ("barrier.ota", false) => {
            let q = (p - 2) as f64;
            (q * e.g(0, 16) + 2.0 * e.ack(1) + q * params.g_ack_ns / 2.0, "table 1, one-to-all, one Cell")
        }
        ("barrier.ota", true) => {
            let (q1, q2) = (6.0, (p - 9) as f64);
            let x = (q1 * params.g1_ack_ns + q2 * params.g2_ack_ns) / 2.0;
            (2.0 * (e.ack(1) + e.ack(2)) + q1 * e.g(1, 16) + q2 * e.g(2, 16) + x, "table 1, one-to-all, two Cells")
        }
        _ => return Err(c.none()),
    })
}

/// Seed 003's broadcast rows.
fn broadcast(e: &mut E, c: &Call) -> Result<(f64, &'static str)> {
    let (algorithm, p, m, lg, two) = (c.algorithm, c.p, c.m, c.lg, c.two);
    let params = e.p;
    Ok(match (algorithm, two) {
        ("broadcast.ota", false) => {
            let q = (p - 2) as f64;
            (q * e.g(0, m) + e.l(1, m) + e.l1(1) + q * params.g_ack_ns / 2.0, "table 2, one-to-all, one Cell")
        }
        ("broadcast.ota", true) => {
            let (q1, q2) = (6.0, (p - 9) as f64);
            let x = (q1 * params.g1_ack_ns + q2 * params.g2_ack_ns) / 2.0;
            (e.l(1, m) + q1 * e.g(1, m) + e.l(2, m) + q2 * e.g(2, m) + e.l1(1) + e.l1(2) + x, "table 2, one-to-all, two Cells")
        }
        ("broadcast.binomial_simple", false) => {
            let q = 3.0;
            (
                floor_log2(p) as f64 * (e.l(1, m) + e.l1(1)) + q * e.g(0, m) + q * params.g_ack_ns / 2.0,
                "table 2, binomial-tree-simple, one Cell",
            )
        }
        ("broadcast.binomial_simple", true) => {
            let q1 = 7.0;
            let k = floor_log2(p) as f64 - 1.0;
            (
                k * (e.l(1, m) + e.l1(1)) + e.l(2, m) + e.l1(2) + q1 * e.g(1, m) + q1 * params.g1_ack_ns / 2.0,
                "table 2, binomial-tree-simple, two Cells",
            )
        }
        ("broadcast.binomial_opt", false) => {
            c.need_pow2("table 2, binomial-tree-opt, one Cell")?;
            (lg * (e.l(1, m) + e.l1(1)), "table 2, binomial-tree-opt, one Cell")
        }
        ("broadcast.binomial_opt", true) => {
            let k = ceil_log2(p) as f64 - 1.0;
            (k * (e.l(1, m) + e.l1(1)) + e.l(2, m) + e.l1(2), "table 2, binomial-tree-opt, two Cells")
        }
        ("broadcast.segmented", false) => {
            c.need_pow2("table 2, segmented-binomial-opt, one Cell")?;
            ((lg + 1.0) * (e.l(1, m / 2) + e.l1(1)), "table 2, segmented-binomial-opt, one Cell")
        }
        ("broadcast.segmented", true) => {
            c.need_pow2("table 2, segmented-binomial-opt, two Cells")?;
            let c = e.c(m / 2, 14);
            ((lg - 1.0) * (e.l(1, m / 2) + e.l1(1)) + 2.0 * (e.l(2, m / 2) + e.l1(2)) + c, "table 2, segmented-binomial-opt, two Cells")
        }
        ("broadcast.hybrid_segmented", _) => {
            c.two_only("table 2, hybrid-seg-binomial-opt")?;
            c.need_pow2("table 2, hybrid-seg-binomial-opt")?;
            (lg * (e.l(1, m / 2) + e.l1(1)) + e.l(2, m) + e.l1(2), "table 2, hybrid-seg-binomial-opt, two Cells")
        }
        _ => return Err(c.none()),
    })
}

/// Seed 003's allgather rows.
fn allgather(e: &mut E, c: &Call) -> Result<(f64, &'static str)> {
    let (algorithm, p, m, two) = (c.algorithm, c.p, c.m, c.two);
    Ok(match (algorithm, two) {
        ("allgather.rdb", false) => {
            c.need_pow2("table 3, recursive doubling, one Cell")?;
            ((0..log2(p)).map(|k| e.l(1, m << k) + e.l1(1)).sum(), "table 3, recursive doubling, one Cell")
        }
        ("allgather.rdb", true) => {
            c.need_pow2("table 3, recursive doubling, two Cells")?;
            let top = m << (log2(p) - 1);
            let head: f64 = (0..log2(p) - 1).map(|k| e.l(1, m << k) + e.l1(1)).sum();
            (head + e.l(2, top) + e.l1(2) + e.c(top, p as u32), "table 3, recursive doubling, two Cells")
        }
        (a, _) if a.starts_with("allgather.hybrid_") => {
            c.two_only("table 3, hybrid-x-y")?;
            c.need_pow2("table 3, hybrid-x-y")?;
            let (x, y) = hybrid_xy(a);
            (hybrid_allgather(e, p, m, x, y), "table 3, hybrid-x-y, two Cells")
        }
        _ => return Err(c.none()),
    })
}

/// Seed 003's reduce rows.
fn reduce(e: &mut E, c: &Call) -> Result<(f64, &'static str)> {
    let (algorithm, p, m, gamma, two) = (c.algorithm, c.p, c.m, c.gamma, c.two);
    Ok(match (algorithm, two) {
        ("reduce.binomial", false) => (floor_log2(p) as f64 * (e.l(1, m) + e.l1(1) + gamma * m as f64), "table 4, binomial, one Cell"),
        ("reduce.binomial", true) => {
            let k = ceil_log2(p) as f64 - 1.0;
            (k * (e.l(1, m) + e.l1(1) + gamma * m as f64) + e.l(2, m) + e.l1(2) + gamma * m as f64, "table 4, binomial, two Cells")
        }
        ("reduce.rabenseifner", false) => {
            c.need_pow2("table 4, ReduceScatter+gather, one Cell")?;
            (reduce_scatter_one(e, p, m / p as u32, gamma), "table 4, ReduceScatter+gather, one Cell")
        }
        ("reduce.rabenseifner", true) => {
            c.need_pow2("table 4, ReduceScatter+gather, two Cells")?;
            (reduce_scatter_two(e, p, m / p as u32, gamma, 1.0), "table 4, ReduceScatter+gather, two Cells")
        }
        _ => return Err(c.none()),
    })
}

/// Seed 003's allreduce rows.
fn allreduce(e: &mut E, c: &Call) -> Result<(f64, &'static str)> {
    let (algorithm, p, m, gamma, lg, two) = (c.algorithm, c.p, c.m, c.gamma, c.lg, c.two);
    Ok(match (algorithm, two) {
        ("allreduce.rs_ag", false) => {
            c.need_pow2("table 5, ReduceScatter+rd-allgather, one Cell")?;
            (reduce_scatter_one(e, p, m / p as u32, gamma), "table 5, ReduceScatter+rd-allgather, one Cell")
        }
        ("allreduce.rs_ag", true) => {
            c.need_pow2("table 5, ReduceScatter+rd-allgather, two Cells")?;
            (reduce_scatter_two(e, p, m / p as u32, gamma, 2.0), "table 5, ReduceScatter+rd-allgather, two Cells")
        }
        ("allreduce.rs_gather_bcast", false) => {
            c.need_pow2("table 5, ReduceScatter+gather+Bcast, one Cell")?;
            let rs = reduce_scatter_one(e, p, m / p as u32, gamma);
            (rs + lg * (e.l(1, m) + e.l1(1)), "table 5, ReduceScatter+gather+Bcast, one Cell")
        }
        ("allreduce.rs_gather_bcast", true) => {
            c.need_pow2("table 5, ReduceScatter+gather+Bcast, two Cells")?;
            let rs = reduce_scatter_two(e, p, m / p as u32, gamma, 1.0);
            (rs + (lg - 1.0) * (e.l(1, m) + e.l1(1)) + e.l(2, m) + e.l1(2), "table 5, ReduceScatter+gather+Bcast, two Cells")
        }
        ("allreduce.rdb", false) => {
            c.need_pow2("table 5, recursive doubling, one Cell")?;
            (lg * (e.l(1, m) + 2.0 * e.l1(1) + gamma * m as f64), "table 5, recursive doubling, one Cell")
        }
        ("allreduce.rdb", true) => {
            c.need_pow2("table 5, recursive doubling, two Cells")?;
            let c = e.c(m, p as u32);
            (
                (lg - 1.0) * (e.l(1, m) + 2.0 * e.l1(1) + gamma * m as f64) + e.l(2, m) + 2.0 * e.l1(2) + gamma * m as f64 + c,
                "table 5, recursive doubling, two Cells",
            )
        }
        (a, _) if a.starts_with("allreduce.hybrid_a_") => {
            c.two_only("table 5, HybridA-x-y")?;
            c.need_pow2("table 5, HybridA-x-y")?;
            let (x, y) = hybrid_xy(a);
            let xm1 = (x - 1) as f64;
            let mut t = 2.0 * xm1 * (e.l(1, m) + e.l1(1)) + xm1 * gamma * m as f64;
            for k in x..=log2(p) {
                let z = if k > 3 { 2 } else { 1 };
                let c = if y > 2 && z == 2 { e.c(m, y) } else { 0.0 };
                t += e.l(z, m) + e.l1(z) + gamma * m as f64 + c;
            }
            (t, "table 5, HybridA-x-y, two Cells")
        }
        (a, _) if a.starts_with("allreduce.hybrid_b_") => {
            c.two_only("table 5, HybridB-x-y")?;
            c.need_pow2("table 5, HybridB-x-y")?;
            let (x, y) = hybrid_xy(a);
            let seg = m / p as u32;
            let top = seg << (log2(p) - 1);
            let mut t: f64 = (0..log2(p) - 1).map(|k| e.l(1, seg << k) + gamma * (seg << k) as f64 + e.l1(1)).sum();
            t += e.l(2, top) + e.l1(2) + gamma * top as f64 + e.c(top, p as u32);
            (t + hybrid_allgather(e, p, seg, x, y), "table 5, HybridB-x-y, two Cells")
        }
        _ => return Err(c.none()),
    })
}

/// x and y of a `..._x_y` registry name.
fn hybrid_xy(name: &str) -> (u32, u32) {
    let mut parts = name.rsplit('_');
    let y = parts.next().and_then(|v| v.parse().ok()).unwrap_or(2);
    let x = parts.next().and_then(|v| v.parse().ok()).unwrap_or(2);
    (x, y)
}

/// Table 3's hybrid-x-y all-gather of m-byte blocks.
fn hybrid_allgather(e: &mut E, p: usize, m: u32, x: u32, y: u32) -> f64 {
    let mut t: f64 = (1..x).map(|k| e.l(1, m << (k - 1)) + e.l1(1)).sum();
    for k in x..=log2(p) {
        let z = if k > 3 { 2 } else { 1 };
        let size = m << (k - 1);
        let c = if y > 2 && z == 2 { e.c(size, y) } else { 0.0 };
        t += e.l(z, size) + e.l1(z) + c;
    }
    t + (x - 1) as f64 * (e.l(1, p as u32 * m) + e.l1(1))
}

/// Tables 4-5, reduce-scatter (+ gather or rd all-gather), one Cell.
fn reduce_scatter_one(e: &mut E, p: usize, seg: u32, gamma: f64) -> f64 {
    (0..log2(p)).map(|k| 2.0 * e.l(1, seg << k) + gamma * (seg << k) as f64 + 2.0 * e.l1(1)).sum()
}

/// The same on two Cells; `c_terms` is 1 (gather) or 2 (rd all-gather also crosses the BIF).
fn reduce_scatter_two(e: &mut E, p: usize, seg: u32, gamma: f64, c_terms: f64) -> f64 {
    let top = seg << (log2(p) - 1);
    let head: f64 = (0..log2(p) - 1).map(|k| 2.0 * e.l(1, seg << k) + gamma * (seg << k) as f64 + 2.0 * e.l1(1)).sum();
    head + 2.0 * (e.l(2, top) + e.l1(2)) + gamma * top as f64 + c_terms * e.c(top, p as u32)
}
