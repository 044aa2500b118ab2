//! `mpirun --coll`: MPI collectives on the collective library's schedules (seed 000) instead of
//! the seed's own (seed 004 §3.4, built on send and receive), per call family.
//!
//! - `seed` (the default): every family takes the seed's path.
//! - `library`: each family runs [`LIBRARY_DEFAULTS`]'s algorithm.
//! - `auto`: each call runs the model's cheapest algorithm for its size (`model/auto.rs`), the
//!   model's parameters measured on the job's machine once, at the start.
//! - `OP=ALGO[,OP=ALGO...]`: per family; ALGO is `seed`, `library`, `auto` or an algorithm of
//!   that operation, by its registry name or the part after the dot.
//!
//! What runs the library (the rest takes the seed's path, so every program still runs):
//! - MPI_COMM_WORLD and communicators with its ranks in its order (its duplicates): the library's
//!   notification arrays are indexed by rank, the same on every SPE (the C side decides);
//! - reductions of MPI_INT, MPI_FLOAT, MPI_DOUBLE (the library's int32, float32, float64) with
//!   MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX; broadcasts and all-gathers of any datatype (bytes);
//! - a schedule whose buffer fits [`BUFFER_BYTES`].
//!
//! Only local-store notifications are offered: MPI's point-to-point owns signal register 1
//! (the receiver's acknowledgement) and the start of XDRAM0 (the boot structures), which the
//! library's signal and atomic notifications would use.
//!
//! A call moves the rank's data from its message buffer into the library's local-store buffer
//! by DMA, runs the lowered schedule, and moves the result back: the simulated time includes
//! both moves, as an MPI over the library on the Cell would pay them.
//!
//! Deadlocks: every rank's library tells the job's tracker each notification it sends and the
//! one it polls for (`Watcher`), so a call that can never complete (a peer waiting in a
//! point-to-point call, finalized, or in a different collective) ends in the tracker's report,
//! found by the library's own polling when no point-to-point poller is left.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::coll::algorithms::{self, Algorithm};
use crate::coll::data::{Dtype, ReduceOp};
use crate::coll::lower::{self, Costs, Layout};
use crate::coll::schedule::{Op, Schedule, Via};
use crate::error::{field_err, program_err, Error, Result};
use crate::machine::config::MachineFile;
use crate::model::auto;
use crate::model::measure::{measure, MeasureRequest};
use crate::model::params::ModelParams;

use super::transfer::pieces;
use super::wire::{self, Answer, Order};
use super::{Rank, MAX_RANKS};

/// `--coll` when a request names none: the seed's collectives.
pub const DEFAULT_COLL: &str = "seed";
/// The MPI call families `--coll` selects for, in the order of [`Op::ALL`].
pub const FAMILIES: [&str; 5] = ["barrier", "bcast", "reduce", "allreduce", "allgather"];
/// The algorithm `library` runs per family: the seed 000 algorithm that works on any number of
/// SPEs with local-store notifications and does best there at small sizes (recursive doubling
/// for the barrier and the all-reduce, the optimised binomial tree for broadcast and reduce,
/// Bruck for the all-gather, which takes any SPE count where recursive doubling needs a power
/// of two).
pub const LIBRARY_DEFAULTS: [&str; 5] = ["barrier.rdb", "broadcast.binomial_opt", "reduce.binomial", "allreduce.rdb", "allgather.bruck"];
/// The largest working buffer the library takes (a schedule's, padded): larger calls take the
/// seed's path. Two of them (the buffer and the reductions' scratch) and the notification
/// arrays sit at the top of every rank's local store.
pub const BUFFER_BYTES: u32 = 32 * 1024;
/// Local store the library keeps at the top of every rank's when any family uses it.
pub const AREA_BYTES: u32 = 2 * BUFFER_BYTES + 4 * 16 * MAX_RANKS as u32;
/// DMA tag group of the moves between the message buffers and the library's buffer.
const MOVE_TAG: u32 = 30;

/// What one family runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    Seed,
    Auto,
    Algorithm(&'static str),
}

/// Which path each family takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollChoice {
    pub picks: [Pick; 5],
}

/// What `--coll` allows, in words.
pub fn coll_words() -> String {
    format!(
        "seed, library, auto, or OP=ALGO[,OP=ALGO...] with OP one of {} and ALGO seed, library, auto or an algorithm of OP",
        FAMILIES.join(", ")
    )
}

/// The algorithms of `op` an MPI job of `ranks` ranks may name: those that take the SPE count
/// and notify through the local store only.
pub fn usable(op: Op, ranks: usize) -> Vec<&'static str> {
    algorithms::REGISTRY.iter().filter(|a| a.op == op && refusal(a, ranks).is_none()).map(|a| a.name).collect()
}

/// Why `alg` cannot serve a job of `ranks` ranks, if it cannot.
fn refusal(alg: &Algorithm, ranks: usize) -> Option<String> {
    match alg.schedule(ranks, 0, 16) {
        Err(e) => Some(e.message().to_string()),
        Ok(s) if !local_store_only(&s) => {
            Some(format!("{} notifies through signals, mailboxes or atomics, which MPI's point-to-point uses", alg.name))
        }
        Ok(_) => None,
    }
}

fn local_store_only(s: &Schedule) -> bool {
    [Via::Mailbox, Via::Signal, Via::Atomic].iter().all(|&v| !s.uses(v))
}

impl CollChoice {
    /// Every family on the seed's path.
    pub fn seed() -> CollChoice {
        CollChoice { picks: std::array::from_fn(|_| Pick::Seed) }
    }

    /// Read `--coll` for a job of `ranks` ranks; errors name the field `coll`.
    pub fn parse(text: &str, ranks: usize) -> Result<CollChoice> {
        let whole = |pick: fn(usize) -> Pick| CollChoice { picks: std::array::from_fn(pick) };
        match text {
            "seed" => return Ok(Self::seed()),
            "library" => return Ok(whole(|f| Pick::Algorithm(LIBRARY_DEFAULTS[f]))),
            "auto" => return Ok(whole(|_| Pick::Auto)),
            _ => {}
        }
        let mut c = Self::seed();
        for part in text.split(',') {
            let Some((fam, algo)) = part.split_once('=') else {
                return Err(field_err("coll", format!("'{text}'"), format!("one of {}", coll_words())));
            };
            let f = FAMILIES.iter().position(|&n| n == fam).or((fam == "broadcast").then_some(1)).ok_or_else(|| {
                field_err("coll", format!("'{text}'"), format!("operation '{fam}' is unknown: allowed {}", FAMILIES.join(", ")))
            })?;
            c.picks[f] = Self::pick(text, f, algo, ranks)?;
        }
        Ok(c)
    }

    fn pick(text: &str, f: usize, algo: &str, ranks: usize) -> Result<Pick> {
        let op = Op::ALL[f];
        match algo {
            "seed" => return Ok(Pick::Seed),
            "library" => return Ok(Pick::Algorithm(LIBRARY_DEFAULTS[f])),
            "auto" => return Ok(Pick::Auto),
            _ => {}
        }
        let full = if algo.contains('.') { algo.to_string() } else { format!("{}.{algo}", op.name()) };
        let Some(alg) = algorithms::REGISTRY.iter().find(|a| a.op == op && a.name == full) else {
            return Err(field_err(
                "coll",
                format!("'{text}'"),
                format!("{} has no algorithm '{algo}': allowed seed, library, auto, {}", FAMILIES[f], usable(op, ranks).join(", ")),
            ));
        };
        if let Some(why) = refusal(alg, ranks) {
            return Err(field_err(
                "coll",
                format!("'{text}'"),
                format!("{why} (on {ranks} ranks: allowed seed, library, auto, {})", usable(op, ranks).join(", ")),
            ));
        }
        Ok(Pick::Algorithm(alg.name))
    }

    /// Whether any family uses the library (its local-store area is reserved then).
    pub fn uses_library(&self) -> bool {
        self.picks.iter().any(|p| *p != Pick::Seed)
    }

    /// Bit f set: family f may run the library (the C side asks the rest nothing).
    pub fn mask(&self) -> i32 {
        self.picks.iter().enumerate().filter(|(_, p)| **p != Pick::Seed).map(|(f, _)| 1 << f).sum()
    }
}

/// What every rank of a job shares: the choice, and the model's parameters when a family is
/// `auto`.
pub struct Shared {
    choice: CollChoice,
    params: Option<ModelParams>,
    agree: RefCell<Agreement>,
}

impl Shared {
    pub fn new(file: &MachineFile, choice: CollChoice) -> Result<Rc<Shared>> {
        Shared::with_params(file, choice, None)
    }

    /// As [`Shared::new`], with `auto`'s parameters given (measured here when `None`).
    pub fn with_params(file: &MachineFile, choice: CollChoice, given: Option<ModelParams>) -> Result<Rc<Shared>> {
        let params = match given {
            _ if !choice.picks.contains(&Pick::Auto) => None,
            Some(p) => Some(p),
            None => Some(measure(file, &MeasureRequest::default())?),
        };
        Ok(Rc::new(Shared { choice, params, agree: RefCell::default() }))
    }
}

/// What the ranks' library calls must agree on: the k-th is the same call on every rank. A
/// rank whose k-th call differs from the first rank's never runs it (two different schedules
/// would read each other's notifications): it waits, and the deadlock tracker reports the job
/// once nobody can move.
#[derive(Default)]
struct Agreement {
    /// Library calls each rank has entered.
    entered: Vec<usize>,
    /// Call k's description, the first rank to enter it, and how many ranks have.
    open: HashMap<usize, (String, usize, usize)>,
}

impl Agreement {
    /// Rank `me` enters its next library call `what`: its number k (from 0) and, when another
    /// rank entered a different call as its k-th, that rank and its call.
    fn enter(&mut self, me: usize, p: usize, what: &str) -> (usize, Option<(usize, String)>) {
        if self.entered.is_empty() {
            self.entered = vec![0; p];
        }
        let k = self.entered[me];
        self.entered[me] += 1;
        let first = self.open.entry(k).or_insert_with(|| (what.to_string(), me, 0));
        let differs = (first.0 != what).then(|| (first.1, first.0.clone()));
        first.2 += 1;
        if first.2 == p {
            self.open.remove(&k);
        }
        (k, differs)
    }
}

/// Tells a rank's deadlock tracker of its library notifications, and reports a deadlock from
/// inside the library's polling (no point-to-point poller may be left to notice it). While the
/// rank has nonblocking requests pending, it waits for the library's notifications itself,
/// running a pass of MPI's progress engine between polls, as an MPI library's collectives do:
/// another rank's send to a receive posted before the collective must get through.
struct Watcher {
    rank: Rc<Rank>,
}

impl lower::Watch for Watcher {
    fn notified(&self, from: usize, to: usize, kind: usize, n: u32) {
        self.rank.tracker.notified(from, to, kind, n);
    }

    fn waiting(&self, me: usize, peer: usize, kind: usize, want: u32) -> Result<()> {
        let tracker = &self.rank.tracker;
        tracker.coll_wait(me, peer, kind, want);
        if tracker.stuck() {
            return Err(tracker.deadlock(self.rank.spu().now()));
        }
        Ok(())
    }

    fn resumed(&self, me: usize) {
        self.rank.tracker.running(me);
    }

    fn wait_for(&self, me: usize, peer: usize, kind: usize, want: u32, entry: u32) -> Option<lower::WaitFuture<'_>> {
        let r = &self.rank;
        let arrived = move || (r.spu().ls_read_u32(entry).expect("the library's entries lie inside the local store") >= want).then_some(());
        r.has_requests().then(|| Box::pin(r.until_else(arrived, move || self.waiting(me, peer, kind, want))) as lower::WaitFuture<'_>)
    }
}

/// One collective call as the rank library sends it (`wire::OP_COLL`).
struct Call {
    family: usize,
    root: usize,
    /// 0: bytes (broadcast, all-gather); 1-3: int32, float32, float64.
    dtype: Option<Dtype>,
    rop: Option<ReduceOp>,
    /// Bytes of one rank's message.
    size: u32,
    data: Vec<u8>,
}

const DTYPES: [Dtype; 3] = [Dtype::Int32, Dtype::Float32, Dtype::Float64];
const ROPS: [ReduceOp; 4] = [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max, ReduceOp::Prod];

impl Call {
    /// "MPI_Bcast from root 2 of 8 bytes", for the agreement check.
    fn describe(&self) -> String {
        let name = ["MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Allgather"][self.family];
        match Op::ALL[self.family] {
            Op::Barrier => name.into(),
            Op::Broadcast => format!("{name} from root {} of {} bytes", self.root, self.size),
            Op::Reduce => format!("{name} to root {} of {} bytes", self.root, self.size),
            _ => format!("{name} of {} bytes", self.size),
        }
    }

    /// Payload: u32 dtype, u32 operation, u64 size (in the rank's byte order), then the rank's contribution.
    fn decode(rank: usize, size: usize, family: i32, root: i32, payload: &[u8], order: Order) -> Result<Call> {
        let bad = |what: String| {
            Error::Internal(format!("rank {rank}: a collective request {what}: the rank library and the simulator disagree"))
        };
        if payload.len() < 16 {
            return Err(bad(format!("of {} bytes", payload.len())));
        }
        let word = |at: usize| order.u32(&payload[at..]);
        let family = usize::try_from(family).ok().filter(|&f| f < FAMILIES.len()).ok_or_else(|| bad(format!("for family {family}")))?;
        let root = usize::try_from(root).ok().filter(|&r| r < size).ok_or_else(|| bad(format!("with root {root}")))?;
        let (d, o) = (word(0) as usize, word(4) as usize);
        let dtype = match d {
            0 => None,
            _ => Some(*DTYPES.get(d - 1).ok_or_else(|| bad(format!("with datatype {d}")))?),
        };
        let rop = match o {
            0 => None,
            _ => Some(*ROPS.get(o - 1).ok_or_else(|| bad(format!("with operation {o}")))?),
        };
        let size = order.u64(&payload[8..]);
        let size = u32::try_from(size).map_err(|_| bad(format!("of {size} bytes a rank")))?;
        Ok(Call { family, root, dtype, rop, size, data: payload[16..].to_vec() })
    }
}

/// One rank's side of the library: its notification state across calls.
pub struct Library {
    shared: Rc<Shared>,
    state: Option<lower::Rank>,
}

impl Library {
    /// Reserve the library's local-store area on rank `r` if the job uses the library; call
    /// before the rank allocates any message buffer.
    pub fn new(r: &Rc<Rank>, shared: Rc<Shared>) -> Result<Library> {
        let state = if shared.choice.uses_library() {
            let base = r.reserve_ls_top(AREA_BYTES)?;
            let arrays = base + 2 * BUFFER_BYTES;
            let layout =
                Layout { buf: base, tmp: base + BUFFER_BYTES, addr: arrays, ack: arrays + 256, out: arrays + 512, line: arrays + 512 };
            let costs = r.spu().with_machine(|m| Costs::of(&m.file, Dtype::Int32));
            let mut state = lower::Rank::new(r.spu().clone(), r.rank(), r.spes().to_vec(), layout, Dtype::Int32, ReduceOp::Sum, costs, 0);
            state.watch = Some(Rc::new(Watcher { rank: r.clone() }));
            Some(state)
        } else {
            None
        };
        Ok(Library { shared, state })
    }

    /// Rank `r` waits for ever in `what`, a library call that another rank entered as a
    /// different one; the error is the deadlock, once every rank is stuck.
    async fn refused(r: &Rank, what: String) -> Error {
        let (me, t) = (r.rank(), &r.tracker);
        let poll = r.spu().with_machine(|m| m.p.poll);
        t.enter(me, what);
        loop {
            t.coll_refused(me);
            if t.stuck() {
                return t.deadlock(r.spu().now());
            }
            r.sleep(poll).await;
        }
    }

    /// The schedule family `f` runs for this call, or None for the seed's path.
    fn schedule(&self, r: &Rank, call: &Call) -> Result<Option<Schedule>> {
        let op = Op::ALL[call.family];
        let p = r.size();
        let reduces = matches!(op, Op::Reduce | Op::Allreduce);
        if reduces && (call.dtype.is_none() || call.rop.is_none()) || op != Op::Barrier && call.size == 0 {
            return Ok(None);
        }
        let name = match &self.shared.choice.picks[call.family] {
            Pick::Seed => return Ok(None),
            Pick::Algorithm(name) => name.to_string(),
            Pick::Auto => {
                let params = self.shared.params.as_ref().expect("auto measures the model's parameters");
                let dtype = Dtype::NAMES[DTYPES.iter().position(|&d| Some(d) == call.dtype).unwrap_or(0)];
                match auto::choose(params, op, r.spes(), call.root, call.size, dtype, r.spu().with_machine(|m| m.p.ls_bytes)) {
                    Ok(c) => c.algorithm,
                    Err(_) => return Ok(None),
                }
            }
        };
        let Ok(s) = algorithms::find(&name)?.schedule(p, call.root, call.size) else { return Ok(None) };
        Ok((local_store_only(&s) && s.buffer.max(16) <= BUFFER_BYTES).then_some(s))
    }

    /// Serve one `OP_COLL` request of rank `r`: `a` = family (or the query), `b` = root;
    /// `order`: the rank's byte order, of its payload's header and of the elements it reduces.
    /// `bufs(send, receive)` gives the rank's message buffers of at least those sizes.
    pub async fn serve(
        &mut self,
        r: &Rank,
        a: i32,
        b: i32,
        payload: &[u8],
        order: Order,
        bufs: impl FnOnce(u64, u64) -> Result<(u64, u64)>,
    ) -> Result<(Answer, Vec<u8>)> {
        if a == wire::COLL_QUERY {
            return Ok((Answer { source: self.shared.choice.mask(), ..Answer::default() }, Vec::new()));
        }
        let call = Call::decode(r.rank(), r.size(), a, b, payload, order)?;
        let what = call.describe();
        let (k, differs) = self.shared.agree.borrow_mut().enter(r.rank(), r.size(), &what);
        if let Some((first, theirs)) = differs {
            return Err(Self::refused(r, format!("{what} (its library collective {}, where rank {first} called {theirs})", k + 1)).await);
        }
        let Some(s) = self.schedule(r, &call)? else {
            return Ok((Answer { err: wire::COLL_SEED, ..Answer::default() }, Vec::new()));
        };
        r.tracker.enter(r.rank(), format!("{what} (library {})", s.algorithm));
        let state = self.state.as_mut().expect("a family on the library reserves its area");
        let (me, p) = (r.rank(), r.size());
        let padded = s.size;
        let (sea, rea) = bufs(u64::from(padded), u64::from(s.buffer.max(16)))?;
        let dtype = call.dtype.unwrap_or(Dtype::Int32);
        state.dtype = dtype;
        state.rop = call.rop.unwrap_or(ReduceOp::Sum);
        state.costs.reduce_cycles = r.spu().with_machine(|m| dtype.reduce_cycles_per_quadword(&m.p));
        let op = s.op;
        let gives = match op {
            Op::Barrier => false,
            Op::Broadcast => me == call.root,
            _ => true,
        };
        if gives {
            if call.data.len() != call.size as usize {
                return Err(program_err(format!("rank {me}: a collective of {} bytes sent {} bytes", call.size, call.data.len())));
            }
            let mut data = call.data.clone();
            if call.dtype.is_some() {
                to_local_store(dtype, &mut data, order);
            }
            r.write(sea, &data)?;
            let at = if op == Op::Allgather { me as u32 * padded } else { 0 };
            dma(r, sea, state.layout.buf + at, call.size, false).await?;
        }
        state.run(&s).await?;
        let takes = match op {
            Op::Barrier => 0,
            Op::Reduce if me != call.root => 0,
            Op::Allgather => p as u32 * padded,
            _ => call.size,
        };
        if takes == 0 {
            return Ok((Answer::default(), Vec::new()));
        }
        dma(r, rea, state.layout.buf, takes, true).await?;
        let mut out = r.read(rea, takes)?;
        if op == Op::Allgather {
            out = out.chunks(padded as usize).flat_map(|b| b[..call.size as usize].to_vec()).collect();
        } else if call.dtype.is_some() {
            to_local_store(dtype, &mut out, order);
        }
        Ok((Answer { count: out.len() as u64, ..Answer::default() }, out))
    }
}

/// The rank's byte order to the local store's big-endian order and back (the same swap): none
/// for a big-endian rank (a PowerPC program under qemu-user).
fn to_local_store(dtype: Dtype, data: &mut [u8], order: Order) {
    if !order.is_big_endian() {
        for e in data.chunks_exact_mut(dtype.bytes() as usize) {
            e.reverse();
        }
    }
}

/// Move `len` bytes between the message buffer at `ea` and the library's buffer at local-store
/// offset `lsa` (both 16-byte aligned): a put with `out`, else a get.
async fn dma(r: &Rank, ea: u64, lsa: u32, len: u32, out: bool) -> Result<()> {
    let spu = r.spu();
    let max = spu.with_machine(|m| m.p.max_dma_bytes);
    for (at, n) in pieces(len, max) {
        if out {
            spu.mfc_put(lsa + at, ea + u64::from(at), n, MOVE_TAG).await?;
        } else {
            spu.mfc_get(lsa + at, ea + u64::from(at), n, MOVE_TAG).await?;
        }
    }
    spu.mfc_write_tag_mask(1 << MOVE_TAG);
    spu.mfc_read_tag_status_all().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coll_parses_whole_choices_and_per_family_ones() {
        assert_eq!(CollChoice::parse("seed", 8).unwrap(), CollChoice::seed());
        let lib = CollChoice::parse("library", 6).unwrap();
        assert_eq!(lib.picks[1], Pick::Algorithm("broadcast.binomial_opt"));
        assert_eq!(lib.mask(), 0b11111);
        let c = CollChoice::parse("bcast=cml,allreduce=auto,barrier=seed", 8).unwrap();
        assert_eq!(c.picks, [Pick::Seed, Pick::Algorithm("broadcast.cml"), Pick::Seed, Pick::Auto, Pick::Seed]);
        assert_eq!(c.mask(), 0b1010);
        assert!(!CollChoice::seed().uses_library());
        // Every default serves every rank count.
        for ranks in 1..=MAX_RANKS {
            for (f, name) in LIBRARY_DEFAULTS.iter().enumerate() {
                assert!(usable(Op::ALL[f], ranks).contains(name), "{name} on {ranks}");
            }
        }
    }

    #[test]
    fn coll_errors_name_the_field_and_what_is_allowed() {
        let e = CollChoice::parse("fast", 8).unwrap_err();
        assert_eq!(e.field(), Some("coll"));
        assert_eq!(e.message(), format!("coll 'fast' is not allowed: one of {}", coll_words()));
        let e = CollChoice::parse("scan=rdb", 8).unwrap_err();
        assert_eq!(
            e.message(),
            "coll 'scan=rdb' is not allowed: operation 'scan' is unknown: allowed barrier, bcast, reduce, allreduce, allgather"
        );
        let e = CollChoice::parse("bcast=rdb", 8).unwrap_err();
        assert!(
            e.message()
                .starts_with("coll 'bcast=rdb' is not allowed: bcast has no algorithm 'rdb': allowed seed, library, auto, broadcast.cml"),
            "{}",
            e.message()
        );
        let e = CollChoice::parse("allgather=rdb", 6).unwrap_err();
        assert!(e.message().contains("allgather.rdb needs a power-of-two number of SPEs, got 6 (on 6 ranks: allowed"), "{}", e.message());
        let e = CollChoice::parse("barrier=ota_signal", 8).unwrap_err();
        assert!(e.message().contains("barrier.ota_signal notifies through signals, mailboxes or atomics"), "{}", e.message());
    }

    /// Run `calls(rank)` on a 4-rank job with `coll`: each call is (family, root, dtype, rop,
    /// size, contribution); returns every rank's answers (err, bytes).
    /// (family, root, dtype, operation, size, contribution).
    type TestCall = (i32, i32, u32, u32, u64, Vec<u8>);
    /// Each rank's answers: (err, bytes).
    type Answers = Vec<Vec<(i32, Vec<u8>)>>;

    fn job(coll: &str, calls: fn(usize) -> Vec<TestCall>) -> Answers {
        use crate::machine::config;
        use crate::mpi::{Mode, MpiWorld};
        let file = config::load(config::preset_text("qs20").unwrap(), &[]).unwrap();
        let shared = Shared::new(&file, CollChoice::parse(coll, 4).unwrap()).unwrap();
        let mut w = MpiWorld::new(file, 4, None, Mode::Memory).unwrap();
        let got: Rc<RefCell<Answers>> = Rc::new(RefCell::new(vec![Vec::new(); 4]));
        for rank in 0..4 {
            let (shared, got) = (shared.clone(), got.clone());
            w.rank(rank, move |r| async move {
                let mut lib = Library::new(&r, shared)?;
                for (family, root, dtype, rop, size, data) in calls(rank) {
                    let mut payload = [dtype.to_ne_bytes(), rop.to_ne_bytes()].concat();
                    payload.extend_from_slice(&size.to_ne_bytes());
                    payload.extend_from_slice(&data);
                    let (a, out) = lib.serve(&r, family, root, &payload, Order::HOST, |s, rc| Ok((r.alloc(s)?, r.alloc(rc)?))).await?;
                    got.borrow_mut()[rank].push((a.err, out));
                }
                Ok(())
            })
            .unwrap();
        }
        w.run().unwrap();
        Rc::try_unwrap(got).unwrap().into_inner()
    }

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn the_library_moves_real_bytes_in_host_order() {
        let got = job("library", |rank| {
            let r = rank as i32;
            vec![
                (3, 0, 1, 1, 12, ints(&[r + 1, 10 * r, -r])),
                (1, 2, 0, 0, 5, if rank == 2 { b"hello".to_vec() } else { Vec::new() }),
                (4, 0, 0, 0, 3, vec![rank as u8; 3]),
                (2, 1, 3, 3, 8, (r as f64 * 0.5).to_ne_bytes().to_vec()),
                (0, 0, 0, 0, 0, Vec::new()),
            ]
        });
        for (rank, answers) in got.iter().enumerate() {
            assert_eq!(answers[0], (0, ints(&[10, 60, -6])), "allreduce sum on rank {rank}");
            assert_eq!(answers[1], (0, b"hello".to_vec()), "bcast on rank {rank}");
            assert_eq!(answers[2], (0, vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]), "allgather on rank {rank}");
            let want = if rank == 1 { 1.5f64.to_ne_bytes().to_vec() } else { Vec::new() };
            assert_eq!(answers[3], (0, want), "reduce max to rank 1, on rank {rank}");
            assert_eq!(answers[4], (0, Vec::new()), "barrier on rank {rank}");
        }
    }

    #[test]
    fn what_the_library_does_not_take_goes_to_the_seeds_path() {
        // A family left on seed, a reduction without a library element type, an empty message,
        // a buffer past BUFFER_BYTES.
        let got = job("bcast=seed,allreduce=library,allgather=library", |_| {
            vec![(1, 0, 0, 0, 4, vec![1; 4]), (3, 0, 0, 0, 4, vec![1; 4]), (4, 0, 0, 0, 0, Vec::new()), (4, 0, 0, 0, 16384, vec![7; 16384])]
        });
        for answers in got {
            assert!(answers.iter().all(|a| *a == (wire::COLL_SEED, Vec::new())), "{:?}", answers.iter().map(|a| a.0).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_area_fits_under_the_largest_reservation() {
        let ls = 262144;
        assert!(super::super::layout::reserved_ls(super::super::MAX_DEPTH) + AREA_BYTES <= ls);
        assert_eq!((ls - AREA_BYTES) % 128, 0);
    }

    type Program = fn(usize, Rc<Rank>, Library) -> Boxed;

    type Boxed = std::pin::Pin<Box<dyn std::future::Future<Output = Result<()>>>>;

    fn config_file() -> MachineFile {
        use crate::machine::config;
        config::load(config::preset_text("qs20").unwrap(), &[]).unwrap()
    }

    /// Run `program(rank, r)` on every rank of a `ranks`-rank job.
    fn run_ranks(ranks: usize, program: impl Fn(usize, Rc<Rank>) -> Boxed + Clone + 'static) -> Result<()> {
        use crate::mpi::{Mode, MpiWorld};
        let mut w = MpiWorld::new(config_file(), ranks, None, Mode::Memory).unwrap();
        for rank in 0..ranks {
            let program = program.clone();
            w.rank(rank, move |r| program(rank, r)).unwrap();
        }
        w.run().map(|_| ())
    }

    /// Run `program(rank, r, library)` on every rank of a `ranks`-rank job with `coll`.
    fn run_job(coll: &str, ranks: usize, program: Program) -> Result<()> {
        let shared = Shared::new(&config_file(), CollChoice::parse(coll, ranks).unwrap()).unwrap();
        run_ranks(ranks, move |rank, r| {
            let shared = shared.clone();
            Box::pin(async move {
                let lib = Library::new(&r, shared)?;
                program(rank, r, lib).await
            })
        })
    }

    /// One collective call: (family, root, dtype, operation) as the wire has them.
    async fn call(lib: &mut Library, r: &Rank, how: [i32; 4], size: u64, data: &[u8]) -> Result<Vec<u8>> {
        let mut payload = [(how[2] as u32).to_ne_bytes(), (how[3] as u32).to_ne_bytes()].concat();
        payload.extend_from_slice(&size.to_ne_bytes());
        payload.extend_from_slice(data);
        let (_, out) = lib.serve(r, how[0], how[1], &payload, Order::HOST, |s, rc| Ok((r.alloc(s)?, r.alloc(rc)?))).await?;
        Ok(out)
    }

    const BARRIER: [i32; 4] = [0, 0, 0, 0];
    const BCAST: [i32; 4] = [1, 0, 0, 0];
    const ALLREDUCE_SUM_INT: [i32; 4] = [3, 0, 1, 1];

    /// The deadlock's report, without its time.
    fn deadlock(result: Result<()>) -> String {
        let e = result.unwrap_err();
        assert!(matches!(e, Error::Deadlock(_)), "{e:?}");
        let m = e.message();
        let (at, report) = m.split_once(" ns: ").expect("deadlock at T ns: report");
        assert!(at.starts_with("deadlock at "), "{m}");
        report.to_string()
    }

    #[test]
    fn a_library_collective_waiting_for_a_point_to_point_call_is_a_deadlock() {
        // Rank 1 polls for a message rank 0 sends only after the barrier.
        let recv = run_job("library", 2, |rank, r, mut lib| {
            Box::pin(async move {
                let buf = r.alloc(16)?;
                if rank == 1 {
                    r.recv(buf, 4, 0, 7, 0).await?;
                }
                call(&mut lib, &r, BARRIER, 0, &[]).await?;
                if rank == 0 {
                    r.send(buf, 4, 1, 7, 0).await?;
                }
                Ok(())
            })
        });
        assert_eq!(deadlock(recv), "rank 0 waits in MPI_Barrier (library barrier.rdb); rank 1 waits in MPI_Recv from 0, tag 7");
        // Rank 1 waits for its signal (no poller of its own): rank 0's library polling finds it.
        let send = run_job("library", 3, |rank, r, mut lib| {
            Box::pin(async move {
                let buf = r.alloc(16)?;
                if rank == 1 {
                    r.send(buf, 4, 0, 7, 0).await?;
                }
                call(&mut lib, &r, BARRIER, 0, &[]).await?;
                if rank == 0 {
                    r.recv(buf, 4, 1, 7, 0).await?;
                }
                Ok(())
            })
        });
        assert_eq!(
            deadlock(send),
            "rank 0 waits in MPI_Barrier (library barrier.rdb); rank 1 waits in MPI_Send to 0, tag 7; \
             rank 2 waits in MPI_Barrier (library barrier.rdb)"
        );
    }

    #[test]
    fn different_collectives_and_a_finalized_rank_are_deadlocks() {
        let differ = run_job("library", 2, |rank, r, mut lib| {
            Box::pin(async move {
                if rank == 0 {
                    call(&mut lib, &r, BARRIER, 0, &[]).await?;
                } else {
                    call(&mut lib, &r, BCAST, 4, &[]).await?;
                }
                Ok(())
            })
        });
        assert_eq!(
            deadlock(differ),
            "rank 0 waits in MPI_Barrier (library barrier.rdb); rank 1 waits in MPI_Bcast from root 0 of 4 bytes \
             (its library collective 1, where rank 0 called MPI_Barrier)"
        );
        let gone = run_job("library", 3, |rank, r, mut lib| {
            Box::pin(async move {
                if rank != 2 {
                    call(&mut lib, &r, BARRIER, 0, &[]).await?;
                }
                Ok(())
            })
        });
        assert_eq!(
            deadlock(gone),
            "rank 0 waits in MPI_Barrier (library barrier.rdb); rank 1 waits in MPI_Barrier (library barrier.rdb); rank 2 has finished"
        );
    }

    #[test]
    fn any_rank_missing_from_a_synchronising_collective_is_reported_on_every_rank_count() {
        // A barrier and an all-reduce need every rank: whichever one finalizes instead, every
        // other waits in the call, on every rank count the library serves.
        for p in 2..=MAX_RANKS {
            for family in [BARRIER, ALLREDUCE_SUM_INT] {
                let (call_name, algorithm) =
                    if family == BARRIER { ("MPI_Barrier", "barrier.rdb") } else { ("MPI_Allreduce of 4 bytes", "allreduce.rdb") };
                for absent in [0, p / 2, p - 1] {
                    let shared = Shared::new(&config_file(), CollChoice::parse("library", p).unwrap()).unwrap();
                    let got = run_ranks(p, move |rank, r| {
                        let shared = shared.clone();
                        Box::pin(async move {
                            let mut lib = Library::new(&r, shared)?;
                            if rank != absent {
                                call(&mut lib, &r, family, 4, &1i32.to_ne_bytes()).await?;
                            }
                            Ok(())
                        })
                    });
                    let want: Vec<String> = (0..p)
                        .map(|r| {
                            if r == absent {
                                format!("rank {r} has finished")
                            } else {
                                format!("rank {r} waits in {call_name} (library {algorithm})")
                            }
                        })
                        .collect();
                    assert_eq!(deadlock(got), want.join("; "), "{p} ranks, rank {absent} absent");
                }
            }
        }
    }

    #[test]
    fn ranks_arriving_late_from_point_to_point_work_are_not_a_deadlock() {
        // Ranks 0 and 1 ping-pong (polling) for a long time while 2 and 3 wait in the
        // all-reduce; then a broadcast's leaf finishes while a rank still waits to receive.
        run_job("library", 4, |rank, r, mut lib| {
            Box::pin(async move {
                let buf = r.alloc(16)?;
                if rank < 2 {
                    for _ in 0..200 {
                        if rank == 0 {
                            r.send(buf, 4, 1, 1, 0).await?;
                            r.recv(buf, 4, 1, 1, 0).await?;
                        } else {
                            r.recv(buf, 4, 0, 1, 0).await?;
                            r.send(buf, 4, 0, 1, 0).await?;
                        }
                    }
                }
                let sum = call(&mut lib, &r, ALLREDUCE_SUM_INT, 4, &(rank as i32 + 1).to_ne_bytes()).await?;
                assert_eq!(sum, 10i32.to_ne_bytes());
                for _ in 0..50 {
                    call(&mut lib, &r, BARRIER, 0, &[]).await?;
                }
                // The binomial tree on 4 ranks: 0 -> 2, then 0 -> 1 and 2 -> 3. Leaf 1 needs
                // only 0 and 2, so it finishes and sends to 3 before 3 enters the broadcast.
                if rank == 3 {
                    r.recv(buf, 4, 1, 2, 0).await?;
                }
                let got = call(&mut lib, &r, BCAST, 5, if rank == 0 { b"hello" } else { &[] }).await?;
                assert_eq!(got, b"hello");
                if rank == 1 {
                    r.send(buf, 4, 3, 2, 0).await?;
                }
                Ok(())
            })
        })
        .unwrap();
    }
}
