//! Communication patterns over thread ranks (seed 001 Table 2 and §5): single phases, and
//! multi-phase patterns of collective operations. A phase is a set of gets `dst <- src` of the
//! same size, all in flight together; phases run in order.

use crate::error::{config_err, Result};

/// One get of a phase: rank `dst` gets `bytes` from rank `src`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Transfer {
    pub dst: usize,
    pub src: usize,
    pub bytes: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pub name: String,
    pub phases: Vec<Vec<Transfer>>,
}

/// (name, description, default message size) of every built-in pattern.
pub const CATALOG: [(&str, &str, u32); 10] = [
    ("ring", "r <- r-1: ring algorithm, phase 1 of Bruck (Table 2 #1)", 65536),
    ("rd1", "r <-> r xor 1: phase 1 of recursive doubling (Table 2 #2)", 65536),
    ("rd2", "r <-> r xor 2: phase 2 of recursive doubling (Table 2 #3)", 65536),
    ("rd3", "r <-> r xor 4: phase 3 of recursive doubling (Table 2 #4)", 65536),
    ("bruck2", "r <- r+2: phase 2 of Bruck all-gather (Table 2 #5)", 65536),
    ("binomial3", "r+1 <- r for even r: phase 3 of a binomial tree (Table 2 #6)", 65536),
    ("bcast", "binomial-tree broadcast from rank 0, the whole message each phase (§5)", 131072),
    ("scatter", "binomial-tree scatter from rank 0, halving each phase (§5)", 65536),
    ("bruck", "Bruck all-gather, 1, 2, 4, ... blocks per phase (§5)", 65536),
    ("rd", "recursive-doubling all-gather, doubling each phase (§5)", 65536),
];

fn log2(p: usize) -> usize {
    p.trailing_zeros() as usize
}

/// Build pattern `name` on `p` ranks (a power of two) with largest message `size` bytes.
pub fn build(name: &str, p: usize, size: u32) -> Result<Pattern> {
    let t = |dst: usize, src: usize, bytes: u32| Transfer { dst, src, bytes };
    let exchange = |d: usize| (0..p).map(|r| t(r, r ^ d, size)).collect::<Vec<_>>();
    let levels = log2(p);
    let phases: Vec<Vec<Transfer>> = match name {
        "ring" => vec![(0..p).map(|r| t(r, (r + p - 1) % p, size)).collect()],
        "rd1" => vec![exchange(1)],
        "rd2" => vec![exchange(2)],
        "rd3" => vec![exchange(4)],
        "bruck2" => vec![(0..p).map(|r| t(r, (r + 2) % p, size)).collect()],
        // Phase 3 of the seed's 8-rank binomial tree: odd ranks get from their even neighbour.
        "binomial3" => vec![(0..p).step_by(2).map(|r| t(r + 1, r, size)).collect()],
        "bcast" => (0..levels)
            .map(|k| {
                let step = p >> (k + 1);
                (0..p).step_by(2 * step).map(|r| t(r + step, r, size)).collect()
            })
            .collect(),
        "scatter" => (0..levels)
            .map(|k| {
                let step = p >> (k + 1);
                (0..p).step_by(2 * step).map(|r| t(r + step, r, size >> k)).collect()
            })
            .collect(),
        // All-gathers with `size` the largest (last) message: block = size / 2^(levels-1).
        "bruck" => (0..levels).map(|k| (0..p).map(|r| t(r, (r + (1 << k)) % p, size >> (levels - 1 - k))).collect()).collect(),
        "rd" => (0..levels).map(|k| (0..p).map(|r| t(r, r ^ (1 << k), size >> (levels - 1 - k))).collect()).collect(),
        // Any collective schedule of the library: its rounds become phases (notifications,
        // which move no data, are left out).
        other if other.contains('.') => {
            let s = crate::coll::algorithms::find(other)?.schedule(p, 0, size)?;
            s.rounds
                .iter()
                .map(|r| r.iter().filter(|x| x.bytes > 0).map(|x| t(x.dst, x.src, x.bytes)).collect::<Vec<_>>())
                .filter(|ph| !ph.is_empty())
                .collect()
        }
        other => {
            let names: Vec<&str> = CATALOG.iter().map(|c| c.0).collect();
            return Err(config_err(format!(
                "unknown pattern '{other}': allowed {}, or a collective algorithm's name (cellblade coll list)",
                names.join(", ")
            )));
        }
    };
    if p < 2 || !p.is_power_of_two() {
        return Err(config_err(format!("pattern {name} needs a power-of-two number of ranks, got {p}")));
    }
    if let Some(tr) = phases.iter().flatten().find(|tr| tr.bytes == 0 || tr.bytes % 16 != 0) {
        return Err(config_err(format!(
            "pattern {name} with size {size} gives a {}-byte message: sizes must be multiples of 16",
            tr.bytes
        )));
    }
    Ok(Pattern { name: name.to_string(), phases })
}

/// Bytes per rank of a collective algorithm run as a pattern, when no size is given.
pub const COLLECTIVE_DEFAULT_SIZE: u32 = 16384;

/// The default message size of a pattern: the seed's for the built-in ones,
/// [`COLLECTIVE_DEFAULT_SIZE`] per rank for a collective algorithm.
pub fn default_size(name: &str) -> Result<u32> {
    if let Some(c) = CATALOG.iter().find(|c| c.0 == name) {
        return Ok(c.2);
    }
    crate::coll::algorithms::find(name).map(|_| COLLECTIVE_DEFAULT_SIZE).map_err(|_| build(name, 8, 65536).unwrap_err())
}

impl Pattern {
    /// Largest number of bytes any rank receives in one operation.
    pub fn max_received(&self, p: usize) -> u64 {
        (0..p).map(|r| self.phases.iter().flatten().filter(|t| t.dst == r).map(|t| t.bytes as u64).sum::<u64>()).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_2_patterns_on_8_ranks() {
        let pairs = |n: &str| build(n, 8, 64).unwrap().phases[0].iter().map(|t| (t.dst, t.src)).collect::<Vec<_>>();
        assert_eq!(pairs("ring")[..2], [(0, 7), (1, 0)]);
        assert_eq!(pairs("rd3")[..2], [(0, 4), (1, 5)]);
        assert_eq!(pairs("bruck2")[6..], [(6, 0), (7, 1)]);
        assert_eq!(pairs("binomial3"), vec![(1, 0), (3, 2), (5, 4), (7, 6)]);
    }

    #[test]
    fn multi_phase_patterns() {
        let b = build("bcast", 8, 128).unwrap();
        assert_eq!(b.phases.len(), 3);
        assert_eq!(b.phases[0], vec![Transfer { dst: 4, src: 0, bytes: 128 }]);
        assert_eq!(b.phases[2].len(), 4);
        let s = build("scatter", 16, 65536).unwrap();
        assert_eq!(s.phases.iter().map(|p| p[0].bytes).collect::<Vec<_>>(), vec![65536, 32768, 16384, 8192]);
        let rd = build("rd", 8, 65536).unwrap();
        assert_eq!(rd.phases.iter().map(|p| p[0].bytes).collect::<Vec<_>>(), vec![16384, 32768, 65536]);
        assert!(build("spiral", 8, 64).unwrap_err().to_string().contains("allowed ring, rd1"));
        // A collective schedule as a pattern: allgather.rdb's rounds, with doubling messages.
        let ag = build("allgather.rdb", 8, 1024).unwrap();
        assert_eq!(ag.phases.iter().map(|p| p[0].bytes).collect::<Vec<_>>(), vec![1024, 2048, 4096]);
        assert_eq!(default_size("broadcast.binomial_opt").unwrap(), 16384);
        assert!(build("rd", 8, 40).unwrap_err().to_string().contains("multiples of 16"));
    }
}
