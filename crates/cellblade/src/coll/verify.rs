//! The data-only interpreter: runs a schedule on plain byte buffers, round by round, and checks
//! the result against the reference. A barrier schedule is checked by knowledge: every rank
//! must have heard, directly or not, from every other rank.

use std::rc::Rc;

use crate::error::{config_err, Result};

use super::data::{combine, expected, inputs, Dtype, ReduceOp};
use super::schedule::{Action, Op, Schedule};

/// Run `s` on the reference inputs; return each rank's final buffer.
pub fn interpret(s: &Schedule, dtype: Dtype, rop: ReduceOp) -> Vec<Vec<u8>> {
    interpret_on(s, dtype, rop, inputs(s.op, s.p, s.root, s.size, dtype))
}

/// [`interpret`] on the inputs `bufs` (the reference inputs, built by the caller).
fn interpret_on(s: &Schedule, dtype: Dtype, rop: ReduceOp, mut bufs: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    // Schedules with staging space (the CML-style baseline) have a larger buffer.
    for b in bufs.iter_mut().filter(|b| !b.is_empty()) {
        b.resize(s.buffer as usize, 0);
    }
    // Every transfer of a round reads what its source held before the round: those bytes are
    // staged first (copying every whole buffer each round was most of a 16-SPE check's time).
    let mut staged = Vec::new();
    for round in &s.rounds {
        let moves = || round.iter().filter(|x| !matches!(x.action, Action::Notify));
        staged.clear();
        for x in moves() {
            staged.extend_from_slice(&bufs[x.src][x.src_offset as usize..][..x.bytes as usize]);
        }
        let mut at = 0;
        for x in moves() {
            let (b, n) = (x.dst_offset as usize, x.bytes as usize);
            let (dst, src) = (&mut bufs[x.dst][b..b + n], &staged[at..at + n]);
            match x.action {
                Action::Reduce => combine(dtype, rop, dst, src),
                _ => dst.copy_from_slice(src),
            }
            at += n;
        }
    }
    bufs
}

/// Check `s` gives the right answer (and, for barriers, that everyone hears from everyone).
pub fn verify(s: &Schedule, dtype: Dtype, rop: ReduceOp) -> Result<()> {
    verify_on(s, dtype, rop, inputs(s.op, s.p, s.root, s.size, dtype), &expected(s.op, s.p, s.root, s.size, dtype, rop))
}

/// [`verify`] with the reference inputs and results given: a timed run builds them too.
pub(crate) fn verify_on(s: &Schedule, dtype: Dtype, rop: ReduceOp, inputs: Vec<Vec<u8>>, want: &[Option<Rc<[u8]>>]) -> Result<()> {
    s.check()?;
    if matches!(s.op, Op::Barrier | Op::Allreduce | Op::Allgather) {
        // Knowledge: every rank must have heard, directly or not, from every other.
        let mut know: Vec<u32> = (0..s.p).map(|r| 1 << r).collect();
        for round in &s.rounds {
            let before = know.clone();
            for x in round {
                know[x.dst] |= before[x.src];
            }
        }
        let all = (1u32 << s.p) - 1;
        if let Some(r) = (0..s.p).find(|&r| know[r] != all) {
            return Err(config_err(format!("{}: rank {r} finishes without hearing from every rank", s.algorithm)));
        }
    }
    let got = interpret_on(s, dtype, rop, inputs);
    for (r, want) in want.iter().enumerate() {
        if let Some(want) = want {
            if got[r][..want.len()] != want[..] {
                let at = got[r].iter().zip(want.iter()).position(|(a, b)| a != b).unwrap_or(0);
                return Err(config_err(format!(
                    "{}: rank {r} holds the wrong result at byte {at} (p = {}, size = {})",
                    s.algorithm, s.p, s.size
                )));
            }
        }
    }
    Ok(())
}
