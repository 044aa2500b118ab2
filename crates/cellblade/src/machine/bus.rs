//! The interconnect: each chip's command bus and EIB data rings with their arbiter, the MIC in
//! front of each XDR module, and the BIF between the chips.
//!
//! A transaction moves up to one 128-byte line from a source element to a destination element:
//!
//! ```text
//!  command bus slot (1 per bus cycle per chip)  -> command phase (snoop; + BIF crossing if the
//!  other chip is involved) -> [MIC read latency, one XDR burst per access] -> data leg(s):
//!  on-chip: src on-ramp -> ring segments -> dst off-ramp          (arbiter grants packets)
//!  cross-chip: src -> BIF element | BIF link (bandwidth, latency) | BIF element -> dst
//! ```
//!
//! The data arbiter grants a packet a ring when the source's on-ramp and destination's off-ramp
//! are free, a ring going the shortest way (either way for exactly half the ring) has no
//! overlapping transfer, fewer than `max_transfers_per_ring` transfers, and has not started one in
//! the last `ring_start_interval`; the MIC has priority, the others are served round-robin.
//! A packet holds its ramps and segments for one bus cycle per 16-byte beat.
//!
//! The bus is clocked rather than event-driven: when a transaction starts, the time its data is
//! ready (after the command phase and any XDR access) is known, so the leg goes straight into
//! its source's pending queue with that time; a grant likewise computes when the packet reaches
//! the other chip's BIF element or its destination. The event loop then asks [`Bus::next_step`]
//! and calls [`Bus::step`] for each arbiter step and each delivery, so no packet goes through the
//! event queue (it went through it five times across the BIF before, and the queue was a fifth
//! of the run time). An arbiter step at time t depends only on legs ready by t, all known
//! before t, so the order of the steps among other work at t changes nothing.

use crate::sim::fifo::Fifo;
use crate::sim::Time;

use super::config::Params;
use super::topology::{route, Element, Route, CHIPS, ELEMENTS_PER_CHIP, MIC};
use super::trace::Tracer;

pub type TxnId = usize;

/// A transaction leg that is ready for the data arbiter from `at` on: its command phase (and for
/// memory, the XDR access) is over, or it has crossed the BIF. It carries what the arbiter needs,
/// so that a step does not look up the transaction. Deliveries reuse it: `at` is then when the
/// data reaches its destination.
#[derive(Debug, Clone, Copy, Default)]
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

/// One transaction in flight. `client` is the caller's: handed back on completion.
#[derive(Debug, Clone, Copy)]
pub struct Txn<C> {
    pub bytes: u32,
    pub client: C,
}

/// One data ring; rings 0..n go clockwise, n..2n counter-clockwise (n per direction).
struct Ring {
    /// When the ring may start its next transfer (`ring_start_interval` after the last start).
    ready_at: Time,
    active: Active,
}

/// The most transfers a ring may carry at once (the machine file allows 1 to 6).
const MAX_TRANSFERS_PER_RING: usize = 6;

/// The transfers on one ring: when each ends and the segments it holds (a bit per segment).
/// A fixed array, retired lazily: only a ring the arbiter looks at, and only once its first
/// transfer has ended.
#[derive(Clone, Copy)]
struct Active {
    len: usize,
    end: [Time; MAX_TRANSFERS_PER_RING],
    segments: [u16; MAX_TRANSFERS_PER_RING],
    /// The earliest of `end` (`Time(u64::MAX)` when empty).
    first_end: Time,
}

impl Default for Active {
    fn default() -> Self {
        Active { len: 0, end: [Time::ZERO; MAX_TRANSFERS_PER_RING], segments: [0; MAX_TRANSFERS_PER_RING], first_end: Time(u64::MAX) }
    }
}

impl Active {
    /// Drop the transfers that have ended by `now`, keeping the others in order.
    #[inline]
    fn settle(&mut self, now: Time) {
        if now < self.first_end {
            return;
        }
        let mut kept = 0;
        self.first_end = Time(u64::MAX);
        for i in 0..self.len {
            if self.end[i] > now {
                self.end[kept] = self.end[i];
                self.segments[kept] = self.segments[i];
                self.first_end = self.first_end.min(self.end[i]);
                kept += 1;
            }
        }
        self.len = kept;
    }

    fn push(&mut self, end: Time, segments: u16) {
        self.end[self.len] = end;
        self.segments[self.len] = segments;
        self.first_end = self.first_end.min(end);
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
    /// Bit e set when `pending[e]` is non-empty: the arbiter skips idle sources without looking.
    pending_mask: u16,
    on_free: [Time; ELEMENTS_PER_CHIP],
    off_free: [Time; ELEMENTS_PER_CHIP],
    rings: Vec<Ring>,
    rr: usize,
    /// The arbiter's next step; `None` while it has nothing to do.
    step_at: Option<Time>,
    /// Route between every pair of this chip's elements, indexed `from * 12 + to`. A half-way
    /// pair keeps the direction its first packet took for the rest of the stream: the route is
    /// narrowed to it then.
    routes: Vec<Route>,
    command_free: Time,
    mic_free: Time,
}

/// The bus is clocked: it does all its work in [`Bus::step`], which the event loop calls at the
/// times [`Bus::next_step`] gives (an arbiter step, or data reaching its destination) instead of
/// pushing an event for each through the queue.
pub struct Bus<C> {
    p: Params,
    txns: Vec<Option<Txn<C>>>,
    free_ids: Vec<TxnId>,
    eibs: Vec<Eib>,
    /// By packet size (0..=128 bytes): how long it holds ramps and rings, and the BIF link.
    ring_time: Vec<Time>,
    bif_time: Vec<Time>,
    /// Next free time of the BIF link in each direction (index: source chip).
    bif_free: [Time; CHIPS],
    /// Transactions whose data is on its way to the destination, by arrival time (FIFO on ties).
    deliveries: Fifo<Arrival>,
    pub packets: u64,
}

/// How many ring-queue entries behind the head the arbiter may look at for one source.
const LOOKAHEAD: usize = 4;

impl<C: Copy> Bus<C> {
    pub fn new(p: &Params) -> Bus<C> {
        assert!(p.max_transfers_per_ring as usize <= MAX_TRANSFERS_PER_RING, "validated by the machine file");
        let routes: Vec<Route> = (0..ELEMENTS_PER_CHIP * ELEMENTS_PER_CHIP).map(|i| route(p, i / ELEMENTS_PER_CHIP, i % ELEMENTS_PER_CHIP)).collect();
        let eib = || Eib {
            pending: Default::default(),
            pending_mask: 0,
            on_free: [Time::ZERO; ELEMENTS_PER_CHIP],
            off_free: [Time::ZERO; ELEMENTS_PER_CHIP],
            rings: (0..2 * p.rings_per_direction)
                .map(|_| Ring { ready_at: Time::ZERO, active: Active::default() })
                .collect(),
            rr: 0,
            step_at: None,
            routes: routes.clone(),
            command_free: Time::ZERO,
            mic_free: Time::ZERO,
        };
        let sizes = 0..=p.packet_bytes as u64;
        let ring_time = sizes.clone().map(|b| Time(b.div_ceil(p.beat_bytes as u64) * p.bus_cycle.0)).collect();
        let bif_time = sizes.map(|b| Time((b * p.bif_ticks_per_kib).div_ceil(1024))).collect();
        Bus {
            p: p.clone(),
            txns: Vec::new(),
            free_ids: Vec::new(),
            eibs: (0..CHIPS).map(|_| eib()).collect(),
            ring_time,
            bif_time,
            bif_free: [Time::ZERO; CHIPS],
            deliveries: Fifo::default(),
            packets: 0,
        }
    }

    /// Start a transaction of `bytes` (1..=128) from `src` to `dst`, requested by an element on
    /// `initiator_chip`. The command takes the next free command-bus slot.
    pub fn start(&mut self, now: Time, src: Element, dst: Element, bytes: u32, initiator_chip: usize, client: C) -> TxnId {
        debug_assert!(bytes <= self.p.packet_bytes);
        let txn = Txn { bytes, client };
        let id = match self.free_ids.pop() {
            Some(id) => {
                self.txns[id] = Some(txn);
                id
            }
            None => {
                self.txns.push(Some(txn));
                self.txns.len() - 1
            }
        };
        let bus = self.p.bus_cycle;
        let eib = &mut self.eibs[initiator_chip];
        let slot = now.align_up(bus).max(eib.command_free);
        eib.command_free = slot + bus;
        let remote = src.chip() != initiator_chip || dst.chip() != initiator_chip;
        let done = slot + self.p.command_phase + if remote { self.p.bif_crossing } else { Time::ZERO };
        let ready = if src.index() == MIC {
            // One XDR access per burst time, in command order; data is ready after the read latency.
            let eib = &mut self.eibs[src.chip()];
            let start = done.max(eib.mic_free);
            eib.mic_free = start + self.p.mic_access;
            start + self.p.mic_read_latency
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
        let at = |t: Option<Time>| t.unwrap_or(Time(u64::MAX));
        let t = at(self.eibs[0].step_at).min(at(self.eibs[1].step_at)).min(at(self.deliveries.front().map(|d| d.at)));
        (t != Time(u64::MAX)).then_some(t)
    }

    /// Do the work due `now`, one piece at a time: a delivery first (the completed transaction is
    /// returned), else an arbiter step (chip 0's first when both are due). Neither depends on
    /// the other within one bus cycle, so their order there changes nothing.
    pub fn step(&mut self, now: Time, tr: &mut Tracer) -> Option<Txn<C>> {
        if let Some(d) = self.deliveries.front().filter(|d| d.at == now) {
            self.deliveries.pop_front();
            self.packets += 1;
            self.free_ids.push(d.id as TxnId);
            return Some(self.txns[d.id as TxnId].take().expect("live txn"));
        }
        let chip = if self.eibs[0].step_at == Some(now) { 0 } else { 1 };
        debug_assert_eq!(self.eibs[chip].step_at, Some(now), "stepped at the wrong time");
        self.eibs[chip].step_at = None;
        self.arbitrate(now, chip, tr);
        None
    }

    /// One arbitration step at a bus-cycle boundary.
    fn arbitrate(&mut self, now: Time, chip: usize, tr: &mut Tracer) {
        let p = &self.p;
        let (low, high) = self.eibs.split_at_mut(1);
        let (eib, other) = if chip == 0 { (&mut low[0], &mut high[0]) } else { (&mut high[0], &mut low[0]) };
        let mut grants = 0;
        let mut next = Time(u64::MAX);
        // MIC first (highest priority), then round-robin from `rr`: the pending sources other
        // than the MIC, rotated so that bit b stands for element (rr + b) mod 12.
        let rr = eib.rr;
        let all = (1u32 << ELEMENTS_PER_CHIP) - 1;
        let others = eib.pending_mask as u32 & !(1 << MIC);
        let mut rotated = ((others >> rr) | (others << (ELEMENTS_PER_CHIP - rr))) & all;
        let mut mic_first = eib.pending_mask & (1 << MIC) != 0;
        loop {
            let e = if mic_first {
                mic_first = false;
                MIC
            } else if rotated != 0 {
                let b = rotated.trailing_zeros() as usize;
                rotated &= rotated - 1;
                (rr + b) % ELEMENTS_PER_CHIP
            } else {
                break;
            };
            if grants >= p.data_grants_per_bus_cycle {
                break;
            }
            let head = eib.pending[e].get(0).at;
            if head > now {
                next = next.min(head);
                continue;
            }
            if eib.on_free[e] > now {
                next = next.min(eib.on_free[e]);
                continue;
            }
            let look = eib.pending[e].len().min(LOOKAHEAD);
            for j in 0..look {
                let leg = eib.pending[e].get(j);
                if leg.at > now {
                    next = next.min(leg.at);
                    break;
                }
                let to = leg.to as usize;
                if eib.off_free[to] > now {
                    next = next.min(eib.off_free[to]);
                    continue;
                }
                let rt = eib.routes[e * ELEMENTS_PER_CHIP + to];
                let Some((ring, mask)) = pick_ring(&mut eib.rings, &rt, now, p, &mut next) else { continue };
                if rt.cw_ok && rt.ccw_ok {
                    let cw = ring < eib.rings.len() / 2;
                    let r = &mut eib.routes[e * ELEMENTS_PER_CHIP + to];
                    (r.cw_ok, r.ccw_ok) = (cw, !cw);
                }
                let dur = self.ring_time[leg.bytes as usize];
                eib.on_free[e] = now + dur;
                let dst_hold = if to == MIC { dur.max(p.mic_access) } else { dur };
                eib.off_free[to] = now + dst_hold;
                let r = &mut eib.rings[ring];
                r.ready_at = now + p.ring_start_interval;
                r.active.push(now + dur, mask);
                let arrive = now + dur + Time(rt.hops as u64 * p.hop_latency.0);
                tr.ring(chip, ring, now, now + dur, Element::on_chip(chip, e), Element::on_chip(chip, to), leg.bytes as u32);
                if leg.then != LAST {
                    // Bound for the other chip: the link is taken, in grant order, from the
                    // packet's arrival at this chip's BIF ramp; the second leg goes from the
                    // other chip's BIF element to the destination.
                    let ser = self.bif_time[leg.bytes as usize];
                    let start = arrive.max(self.bif_free[chip]);
                    self.bif_free[chip] = start + ser;
                    tr.bif(chip, start, start + ser, leg.bytes as u32);
                    let second = Arrival { at: start + ser + p.bif_crossing, to: leg.then, then: LAST, ..leg };
                    other.arrive(p.bif_element, second, p.bus_cycle);
                } else {
                    insert_by_time(&mut self.deliveries, Arrival { at: arrive, ..leg });
                }
                if j == 0 {
                    eib.pending[e].pop_front();
                } else {
                    eib.pending[e].remove(j);
                }
                if eib.pending[e].is_empty() {
                    eib.pending_mask &= !(1 << e);
                }
                eib.rr = (e + 1) % ELEMENTS_PER_CHIP;
                grants += 1;
                break;
            }
        }
        if eib.pending_mask != 0 {
            let at = if grants > 0 {
                // The next cycle, unless no source has a leg ready by then.
                (now + p.bus_cycle).max(eib.earliest_pending().align_up(p.bus_cycle))
            } else {
                next.max(now + p.bus_cycle).align_up(p.bus_cycle)
            };
            eib.wake(at);
        }
    }
}

impl Eib {
    /// Have the arbiter step at `at` unless it steps earlier already.
    fn wake(&mut self, at: Time) {
        if self.step_at.is_none_or(|t| at < t) {
            self.step_at = Some(at);
        }
    }

    /// Register a leg from `from` that becomes ready at `a.at` (after those not later).
    #[inline(always)]
    fn arrive(&mut self, from: usize, a: Arrival, bus_cycle: Time) {
        insert_by_time(&mut self.pending[from], a);
        self.pending_mask |= 1 << from;
        self.wake(a.at.align_up(bus_cycle));
    }

    /// When the first of the waiting legs is ready.
    fn earliest_pending(&self) -> Time {
        let mut sources = self.pending_mask;
        let mut t = Time(u64::MAX);
        while sources != 0 {
            let e = sources.trailing_zeros() as usize;
            sources &= sources - 1;
            t = t.min(self.pending[e].get(0).at);
        }
        t
    }
}

/// Insert `a` after the entries not later than it. Entries come nearly in time order, so this
/// is nearly always an append.
#[inline(always)]
fn insert_by_time(q: &mut Fifo<Arrival>, a: Arrival) {
    if q.back().is_none_or(|b| b.at <= a.at) {
        q.push_back(a);
    } else {
        let i = (0..q.len()).rev().find(|&i| q.get(i).at <= a.at).map_or(0, |i| i + 1);
        q.insert(i, a);
    }
}

/// The first ring that can take `rt` now (its ended transfers retired); otherwise lowers `next`
/// to when one might.
fn pick_ring(rings: &mut [Ring], rt: &Route, now: Time, p: &Params, next: &mut Time) -> Option<(usize, u16)> {
    // Rings 0..n go clockwise, n..2n counter-clockwise.
    let n = rings.len() / 2;
    // A half-way transfer tries first the direction where fewer transfers in flight cross its
    // path, then the emptier one.
    let half_way = rt.cw_ok && rt.ccw_ok;
    if half_way {
        rings.iter_mut().for_each(|r| r.active.settle(now));
    }
    let (cw_rings, ccw_rings) = rings.split_at(n);
    let cost = |on: &[Ring], mask: u16| {
        (on.iter().map(|r| r.active.overlapping(mask)).sum::<usize>(), on.iter().map(|r| r.active.len).sum::<usize>())
    };
    let ccw_first = half_way && cost(ccw_rings, rt.ccw_mask) < cost(cw_rings, rt.cw_mask);
    let dirs = if ccw_first {
        [(rt.ccw_ok, rt.ccw_mask, n), (rt.cw_ok, rt.cw_mask, 0)]
    } else {
        [(rt.cw_ok, rt.cw_mask, 0), (rt.ccw_ok, rt.ccw_mask, n)]
    };
    for (ok, mask, first) in dirs {
        if !ok {
            continue;
        }
        for (i, r) in rings[first..first + n].iter_mut().enumerate() {
            if r.ready_at > now {
                *next = (*next).min(r.ready_at);
                continue;
            }
            r.active.settle(now);
            if r.active.len >= p.max_transfers_per_ring as usize || r.active.overlapping(mask) != 0 {
                *next = (*next).min(r.active.first_end);
                continue;
            }
            return Some((first + i, mask));
        }
    }
    None
}
