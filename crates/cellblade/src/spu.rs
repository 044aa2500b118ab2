//! The SPE side of the programming interface, named after spu_mfcio.h: what an SPE thread's
//! program calls. Each call costs what the machine file says (channel accesses, command issue)
//! and blocks where the hardware blocks (full command queue, empty mailbox, pending tags).

use std::rc::Rc;

use crate::error::{program_err, Result};
use crate::machine::atomic::line_of;
use crate::machine::memory::{reg, Memory};
use crate::machine::mfc::{CmdKind, ListElement, MfcCommand};
use crate::machine::Machine;
use crate::sim::engine::overflow;
use crate::sim::{Pid, Shared, Since, Time, TICKS_PER_SECOND};

/// Read-modify-write operations of the atomic family (CellStats' fetch* functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Add(u32),
    Sub(u32),
    Inc,
    Dec,
    Set(u32),
}

impl AtomicOp {
    pub fn apply(self, old: u32) -> u32 {
        match self {
            AtomicOp::Add(v) => old.wrapping_add(v),
            AtomicOp::Sub(v) => old.wrapping_sub(v),
            AtomicOp::Inc => old.wrapping_add(1),
            AtomicOp::Dec => old.wrapping_sub(1),
            AtomicOp::Set(v) => v,
        }
    }
}

/// A handle held by the program running on one SPE.
#[derive(Clone)]
pub struct Spu {
    sh: Rc<Shared<Machine>>,
    pid: Pid,
    spe: usize,
}

impl Spu {
    pub(crate) fn new(sh: Rc<Shared<Machine>>, pid: Pid, spe: usize) -> Spu {
        Spu { sh, pid, spe }
    }

    /// The engine process this thread is.
    pub(crate) fn pid(&self) -> Pid {
        self.pid
    }

    pub(crate) fn shared(&self) -> Rc<Shared<Machine>> {
        self.sh.clone()
    }

    /// The physical SPE id (0..16) this thread runs on.
    pub fn spe_id(&self) -> usize {
        self.spe
    }

    pub fn now(&self) -> Time {
        self.sh.now()
    }

    /// Effective address of byte `off` of SPE `spe`'s local store (its mapped LS area).
    pub fn ls_ea(spe: usize, off: u32) -> u64 {
        Memory::ls_ea(spe, off)
    }

    /// Effective address of a problem-state register of SPE `spe`.
    pub fn mmio_ea(spe: usize, register: u64) -> u64 {
        Memory::mmio_ea(spe, register)
    }

    pub fn ls_alloc(&self, size: u32, align: u32) -> Result<u32> {
        self.sh.world.borrow_mut().ls_alloc(self.spe, size, align)
    }

    /// Host-side access to the machine, taking no simulated time: the MPI layer moves a rank
    /// process's bytes in and out of its simulated buffers with it.
    pub(crate) fn with_machine<R>(&self, f: impl FnOnce(&mut Machine) -> R) -> R {
        f(&mut self.sh.world.borrow_mut())
    }

    /// The bytes `off..off + len` of this SPE's local store, or a program error naming the
    /// access (`what`), the SPE, the offset and the length.
    fn ls_range(&self, what: &str, off: u32, len: usize) -> Result<std::ops::Range<usize>> {
        let ls_bytes = self.sh.world.borrow().mem.ls_bytes;
        let end = off as u64 + len as u64;
        if end > ls_bytes as u64 {
            return Err(program_err(format!(
                "spe {}: {what}(off={off:#x}, {len} bytes) is outside the local store: it has {ls_bytes} bytes, offsets 0 to {:#x}",
                self.spe,
                ls_bytes - 1
            )));
        }
        Ok(off as usize..end as usize)
    }

    /// Write `data` into this SPE's local store at `off` (takes no simulated time).
    pub fn ls_write(&self, off: u32, data: &[u8]) -> Result<()> {
        let range = self.ls_range("ls_write", off, data.len())?;
        let mut m = self.sh.world.borrow_mut();
        m.mem.ls.write(self.spe, range.start, range.len()).copy_from_slice(data);
        m.mem.ls_writes[self.spe] += 1;
        Ok(())
    }

    /// Read `len` bytes of this SPE's local store from `off` (takes no simulated time).
    pub fn ls_read(&self, off: u32, len: u32) -> Result<Vec<u8>> {
        let range = self.ls_range("ls_read", off, len as usize)?;
        Ok(self.sh.world.borrow().mem.ls[self.spe][range].to_vec())
    }

    pub fn ls_write_u32(&self, off: u32, v: u32) -> Result<()> {
        self.ls_write(off, &v.to_be_bytes())
    }

    /// The big-endian word at `off`, read in place (no copy: pollers read one per poll).
    pub fn ls_read_u32(&self, off: u32) -> Result<u32> {
        let range = self.ls_range("ls_read", off, 4)?;
        let m = self.sh.world.borrow();
        let b = &m.mem.ls[self.spe][range];
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Spend `core_cycles` computing. A computation that would end past the last representable
    /// simulated time ends the run with an overflow error naming it.
    pub async fn compute(&self, core_cycles: u64) {
        let dt = Time(self.sh.world.borrow().p.core_cycle.0.saturating_mul(core_cycles));
        if self.now() + dt >= Time::HORIZON {
            self.sh.fail(overflow(&format!("spe {}: compute({core_cycles} core cycles) from {}", self.spe, self.now())));
            // The engine ends the run before anything wakes this.
            let _ = self.sh.suspend(self.pid).await;
            return;
        }
        self.sh.sleep(self.pid, dt).await;
    }

    /// One channel read or write (`spu.channel_core_cycles`).
    pub(crate) async fn channel(&self) {
        let dt = self.sh.world.borrow().p.channel;
        self.sh.sleep(self.pid, dt).await;
    }

    async fn issue(&self, cmd: MfcCommand) -> Result<()> {
        let dt = self.sh.world.borrow().p.mfc_issue;
        self.sh.sleep(self.pid, dt).await;
        let queued = self.sh.with(|m, s| m.mfc_enqueue(s, self.spe, self.pid, cmd))?;
        if !queued {
            self.sh.suspend(self.pid).await?;
        }
        Ok(())
    }

    fn cmd(kind: CmdKind, lsa: u32, ea: u64, size: u32, tag: u32, fence: bool, barrier: bool) -> MfcCommand {
        MfcCommand { kind, lsa, ea, size, tag, fence, barrier, list: Vec::new() }
    }

    pub async fn mfc_get(&self, lsa: u32, ea: u64, size: u32, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Get, lsa, ea, size, tag, false, false)).await
    }
    pub async fn mfc_getf(&self, lsa: u32, ea: u64, size: u32, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Get, lsa, ea, size, tag, true, false)).await
    }
    pub async fn mfc_getb(&self, lsa: u32, ea: u64, size: u32, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Get, lsa, ea, size, tag, false, true)).await
    }
    pub async fn mfc_put(&self, lsa: u32, ea: u64, size: u32, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Put, lsa, ea, size, tag, false, false)).await
    }
    pub async fn mfc_putf(&self, lsa: u32, ea: u64, size: u32, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Put, lsa, ea, size, tag, true, false)).await
    }
    pub async fn mfc_putb(&self, lsa: u32, ea: u64, size: u32, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Put, lsa, ea, size, tag, false, true)).await
    }

    /// mfc_getl: gather the list's elements (EAH from `ea`) into local store from `lsa` on.
    pub async fn mfc_getl(&self, lsa: u32, ea: u64, list: &[ListElement], tag: u32) -> Result<()> {
        let mut c = Self::cmd(CmdKind::GetList, lsa, ea, 0, tag, false, false);
        c.list = list.to_vec();
        self.issue(c).await
    }

    /// mfc_putl: scatter local store from `lsa` on to the list's elements.
    pub async fn mfc_putl(&self, lsa: u32, ea: u64, list: &[ListElement], tag: u32) -> Result<()> {
        let mut c = Self::cmd(CmdKind::PutList, lsa, ea, 0, tag, false, false);
        c.list = list.to_vec();
        self.issue(c).await
    }

    /// mfc_sndsig: write the 4 bytes at `lsa` to the signal register at `ea`.
    pub async fn mfc_sndsig(&self, lsa: u32, ea: u64, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Sndsig, lsa, ea, 4, tag, false, false)).await
    }

    pub async fn mfc_barrier(&self, tag: u32) -> Result<()> {
        self.issue(Self::cmd(CmdKind::Barrier, 0, 0, 0, tag, false, false)).await
    }

    pub fn mfc_write_tag_mask(&self, mask: u32) {
        self.sh.world.borrow_mut().mfc[self.spe].tag_mask = mask;
    }

    /// A blocking channel access: charge the channel, try `op`; if it cannot complete now the
    /// SPU stalls (described by `what` for a deadlock report) until the machine wakes it.
    async fn channel_wait<W>(
        &self,
        op: impl FnOnce(&mut Machine, &mut crate::machine::Sched) -> Option<u32>,
        what: impl FnOnce(&Machine) -> W,
    ) -> Result<u32>
    where
        W: Fn() -> String + 'static,
    {
        self.channel().await;
        let v = self.sh.with(|m, s| {
            let v = op(m, s);
            if v.is_none() {
                s.set_waiting(self.pid, what(m));
            }
            v
        });
        match v {
            Some(v) => Ok(v),
            None => Ok(self.sh.suspend(self.pid).await? as u32),
        }
    }

    async fn tag_status(&self, all: bool) -> Result<u32> {
        let (spe, pid) = (self.spe, self.pid);
        let mode = if all { "all" } else { "any" };
        self.channel_wait(
            |m, _| m.tag_wait(spe, pid, all),
            |m| {
                let mask = m.mfc[spe].tag_mask;
                move || format!("tag groups {mask:#x} ({mode}) of spe {spe}")
            },
        )
        .await
    }

    /// Block until every tag group in the mask is complete; returns the completed groups.
    pub async fn mfc_read_tag_status_all(&self) -> Result<u32> {
        self.tag_status(true).await
    }

    /// Block until any tag group in the mask is complete; returns the completed groups.
    pub async fn mfc_read_tag_status_any(&self) -> Result<u32> {
        self.tag_status(false).await
    }

    /// The completed groups of the mask, without waiting.
    pub fn mfc_read_tag_status_immediate(&self) -> u32 {
        let m = self.sh.world.borrow();
        let mfc = &m.mfc[self.spe];
        mfc.done_tags(mfc.tag_mask)
    }

    pub async fn spu_read_in_mbox(&self) -> Result<u32> {
        let (spe, pid) = (self.spe, self.pid);
        self.channel_wait(|m, _| m.ch[spe].read_in_mbox(pid), |_| move || format!("the inbound mailbox of spe {spe}")).await
    }

    /// Entries waiting in the inbound mailbox.
    pub fn spu_stat_in_mbox(&self) -> u32 {
        self.sh.world.borrow().ch[self.spe].in_mbox.len() as u32
    }

    /// Entries in the outbound mailbox (0 or 1).
    pub fn spu_stat_out_mbox(&self) -> u32 {
        self.sh.world.borrow().ch[self.spe].out_mbox.is_some() as u32
    }

    pub async fn spu_write_out_mbox(&self, v: u32) -> Result<()> {
        let (spe, pid) = (self.spe, self.pid);
        self.channel_wait(
            |m, _| m.ch[spe].write_out_mbox(pid, v).then_some(0),
            |_| move || format!("room in the outbound mailbox of spe {spe}"),
        )
        .await?;
        Ok(())
    }

    /// spu_write_out_intr_mbox: the word goes to a PPE thread blocked reading the interrupt
    /// mailbox (the SPU's interrupt wakes it), or waits in the one-entry mailbox; the SPU stalls
    /// while it is full.
    pub async fn spu_write_out_intr_mbox(&self, v: u32) -> Result<()> {
        let (spe, pid) = (self.spe, self.pid);
        self.channel_wait(
            |m, s| {
                let (written, delivered) = m.ch[spe].write_out_intr_mbox(pid, v);
                if let Some((reader, w)) = delivered {
                    s.wake(reader, Ok(w as u64));
                }
                written.then_some(0)
            },
            |_| move || format!("room in the outbound interrupt mailbox of spe {spe}"),
        )
        .await?;
        Ok(())
    }

    /// Entries in the outbound interrupt mailbox (0 or 1).
    pub fn spu_stat_out_intr_mbox(&self) -> u32 {
        self.sh.world.borrow().ch[self.spe].out_intr_mbox.is_some() as u32
    }

    async fn read_signal(&self, which: usize) -> Result<u32> {
        let (spe, pid) = (self.spe, self.pid);
        self.channel_wait(|m, _| m.ch[spe].read_signal(which, pid), |_| move || format!("signal register {} of spe {spe}", which + 1)).await
    }

    pub async fn spu_read_signal1(&self) -> Result<u32> {
        self.read_signal(0).await
    }

    pub async fn spu_read_signal2(&self) -> Result<u32> {
        self.read_signal(1).await
    }

    /// The decrementer: counts down from 0xffff_ffff at the machine's timebase rate.
    pub fn spu_read_decrementer(&self) -> u32 {
        let ticks = self.decrementer_ticks();
        match self.sh.world.borrow().ch[self.spe].decrementer_written {
            // Counting down from the value written, at the decrementer's rate.
            Some((value, at)) => value.wrapping_sub(ticks.wrapping_sub(at)),
            None => u32::MAX.wrapping_sub(ticks),
        }
    }

    /// spu_write_decrementer: the decrementer counts down from `value` from now on.
    pub fn spu_write_decrementer(&self, value: u32) {
        let ticks = self.decrementer_ticks();
        self.sh.world.borrow_mut().ch[self.spe].decrementer_written = Some((value, ticks));
    }

    /// Decrementer ticks since the run began (modulo 2^32, as the register wraps).
    fn decrementer_ticks(&self) -> u32 {
        let hz = self.sh.world.borrow().p.decrementer_hz as u128;
        (self.now().0 as u128 * hz / TICKS_PER_SECOND as u128) as u32
    }

    /// Seconds per decrementer tick.
    pub fn decrementer_period_ns(&self) -> f64 {
        1e9 / self.sh.world.borrow().p.decrementer_hz as f64
    }

    /// The longest interval the 32-bit decrementer times before it wraps (about 300 s at
    /// 14.318 MHz): a program timing a longer one would read a wrong, plausible count.
    pub fn decrementer_span_ns(&self) -> f64 {
        self.decrementer_period_ns() * 2f64.powi(32)
    }

    /// mfc_getllar: load the 128-byte line at `ea` into `lsa` and reserve it.
    pub async fn mfc_getllar(&self, lsa: u32, ea: u64) -> Result<()> {
        self.check_line(lsa, ea, "mfc_getllar")?;
        let hit = self.sh.with(|m, s| m.getllar(s, self.spe, self.pid, ea));
        if !hit {
            self.sh.suspend(self.pid).await?;
        }
        let dt = self.sh.world.borrow().p.atomic_hit;
        self.sh.sleep(self.pid, dt).await;
        let mut m = self.sh.world.borrow_mut();
        m.mem.copy(crate::machine::memory::Loc::Mem(line_of(ea)), crate::machine::memory::Loc::Ls { spe: self.spe, off: lsa }, 128);
        Ok(())
    }

    /// mfc_putllc: store `lsa` to the line at `ea` if the reservation holds. Returns the atomic
    /// status: 0 on success, 1 (MFC_PUTLLC_STATUS) if the reservation was lost.
    pub async fn mfc_putllc(&self, lsa: u32, ea: u64) -> Result<u32> {
        self.check_line(lsa, ea, "mfc_putllc")?;
        let ok = self.sh.world.borrow_mut().putllc(self.spe, ea, lsa);
        let dt = self.sh.world.borrow().p.atomic_hit;
        self.sh.sleep(self.pid, dt).await;
        Ok(if ok { 0 } else { 1 })
    }

    fn check_line(&self, lsa: u32, ea: u64, what: &str) -> Result<()> {
        let m = self.sh.world.borrow();
        if !lsa.is_multiple_of(128) || !ea.is_multiple_of(128) || lsa as u64 + 128 > m.p.ls_bytes as u64 {
            return Err(program_err(format!(
                "spe {}: {what}(lsa={lsa:#x}, ea={ea:#x}): lock-line commands move one 128-byte line: both addresses must be 128-byte aligned and in range",
                self.spe
            )));
        }
        if !matches!(m.mem.resolve(ea, 128)?, crate::machine::memory::Loc::Mem(_)) {
            return Err(program_err(format!("spe {}: {what}(ea={ea:#x}): lock lines must be in main memory", self.spe)));
        }
        Ok(())
    }

    /// An atomic read-modify-write of the 32-bit word at `ea` (like atomic_add_return): a
    /// getllar/putllc loop using the 128-byte scratch line at `scratch`. Returns the old value.
    pub async fn atomic_rmw(&self, scratch: u32, ea: u64, op: AtomicOp) -> Result<u32> {
        if !ea.is_multiple_of(4) {
            return Err(program_err(format!("spe {}: atomic word at {ea:#x} is not 4-byte aligned", self.spe)));
        }
        let line = line_of(ea);
        let word = scratch + (ea - line) as u32;
        loop {
            self.mfc_getllar(scratch, line).await?;
            let old = self.ls_read_u32(word)?;
            self.ls_write_u32(word, op.apply(old))?;
            if self.mfc_putllc(scratch, line).await? == 0 {
                return Ok(old);
            }
        }
    }

    /// Wait (polling local store) until the word at `off` satisfies `ready`; returns it.
    ///
    /// A poll that nothing could have changed is skipped ([`crate::sim::Shared::poll_sleep`]):
    /// it would read the word it read last and fail, and `ready` is not asked again. The poll
    /// is stamped with this SPE's writes alone ([`Spu::poll_stamp_own`]): other processes' runs
    /// do not wake it, so `ready` must answer the same, with the same effects, until something
    /// writes into this local store or marks this SPE ([`crate::machine::Machine::marks`]): a
    /// pure test of the word, or bookkeeping whose every change that matters is marked.
    pub async fn poll_ls_u32(&self, off: u32, ready: impl Fn(u32) -> bool) -> Result<u32> {
        let v = self.ls_read_u32(off)?;
        if ready(v) {
            return Ok(v);
        }
        let (dt, spe) = (self.sh.world.borrow().p.poll, self.spe);
        self.sh.with(|_, s| s.set_waiting(self.pid, move || format!("local-store word {off:#x} of spe {spe}")));
        loop {
            self.poll_sleep(dt, Some(self.poll_stamp_own())).await;
            let v = self.ls_read_u32(off)?;
            if ready(v) {
                self.polled();
                return Ok(v);
            }
        }
    }

    /// What a poll of this SPE's local store reads unchanged until it changes: the engine's
    /// count of process runs and the count of writes into the local store
    /// ([`crate::sim::Shared::poll_sleep`]).
    pub(crate) fn poll_stamp(&self) -> Since {
        self.sh.sched.borrow().since(Some((self.spe, self.poll_writes())))
    }

    /// The stamp of a poller that reads only this SPE's local store and the state counted in
    /// its marks ([`crate::machine::Machine::marks`]): other processes' runs do not wake it.
    pub(crate) fn poll_stamp_own(&self) -> Since {
        Since { count: 0, key: Some((self.spe, self.poll_writes())), runs: false }
    }

    /// The writes into this SPE as the engine counts them when it checks a parked poll.
    fn poll_writes(&self) -> u64 {
        crate::sim::World::writes(&*self.sh.world.borrow(), self.spe).expect("the machine counts writes")
    }

    /// The wait that polled is over: the program runs on (activity, for other pollers).
    pub(crate) fn polled(&self) {
        self.sh.sched.borrow_mut().poll_succeeded(self.pid);
    }

    /// Sleep one poll interval after a failed read; `since`: the stamp from which on every
    /// poll fails until something else happens. Returns the intervals that passed
    /// ([`crate::sim::Shared::poll_sleep`]).
    pub(crate) async fn poll_sleep(&self, dt: Time, since: Option<Since>) -> u64 {
        self.sh.poll_sleep(self.pid, dt, since).await
    }

    /// Write a 32-bit value into another SPE's inbound mailbox (a 4-byte put to its MMIO
    /// register) through the scratch quadword at `scratch` (16-byte aligned). Issues the put.
    pub async fn write_remote_in_mbox(&self, scratch: u32, spe: usize, v: u32, tag: u32) -> Result<()> {
        let lsa = self.stage_in_mbox_word(scratch, spe, v)?;
        self.mfc_put(lsa, Self::mmio_ea(spe, reg::SPU_IN_MBOX), 4, tag).await
    }

    /// [`Spu::write_remote_in_mbox`] with a fenced put: it lands after every earlier command of
    /// the tag group (the second half of a 64-bit address, seed 000 §3.2).
    pub async fn write_remote_in_mboxf(&self, scratch: u32, spe: usize, v: u32, tag: u32) -> Result<()> {
        let lsa = self.stage_in_mbox_word(scratch, spe, v)?;
        self.mfc_putf(lsa, Self::mmio_ea(spe, reg::SPU_IN_MBOX), 4, tag).await
    }

    /// Put `v` where a 4-byte DMA to SPE `spe`'s inbound-mailbox register reads it: a DMA keeps
    /// the same offset within the quadword at both ends.
    fn stage_in_mbox_word(&self, scratch: u32, spe: usize, v: u32) -> Result<u32> {
        let lsa = scratch + (Self::mmio_ea(spe, reg::SPU_IN_MBOX) % 16) as u32;
        self.ls_write_u32(lsa, v)?;
        Ok(lsa)
    }

    /// Send a signal to register `which` (1 or 2) of SPE `spe` through the scratch quadword at
    /// `scratch` (16-byte aligned). Issues the sndsig.
    pub async fn signal_remote(&self, scratch: u32, spe: usize, which: u32, v: u32, tag: u32) -> Result<()> {
        let ea = Self::mmio_ea(spe, if which == 2 { reg::SIGNOTIFY2 } else { reg::SIGNOTIFY1 });
        let lsa = scratch + (ea % 16) as u32;
        self.ls_write_u32(lsa, v)?;
        self.mfc_sndsig(lsa, ea, tag).await
    }
}
