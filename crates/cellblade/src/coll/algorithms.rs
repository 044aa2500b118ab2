//! The algorithms of seed 000 §3-4 as schedule generators, each registered with a stable dotted
//! name and its facts (operation, description, valid SPE counts, source). Ranks are relative
//! to the root where the operation has one: rank `v` of a tree is `(v + root) % p`.

use crate::error::{config_err, Result};

use super::schedule::{check_call, Op, Protocol, Schedule, Via, Xfer};

pub struct Algorithm {
    pub name: &'static str,
    pub op: Op,
    pub description: &'static str,
    pub source: &'static str,
    /// Needs a power-of-two number of SPEs.
    pub pow2: bool,
    /// The fewest SPEs it works on.
    pub min_spes: usize,
    build: fn(&mut Schedule),
}

fn log2_ceil(p: usize) -> usize {
    p.next_power_of_two().trailing_zeros() as usize
}

/// Map tree-relative transfers to absolute ranks.
fn rooted(s: &Schedule, mut x: Xfer) -> Xfer {
    x.dst = (x.dst + s.root) % s.p;
    x.src = (x.src + s.root) % s.p;
    x
}

// ----- barrier -----

/// Recursive doubling; non-powers of two fold the excess ranks in first and release them last.
fn barrier_rdb(s: &mut Schedule) {
    let p = s.p;
    let q = 1 << (usize::BITS - 1 - p.leading_zeros());
    s.round((q..p).map(|r| Xfer::notify(r - q, r)).collect());
    let mut d = 1;
    while d < q {
        s.round((0..q).map(|r| Xfer::notify(r, r ^ d)).collect());
        d *= 2;
    }
    s.round((q..p).map(|r| Xfer::notify(r, r - q)).collect());
}

/// Bruck / dissemination: in round k, rank r hears from r - 2^k.
fn barrier_bruck(s: &mut Schedule) {
    let p = s.p;
    for k in 0..log2_ceil(p) {
        s.round((0..p).map(|r| Xfer::notify((r + (1 << k)) % p, r)).collect());
    }
}

/// One-to-all: every rank tells the root, the root tells every rank, through `via`.
fn barrier_one_to_all(s: &mut Schedule, via: Via) {
    let p = s.p;
    s.round((1..p).map(|v| rooted(s, Xfer::notify(0, v).via(via))).collect());
    s.round((1..p).map(|v| rooted(s, Xfer::notify(v, 0).via(via))).collect());
}

/// One-to-all through local-store notifications.
fn barrier_ota(s: &mut Schedule) {
    barrier_one_to_all(s, Via::LocalStore);
}

/// One-to-all through signal registers in OR mode: each rank sets its bit in the root's
/// register, the root signals everyone back (seed 000 §4: about 400 ns on 8 SPEs).
fn barrier_ota_signal(s: &mut Schedule) {
    barrier_one_to_all(s, Via::Signal);
}

/// The stepwise mailbox barrier (seed 000 §3.2, Figure 3): one-to-all would put p-1 messages in
/// the root's 4-entry inbound mailbox, so arrivals climb a tree of fan-in 4 (members of each
/// block of 4 tell its leader, the leaders of each block of 16 tell theirs) and releases come
/// back down the same tree: no mailbox ever holds more than 3 messages.
fn barrier_mailbox(s: &mut Schedule) {
    let p = s.p;
    let mut levels = Vec::new();
    let mut stride = 1;
    while stride < p {
        let pairs: Vec<(usize, usize)> =
            (0..p).filter(|v| v % stride == 0 && v % (4 * stride) != 0).map(|v| (v - v % (4 * stride), v)).collect();
        levels.push(pairs);
        stride *= 4;
    }
    for level in &levels {
        s.round(level.iter().map(|&(leader, v)| rooted(s, Xfer::notify(leader, v).via(Via::Mailbox))).collect());
    }
    for level in levels.iter().rev() {
        s.round(level.iter().map(|&(leader, v)| rooted(s, Xfer::notify(v, leader).via(Via::Mailbox))).collect());
    }
}

/// The centralized atomic barrier (seed 000 §4, about 35 us on 8 SPEs): every rank atomically
/// increments the root's counter in main memory, the root polls it until all have come, then
/// increments each rank's own counter, which that rank polls.
fn barrier_atomic(s: &mut Schedule) {
    barrier_one_to_all(s, Via::Atomic);
}

/// The two-root signal barrier of seed 002 §5.2: one root per half (per chip on 16 SPEs) gathers
/// its half's signals, the roots exchange one signal each, and each releases its half. Only two
/// signals cross the BIF, against p/2 for one-to-all.
fn barrier_two_root_signal(s: &mut Schedule) {
    let p = s.p;
    let h = p / 2;
    let signal = |s: &Schedule, d: usize, src: usize| rooted(s, Xfer::notify(d, src).via(Via::Signal));
    s.round((1..h).map(|v| signal(s, 0, v)).chain((h + 1..p).map(|v| signal(s, h, v))).collect());
    s.round(vec![signal(s, 0, h), signal(s, h, 0)]);
    s.round((1..h).map(|v| signal(s, v, 0)).chain((h + 1..p).map(|v| signal(s, v, h))).collect());
}

/// The rounds of the rdb barrier, to put between the rounds of other schedules.
fn barrier_rounds(p: usize) -> Vec<Vec<Xfer>> {
    let mut b = Schedule::new("", Op::Barrier, p, 0, 0);
    barrier_rdb(&mut b);
    b.rounds
}

/// Send every transfer of `s` through mailboxes and put an rdb barrier (over local-store
/// notifications) after every `every` rounds, as seed 000 §3.2 does to keep the two halves of
/// an address together and the 4-entry mailboxes from overflowing.
fn with_barriers(s: &mut Schedule, every: usize, via: Via) {
    let rounds = std::mem::take(&mut s.rounds);
    let n = rounds.len();
    for (k, round) in rounds.into_iter().enumerate() {
        s.round(round.into_iter().map(|x| x.via(via)).collect());
        if (k + 1) % every == 0 || k + 1 == n {
            for b in barrier_rounds(s.p) {
                s.round(b);
            }
        }
    }
}

/// Binomial gather to the root, then binomial broadcast, of notifications.
fn barrier_gather_bcast(s: &mut Schedule) {
    for round in binomial_up(s.p) {
        let xs = round.into_iter().map(|(dst, src)| rooted(s, Xfer::notify(dst, src))).collect();
        s.round(xs);
    }
    for round in binomial_down(s.p) {
        let xs = round.into_iter().map(|(dst, src)| rooted(s, Xfer::notify(dst, src))).collect();
        s.round(xs);
    }
}

/// Binomial tree rounds from the root down: (dst, src) pairs, largest subtree first.
fn binomial_down(p: usize) -> Vec<Vec<(usize, usize)>> {
    let mut rounds = Vec::new();
    let mut step = p.next_power_of_two() / 2;
    while step >= 1 {
        rounds.push((0..p).step_by(2 * step).filter(|v| v + step < p).map(|v| (v + step, v)).collect());
        step /= 2;
    }
    rounds
}

/// The same tree, leaves first, towards the root.
fn binomial_up(p: usize) -> Vec<Vec<(usize, usize)>> {
    binomial_down(p).into_iter().rev().map(|r| r.into_iter().map(|(d, s)| (s, d)).collect()).collect()
}

// ----- broadcast -----

fn bcast_ota(s: &mut Schedule) {
    let size = s.size;
    s.round((1..s.p).map(|v| rooted(s, Xfer::copy(v, 0, 0, size))).collect());
}

/// The root sends to the first rank of the other half (the other chip on 16 SPEs), then both
/// broadcast one-to-all within their half.
fn bcast_two_to_all(s: &mut Schedule) {
    let (p, size) = (s.p, s.size);
    let h = p / 2;
    s.round(vec![rooted(s, Xfer::copy(h, 0, 0, size))]);
    let xs = (1..h).map(|v| Xfer::copy(v, 0, 0, size)).chain((h + 1..p).map(|v| Xfer::copy(v, h, 0, size))).map(|x| rooted(s, x)).collect();
    s.round(xs);
}

fn bcast_binomial(s: &mut Schedule) {
    let size = s.size;
    for round in binomial_down(s.p) {
        let xs = round.into_iter().map(|(d, src)| rooted(s, Xfer::copy(d, src, 0, size))).collect();
        s.round(xs);
    }
}

/// k-chains with k = 2 (seed 000 §3.4 does not give k): the root sends to the heads of two
/// chains at once, then each chain passes the data along, one rank per round.
fn bcast_kchains(s: &mut Schedule) {
    const K: usize = 2;
    let (p, size) = (s.p, s.size);
    let chains: Vec<Vec<usize>> = (0..K).map(|c| (1..p).filter(|v| (v - 1) % K == c).collect()).collect();
    let longest = chains.iter().map(Vec::len).max().unwrap_or(0);
    for step in 0..longest {
        let xs = chains
            .iter()
            .filter(|ch| step < ch.len())
            .map(|ch| Xfer::copy(ch[step], if step == 0 { 0 } else { ch[step - 1] }, 0, size))
            .map(|x| rooted(s, x))
            .collect();
        s.round(xs);
    }
}

fn bcast_binomial_simple(s: &mut Schedule) {
    bcast_binomial(s);
    s.ordered = false;
}

/// Segmented binomial: the root gives the second half of the data to the middle rank, each
/// half of the tree broadcasts its half of the data, then the halves exchange (seed 003 §5).
fn bcast_segmented(s: &mut Schedule) {
    segmented_within(s, 0, s.p, 0, s.size);
}

/// Segmented binomial over ranks [lo, lo+n) rooted at lo, moving bytes [off, off+len).
fn segmented_within(s: &mut Schedule, lo: usize, n: usize, off: u32, len: u32) {
    let half = len / 2;
    let h = n / 2;
    let mut rounds: Vec<Vec<Xfer>> = vec![vec![Xfer::copy(lo + h, lo, off + half, len - half)]];
    for (i, round) in binomial_down(h).into_iter().enumerate() {
        let mut xs: Vec<Xfer> = round.iter().map(|&(d, src)| Xfer::copy(lo + d, lo + src, off, half)).collect();
        xs.extend(round.iter().map(|&(d, src)| Xfer::copy(lo + h + d, lo + h + src, off + half, len - half)));
        if rounds.len() <= i + 1 {
            rounds.push(Vec::new());
        }
        rounds[i + 1].extend(xs);
    }
    let mut swap: Vec<Xfer> = (0..h).map(|v| Xfer::copy(lo + v, lo + h + v, off + half, len - half)).collect();
    swap.extend((0..h).map(|v| Xfer::copy(lo + h + v, lo + v, off, half)));
    rounds.push(swap);
    for r in rounds {
        let xs = r.into_iter().map(|x| rooted(s, x)).collect();
        s.round(xs);
    }
}

/// Hybrid segmented binomial (16 SPEs): one BIF message of the whole data to the other chip's
/// first rank, then a segmented binomial on each chip.
fn bcast_hybrid_segmented(s: &mut Schedule) {
    let (p, size) = (s.p, s.size);
    let h = p / 2;
    s.round(vec![rooted(s, Xfer::copy(h, 0, 0, size))]);
    let mut a = Schedule::new("", Op::Broadcast, p, 0, size);
    segmented_within(&mut a, 0, h, 0, size);
    let mut b = Schedule::new("", Op::Broadcast, p, 0, size);
    segmented_within(&mut b, h, h, 0, size);
    for (ra, rb) in a.rounds.into_iter().zip(b.rounds) {
        let xs = ra.into_iter().chain(rb).map(|x| rooted(s, x)).collect();
        s.round(xs);
    }
}

// ----- reduce -----

fn reduce_binomial(s: &mut Schedule) {
    let size = s.size;
    for round in binomial_up(s.p) {
        let xs = round.into_iter().map(|(d, src)| rooted(s, Xfer::reduce(d, src, 0, size))).collect();
        s.round(xs);
    }
}

/// Binomial reduce with mailbox notification and a barrier after every round (seed 000 §3.2,
/// Figure 4).
fn reduce_binomial_mailbox(s: &mut Schedule) {
    reduce_binomial(s);
    with_barriers(s, 1, Via::Mailbox);
}

/// Reduce-scatter by recursive halving: after it, rank r holds the reduced segment r of p.
fn reduce_scatter_halving(s: &mut Schedule) {
    let p = s.p;
    let seg = s.size / p as u32;
    let mut d = p / 2;
    while d >= 1 {
        // Rank r keeps the half of its current range that contains segment r.
        let xs = (0..p)
            .map(|r| {
                let lo = (r / (2 * d)) * 2 * d + if r % (2 * d) < d { 0 } else { d };
                Xfer::reduce(r, r ^ d, lo as u32 * seg, d as u32 * seg)
            })
            .collect();
        s.round(xs);
        d /= 2;
    }
}

/// Rabenseifner: reduce-scatter, then a binomial gather of the segments to the root (rank 0).
fn reduce_rabenseifner(s: &mut Schedule) {
    reduce_scatter_halving(s);
    gather_segments(s, s.size / s.p as u32);
}

/// Binomial gather to the root of segment-per-rank data: absolute rank r owns segment r.
fn gather_segments(s: &mut Schedule, seg: u32) {
    let (p, root) = (s.p, s.root);
    for round in binomial_up(p) {
        let mut xs = Vec::new();
        for (d, src) in round {
            // The tree-relative subtree of `src` is ranks src .. src+span; absolute, it may wrap.
            let span = (src - d).min(p - src);
            let (dst_abs, src_abs) = ((d + root) % p, (src + root) % p);
            let first = span.min(p - src_abs);
            xs.push(Xfer::copy(dst_abs, src_abs, src_abs as u32 * seg, first as u32 * seg));
            if first < span {
                xs.push(Xfer::copy(dst_abs, src_abs, 0, (span - first) as u32 * seg));
            }
        }
        s.round(xs);
    }
}

// ----- allreduce -----

fn allreduce_rdb(s: &mut Schedule) {
    let (p, size) = (s.p, s.size);
    let q = 1 << (usize::BITS - 1 - p.leading_zeros());
    s.round((q..p).map(|r| Xfer::reduce(r - q, r, 0, size)).collect());
    let mut d = 1;
    while d < q {
        s.round((0..q).map(|r| Xfer::reduce(r, r ^ d, 0, size)).collect());
        d *= 2;
    }
    s.round((q..p).map(|r| Xfer::copy(r, r - q, 0, size)).collect());
}

/// rdb with mailbox notification: "a barrier at the end of each round" (seed 000 §4).
fn allreduce_rdb_mailbox(s: &mut Schedule) {
    allreduce_rdb(s);
    with_barriers(s, 1, Via::Mailbox);
}

/// rdb over local-store notification with a barrier every two rounds, so no more than two
/// rounds of transfers load the EIB at once ("Rdb-Barrier", seed 000 §4).
fn allreduce_rdb_barrier(s: &mut Schedule) {
    allreduce_rdb(s);
    with_barriers(s, 2, Via::LocalStore);
}

fn allreduce_reduce_bcast(s: &mut Schedule) {
    reduce_binomial(s);
    bcast_binomial(s);
}

/// Reduce-scatter then recursive-doubling all-gather of the segments.
fn allreduce_rs_ag(s: &mut Schedule) {
    reduce_scatter_halving(s);
    let seg = s.size / s.p as u32;
    let p = s.p;
    let mut d = 1;
    while d < p {
        s.round(
            (0..p)
                .map(|r| {
                    let start = ((r ^ d) / d) * d;
                    Xfer::copy(r, r ^ d, start as u32 * seg, d as u32 * seg)
                })
                .collect(),
        );
        d *= 2;
    }
}

fn allreduce_rs_gather_bcast(s: &mut Schedule) {
    reduce_scatter_halving(s);
    gather_segments(s, s.size / s.p as u32);
    bcast_binomial(s);
}

// ----- allgather -----

fn allgather_rdb(s: &mut Schedule) {
    let (p, size) = (s.p, s.size);
    let mut d = 1;
    while d < p {
        s.round(
            (0..p)
                .map(|r| {
                    let start = ((r ^ d) / d) * d;
                    Xfer::copy(r, r ^ d, start as u32 * size, d as u32 * size)
                })
                .collect(),
        );
        d *= 2;
    }
}

/// Bruck: in round k rank r gets from r + 2^k the blocks it has (r+2^k .. r+2^(k+1)), wrapping.
fn allgather_bruck(s: &mut Schedule) {
    let (p, size) = (s.p, s.size);
    let mut have = 1;
    let mut k = 0;
    while have < p {
        let n = have.min(p - have);
        let mut xs = Vec::new();
        for r in 0..p {
            let src = (r + (1 << k)) % p;
            // Blocks src .. src+n (mod p): at most two contiguous runs.
            let first = n.min(p - src);
            xs.push(Xfer::copy(r, src, src as u32 * size, first as u32 * size));
            if first < n {
                xs.push(Xfer::copy(r, src, 0, (n - first) as u32 * size));
            }
        }
        s.round(xs);
        have += n;
        k += 1;
    }
}

fn allgather_gather_bcast(s: &mut Schedule) {
    let p = s.p;
    let size = s.size;
    gather_segments(s, size);
    let full = size * p as u32;
    for round in binomial_down(p) {
        let xs = round.into_iter().map(|(d, src)| rooted(s, Xfer::copy(d, src, 0, full))).collect();
        s.round(xs);
    }
}

// ----- hybrids (seed 000 §3.3, §3.5): k rounds of binomial tree, recursive doubling among the
// p/2^k group leaders (the only BIF traffic when the halves are on different chips), then k
// rounds back down the trees. Named hybrid-x-y: switch at round x = k+1, y = p/2^k BIF messages.

/// All-gather of `block`-byte blocks (block r of rank r) by the k-level hybrid.
fn hybrid_allgather_blocks(s: &mut Schedule, k: usize, block: u32) {
    let p = s.p;
    for j in 0..k {
        let d = 1 << j;
        s.round((0..p).step_by(2 * d).map(|r| Xfer::copy(r, r + d, (r + d) as u32 * block, d as u32 * block)).collect());
    }
    let mut d = 1 << k;
    while d < p {
        let xs = (0..p).step_by(1 << k).map(|r| Xfer::copy(r, r ^ d, ((r ^ d) / d * d) as u32 * block, d as u32 * block)).collect();
        s.round(xs);
        d *= 2;
    }
    let full = block * p as u32;
    for j in (0..k).rev() {
        let d = 1 << j;
        s.round((0..p).step_by(2 * d).map(|r| Xfer::copy(r + d, r, 0, full)).collect());
    }
}

fn allgather_hybrid_k1(s: &mut Schedule) {
    hybrid_allgather_blocks(s, 1, s.size);
}
fn allgather_hybrid_k2(s: &mut Schedule) {
    hybrid_allgather_blocks(s, 2, s.size);
}
fn allgather_hybrid_k3(s: &mut Schedule) {
    hybrid_allgather_blocks(s, 3, s.size);
}

/// HybridA: k rounds of binomial reduce, rdb all-reduce among the leaders, k rounds of broadcast.
fn hybrid_a(s: &mut Schedule, k: usize) {
    let (p, size) = (s.p, s.size);
    for j in 0..k {
        let d = 1 << j;
        s.round((0..p).step_by(2 * d).map(|r| Xfer::reduce(r, r + d, 0, size)).collect());
    }
    let mut d = 1 << k;
    while d < p {
        s.round((0..p).step_by(1 << k).map(|r| Xfer::reduce(r, r ^ d, 0, size)).collect());
        d *= 2;
    }
    for j in (0..k).rev() {
        let d = 1 << j;
        s.round((0..p).step_by(2 * d).map(|r| Xfer::copy(r + d, r, 0, size)).collect());
    }
}

/// HybridB: reduce-scatter, then the hybrid all-gather of the reduced segments.
fn hybrid_b(s: &mut Schedule, k: usize) {
    reduce_scatter_halving(s);
    let seg = s.size / s.p as u32;
    hybrid_allgather_blocks(s, k, seg);
}

fn allreduce_hybrid_a_k1(s: &mut Schedule) {
    hybrid_a(s, 1);
}
fn allreduce_hybrid_a_k2(s: &mut Schedule) {
    hybrid_a(s, 2);
}
fn allreduce_hybrid_a_k3(s: &mut Schedule) {
    hybrid_a(s, 3);
}
fn allreduce_hybrid_b_k1(s: &mut Schedule) {
    hybrid_b(s, 1);
}
fn allreduce_hybrid_b_k2(s: &mut Schedule) {
    hybrid_b(s, 2);
}
fn allreduce_hybrid_b_k3(s: &mut Schedule) {
    hybrid_b(s, 3);
}

// ----- the CML-style baseline -----
//
// Seed 000 §4 names CML's algorithms (its authors thank CML's author for the help): barrier by
// recursive doubling, broadcast by a binomial tree with no barriers, reduce by a binomial tree
// "with some additional data copies not used by our implementation", all-reduce as that reduce
// then that broadcast. Its messages are receiver-initiated (Pakin, IPDPS 2008): the receiver
// asks, the sender puts the data, then a completion; each end runs CML's per-message code
// (`spu.cml_message_core_cycles`, [`Protocol::ReceiverInitiated`], coll/lower.rs). The seed
// does not say which copies; this baseline models those of a message-passing layer: a sender
// copies its data into a send buffer before a transfer (the second half of the working buffer),
// and a broadcast receiver copies the received message out of it. Each copy is SPU work
// charged at the machine file's copy cost.

/// Rounds of `binomial_up`, each preceded by a round in which its senders stage their data.
fn cml_reduce_rounds(s: &mut Schedule) {
    let size = s.size;
    for round in binomial_up(s.p) {
        s.round(round.iter().map(|&(_, src)| rooted(s, Xfer::local(src, 0, size, size))).collect());
        s.round(round.into_iter().map(|(d, src)| rooted(s, Xfer { src_offset: size, ..Xfer::reduce(d, src, 0, size) })).collect());
    }
}

/// The root stages the data, each rank forwards from its send buffer, and every receiver copies
/// the message into its working data in the round after it arrived.
fn cml_bcast_rounds(s: &mut Schedule) {
    let size = s.size;
    s.round(vec![rooted(s, Xfer::local(0, 0, size, size))]);
    let mut arrived: Vec<usize> = Vec::new();
    for round in binomial_down(s.p) {
        let mut xs: Vec<Xfer> = arrived.drain(..).map(|v| rooted(s, Xfer::local(v, size, 0, size))).collect();
        xs.extend(round.iter().map(|&(d, src)| rooted(s, Xfer { dst_offset: size, ..Xfer::copy(d, src, size, size) })));
        arrived.extend(round.iter().map(|&(d, _)| d));
        s.round(xs);
    }
    s.round(arrived.into_iter().map(|v| rooted(s, Xfer::local(v, size, 0, size))).collect());
}

fn bcast_cml(s: &mut Schedule) {
    s.buffer = 2 * s.size;
    s.protocol = Protocol::ReceiverInitiated;
    cml_bcast_rounds(s);
}

fn reduce_cml(s: &mut Schedule) {
    s.buffer = 2 * s.size;
    s.protocol = Protocol::ReceiverInitiated;
    cml_reduce_rounds(s);
}

fn allreduce_cml(s: &mut Schedule) {
    s.buffer = 2 * s.size;
    s.protocol = Protocol::ReceiverInitiated;
    cml_reduce_rounds(s);
    cml_bcast_rounds(s);
}

/// CML's barrier: "The CML barrier implementation uses rdb" (seed 000 §4). A barrier moves no
/// data, so the baseline's copies (above) do not apply: rdb's rounds, each exchange a pair of
/// receiver-initiated zero-byte messages (a request each way, then a completion each way).
fn barrier_cml(s: &mut Schedule) {
    barrier_rdb(s);
    s.protocol = Protocol::ReceiverInitiated;
}

pub const REGISTRY: &[Algorithm] = &[
    Algorithm {
        name: "barrier.rdb",
        op: Op::Barrier,
        description: "recursive doubling (extra rounds for non-powers of two)",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: barrier_rdb,
    },
    Algorithm {
        name: "barrier.bruck",
        op: Op::Barrier,
        description: "Bruck: round k, rank r hears from r-2^k",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: barrier_bruck,
    },
    Algorithm {
        name: "barrier.ota",
        op: Op::Barrier,
        description: "one-to-all over local-store notifications",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: barrier_ota,
    },
    Algorithm {
        name: "barrier.ota_signal",
        op: Op::Barrier,
        description: "one-to-all through OR-mode signal registers",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: barrier_ota_signal,
    },
    Algorithm {
        name: "barrier.mailbox",
        op: Op::Barrier,
        description: "stepwise mailbox barrier: fan-in-4 tree up and down, no mailbox overflows",
        source: "seed 000 §3.2",
        pow2: false,
        min_spes: 1,
        build: barrier_mailbox,
    },
    Algorithm {
        name: "barrier.atomic",
        op: Op::Barrier,
        description: "centralized: atomic increments of a counter in main memory",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: barrier_atomic,
    },
    Algorithm {
        name: "barrier.two_root_signal",
        op: Op::Barrier,
        description: "a signal root per half (per chip), the roots exchange, then release",
        source: "seed 002 §5.2",
        pow2: false,
        min_spes: 1,
        build: barrier_two_root_signal,
    },
    Algorithm {
        name: "barrier.cml",
        op: Op::Barrier,
        description: "CML-style baseline: rdb over receiver-initiated messages (a barrier has no data to copy)",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: barrier_cml,
    },
    Algorithm {
        name: "barrier.gather_bcast",
        op: Op::Barrier,
        description: "binomial gather then binomial broadcast",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: barrier_gather_bcast,
    },
    Algorithm {
        name: "broadcast.cml",
        op: Op::Broadcast,
        description: "CML-style baseline: binomial tree with send-buffer copies, receiver-initiated messages",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: bcast_cml,
    },
    Algorithm {
        name: "broadcast.ota",
        op: Op::Broadcast,
        description: "every rank gets from the root at once",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: bcast_ota,
    },
    Algorithm {
        name: "broadcast.two_to_all",
        op: Op::Broadcast,
        description: "root to the other half's first rank, then one-to-all in each half",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: bcast_two_to_all,
    },
    Algorithm {
        name: "broadcast.binomial_simple",
        op: Op::Broadcast,
        description: "binomial tree, sends announced without waiting for ACKs",
        source: "seed 000 §3.4",
        pow2: false,
        min_spes: 1,
        build: bcast_binomial_simple,
    },
    Algorithm {
        name: "broadcast.binomial_opt",
        op: Op::Broadcast,
        description: "binomial tree with ordered address-data-ACK rounds",
        source: "seed 000 §3.4",
        pow2: false,
        min_spes: 1,
        build: bcast_binomial,
    },
    Algorithm {
        name: "broadcast.kchains",
        op: Op::Broadcast,
        description: "2 fan-out, then 2 chains",
        source: "seed 000 §3.4",
        pow2: false,
        min_spes: 1,
        build: bcast_kchains,
    },
    Algorithm {
        name: "broadcast.segmented",
        op: Op::Broadcast,
        description: "segmented binomial: halves down each subtree, then exchange",
        source: "seed 000 §3.4, seed 003 §5",
        pow2: true,
        min_spes: 1,
        build: bcast_segmented,
    },
    Algorithm {
        name: "broadcast.hybrid_segmented",
        op: Op::Broadcast,
        description: "one BIF message, then segmented binomial on each chip",
        source: "seed 000 §3.4",
        pow2: true,
        min_spes: 4,
        build: bcast_hybrid_segmented,
    },
    Algorithm {
        name: "reduce.binomial",
        op: Op::Reduce,
        description: "binomial tree reduce over local-store notifications",
        source: "seed 000 §3.1",
        pow2: false,
        min_spes: 1,
        build: reduce_binomial,
    },
    Algorithm {
        name: "reduce.binomial_mailbox",
        op: Op::Reduce,
        description: "binomial tree reduce over mailboxes, a barrier after every round",
        source: "seed 000 §3.2",
        pow2: false,
        min_spes: 1,
        build: reduce_binomial_mailbox,
    },
    Algorithm {
        name: "reduce.cml",
        op: Op::Reduce,
        description: "CML-style baseline: binomial tree with send-buffer copies, receiver-initiated messages",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: reduce_cml,
    },
    Algorithm {
        name: "reduce.rabenseifner",
        op: Op::Reduce,
        description: "reduce-scatter by recursive halving, then gather",
        source: "seed 000 §4",
        pow2: true,
        min_spes: 1,
        build: reduce_rabenseifner,
    },
    Algorithm {
        name: "allreduce.rdb",
        op: Op::Allreduce,
        description: "recursive doubling exchange-and-reduce",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: allreduce_rdb,
    },
    Algorithm {
        name: "allreduce.rdb_mailbox",
        op: Op::Allreduce,
        description: "recursive doubling over mailboxes, a barrier after every round",
        source: "seed 000 §3.2, §4",
        pow2: false,
        min_spes: 1,
        build: allreduce_rdb_mailbox,
    },
    Algorithm {
        name: "allreduce.rdb_barrier",
        op: Op::Allreduce,
        description: "recursive doubling with a barrier every two rounds",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: allreduce_rdb_barrier,
    },
    Algorithm {
        name: "allreduce.cml",
        op: Op::Allreduce,
        description: "CML-style baseline: binomial reduce then binomial broadcast, with send-buffer copies, receiver-initiated messages",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: allreduce_cml,
    },
    Algorithm {
        name: "allreduce.reduce_bcast",
        op: Op::Allreduce,
        description: "binomial reduce then binomial broadcast",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: allreduce_reduce_bcast,
    },
    Algorithm {
        name: "allreduce.rs_ag",
        op: Op::Allreduce,
        description: "reduce-scatter then recursive-doubling all-gather",
        source: "seed 000 §3.5",
        pow2: true,
        min_spes: 1,
        build: allreduce_rs_ag,
    },
    Algorithm {
        name: "allreduce.rs_gather_bcast",
        op: Op::Allreduce,
        description: "reduce-scatter, gather, broadcast",
        source: "seed 000 §4",
        pow2: true,
        min_spes: 1,
        build: allreduce_rs_gather_bcast,
    },
    Algorithm {
        name: "allgather.rdb",
        op: Op::Allgather,
        description: "recursive doubling",
        source: "seed 000 §3.3",
        pow2: true,
        min_spes: 1,
        build: allgather_rdb,
    },
    Algorithm {
        name: "allgather.bruck",
        op: Op::Allgather,
        description: "Bruck, any number of SPEs",
        source: "seed 000 §4",
        pow2: false,
        min_spes: 1,
        build: allgather_bruck,
    },
    Algorithm {
        name: "allgather.gather_bcast",
        op: Op::Allgather,
        description: "binomial gather then binomial broadcast",
        source: "seed 000 §3.3",
        pow2: false,
        min_spes: 1,
        build: allgather_gather_bcast,
    },
    Algorithm {
        name: "allgather.hybrid_2_8",
        op: Op::Allgather,
        description: "1 round of gather, rdb among 8 leaders, 1 round of broadcast",
        source: "seed 000 §3.3",
        pow2: true,
        min_spes: 2,
        build: allgather_hybrid_k1,
    },
    Algorithm {
        name: "allgather.hybrid_3_4",
        op: Op::Allgather,
        description: "2 rounds of gather, rdb among 4 leaders, 2 rounds of broadcast",
        source: "seed 000 §3.3",
        pow2: true,
        min_spes: 4,
        build: allgather_hybrid_k2,
    },
    Algorithm {
        name: "allgather.hybrid_4_2",
        op: Op::Allgather,
        description: "3 rounds of gather, rdb among 2 leaders, 3 rounds of broadcast",
        source: "seed 000 §3.3",
        pow2: true,
        min_spes: 8,
        build: allgather_hybrid_k3,
    },
    Algorithm {
        name: "allreduce.hybrid_a_2_8",
        op: Op::Allreduce,
        description: "HybridA: 1 round of reduce, rdb among 8 leaders, 1 round of broadcast",
        source: "seed 000 §3.5",
        pow2: true,
        min_spes: 2,
        build: allreduce_hybrid_a_k1,
    },
    Algorithm {
        name: "allreduce.hybrid_a_3_4",
        op: Op::Allreduce,
        description: "HybridA: 2 rounds of reduce, rdb among 4 leaders, 2 rounds of broadcast",
        source: "seed 000 §3.5",
        pow2: true,
        min_spes: 4,
        build: allreduce_hybrid_a_k2,
    },
    Algorithm {
        name: "allreduce.hybrid_a_4_2",
        op: Op::Allreduce,
        description: "HybridA: 3 rounds of reduce, rdb among 2 leaders, 3 rounds of broadcast",
        source: "seed 000 §3.5",
        pow2: true,
        min_spes: 8,
        build: allreduce_hybrid_a_k3,
    },
    Algorithm {
        name: "allreduce.hybrid_b_2_8",
        op: Op::Allreduce,
        description: "HybridB: reduce-scatter, then hybrid-2-8 all-gather",
        source: "seed 000 §3.5",
        pow2: true,
        min_spes: 2,
        build: allreduce_hybrid_b_k1,
    },
    Algorithm {
        name: "allreduce.hybrid_b_3_4",
        op: Op::Allreduce,
        description: "HybridB: reduce-scatter, then hybrid-3-4 all-gather",
        source: "seed 000 §3.5",
        pow2: true,
        min_spes: 4,
        build: allreduce_hybrid_b_k2,
    },
    Algorithm {
        name: "allreduce.hybrid_b_4_2",
        op: Op::Allreduce,
        description: "HybridB: reduce-scatter, then hybrid-4-2 all-gather",
        source: "seed 000 §3.5",
        pow2: true,
        min_spes: 8,
        build: allreduce_hybrid_b_k3,
    },
];

pub fn find(name: &str) -> Result<&'static Algorithm> {
    REGISTRY.iter().find(|a| a.name == name).ok_or_else(|| {
        let names: Vec<&str> = REGISTRY.iter().map(|a| a.name).collect();
        config_err(format!("unknown algorithm '{name}': allowed {}", names.join(", ")))
    })
}

impl Algorithm {
    /// Build this algorithm's schedule for `p` ranks, `root`, and `size` bytes.
    ///
    /// DMAs move whole quadwords, so a message of any number of elements is padded: to a
    /// multiple of 16 bytes, or of 16 `p` for the algorithms that cut it into `p` segments. The
    /// schedule moves (and the interpreter checks) the padded message, as a Cell library
    /// working on 16-byte-aligned buffers does.
    pub fn schedule(&self, p: usize, root: usize, size: u32) -> Result<Schedule> {
        if self.op != Op::Barrier && size == 0 {
            return Err(config_err(format!("size 0 is not allowed for {}: at least one element", self.name)));
        }
        let segmented = ["rabenseifner", "rs_", "segmented", "hybrid_b"].iter().any(|n| self.name.contains(n));
        let quantum = if segmented && p <= 16 { 16 * p as u32 } else { 16 };
        let size = if self.op == Op::Barrier { 0 } else { size.next_multiple_of(quantum) };
        check_call(self.name, self.op, p, root, size)?;
        if p < self.min_spes {
            return Err(config_err(format!("{} needs at least {} SPEs, got {p}", self.name, self.min_spes)));
        }
        if self.pow2 && !p.is_power_of_two() {
            return Err(config_err(format!("{} needs a power-of-two number of SPEs, got {p}", self.name)));
        }
        let mut s = Schedule::new(self.name, self.op, p, root, size);
        if p > 1 {
            (self.build)(&mut s);
        }
        Ok(s)
    }
}
