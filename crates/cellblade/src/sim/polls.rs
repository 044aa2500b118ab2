//! Exact poll elision: the parked polls of processes that wait by polling, and the jump over
//! polls that cannot succeed.
//!
//! A poller reads what it waits for, fails, and sleeps one poll interval ([`super::Shared::poll_sleep`]),
//! naming a [`Since`]: the engine's counts at its read. Activity is anything that can write what
//! a poller reads: a process running (except a poller that woke from a poll and failed again),
//! a machine event, a step of the clocked bus. A poller that reads only one part of the world
//! (an SPE's local store) names it, with the world's count of writes into it
//! ([`super::World::writes`]); machine events and bus steps then count only when they wrote
//! there. When a parked poll falls due and nothing it names has moved, the poll would read
//! what the last one read and fail, so
//! the engine does not wake the process: it moves the poll to its first instant at which
//! something may have changed, counting every poll skipped on the way as the event it would
//! have been, and hands the process the number of intervals that passed when it finally wakes.
//!
//! Exactness. Every push (a queued event or a poll) takes the next number of one sequence, and
//! the loop pops the earlier of the queue's head and the polls' head by (time, sequence), which
//! is the queue's own order; so with nothing skipped the run is the one without polls parked.
//! A poll at instant `t + k*dt` would have been pushed at `t + (k-1)*dt`, after everything
//! queued now: it comes after a queued event or parked poll at its time, and before a bus step
//! at its time (steps come after queued events). So a poll jumps at most to the first instant
//! at or after the earliest queued event, the earliest other parked poll and the run's limit,
//! and after the next step: nothing is pushed before it would have been, and the skipped
//! instants all lie before anything that could write what it reads. (Bounding by every other
//! poll, not only those that will wake, keeps pollers with the same phase in the order they
//! polled in: one that jumped past a shared instant would otherwise overtake one that polled
//! there.) When every parked poll before the next event or step fails too, nothing but those
//! polls can happen until then, and they all jump together past it ([`Polls::jump_all`]),
//! numbered in the order polling one by one would give them. With nothing else pending the poll wakes the process as before (a deadlock found
//! by polling programs is found at the same poll).

use std::cell::Cell;

use super::Pid;

/// `since` for a poll that may not be skipped.
const NEVER: u64 = u64::MAX;

/// What a poller's failed read saw: the engine's count of process runs (`key` given) or of all
/// activity (`key` none), and for a keyed poller the world's count of writes into `key`.
/// A keyed poller that reads nothing another process's run can change except what the world
/// counts as writes into its key (its local store, and software state the world is told of:
/// [`super::World::writes`]) stamps `runs: false`, and runs elsewhere do not wake it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Since {
    pub count: u64,
    pub key: Option<(usize, u64)>,
    pub runs: bool,
}

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Turn the fast paths (the engine's poll elision, the bus arbiter's lookahead skipping a
/// destination it has just refused) on or off for blades created later on this thread. For
/// tests that compare a run with and without them; results never depend on it.
#[doc(hidden)]
pub fn set_fast_paths(on: bool) {
    ENABLED.with(|c| c.set(on));
}

pub(crate) fn fast_paths() -> bool {
    ENABLED.with(Cell::get)
}

/// One process's poll, parked until its time.
pub(crate) struct Parked {
    pub time: u64,
    pub seq: u64,
    pub pid: Pid,
    dt: u64,
    /// The counts at the poller's read (count `NEVER`: wake it whatever happened).
    since: Since,
    /// Poll intervals since the process slept.
    pub n: u64,
}

impl Parked {
    pub fn new(time: u64, seq: u64, pid: Pid, dt: u64, since: Option<Since>) -> Parked {
        Parked { time, seq, pid, dt, since: since.unwrap_or(Since { count: NEVER, key: None, runs: true }), n: 1 }
    }

    /// Whether nothing that could change what the poller reads has happened since it read:
    /// `runs` and `activity` are the engine's counts, `writes` the world's.
    pub fn fails(&self, runs: u64, activity: u64, writes: impl Fn(usize) -> Option<u64>) -> bool {
        match self.since.key {
            Some((key, w)) => (!self.since.runs || self.since.count == runs) && writes(key) == Some(w),
            None => self.since.count == activity,
        }
    }

    /// The intervals from the poll's instant to its first instant at or after `bound`, at
    /// least one. Polls jump to the next activity, mostly less than an interval away: that
    /// case needs no division.
    #[inline]
    fn intervals_to(&self, bound: u64) -> u64 {
        let gap = bound.saturating_sub(self.time);
        if gap <= self.dt {
            1
        } else {
            gap.div_ceil(self.dt)
        }
    }

    /// Move the poll to its first instant at or after `bound` (at least one interval on):
    /// returns how many polls that skipped, or `None` when that instant is not before `horizon`.
    pub fn jump(&mut self, bound: u64, horizon: u64, seq: u64) -> Option<u64> {
        let k = self.intervals_to(bound);
        let at = self.time.checked_add(k.checked_mul(self.dt)?).filter(|&at| at < horizon)?;
        self.time = at;
        self.seq = seq;
        self.n += k;
        Some(k - 1)
    }
}

/// The parked polls: one per polling process at most, so a few dozen, kept sorted by (time,
/// sequence) from the latest to the earliest, so that the head is the last item: taking it
/// and reading it cost nothing, and a poll parked again is placed by a binary search (the
/// pairs are unique, so the order is the one a scan for the earliest would give).
#[derive(Default)]
pub(crate) struct Polls {
    items: Vec<Parked>,
}

/// Sorting key: later polls first.
fn later_first(a: &Parked, b: &Parked) -> std::cmp::Ordering {
    (b.time, b.seq).cmp(&(a.time, a.seq))
}

impl Polls {
    pub fn push(&mut self, p: Parked) {
        let at = self.items.partition_point(|q| (q.time, q.seq) > (p.time, p.seq));
        self.items.insert(at, p);
    }

    /// (time, sequence) of the earliest poll, `u64::MAX` time if none.
    #[inline]
    pub fn head(&self) -> (u64, u64) {
        self.items.last().map_or((u64::MAX, u64::MAX), |p| (p.time, p.seq))
    }

    pub fn take_head(&mut self) -> Parked {
        self.items.pop().expect("a parked poll")
    }

    /// Move `head` (due now, failed) and every parked poll before `bound` to its first instant
    /// at or after `bound` (`head` at least one interval on), when every one of those fails
    /// (`fails`) and all poll at `head`'s interval: the skipped polls, or `Err` (nothing
    /// moved, `head` given back) otherwise or when the latest landing may not be before
    /// `horizon` (then the polls go one by one, with the same result).
    ///
    /// Nothing but these polls happens before `bound`, and they all fail, so each would poll
    /// on its phase until then. Order at a shared landing instant: a poll's entry for it would
    /// have been pushed one interval before, in this stretch, unless it is parked there now;
    /// among pollers of one interval, one parked at a later instant thus comes first, and at
    /// one instant the order stands. The fresh sequence numbers (from `seq` on) follow that.
    pub fn jump_all(
        &mut self,
        head: Parked,
        bound: u64,
        horizon: u64,
        seq: &mut u64,
        fails: impl Fn(&Parked) -> bool,
    ) -> Result<u64, Parked> {
        let dt = head.dt;
        // The polls before the bound: the tail, latest first.
        let first = self.items.partition_point(|p| p.time >= bound);
        // Every landing is at or after the bound and less than an interval past it, or one
        // interval past the head when the bound is the head's own instant.
        let fits = bound.max(head.time).checked_add(dt).is_some_and(|last| last < horizon);
        if !fits || !self.items[first..].iter().all(|p| p.dt == dt && fails(p)) {
            return Err(head);
        }
        // The head was the earliest: it stays last.
        self.items.push(head);
        let head = self.items.len() - 1;
        // The head's own poll now is counted by the loop, not skipped.
        let mut skipped = 0;
        // Latest instant first, and at one instant in sequence order: the tail holds each
        // instant's polls latest sequence first, so each such run is walked backwards.
        let mut start = first;
        while start < self.items.len() {
            let time = self.items[start].time;
            let end = start + self.items[start..].iter().take_while(|p| p.time == time).count();
            for i in (start..end).rev() {
                let p = &mut self.items[i];
                let k = p.intervals_to(bound);
                (p.time, p.n) = (p.time + k * dt, p.n + k);
                skipped += if i == head { k - 1 } else { k };
                *seq += 1;
                p.seq = *seq;
            }
            start = end;
        }
        self.items.sort_unstable_by(later_first);
        Ok(skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_lands_on_the_first_instant_at_or_after_the_bound() {
        let mut p = Parked::new(100, 1, 0, 96, Some(Since { count: 7, key: None, runs: true }));
        assert!(p.fails(0, 7, |_| None) && !p.fails(0, 8, |_| None));
        // Keyed: process runs and the writes into the key count, other activity does not.
        let keyed = Parked::new(100, 1, 0, 96, Some(Since { count: 3, key: Some((5, 40)), runs: true }));
        assert!(keyed.fails(3, 99, |k| (k == 5).then_some(40)));
        assert!(!keyed.fails(4, 99, |_| Some(40)) && !keyed.fails(3, 99, |_| Some(41)));
        // Keyed without runs: only the writes into the key count.
        let own = Parked::new(100, 1, 0, 96, Some(Since { count: 3, key: Some((5, 40)), runs: false }));
        assert!(own.fails(4, 99, |k| (k == 5).then_some(40)) && !own.fails(3, 99, |_| Some(41)));
        // At least one interval; exactly one up to an interval away; then rounded up.
        let k = |bound| p.intervals_to(bound);
        assert_eq!((k(0), k(100), k(150), k(196), k(197), k(292), k(293)), (1, 1, 1, 1, 2, 2, 3));
        // Instants 196, 292, 388: 388 is the first at or after 300, two skipped on the way.
        assert_eq!(p.jump(300, u64::MAX, 9), Some(2));
        assert_eq!((p.time, p.seq, p.n), (388, 9, 4));
        // A bound on an instant lands on it; a bound before the next instant moves one interval.
        assert_eq!(p.jump(484, u64::MAX, 10), Some(0));
        assert_eq!(p.jump(0, u64::MAX, 11), Some(0));
        assert_eq!((p.time, p.n), (580, 6));
        // Past the horizon: no jump, the process wakes and its own sleep reports the overflow.
        assert_eq!(p.jump(10_000, 1000, 12), None);
        assert_eq!(p.time, 580);
        assert!(!Parked::new(0, 0, 0, 1, None).fails(NEVER - 1, NEVER - 1, |_| None));
    }

    /// `jump_all` against the polls run one by one: pop the earliest by (time, sequence) until
    /// the bound, each pushed again one interval on with the next sequence number.
    #[test]
    fn jumping_together_orders_the_polls_as_polling_one_by_one_would() {
        let mut x = 12345u64;
        let mut rand = |n: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let failed = Some(Since { count: 0, key: None, runs: true });
        for _ in 0..500 {
            let (dt, count) = (1 + rand(40), 1 + rand(8) as usize);
            let mut seq = 100;
            let mut polls: Polls = Polls::default();
            for pid in 0..count {
                let time = 1000 + rand(3 * dt);
                polls.push(Parked::new(time, 1 + rand(99), pid, dt, failed));
            }
            if (0..polls.items.len()).any(|i| (0..i).any(|j| polls.items[i].seq == polls.items[j].seq)) {
                continue;
            }
            let bound = 1000 + rand(10 * dt);
            // One by one.
            let mut step = Polls { items: polls.items.iter().map(|p| Parked { ..*p }).collect() };
            let (mut s, mut pops) = (seq, 0);
            let first = step.take_head();
            let mut p = first;
            loop {
                pops += 1;
                s += 1;
                (p.time, p.seq, p.n) = (p.time + dt, s, p.n + 1);
                step.push(p);
                if step.head().0 >= bound && pops > 0 {
                    break;
                }
                p = step.take_head();
            }
            let order = |ps: &Polls| {
                let mut v: Vec<_> = ps.items.iter().map(|p| (p.time, p.seq, p.pid, p.n)).collect();
                v.sort();
                v.into_iter().map(|(t, _, pid, n)| (t, pid, n)).collect::<Vec<_>>()
            };
            let head = polls.take_head();
            let skipped = polls.jump_all(head, bound, u64::MAX, &mut seq, |_| true).ok().expect("all fail");
            assert_eq!(order(&polls), order(&step), "dt {dt}, bound {bound}");
            assert_eq!(skipped, pops - 1);
        }
    }
}
