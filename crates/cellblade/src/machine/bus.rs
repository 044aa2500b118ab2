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

use std::collections::VecDeque;

use crate::sim::{Scheduler, Time};

use super::config::Params;
use super::topology::{route, Element, Route, CHIPS, ELEMENTS_PER_CHIP, MIC};
use super::trace::Tracer;

pub type TxnId = usize;

/// Events the bus schedules for itself.
#[derive(Debug, Clone, Copy)]
pub enum BusEvent {
    /// The command phase (and for memory, the XDR access) is over: the data can move.
    DataReady(TxnId),
    LegArrived(TxnId),
    BifArrived(TxnId),
    Arbitrate(usize),
}

/// One transaction in flight. `token` is the client's: handed back on completion.
#[derive(Debug, Clone, Copy)]
pub struct Txn {
    pub src: Element,
    pub dst: Element,
    pub bytes: u32,
    pub token: u64,
    leg_chip: usize,
    leg_from: usize,
    leg_to: usize,
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
/// A fixed array: the arbiter retires and scans these every bus cycle.
#[derive(Clone, Copy, Default)]
struct Active {
    len: usize,
    end: [Time; MAX_TRANSFERS_PER_RING],
    segments: [u16; MAX_TRANSFERS_PER_RING],
}

impl Active {
    /// Drop the transfers that have ended by `now`, keeping the others in order.
    fn retire(&mut self, now: Time) {
        let mut kept = 0;
        for i in 0..self.len {
            if self.end[i] > now {
                self.end[kept] = self.end[i];
                self.segments[kept] = self.segments[i];
                kept += 1;
            }
        }
        self.len = kept;
    }

    fn push(&mut self, end: Time, segments: u16) {
        self.end[self.len] = end;
        self.segments[self.len] = segments;
        self.len += 1;
    }

    /// How many transfers hold one of `segments`.
    fn overlapping(&self, segments: u16) -> usize {
        self.segments[..self.len].iter().filter(|&&m| m & segments != 0).count()
    }

    fn earliest_end(&self) -> Option<Time> {
        self.end[..self.len].iter().copied().min()
    }
}

struct Eib {
    pending: [VecDeque<TxnId>; ELEMENTS_PER_CHIP],
    /// Bit e set when `pending[e]` is non-empty: the arbiter skips idle sources without looking.
    pending_mask: u16,
    on_free: [Time; ELEMENTS_PER_CHIP],
    off_free: [Time; ELEMENTS_PER_CHIP],
    rings: Vec<Ring>,
    /// The earliest end of a transfer on any ring: before it, no ring has one to retire.
    active_until: Time,
    rr: usize,
    step_at: Option<Time>,
    /// The direction a half-way stream took with its first packet, kept for the rest of it.
    half_way_dir: [[Option<bool>; ELEMENTS_PER_CHIP]; ELEMENTS_PER_CHIP],
    command_free: Time,
    mic_free: Time,
}

pub struct Bus {
    p: Params,
    txns: Vec<Option<Txn>>,
    free_ids: Vec<TxnId>,
    eibs: Vec<Eib>,
    /// Route between every pair of ring elements, indexed `from * 12 + to`.
    routes: Vec<Route>,
    /// Next free time of the BIF link in each direction (index: source chip).
    bif_free: [Time; CHIPS],
    pub packets: u64,
}

/// How many ring-queue entries behind the head the arbiter may look at for one source.
const LOOKAHEAD: usize = 4;

impl Bus {
    pub fn new(p: &Params) -> Bus {
        assert!(p.max_transfers_per_ring as usize <= MAX_TRANSFERS_PER_RING, "validated by the machine file");
        let eib = || Eib {
            pending: Default::default(),
            pending_mask: 0,
            on_free: [Time::ZERO; ELEMENTS_PER_CHIP],
            off_free: [Time::ZERO; ELEMENTS_PER_CHIP],
            rings: (0..2 * p.rings_per_direction)
                .map(|_| Ring { ready_at: Time::ZERO, active: Active::default() })
                .collect(),
            active_until: Time(u64::MAX),
            rr: 0,
            step_at: None,
            half_way_dir: [[None; ELEMENTS_PER_CHIP]; ELEMENTS_PER_CHIP],
            command_free: Time::ZERO,
            mic_free: Time::ZERO,
        };
        let routes = (0..ELEMENTS_PER_CHIP * ELEMENTS_PER_CHIP).map(|i| route(p, i / ELEMENTS_PER_CHIP, i % ELEMENTS_PER_CHIP)).collect();
        Bus { p: p.clone(), txns: Vec::new(), free_ids: Vec::new(), eibs: (0..CHIPS).map(|_| eib()).collect(), routes, bif_free: [Time::ZERO; CHIPS], packets: 0 }
    }

    /// Start a transaction of `bytes` (1..=128) from `src` to `dst`, requested by an element on
    /// `initiator_chip`. The command takes the next free command-bus slot.
    pub fn start<E: From<BusEvent>>(&mut self, s: &mut Scheduler<E>, src: Element, dst: Element, bytes: u32, initiator_chip: usize, token: u64) -> TxnId {
        let txn = Txn { src, dst, bytes, token, leg_chip: 0, leg_from: 0, leg_to: 0 };
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
        let slot = s.now().align_up(bus).max(eib.command_free);
        eib.command_free = slot + bus;
        let remote = src.chip() != initiator_chip || dst.chip() != initiator_chip;
        let done = slot + self.p.command_phase + if remote { self.p.bif_crossing } else { Time::ZERO };
        if src.index() == MIC {
            // One XDR access per burst time, in command order; data is ready after the read latency.
            let eib = &mut self.eibs[src.chip()];
            let start = done.max(eib.mic_free);
            eib.mic_free = start + self.p.mic_access;
            s.schedule(start + self.p.mic_read_latency, BusEvent::DataReady(id).into());
        } else {
            s.schedule(done, BusEvent::DataReady(id).into());
        }
        id
    }

    /// Handle a bus event; returns the transaction that completed, if any.
    pub fn handle<E: From<BusEvent>>(&mut self, ev: BusEvent, s: &mut Scheduler<E>, tr: &mut Tracer) -> Option<Txn> {
        match ev {
            BusEvent::DataReady(id) => {
                self.begin_leg(s, id);
                None
            }
            BusEvent::Arbitrate(chip) => {
                // A step superseded by an earlier one is stale.
                if self.eibs[chip].step_at == Some(s.now()) {
                    self.eibs[chip].step_at = None;
                    self.arbitrate(s, chip, tr);
                }
                None
            }
            BusEvent::LegArrived(id) => {
                self.packets += 1;
                self.free_ids.push(id);
                self.txns[id].take()
            }
            BusEvent::BifArrived(id) => {
                let t = self.txns[id].as_mut().expect("live txn");
                t.leg_chip = t.dst.chip();
                t.leg_from = self.p.bif_element;
                t.leg_to = t.dst.index();
                self.enqueue(s, id);
                None
            }
        }
    }

    fn begin_leg<E: From<BusEvent>>(&mut self, s: &mut Scheduler<E>, id: TxnId) {
        let bif = self.p.bif_element;
        let t = self.txns[id].as_mut().expect("live txn");
        t.leg_chip = t.src.chip();
        t.leg_from = t.src.index();
        t.leg_to = if t.src.chip() == t.dst.chip() { t.dst.index() } else { bif };
        self.enqueue(s, id);
    }

    fn enqueue<E: From<BusEvent>>(&mut self, s: &mut Scheduler<E>, id: TxnId) {
        let t = self.txns[id].as_ref().expect("live txn");
        let chip = t.leg_chip;
        let from = t.leg_from;
        let eib = &mut self.eibs[chip];
        eib.pending[from].push_back(id);
        eib.pending_mask |= 1 << from;
        let at = s.now().align_up(self.p.bus_cycle);
        self.wake_arbiter(s, chip, at);
    }

    fn wake_arbiter<E: From<BusEvent>>(&mut self, s: &mut Scheduler<E>, chip: usize, at: Time) {
        let eib = &mut self.eibs[chip];
        if eib.step_at.is_none_or(|t| at < t) {
            eib.step_at = Some(at);
            s.schedule(at, BusEvent::Arbitrate(chip).into());
        }
    }

    /// One arbitration step at a bus-cycle boundary.
    fn arbitrate<E: From<BusEvent>>(&mut self, s: &mut Scheduler<E>, chip: usize, tr: &mut Tracer) {
        let now = s.now();
        let p = &self.p;
        let eib = &mut self.eibs[chip];
        if now >= eib.active_until {
            eib.active_until = Time(u64::MAX);
            for r in eib.rings.iter_mut() {
                r.active.retire(now);
                if let Some(end) = r.active.earliest_end() {
                    eib.active_until = eib.active_until.min(end);
                }
            }
        }
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
            if eib.on_free[e] > now {
                next = next.min(eib.on_free[e]);
                continue;
            }
            let look = eib.pending[e].len().min(LOOKAHEAD);
            for j in 0..look {
                let id = eib.pending[e][j];
                let t = self.txns[id].as_ref().expect("live txn");
                let to = t.leg_to;
                if eib.off_free[to] > now {
                    next = next.min(eib.off_free[to]);
                    continue;
                }
                let mut rt = self.routes[e * ELEMENTS_PER_CHIP + to];
                let half_way = rt.cw_ok && rt.ccw_ok;
                if let Some(cw) = eib.half_way_dir[e][to] {
                    (rt.cw_ok, rt.ccw_ok) = (cw, !cw);
                }
                let Some((ring, mask)) = pick_ring(&eib.rings, &rt, now, p, &mut next) else { continue };
                if half_way {
                    eib.half_way_dir[e][to] = Some(ring < eib.rings.len() / 2);
                }
                let beats = t.bytes.div_ceil(p.beat_bytes) as u64;
                let dur = Time(beats * p.bus_cycle.0);
                eib.on_free[e] = now + dur;
                let dst_hold = if to == MIC { dur.max(p.mic_access) } else { dur };
                eib.off_free[to] = now + dst_hold;
                let r = &mut eib.rings[ring];
                r.ready_at = now + p.ring_start_interval;
                r.active.push(now + dur, mask);
                eib.active_until = eib.active_until.min(now + dur);
                let arrive = now + dur + Time(rt.hops as u64 * p.hop_latency.0);
                tr.ring(chip, ring, now, now + dur, Element::on_chip(chip, e), Element::on_chip(chip, to), t.bytes);
                if chip != t.dst.chip() {
                    // Bound for the other chip: the link is taken, in grant order, from the
                    // packet's arrival at this chip's BIF ramp.
                    let ser = Time((t.bytes as u64 * p.bif_ticks_per_kib).div_ceil(1024));
                    let start = arrive.max(self.bif_free[chip]);
                    self.bif_free[chip] = start + ser;
                    tr.bif(chip, start, start + ser, t.bytes);
                    s.schedule(start + ser + p.bif_crossing, BusEvent::BifArrived(id).into());
                } else {
                    s.schedule(arrive, BusEvent::LegArrived(id).into());
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
            let at = if grants > 0 { now + p.bus_cycle } else { next.max(now + p.bus_cycle).align_up(p.bus_cycle) };
            self.wake_arbiter(s, chip, at);
        }
    }
}

/// The first ring that can take `rt` now; otherwise lowers `next` to when one might.
fn pick_ring(rings: &[Ring], rt: &Route, now: Time, p: &Params, next: &mut Time) -> Option<(usize, u16)> {
    // Rings 0..n go clockwise, n..2n counter-clockwise.
    let n = rings.len() / 2;
    let (cw_rings, ccw_rings) = rings.split_at(n);
    // A half-way transfer tries first the direction where fewer transfers in flight cross its
    // path, then the emptier one.
    let cost = |on: &[Ring], mask: u16| {
        (on.iter().map(|r| r.active.overlapping(mask)).sum::<usize>(), on.iter().map(|r| r.active.len).sum::<usize>())
    };
    let ccw_first = rt.cw_ok && rt.ccw_ok && cost(ccw_rings, rt.ccw_mask) < cost(cw_rings, rt.cw_mask);
    let dirs = if ccw_first {
        [(rt.ccw_ok, rt.ccw_mask, n), (rt.cw_ok, rt.cw_mask, 0)]
    } else {
        [(rt.cw_ok, rt.cw_mask, 0), (rt.ccw_ok, rt.ccw_mask, n)]
    };
    for (ok, mask, first) in dirs {
        if !ok {
            continue;
        }
        for (i, r) in rings[first..first + n].iter().enumerate() {
            if r.ready_at > now {
                *next = (*next).min(r.ready_at);
                continue;
            }
            if r.active.len >= p.max_transfers_per_ring as usize || r.active.overlapping(mask) != 0 {
                if let Some(end) = r.active.earliest_end() {
                    *next = (*next).min(end);
                }
                continue;
            }
            return Some((first + i, mask));
        }
    }
    None
}
