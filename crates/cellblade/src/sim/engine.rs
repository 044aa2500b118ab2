//! The discrete-event engine: an event queue in integer [`Time`] and a single-threaded executor
//! for processes written as `async` Rust.
//!
//! ```text
//!   process (async fn) --submit--> World (machine model) --schedule--> event queue
//!        ^                                                                 |
//!        +------------- wake(pid, value) <-------- handle(event) <---------+
//! ```
//!
//! A process blocks by awaiting [`Shared::suspend`]; the world wakes it with a value when the
//! simulated operation completes. A world with a clocked part (the bus) also names the time of
//! its next step ([`World::next_step`]), which the loop runs between events, after the events of
//! the same time. Events are ordered by time, then by the order they were scheduled in
//! ([`super::queue`]), and ready processes run in the order they were woken: with no
//! other source of order, the same inputs give bit-identical runs. A process that waits by
//! polling sleeps with [`Shared::poll_sleep`]: its polls are parked beside the queue and the
//! ones that cannot succeed are skipped, with the same results ([`super::polls`]). The engine
//! knows nothing about Cell: the world is any type implementing [`World`].

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::interrupt::{self, POLL_EVENTS};
use super::polls::{self, Parked, Polls, Since};
use super::queue::EventQueue;
use super::time::Time;
use crate::error::{Error, Result};

thread_local! {
    /// Events handled and simulated time reached by the engines of this thread, added as each
    /// one is dropped: what the speed benchmark divides by.
    static FINISHED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Events and simulated ticks of every engine of this thread dropped so far.
pub(crate) fn finished_on_thread() -> (u64, u64) {
    FINISHED.with(Cell::get)
}

/// A process id: the index of the process in spawn order.
pub type Pid = usize;

/// What a blocked process is handed back when it is woken.
pub type Resume = Result<u64>;

/// The model that events act on.
pub trait World {
    type Event;
    fn handle(&mut self, event: Self::Event, sched: &mut Scheduler<Self::Event>);

    /// When the world's clocked part (a bus arbiter that works every cycle while it has work)
    /// next wants [`World::step`]; `None` while it is idle. Stepping it from the loop instead of
    /// through the queue saves an event push and pop per cycle. At equal times, queued events
    /// come first.
    fn next_step(&self) -> Option<Time> {
        None
    }

    /// Run the clocked part at `sched.now()` (the time `next_step` gave); returns how many of its
    /// steps that was (it may run ahead through steps nothing else can change), each counted as
    /// an event.
    fn step(&mut self, _sched: &mut Scheduler<Self::Event>) -> u64 {
        0
    }

    /// How many times the part `key` of the world (an SPE's local store) has been written so
    /// far, for pollers that read only there ([`super::polls`]); `None`: not counted, every
    /// event counts as a write.
    fn writes(&self, _key: usize) -> Option<u64> {
        None
    }
}

enum Action<E> {
    Wake(Pid, u64),
    World(E),
}

struct ProcState {
    name: String,
    resume: Option<Resume>,
    /// What the process waits for, formatted only for a deadlock report: most waits end
    /// normally, and formatting each cost more than the wait itself.
    waiting: Option<Box<dyn Fn() -> String>>,
    done: bool,
    /// Woken from a poll: its run is no activity unless the poll succeeds ([`super::polls`]).
    poll_woken: bool,
}

/// Time, the event queue and the process table; handed to the world on every event.
pub struct Scheduler<E> {
    now: Time,
    /// Items numbered by `seq`, which orders them against the parked polls on equal times.
    queue: EventQueue<(u64, Action<E>)>,
    polls: Polls,
    seq: u64,
    /// Count what could change what a poller reads ([`super::polls`]): process runs, and
    /// those with every event and step.
    runs: u64,
    activity: u64,
    elide: bool,
    ready: VecDeque<Pid>,
    procs: Vec<ProcState>,
    events: u64,
    /// The first error found where it cannot be returned (an event refused inside the world's
    /// handler); the loop returns it at its next poll.
    fault: Option<Error>,
    /// The event count at which the loop next polls for a fault or an interrupt (0: at once).
    next_poll: u64,
    /// Set by [`Shared::end_run`]: the run ends when the process that set it finishes.
    ending: bool,
}

impl<E> Scheduler<E> {
    fn new() -> Self {
        Scheduler {
            now: Time::ZERO,
            queue: EventQueue::new(),
            polls: Polls::default(),
            seq: 0,
            runs: 0,
            activity: 0,
            elide: polls::fast_paths(),
            ready: VecDeque::new(),
            procs: Vec::new(),
            events: 0,
            fault: None,
            next_poll: 0,
            ending: false,
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Events handled so far (world events, timed wake-ups and clocked steps).
    pub fn events(&self) -> u64 {
        self.events
    }

    #[inline]
    fn push(&mut self, time: Time, action: Action<E>) {
        if time < self.now || time >= Time::HORIZON {
            return self.refuse(time, action);
        }
        self.seq += 1;
        self.queue.push(time.0, (self.seq, action));
    }

    /// An event before now or past the horizon is not queued: the run ends with an error (as
    /// nexosim's `SchedulingError::InvalidScheduledTime`), never with the event moved.
    #[cold]
    fn refuse(&mut self, time: Time, action: Action<E>) {
        let what = match action {
            Action::Wake(pid, _) => format!("waking {}", self.procs[pid].name),
            Action::World(_) => "a machine event".to_string(),
        };
        self.fail(if time < self.now {
            Error::Internal(format!("{what} was scheduled in the past: at {time}, the time being {}", self.now))
        } else {
            overflow(&format!("{what} at tick {} (from {})", time.0, self.now))
        });
    }

    /// Record `err` to end the run with at the next poll (the first one recorded wins).
    pub fn fail(&mut self, err: Error) {
        self.fault.get_or_insert(err);
        self.next_poll = 0;
    }

    /// Deliver `event` to the world at `time`: at or after now, before [`Time::HORIZON`].
    pub fn schedule(&mut self, time: Time, event: E) {
        self.push(time, Action::World(event));
    }

    /// Wake process `pid` with `value` at `time`: at or after now, before [`Time::HORIZON`].
    pub fn wake_at(&mut self, time: Time, pid: Pid, value: u64) {
        self.push(time, Action::Wake(pid, value));
    }

    /// Wake process `pid` now with a result.
    pub fn wake(&mut self, pid: Pid, value: Resume) {
        let p = &mut self.procs[pid];
        debug_assert!(p.resume.is_none(), "process {} woken twice", p.name);
        p.resume = Some(value);
        p.waiting = None;
        self.ready.push_back(pid);
    }

    /// Record what `pid` is about to wait for: described if the run deadlocks.
    pub fn set_waiting(&mut self, pid: Pid, what: impl Fn() -> String + 'static) {
        self.procs[pid].waiting = Some(Box::new(what));
    }

    /// What a poller names when it sleeps after a failed read: of `key`, whose writes the
    /// world counts as `writes`, or of everything.
    pub fn since(&self, key: Option<(usize, u64)>) -> Since {
        Since { count: if key.is_some() { self.runs } else { self.activity }, key, runs: true }
    }

    /// `pid`'s poll has succeeded: it now runs its program, which is activity, and waits no more.
    pub fn poll_succeeded(&mut self, pid: Pid) {
        self.runs += 1;
        self.activity += 1;
        self.procs[pid].waiting = None;
    }

    /// The earliest parked poll falls due at `now`: skip it and the polls after it that cannot
    /// succeed, or wake its process with the poll intervals that passed. `step` is the clocked
    /// part's next step, `end` the run's limit.
    fn poll_due<W: World<Event = E>>(&mut self, w: &W, step: Option<Time>, end: u64) {
        let mut p = self.polls.take_head();
        let (runs, activity) = (self.runs, self.activity);
        let fails = |p: &Parked| p.fails(runs, activity, |k| w.writes(k));
        if self.elide && fails(&p) {
            let bound = self.queue.earliest().min(step.map_or(u64::MAX, |t| t.0 + 1)).min(end);
            if bound != u64::MAX {
                // Every poll before the bound fails: all jump together.
                match self.polls.jump_all(p, bound, Time::HORIZON.0, &mut self.seq, fails) {
                    Ok(skipped) => {
                        self.events += skipped;
                        return;
                    }
                    Err(head) => p = head,
                }
            }
            let bound = bound.min(self.polls.head().0);
            if bound != u64::MAX {
                if let Some(skipped) = p.jump(bound, Time::HORIZON.0, self.seq + 1) {
                    self.seq += 1;
                    self.events += skipped;
                    self.polls.push(p);
                    return;
                }
            }
        }
        let proc = &mut self.procs[p.pid];
        proc.resume = Some(Ok(p.n));
        proc.poll_woken = true;
        self.ready.push_back(p.pid);
    }

    pub fn process_name(&self, pid: Pid) -> &str {
        &self.procs[pid].name
    }
}

/// State shared between the executor and the processes: the scheduler and the world.
pub struct Shared<W: World> {
    pub sched: RefCell<Scheduler<W::Event>>,
    pub world: RefCell<W>,
    /// Processes started from inside the run ([`Shared::spawn`]), for the executor to adopt.
    spawned: RefCell<Vec<ProcFuture>>,
}

impl<W: World> Shared<W> {
    /// Borrow the world and scheduler together for a short, non-blocking step.
    pub fn with<R>(&self, f: impl FnOnce(&mut W, &mut Scheduler<W::Event>) -> R) -> R {
        let mut w = self.world.borrow_mut();
        let mut s = self.sched.borrow_mut();
        f(&mut w, &mut s)
    }

    pub fn now(&self) -> Time {
        self.sched.borrow().now
    }

    /// Block the calling process until somebody wakes it; yields the value it was woken with.
    pub fn suspend(&self, pid: Pid) -> Suspend<'_, W> {
        Suspend { shared: self, pid, armed: false }
    }

    /// Sleep for `dt` of simulated time. A delay that would end past [`Time::HORIZON`] ends the
    /// run with an error naming the process and the delay.
    pub async fn sleep(&self, pid: Pid, dt: Time) {
        if dt == Time::ZERO {
            return;
        }
        {
            let mut s = self.sched.borrow_mut();
            let at = s.now + dt;
            if at >= Time::HORIZON {
                let msg = format!("{} waits {} ticks from {}", s.procs[pid].name, dt.0, s.now);
                s.fail(overflow(&msg));
            } else {
                s.set_waiting(pid, || "a timed delay".into());
                s.wake_at(at, pid, 0);
            }
        }
        // A timed wake-up carries no error; after a failure the run ends before any wake-up.
        let _ = self.suspend(pid).await;
    }

    /// Sleep one poll interval `dt` after a failed read made at activity count `since` (`None`:
    /// whatever happens, read again). Returns the intervals that passed: the polls skipped in
    /// between would have read the same and failed ([`super::polls`]), and the caller accounts
    /// for them. Leaves what the process waits for as it was: a poller describes that once.
    pub async fn poll_sleep(&self, pid: Pid, dt: Time, since: Option<Since>) -> u64 {
        {
            let mut s = self.sched.borrow_mut();
            let at = s.now + dt;
            if at >= Time::HORIZON {
                let msg = format!("{} waits {} ticks from {}", s.procs[pid].name, dt.0, s.now);
                s.fail(overflow(&msg));
            } else if s.elide && dt > Time::ZERO {
                s.seq += 1;
                let p = Parked::new(at.0, s.seq, pid, dt.0, since);
                s.polls.push(p);
            } else {
                s.wake_at(at, pid, 1);
            }
        }
        self.suspend(pid).await.unwrap_or(1)
    }

    /// The id the next process started gets.
    pub fn next_pid(&self) -> Pid {
        self.sched.borrow().procs.len()
    }

    /// Start a process from inside the run (an SPE thread that a program's `spe_context_run`
    /// starts, at that call's time): it first runs after the processes ready now.
    pub fn spawn(&self, name: impl Into<String>, fut: impl Future<Output = Result<()>> + 'static) -> Pid {
        let mut s = self.sched.borrow_mut();
        let pid = s.procs.len();
        s.procs.push(ProcState { name: name.into(), resume: None, waiting: None, done: false, poll_woken: false });
        s.ready.push_back(pid);
        self.spawned.borrow_mut().push(Box::pin(fut));
        pid
    }

    /// End the run, without error, when the calling process finishes: the processes still
    /// unfinished then are dropped where they wait, as a program's threads end with its process
    /// (an SDK program's SPE threads when its PPE process exits). The caller finishes next.
    pub fn end_run(&self) {
        self.sched.borrow_mut().ending = true;
    }

    /// End the run with `err` at the engine's next poll; the caller then suspends.
    pub fn fail(&self, err: Error) {
        self.sched.borrow_mut().fail(err);
    }
}

/// The error for an operation (`what`) that would pass the last representable simulated time.
pub fn overflow(what: &str) -> Error {
    debug_assert_eq!(Time::HORIZON.0, 1 << 62);
    Error::Program(format!("simulated time overflow: {what} would end at or past tick 2^62 (about 5.7 years), the end of the simulated time the engine represents"))
}

/// Future returned by [`Shared::suspend`].
pub struct Suspend<'a, W: World> {
    shared: &'a Shared<W>,
    pid: Pid,
    armed: bool,
}

impl<W: World> Future for Suspend<'_, W> {
    type Output = Resume;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Resume> {
        if !self.armed {
            self.armed = true;
            return Poll::Pending;
        }
        let mut s = self.shared.sched.borrow_mut();
        match s.procs[self.pid].resume.take() {
            Some(v) => Poll::Ready(v),
            None => Poll::Pending,
        }
    }
}

type ProcFuture = Pin<Box<dyn Future<Output = Result<()>>>>;

/// The executor: owns the process futures and runs the event loop.
pub struct Engine<W: World> {
    shared: Rc<Shared<W>>,
    futures: Vec<Option<ProcFuture>>,
    running: Cell<usize>,
}

impl<W: World + 'static> Engine<W> {
    pub fn new(world: W) -> Self {
        Engine {
            shared: Rc::new(Shared { sched: RefCell::new(Scheduler::new()), world: RefCell::new(world), spawned: RefCell::default() }),
            futures: Vec::new(),
            running: Cell::new(0),
        }
    }

    pub fn shared(&self) -> Rc<Shared<W>> {
        self.shared.clone()
    }

    /// The next process id that [`Engine::spawn`] will hand out.
    pub fn next_pid(&self) -> Pid {
        self.shared.next_pid()
    }

    /// Add a process; it first runs when [`Engine::run`] starts (or now, if running).
    pub fn spawn(&mut self, name: impl Into<String>, fut: impl Future<Output = Result<()>> + 'static) -> Pid {
        let pid = self.shared.spawn(name, fut);
        self.adopt();
        pid
    }

    /// Take over the futures of the processes started through [`Shared::spawn`]: process `pid`'s
    /// is `futures[pid]`, as both are numbered in the order they were started.
    fn adopt(&mut self) {
        if self.shared.spawned.borrow().is_empty() {
            return;
        }
        let spawned = std::mem::take(&mut *self.shared.spawned.borrow_mut());
        self.running.set(self.running.get() + spawned.len());
        self.futures.extend(spawned.into_iter().map(Some));
    }

    /// Drop every unfinished process ([`Shared::end_run`]); the events still queued stay, but
    /// the run loop returns before handling them, as nothing is left running.
    fn drop_unfinished(&mut self) {
        self.adopt();
        let mut s = self.shared.sched.borrow_mut();
        for (pid, fut) in self.futures.iter_mut().enumerate() {
            if fut.take().is_some() {
                s.procs[pid].done = true;
            }
        }
        s.ready.clear();
        self.running.set(0);
    }

    /// Run until every process has finished. Errors: the first process error, or a deadlock
    /// report naming what each unfinished process waits for.
    pub fn run(&mut self) -> Result<()> {
        self.run_inner(None).map(|_| ())
    }

    /// Run every event before `limit`, then stop: `Ok(true)` when every process has finished,
    /// `Ok(false)` when the rest lies at or after `limit` or waits for a wake-up from outside
    /// (another engine scheduling into this one through [`Engine::shared`]). A lock-step
    /// driver of several engines calls this once per window and judges deadlock itself
    /// ([`Engine::pending`], [`Engine::deadlock_error`]).
    pub fn run_until(&mut self, limit: Time) -> Result<bool> {
        self.run_inner(Some(limit))
    }

    /// The time of the next queued event or clocked step, `None` when nothing is pending.
    pub fn pending(&self) -> Option<Time> {
        let mut s = self.shared.sched.borrow_mut();
        let queued = s.queue.earliest().min(s.polls.head().0);
        drop(s);
        let step = self.shared.world.borrow().next_step().map_or(u64::MAX, |t| t.0);
        let t = queued.min(step);
        (t != u64::MAX).then_some(Time(t))
    }

    fn run_inner(&mut self, limit: Option<Time>) -> Result<bool> {
        let end = limit.map_or(u64::MAX, |t| t.0);
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        // Many short runs in a row (a sweep) must react too: poll before the first event.
        self.shared.sched.borrow_mut().next_poll = 0;
        loop {
            loop {
                self.adopt();
                let next = self.shared.sched.borrow_mut().ready.pop_front();
                let Some(pid) = next else { break };
                let Some(fut) = self.futures[pid].as_mut() else { continue };
                {
                    let mut s = self.shared.sched.borrow_mut();
                    let p = &mut s.procs[pid];
                    if !std::mem::take(&mut p.poll_woken) {
                        s.runs += 1;
                        s.activity += 1;
                    }
                }
                if let Poll::Ready(res) = fut.as_mut().poll(&mut cx) {
                    self.futures[pid] = None;
                    let ending = {
                        let mut s = self.shared.sched.borrow_mut();
                        s.procs[pid].done = true;
                        s.ending
                    };
                    self.running.set(self.running.get() - 1);
                    res?;
                    if ending {
                        self.drop_unfinished();
                    }
                }
            }
            if self.running.get() == 0 {
                return self.shared.sched.borrow_mut().fault.take().map_or(Ok(true), Err);
            }
            // Handle events until one makes a process ready, holding the borrows across them:
            // most events (bus steps) wake nobody.
            let mut s = self.shared.sched.borrow_mut();
            let mut w = self.shared.world.borrow_mut();
            while s.ready.is_empty() {
                if s.events >= s.next_poll {
                    if let Some(err) = s.fault.take() {
                        return Err(err);
                    }
                    if interrupt::requested() {
                        return Err(Error::Interrupted(format!("interrupted at {} after {} events", s.now, s.events)));
                    }
                    s.next_poll = s.events + POLL_EVENTS;
                }
                let queued = s.queue.earliest();
                let (polled, poll_seq) = s.polls.head();
                let step = w.next_step();
                if let Some(at) = step.filter(|at| at.0 < queued.min(polled)) {
                    if at.0 >= end {
                        return Ok(false);
                    }
                    s.now = at;
                    s.activity += 1;
                    s.events += w.step(&mut s);
                    continue;
                }
                if queued.min(polled) >= end && limit.is_some() {
                    return Ok(false);
                }
                if polled < queued || polled == queued && polled != u64::MAX && s.queue.peek().is_some_and(|q| poll_seq < q.0) {
                    s.events += 1;
                    s.now = Time(polled);
                    s.poll_due(&*w, step, end);
                    continue;
                }
                s.activity += 1;
                let Some((time, (_, action))) = s.queue.pop() else {
                    drop((s, w));
                    return Err(self.deadlock_error());
                };
                s.events += 1;
                s.now = Time(time);
                match action {
                    Action::Wake(pid, v) => s.wake(pid, Ok(v)),
                    Action::World(ev) => w.handle(ev, &mut s),
                }
            }
        }
    }

    /// The deadlock report: what each unfinished process waits for.
    pub fn deadlock_error(&self) -> Error {
        let s = self.shared.sched.borrow();
        let stuck: Vec<String> = s
            .procs
            .iter()
            .filter(|p| !p.done)
            .map(|p| format!("{} waits for {}", p.name, p.waiting.as_ref().map_or("an unknown event".into(), |w| w())))
            .collect();
        Error::Deadlock(format!("deadlock at {}: no event is pending and {}", s.now, stuck.join("; ")))
    }

    pub fn now(&self) -> Time {
        self.shared.now()
    }

    pub fn events(&self) -> u64 {
        self.shared.sched.borrow().events
    }
}

impl<W: World> Drop for Engine<W> {
    fn drop(&mut self) {
        let s = self.shared.sched.borrow();
        FINISHED.with(|f| f.set((f.get().0 + s.events, f.get().1 + s.now.0)));
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
