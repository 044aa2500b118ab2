//! How far the long runs under way in this process are, for a front's progress bar while the
//! core works with the GIL released: a run that reports adds its whole work to a tally when it
//! starts and each piece's share as the piece ends, and takes both back when it ends, so the
//! tally holds only the runs still going. The units are the runs' own (`reproduce`: its
//! pieces' weights, estimated milliseconds of CPU), so the done share is what a bar can show.
//!
//! Done and total share one atomic word (done in the low half), so a reader never sees a run's
//! total without its done part or the other way round.

use std::sync::atomic::{AtomicU64, Ordering};

/// Work done and work in all of the runs reporting to it.
pub struct Tally(AtomicU64);

/// The runs of this process: what [`snapshot`] reads.
pub static PROCESS: Tally = Tally::new();

impl Tally {
    pub const fn new() -> Tally {
        Tally(AtomicU64::new(0))
    }

    /// Work done and work in all, summed over the runs under way.
    pub fn get(&self) -> (u32, u32) {
        let word = self.0.load(Ordering::Relaxed);
        (word as u32, (word >> 32) as u32)
    }
}

impl Default for Tally {
    fn default() -> Tally {
        Tally::new()
    }
}

/// One run's share of a [`Tally`], taken back when it is dropped (whether the run ended or
/// failed).
pub struct Work<'a> {
    tally: &'a Tally,
    total: u32,
    done: AtomicU64,
}

impl<'a> Work<'a> {
    /// A run of `total` units on `tally`.
    pub fn start(tally: &'a Tally, total: u32) -> Work<'a> {
        tally.0.fetch_add(u64::from(total) << 32, Ordering::Relaxed);
        Work { tally, total, done: AtomicU64::new(0) }
    }

    /// `amount` more units done (from any thread).
    pub fn advance(&self, amount: u32) {
        let before = self.done.fetch_add(u64::from(amount), Ordering::Relaxed);
        debug_assert!(before + u64::from(amount) <= u64::from(self.total), "more done than the run's total");
        self.tally.0.fetch_add(u64::from(amount), Ordering::Relaxed);
    }
}

impl Drop for Work<'_> {
    fn drop(&mut self) {
        let done = self.done.load(Ordering::Relaxed);
        self.tally.0.fetch_sub((u64::from(self.total) << 32) | done, Ordering::Relaxed);
    }
}

/// Work done and work in all of the runs under way in this process (both 0 when none reports).
pub fn snapshot() -> (u32, u32) {
    PROCESS.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_add_their_work_and_take_it_back_when_they_end() {
        let tally = Tally::new();
        let first = Work::start(&tally, 10);
        first.advance(4);
        assert_eq!(tally.get(), (4, 10));
        {
            let second = Work::start(&tally, 5);
            second.advance(5);
            assert_eq!(tally.get(), (9, 15));
        }
        assert_eq!(tally.get(), (4, 10), "a finished run leaves the tally");
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| first.advance(2));
            }
        });
        assert_eq!(tally.get(), (10, 10));
        drop(first);
        assert_eq!(tally.get(), (0, 0));
    }
}
