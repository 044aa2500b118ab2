//! The interconnect: each chip's command bus and EIB data rings with their arbiter, the MIC in
//! front of each XDR module, and the BIF between the chips.
//!
//! A transaction moves up to one 128-byte line from a source element to a destination element:
//!
//! ```text
//!  command bus slot (1 per bus cycle per chip)  -> command phase (snoop; + BIF crossing if the
//!  other chip is involved; + the data's way back for a cache-inhibited read from it)
//!  -> [MIC read latency, one XDR burst per access] -> data leg(s):
//!  on-chip: src on-ramp -> ring segments -> dst off-ramp          (arbiter grants packets)
//!  cross-chip: src -> BIF element | BIF link (bandwidth, latency) | BIF element -> dst
//! ```
//!
//! The data arbiter grants a packet a ring when the source's on-ramp and destination's off-ramp
//! are free, a ring going the shortest way (either way for exactly half the ring) has no
//! overlapping transfer, fewer than `max_transfers_per_ring` transfers, and has not started one in
//! the last `ring_start_interval`; the MIC has priority, the others are served round-robin, up to
//! `data_grants_per_bus_cycle` grants a bus cycle. A packet holds its ramps and segments for one
//! bus cycle per 16-byte beat.
//!
//! ## Ring assignment
//!
//! Which of the suitable rings a packet gets: the arbiter "assigns a suitable ring to a request"
//! (seed 001 §2), suitable by its path (room, no overlapping transfer). Assigned with a look at
//! each ring's start gate (the first open one), nothing waits while a ring could take it, and
//! transfers that fit the rings settle into a schedule that loses nothing: Table 1 #3 and #4 then
//! lose 0.0-0.2% where the blade loses 2-7%. Assigned by path alone (blind), the drawn ring may not
//! start yet and the packet waits for it, the arbiter drawing again at its next step. A share
//! `eib.blind_share` of the assignments are blind (fitted on Table 1 #4, 2 <- 0); the rest take
//! an open ring. Losses then grow with the transfers sharing a direction, as the blade's do: with
//! the rings' start every four cycles, 2-3% for three transfers, 5-6% for four, about 20% for
//! five (the blade: 2-3%, 5-7%, 17-21%). Which assignments are blind, and which ring a blind one
//! draws, come from one hash of the time, the chip and the source, so they do not depend on how
//! many steps the arbiter took (running ahead decides the same) and a run is deterministic.
//!
//! The bus is clocked rather than event-driven: when a transaction starts, the time its data is
//! ready (after the command phase and any XDR access) is known, so the leg goes straight into
//! its source's pending queue with that time; a grant likewise computes when the packet reaches
//! the other chip's BIF element or its destination. The event loop then asks [`Bus::next_step`]
//! and calls [`Bus::step`] for each arbiter step and each delivery, so no packet goes through the
//! event queue (it went through it five times across the BIF before, and the queue was a fifth
//! of the run time). An arbiter step at time t depends only on legs ready by t, all known
//! before t, so the order of the steps among other work at t changes nothing.
//!
//! Each arbiter also runs a little ahead of the event loop: no leg it does not know yet can be
//! ready sooner than a command phase (a new transaction) or a BIF crossing (a packet from the
//! other chip) from now, so it takes all its steps before then in one go ([`Bus::step`]).
//!
//! ## The MIC
//!
//! Each chip's MIC gives 25.6 GB/s to its XDRAM for reads and writes combined (seed 001 §1 and
//! §2, "25.6 GB/s total, in both directions combined"; hardware notes §3): one timeline of XDR
//! bursts per chip (`Eib::mic_free`), each access, read or write, taking `mic.access_bus_cycles`
//! of it. The MIC learns of an access from its command, so both kinds reserve their burst when
//! the command phase ends, in command order: a read's data is ready `mic.read_latency_ns` after
//! its burst starts; a write's data waits at its source (or, from the other chip, at that
//! chip's BIF element: `Txn::written`) until it can reach the MIC on an idle ring as its burst
//! ends, as the MIC takes write data only as fast as it writes it; so a write is delivered (its
//! command can complete) no sooner than its burst ends, and a source's legs and the deliveries
//! stay in time order (no search on insertion). The order is first come, first served, so
//! neither kind starves the other: each waits at most for the bursts reserved before it, and
//! those are bounded by the transactions the MFCs keep in flight (`mfc.outstanding_packets`
//! each), so each SPE's share follows the commands it keeps in flight. The MIC's off-ramp still
//! takes at most one line per burst time (a partial line costs a burst). Reservations happen
//! when a transaction starts, at the event loop's time, never in an arbiter's run-ahead, so
//! running ahead decides the same.

use crate::sim::fifo::Fifo;
use crate::sim::Time;

use super::config::Params;
use super::policy::{DirectionLimit, GrantOrder, HalfWay};
use super::topology::{route, Element, Route, CHIPS, ELEMENTS_PER_CHIP, MIC};
use super::trace::Tracer;

pub type TxnId = usize;

/// How a transaction's target is mapped, which decides what crossing the chips costs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// Main memory and lock lines: coherent traffic over the BIF.
    Coherent,
    /// Another SPE's local store: its effective-address alias is cache-inhibited.
    CacheInhibited,
    /// Problem-state registers (mailboxes, signals): cache-inhibited and guarded, so performed
    /// one at a time and in order.
    Guarded,
}

/// A transaction leg that is ready for the data arbiter from `at` on: its command phase (and for
/// memory, the XDR access) is over, or it has crossed the BIF. It carries what the arbiter needs,
/// so that a step does not look up the transaction.
// Aligned so that a copy is one 16-byte move: copied as overlapping 8-byte halves, a leg read
// back soon after being written stalled store-to-load forwarding in the arbiter.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(16))]
struct Arrival {
    at: Time,
    id: u32,
    bytes: u16,
    /// Where the leg ends on its chip: the destination, or the BIF element.
    to: u8,
    /// For a leg to the BIF element: the destination's index on the other chip; else `LAST`.
    then: u8,
}

/// `Arrival::then` of a leg that ends at the destination.
const LAST: u8 = u8::MAX;

/// The head of an empty queue.
const NO_LEG: Arrival = Arrival { at: NEVER, id: 0, bytes: 0, to: 0, then: LAST };

/// Data on its way to its destination. Deliveries due at the same time go in the order of their
/// grants (time, then chip 0 before chip 1, then grant order), whichever chip's arbiter ran
/// ahead further (see [`Bus::step`]).
#[derive(Debug, Clone, Copy, Default)]
struct Delivery {
    at: Time,
    /// The grant's time and chip: `2 * time + chip`.
    granted: u64,
    id: u32,
}

/// One transaction in flight. `client` is the caller's: handed back on completion.
#[derive(Debug, Clone, Copy)]
pub struct Txn<C> {
    pub bytes: u32,
    pub client: C,
    /// For a write to the other chip's main memory: the end of its XDR burst, which its second
    /// leg is timed to meet (see the module doc, "The MIC"); otherwise unused.
    written: Time,
}

/// No time: an empty queue's head, a ring with no transfer, an arbiter with nothing to do.
const NEVER: Time = Time(u64::MAX);

/// The most rings per direction (the machine file allows 1 to 4).
const MAX_RINGS_PER_DIRECTION: usize = 4;

/// The most transfers a ring may carry at once (the machine file allows 1 to 6).
const MAX_TRANSFERS_PER_RING: usize = 6;

/// One data ring; rings 0..n go clockwise, n..2n counter-clockwise (n per direction). Its
/// transfers sit in fixed arrays and retire lazily: only on a ring the arbiter looks at, and
/// only once its first transfer has ended.
#[derive(Clone, Copy)]
struct Ring {
    /// When the ring may start its next transfer (`ring_start_interval` after the last start).
    ready_at: Time,
    len: usize,
    /// The earliest of `end` (`NEVER` when empty).
    first_end: Time,
    /// The union of `segments`: a leg overlaps no transfer when it shares no bit with it.
    held: u16,
    end: [Time; MAX_TRANSFERS_PER_RING],
    segments: [u16; MAX_TRANSFERS_PER_RING],
}

impl Default for Ring {
    fn default() -> Self {
        Ring {
            ready_at: Time::ZERO,
            len: 0,
            first_end: NEVER,
            held: 0,
            end: [Time::ZERO; MAX_TRANSFERS_PER_RING],
            segments: [0; MAX_TRANSFERS_PER_RING],
        }
    }
}

impl Ring {
    /// Drop the transfers that have ended by `now`, keeping the others in order.
    #[inline(always)]
    fn settle(&mut self, now: Time) {
        if now < self.first_end {
            return;
        }
        if self.len == 1 {
            // The usual case: a ring's transfers mostly share segments, so it carries one at a
            // time, and that one has ended.
            (self.len, self.first_end, self.held) = (0, NEVER, 0);
            return;
        }
        self.retire(now);
    }

    #[inline(never)]
    fn retire(&mut self, now: Time) {
        let mut kept = 0;
        self.first_end = NEVER;
        self.held = 0;
        for i in 0..self.len {
            if self.end[i] > now {
                self.end[kept] = self.end[i];
                self.segments[kept] = self.segments[i];
                self.first_end = self.first_end.min(self.end[i]);
                self.held |= self.segments[i];
                kept += 1;
            }
        }
        self.len = kept;
    }

    fn push(&mut self, end: Time, segments: u16) {
        self.end[self.len] = end;
        self.segments[self.len] = segments;
        self.first_end = self.first_end.min(end);
        self.held |= segments;
        self.len += 1;
    }

    /// How many transfers hold one of `segments`.
    fn overlapping(&self, segments: u16) -> usize {
        self.segments[..self.len].iter().filter(|&&m| m & segments != 0).count()
    }
}

struct Eib {
    /// The legs waiting at each source, in order of readiness (FIFO on ties); the arbiter looks
    /// only at those ready by now. Each source's legs come nearly in time order (one MIC, one BIF
    /// link, one command bus), so an insertion rarely searches.
    pending: [Fifo<Arrival>; ELEMENTS_PER_CHIP],
    /// Each source's first leg (`at` is `NEVER` when it has none), a copy of its queue's front:
    /// the arbiter reads these rather than the queues, whose fronts are seldom in cache.
    heads: [Arrival; ELEMENTS_PER_CHIP],
    /// At least the ready time of each queue's last leg: a leg no earlier goes on the end
    /// without reading the queue (removals only lower the true last time, so it stays a bound).
    last_at: [Time; ELEMENTS_PER_CHIP],
    /// Bit e set when `pending[e]` is non-empty: the arbiter skips idle sources without looking.
    pending_mask: u16,
    /// How many of each queue's legs are bound elsewhere than the leg before them, and where its
    /// last leg is bound: with none, every leg goes where the head goes, so when the head is
    /// refused the lookahead has nothing to grant ([`Eib::choose`]).
    turns: [u32; ELEMENTS_PER_CHIP],
    last_to: [u8; ELEMENTS_PER_CHIP],
    /// Sources whose head was refused and whose lookahead was left unasked, as it could only
    /// lower the arbiter's `next` ([`Bus::arbitrate`] asks it if the step grants nothing).
    unasked: u32,
    /// Whether the lookahead skips a leg bound where a leg before it was refused
    /// ([`Eib::choose_behind`]; off only to show that it changes nothing: `sim::set_fast_paths`).
    skip_refused: bool,
    on_free: [Time; ELEMENTS_PER_CHIP],
    off_free: [Time; ELEMENTS_PER_CHIP],
    /// Rings 0..n clockwise, then n counter-clockwise, `n = rings_per_direction`.
    rings: [Ring; 2 * MAX_RINGS_PER_DIRECTION],
    rr: usize,
    /// `eib.grant_order = "round_robin_per_direction"`: a pointer per direction (0 clockwise).
    rr_dir: [usize; 2],
    /// `eib.half_way`, copied here so that the ring choice reads it beside the rings.
    half_way: HalfWay,
    /// `eib.half_way = "round_robin"`: the next half-way packet tries counter-clockwise first.
    half_ccw_first: bool,
    /// The arbiter's next step; `NEVER` while it has nothing to do.
    step_at: Time,
    /// The route between every pair of this chip's elements, indexed `from * 12 + to`. A half-way
    /// pair keeps the direction its first packet took for the rest of the stream: the route is
    /// narrowed to it then.
    routes: [Route; ELEMENTS_PER_CHIP * ELEMENTS_PER_CHIP],
    command_free: Time,
    mic_free: Time,
}

/// The bus is clocked: it does all its work in [`Bus::step`], which the event loop calls at the
/// times [`Bus::next_step`] gives (an arbiter step, or data reaching its destination) instead of
/// pushing an event for each through the queue.
pub struct Bus<C> {
    p: Params,
    /// Transactions by id; a slot in `free_ids` is stale until `start` reuses it. A delivered
    /// one is read in place ([`Bus::txn`]): handed back by value it was copied through the
    /// stack in overlapping halves, and reading its client there stalled on store forwarding.
    txns: Vec<Txn<C>>,
    free_ids: Vec<TxnId>,
    eibs: [Eib; CHIPS],
    /// By packet size (0..=128 bytes): how long it holds ramps and rings, and the BIF link.
    ring_time: [Time; PACKET_SIZES],
    bif_time: [Time; PACKET_SIZES],
    /// Next free time of the BIF link in each direction (index: source chip).
    bif_free: [Time; CHIPS],
    /// When the BIF next takes a guarded access to the other chip's registers, in each
    /// direction (index: the initiator's chip).
    guarded_free: [Time; CHIPS],
    /// Transactions whose data is on its way to the destination, by arrival time, then grant;
    /// one queue per granting chip, as the arbiters run ahead of each other.
    deliveries: [Fifo<Delivery>; CHIPS],
    /// The least time from the other chip's grant of a packet to its leg being ready here: one
    /// bus cycle on the ring, one byte on the link, the coherent crossing (see [`Bus::step`]).
    min_crossing: Time,
    /// Whether arbiters run ahead of the event loop (off only in a test that checks they may).
    run_ahead: bool,
    pub packets: u64,
}

/// Packet sizes 0..=128 bytes (the machine file fixes the packet at the 128-byte line).
const PACKET_SIZES: usize = 129;

/// How many ring-queue entries behind the head the arbiter may look at for one source.
const LOOKAHEAD: usize = 4;

impl<C: Copy> Bus<C> {
    pub fn new(p: &Params) -> Bus<C> {
        assert!(p.max_transfers_per_ring as usize <= MAX_TRANSFERS_PER_RING, "validated by the machine file");
        assert!(p.rings_per_direction as usize <= MAX_RINGS_PER_DIRECTION, "validated by the machine file");
        assert_eq!(p.packet_bytes as usize, PACKET_SIZES - 1, "validated by the machine file");
        let mut routes: [Route; ELEMENTS_PER_CHIP * ELEMENTS_PER_CHIP] =
            std::array::from_fn(|i| route(p, i / ELEMENTS_PER_CHIP, i % ELEMENTS_PER_CHIP));
        if p.half_way == HalfWay::Clockwise && p.contention {
            // Fixed per pair: narrowed once here, so the arbiter never sees a half-way route.
            routes.iter_mut().filter(|r| r.either_way()).for_each(|r| r.ccw_ok = false);
        }
        let rings = [Ring::default(); 2 * MAX_RINGS_PER_DIRECTION];
        let eib = |_| Eib {
            pending: Default::default(),
            heads: [NO_LEG; ELEMENTS_PER_CHIP],
            last_at: [Time::ZERO; ELEMENTS_PER_CHIP],
            pending_mask: 0,
            turns: [0; ELEMENTS_PER_CHIP],
            last_to: [0; ELEMENTS_PER_CHIP],
            unasked: 0,
            skip_refused: crate::sim::polls::fast_paths(),
            on_free: [Time::ZERO; ELEMENTS_PER_CHIP],
            off_free: [Time::ZERO; ELEMENTS_PER_CHIP],
            rings,
            rr: 0,
            rr_dir: [0; 2],
            half_way: p.half_way,
            half_ccw_first: false,
            step_at: NEVER,
            routes,
            command_free: Time::ZERO,
            mic_free: Time::ZERO,
        };
        Bus {
            p: p.clone(),
            txns: Vec::new(),
            free_ids: Vec::new(),
            eibs: std::array::from_fn(eib),
            ring_time: std::array::from_fn(|b| Time((b as u64).div_ceil(p.beat_bytes as u64) * p.bus_cycle.0)),
            bif_time: std::array::from_fn(|b| Time((b as u64 * p.bif_ticks_per_kib).div_ceil(1024))),
            bif_free: [Time::ZERO; CHIPS],
            guarded_free: [Time::ZERO; CHIPS],
            deliveries: Default::default(),
            min_crossing: p.bus_cycle + Time(p.bif_ticks_per_kib.div_ceil(1024)) + p.bif_crossing,
            run_ahead: true,
            packets: 0,
        }
    }

    /// Start a transaction of `bytes` (1..=128) from `src` to `dst`, requested by an element on
    /// `initiator_chip`, to storage of kind `storage`. The command takes the next free
    /// command-bus slot. When the other chip is involved, a coherent command adds
    /// `bif.crossing_latency_ns`, a cache-inhibited one `bif.noncacheable_crossing_ns`, and a
    /// guarded one (problem-state registers) also waits for the previous guarded access in its
    /// direction to finish crossing: one at a time, each holding the path for the whole
    /// crossing (seed 002 Tables 1-2 and §5.2). A cache-inhibited or guarded read from the other
    /// chip then waits `bif.noncacheable_read_return_ns` for its data to cross back (a write is
    /// posted). Inlined so that the
    /// caller's `client` is written straight into the transaction slot rather than passed
    /// through the stack, where reading it back stalled on store forwarding.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // a transaction's fields, written straight into its slot
    pub fn start(
        &mut self,
        now: Time,
        src: Element,
        dst: Element,
        bytes: u32,
        initiator_chip: usize,
        storage: Storage,
        client: C,
    ) -> TxnId {
        debug_assert!(bytes <= self.p.packet_bytes);
        let txn = Txn { bytes, client, written: Time::ZERO };
        let id = match self.free_ids.pop() {
            Some(id) => {
                self.txns[id] = txn;
                id
            }
            None => {
                self.txns.push(txn);
                self.txns.len() - 1
            }
        };
        let bus = self.p.bus_cycle;
        let eib = &mut self.eibs[initiator_chip];
        let slot = if self.p.contention { now.align_up(bus).max(eib.command_free) } else { now.align_up(bus) };
        eib.command_free = slot + bus;
        let remote = src.chip() != initiator_chip || dst.chip() != initiator_chip;
        // A cache-inhibited read from the other chip: its data crosses back on its own.
        let read_return = if src.chip() != initiator_chip { self.p.bif_noncacheable_read_return } else { Time::ZERO };
        let done = match (remote, storage) {
            (false, _) => slot + self.p.command_phase,
            (true, Storage::Coherent) => slot + self.p.command_phase + self.p.bif_crossing,
            (true, Storage::CacheInhibited) => slot + self.p.command_phase + self.p.bif_noncacheable_crossing + read_return,
            (true, Storage::Guarded) => {
                let begin = (slot + self.p.command_phase).max(self.guarded_free[initiator_chip]);
                self.guarded_free[initiator_chip] = begin + self.p.bif_noncacheable_crossing;
                begin + self.p.bif_noncacheable_crossing + read_return
            }
        };
        // One XDR burst per access on the MIC's one timeline, reads and writes alike, in command
        // order: a read's data is ready after the read latency; a write's data leaves in time to
        // reach the MIC as its burst ends (see the module doc, "The MIC").
        let ready = if src.index() == MIC {
            let eib = &mut self.eibs[src.chip()];
            let start = done.max(eib.mic_free);
            eib.mic_free = start + self.p.mic_access;
            start + self.p.mic_read_latency
        } else if dst.index() == MIC {
            let eib = &mut self.eibs[dst.chip()];
            let start = done.max(eib.mic_free);
            eib.mic_free = start + self.p.mic_access;
            let written = eib.mic_free;
            if src.chip() == dst.chip() {
                let eib = &self.eibs[src.chip()];
                done.max(eib.leaves_for_mic(src.index(), self.ring_time[bytes as usize], self.p.hop_latency, written))
            } else {
                // Its second leg, from the other chip's BIF element, is timed when it crosses.
                self.txns[id].written = written;
                done
            }
        } else {
            done
        };
        // The first leg: to the destination, or to the BIF element if it is on the other chip.
        let (to, then) = if src.chip() == dst.chip() { (dst.index() as u8, LAST) } else { (self.p.bif_element as u8, dst.index() as u8) };
        self.eibs[src.chip()].arrive(src.index(), Arrival { at: ready, id: id as u32, bytes: bytes as u16, to, then }, bus);
        id
    }

    /// When the bus next has work: a delivery or an arbiter step.
    #[inline]
    pub fn next_step(&self) -> Option<Time> {
        let t = self.eibs[0].step_at.min(self.eibs[1].step_at).min(self.next_delivery().map_or(NEVER, |(_, d)| d.at));
        (t != NEVER).then_some(t)
    }

    /// Arbiters step only when the event loop reaches each step (for tests: running ahead must
    /// decide the same).
    #[cfg(test)]
    pub(crate) fn without_run_ahead(&mut self) {
        self.run_ahead = false;
    }

    /// The first delivery due, and the queue it is in.
    #[inline]
    fn next_delivery(&self) -> Option<(usize, Delivery)> {
        match (self.deliveries[0].front(), self.deliveries[1].front()) {
            (Some(a), Some(b)) => Some(if (b.at, b.granted) < (a.at, a.granted) { (1, b) } else { (0, a) }),
            (Some(a), None) => Some((0, a)),
            (None, b) => b.map(|b| (1, b)),
        }
    }

    /// Do the work due `now`: a delivery first (the completed transaction's id is returned; read
    /// it with [`Bus::txn`] before the next `start`), else the
    /// arbiter steps of one chip (chip 0's first when both are due). Returns how many steps it
    /// took too.
    ///
    /// An arbiter runs ahead of the event loop, through its steps up to a horizon before which no
    /// leg it does not know yet can be ready: a new transaction's first leg is ready a command
    /// phase after it starts at the earliest, and a leg from the other chip `min_crossing` after
    /// that chip's grant, which comes at its next step at the earliest (a leg arriving there
    /// only adds contention, and new transactions come a command phase from now). With coherent
    /// traffic crossing at no added latency, the other arbiter's next step is what keeps the
    /// horizon away from now. Nothing else the loop does in the meantime touches the
    /// arbiter's ramps and rings, so those steps decide what they would decide in turn (a test
    /// checks it). Running them in one go keeps the arbiter's code and state hot (README,
    /// "Speed", has what it gains). A leg that arrives
    /// after its arbiter ran ahead can add a step that grants nothing, so the step count (the
    /// run's events) may be a little higher than stepping in turn; nothing else changes.
    pub fn step(&mut self, now: Time, tr: &mut Tracer) -> (u64, Option<TxnId>) {
        if let Some((chip, d)) = self.next_delivery().filter(|(_, d)| d.at == now) {
            self.deliveries[chip].pop_front();
            self.packets += 1;
            self.free_ids.push(d.id as TxnId);
            return (1, Some(d.id as TxnId));
        }
        let chip = if self.eibs[0].step_at == now { 0 } else { 1 };
        debug_assert_eq!(self.eibs[chip].step_at, now, "stepped at the wrong time");
        let horizon = self.horizon(now, chip);
        let (mut at, mut steps) = (now, 0);
        loop {
            self.eibs[chip].step_at = NEVER;
            self.arbitrate(at, chip, tr);
            steps += 1;
            at = self.eibs[chip].step_at;
            if at >= horizon {
                return (steps, None);
            }
        }
    }

    /// Transaction `id`: live, or delivered by the last [`Bus::step`].
    #[inline(always)]
    pub fn txn(&self, id: TxnId) -> &Txn<C> {
        &self.txns[id]
    }

    /// See [`Bus::step`].
    #[inline]
    fn horizon(&self, now: Time, chip: usize) -> Time {
        if !self.run_ahead {
            return now;
        }
        let fresh = now + self.p.command_phase;
        let other = self.eibs[1 - chip].step_at.max(now).min(fresh);
        fresh.min(other + self.min_crossing)
    }

    /// One arbitration step at a bus-cycle boundary: grant up to `data_grants_per_bus_cycle`
    /// legs, the MIC first, then the other sources round-robin, and say when to step next.
    fn arbitrate(&mut self, now: Time, chip: usize, tr: &mut Tracer) {
        if self.p.direction_limit == DirectionLimit::CommandSlot && self.p.contention {
            self.eibs[chip].close_other_slot(now, self.p.rings_per_direction as usize, self.p.bus_cycle);
        }
        let Scan { ready, unready: unready_first, ramp_busy, ramp_free } = self.eibs[chip].scan(now);
        // When the arbiter may next grant, if it grants nothing now: a source whose on-ramp is
        // busy may go when it frees (it grants nothing, so it is not offered below).
        let mut next = unready_first.min(ramp_free);
        // The sources still ready after the grants, and the first of the others: where the
        // arbiter goes on after granting.
        let (mut ready_left, mut unready) = (ready, unready_first);
        let offered = ready & !ramp_busy;
        // The policy is read once per step; the default keeps its iterator without a sort.
        let grants = match self.p.grant_order {
            GrantOrder::RoundRobin => {
                let order = Candidates::new(offered, self.eibs[chip].rr);
                self.grant_in(order, now, chip, &mut next, &mut ready_left, &mut unready, tr)
            }
            policy => {
                let order = self.eibs[chip].ordered(offered, policy);
                self.grant_in(order, now, chip, &mut next, &mut ready_left, &mut unready, tr)
            }
        };
        let unasked = std::mem::take(&mut self.eibs[chip].unasked);
        if grants == 0 && unasked != 0 {
            self.ask_lookahead(now, chip, unasked, &mut next);
        }
        let bus = self.p.bus_cycle;
        let eib = &mut self.eibs[chip];
        if grants == 0 {
            if eib.pending_mask != 0 {
                eib.wake(next.max(now + bus).align_up(bus));
            }
        } else if ready_left != 0 {
            eib.wake(now + bus);
        } else if unready != NEVER {
            // The next cycle, unless no source has a leg ready by then.
            eib.wake((now + bus).max(unready.align_up(bus)));
        }
    }

    /// Offer a grant to the sources of `order` in turn, up to `data_grants_per_bus_cycle`
    /// grants; returns how many. A source granted whose next leg is not ready leaves
    /// `ready_left` and lowers `unready` to that leg's time.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn grant_in(
        &mut self,
        order: impl Iterator<Item = usize>,
        now: Time,
        chip: usize,
        next: &mut Time,
        ready_left: &mut u32,
        unready: &mut Time,
        tr: &mut Tracer,
    ) -> u32 {
        let mut grants = 0;
        for e in order {
            if grants == self.p.data_grants_per_bus_cycle {
                break;
            }
            let Some(head) = self.try_grant(now, chip, e, next, tr) else { continue };
            if head > now {
                *ready_left &= !(1 << e);
                *unready = (*unready).min(head);
            }
            grants += 1;
        }
        grants
    }

    /// The lookahead of the `unasked` sources (a bit each), whose legs all go where their refused
    /// head goes: it grants nothing, and gives `next` the first of those legs not ready yet.
    #[cold]
    #[inline(never)]
    fn ask_lookahead(&mut self, now: Time, chip: usize, mut unasked: u32, next: &mut Time) {
        let (n, max_transfers) = (self.p.rings_per_direction as usize, self.p.max_transfers_per_ring as usize);
        while unasked != 0 {
            let e = unasked.trailing_zeros() as usize;
            unasked &= unasked - 1;
            let blind = Blind::new(now, chip, e, self.p.draw_seed, self.p.blind_below);
            let granted = self.eibs[chip].choose_behind(e, now, n, max_transfers, blind, next);
            debug_assert!(granted.is_none(), "a leg bound where the refused head is bound went");
        }
    }

    /// Grant a leg of ready source `e` (its on-ramp free) if an off-ramp and a ring are free, and send
    /// the packet on. Returns when the source's next leg is ready, or lowers `next` to when
    /// this one might go.
    #[inline]
    fn try_grant(&mut self, now: Time, chip: usize, e: usize, next: &mut Time, tr: &mut Tracer) -> Option<Time> {
        let eib = &mut self.eibs[chip];
        debug_assert!(eib.on_free[e] <= now, "a source with a busy on-ramp is not offered (Eib::scan)");
        let (j, ring, mask) = if self.p.contention {
            let blind = Blind::new(now, chip, e, self.p.draw_seed, self.p.blind_below);
            eib.choose(e, now, self.p.rings_per_direction as usize, self.p.max_transfers_per_ring as usize, blind, next)?
        } else {
            eib.uncontended(e, now, self.p.rings_per_direction as usize, next)?
        };
        // Read again rather than handed back: a leg returned in a tuple went through the stack
        // in pieces, and reading it back stalled on store forwarding.
        let leg = if j == 0 { eib.heads[e] } else { eib.pending[e].get(j) };
        self.commit(now, chip, e, j, leg, ring, mask, tr);
        Some(self.eibs[chip].heads[e].at)
    }

    /// Grant leg `j` of source `e` on `chip` ring `ring` (holding segments `mask`), and send the
    /// packet on: to the other chip, or to its destination.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn commit(&mut self, now: Time, chip: usize, e: usize, j: usize, leg: Arrival, ring: usize, mask: u16, tr: &mut Tracer) {
        let p = &self.p;
        let dur = self.ring_time[leg.bytes as usize];
        let [chip0, chip1] = &mut self.eibs;
        let (eib, other) = if chip == 0 { (chip0, chip1) } else { (chip1, chip0) };
        let arrive = eib.grant(now, e, j, leg, ring, mask, dur, p);
        tr.ring(chip, ring, now, now + dur, Element::on_chip(chip, e), Element::on_chip(chip, leg.to as usize), leg.bytes as u32);
        if leg.then != LAST {
            // Bound for the other chip: the link is taken, in grant order, from the packet's
            // arrival at this chip's BIF ramp; the second leg goes from the other chip's BIF
            // element to the destination.
            let ser = self.bif_time[leg.bytes as usize];
            let start = arrive.max(self.bif_free[chip]);
            self.bif_free[chip] = start + ser;
            tr.bif(chip, start, start + ser, leg.bytes as u32);
            let mut at = start + ser + p.bif_crossing;
            if leg.then as usize == MIC {
                // A write to the other chip's memory crosses now and goes on in time for its burst.
                let written = self.txns[leg.id as TxnId].written;
                at = at.max(other.leaves_for_mic(p.bif_element, dur, p.hop_latency, written));
            }
            let second = Arrival { at, to: leg.then, then: LAST, ..leg };
            other.arrive(p.bif_element, second, p.bus_cycle);
        } else {
            let d = Delivery { at: arrive, granted: 2 * now.0 + chip as u64, id: leg.id };
            insert_by(&mut self.deliveries[chip], d, |d| (d.at, d.granted));
        }
    }
}

/// What an arbiter step starts from ([`Eib::scan`]), each set a bit per source.
struct Scan {
    ready: u32,
    /// When the first source that is not ready will be.
    unready: Time,
    /// Ready sources whose on-ramp is still busy.
    ramp_busy: u32,
    /// When the first of those frees.
    ramp_free: Time,
}

/// The order in which the arbiter looks at the ready sources: the MIC first (highest priority),
/// then the others round-robin from `rr` (those at `rr` and above, then those below, each in
/// ascending order).
struct Candidates {
    mic: bool,
    /// The ready sources other than the MIC not yet offered, a bit each.
    others: u32,
    rr: u32,
}

impl Candidates {
    #[inline]
    fn new(ready: u32, rr: usize) -> Candidates {
        Candidates { mic: ready & (1 << MIC) != 0, others: ready & !(1 << MIC), rr: rr as u32 }
    }
}

impl Iterator for Candidates {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.mic {
            self.mic = false;
            return Some(MIC);
        }
        if self.others == 0 {
            return None;
        }
        let from_rr = self.others & (u32::MAX << self.rr);
        let e = if from_rr != 0 { from_rr.trailing_zeros() } else { self.others.trailing_zeros() };
        self.others &= !(1 << e);
        Some(e as usize)
    }
}

/// The sources of a step in a policy's order ([`Eib::ordered`]).
struct Ordered {
    list: [u8; ELEMENTS_PER_CHIP],
    len: usize,
    at: usize,
}

impl Iterator for Ordered {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        (self.at < self.len).then(|| {
            self.at += 1;
            self.list[self.at - 1] as usize
        })
    }
}

impl Eib {
    /// The `ready` sources (a bit each) in the order grant policy `policy` offers them: the MIC
    /// first, then by the policy's key, ties in round-robin order from `rr`.
    #[cold]
    #[inline(never)]
    fn ordered(&self, ready: u32, policy: GrantOrder) -> Ordered {
        let mut o = Ordered { list: [0; ELEMENTS_PER_CHIP], len: 0, at: 0 };
        for e in Candidates::new(ready, self.rr) {
            o.list[o.len] = e as u8;
            o.len += 1;
        }
        let n = ELEMENTS_PER_CHIP;
        let (routes, heads) = (&self.routes, &self.heads);
        let route_of = |e: usize| &routes[e * n + heads[e].to as usize];
        // Each key keeps the MIC first (0 before 1) and the round-robin place last, so a stable
        // sort of the round-robin order is the policy's order.
        let mic_first = |e: usize| (e != MIC) as u64;
        let key = |e: usize| -> (u64, u64) {
            match policy {
                GrantOrder::RoundRobin => (mic_first(e), 0),
                GrantOrder::RoundRobinPerDirection => {
                    let dir = (!route_of(e).cw_ok) as usize;
                    (mic_first(e), ((e + n - self.rr_dir[dir]) % n) as u64)
                }
                GrantOrder::ShortestFirst => (mic_first(e), route_of(e).hops as u64),
                GrantOrder::OldestFirst => (mic_first(e), heads[e].at.0),
            }
        };
        o.list[..o.len].sort_by_key(|&e| key(e as usize));
        o
    }

    /// The latest a write leg taking `dur` on a ring from element `from` may be ready and still
    /// reach the MIC by `written`, its burst's end, on an idle ring.
    #[inline]
    fn leaves_for_mic(&self, from: usize, dur: Time, hop_latency: Time, written: Time) -> Time {
        let hops = self.routes[from * ELEMENTS_PER_CHIP + MIC].hops as u64;
        Time(written.0.saturating_sub(dur.0 + hops * hop_latency.0))
    }

    /// Have the arbiter step at `at` unless it steps earlier already.
    #[inline]
    fn wake(&mut self, at: Time) {
        self.step_at = self.step_at.min(at);
    }

    /// Register a leg from `from` that becomes ready at `a.at` (after those not later).
    #[inline(always)]
    fn arrive(&mut self, from: usize, a: Arrival, bus_cycle: Time) {
        if a.at >= self.last_at[from] {
            let q = &mut self.pending[from];
            self.turns[from] += (!q.is_empty() && self.last_to[from] != a.to) as u32;
            q.push_back(a);
            self.last_at[from] = a.at;
            self.last_to[from] = a.to;
        } else {
            insert_by(&mut self.pending[from], a, |a| a.at);
            self.count_turns(from);
        }
        // A leg that went in first is earlier than the old first one.
        if a.at < self.heads[from].at {
            self.heads[from] = a;
        }
        self.pending_mask |= 1 << from;
        self.wake(a.at.align_up(bus_cycle));
    }

    /// Count `turns[e]` and find `last_to[e]` afresh, after a leg went in or out of the middle.
    #[cold]
    #[inline(never)]
    fn count_turns(&mut self, e: usize) {
        let q = &self.pending[e];
        self.turns[e] = turns_in(q);
        self.last_to[e] = q.back().map_or(0, |a| a.to);
    }

    /// The sources with a leg ready by `now` (a bit each) and when the first of the others is;
    /// of the ready ones, those whose on-ramp is still busy, and when the first of those frees:
    /// a busy source need not be offered to the grant loop at all, and whether a ramp is busy
    /// is a coin toss to the predictor, so it is found without a branch.
    #[inline]
    fn scan(&self, now: Time) -> Scan {
        let mut scan = Scan { ready: 0, unready: NEVER, ramp_busy: 0, ramp_free: NEVER };
        let mut sources = self.pending_mask as u32;
        while sources != 0 {
            let e = sources.trailing_zeros() as usize;
            sources &= sources - 1;
            let at = self.heads[e].at;
            if at > now {
                scan.unready = scan.unready.min(at);
                continue;
            }
            scan.ready |= 1 << e;
            let on = self.on_free[e];
            scan.ramp_busy |= ((on > now) as u32) << e;
            scan.ramp_free = scan.ramp_free.min(if on > now { on } else { NEVER });
        }
        scan
    }

    /// Which leg of source `e` (ready, its on-ramp free) the arbiter can grant now, within
    /// `LOOKAHEAD` of the head, the ring it gets and the segments it holds there; otherwise
    /// lowers `next` to when one might.
    #[inline]
    fn choose(
        &mut self,
        e: usize,
        now: Time,
        n: usize,
        max_transfers: usize,
        blind: Blind,
        next: &mut Time,
    ) -> Option<(usize, usize, u16)> {
        // Nearly always the head goes; the legs behind it are looked at out of line.
        let head = self.heads[e];
        match self.ring_for(e, head, now, n, max_transfers, blind, next) {
            Some((ring, mask)) => Some((0, ring, mask)),
            None if self.skip_refused && self.turns[e] == 0 => {
                self.unasked |= 1 << e;
                None
            }
            None => self.choose_behind(e, now, n, max_transfers, blind, next),
        }
    }

    /// The contention-free bus (`eib.contention = false`): the head goes once its off-ramp is
    /// free, on the first ring of its shortest way (clockwise when half-way), which holds
    /// nothing, so any number of transfers share it.
    #[cold]
    #[inline(never)]
    fn uncontended(&mut self, e: usize, now: Time, n: usize, next: &mut Time) -> Option<(usize, usize, u16)> {
        let head = self.heads[e];
        let to = head.to as usize;
        if self.off_free[to] > now {
            *next = (*next).min(self.off_free[to]);
            return None;
        }
        let rt = &self.routes[e * ELEMENTS_PER_CHIP + to];
        Some((0, if rt.cw_ok { 0 } else { n }, 0))
    }

    #[cold]
    #[inline(never)]
    fn choose_behind(
        &mut self,
        e: usize,
        now: Time,
        n: usize,
        max_transfers: usize,
        blind: Blind,
        next: &mut Time,
    ) -> Option<(usize, usize, u16)> {
        // A leg bound where a leg before it was refused is refused too: `ring_for` depends on
        // the source, the destination and the time alone (retiring is idempotent), so it is
        // not asked again. A stream's legs mostly share one destination.
        let mut refused = 1u32 << self.heads[e].to;
        for j in 1..self.pending[e].len().min(LOOKAHEAD) {
            let leg = self.pending[e].get(j);
            if leg.at > now {
                *next = (*next).min(leg.at);
                return None;
            }
            if self.skip_refused && refused & 1 << leg.to != 0 {
                continue;
            }
            refused |= 1 << leg.to;
            if let Some((ring, mask)) = self.ring_for(e, leg, now, n, max_transfers, blind, next) {
                return Some((j, ring, mask));
            }
        }
        None
    }

    /// The ring a ready leg from `e` can take now, if its off-ramp is free.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn ring_for(
        &mut self,
        e: usize,
        leg: Arrival,
        now: Time,
        n: usize,
        max_transfers: usize,
        blind: Blind,
        next: &mut Time,
    ) -> Option<(usize, u16)> {
        let to = leg.to as usize;
        if self.off_free[to] > now {
            *next = (*next).min(self.off_free[to]);
            return None;
        }
        // Hashed only here, where a ring is chosen: a leg whose off-ramp is busy needs no draw.
        let half = (self.half_way, self.half_ccw_first);
        pick_ring(&mut self.rings, n, &self.routes[e * ELEMENTS_PER_CHIP + to], now, max_transfers, blind.draw(), half, next)
    }

    /// Grant leg `j` of source `e` ring `ring` for `dur`: it holds the ramps and the ring, leaves
    /// the queue, and the round-robin moves past `e`. Returns when the packet arrives.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn grant(&mut self, now: Time, e: usize, j: usize, leg: Arrival, ring: usize, mask: u16, dur: Time, p: &Params) -> Time {
        let to = leg.to as usize;
        let n = p.rings_per_direction as usize;
        let cw = ring < n;
        let rt = &mut self.routes[e * ELEMENTS_PER_CHIP + to];
        let half_way = rt.either_way();
        if half_way {
            match self.half_way {
                // Kept by the pair from its first grant (for a stream, until its queue empties:
                // below, once the leg has left it).
                HalfWay::PairFirstGrant | HalfWay::Stream => (rt.cw_ok, rt.ccw_ok) = (cw, !cw),
                HalfWay::RoundRobin => self.half_ccw_first = !self.half_ccw_first,
                HalfWay::Clockwise | HalfWay::Overlap | HalfWay::Occupancy => {}
            }
        }
        let arrive = now + dur + Time(rt.hops as u64 * p.hop_latency.0);
        self.on_free[e] = now + dur;
        self.off_free[to] = now + if to == MIC { dur.max(p.mic_access) } else { dur };
        if p.contention {
            let r = &mut self.rings[ring];
            r.ready_at = now + p.ring_start_interval;
            r.push(now + dur, mask);
            if p.direction_limit == DirectionLimit::DirectionRate {
                self.limit_direction(now, cw, n, p);
            }
        }
        let q = &mut self.pending[e];
        if j == 0 {
            q.pop_front();
            // The leg that goes was the head.
            self.turns[e] -= q.front().is_some_and(|h| h.to != leg.to) as u32;
        } else {
            q.remove(j);
            self.count_turns(e);
        }
        let q = &self.pending[e];
        debug_assert_eq!(self.turns[e], turns_in(q), "the turns kept for source {e}");
        self.heads[e] = q.front().unwrap_or(NO_LEG);
        if q.is_empty() {
            self.pending_mask &= !(1 << e);
            self.last_at[e] = Time::ZERO;
        }
        self.rr = if e + 1 == ELEMENTS_PER_CHIP { 0 } else { e + 1 };
        if p.grant_order == GrantOrder::RoundRobinPerDirection {
            self.rr_dir[(!cw) as usize] = self.rr;
        }
        if self.half_way == HalfWay::Stream && self.routes[e * ELEMENTS_PER_CHIP + to].hops as usize * 2 == ELEMENTS_PER_CHIP {
            self.reopen_stream(e, to);
        }
        arrive
    }

    /// A stream's half-way direction holds while its source has packets queued for the same
    /// destination; once none is left, the pair chooses afresh at its next grant.
    #[cold]
    #[inline(never)]
    fn reopen_stream(&mut self, e: usize, to: usize) {
        let q = &self.pending[e];
        if !(0..q.len()).any(|i| q.get(i).to as usize == to) {
            let rt = &mut self.routes[e * ELEMENTS_PER_CHIP + to];
            (rt.cw_ok, rt.ccw_ok) = (true, true);
        }
    }

    /// A grant rate per direction: after a start in one direction at `now` (clockwise if
    /// `cw`), none of that direction's rings starts again before
    /// `eib.direction_interval_bus_cycles`.
    #[cold]
    #[inline(never)]
    fn limit_direction(&mut self, now: Time, cw: bool, n: usize, p: &Params) {
        let first = if cw { 0 } else { n };
        for r in &mut self.rings[first..first + n] {
            r.ready_at = r.ready_at.max(now + p.direction_interval);
        }
    }

    /// Command slots per direction: on a step at `now` (a bus-cycle boundary), the direction
    /// whose slot it is not (clockwise has the even cycles, counter-clockwise the odd) starts
    /// nothing before the next cycle, so every start falls in its direction's slot.
    #[cold]
    #[inline(never)]
    fn close_other_slot(&mut self, now: Time, n: usize, bus: Time) {
        let odd = (now.0 / bus.0) % 2 == 1;
        let first = if odd { 0 } else { n };
        for r in &mut self.rings[first..first + n] {
            r.ready_at = r.ready_at.max(now + bus);
        }
    }
}

/// How many of the legs in `q` are bound elsewhere than the leg before them.
fn turns_in(q: &Fifo<Arrival>) -> u32 {
    (1..q.len()).filter(|&i| q.get(i).to != q.get(i - 1).to).count() as u32
}

/// Insert `a` after the entries whose key is not greater. Entries come nearly in order, so this
/// is nearly always an append.
#[inline(always)]
fn insert_by<T: Copy + Default, K: PartialOrd>(q: &mut Fifo<T>, a: T, key: impl Fn(&T) -> K) {
    let k = key(&a);
    if q.back().is_none_or(|b| key(&b) <= k) {
        q.push_back(a);
    } else {
        let i = (0..q.len()).rev().find(|&i| key(&q.get(i)) <= k).map_or(0, |i| i + 1);
        q.insert(i, a);
    }
}

/// The first ring that can take route `rt` now (its ended transfers retired), and the segments
/// it holds there; otherwise lowers `next` to when one might.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the ring state and the leg's, passed apart so nothing is copied
fn pick_ring(
    rings: &mut [Ring; 2 * MAX_RINGS_PER_DIRECTION],
    n: usize,
    rt: &Route,
    now: Time,
    max_transfers: usize,
    draw: Option<u64>,
    half: (HalfWay, bool),
    next: &mut Time,
) -> Option<(usize, u16)> {
    if rt.either_way() {
        return pick_ring_half_way(rings, n, rt, now, max_transfers, draw, half, next);
    }
    // The usual case: one shortest way. Rings 0..n go clockwise, n..2n counter-clockwise.
    let (first, mask) = if rt.cw_ok { (0, rt.cw_mask) } else { (n, rt.ccw_mask) };
    ring_of_direction(&mut rings[first..first + n], first, mask, now, max_transfers, draw, next)
}

/// A half-way transfer tries first the direction its policy prefers (`half`: the policy and,
/// for the round-robin one, whether counter-clockwise is first), then the other. By overlap:
/// the direction where fewer transfers in flight cross its path, then the emptier one; by
/// occupancy: the emptier one; ties clockwise.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn pick_ring_half_way(
    rings: &mut [Ring; 2 * MAX_RINGS_PER_DIRECTION],
    n: usize,
    rt: &Route,
    now: Time,
    max_transfers: usize,
    draw: Option<u64>,
    half: (HalfWay, bool),
    next: &mut Time,
) -> Option<(usize, u16)> {
    rings[..2 * n].iter_mut().for_each(|r| r.settle(now));
    let (cw_rings, ccw_rings) = rings[..2 * n].split_at(n);
    let overlap = |on: &[Ring], mask: u16| on.iter().map(|r| r.overlapping(mask)).sum::<usize>();
    let load = |on: &[Ring]| on.iter().map(|r| r.len).sum::<usize>();
    let ccw_first = match half.0 {
        HalfWay::RoundRobin => half.1,
        HalfWay::Occupancy => load(ccw_rings) < load(cw_rings),
        // Clockwise never gets here (its routes are narrowed in `Bus::new`).
        HalfWay::Clockwise | HalfWay::PairFirstGrant | HalfWay::Stream | HalfWay::Overlap => {
            (overlap(ccw_rings, rt.ccw_mask), load(ccw_rings)) < (overlap(cw_rings, rt.cw_mask), load(cw_rings))
        }
    };
    let order = if ccw_first { [(n, rt.ccw_mask), (0, rt.cw_mask)] } else { [(0, rt.cw_mask), (n, rt.ccw_mask)] };
    order.into_iter().find_map(|(first, mask)| ring_of_direction(&mut rings[first..first + n], first, mask, now, max_transfers, draw, next))
}

/// The ring of one direction's `rings` (numbered from `first`) that takes `mask` now: the first
/// open one, or the drawn one for a blind assignment (`draw`).
#[inline(always)]
fn ring_of_direction(
    rings: &mut [Ring],
    first: usize,
    mask: u16,
    now: Time,
    max_transfers: usize,
    draw: Option<u64>,
    next: &mut Time,
) -> Option<(usize, u16)> {
    match draw {
        None => free_ring(rings, first, mask, now, max_transfers, next),
        Some(d) => drawn_ring(rings, first, mask, now, max_transfers, d, next),
    }
}

/// A blind assignment: of `rings` (numbered from `first`), those that can carry
/// `mask` (room and no overlapping transfer), one drawn by `draw` whatever its start gate; the
/// packet goes only if that one may start now. Otherwise lowers `next` to when a draw might
/// succeed.
#[inline]
fn drawn_ring(
    rings: &mut [Ring],
    first: usize,
    mask: u16,
    now: Time,
    max_transfers: usize,
    draw: u64,
    next: &mut Time,
) -> Option<(usize, u16)> {
    let mut can = [0usize; MAX_RINGS_PER_DIRECTION];
    let mut count = 0;
    for (i, r) in rings.iter_mut().enumerate() {
        r.settle(now);
        if r.len >= max_transfers || r.held & mask != 0 {
            *next = (*next).min(r.first_end);
        } else {
            can[count] = i;
            count += 1;
        }
    }
    if count == 0 {
        return None;
    }
    let i = can[pick(draw, count) as usize];
    if rings[i].ready_at <= now {
        return Some((first + i, mask));
    }
    for &k in &can[..count] {
        *next = (*next).min(rings[k].ready_at.max(now + Time(1)));
    }
    None
}

/// Which of `count` (1 to 4) suitable rings a blind assignment takes: `draw % count` without a
/// 64-bit division (by a constant 3 it is a multiply).
#[inline(always)]
fn pick(draw: u64, count: usize) -> u64 {
    debug_assert!((1..=MAX_RINGS_PER_DIRECTION).contains(&count));
    match count {
        1 => 0,
        2 => draw & 1,
        3 => draw % 3,
        _ => draw & 3,
    }
}

/// Whether source `e` of `chip` assigns a ring blind at `now`, and its draw: kept as the hash's
/// input until a ring is to be chosen, so that a leg refused for its ramps costs no hash.
#[derive(Clone, Copy)]
struct Blind {
    /// `Params::blind_below`: the share of blind assignments in 2^32 (0: none).
    below: u64,
    key: u64,
}

impl Blind {
    #[inline(always)]
    fn new(now: Time, chip: usize, e: usize, seed: u64, below: u64) -> Blind {
        Blind { below, key: now.0 ^ ((chip as u64) << 62) ^ ((e as u64) << 56) ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) }
    }

    /// The draw of a blind assignment, `None` for one that takes an open ring.
    #[inline(always)]
    fn draw(self) -> Option<u64> {
        (self.below > 0).then(|| draw(self.key)).filter(|d| d >> 32 < self.below)
    }
}

/// The arbiter's draw for `key` (the time, chip and source, and the machine file's
/// `eib.draw_seed`: [`Blind::new`]), so that it does not depend on how many steps the arbiter
/// took before (running ahead or not decides the same).
#[inline]
fn draw(key: u64) -> u64 {
    let mut x = key;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The first of `rings` (numbered from `first`) that may start a transfer over `mask` now.
#[inline]
fn free_ring(rings: &mut [Ring], first: usize, mask: u16, now: Time, max_transfers: usize, next: &mut Time) -> Option<(usize, u16)> {
    for (i, r) in rings.iter_mut().enumerate() {
        if r.ready_at > now {
            *next = (*next).min(r.ready_at);
            continue;
        }
        r.settle(now);
        if r.len >= max_transfers || r.held & mask != 0 {
            *next = (*next).min(r.first_end);
            continue;
        }
        return Some((first + i, mask));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use crate::machine::config::{load, preset_text};
    use crate::spu::{AtomicOp, Spu};
    use crate::Blade;

    /// Per operation: the SPE, when it finished, and the bytes it saw.
    type Seen = Vec<(usize, u64, Vec<u8>)>;

    /// Every SPE mixes far and near memory, both directions, other SPEs' local stores (on its
    /// chip and across, SPE 1 from SPE 6 exactly half the ring away) and one shared atomic line;
    /// returns what each operation saw, and the run's simulated end and packets.
    fn mixed_traffic(run_ahead: bool) -> (Seen, u64, u64) {
        let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
        let xdram = file.memory.xdram_bytes;
        let mut blade = Blade::new(file, false);
        if !run_ahead {
            blade.machine().bus.without_run_ahead();
        }
        for spe in 0..16 {
            let seed: Vec<u8> = (0..16384u32).map(|i| (i * 7 + spe as u32 * 13) as u8).collect();
            blade.machine().mem.write_mem(spe as u64 * 65536, &seed);
        }
        let log: Rc<RefCell<Seen>> = Rc::default();
        for spe in 0..16 {
            let log = log.clone();
            blade
                .spe(spe, move |spu: Spu| async move {
                    let buf = spu.ls_alloc(16384, 128)?;
                    let scratch = spu.ls_alloc(128, 128)?;
                    spu.ls_write(buf, &vec![spe as u8; 16384])?;
                    spu.mfc_write_tag_mask(1);
                    let sizes = [16384u32, 128, 4096, 2048, 16];
                    let far = (1 - spe as u64 / 8) * xdram;
                    for round in 0..3usize {
                        let size = sizes[(spe + round) % sizes.len()];
                        let ops: [(bool, u64); 4] = [
                            (true, far + ((spe + round) % 16) as u64 * 65536),
                            (false, (spe as u64 / 8) * xdram + (1 << 24) + spe as u64 * 65536),
                            (true, Spu::ls_ea((spe + 5) % 16, 0)),
                            (true, Spu::ls_ea(spe ^ 8, 0)),
                        ];
                        for (get, ea) in ops {
                            if get {
                                spu.mfc_get(buf, ea, size, 0).await?;
                            } else {
                                spu.mfc_put(buf, ea, size, 0).await?;
                            }
                            spu.mfc_read_tag_status_all().await?;
                            log.borrow_mut().push((spe, spu.now().0, spu.ls_read(buf, size.min(256))?));
                        }
                        let old = spu.atomic_rmw(scratch, 1 << 28, AtomicOp::Add(spe as u32 + 1)).await?;
                        log.borrow_mut().push((spe, spu.now().0, old.to_le_bytes().to_vec()));
                    }
                    Ok(())
                })
                .unwrap();
        }
        let report = blade.run().unwrap();
        let mut seen = Rc::try_unwrap(log).unwrap().into_inner();
        seen.sort();
        (seen, report.simulated.0, report.packets)
    }

    #[test]
    fn a_blind_pick_is_the_draw_modulo_the_suitable_rings() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            x = super::draw(x);
            for count in 1..=super::MAX_RINGS_PER_DIRECTION {
                assert_eq!(super::pick(x, count), x % count as u64, "{x} % {count}");
            }
        }
    }

    #[test]
    fn arbiters_running_ahead_decide_what_stepping_in_turn_decides() {
        let (ahead, end_ahead, packets_ahead) = mixed_traffic(true);
        let (in_turn, end_in_turn, packets_in_turn) = mixed_traffic(false);
        assert_eq!(ahead.len(), 16 * 3 * 5);
        assert_eq!((end_ahead, packets_ahead), (end_in_turn, packets_in_turn));
        assert!(ahead == in_turn, "operation times or data differ between running ahead and stepping in turn");
    }

    /// The arbiter's rules, each in a small scenario on chip 0 whose delivery times are worked
    /// out by hand from the machine file: `cp` command phase, `pkt` a 128-byte packet's 8 beats,
    /// `hop` one ramp. Ring positions (qs20): PPE 0, SPE1 1, SPE3 2, SPE5 3, SPE7 4, IOIF1 5,
    /// IOIF0 6, SPE6 7, SPE4 8, SPE2 9, SPE0 10, MIC 11.
    mod arbiter {
        use super::super::*;
        use crate::machine::config::{load, preset_text, Params};
        use crate::machine::topology::Element;
        use crate::machine::trace::Tracer;

        struct Run {
            delivered: Vec<u64>,
            /// (from -> to, ring) of every grant on chip 0 (its EIB is trace process 1).
            grants: Vec<(String, u64)>,
            p: Params,
        }

        /// Start each (time, src, dst) as a 128-byte coherent transaction from chip 0 at its
        /// time, and step the bus to the end.
        fn drive(set: &[&str], starts: &[(u64, Element, Element)]) -> Run {
            let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
            let p = Params::resolve(&load(preset_text("qs20").unwrap(), &set).unwrap());
            let mut bus: Bus<usize> = Bus::new(&p);
            let mut tr = Tracer::new(true);
            let mut delivered = vec![0; starts.len()];
            let mut next = 0;
            loop {
                let step = bus.next_step();
                match starts.get(next) {
                    Some(&(t, src, dst)) if step.is_none_or(|s| Time(t) <= s) => {
                        bus.start(Time(t), src, dst, 128, 0, Storage::Coherent, next);
                        next += 1;
                    }
                    _ => match step {
                        Some(t) => {
                            if let (_, Some(id)) = bus.step(t, &mut tr) {
                                delivered[bus.txn(id).client] = t.0;
                            }
                        }
                        None => break,
                    },
                }
            }
            let trace = tr.finish().unwrap().trace.expect("an in-memory trace");
            let grants = trace["traceEvents"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["ph"] == "X" && e["pid"] == 1)
                .map(|e| (e["name"].as_str().unwrap().to_string(), e["tid"].as_u64().unwrap()))
                .collect();
            Run { delivered, grants, p }
        }

        fn units(p: &Params) -> (u64, u64, u64, u64) {
            (p.command_phase.0, 8 * p.bus_cycle.0, p.hop_latency.0, p.bus_cycle.0)
        }

        #[test]
        fn the_mic_goes_first() {
            let p = Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap());
            let (cp, pkt, hop, bus) = units(&p);
            // The MIC's leg is ready after the command phase and the XDR read; SPE1's transfer
            // is started so that its leg is ready at the same arbiter step. Both want SPE0's
            // off-ramp; round-robin alone would pick SPE1 (index 2 < MIC's 9).
            let ready = (cp + p.mic_read_latency.0).div_ceil(bus) * bus;
            let r = drive(&[], &[(0, Element::mic(0), Element::spe(0)), (ready - cp, Element::spe(1), Element::spe(0))]);
            // MIC -> SPE0 is one hop; SPE1 -> SPE0 three (counter-clockwise through the MIC's
            // ramp), granted when the off-ramp is free again, one packet later.
            assert_eq!(r.delivered, vec![ready + pkt + hop, ready + pkt + pkt + 3 * hop]);
        }

        #[test]
        fn sources_are_served_round_robin() {
            let p = Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap());
            let (cp, pkt, hop, bus) = units(&p);
            // SPE0 and SPE2 send two packets each to SPE1, started one command-bus slot apart:
            // SPE0 A, SPE0 B, SPE2 A, SPE2 B. The off-ramp takes one packet at a time; after
            // each grant the round-robin moves past the granted source, so the second grant goes
            // to SPE2 although SPE0's second packet was ready first.
            let (s0, s1, s2) = (Element::spe(0), Element::spe(1), Element::spe(2));
            let r = drive(&[], &[(0, s0, s1), (bus, s0, s1), (2 * bus, s2, s1), (3 * bus, s2, s1)]);
            // SPE0 -> SPE1: 3 hops clockwise; SPE2 -> SPE1: 4.
            let grant = |k: u64| cp + k * pkt;
            assert_eq!(
                r.delivered,
                vec![grant(0) + pkt + 3 * hop, grant(2) + pkt + 3 * hop, grant(1) + pkt + 4 * hop, grant(3) + pkt + 4 * hop]
            );
        }

        #[test]
        fn a_ring_carries_at_most_three_transfers() {
            // One ring each way and no start interval, so only the per-ring limit can delay.
            // Four one-hop clockwise transfers on disjoint segments, ready one bus cycle apart:
            // SPE1 -> SPE3, SPE5 -> SPE7, SPE6 -> SPE4, SPE2 -> SPE0.
            let set = ["eib.rings_per_direction=1", "eib.ring_start_interval_bus_cycles=1"];
            let starts: Vec<(u64, Element, Element)> = [(1, 3), (5, 7), (6, 4), (2, 0)]
                .iter()
                .enumerate()
                .map(|(k, &(a, b))| (16 * k as u64, Element::spe(a), Element::spe(b)))
                .collect();
            let r = drive(&set, &starts);
            let (cp, pkt, hop, bus) = units(&r.p);
            let first3: Vec<u64> = (0..3).map(|k| cp + k * bus + pkt + hop).collect();
            // The fourth waits for the first transfer to leave the ring.
            assert_eq!(r.delivered, [first3, vec![cp + pkt + pkt + hop]].concat());
            // With room for four, it goes when it is ready.
            let set4 = [set[0], set[1], "eib.max_transfers_per_ring=4"];
            assert_eq!(drive(&set4, &starts).delivered[3], cp + 3 * bus + pkt + hop);
        }

        #[test]
        fn without_contention_every_ready_leg_goes_at_once() {
            // Two transfers over the same segments (SPE0 -> SPE6 and SPE2 -> SPE4, counter-
            // clockwise through SPE2's and SPE4's ramps) and a third on one ring, all ready
            // together: with contention each waits for a ring; without, all go in the first
            // grant step, each the packet time and its hops later.
            let starts =
                [(0, Element::spe(0), Element::spe(6)), (0, Element::spe(2), Element::spe(4)), (0, Element::spe(1), Element::spe(3))];
            let set = ["eib.rings_per_direction=1", "eib.contention=false"];
            let r = drive(&set, &starts);
            // The commands take the command bus at once too: no slot per bus cycle.
            let (cp, pkt, hop, _) = units(&r.p);
            assert_eq!(r.delivered, vec![cp + pkt + 3 * hop, cp + pkt + hop, cp + pkt + hop]);
            let contended = drive(&set[..1], &starts);
            assert!(contended.delivered.iter().zip(&r.delivered).any(|(c, f)| c > f), "{:?}", contended.delivered);
        }

        #[test]
        fn a_half_way_transfer_avoids_the_direction_with_traffic_on_its_path() {
            // SPE1 -> SPE6 is six hops either way. A clockwise transfer on its clockwise path
            // (SPE3 -> SPE5, granted first) leaves a clockwise ring free, so either way is open;
            // the rule takes the way with fewer transfers crossing the path: counter-clockwise.
            let starts =
                [(0, Element::spe(3), Element::spe(5)), (16, Element::spe(1), Element::spe(6)), (5000, Element::spe(1), Element::spe(6))];
            let r = drive(&[], &starts);
            let (cp, pkt, hop, bus) = units(&r.p);
            let n = r.p.rings_per_direction as u64;
            let ring_of = |name: &str| r.grants.iter().filter(|g| g.0 == name).map(|g| g.1).collect::<Vec<_>>();
            assert_eq!(ring_of("SPE3 -> SPE5"), vec![0]);
            // Both packets of the half-way stream go counter-clockwise: the second keeps the
            // direction of the first although the clockwise path is empty by then.
            assert!(ring_of("SPE1 -> SPE6").iter().all(|&ring| ring >= n), "{:?}", r.grants);
            assert_eq!(r.delivered[1], cp + bus + pkt + 6 * hop);
            // Alone, the same transfer goes clockwise (the rule's tie-break).
            let alone = drive(&[], &starts[1..2]);
            assert!(alone.grants.iter().all(|g| g.1 < n), "{:?}", alone.grants);
        }

        /// The half-way policies on the scenario above: per packet by overlap, the stream's
        /// second packet goes clockwise once the clockwise path is empty; per stream, the pair
        /// keeps counter-clockwise while its queue holds packets, and the packet started long
        /// after (its queue empty) chooses afresh, clockwise; fixed per pair, all go clockwise.
        #[test]
        fn each_half_way_policy_chooses_when_its_rule_says() {
            let starts =
                [(0, Element::spe(3), Element::spe(5)), (16, Element::spe(1), Element::spe(6)), (5000, Element::spe(1), Element::spe(6))];
            let rings = |policy: &str| {
                let r = drive(&[policy], &starts);
                let n = r.p.rings_per_direction as u64;
                r.grants.iter().filter(|g| g.0 == "SPE1 -> SPE6").map(|g| g.1 >= n).collect::<Vec<bool>>()
            };
            // true: counter-clockwise.
            assert_eq!(rings("eib.half_way=pair_first_grant"), vec![true, true]);
            assert_eq!(rings("eib.half_way=stream"), vec![true, false]);
            assert_eq!(rings("eib.half_way=overlap"), vec![true, false]);
            assert_eq!(rings("eib.half_way=clockwise"), vec![false, false]);
            // By occupancy the one transfer clockwise weighs as much as by overlap here.
            assert_eq!(rings("eib.half_way=occupancy"), vec![true, false]);
        }

        #[test]
        fn the_round_robin_pointer_alternates_half_way_directions() {
            // Four half-way packets alone, each after the last has gone: by overlap each goes
            // clockwise (the tie-break); the round-robin pointer alternates.
            let starts: Vec<(u64, Element, Element)> = (0..4).map(|k| (k * 5000, Element::spe(1), Element::spe(6))).collect();
            let dirs = |policy: &str| {
                let r = drive(&[policy], &starts);
                let n = r.p.rings_per_direction as u64;
                r.grants.iter().map(|g| g.1 >= n).collect::<Vec<bool>>()
            };
            assert_eq!(dirs("eib.half_way=round_robin"), vec![false, true, false, true]);
            assert_eq!(dirs("eib.half_way=overlap"), vec![false; 4]);
        }

        #[test]
        fn oldest_first_grants_the_oldest_ready_packet() {
            let p = Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap());
            let (cp, pkt, hop, bus) = units(&p);
            // `sources_are_served_round_robin`'s four packets: oldest first, SPE0's second packet
            // (ready a slot before SPE2's first) goes second.
            let (s0, s1, s2) = (Element::spe(0), Element::spe(1), Element::spe(2));
            let r = drive(&["eib.grant_order=oldest_first"], &[(0, s0, s1), (bus, s0, s1), (2 * bus, s2, s1), (3 * bus, s2, s1)]);
            let grant = |k: u64| cp + k * pkt;
            assert_eq!(
                r.delivered,
                vec![grant(0) + pkt + 3 * hop, grant(1) + pkt + 3 * hop, grant(2) + pkt + 4 * hop, grant(3) + pkt + 4 * hop]
            );
        }

        #[test]
        fn shortest_first_grants_the_shorter_path() {
            // SPE7 -> SPE5 holds SPE5's off-ramp while SPE0 -> SPE5 (5 hops) and SPE3 -> SPE5
            // (1 hop) become ready; when it frees, round-robin from past SPE7 wraps to SPE0,
            // shortest-first takes SPE3.
            let p = Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap());
            let bus = p.bus_cycle.0;
            let starts = [
                (0, Element::spe(7), Element::spe(5)),
                (bus, Element::spe(0), Element::spe(5)),
                (2 * bus, Element::spe(3), Element::spe(5)),
            ];
            let rr = drive(&[], &starts).delivered;
            assert!(rr[1] < rr[2], "{rr:?}");
            let short = drive(&["eib.grant_order=shortest_first"], &starts).delivered;
            assert!(short[2] < short[1], "{short:?}");
            // The per-direction pointer has granted nothing either way yet: from 0, SPE0 first.
            let per_direction = drive(&["eib.grant_order=round_robin_per_direction"], &starts).delivered;
            assert!(per_direction[1] < per_direction[2], "{per_direction:?}");
        }

        #[test]
        fn command_slots_start_counter_clockwise_transfers_on_odd_bus_cycles_only() {
            let p = Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap());
            let (cp, pkt, hop, bus) = units(&p);
            assert_eq!((cp / bus) % 2, 0, "the leg is ready on an even bus cycle");
            let slot = "eib.direction_limit=command_slot";
            // SPE6 -> SPE4 is one hop clockwise, SPE4 -> SPE6 one hop counter-clockwise.
            let cw = drive(&[slot], &[(0, Element::spe(6), Element::spe(4))]).delivered;
            let ccw = drive(&[slot], &[(0, Element::spe(4), Element::spe(6))]).delivered;
            assert_eq!(cw, vec![cp + pkt + hop]);
            assert_eq!(ccw, vec![cp + bus + pkt + hop]);
            assert_eq!(drive(&[], &[(0, Element::spe(4), Element::spe(6))]).delivered, vec![cp + pkt + hop]);
        }

        #[test]
        fn a_grant_rate_per_direction_spaces_starts_on_either_ring() {
            // Two clockwise transfers on disjoint paths, ready a bus cycle apart: each ring is
            // free, but the direction starts one transfer per 16 bus cycles.
            let starts = [(0, Element::spe(1), Element::spe(3)), (0, Element::spe(5), Element::spe(7))];
            let set = ["eib.direction_limit=direction_rate", "eib.direction_interval_bus_cycles=16", "eib.blind_share=0"];
            let r = drive(&set, &starts);
            let (cp, pkt, hop, bus) = units(&r.p);
            assert_eq!(r.delivered, vec![cp + pkt + hop, cp + 16 * bus + pkt + hop]);
            assert_eq!(drive(&set[2..], &starts).delivered, vec![cp + pkt + hop, cp + bus + pkt + hop]);
        }

        /// Three streams one way on paths that do not overlap (Table 1 #3: 2 <- 0, 5 <- 7,
        /// 6 <- 4), 24 packets each: choosing among the open rings never keeps a packet waiting
        /// (each stream ends when its ramps allow); blind draws sometimes pick a ring that may
        /// not start yet, so the streams end later, more so the more of the assignments are
        /// blind, the same way on every run.
        #[test]
        fn blind_ring_draws_make_packets_wait_that_an_open_choice_would_send() {
            let streams = [(Element::spe(0), Element::spe(2)), (Element::spe(7), Element::spe(5)), (Element::spe(4), Element::spe(6))];
            let starts: Vec<(u64, Element, Element)> = (0..24).flat_map(|_| streams.iter().map(|&(s, d)| (0, s, d))).collect();
            let last = |share: &str| *drive(&[share], &starts).delivered.iter().max().unwrap();
            let open = drive(&["eib.blind_share=0"], &starts);
            let (cp, pkt, hop, _) = units(&open.p);
            // Each source sends a packet every eight beats from the end of the command phase.
            let first_grant = *open.delivered.iter().min().unwrap() - pkt - hop;
            assert!(first_grant >= cp);
            let never = last("eib.blind_share=0");
            assert!(never <= first_grant + 24 * pkt + 3 * open.p.bus_cycle.0 + 3 * hop);
            let always = last("eib.blind_share=1");
            assert!(always > never, "always blind {always}, never {never}");
            assert!(last("eib.blind_share=0.5") > never);
            assert_eq!(always, last("eib.blind_share=1"));
        }

        /// Two 4-byte writes from SPE 8 (chip 1) to SPE 0, started one command slot apart, as
        /// each kind of storage: guarded ones cross one at a time, the second a whole crossing
        /// after the first; cache-inhibited ones overlap (one slot apart); coherent ones pay no
        /// crossing latency at all.
        #[test]
        fn crossing_costs_follow_how_the_target_is_mapped() {
            // A blind ring draw may hold the second packet a few cycles: not what this is about.
            let p = Params::resolve(&load(preset_text("qs20").unwrap(), &["eib.blind_share=0".into()]).unwrap());
            let run = |storage: Storage| {
                let mut bus: Bus<usize> = Bus::new(&p);
                let mut tr = Tracer::new(false);
                for k in 0..2 {
                    bus.start(Time::ZERO, Element::spe(8), Element::spe(0), 4, 1, storage, k);
                }
                let mut at = [0u64; 2];
                while let Some(t) = bus.next_step() {
                    if let (_, Some(id)) = bus.step(t, &mut tr) {
                        at[bus.txn(id).client] = t.0;
                    }
                }
                at
            };
            let (m, bus_cycle) = (p.bif_noncacheable_crossing.0, p.bus_cycle.0);
            let (guarded, inhibited, coherent) = (run(Storage::Guarded), run(Storage::CacheInhibited), run(Storage::Coherent));
            assert_eq!(guarded[0], inhibited[0]);
            assert_eq!(guarded[1] - guarded[0], m);
            assert_eq!(inhibited[1] - inhibited[0], bus_cycle);
            assert_eq!(inhibited[0] - coherent[0], m - p.bif_crossing.0);
            assert_eq!(coherent[1] - coherent[0], bus_cycle);
        }

        /// The same 4-byte move from SPE 8 (chip 1) to SPE 0, as a write SPE 8 starts and as a
        /// read SPE 0 starts: a cache-inhibited or guarded read waits for its data to cross
        /// back, `bif.noncacheable_read_return_ns` (in whole bus cycles) later than the posted
        /// write; a coherent one does not, and with the return at 0 reads and writes arrive
        /// together.
        #[test]
        fn a_cache_inhibited_read_from_the_other_chip_waits_for_its_data_to_cross_back() {
            let arrival = |set: &str, storage: Storage, initiator_chip: usize| {
                let p = Params::resolve(&load(preset_text("qs20").unwrap(), &["eib.blind_share=0".into(), set.into()]).unwrap());
                let mut bus: Bus<usize> = Bus::new(&p);
                let mut tr = Tracer::new(false);
                bus.start(Time::ZERO, Element::spe(8), Element::spe(0), 4, initiator_chip, storage, 0);
                let mut at = 0;
                while let Some(t) = bus.next_step() {
                    if let (_, Some(_)) = bus.step(t, &mut tr) {
                        at = t.0;
                    }
                }
                // The data leg starts on a bus cycle.
                (at, p.bif_noncacheable_read_return.0.div_ceil(p.bus_cycle.0) * p.bus_cycle.0)
            };
            for storage in [Storage::CacheInhibited, Storage::Guarded] {
                let (write, _) = arrival("bif.noncacheable_read_return_ns=42.7", storage, 1);
                let (read, back) = arrival("bif.noncacheable_read_return_ns=42.7", storage, 0);
                assert!(back > 0);
                assert_eq!(read - write, back, "{storage:?}");
                let (write0, _) = arrival("bif.noncacheable_read_return_ns=0", storage, 1);
                let (read0, _) = arrival("bif.noncacheable_read_return_ns=0", storage, 0);
                assert_eq!(read0, write0, "{storage:?}");
            }
            let (write, _) = arrival("bif.noncacheable_read_return_ns=42.7", Storage::Coherent, 1);
            let (read, _) = arrival("bif.noncacheable_read_return_ns=42.7", Storage::Coherent, 0);
            assert_eq!(read, write);
        }
    }
}
