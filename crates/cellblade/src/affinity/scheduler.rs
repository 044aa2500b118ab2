//! The default scheduler: what Linux gave the seed's threads when no affinity was asked for.
//!
//! Seed 001 §3 observes three things: the assignment is not deterministic, not uniform over
//! the 8! permutations, and strongly correlated over short periods (eight trials produced only
//! two distinct assignments). The model, as a seeded distribution:
//! - a fresh assignment starts from the natural order (thread i on the i-th SPE of the chip)
//!   and applies a geometric number of random transpositions (one more with probability
//!   `scheduler.more_swaps_probability`, 3/4 in the presets: mean 4), so assignments near the
//!   natural order are the most likely and every permutation is possible;
//! - each later trial keeps the previous assignment with probability
//!   `scheduler.keep_probability` (3/4 in the presets). Both values are unpublished (the
//!   machine files say so).
//!
//! Same seed, same sequence of assignments.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::placement::Placement;
use crate::machine::config::MachineFile;
use crate::machine::topology::SPES_PER_CHIP;

pub struct DefaultScheduler {
    rng: ChaCha8Rng,
    spes: usize,
    last: Option<Placement>,
    keep: f64,
    more_swaps: f64,
}

impl DefaultScheduler {
    pub fn new(file: &MachineFile, seed: u64, spes: usize) -> Self {
        let (keep, more_swaps) = (file.scheduler.keep_probability, file.scheduler.more_swaps_probability);
        DefaultScheduler { rng: ChaCha8Rng::seed_from_u64(seed), spes, last: None, keep, more_swaps }
    }

    fn fresh(&mut self) -> Placement {
        let mut m: Vec<usize> = (0..self.spes).collect();
        loop {
            // Threads stay on their chip (the seed pins them with numactl).
            let chip = self.rng.gen_range(0..self.spes / SPES_PER_CHIP);
            let a = chip * SPES_PER_CHIP + self.rng.gen_range(0..SPES_PER_CHIP);
            let b = chip * SPES_PER_CHIP + self.rng.gen_range(0..SPES_PER_CHIP);
            m.swap(a, b);
            if !self.rng.gen_bool(self.more_swaps) {
                break;
            }
        }
        Placement { rank_to_spe: m }
    }

    /// The assignment of the next trial.
    pub fn next_placement(&mut self) -> Placement {
        let p = match &self.last {
            Some(last) if self.rng.gen_bool(self.keep) => last.clone(),
            _ => self.fresh(),
        };
        self.last = Some(p.clone());
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(set: &[&str]) -> MachineFile {
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        crate::machine::config::load(crate::machine::config::preset_text("qs20").unwrap(), &set).unwrap()
    }

    #[test]
    fn the_machine_file_sets_the_probabilities() {
        let draw = |f: &MachineFile| {
            let mut s = DefaultScheduler::new(f, 1, 8);
            (0..100).map(|_| s.next_placement()).collect::<Vec<_>>()
        };
        // Never keeping and never swapping twice: consecutive trials rarely repeat.
        let fresh = draw(&file(&["scheduler.keep_probability=0", "scheduler.more_swaps_probability=0"]));
        assert!(fresh.windows(2).filter(|w| w[0] == w[1]).count() < 30);
        // Always keeping: one assignment throughout.
        let kept = draw(&file(&["scheduler.keep_probability=1"]));
        assert!(kept.iter().all(|p| *p == kept[0]));
        let e = crate::machine::config::load(
            crate::machine::config::preset_text("qs20").unwrap(),
            &["scheduler.more_swaps_probability=1".into()],
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "machine key 'scheduler.more_swaps_probability' = 1 is out of range: allowed 0 to 0.99");
    }

    #[test]
    fn seeded_correlated_and_not_uniform() {
        let f = file(&[]);
        let draw = |seed| {
            let mut s = DefaultScheduler::new(&f, seed, 8);
            (0..200).map(|_| s.next_placement()).collect::<Vec<_>>()
        };
        let a = draw(7);
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        // Correlated: consecutive trials often repeat.
        let repeats = a.windows(2).filter(|w| w[0] == w[1]).count();
        assert!(repeats > 120, "{repeats}");
        // Not uniform: identity-like assignments are far more common than 1 in 8!.
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(distinct.len() < 80);
        for p in &a {
            assert!(Placement::new(p.rank_to_spe.clone()).is_ok());
        }
    }
}
