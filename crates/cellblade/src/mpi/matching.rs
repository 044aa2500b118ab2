//! The receiver's side of the unexpected queue (`unexpected.rs`): parking a flagged entry that
//! no posted receive matches, and taking a parked message into a receive.

use crate::error::Result;
use crate::machine::memory::Memory;

use super::layout::{self, meta, tag, CHUNKS, COMPLETIONS, COMPLETION_OUT, META_BYTES};
use super::rank::{Rank, Status, SIGNAL2_FROM_1};
use super::unexpected::{completion_bit, Ack, Parked};
use super::{code, transfer};

impl Rank {
    /// Move `sender`'s flagged entry on `comm`'s context into the unexpected queue and free the
    /// entry: copy its fields (and a buffered message's bytes) out by the SPU's loads and stores,
    /// unset the flag, and tell a nonblocking sender which of its sends is parked (its
    /// completion bit, then the entry's bit in signal 2). A blocking sender hears nothing until
    /// a receive takes the message.
    pub(super) async fn park(&self, sender: usize, comm: u32) -> Result<()> {
        let entry = layout::entry(sender, comm);
        let word = |off: u32| self.spu().ls_read_u32(entry + off).expect("meta-data entries lie inside the local store");
        let (size, inline, ack2) = (word(meta::SIZE), word(meta::INLINE) != 0, word(meta::ACK2) != 0);
        let bytes = if inline { Some(self.spu().ls_read(entry + meta::DATA, size)?) } else { None };
        let quads = (META_BYTES + if inline { size } else { 0 }).div_ceil(16);
        let per = self.spu().with_machine(|m| m.p.copy_cycles_per_quadword);
        self.spu().compute(u64::from(quads) * per).await;
        let ack = match (inline, ack2) {
            (true, _) => Ack::None,
            (false, true) => Ack::Word(word(meta::INDEX)),
            (false, false) => Ack::Code,
        };
        let addr = (u64::from(word(meta::ADDR_HI)) << 32) | u64::from(word(meta::ADDR_LO));
        let p = Parked { source: sender, tag: word(meta::TAG) as i32, comm: word(meta::COMM), size, addr, inline: bytes, ack };
        self.spu().ls_write_u32(entry + meta::FLAG, 0)?;
        self.parked.borrow_mut().push(p);
        if let Ack::Word(index) = ack {
            self.toggle_completion(sender, completion_bit(index, comm)).await?;
        }
        if inline || ack2 {
            self.free_entry(sender, comm).await?;
        }
        self.tracker.running(self.boot.rank);
        Ok(())
    }

    /// Signal `sender` that its entry on `comm`'s context in this rank is free (its bit in
    /// signal register 2, OR mode).
    pub(super) async fn free_entry(&self, sender: usize, comm: u32) -> Result<()> {
        let bit = layout::slot_bit(self.boot.rank, comm);
        self.tracker.slot_freed(sender, bit);
        self.signal(self.boot.signal_ea[sender] + SIGNAL2_FROM_1, bit).await
    }

    /// Take the parked message at `k` of the queue into `cap` bytes at `buf`: move its data (from
    /// the sender's buffer, or a buffered message's bytes through the local store) and tell the
    /// sender its send is done.
    pub(super) async fn take_parked(&self, k: usize, buf: u64, cap: u32) -> Result<Status> {
        self.charge_call().await;
        let p = self.parked.borrow_mut().remove(k);
        let n = p.size.min(cap);
        match &p.inline {
            Some(bytes) => {
                // The staging chunk is free between calls: the bytes leave from there.
                self.spu().ls_write(CHUNKS, &bytes[..n as usize])?;
                transfer::ls_copy(self.spu(), CHUNKS, buf, n, false).await?;
            }
            None => transfer::move_data(self.spu(), p.addr, buf, n, self.boot.depth).await?,
        }
        let error = if p.size > cap { code::ERR_TRUNCATE } else { code::SUCCESS };
        match p.ack {
            Ack::Code => {
                self.tracker.acknowledged(p.source);
                self.signal(self.boot.signal_ea[p.source], error).await?;
            }
            Ack::Word(index) => self.toggle_completion(p.source, completion_bit(index, p.comm)).await?,
            Ack::None => {}
        }
        self.tracker.running(self.boot.rank);
        Ok(Status { error, bytes: n, ..p.status() })
    }

    /// Toggle `bits` of `sender`'s completion word for this rank: a 4-byte DMA of this rank's
    /// copy of it (the only writer), behind the previous one (the same tag group as signals, so
    /// a signal sent next leaves after it has landed).
    async fn toggle_completion(&self, sender: usize, bits: u32) -> Result<()> {
        let me = self.boot.rank;
        let value = {
            let mut w = self.written.borrow_mut();
            w[sender] ^= bits;
            w[sender]
        };
        let at = COMPLETIONS + 4 * me as u32;
        let lsa = COMPLETION_OUT + at % 16;
        self.spu().mfc_write_tag_mask(1 << tag::SIGNAL);
        self.spu().mfc_read_tag_status_all().await?;
        self.spu().ls_write_u32(lsa, value)?;
        let to = Memory::ls_ea(self.boot.spes[sender], at);
        self.spu().mfc_put(lsa, to, 4, tag::SIGNAL).await?;
        self.tracker.toggle(sender, me, bits);
        Ok(())
    }

    /// The bits of this rank's completion word for `receiver` that changed since it last took
    /// note of them, among `mask`; they are noted now.
    pub(super) fn completions_seen(&self, receiver: usize, mask: u32) -> u32 {
        let now = self.spu().ls_read_u32(COMPLETIONS + 4 * receiver as u32).expect("completion words lie inside the local store");
        let mut seen = self.seen.borrow_mut();
        let changed = (now ^ seen[receiver]) & mask;
        seen[receiver] ^= changed;
        self.tracker.toggle_seen(self.boot.rank, receiver, changed);
        changed
    }
}
