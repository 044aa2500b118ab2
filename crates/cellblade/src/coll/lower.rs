//! Lowering a schedule to SPE operations with the notification protocol of seed 000 §3.1.
//!
//! Every rank keeps, in its local store, an ADDR and an ACK array of one 16-byte entry per rank.
//! To announce that data is ready (or, for a barrier, just "I am here"), a rank writes a counter
//! into its entry of the reader's ADDR array with one 16-byte DMA; the reader polls that entry,
//! gets the data straight from the writer's local store, and acknowledges the same way into the
//! writer's ACK array. No locks: each entry has one writer.
//!
//! Per round a rank (1) waits, in ordered mode, for the acknowledgements of the previous round's
//! readers, (2) announces its sends, (3) waits for each announcement it needs and gets the data
//! (reductions land in a scratch buffer), (4) acknowledges, (5) reduces. In unordered mode
//! ("simple") a rank announces every later send as soon as it has received all it will receive.

use crate::error::{program_err, Result};
use crate::spu::Spu;

use super::data::{combine, Dtype, ReduceOp};
use super::schedule::{Action, Schedule};

const MAX_DMA: u32 = 16384;
const DATA_TAG: u32 = 0;
/// Notifications to peer q use tag NOTE_TAG + q, so only a notification to the same peer waits.
const NOTE_TAG: u32 = 2;
const ALL_NOTES: u32 = 0xffff << NOTE_TAG;

/// Local-store layout, the same on every rank so peers' addresses are known.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub buf: u32,
    pub tmp: u32,
    pub addr: u32,
    pub ack: u32,
    /// One outgoing quadword per peer and kind, so a word never changes while its DMA is queued.
    pub out: u32,
}

impl Layout {
    /// Local-store bytes schedule `s` takes on each SPE: the buffer, a scratch buffer of the
    /// same size if it reduces, and the notification arrays.
    pub fn footprint(s: &Schedule) -> u32 {
        let buffer = s.buffer.max(16).next_multiple_of(128);
        let scratch = if s.reduces() { buffer } else { 0 };
        buffer + scratch + 4 * 16 * s.p as u32
    }

    /// Allocate the layout for `s` on `spu`; a collective that does not fit fails here.
    pub fn alloc(spu: &Spu, s: &Schedule) -> Result<Layout> {
        let need = Self::footprint(s);
        let (p, buffer, what) = (s.p, s.buffer, &s.algorithm);
        let fail = |e: crate::error::Error| program_err(format!("{what}: needs {need} bytes of local store on spe {}: {e}", spu.spe_id()));
        let buf = spu.ls_alloc(buffer.max(16), 128).map_err(fail)?;
        // Only reductions land in scratch first.
        let tmp = if s.reduces() { spu.ls_alloc(buffer.max(16), 128).map_err(fail)? } else { buf };
        let addr = spu.ls_alloc(16 * p as u32, 16).map_err(fail)?;
        let ack = spu.ls_alloc(16 * p as u32, 16).map_err(fail)?;
        let out = spu.ls_alloc(2 * 16 * p as u32, 16).map_err(fail)?;
        Ok(Layout { buf, tmp, addr, ack, out })
    }
}

/// One rank's state across collective calls: the counters that make ADDR/ACK entries reusable.
pub struct Rank {
    pub spu: Spu,
    pub rank: usize,
    pub spes: Vec<usize>,
    pub layout: Layout,
    sent: Vec<[u32; 2]>,
    seen: Vec<[u32; 2]>,
    pub dtype: Dtype,
    pub rop: ReduceOp,
    /// Core cycles to combine one 16-byte quadword.
    pub reduce_cycles: u64,
    /// Announcements of the current call go through signal register 1 (see `Schedule::signals`).
    signals: bool,
    /// Signal bits read but not yet consumed.
    signal_bits: u32,
}

const ADDR: usize = 0;
const ACK: usize = 1;

impl Rank {
    pub fn new(spu: Spu, rank: usize, spes: Vec<usize>, layout: Layout, dtype: Dtype, rop: ReduceOp, reduce_cycles: u64) -> Rank {
        let p = spes.len();
        Rank { spu, rank, spes, layout, sent: vec![[0; 2]; p], seen: vec![[0; 2]; p], dtype, rop, reduce_cycles, signals: false, signal_bits: 0 }
    }

    /// Write the next counter value into our entry of `peer`'s ADDR or ACK array.
    async fn notify(&mut self, peer: usize, kind: usize) -> Result<()> {
        self.sent[peer][kind] += 1;
        let word = self.layout.out + 16 * (2 * peer + kind) as u32;
        // The previous notification from this word must have left before we overwrite it.
        let tag = NOTE_TAG + peer as u32;
        self.spu.mfc_write_tag_mask(1 << tag);
        self.spu.mfc_read_tag_status_all().await?;
        if self.signals && kind == ADDR {
            return self.spu.signal_remote(word, self.spes[peer], 1, 1 << self.rank, tag).await;
        }
        self.spu.ls_write_u32(word, self.sent[peer][kind]);
        let array = if kind == ADDR { self.layout.addr } else { self.layout.ack };
        let ea = Spu::ls_ea(self.spes[peer], array + 16 * self.rank as u32);
        self.spu.mfc_put(word, ea, 16, tag).await
    }

    /// Poll our `kind` entry for `peer` until its next notification has arrived.
    async fn await_note(&mut self, peer: usize, kind: usize) -> Result<()> {
        if self.signals && kind == ADDR {
            while self.signal_bits & (1 << peer) == 0 {
                self.signal_bits |= self.spu.spu_read_signal1().await?;
            }
            self.signal_bits &= !(1 << peer);
            return Ok(());
        }
        self.seen[peer][kind] += 1;
        let want = self.seen[peer][kind];
        let array = if kind == ADDR { self.layout.addr } else { self.layout.ack };
        self.spu.poll_ls_u32(array + 16 * peer as u32, |v| v >= want).await?;
        Ok(())
    }

    async fn get(&self, lsa: u32, peer: usize, src: u32, bytes: u32) -> Result<()> {
        let ea = Spu::ls_ea(self.spes[peer], src);
        let mut off = 0;
        while off < bytes {
            let n = (bytes - off).min(MAX_DMA);
            self.spu.mfc_get(lsa + off, ea + off as u64, n, DATA_TAG).await?;
            off += n;
        }
        Ok(())
    }

    /// Wait until every reader of our round-`k` sends has acknowledged, once per round.
    async fn await_readers(&mut self, s: &Schedule, k: usize, acked: &mut [bool]) -> Result<()> {
        if acked[k] {
            return Ok(());
        }
        acked[k] = true;
        let me = self.rank;
        for x in s.rounds[k].iter().filter(|x| x.src == me && x.action != Action::Notify) {
            self.await_note(x.dst, ACK).await?;
        }
        Ok(())
    }

    /// Run one call of the collective `s`.
    pub async fn run(&mut self, s: &Schedule) -> Result<()> {
        let me = self.rank;
        self.signals = s.signals;
        let last_recv = s.rounds.iter().rposition(|r| r.iter().any(|x| x.dst == me));
        let mut announced_through = None::<usize>;
        let mut acked = vec![false; s.rounds.len()];
        for (k, round) in s.rounds.iter().enumerate() {
            // (1) ordered: the readers of my previous round are done with my buffer.
            if s.ordered && k > 0 {
                self.await_readers(s, k - 1, &mut acked).await?;
            }
            // (2) announce.
            let upto = if !s.ordered && last_recv.is_none_or(|l| k > l) { s.rounds.len() - 1 } else { k };
            if announced_through.is_none_or(|a| a < upto) {
                let from = announced_through.map_or(0, |a| a + 1).max(k);
                for r in from..=upto {
                    for x in s.rounds[r].iter().filter(|x| x.src == me) {
                        self.notify(x.dst, ADDR).await?;
                    }
                }
                announced_through = Some(upto);
            }
            // (3) receive.
            let recvs: Vec<_> = round.iter().filter(|x| x.dst == me).copied().collect();
            for x in &recvs {
                self.await_note(x.src, ADDR).await?;
                match x.action {
                    Action::Notify => {}
                    Action::Copy => self.get(self.layout.buf + x.dst_offset, x.src, self.layout.buf + x.src_offset, x.bytes).await?,
                    Action::Reduce => self.get(self.layout.tmp + x.dst_offset, x.src, self.layout.buf + x.src_offset, x.bytes).await?,
                }
            }
            self.spu.mfc_write_tag_mask(1 << DATA_TAG);
            self.spu.mfc_read_tag_status_all().await?;
            // (4) acknowledge.
            for x in recvs.iter().filter(|x| x.action != Action::Notify) {
                self.notify(x.src, ACK).await?;
            }
            // (5) reduce, once this round's readers no longer need the old values.
            if recvs.iter().any(|x| x.action == Action::Reduce) {
                self.await_readers(s, k, &mut acked).await?;
            }
            for x in recvs.iter().filter(|x| x.action == Action::Reduce) {
                let (d, t) = (self.layout.buf + x.dst_offset, self.layout.tmp + x.dst_offset);
                let mut acc = self.spu.ls_read(d, x.bytes);
                combine(self.dtype, self.rop, &mut acc, &self.spu.ls_read(t, x.bytes));
                self.spu.ls_write(d, &acc);
                self.spu.compute(self.reduce_cycles * x.bytes.div_ceil(16) as u64).await;
            }
        }
        // Before the next call may touch the buffer, every reader is done.
        for k in 0..s.rounds.len() {
            self.await_readers(s, k, &mut acked).await?;
        }
        self.spu.mfc_write_tag_mask(ALL_NOTES);
        self.spu.mfc_read_tag_status_all().await?;
        Ok(())
    }
}
