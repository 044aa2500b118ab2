//! Seed 000 §4's reduce, all-reduce and all-gather claims.

use std::collections::BTreeMap;

use super::{checked, is_best, pairs, sweep_once, winners, winners_labelled, Runs, Table, S4};
use crate::error::Result;
use crate::evidence::claim::claim;
use crate::evidence::rules::{self, about, beats_everywhere, constant, up_to};
use crate::evidence::Claim;
use crate::machine::config::MachineFile;

/// The 8-SPE all-reduce algorithms with CML's; the seed's own six without it ([`AR`]).
const AR8: [&str; 7] = [
    "allreduce.rdb",
    "allreduce.rdb_mailbox",
    "allreduce.rdb_barrier",
    "allreduce.reduce_bcast",
    "allreduce.rs_ag",
    "allreduce.rs_gather_bcast",
    "allreduce.cml",
];
const AR: &[&str] = AR8.split_at(6).0;
const AR16: [&str; 12] = [
    "allreduce.rdb",
    "allreduce.rdb_barrier",
    "allreduce.reduce_bcast",
    "allreduce.rs_ag",
    "allreduce.rs_gather_bcast",
    "allreduce.hybrid_a_2_8",
    "allreduce.hybrid_a_3_4",
    "allreduce.hybrid_a_4_2",
    "allreduce.hybrid_b_2_8",
    "allreduce.hybrid_b_3_4",
    "allreduce.hybrid_b_4_2",
    "allreduce.cml",
];
const AG: [&str; 2] = ["allgather.rdb", "allgather.gather_bcast"];
const RD: [&str; 2] = ["reduce.binomial", "reduce.rabenseifner"];
const AG16: [&str; 6] =
    ["allgather.rdb", "allgather.bruck", "allgather.gather_bcast", "allgather.hybrid_2_8", "allgather.hybrid_3_4", "allgather.hybrid_4_2"];

/// Seed 000's all-gather sizes are the gathered total, p blocks: its 32 KB point on 16 SPEs
/// (Fig. 10(b)) cannot be a block, as 16 blocks of 32 KB are twice the local store. The sweeps
/// run blocks (the library's size); the claims read totals from 128 B to 32 KB.
fn all_gather_blocks(p: u32, lo: u32) -> Vec<u32> {
    powers(lo, 15).into_iter().map(|total| total / p).collect()
}

/// [`winners`] labelled by the gathered total of `p` blocks.
fn winners_by_total(t: &Table, names: &[&str], blocks: &[u32], p: u32) -> String {
    winners_labelled(t, names, blocks, |b| b * p)
}

/// Sizes 2^lo to 2^hi bytes.
fn powers(lo: u32, hi: u32) -> Vec<u32> {
    (lo..=hi).map(|k| 1 << k).collect()
}

/// The parts of the sweeps, each run apart by `reproduce`, in the order [`claims_of`] reads
/// them: the 8-SPE sweeps, the 16-SPE all-reduce sweep, the other 16-SPE sweeps.
pub const PARTS: [&str; 3] = ["8 SPEs", "16 SPEs all-reduce", "16 SPEs"];

/// The sweeps of one of [`PARTS`].
pub struct Part(Vec<Table>);

/// Runs the sweeps of `part` (one of [`PARTS`]); a run two sweeps share is simulated once.
pub fn part(file: &MachineFile, quick: bool, part: &str) -> Result<Part> {
    let it = if quick { 5 } else { 20 };
    let mut runs = Runs::default();
    let mut sweep = |p: usize, names: &[&str], sizes: &[u32]| sweep_once(file, p, names, sizes, it, &mut runs);
    let sizes = powers(7, 15);
    Ok(Part(match part {
        "8 SPEs" => vec![
            sweep(8, AR, &powers(4, 11))?,
            sweep(8, AR, &powers(11, 13))?,
            sweep(8, &["reduce.binomial", "reduce.cml"], &[16384, 32768])?,
            sweep(8, &["reduce.binomial", "reduce.binomial_mailbox"], &sizes)?,
            sweep(8, &AR8, &sizes)?,
            sweep(8, &AG, &all_gather_blocks(8, 7))?,
            sweep(8, &RD, &sizes)?,
        ],
        "16 SPEs all-reduce" => vec![sweep(16, &AR16, &sizes)?],
        _ => vec![
            sweep(16, &RD, &sizes)?,
            sweep(16, &AG16, &all_gather_blocks(16, 9))?,
            sweep(16, &["reduce.binomial", "reduce.cml"], &[16384, 32768])?,
        ],
    }))
}

/// The claims from the sweeps of [`PARTS`], in their order.
pub fn claims_of(parts: Vec<Part>) -> Vec<Claim> {
    let tables: Vec<Table> = parts.into_iter().flat_map(|p| p.0).collect();
    let [a8, a8b, r8, mbx8, c8, g8, rd8, c16, rd16, g16, r16]: [Table; 11] = tables.try_into().ok().expect("the sweeps of every part");
    let mut out = Vec::new();
    let sizes = powers(7, 15);
    let small = powers(4, 11);
    let rdb_small = small.iter().filter(|&&s| s < 512).all(|&s| is_best(&a8, AR, s, "allreduce.rdb"));
    out.push(checked(
        claim("all-reduce, 8 SPEs: rdb is best below 512 B", S4, "rdb < 512 B", winners(&a8, AR, &small), rdb_small, ""),
        &[&a8],
    ));
    let gap = |t: &BTreeMap<(String, u32), f64>, a: &str, b: &str, s: u32| Some(t.get(&(a.to_string(), s))? - t.get(&(b.to_string(), s))?);
    let upto256: Vec<f64> =
        small.iter().filter(|&&s| s <= 256).filter_map(|&s| gap(&a8, "allreduce.rdb_mailbox", "allreduce.rdb", s)).collect();
    let (glo, ghi) = (upto256.iter().copied().fold(f64::MAX, f64::min), upto256.iter().copied().fold(0.0, f64::max));
    out.push(checked(
        claim(
            "all-reduce, 8 SPEs: mailbox rdb costs a constant amount more than local-store rdb up to 256 B",
            S4,
            "constant gap <= 256 B",
            format!("gap {glo:.0} to {ghi:.0} ns"),
            constant(&upto256),
            "",
        ),
        &[&a8],
    ));
    let g2k = gap(&a8, "allreduce.rdb_mailbox", "allreduce.rdb", 2048).unwrap_or(f64::NAN);
    out.push(checked(
        claim(
            "all-reduce, 8 SPEs: above 256 B local-store rdb degrades (EIB stress), the mailbox gap shrinks",
            S4,
            "gap at 2 KB well under the gap at 256 B",
            format!("gap {g2k:.0} ns at 2 KB, {glo:.0} to {ghi:.0} ns up to 256 B"),
            rules::well_under(g2k, glo),
            "",
        ),
        &[&a8],
    ));
    out.push(rdb_barrier_best(8, &a8, AR, &small));
    let above1k = powers(11, 13);
    out.push(checked(
        claim(
            "all-reduce, 8 SPEs: reduce-scatter plus rdb all-gather is best above 1 KB",
            S4,
            "rs_ag > 1 KB",
            winners(&a8b, AR, &above1k),
            above1k.iter().all(|&s| is_best(&a8b, AR, s, "allreduce.rs_ag")),
            "",
        ),
        &[&a8b],
    ));

    // Speedups over the CML-style baseline: the largest over sizes of CML's latency over ours.
    let cml_sizes = sizes.clone();
    let speedup = |t: &BTreeMap<(String, u32), f64>, cml: &str, ours: &[&str]| {
        cml_sizes
            .iter()
            .filter_map(|&s| {
                Some((
                    s,
                    t.get(&(cml.to_string(), s))?
                        / ours.iter().filter_map(|n| t.get(&(n.to_string(), s))).copied().fold(f64::MAX, f64::min),
                ))
            })
            .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a })
    };
    let (_, red) = speedup(&r8, "reduce.cml", &["reduce.binomial"]);
    out.push(checked(
        claim(
            "reduce, 8 SPEs: 19 times faster than CML at 16 and 32 KB",
            S4,
            "19x",
            format!("{red:.2}x (binomial against the CML-style binomial)"),
            rules::measured(red, 19.0),
            CML_NOTE,
        ),
        &[&r8],
    ));
    // "For 16KB and 32KB, the speedup relative to CML reaches a factor of 19. Similar performance
    // gaps are seen with 16 SPEs."
    let (_, red16) = speedup(&r16, "reduce.cml", &["reduce.binomial"]);
    out.push(checked(
        claim(
            "reduce, 16 SPEs: similar gaps to CML as on 8 SPEs (19 times at 16 and 32 KB)",
            S4,
            "19x",
            format!("{red16:.2}x (binomial against the CML-style binomial)"),
            about(red16, 19.0),
            CML_NOTE,
        ),
        &[&r16],
    ));
    let gaps: Vec<f64> = cml_sizes.iter().filter_map(|&s| gap(&mbx8, "reduce.binomial_mailbox", "reduce.binomial", s)).collect();
    let (rlo, rhi) = (gaps.iter().copied().fold(f64::MAX, f64::min), gaps.iter().copied().fold(0.0, f64::max));
    out.push(checked(
        claim(
            "reduce, 8 SPEs: local-store and mailbox binomial differ by a constant at every size",
            S4,
            "constant gap",
            format!("gap {rlo:.0} to {rhi:.0} ns (128 B to 32 KB)"),
            constant(&gaps),
            "",
        ),
        &[&mbx8],
    ));
    let ar8 = AR8;
    let (at8, up8) = speedup(&c8, "allreduce.cml", &ar8[..6]);
    out.push(checked(
        claim(
            "all-reduce, 8 SPEs: up to 19.21 times faster than CML",
            S4,
            "19.21x",
            format!("{up8:.2}x (at {at8} B)"),
            up_to(up8, 19.21),
            CML_NOTE,
        ),
        &[&c8],
    ));
    let ar16 = AR16;
    let (at16, up16) = speedup(&c16, "allreduce.cml", &ar16[..11]);
    out.push(checked(
        claim(
            "all-reduce, 16 SPEs: up to 9.48 times faster than CML",
            S4,
            "9.48x",
            format!("{up16:.2}x (at {at16} B)"),
            up_to(up16, 9.48),
            CML_NOTE,
        ),
        &[&c16],
    ));
    for (alg, published) in [("allreduce.hybrid_a_3_4", 7.3), ("allreduce.hybrid_b_3_4", 11.0)] {
        let (at, up) = speedup(&c16, "allreduce.cml", &[alg]);
        out.push(checked(
            claim(
                &format!("all-reduce, 16 SPEs: {} up to {published} times faster than CML", alg.trim_start_matches("allreduce.")),
                S4,
                &format!("{published}x"),
                format!("{up:.2}x (at {at} B)"),
                up_to(up, published),
                CML_NOTE,
            ),
            &[&c16],
        ));
    }
    let a42 = beats_everywhere(&pairs(&c16, "allreduce.hybrid_a_4_2", "allreduce.reduce_bcast", &cml_sizes));
    out.push(checked(
        claim(
            "all-reduce, 16 SPEs: HybridA-4-2 always beats reduce plus broadcast (7 rounds, not 8)",
            S4,
            "faster at every size",
            winners(&c16, &["allreduce.hybrid_a_4_2", "allreduce.reduce_bcast"], &cml_sizes),
            a42,
            "",
        ),
        &[&c16],
    ));
    let ours16 = &ar16[..11];
    let small16 = cml_sizes.iter().filter(|&&s| s < 512).all(|&s| is_best(&c16, ours16, s, "allreduce.rdb"));
    out.push(checked(
        claim("all-reduce, 16 SPEs: rdb is best below 512 B", S4, "rdb < 512 B", winners(&c16, ours16, &cml_sizes[..3]), small16, ""),
        &[&c16],
    ));
    // "At a 256 byte data size, BIF contention starts to become an issue, and hybridA-2-8 is best".
    out.push(checked(
        claim(
            "all-reduce, 16 SPEs: hybridA-2-8 is best at 256 B",
            S4,
            "hybrid_a_2_8 best at 256 B",
            winners(&c16, ours16, &[256]),
            is_best(&c16, ours16, 256, "allreduce.hybrid_a_2_8"),
            "",
        ),
        &[&c16],
    ));
    // "the barrier-enhanced rdb algorithm starts to perform the best for a few data points", in a
    // paragraph on "both 8 SPE and 16 SPE systems" (the 8-SPE half is the claim above).
    out.push(rdb_barrier_best(16, &c16, ours16, &cml_sizes));
    // "The 16 SPE case behaves similarly, except that reduce-scatter may be followed by either
    // rdb-allgather or gather-broadcast with similar performance for data sizes of 32 Kbytes and
    // above" (32 KB is the grid's largest).
    let rs = pairs(&c16, "allreduce.rs_ag", "allreduce.rs_gather_bcast", &[32768]).first().copied();
    out.push(checked(
        claim(
            "all-reduce, 16 SPEs: reduce-scatter then rdb all-gather or gather plus broadcast perform alike at 32 KB",
            S4,
            "the same at 32 KB",
            rs.map_or("not run".into(), |(a, g)| {
                format!("rs_ag {:.1} us, rs_gather_bcast {:.1} us ({:+.0}%)", a / 1e3, g / 1e3, 100.0 * (g / a - 1.0))
            }),
            rs.is_some_and(|(a, g)| rules::same(a, g)),
            "",
        ),
        &[&c16],
    ));
    let hb = cml_sizes.iter().filter(|&&s| s > 4096).all(|&s| is_best(&c16, ours16, s, "allreduce.hybrid_b_3_4"));
    out.push(checked(
        claim(
            "all-reduce, 16 SPEs: HybridB-2-8 best above 2 KB, HybridB-3-4 above 4 KB",
            S4,
            "hybrid_b_2_8 at 4 KB, hybrid_b_3_4 above",
            winners(&c16, ours16, &cml_sizes[5..]),
            hb && is_best(&c16, ours16, 4096, "allreduce.hybrid_b_2_8"),
            "",
        ),
        &[&c16],
    ));
    let ag = AG;
    let blocks8 = all_gather_blocks(8, 7);
    let rdb_all = beats_everywhere(&pairs(&g8, "allgather.rdb", "allgather.gather_bcast", &blocks8));
    out.push(checked(
        claim(
            "all-gather, 8 SPEs: rdb beats gather plus broadcast at every size",
            S4,
            "rdb faster everywhere",
            winners_by_total(&g8, &ag, &blocks8, 8),
            rdb_all,
            AG_SIZES,
        ),
        &[&g8],
    ));
    let rd = RD;
    // "outperforms binomial tree reduce for larger data sizes (greater than 1KB for 8 SPEs and
    // 4KB for 16SPEs)": a crossover, checked on both sides as the others are: binomial best up
    // to the size, Rabenseifner faster above it.
    for (p, above, t) in [(8usize, 1024u32, &rd8), (16, 4096, &rd16)] {
        let larger: Vec<u32> = sizes.iter().copied().filter(|&s| s > above).collect();
        let binomial_below = sizes.iter().filter(|&&s| s <= above).all(|&s| is_best(t, &rd, s, "reduce.binomial"));
        let ok = binomial_below && beats_everywhere(&pairs(t, "reduce.rabenseifner", "reduce.binomial", &larger));
        out.push(checked(
            claim(
                &format!("reduce, {p} SPEs: Rabenseifner beats binomial above {above} B, binomial best up to it"),
                S4,
                &format!("binomial <= {above} B, rabenseifner > {above} B"),
                winners(t, &rd, &sizes),
                ok,
                "",
            ),
            &[t],
        ));
    }
    // All-gather on 16 SPEs: blocks of 32 B to 2 KB, gathered totals of 512 B to 32 KB.
    let blocks16 = all_gather_blocks(16, 9);
    let ag16 = AG16;
    let hybrid_best = blocks16.iter().filter(|&&b| 16 * b > 4096).all(|&b| is_best(&g16, &ag16, b, "allgather.hybrid_3_4"));
    let ag_gain = pairs(&g16, "allgather.hybrid_3_4", "allgather.rdb", &blocks16).iter().map(|(h, r)| 1.0 - h / r).fold(f64::MIN, f64::max);
    out.push(checked(
        claim(
            "all-gather, 16 SPEs: hybrid-3-4 best above 4 KB, up to 35% below rdb",
            S4,
            "hybrid-3-4 best, up to 35% less than rdb",
            format!("{}; up to {:.0}% less than rdb", winners_by_total(&g16, &ag16, &blocks16, 16), 100.0 * ag_gain),
            hybrid_best && up_to(ag_gain, 0.35),
            AG_SIZES,
        ),
        &[&g16],
    ));
    let small_rdb = blocks16.iter().filter(|&&b| 16 * b <= 2048).all(|&b| is_best(&g16, &ag16, b, "allgather.rdb"));
    let h28 = beats_everywhere(&pairs(&g16, "allgather.hybrid_2_8", "allgather.rdb", &[4096 / 16]));
    out.push(checked(
        claim(
            "all-gather, 16 SPEs: rdb best up to 2 KB; at 4 KB hybrid-2-8 beats rdb",
            S4,
            "rdb <= 2 KB, hybrid-2-8 < rdb at 4 KB",
            winners_by_total(&g16, &ag16, &blocks16, 16),
            small_rdb && h28,
            AG_SIZES,
        ),
        &[&g16],
    ));
    // "For 16 SPEs, these two solutions have similar performance for large data sizes (see 32K
    // data point in the Figure 10(b))".
    let both = pairs(&g16, "allgather.rdb", "allgather.gather_bcast", &[32768 / 16]).first().copied();
    let shown = both.map_or("not run".into(), |(r, g)| {
        format!("rdb {:.1} us, gather plus broadcast {:.1} us ({:+.0}%)", r / 1e3, g / 1e3, 100.0 * (g / r - 1.0))
    });
    out.push(checked(
        claim(
            "all-gather, 16 SPEs: rdb and gather plus broadcast perform alike at 32 KB",
            S4,
            "the same at 32 KB",
            shown,
            both.is_some_and(|(r, g)| rules::same(r, g)),
            AG_SIZES,
        ),
        &[&g16],
    ));
    let big: Vec<u32> = (11..=14).map(|k| 1 << k).collect();
    let hb_gain = pairs(&c16, "allreduce.hybrid_b_3_4", "allreduce.rs_ag", &big).iter().map(|(h, r)| 1.0 - h / r).fold(f64::MIN, f64::max);
    out.push(checked(
        claim(
            "all-reduce, 16 SPEs: HybridB-3-4 up to 15% better than reduce-scatter plus all-gather",
            S4,
            "up to 15% less",
            format!("up to {:.0}% less (2 to 16 KB)", 100.0 * hb_gain),
            up_to(hb_gain, 0.15),
            "",
        ),
        &[&c16],
    ));
    out
}

/// "The barrier-enhanced rdb algorithm starts to perform the best for a few data points" on
/// `p` SPEs: best among `names` at some of `sizes` from 512 B.
fn rdb_barrier_best(p: usize, t: &Table, names: &[&str], sizes: &[u32]) -> Claim {
    let wins: Vec<u32> = sizes.iter().copied().filter(|&s| is_best(t, names, s, "allreduce.rdb_barrier")).collect();
    checked(
        claim(
            &format!("all-reduce, {p} SPEs: rdb with a barrier every two rounds is best at a few sizes from 512 B"),
            S4,
            "rdb-barrier best at some sizes >= 512 B",
            if wins.is_empty() { "never best".into() } else { format!("best at {wins:?}") },
            wins.iter().any(|&s| s >= 512),
            "",
        ),
        &[t],
    )
}

/// What the all-gather claims' sizes are (see [`all_gather_blocks`]).
const AG_SIZES: &str = "sizes are the gathered total (p blocks), 128 B to 32 KB: the seed's 32 KB point on 16 SPEs cannot be a block (16 x 32 KB is twice the local store)";

/// Why the CML speedups cannot be reproduced.
const CML_NOTE: &str = "the CML-style rows are receiver-initiated messages (request, data, completion) with a staging copy per send and per received broadcast message and CML's per-message code fitted (at 0) on the 8-SPE barrier; the seed's factor needs, per message end, 39-90 us growing with the size for the reduce (a copy at about 0.4 GB/s) or 1.1-3.3 us for the all-reduces at 128 B, against a barrier that wants none: no per-message cost of this protocol gives both (docs/guide/collectives.md)";
