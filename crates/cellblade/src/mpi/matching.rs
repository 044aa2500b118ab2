//! The receiver's side of the unexpected queue (`unexpected.rs`): parking a flagged entry that
//! no posted receive matches, and taking a parked message into a receive.

use crate::error::Result;
use crate::machine::memory::Memory;

use super::layout::{self, meta, tag, CHUNKS, COMPLETIONS, COMPLETION_OUT, META_BYTES};
use super::rank::{Rank, Status, SIGNAL2_FROM_1};
use super::unexpected::{completion_bit, parked_bytes, Ack, Parked};
use super::{code, transfer};

impl Rank {
    /// Move `sender`'s flagged entry on `comm`'s context into the unexpected queue and free the
    /// entry: copy its fields (and a buffered message's bytes) out by the SPU's loads and stores,
    /// unset the flag, and tell a nonblocking sender which of its sends is parked (its
    /// completion bit, then the entry's bit in signal 2). A blocking sender hears nothing until
    /// a receive takes the message.
    ///
    /// The message takes its space ([`parked_bytes`]) where the mode keeps buffers while it is
    /// parked; none left is an error naming it.
    pub(super) async fn park(&self, sender: usize, comm: u32) -> Result<()> {
        let entry = layout::entry(sender, comm);
        let word = |off: u32| self.spu().ls_read_u32(entry + off).expect("meta-data entries lie inside the local store");
        let (size, inline, ack2) = (word(meta::SIZE), word(meta::INLINE) != 0, word(meta::ACK2) != 0);
        let bytes = if inline { Some(self.spu().ls_read(entry + meta::DATA, size)?) } else { None };
        let ack = match (inline, ack2) {
            (true, _) => Ack::None,
            (false, true) => Ack::Word(word(meta::INDEX)),
            (false, false) => Ack::Code,
        };
        let (tag, at) = (word(meta::TAG) as i32, word(meta::COMM));
        let what = format!("a {size}-byte message from rank {sender} (tag {tag})");
        let bytes_held = parked_bytes(size, inline);
        let held = (self.hold_parked(bytes_held, &what)?, bytes_held);
        let addr = (u64::from(word(meta::ADDR_HI)) << 32) | u64::from(word(meta::ADDR_LO));
        let p = Parked { source: sender, tag, comm: at, size, addr, inline: bytes, ack, cancelled: false, held };
        // Claimed in this instant (the entry's flag), so a sender's cancel finds it in the queue.
        self.spu().ls_write_u32(entry + meta::FLAG, 0)?;
        self.parked().borrow_mut().push(p);
        let quads = (META_BYTES + if inline { size } else { 0 }).div_ceil(16);
        let per = self.spu().with_machine(|m| m.p.copy_cycles_per_quadword);
        self.spu().compute(u64::from(quads) * per).await;
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
        // Off the queue in the instant it matched: a later cancel no longer finds it.
        let p = self.parked().borrow_mut().remove(k);
        self.unhold_parked(p.held);
        self.charge_call().await;
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

#[cfg(test)]
mod tests {
    use crate::machine::config;
    use crate::mpi::{Mode, MpiWorld};

    /// Rank 0 isends three 64-byte messages with tag 1, then sends tag 2; rank 1, with `room`
    /// bytes of its buffers' space left, receives tag 2 first, parking the three on the way.
    fn park_three(mode: Mode, room: u64) -> crate::error::Result<crate::mpi::WorldReport> {
        let file = config::load(config::preset_text("qs20").unwrap(), &[]).unwrap();
        let mut w = MpiWorld::new(file, 2, None, mode).unwrap();
        w.rank(0, |r| async move {
            let b = r.alloc(64)?;
            let qs = [r.isend(b, 64, 1, 1, 0).await?, r.isend(b, 64, 1, 1, 0).await?, r.isend(b, 64, 1, 1, 0).await?];
            r.send(b, 0, 1, 2, 0).await?;
            for q in qs {
                r.wait(q).await?;
            }
            Ok(())
        })
        .unwrap();
        w.rank(1, move |r| async move {
            r.alloc(r.largest_free() - room)?;
            let b = r.alloc(64)?;
            r.recv(b, 0, 0, 2, 0).await?;
            assert_eq!(r.queue_held(), 3 * 128, "three entries are parked");
            assert!(r.alloc(r.largest_free() + 1).is_err(), "the parked entries' space is not free for buffers");
            for _ in 0..3 {
                assert_eq!(r.recv(b, 64, 0, 1, 0).await?.bytes, 64);
            }
            assert_eq!(r.queue_held(), 0, "received: the space is back");
            Ok(())
        })
        .unwrap();
        w.run()
    }

    #[test]
    fn parked_messages_take_the_space_of_the_modes_buffers_while_parked() {
        park_three(Mode::Ls, 3 * 128 + 128).unwrap();
        park_three(Mode::Memory, 3 * 128 + 128).unwrap();
    }

    #[test]
    fn a_queue_that_outgrows_its_space_is_reported_not_overflowed() {
        let e = park_three(Mode::Ls, 2 * 128 + 128).unwrap_err().to_string();
        assert!(
            e.contains(
                "rank 1: the unexpected queue cannot park a 64-byte message from rank 0 (tag 1): it needs 128 bytes of the local store \
                 (ls mode keeps message buffers there), 0 are free (2 parked messages hold 256 bytes; receive them, or post the receive first)"
            ),
            "{e}"
        );
    }
}
