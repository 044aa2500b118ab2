//! One core for the simulator and its rank processes when they outnumber the host's cores (the
//! ranks' side: `libmpi/src/env/share_core.c`).
//!
//! The simulator serves one rank at a time and waits for it, so with sleeping waiters (the
//! only kind that does not starve an outnumbered host: [`super::channel`]) a call's round trip
//! is two hand-overs. Across cores each wakes a sleeping core, some twenty microseconds on a
//! virtual machine; on one core each is a switch of a few. So the simulator pins its thread to
//! the core it runs on for the job, does not spin there (a spin on the shared core only keeps
//! the rank it waits for off it), and names the core in the answer to `MPI_Init`
//! ([`super::wire::FLAG_SHARE_CORE`]); a rank's MPI thread waits on it and leaves it while it
//! computes for long. Where the ranks and the simulator fit the cores, each has its own and
//! both sides spin. Placement changes wall time, never a simulated result.

/// The simulator thread's placement for one job, restored when dropped.
pub struct SharedCore {
    cpu: usize,
    before: libc::cpu_set_t,
}

impl SharedCore {
    /// Pin the calling thread to the core it runs on when `ranks` rank processes and it
    /// outnumber the cores it may run on; `None` when they fit, or when the host will not say
    /// or do it (then each side keeps the cores it had, which costs only speed).
    pub fn for_job(ranks: usize) -> Option<SharedCore> {
        // SAFETY: a zeroed cpu_set_t is the empty set; the calls get its size and a valid pointer.
        unsafe {
            let mut before: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut before) != 0 {
                return None;
            }
            if ranks < libc::CPU_COUNT(&before) as usize {
                return None;
            }
            let cpu = usize::try_from(libc::sched_getcpu()).ok()?;
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut one);
            (libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) == 0).then_some(SharedCore { cpu, before })
        }
    }

    /// The shared core's number, as the ranks are told it.
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for SharedCore {
    fn drop(&mut self) {
        // SAFETY: `before` is the set read from this thread in `for_job`.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.before) };
    }
}

#[cfg(test)]
mod tests {
    use super::SharedCore;

    fn cores() -> usize {
        // SAFETY: as in `for_job`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
            libc::CPU_COUNT(&set) as usize
        }
    }

    #[test]
    fn a_job_that_outnumbers_the_cores_pins_the_thread_for_its_length_only() {
        // A thread of its own: the pin must not leak into other tests on this one.
        std::thread::spawn(|| {
            let all = cores();
            assert!(SharedCore::for_job(all - 1).is_none(), "{} ranks and the simulator fit {all} cores", all - 1);
            let shared = SharedCore::for_job(all).expect("outnumbered");
            assert_eq!(cores(), 1);
            // SAFETY: no arguments.
            assert_eq!(unsafe { libc::sched_getcpu() } as usize, shared.cpu());
            drop(shared);
            assert_eq!(cores(), all, "the thread's cores come back");
        })
        .join()
        .unwrap();
    }
}
