//! The machine layer: a dual-Cell blade built from the parts in this folder, and the operations
//! the SPE and PPE interfaces call. Every number comes from the machine file ([`config`]).
//!
//! | file | what it models |
//! |---|---|
//! | `config.rs` | machine files, overrides, validation, resolved parameters |
//! | `parameters.rs` | what each machine-file key is, its unit, and where its value comes from |
//! | `topology.rs` | elements, ring order, routes |
//! | `bus.rs` | command bus, EIB rings and arbiter, MIC, BIF |
//! | `mfc.rs` | MFC command queue, tags, ordering, DMA rules |
//! | `channels.rs` | mailboxes and signal registers |
//! | `atomic.rs` | lock-line reservations |
//! | `memory.rs` | real bytes and the effective-address map |
//! | `local_store.rs` | the local stores' bytes, one block per blade from a per-thread pool |
//! | `trace.rs` | Chrome/Perfetto trace |

pub(crate) mod atomic;
pub(crate) mod bus;
pub(crate) mod channels;
pub mod config;
pub mod local_store;
pub mod memory;
pub mod mfc;
pub mod parameters;
pub mod policy;
pub mod topology;
pub(crate) mod trace;

use std::cell::Cell;
use std::rc::Rc;

use crate::error::{program_err, Result};
use crate::sim::{Pid, Scheduler, Time, World};

use atomic::{line_of, Atomic};
use bus::{Bus, Storage, TxnId};
use channels::Channels;
use config::{MachineFile, Params};
use memory::{reg, Loc, Memory};
use mfc::{Mfc, MfcCommand, Queued, TagWait};
use topology::{Element, CHIPS, SPES};
use trace::Tracer;

/// Events of the machine (the bus is clocked: see [`Bus::step`]).
#[derive(Debug, Clone, Copy)]
pub enum Event {
    MfcKick(usize),
    AtomicRelease(u64),
    /// A getllar's command has been snooped by the line's holder (see [`Machine::hand_over`]).
    AtomicSnooped(u64),
}

pub type Sched = Scheduler<Event>;

/// Who a bus transaction works for; looked up when it completes.
#[derive(Debug, Clone, Copy)]
pub enum Client {
    MfcPacket { spe: usize, cmd: u64, src: Loc, dst: Loc },
    MmioWrite { ppe: usize, spe: usize, reg: u64, value: u32 },
    MmioRead { pid: Pid, spe: usize, reg: u64 },
    AtomicFetch { line: u64, spe: usize, pid: Pid },
}

/// The simulated blade.
pub struct Machine {
    pub file: MachineFile,
    pub p: Params,
    pub mem: Memory,
    pub bus: Bus<Client>,
    pub mfc: Vec<Mfc>,
    pub ch: Vec<Channels>,
    pub atomic: Atomic,
    /// Each PPE's guarded accesses in program order: its stores not yet performed, and the
    /// loads that wait for them, in the order they were made (one per PPE thread: an SDK
    /// program's threads each make theirs; see [`Machine::ppe_mmio_read`]).
    ppe_stores: [u32; CHIPS],
    ppe_load: [Vec<(Pid, usize, u64)>; CHIPS],
    pub trace: Tracer,
    next_cmd: u64,
    /// Bytes of each local store handed out by `ls_alloc`.
    pub ls_used: Vec<u32>,
    /// Per SPE, the changes to software state outside the machine that a poller on that SPE
    /// reads beside its local store (the MPI deadlock tracker's), counted by that state's owner
    /// as writes into the SPE ([`crate::sim::World::writes`]).
    pub marks: Rc<[Cell<u64>]>,
}

impl Machine {
    pub fn new(file: MachineFile, trace: bool) -> Machine {
        let p = Params::resolve(&file);
        Machine {
            mem: Memory::new(p.xdram_bytes, p.ls_bytes, SPES),
            bus: Bus::new(&p),
            mfc: (0..SPES).map(|_| Mfc::default()).collect(),
            ch: (0..SPES).map(|_| Channels::default()).collect(),
            atomic: Atomic::default(),
            ppe_stores: [0; CHIPS],
            ppe_load: std::array::from_fn(|_| Vec::new()),
            trace: Tracer::new(trace),
            next_cmd: 0,
            ls_used: vec![0; SPES],
            marks: (0..SPES).map(|_| Cell::new(0)).collect(),
            file,
            p,
        }
    }

    /// Reserve `size` bytes of SPE `spe`'s local store, aligned to `align` (a power of two).
    pub fn ls_alloc(&mut self, spe: usize, size: u32, align: u32) -> Result<u32> {
        let start = self.ls_used[spe].next_multiple_of(align.max(1));
        let end = start as u64 + size as u64;
        if end > self.p.ls_bytes as u64 {
            return Err(program_err(format!(
                "local store of spe {spe} overflows: {} bytes in use, {size} more requested, capacity {}",
                self.ls_used[spe], self.p.ls_bytes
            )));
        }
        self.ls_used[spe] = end as u32;
        Ok(start)
    }

    #[inline(always)]
    fn start(&mut self, s: &mut Sched, src: Element, dst: Element, bytes: u32, initiator_chip: usize, c: Client) {
        // How the target is mapped (Linux spufs maps a local store cache-inhibited, and the
        // problem-state registers cache-inhibited and guarded).
        let storage = match c {
            Client::MfcPacket { spe, src, dst, .. } => match (src, dst) {
                (Loc::Mmio { .. }, _) | (_, Loc::Mmio { .. }) => Storage::Guarded,
                (Loc::Ls { spe: a, .. }, Loc::Ls { spe: b, .. }) if a != spe || b != spe => Storage::CacheInhibited,
                _ => Storage::Coherent,
            },
            Client::MmioWrite { .. } | Client::MmioRead { .. } => Storage::Guarded,
            Client::AtomicFetch { .. } => Storage::Coherent,
        };
        self.bus.start(s.now(), src, dst, bytes, initiator_chip, storage, c);
    }

    // ----- MFC -----

    /// Enqueue a command for SPE `spe` (validated). Returns false if the queue is full: the
    /// command waits and `pid` is woken when it has been queued.
    pub fn mfc_enqueue(&mut self, s: &mut Sched, spe: usize, pid: Pid, cmd: MfcCommand) -> Result<bool> {
        cmd.validate(spe, &self.p)?;
        let pieces = cmd.pieces();
        let targets = pieces
            .iter()
            .map(|pc| self.mem.resolve(pc.ea, pc.size.max(1)).map_err(|e| program_err(format!("spe {spe}: {}: {e}", cmd.name()))))
            .collect::<Result<_>>()?;
        let q = Queued::new(cmd, pieces, targets);
        if self.mfc[spe].queue.len() >= self.p.mfc_queue_depth {
            s.set_waiting(pid, move || format!("a free slot in the MFC command queue of spe {spe}"));
            self.mfc[spe].space_waiter = Some((pid, q));
            return Ok(false);
        }
        self.push_cmd(s, spe, q);
        Ok(true)
    }

    /// Put a checked command in the queue: it gets its id and enqueue time now.
    fn push_cmd(&mut self, s: &mut Sched, spe: usize, mut q: Queued) {
        self.next_cmd += 1;
        (q.id, q.enqueued_at) = (self.next_cmd, s.now());
        let m = &mut self.mfc[spe];
        m.tag_pending[q.cmd.tag as usize] += 1;
        m.queue.push(q);
        self.kick(s, spe, s.now());
    }

    fn kick(&mut self, s: &mut Sched, spe: usize, at: Time) {
        let m = &mut self.mfc[spe];
        if m.kick_at.is_none_or(|t| at < t) {
            m.kick_at = Some(at);
            s.schedule(at, Event::MfcKick(spe));
        }
    }

    /// Issue packets of eligible commands while the MFC has capacity.
    fn mfc_issue(&mut self, s: &mut Sched, spe: usize) {
        let now = s.now();
        self.mfc[spe].kick_at = None;
        loop {
            let m = &self.mfc[spe];
            // The first eligible command with work left: packets to issue, or none at all (a
            // barrier, which completes as soon as it is eligible).
            let pending = |q: &Queued| q.pieces.is_empty() || !q.fully_issued();
            let Some(i) = m.first_eligible(pending) else { return };
            if m.queue[i].pieces.is_empty() {
                self.complete_cmd(s, spe, i);
                continue;
            }
            if m.outstanding >= self.p.outstanding_packets {
                return;
            }
            if m.issue_free > now {
                let at = m.issue_free;
                self.kick(s, spe, at);
                return;
            }
            self.issue_packet(s, spe, i);
            // Issuing makes no other command eligible: while this one has packets left, the
            // next one waits for a free slot or the next issue cycle, so the search can stop.
            let m = &self.mfc[spe];
            if !m.queue[i].fully_issued() {
                if m.outstanding < self.p.outstanding_packets {
                    let at = m.issue_free;
                    self.kick(s, spe, at);
                }
                return;
            }
        }
    }

    fn issue_packet(&mut self, s: &mut Sched, spe: usize, i: usize) {
        let now = s.now();
        let p = &self.p;
        let q = &mut self.mfc[spe].queue[i];
        let (pc, target) = q.current.expect("a command with packets left to issue");
        let remote = target.offset(q.offset);
        let new_element = q.offset == 0 && !q.cmd.list.is_empty();
        let ea = pc.ea + q.offset as u64;
        // Bus packets never cross a 128-byte line of the effective address (the packet size is a
        // power of two, so a mask, not a division, finds the offset in the line).
        let chunk = (pc.size - q.offset).min(p.packet_bytes - (ea & (p.packet_bytes as u64 - 1)) as u32);
        let lsa = pc.lsa + q.offset;
        q.advance(chunk);
        q.in_flight += 1;
        let (kind, cmd_id) = (q.cmd.kind, q.id);
        let m = &mut self.mfc[spe];
        m.outstanding += 1;
        m.issue_free = now + p.bus_cycle + if new_element { p.list_element } else { Time::ZERO };
        let local = Loc::Ls { spe, off: lsa };
        let (src, dst) = if kind.is_get() { (remote, local) } else { (local, remote) };
        let (se, de) = (self.mem.owner(src), self.mem.owner(dst));
        self.start(s, se, de, chunk, spe / topology::SPES_PER_CHIP, Client::MfcPacket { spe, cmd: cmd_id, src, dst });
    }

    fn complete_cmd(&mut self, s: &mut Sched, spe: usize, i: usize) {
        let q = self.mfc[spe].queue.remove(i);
        let tag = q.cmd.tag as usize;
        if self.trace.enabled() {
            // The command's name is formatted only when it is recorded.
            self.trace.dma(spe, q.id, &q.cmd.name(), q.enqueued_at, s.now(), q.pieces.iter().map(|p| p.size).sum(), q.cmd.tag);
        }
        let m = &mut self.mfc[spe];
        m.tag_pending[tag] -= 1;
        if let Some(w) = &m.tag_waiter {
            if let Some(done) = m.tag_ready(w.mask, w.all) {
                let pid = w.pid;
                m.tag_waiter = None;
                s.wake_at(s.now() + self.p.tag_update, pid, done as u64);
            }
        }
        if let Some((pid, q)) = self.mfc[spe].space_waiter.take() {
            self.push_cmd(s, spe, q);
            s.wake(pid, Ok(0));
        }
        self.kick(s, spe, s.now());
    }

    /// mfc_read_tag_status_{all,any}: the status now, or None and `pid` waits.
    pub fn tag_wait(&mut self, spe: usize, pid: Pid, all: bool) -> Option<u32> {
        let m = &mut self.mfc[spe];
        let mask = m.tag_mask;
        let r = m.tag_ready(mask, all);
        if r.is_none() {
            m.tag_waiter = Some(TagWait { pid, mask, all });
        }
        r
    }

    fn packet_done(&mut self, s: &mut Sched, spe: usize, cmd: u64) {
        let m = &mut self.mfc[spe];
        m.outstanding -= 1;
        let i = m.queue.iter().position(|q| q.id == cmd).expect("packet of a queued command");
        m.queue[i].in_flight -= 1;
        if m.queue[i].fully_issued() && m.queue[i].in_flight == 0 {
            self.complete_cmd(s, spe, i);
        } else {
            // A slot for one more packet is free now.
            self.mfc_issue(s, spe);
        }
    }

    // ----- MMIO: problem-state registers -----

    fn mmio_write_effect(&mut self, s: &mut Sched, spe: usize, r: u64, value: u32) {
        let now = s.now();
        let delivered = match r {
            reg::SPU_IN_MBOX => {
                self.trace.instant(spe, "in_mbox write", now, value);
                self.ch[spe].write_in_mbox(value)
            }
            reg::SIGNOTIFY1 | reg::SIGNOTIFY2 => {
                let which = (r == reg::SIGNOTIFY2) as usize;
                self.trace.instant(spe, if which == 0 { "signal1 write" } else { "signal2 write" }, now, value);
                self.ch[spe].write_signal(which, value)
            }
            _ => None, // writes to read-only registers are ignored, as on the hardware
        };
        // The SPU reads its channels as it reads its local store: a poller of both wakes.
        self.mem.ls_writes[spe] += 1;
        if let Some((pid, v)) = delivered {
            s.wake(pid, Ok(v as u64));
        }
    }

    fn mmio_read_effect(&mut self, s: &mut Sched, spe: usize, r: u64) -> u32 {
        match r {
            reg::SPU_OUT_MBOX => {
                let (v, woken) = self.ch[spe].read_out_mbox();
                if let Some(pid) = woken {
                    s.wake(pid, Ok(0));
                }
                v.unwrap_or(0)
            }
            reg::SPU_MBOX_STAT => self.ch[spe].mbox_status(),
            _ => 0,
        }
    }

    /// A PPE (on `chip`) store to a problem-state register: posted, takes effect on arrival.
    pub fn ppe_mmio_write(&mut self, s: &mut Sched, chip: usize, spe: usize, r: u64, value: u32) {
        self.ppe_stores[chip] += 1;
        self.start(s, Element::ppe(chip), Element::spe(spe), 4, chip, Client::MmioWrite { ppe: chip, spe, reg: r, value });
    }

    /// A PPE load from a problem-state register: `pid` is woken with the value. Guarded storage
    /// is accessed in program order, so the load goes to the bus only once the PPE's earlier
    /// stores have been performed at their registers (posted, they cost the PPE nothing else).
    pub fn ppe_mmio_read(&mut self, s: &mut Sched, chip: usize, pid: Pid, spe: usize, r: u64) {
        s.set_waiting(pid, move || format!("an mmio read of register {r:#x} of spe {spe}"));
        if self.ppe_stores[chip] > 0 {
            self.ppe_load[chip].push((pid, spe, r));
        } else {
            self.start(s, Element::spe(spe), Element::ppe(chip), 4, chip, Client::MmioRead { pid, spe, reg: r });
        }
    }

    fn ppe_store_performed(&mut self, s: &mut Sched, chip: usize) {
        self.ppe_stores[chip] -= 1;
        if self.ppe_stores[chip] == 0 {
            for (pid, spe, r) in std::mem::take(&mut self.ppe_load[chip]) {
                self.start(s, Element::spe(spe), Element::ppe(chip), 4, chip, Client::MmioRead { pid, spe, reg: r });
            }
        }
    }

    // ----- atomic unit -----

    /// getllar: true if the line is already here (caller charges the hit time); otherwise the
    /// hand-over starts and `pid` is woken when the line has arrived.
    pub fn getllar(&mut self, s: &mut Sched, spe: usize, pid: Pid, ea: u64) -> bool {
        let line = line_of(ea);
        if self.atomic.hit(spe, line) {
            self.atomic.reservation[spe] = Some(line);
            return true;
        }
        s.set_waiting(pid, move || format!("lock line {line:#x} for spe {spe}"));
        let l = self.atomic.lines.entry(line).or_default();
        l.waiting.push_back((spe, pid));
        if !l.busy {
            self.hand_over(s, line);
        }
        false
    }

    /// Start the hand-over of `line` to the first SPE waiting for it. Held by another SPE, the
    /// line moves as the reference note §3 has it: a contended coherent command (the getllar's
    /// passage through the address concentrators with its retries and address-collision
    /// stalls, `atomic.handover_bus_cycles`, and the coherent crossing when the holder is on
    /// the other chip), then the holder loses its reservation and its 128-byte intervention
    /// carries the line to the requester over the EIB (and the BIF). One hand-over at a time
    /// per line: the next waits for the new holder's guard time.
    fn hand_over(&mut self, s: &mut Sched, line: u64) {
        let l = self.atomic.lines.get_mut(&line).expect("line");
        let Some((spe, pid)) = l.waiting.pop_front() else { return };
        l.busy = true;
        match l.holder {
            Some(h) if h != spe => {
                let crossing = if h / topology::SPES_PER_CHIP != spe / topology::SPES_PER_CHIP { self.p.bif_crossing } else { Time::ZERO };
                l.snooped_by = Some((spe, pid));
                s.schedule(s.now().align_up(self.p.bus_cycle) + self.p.atomic_handover + crossing, Event::AtomicSnooped(line));
            }
            _ => {
                let home = self.mem.owner(Loc::Mem(line));
                self.start(s, home, Element::spe(spe), 128, spe / topology::SPES_PER_CHIP, Client::AtomicFetch { line, spe, pid });
            }
        }
    }

    /// The holder has given the line up to `spe`: its reservation is lost, and its intervention
    /// carries the line to the requester.
    fn atomic_snooped(&mut self, s: &mut Sched, line: u64) {
        let l = self.atomic.lines.get_mut(&line).expect("line");
        let (spe, pid) = l.snooped_by.take().expect("a snoop under way");
        let h = l.holder.take().expect("a snooped line has a holder");
        if self.atomic.reservation[h] == Some(line) {
            self.atomic.reservation[h] = None;
        }
        self.start(s, Element::spe(h), Element::spe(spe), 128, spe / topology::SPES_PER_CHIP, Client::AtomicFetch { line, spe, pid });
    }

    /// putllc: stores the line from `lsa` if the reservation holds; returns whether it did.
    pub fn putllc(&mut self, spe: usize, ea: u64, lsa: u32) -> bool {
        let line = line_of(ea);
        if !self.atomic.conditional_store_ok(spe, line) {
            return false;
        }
        self.mem.copy(Loc::Ls { spe, off: lsa }, Loc::Mem(line), 128);
        self.atomic.stored(line);
        true
    }

    /// Transaction `id` has been delivered. Its fields are read in place, not copied out whole
    /// (see [`Bus::txn`]).
    fn on_txn_done(&mut self, s: &mut Sched, id: TxnId) {
        let txn = self.bus.txn(id);
        let bytes = txn.bytes;
        match txn.client {
            Client::MfcPacket { spe, cmd, src, dst } => {
                match (src, dst) {
                    (Loc::Ls { spe: from, off }, Loc::Mmio { spe: to, reg }) => {
                        let b = &self.mem.ls[from][off as usize..off as usize + 4];
                        let v = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                        self.mmio_write_effect(s, to, reg as u64, v);
                    }
                    (Loc::Mmio { spe: from, reg }, Loc::Ls { spe: to, off }) => {
                        let v = self.mmio_read_effect(s, from, reg as u64);
                        self.mem.ls.write(to, off as usize, 4).copy_from_slice(&v.to_be_bytes());
                        self.mem.ls_writes[to] += 1;
                    }
                    _ => self.mem.copy(src, dst, bytes),
                }
                self.packet_done(s, spe, cmd);
            }
            Client::MmioWrite { ppe, spe, reg, value } => {
                self.mmio_write_effect(s, spe, reg, value);
                self.ppe_store_performed(s, ppe);
            }
            Client::MmioRead { pid, spe, reg } => {
                let v = self.mmio_read_effect(s, spe, reg);
                s.wake(pid, Ok(v as u64));
            }
            Client::AtomicFetch { line, spe, pid } => {
                let l = self.atomic.lines.get_mut(&line).expect("line");
                l.holder = Some(spe);
                self.atomic.reservation[spe] = Some(line);
                // The new holder keeps the line long enough for its putllc to land: one
                // atomic-cache access plus a few cycles for the modify.
                let guard = self.p.atomic_hit + self.p.atomic_guard;
                s.schedule(s.now() + guard, Event::AtomicRelease(line));
                s.wake(pid, Ok(0));
            }
        }
    }
}

impl World for Machine {
    type Event = Event;

    fn handle(&mut self, ev: Event, s: &mut Sched) {
        match ev {
            Event::MfcKick(spe) => {
                if self.mfc[spe].kick_at == Some(s.now()) {
                    self.mfc_issue(s, spe);
                }
            }
            Event::AtomicSnooped(line) => self.atomic_snooped(s, line),
            Event::AtomicRelease(line) => {
                let l = self.atomic.lines.get_mut(&line).expect("line");
                l.busy = false;
                if !l.waiting.is_empty() {
                    self.hand_over(s, line);
                }
            }
        }
    }

    fn writes(&self, spe: usize) -> Option<u64> {
        Some(self.mem.ls_writes[spe].wrapping_add(self.marks[spe].get()))
    }

    fn next_step(&self) -> Option<Time> {
        self.bus.next_step()
    }

    fn step(&mut self, s: &mut Sched) -> u64 {
        let (steps, done) = self.bus.step(s.now(), &mut self.trace);
        if let Some(id) = done {
            self.on_txn_done(s, id);
        }
        steps
    }
}
