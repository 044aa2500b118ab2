//! The Memory Flow Controller of one SPE: its 16-entry command queue, tag groups, fence and
//! barrier ordering, and the rules a command must obey (sizes, alignment, list limits).

use crate::error::{program_err, Result};
use crate::sim::{Pid, Time};

use super::config::Params;
use super::memory::Loc;

/// Command kinds, named after spu_mfcio.h.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmdKind {
    Get,
    Put,
    GetList,
    PutList,
    /// sndsig: a 4-byte put to a signal-notification register.
    Sndsig,
    /// mfc_barrier: orders everything before it against everything after it.
    Barrier,
}

impl CmdKind {
    pub fn name(self, fence: bool, barrier: bool) -> String {
        let base = match self {
            CmdKind::Get => "mfc_get",
            CmdKind::Put => "mfc_put",
            CmdKind::GetList => "mfc_getl",
            CmdKind::PutList => "mfc_putl",
            CmdKind::Sndsig => "mfc_sndsig",
            CmdKind::Barrier => return "mfc_barrier".into(),
        };
        format!(
            "{base}{}",
            if fence {
                "f"
            } else if barrier {
                "b"
            } else {
                ""
            }
        )
    }

    /// Data flows from the effective address into local store.
    pub fn is_get(self) -> bool {
        matches!(self, CmdKind::Get | CmdKind::GetList)
    }
}

/// One element of a DMA list: `size` bytes at effective address `(ea & !0xffff_ffff) | eal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListElement {
    pub size: u32,
    pub eal: u32,
}

#[derive(Debug, Clone)]
pub struct MfcCommand {
    pub kind: CmdKind,
    pub lsa: u32,
    pub ea: u64,
    pub size: u32,
    pub tag: u32,
    pub fence: bool,
    pub barrier: bool,
    pub list: Vec<ListElement>,
}

/// One contiguous piece of a command: `size` bytes between `lsa` and `ea`.
#[derive(Debug, Clone, Copy)]
pub struct Piece {
    pub lsa: u32,
    pub ea: u64,
    pub size: u32,
}

impl MfcCommand {
    pub fn name(&self) -> String {
        self.kind.name(self.fence, self.barrier)
    }

    /// The pieces the command moves, in order (a list's elements, or the one transfer).
    pub fn pieces(&self) -> Vec<Piece> {
        match self.kind {
            CmdKind::GetList | CmdKind::PutList => {
                let mut lsa = self.lsa;
                self.list
                    .iter()
                    .map(|e| {
                        // A list element's LS address is the previous one's end, rounded up to 16 bytes.
                        let p = Piece { lsa, ea: (self.ea & !0xffff_ffff) | e.eal as u64, size: e.size };
                        lsa = (lsa + e.size).next_multiple_of(16);
                        p
                    })
                    .collect()
            }
            CmdKind::Barrier => Vec::new(),
            _ => vec![Piece { lsa: self.lsa, ea: self.ea, size: self.size }],
        }
    }

    /// The hardware's rules, checked at issue (the real MFC raises an alignment or invalid-DMA
    /// interrupt; we stop the run with the reason).
    pub fn validate(&self, spe: usize, p: &Params) -> Result<()> {
        // Formatted only for an error: commands are validated on every issue.
        let at = || format!("spe {spe}: {}(lsa={:#x}, ea={:#x}, size={}, tag={})", self.name(), self.lsa, self.ea, self.size, self.tag);
        if self.tag >= p.tag_groups {
            return Err(program_err(format!("{}: tag {} is out of range: allowed 0 to {}", at(), self.tag, p.tag_groups - 1)));
        }
        match self.kind {
            CmdKind::Barrier => return Ok(()),
            CmdKind::Sndsig if self.size != 4 => {
                return Err(program_err(format!("{}: sndsig moves exactly 4 bytes", at())));
            }
            CmdKind::GetList | CmdKind::PutList => {
                let n = self.list.len();
                if n == 0 || n > p.max_list_elements as usize {
                    return Err(program_err(format!("{}: list has {n} elements: allowed 1 to {}", at(), p.max_list_elements)));
                }
                if !self.lsa.is_multiple_of(16) {
                    return Err(program_err(format!("{}: a list's local-store address must be 16-byte aligned", at())));
                }
            }
            _ => {}
        }
        for (i, piece) in self.pieces().iter().enumerate() {
            let what = || if self.list.is_empty() { at() } else { format!("{} element {i}", at()) };
            check_piece(piece, p, what)?;
        }
        Ok(())
    }
}

fn check_piece(pc: &Piece, p: &Params, what: impl Fn() -> String) -> Result<()> {
    let s = pc.size;
    let legal_size = matches!(s, 1 | 2 | 4 | 8) || (s.is_multiple_of(16) && s <= p.max_dma_bytes);
    if !legal_size {
        return Err(program_err(format!(
            "{}: size {s} is illegal: allowed 1, 2, 4, 8 or a multiple of 16 up to {}",
            what(),
            p.max_dma_bytes
        )));
    }
    let align = s.min(16) as u64;
    if !(pc.lsa as u64).is_multiple_of(align) || !pc.ea.is_multiple_of(align) {
        return Err(program_err(format!(
            "{}: a {s}-byte transfer needs local-store and effective addresses aligned to {align} bytes (lsa={:#x}, ea={:#x})",
            what(),
            pc.lsa,
            pc.ea
        )));
    }
    if s < 16 && pc.lsa % 16 != (pc.ea % 16) as u32 {
        return Err(program_err(format!(
            "{}: a {s}-byte transfer needs the same offset within a quadword at both ends (lsa % 16 = {}, ea % 16 = {})",
            what(),
            pc.lsa % 16,
            pc.ea % 16
        )));
    }
    if pc.lsa as u64 + s as u64 > p.ls_bytes as u64 {
        return Err(program_err(format!(
            "{}: local-store range {:#x}..{:#x} runs past the {}-byte local store",
            what(),
            pc.lsa,
            pc.lsa as u64 + s as u64,
            p.ls_bytes
        )));
    }
    Ok(())
}

/// A command in the queue, with its progress.
pub struct Queued {
    pub id: u64,
    pub cmd: MfcCommand,
    pub pieces: Vec<Piece>,
    /// What each piece's effective address names: resolved once per command, not per packet.
    pub targets: Vec<Loc>,
    /// Next piece and the offset within it to issue.
    pub piece: usize,
    pub offset: u32,
    /// `pieces[piece]` and `targets[piece]`, `None` once every piece is issued: issuing a
    /// packet reads them here rather than from the two vectors, which are seldom in cache.
    pub current: Option<(Piece, Loc)>,
    pub in_flight: u32,
    pub enqueued_at: Time,
}

impl Queued {
    /// A command not yet in the queue (its id and enqueue time are set when it goes in).
    pub fn new(cmd: MfcCommand, pieces: Vec<Piece>, targets: Vec<Loc>) -> Queued {
        let current = pieces.first().copied().zip(targets.first().copied());
        Queued { id: 0, cmd, pieces, targets, piece: 0, offset: 0, current, in_flight: 0, enqueued_at: Time::ZERO }
    }

    pub fn fully_issued(&self) -> bool {
        self.current.is_none()
    }

    /// Issue `bytes` more of the current piece, going on to the next piece at its end.
    pub fn advance(&mut self, bytes: u32) {
        let (pc, _) = self.current.expect("a piece left to issue");
        self.offset += bytes;
        if self.offset >= pc.size {
            self.piece += 1;
            self.offset = 0;
            self.current = self.pieces.get(self.piece).copied().zip(self.targets.get(self.piece).copied());
        }
    }
}

/// Who waits on the MFC, and for what.
pub struct TagWait {
    pub pid: Pid,
    pub mask: u32,
    pub all: bool,
}

#[derive(Default)]
pub struct Mfc {
    pub queue: Vec<Queued>,
    pub outstanding: u32,
    pub issue_free: Time,
    pub kick_at: Option<Time>,
    pub tag_pending: [u32; 32],
    pub tag_mask: u32,
    pub tag_waiter: Option<TagWait>,
    /// A process whose command found the queue full, and the command (checked, not yet queued).
    pub space_waiter: Option<(Pid, Queued)>,
}

impl Mfc {
    /// May command `i` start issuing? Fence: waits for earlier commands of its tag group.
    /// Barrier form: it and every later command of its group wait for the earlier ones.
    /// mfc_barrier: waits for, and holds back, every command around it.
    pub fn eligible(&self, i: usize) -> bool {
        let c = &self.queue[i].cmd;
        for j in 0..i {
            let e = &self.queue[j].cmd;
            if e.kind == CmdKind::Barrier || c.kind == CmdKind::Barrier {
                return false;
            }
            if e.tag == c.tag && (c.fence || c.barrier || self.queue[j + 1..i].iter().any(|k| k.cmd.tag == c.tag && k.cmd.barrier)) {
                return false;
            }
        }
        true
    }

    /// The first command that satisfies `wanted` and is [`Mfc::eligible`], found in one pass
    /// over the queue (the issue path asks on every packet; asking `eligible` of each
    /// command in turn rescans the commands before it).
    pub fn first_eligible(&self, wanted: impl Fn(&Queued) -> bool) -> Option<usize> {
        // Before command i: a tag group has an earlier command (`seen`), a tag group holds back
        // its later commands (a barrier-form command behind another of its group: `held`).
        let (mut seen, mut held) = (0u32, 0u32);
        for (i, q) in self.queue.iter().enumerate() {
            let c = &q.cmd;
            if c.kind == CmdKind::Barrier {
                // It waits for everything before it, and holds back everything after it.
                return (i == 0 && wanted(q)).then_some(0);
            }
            let bit = 1u32 << c.tag;
            if (seen & bit == 0 || !(c.fence || c.barrier) && held & bit == 0) && wanted(q) {
                return Some(i);
            }
            if c.barrier && seen & bit != 0 {
                held |= bit;
            }
            seen |= bit;
        }
        None
    }

    /// Tags in `mask` with nothing pending.
    pub fn done_tags(&self, mask: u32) -> u32 {
        (0..32).filter(|&t| mask & (1 << t) != 0 && self.tag_pending[t] == 0).fold(0, |m, t| m | (1 << t))
    }

    /// The tag status a waiter would read now, if its condition holds.
    pub fn tag_ready(&self, mask: u32, all: bool) -> Option<u32> {
        let done = self.done_tags(mask);
        let ok = if all { done == mask } else { done != 0 || mask == 0 };
        ok.then_some(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::config::{load, preset_text};

    fn params() -> Params {
        Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap())
    }

    fn get(lsa: u32, ea: u64, size: u32) -> MfcCommand {
        MfcCommand { kind: CmdKind::Get, lsa, ea, size, tag: 0, fence: false, barrier: false, list: vec![] }
    }

    #[test]
    fn legal_sizes_and_alignment() {
        let p = params();
        for s in [1u32, 2, 4, 8, 16, 32, 128, 16384] {
            assert!(get(0, 0, s).validate(0, &p).is_ok(), "size {s}");
        }
        for s in [3u32, 12, 24, 16400] {
            let e = get(0, 0, s).validate(2, &p).unwrap_err().to_string();
            assert!(e.contains(&format!("size {s} is illegal")) && e.starts_with("spe 2: mfc_get("), "{e}");
        }
        assert!(get(4, 4, 4).validate(0, &p).is_ok());
        assert!(get(4, 8, 4).validate(0, &p).unwrap_err().to_string().contains("same offset within a quadword"));
        assert!(get(8, 8, 16).validate(0, &p).unwrap_err().to_string().contains("aligned to 16 bytes"));
        assert!(get(262144 - 16, 0, 32).validate(0, &p).unwrap_err().to_string().contains("runs past"));
        let mut c = get(0, 0, 16);
        c.tag = 32;
        assert!(c.validate(0, &p).unwrap_err().to_string().contains("tag 32 is out of range: allowed 0 to 31"));
    }

    /// The one-pass search finds what asking `eligible` of each command in turn finds, over
    /// random queues of gets, fenced and barrier forms, mfc_barriers and a few tags.
    #[test]
    fn first_eligible_is_the_first_command_eligible_asks_for() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(24);
        for _ in 0..20_000 {
            let mut m = Mfc::default();
            for _ in 0..rng.gen_range(0..10) {
                let mut c = get(0, 0, 16);
                (c.tag, c.fence, c.barrier) = (rng.gen_range(0..3) * 15, rng.gen_bool(0.25), rng.gen_bool(0.25));
                if rng.gen_bool(0.1) {
                    c.kind = CmdKind::Barrier;
                }
                let mut q = Queued::new(c, vec![], vec![]);
                q.in_flight = rng.gen_range(0..2);
                m.queue.push(q);
            }
            let wanted = |q: &Queued| q.in_flight == 0;
            let asked = (0..m.queue.len()).find(|&i| wanted(&m.queue[i]) && m.eligible(i));
            assert_eq!(
                m.first_eligible(wanted),
                asked,
                "{:?}",
                m.queue.iter().map(|q| (q.cmd.kind, q.cmd.tag, q.cmd.fence, q.cmd.barrier, q.in_flight)).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn list_elements_pack_on_16_bytes() {
        let c = MfcCommand {
            kind: CmdKind::GetList,
            lsa: 0,
            ea: 0x1_0000_0000,
            size: 0,
            tag: 1,
            fence: false,
            barrier: false,
            list: vec![ListElement { size: 8, eal: 0x100 }, ListElement { size: 16, eal: 0x200 }],
        };
        let pcs = c.pieces();
        assert_eq!(pcs[1].lsa, 16);
        assert_eq!(pcs[1].ea, 0x1_0000_0200);
        let mut long = c.clone();
        long.list = vec![ListElement { size: 16, eal: 0 }; 2049];
        assert!(long.validate(0, &params()).unwrap_err().to_string().contains("2049 elements: allowed 1 to 2048"));
    }
}
