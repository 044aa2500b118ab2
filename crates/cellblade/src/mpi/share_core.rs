//! One core for the simulator and its rank processes when they outnumber the host's cores (the
//! ranks' side: `libmpi/src/env/share_core.c`).
//!
//! The simulator serves one rank at a time and waits for it, so with sleeping waiters (the
//! only kind that does not starve an outnumbered host: [`super::channel`]) a call's round trip
//! is two hand-overs. Across cores each wakes a sleeping core, some twenty microseconds on a
//! virtual machine; on one core each is a switch of a few. So the simulator pins its thread to
//! the core it runs on for the job, does not spin there (a spin on the shared core only keeps
//! the rank it waits for off it), and names the core in the answer to `MPI_Init`
//! ([`super::wire::FLAG_SHARE_CORE`]); each rank's MPI thread stays on it.
//!
//! Ranks that compute would take turns on that core. A rank computes between calls, which the
//! simulator sees only as a wait for a request: when one lasts [`FLOAT_AFTER`], it gives every
//! rank's MPI thread the cores the simulator had ([`SharedCore::float_all`]), and a floated
//! rank's next answer carries [`super::wire::FLAG_REPIN`], on which the rank returns to the
//! shared core. A move is a system call, rare next to the calls. Where the ranks and the
//! simulator fit the cores nothing is pinned and both sides spin. Placement changes wall time,
//! never a simulated result.

use std::cell::RefCell;
use std::time::Duration;

/// How long the simulator waits for a rank's request before it takes the ranks off the shared
/// core. A call's round trip takes microseconds, but on a shared core a hand-over now and then
/// waits over a millisecond for the scheduler; at 1 ms such waits moved the ranks off and back
/// often enough to cost `osu_bcast` a fifth of its time, at 5 ms no more than without moving
/// them (CHANGELOG.md, issue 24's twelfth part). A compute phase shares the core for that long.
pub const FLOAT_AFTER: Duration = Duration::from_millis(5);

/// The simulator thread's placement for one job, restored when dropped, and the ranks' MPI
/// threads it may move.
pub struct SharedCore {
    cpu: usize,
    before: libc::cpu_set_t,
    /// Per rank: its MPI thread's id once known, and whether it was floated since its last answer.
    ranks: RefCell<Vec<(Option<libc::pid_t>, bool)>>,
}

/// The cores thread `tid` (0: this one) may run on.
fn affinity(tid: libc::pid_t) -> Option<libc::cpu_set_t> {
    // SAFETY: a zeroed cpu_set_t is the empty set; the call gets its size and a valid pointer.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        (libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0).then_some(set)
    }
}

fn set_affinity(tid: libc::pid_t, set: &libc::cpu_set_t) -> bool {
    // SAFETY: a valid set of its own size; a thread id that has ended only makes the call fail.
    unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), set) == 0 }
}

/// The set of core `cpu` alone.
fn only(cpu: usize) -> libc::cpu_set_t {
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET ignores a core past its size.
    unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        one
    }
}

impl SharedCore {
    /// Pin the calling thread to the core it runs on when `ranks` rank processes and it
    /// outnumber the cores it may run on; `None` when they fit, or when the host will not say
    /// or do it (then each side keeps the cores it had, which costs only speed).
    pub fn for_job(ranks: usize) -> Option<SharedCore> {
        let before = affinity(0)?;
        // SAFETY: CPU_COUNT reads a valid set; sched_getcpu takes no arguments.
        let (cores, cpu) = unsafe { (libc::CPU_COUNT(&before) as usize, libc::sched_getcpu()) };
        let cpu = usize::try_from(cpu).ok().filter(|_| ranks >= cores)?;
        set_affinity(0, &only(cpu)).then(|| SharedCore { cpu, before, ranks: RefCell::new(vec![(None, false); ranks]) })
    }

    /// The shared core's number, as the ranks are told it.
    pub fn cpu(&self) -> usize {
        self.cpu
    }

    /// Rank `rank`'s MPI thread is `tid` (it reports it in its channel).
    pub fn enrol(&self, rank: usize, tid: libc::pid_t) {
        self.ranks.borrow_mut()[rank].0 = Some(tid);
    }

    /// Give every enrolled rank's MPI thread the cores the simulator had: a wait has lasted
    /// [`FLOAT_AFTER`], so ranks compute.
    pub fn float_all(&self) {
        for (tid, floated) in self.ranks.borrow_mut().iter_mut() {
            if let (Some(tid), false) = (*tid, *floated) {
                *floated = set_affinity(tid, &self.before);
            }
        }
    }

    /// Whether rank `rank` was floated since its last answer (and is to return with this one).
    pub fn take_floated(&self, rank: usize) -> bool {
        std::mem::take(&mut self.ranks.borrow_mut()[rank].1)
    }
}

impl Drop for SharedCore {
    fn drop(&mut self) {
        set_affinity(0, &self.before);
    }
}

#[cfg(test)]
mod tests {
    use super::{affinity, only, set_affinity, SharedCore};

    fn cores(tid: libc::pid_t) -> usize {
        // SAFETY: CPU_COUNT reads a valid set.
        unsafe { libc::CPU_COUNT(&affinity(tid).expect("the thread's cores")) as usize }
    }

    #[test]
    fn a_job_that_outnumbers_the_cores_pins_the_thread_for_its_length_and_floats_ranks() {
        // Threads of their own: the pins must not leak into other tests on this one.
        std::thread::spawn(|| {
            let all = cores(0);
            assert!(SharedCore::for_job(all - 1).is_none(), "{} ranks and the simulator fit {all} cores", all - 1);
            let shared = SharedCore::for_job(all).expect("outnumbered");
            assert_eq!(cores(0), 1);
            // SAFETY: no arguments.
            assert_eq!(unsafe { libc::sched_getcpu() } as usize, shared.cpu());
            // A rank's thread, pinned to the shared core as the rank library pins itself.
            let (tx, rx) = std::sync::mpsc::channel();
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            let cpu = shared.cpu();
            let rank = std::thread::spawn(move || {
                assert!(set_affinity(0, &only(cpu)));
                // SAFETY: no arguments.
                tx.send(unsafe { libc::gettid() }).unwrap();
                done_rx.recv().unwrap();
            });
            let tid = rx.recv().unwrap();
            assert_eq!(cores(tid), 1);
            shared.enrol(0, tid);
            assert!(!shared.take_floated(0));
            shared.float_all();
            assert_eq!(cores(tid), all, "the rank has the simulator's former cores");
            assert!(shared.take_floated(0), "its next answer says so");
            assert!(!shared.take_floated(0), "once");
            done_tx.send(()).unwrap();
            rank.join().unwrap();
            drop(shared);
            assert_eq!(cores(0), all, "the thread's cores come back");
        })
        .join()
        .unwrap();
    }
}
