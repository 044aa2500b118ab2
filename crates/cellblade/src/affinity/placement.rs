//! Placements: which physical SPE runs each thread rank (seed 001 §5), named or from a file.
//!
//! The named placements are the seed's exact one-chip mappings, given there as
//! (physical id, thread) pairs. On 16 SPEs a named placement applies on each chip: ranks 0-7
//! on chip 0 and ranks 8-15 on chip 1, each chip with the same mapping.

use crate::error::{config_err, Result};
use crate::machine::topology::{SPES, SPES_PER_CHIP};

/// Seed 001 §5: (physical id, thread number) pairs of each named placement.
const NAMED: [(&str, [(usize, usize); 8]); 5] = [
    ("identity", [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)]),
    ("ring", [(0, 0), (1, 7), (2, 1), (3, 6), (4, 2), (5, 5), (6, 3), (7, 4)]),
    ("overlap", [(0, 0), (1, 7), (2, 2), (3, 5), (4, 4), (5, 3), (6, 6), (7, 1)]),
    ("evenodd", [(0, 0), (1, 4), (2, 2), (3, 6), (4, 1), (5, 5), (6, 3), (7, 7)]),
    ("leap2", [(0, 0), (1, 4), (2, 7), (3, 3), (4, 1), (5, 5), (6, 6), (7, 2)]),
];

/// The names of the seed's deterministic placements.
pub fn named() -> impl Iterator<Item = &'static str> {
    NAMED.iter().map(|(n, _)| *n)
}

/// A map from thread rank to physical SPE id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    pub rank_to_spe: Vec<usize>,
}

impl Placement {
    /// Check that `rank_to_spe` is a placement of `spes` ranks: every id exists, none repeats,
    /// and with 8 ranks all are on one chip.
    pub fn new(rank_to_spe: Vec<usize>) -> Result<Placement> {
        let n = rank_to_spe.len();
        if n == 0 || n > SPES {
            return Err(config_err(format!("a placement names 1 to {SPES} SPEs, this one names {n}")));
        }
        let mut seen = [None; SPES];
        for (rank, &spe) in rank_to_spe.iter().enumerate() {
            if spe >= SPES {
                return Err(config_err(format!("placement gives rank {rank} SPE {spe}, which does not exist: allowed 0 to {}", SPES - 1)));
            }
            if let Some(other) = seen[spe] {
                return Err(config_err(format!("placement repeats SPE {spe} (ranks {other} and {rank}): it must be a permutation")));
            }
            seen[spe] = Some(rank);
        }
        Ok(Placement { rank_to_spe })
    }

    /// A named placement for `spes` ranks (8 or 16).
    pub fn named(name: &str, spes: usize) -> Result<Placement> {
        let Some((_, pairs)) = NAMED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) else {
            return Err(config_err(format!(
                "unknown placement '{name}': allowed {}, or a placement file",
                named().collect::<Vec<_>>().join(", ")
            )));
        };
        check_spes(spes)?;
        let mut chip = [0usize; 8];
        for &(phys, thread) in pairs {
            chip[thread] = phys;
        }
        Placement::new((0..spes).map(|r| (r / SPES_PER_CHIP) * SPES_PER_CHIP + chip[r % SPES_PER_CHIP]).collect())
    }

    /// Parse a placement file (the seed's initialization file): `#` comments, and either one
    /// line of physical ids in rank order or lines of `rank spe`.
    pub fn parse(text: &str, spes: usize) -> Result<Placement> {
        let lines: Vec<(usize, Vec<&str>)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").split_whitespace().collect::<Vec<_>>()))
            .filter(|(_, w)| !w.is_empty())
            .collect();
        let num = |line: usize, w: &str| -> Result<usize> {
            w.parse().map_err(|_| config_err(format!("placement file line {line}: '{w}' is not a number")))
        };
        let mapping = if lines.len() == 1 && lines[0].1.len() > 2 {
            lines[0].1.iter().map(|w| num(lines[0].0, w)).collect::<Result<Vec<_>>>()?
        } else {
            let mut m = vec![None; spes];
            for (line, words) in &lines {
                if words.len() != 2 {
                    return Err(config_err(format!("placement file line {line}: expected 'rank spe', got '{}'", words.join(" "))));
                }
                let (rank, spe) = (num(*line, words[0])?, num(*line, words[1])?);
                if rank >= spes {
                    return Err(config_err(format!("placement file line {line}: rank {rank} is out of range: allowed 0 to {}", spes - 1)));
                }
                if m[rank].replace(spe).is_some() {
                    return Err(config_err(format!("placement file line {line}: rank {rank} is given twice")));
                }
            }
            m.into_iter()
                .enumerate()
                .map(|(r, s)| s.ok_or_else(|| config_err(format!("placement file gives no SPE for rank {r}"))))
                .collect::<Result<Vec<_>>>()?
        };
        if mapping.len() != spes {
            return Err(config_err(format!("placement file names {} SPEs, the run has {spes}", mapping.len())));
        }
        Placement::new(mapping)
    }

    pub fn spes(&self) -> usize {
        self.rank_to_spe.len()
    }
}

pub fn check_spes(spes: usize) -> Result<()> {
    if spes == 8 || spes == 16 {
        Ok(())
    } else {
        Err(crate::error::field_err("spes", spes, "8 (one chip) or 16 (both chips)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_mappings_follow_the_seed() {
        // Ring: thread 7 runs on SPE 1, thread 1 on SPE 2 (seed 001 §5).
        let r = Placement::named("ring", 8).unwrap();
        assert_eq!(r.rank_to_spe, vec![0, 2, 4, 6, 7, 5, 3, 1]);
        let e = Placement::named("EvenOdd", 16).unwrap();
        assert_eq!(e.rank_to_spe[..8], [0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(e.rank_to_spe[8..], [8, 12, 10, 14, 9, 13, 11, 15]);
        assert!(Placement::named("spiral", 8).unwrap_err().to_string().contains("allowed identity, ring, overlap, evenodd, leap2"));
    }

    #[test]
    fn files_parse_and_bad_ones_say_why() {
        assert_eq!(Placement::parse("# mine\n0 4 2 6 1 5 3 7\n", 8).unwrap(), Placement::named("evenodd", 8).unwrap());
        let pairs: String = (0..8).map(|r| format!("{r} {}\n", 7 - r)).collect();
        assert_eq!(Placement::parse(&pairs, 8).unwrap().rank_to_spe, vec![7, 6, 5, 4, 3, 2, 1, 0]);
        assert!(Placement::parse("0 1 2 3 4 5 6 6", 8).unwrap_err().to_string().contains("repeats SPE 6"));
        assert!(Placement::parse("0 1 2 3 4 5 6 17", 8).unwrap_err().to_string().contains("SPE 17, which does not exist"));
        assert!(Placement::parse("0 1 2 x 4 5 6 7", 8).unwrap_err().to_string().contains("line 1: 'x' is not a number"));
        assert!(Placement::parse("0 1 2 3 4 5 6", 8).unwrap_err().to_string().contains("names 7 SPEs, the run has 8"));
        assert!(Placement::parse("0 1\n0 2\n", 8).unwrap_err().to_string().contains("rank 0 is given twice"));
    }
}
