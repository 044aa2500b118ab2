//! Mailboxes and signal-notification registers of one SPE.
//!
//! Contracts (hardware notes §5): the inbound mailbox holds 4 entries and a write to a full one
//! replaces the newest entry; the outbound and outbound-interrupt mailboxes hold 1 entry and an
//! SPU writing a full one stalls; an SPU reading an empty inbound mailbox or a signal register
//! with nothing pending stalls; an SPU read clears the signal register; in OR mode writes
//! accumulate bits, in overwrite mode (the default) they replace.

use std::collections::VecDeque;

use crate::sim::Pid;

pub const IN_MBOX_DEPTH: usize = 4;

#[derive(Default)]
pub struct Channels {
    pub in_mbox: VecDeque<u32>,
    pub out_mbox: Option<u32>,
    pub out_intr_mbox: Option<u32>,
    pub signal: [Option<u32>; 2],
    pub signal_or_mode: [bool; 2],
    pub in_reader: Option<Pid>,
    pub out_writer: Option<(Pid, u32)>,
    pub signal_reader: [Option<Pid>; 2],
    /// The outbound interrupt mailbox's ends: the PPE threads blocked in spe_out_intr_mbox_read
    /// (spufs's ibox read sleeps on the context's wait queue until the SPU's interrupt), served
    /// in the order they began to wait, and an SPU stalled on a full one.
    pub intr_readers: VecDeque<Pid>,
    pub intr_writer: Option<(Pid, u32)>,
    /// The decrementer's last write: the value and the tick count (modulo 2^32) it was written
    /// at; unwritten, it counts down from 0xFFFFFFFF at time 0.
    pub decrementer_written: Option<(u32, u32)>,
    /// Entries lost to inbound overflow (the hardware's overwrite of the newest entry).
    pub in_overwrites: u64,
}

/// What a write delivered: nobody waited, or this process must be woken with this value.
pub type Delivery = Option<(Pid, u32)>;

impl Channels {
    /// An MMIO write to the inbound mailbox.
    pub fn write_in_mbox(&mut self, v: u32) -> Delivery {
        if let Some(pid) = self.in_reader.take() {
            return Some((pid, v));
        }
        if self.in_mbox.len() < IN_MBOX_DEPTH {
            self.in_mbox.push_back(v);
        } else {
            *self.in_mbox.back_mut().expect("full") = v;
            self.in_overwrites += 1;
        }
        None
    }

    /// The SPU reads its inbound mailbox: a value, or it must wait.
    pub fn read_in_mbox(&mut self, pid: Pid) -> Option<u32> {
        let v = self.in_mbox.pop_front();
        if v.is_none() {
            self.in_reader = Some(pid);
        }
        v
    }

    /// The SPU writes its outbound mailbox: true if written, false if it must wait.
    pub fn write_out_mbox(&mut self, pid: Pid, v: u32) -> bool {
        if self.out_mbox.is_none() {
            self.out_mbox = Some(v);
            true
        } else {
            self.out_writer = Some((pid, v));
            false
        }
    }

    /// An MMIO read of the outbound mailbox; a stalled writer's value moves in and it is woken.
    pub fn read_out_mbox(&mut self) -> (Option<u32>, Option<Pid>) {
        let v = self.out_mbox.take();
        let woken = self.out_writer.take().map(|(pid, w)| {
            self.out_mbox = Some(w);
            pid
        });
        (v, woken)
    }

    /// The SPU writes its outbound interrupt mailbox: the PPE thread that has waited longest
    /// to read it is handed the word (to be woken with it); else the word is stored, true; or,
    /// full, the SPU must wait.
    pub fn write_out_intr_mbox(&mut self, pid: Pid, v: u32) -> (bool, Delivery) {
        if let Some(reader) = self.intr_readers.pop_front() {
            return (true, Some((reader, v)));
        }
        if self.out_intr_mbox.is_none() {
            self.out_intr_mbox = Some(v);
            (true, None)
        } else {
            self.intr_writer = Some((pid, v));
            (false, None)
        }
    }

    /// The PPE reads the outbound interrupt mailbox: the word and the SPU writer to wake (its
    /// stalled word moves in); with nothing there and `reader`, that PPE thread waits for one,
    /// behind those already waiting.
    pub fn read_out_intr_mbox(&mut self, reader: Option<Pid>) -> (Option<u32>, Option<Pid>) {
        let v = self.out_intr_mbox.take();
        if v.is_none() {
            self.intr_readers.extend(reader);
            return (None, None);
        }
        let woken = self.intr_writer.take().map(|(pid, w)| {
            self.out_intr_mbox = Some(w);
            pid
        });
        (v, woken)
    }

    /// SPU_Mbox_Stat: outbound count (bits 0-7), free inbound slots (8-15), interrupt-mailbox count (16-23).
    pub fn mbox_status(&self) -> u32 {
        self.out_mbox.is_some() as u32
            | (((IN_MBOX_DEPTH - self.in_mbox.len()) as u32) << 8)
            | ((self.out_intr_mbox.is_some() as u32) << 16)
    }

    /// A write to signal register `which` (0 or 1).
    pub fn write_signal(&mut self, which: usize, v: u32) -> Delivery {
        let merged = match (self.signal_or_mode[which], self.signal[which]) {
            (true, Some(old)) => old | v,
            _ => v,
        };
        if let Some(pid) = self.signal_reader[which].take() {
            return Some((pid, merged));
        }
        self.signal[which] = Some(merged);
        None
    }

    /// The SPU reads signal register `which`: the value (clearing it), or it must wait.
    pub fn read_signal(&mut self, which: usize, pid: Pid) -> Option<u32> {
        let v = self.signal[which].take();
        if v.is_none() {
            self.signal_reader[which] = Some(pid);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inbound_overflow_replaces_the_newest_entry() {
        // Hardware notes §5: after 5 writes the SPE reads entries 1, 2, 3 and 5.
        let mut c = Channels::default();
        for v in 1..=5 {
            assert_eq!(c.write_in_mbox(v), None);
        }
        let got: Vec<u32> = (0..4).map(|_| c.read_in_mbox(0).unwrap()).collect();
        assert_eq!(got, vec![1, 2, 3, 5]);
        assert_eq!(c.in_overwrites, 1);
        assert_eq!(c.read_in_mbox(7), None);
        assert_eq!(c.write_in_mbox(9), Some((7, 9)));
    }

    #[test]
    fn the_interrupt_mailbox_holds_one_word_and_hands_it_to_a_waiting_reader() {
        let mut c = Channels::default();
        assert_eq!(c.write_out_intr_mbox(1, 10), (true, None));
        assert_eq!(c.write_out_intr_mbox(1, 11), (false, None), "full: the SPU stalls");
        assert_eq!(c.read_out_intr_mbox(None), (Some(10), Some(1)), "the stalled word moves in");
        assert_eq!(c.read_out_intr_mbox(Some(5)), (Some(11), None));
        assert_eq!(c.read_out_intr_mbox(Some(5)), (None, None), "empty: the reader waits");
        assert_eq!(c.write_out_intr_mbox(1, 12), (true, Some((5, 12))));
        assert_eq!(c.out_intr_mbox, None);
    }

    #[test]
    fn several_waiting_readers_of_the_interrupt_mailbox_are_each_served_in_turn() {
        // Three PPE threads wait on one SPE's interrupt mailbox (libspe2's
        // test_ibox_simultaneous): each word goes to the one that has waited longest, none lost.
        let mut c = Channels::default();
        for reader in [5, 6, 7] {
            assert_eq!(c.read_out_intr_mbox(Some(reader)), (None, None));
        }
        assert_eq!(c.read_out_intr_mbox(None), (None, None), "a non-blocking read does not queue");
        assert_eq!(c.write_out_intr_mbox(1, 20), (true, Some((5, 20))));
        assert_eq!(c.write_out_intr_mbox(1, 21), (true, Some((6, 21))));
        assert_eq!(c.read_out_intr_mbox(Some(8)), (None, None), "a late reader waits behind 7");
        assert_eq!(c.write_out_intr_mbox(1, 22), (true, Some((7, 22))));
        assert_eq!(c.write_out_intr_mbox(1, 23), (true, Some((8, 23))));
        assert_eq!(c.write_out_intr_mbox(1, 24), (true, None), "nobody waits: the word is stored");
        assert_eq!(c.out_intr_mbox, Some(24));
    }

    #[test]
    fn signals_or_and_overwrite() {
        let mut c = Channels::default();
        c.signal_or_mode[1] = true;
        c.write_signal(0, 1);
        c.write_signal(0, 2);
        assert_eq!(c.read_signal(0, 0), Some(2));
        c.write_signal(1, 1);
        c.write_signal(1, 4);
        assert_eq!(c.read_signal(1, 0), Some(5));
        assert_eq!(c.read_signal(1, 3), None);
        assert_eq!(c.write_signal(1, 8), Some((3, 8)));
    }

    #[test]
    fn outbound_holds_one_and_status_counts() {
        let mut c = Channels::default();
        assert!(c.write_out_mbox(1, 10));
        assert!(!c.write_out_mbox(1, 11));
        assert_eq!(c.mbox_status() & 0xff, 1);
        assert_eq!((c.mbox_status() >> 8) & 0xff, 4);
        assert_eq!(c.read_out_mbox(), (Some(10), Some(1)));
        assert_eq!(c.read_out_mbox(), (Some(11), None));
    }
}
