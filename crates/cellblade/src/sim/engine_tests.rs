//! The engine's tests: order, clocked steps, errors, interrupts, lock-step runs, deadlocks,
//! processes started inside a run.
use super::*;

struct Counter(u64);
impl World for Counter {
    type Event = Pid;
    fn handle(&mut self, pid: Pid, s: &mut Scheduler<Pid>) {
        self.0 += 1;
        s.wake(pid, Ok(self.0));
    }
}

#[test]
fn sleeps_order_by_time_then_sequence() {
    let mut e = Engine::new(Counter(0));
    let log = Rc::new(RefCell::new(Vec::new()));
    for (i, d) in [30u64, 10, 10].into_iter().enumerate() {
        let sh = e.shared();
        let log = log.clone();
        e.spawn(format!("p{i}"), async move {
            sh.sleep(i, Time(d)).await;
            log.borrow_mut().push((i, sh.now().0));
            Ok(())
        });
    }
    e.run().unwrap();
    assert_eq!(*log.borrow(), vec![(1, 10), (2, 10), (0, 30)]);
}

#[test]
fn world_events_wake_processes_with_values() {
    let mut e = Engine::new(Counter(0));
    let sh = e.shared();
    e.spawn("p", async move {
        sh.with(|_, s| s.schedule(Time(5), 0));
        let v = sh.suspend(0).await?;
        assert_eq!(v, 1);
        Ok(())
    });
    e.run().unwrap();
    assert_eq!(e.now(), Time(5));
}

/// A clocked world: steps every 10 ticks from 0 to 50, logging each; events log too and
/// one at 30 wakes the process.
struct Clocked {
    next: Option<Time>,
    log: Vec<(&'static str, u64)>,
}
impl World for Clocked {
    type Event = Pid;
    fn handle(&mut self, pid: Pid, s: &mut Scheduler<Pid>) {
        self.log.push(("event", s.now().0));
        if s.now() == Time(30) {
            s.wake(pid, Ok(0));
        }
    }
    fn next_step(&self) -> Option<Time> {
        self.next
    }
    fn step(&mut self, s: &mut Scheduler<Pid>) -> u64 {
        assert_eq!(Some(s.now()), self.next, "stepped when it did not ask");
        self.log.push(("step", s.now().0));
        self.next = (s.now().0 < 50).then_some(s.now() + Time(10));
        1
    }
}

#[test]
fn clocked_steps_interleave_with_events_in_time_order_events_first() {
    let mut e = Engine::new(Clocked { next: Some(Time(0)), log: Vec::new() });
    let sh = e.shared();
    e.spawn("p", async move {
        sh.with(|_, s| {
            s.schedule(Time(20), 0);
            s.schedule(Time(25), 0);
            s.schedule(Time(30), 0);
        });
        sh.suspend(0).await?;
        // Woken at 30: the steps still due must not have run yet, then run after it sleeps.
        assert_eq!(sh.now(), Time(30));
        sh.sleep(0, Time(5)).await;
        Ok(())
    });
    e.run().unwrap();
    let w = e.shared.world.borrow();
    let want = [("step", 0), ("step", 10), ("event", 20), ("step", 20), ("event", 25), ("event", 30), ("step", 30)];
    assert_eq!(w.log, want, "queued events come before a step at the same time");
    // The run ends when the process does (its wake-up at 35, before the step at 40); the
    // engine counts steps as events.
    assert_eq!(e.now(), Time(35));
    assert_eq!(e.events(), 8);
}

#[test]
fn scheduling_in_the_past_is_an_error_not_a_clamp() {
    let mut e = Engine::new(Counter(0));
    let sh = e.shared();
    e.spawn("p", async move {
        sh.sleep(0, Time(10)).await;
        sh.with(|_, s| s.schedule(Time(3), 0));
        sh.suspend(0).await?;
        Ok(())
    });
    let err = e.run().unwrap_err();
    assert_eq!(err.kind(), crate::error::ErrorKind::Internal);
    assert_eq!(err.to_string(), "a machine event was scheduled in the past: at 0.117 ns, the time being 0.391 ns");
}

#[test]
fn a_delay_past_the_horizon_ends_the_run_with_an_overflow_error() {
    for dt in [Time::HORIZON, Time(u64::MAX)] {
        let mut e = Engine::new(Counter(0));
        let sh = e.shared();
        e.spawn("spe3", async move {
            sh.sleep(0, Time(7)).await;
            sh.sleep(0, dt).await;
            Ok(())
        });
        let err = e.run().unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Program);
        let msg = err.to_string();
        assert_eq!(msg, format!("simulated time overflow: spe3 waits {} ticks from 0.273 ns would end at or past tick 2^62 (about 5.7 years), the end of the simulated time the engine represents", dt.0));
        assert_eq!(e.now(), Time(7), "the run stops where the overflow happened");
    }
    // A wake-up (not a sleep) past the horizon names the process woken.
    let mut e = Engine::new(Counter(0));
    let sh = e.shared();
    e.spawn("ppe", async move {
        sh.with(|_, s| s.wake_at(Time(u64::MAX), 0, 0));
        sh.suspend(0).await?;
        Ok(())
    });
    let msg = e.run().unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!(
            "simulated time overflow: waking ppe at tick {} (from 0.000 ns) would end at or past tick 2^62",
            u64::MAX
        )),
        "{msg}"
    );
}

thread_local! {
    static STOP_AFTER: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Says "stop" on its n-th call on a thread that armed it; never elsewhere (tests run in
/// parallel threads of one process and share the hook).
fn test_hook() -> bool {
    STOP_AFTER.with(|c| match c.get() {
        Some(0) => true,
        Some(n) => {
            c.set(Some(n - 1));
            false
        }
        None => false,
    })
}

/// A world that keeps itself busy forever: a step every tick.
struct Forever;
impl World for Forever {
    type Event = ();
    fn handle(&mut self, _: (), _: &mut Scheduler<()>) {}
    fn next_step(&self) -> Option<Time> {
        Some(Time(0))
    }
    fn step(&mut self, _: &mut Scheduler<()>) -> u64 {
        1
    }
}

#[test]
fn an_interrupt_hook_stops_an_endless_run() {
    interrupt::install(test_hook);
    // Stopped at the start of a run ...
    STOP_AFTER.with(|c| c.set(Some(0)));
    let mut e = Engine::new(Forever);
    let sh = e.shared();
    e.spawn("p", async move { sh.suspend(0).await.map(|_| ()) });
    let err = e.run().unwrap_err();
    assert_eq!(err.kind(), crate::error::ErrorKind::Interrupted);
    assert_eq!(err.to_string(), "interrupted at 0.000 ns after 0 events");
    // ... or within one poll period of events.
    STOP_AFTER.with(|c| c.set(Some(3)));
    let mut e = Engine::new(Forever);
    let sh = e.shared();
    e.spawn("p", async move { sh.suspend(0).await.map(|_| ()) });
    let err = e.run().unwrap_err();
    assert_eq!(err.to_string(), format!("interrupted at 0.000 ns after {} events", 3 * POLL_EVENTS));
    STOP_AFTER.with(|c| c.set(None));
}

#[test]
fn run_until_stops_at_the_limit_and_resumes_on_a_wake_from_outside() {
    let mut e = Engine::new(Counter(0));
    let sh = e.shared();
    e.spawn("p", async move {
        sh.sleep(0, Time(10)).await;
        sh.suspend(0).await?;
        Ok(())
    });
    assert!(!e.run_until(Time(5)).unwrap(), "the sleep ends at 10: not before the limit");
    assert_eq!(e.pending(), Some(Time(10)));
    assert!(!e.run_until(Time(20)).unwrap(), "suspended with nothing pending: paused, not a deadlock");
    assert_eq!((e.now(), e.pending()), (Time(10), None));
    // Another engine wakes it; the run then finishes.
    e.shared().sched.borrow_mut().wake_at(Time(30), 0, 0);
    assert!(!e.run_until(Time(30)).unwrap());
    assert!(e.run_until(Time(31)).unwrap());
    assert_eq!(e.now(), Time(30));
}

#[test]
fn deadlock_names_what_each_process_waits_for() {
    let mut e = Engine::new(Counter(0));
    let sh = e.shared();
    e.spawn("spe3", async move {
        sh.with(|_, s| s.set_waiting(0, || "the inbound mailbox of spe 3".into()));
        sh.suspend(0).await?;
        Ok(())
    });
    let err = e.run().unwrap_err();
    assert_eq!(err.kind(), crate::error::ErrorKind::Deadlock);
    assert!(err.to_string().contains("spe3 waits for the inbound mailbox of spe 3"), "{err}");
}

#[test]
fn a_process_started_inside_the_run_runs_at_its_starters_time() {
    use std::cell::Cell;
    let mut e = Engine::new(Counter(0));
    let sh = e.shared();
    let seen = Rc::new(Cell::new((0u64, 0usize)));
    let (sh2, seen2) = (sh.clone(), seen.clone());
    e.spawn("starter", async move {
        sh2.sleep(0, Time(40)).await;
        let pid = sh2.next_pid();
        let (sh3, seen3) = (sh2.clone(), seen2.clone());
        let got = sh2.spawn("started", async move {
            seen3.set((sh3.now().0, pid));
            sh3.sleep(pid, Time(2)).await;
            Ok(())
        });
        assert_eq!(got, pid);
        Ok(())
    });
    e.run().unwrap();
    assert_eq!(seen.get(), (40, 1));
    assert_eq!(e.now(), Time(42));
}

#[test]
fn a_process_that_ends_the_run_drops_those_still_waiting_at_its_end() {
    let mut e = Engine::new(Counter(0));
    let dropped = Rc::new(RefCell::new(false));
    struct Flag(Rc<RefCell<bool>>);
    impl Drop for Flag {
        fn drop(&mut self) {
            *self.0.borrow_mut() = true;
        }
    }
    let (sh, flag) = (e.shared(), Flag(dropped.clone()));
    e.spawn("waiter", async move {
        let _held = flag;
        sh.suspend(0).await?; // woken by nobody: a deadlock, were the run not ended
        unreachable!("a dropped process never resumes");
    });
    let sh = e.shared();
    e.spawn("ender", async move {
        sh.sleep(1, Time(70)).await;
        sh.with(|_, s| s.schedule(Time(500), 0)); // queued, never handled
        sh.end_run();
        Ok(())
    });
    e.run().unwrap();
    assert_eq!(e.now(), Time(70));
    assert!(*dropped.borrow(), "the waiting process was not dropped");
}
