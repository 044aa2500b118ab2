//! Independent runs spread over threads, for the requests that sweep many simulations
//! (`reproduce`'s claim pieces, `calibrate --policies`' family): one implementation of the
//! `jobs` field and of the work queue, so that every sweep counts and orders threads alike.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{field_err, Result};

/// The thread count a request's `jobs` field asks for: every core when left out, at least 1.
pub fn jobs(asked: Option<usize>) -> Result<usize> {
    match asked {
        Some(0) => Err(field_err("jobs", 0, "at least 1")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// `work(i)` for every index of `order` on `jobs` threads (the calling one among them), started
/// in `order`'s order; the results by index, so they do not depend on `jobs`.
pub fn run_each<R: Send>(order: &[usize], jobs: usize, work: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = order.iter().map(|_| Mutex::new(None)).collect();
    let run = || {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let r = work(i);
            *slots[i].lock().expect("a result slot") = Some(r);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..jobs.clamp(1, order.len().max(1)) {
            scope.spawn(run);
        }
        run();
    });
    slots.into_iter().map(|s| s.into_inner().expect("a result slot").expect("every index ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_by_index_whatever_the_order_and_the_thread_count() {
        for jobs in [1, 2, 7] {
            assert_eq!(run_each(&[2, 0, 3, 1], jobs, |i| i * 10), vec![0, 10, 20, 30]);
        }
        assert_eq!(run_each(&[], 3, |i| i), Vec::<usize>::new());
    }

    #[test]
    fn zero_jobs_is_refused_and_none_is_every_core() {
        assert_eq!(jobs(Some(0)).unwrap_err().to_string(), "jobs 0 is not allowed: at least 1");
        assert_eq!(jobs(Some(3)).unwrap(), 3);
        assert!(jobs(None).unwrap() >= 1);
    }
}
