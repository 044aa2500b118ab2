//! The micro-benchmarks of seed 003 §3.3 as small SPE programs on the simulated blade, timed
//! with the decrementer as the seed does (every time is a decrementer difference, averaged over
//! iterations).
//!
//! - [`half_rtt`]: figure 3(a) (one 16-byte ACK each way) and 3(b) (ADDR, get of m bytes, ADDR
//!   back, get): half the round trip is L(m).
//! - [`burst`]: transfers that start at the same instant, each timed by its SPE: one root read
//!   by every other SPE gives g(m) (the root's data shared by all readers, §3.3 "g parameter"),
//!   16-byte puts into one SPE give g_Ack, and the BIF-n butterfly gives C(m, n).
//! - [`train`]: one SPE gets m bytes from another k times back to back: Kielmann's gap, the
//!   non-Cell-specific baseline of seed 003 figure 11.
//!
//! Simultaneous starts: every SPE sleeps until the same simulated instant (a slot) before each
//! iteration; slots are long enough for the slowest transfer to end first (checked) and their
//! length is not a multiple of the decrementer period, so the 70 ns tick dithers out.

use std::cell::RefCell;
use std::rc::Rc;

use crate::blade::Blade;
use crate::error::{Error, Result};
use crate::machine::config::{MachineFile, Params};
use crate::sim::time::Time;
use crate::spu::Spu;

const DATA_TAG: u32 = 0;
const NOTE_TAG: u32 = 1;
const MAX_DMA: u32 = 16384;

/// Get `bytes` from `peer`'s local store at `src` into `dst`, in DMAs of at most 16 KB, and wait.
async fn get_all(spu: &Spu, dst: u32, peer: usize, src: u32, bytes: u32) -> Result<()> {
    let mut off = 0;
    while off < bytes {
        let n = (bytes - off).min(MAX_DMA);
        spu.mfc_get(dst + off, Spu::ls_ea(peer, src + off), n, DATA_TAG).await?;
        off += n;
    }
    spu.mfc_write_tag_mask(1 << DATA_TAG);
    spu.mfc_read_tag_status_all().await?;
    Ok(())
}

/// Put counter `i` into the 16-byte note at `note` of `peer`, as the collectives' ADDR/ACK
/// arrays do: the previous note from `word` must have left first.
async fn put_note(spu: &Spu, word: u32, peer: usize, note: u32, i: u32) -> Result<()> {
    spu.mfc_write_tag_mask(1 << NOTE_TAG);
    spu.mfc_read_tag_status_all().await?;
    spu.ls_write_u32(word, i)?;
    spu.mfc_put(word, Spu::ls_ea(peer, note), 16, NOTE_TAG).await
}

fn ticks_to_ns(spu: &Spu, d0: u32, d1: u32) -> f64 {
    d0.wrapping_sub(d1) as f64 * spu.decrementer_period_ns()
}

/// Half the round trip between SPEs `a` and `b` (`a` starts and times). `bytes` 0: figure 3(a),
/// an ACK each way. Otherwise figure 3(b): `a` puts its ADDR, `b` gets `bytes` and puts its
/// ADDR back, `a` gets `bytes`. One untimed warm-up round, then `iterations` timed ones.
pub fn half_rtt(file: &MachineFile, a: usize, b: usize, bytes: u32, iterations: u32) -> Result<f64> {
    let mut blade = Blade::new(file.clone(), false);
    let out = Rc::new(RefCell::new(0.0));
    for (me, peer, starts) in [(a, b, true), (b, a, false)] {
        let out = out.clone();
        blade.spe(me, move |spu| async move {
            // Same allocation order on both SPEs, so the peer's note is at our note's offset.
            let note = spu.ls_alloc(16, 16)?;
            let word = spu.ls_alloc(16, 16)?;
            let buf = spu.ls_alloc(bytes.max(16), 128)?;
            let mut d0 = 0;
            for i in 1..=iterations + 1 {
                if i == 2 && starts {
                    d0 = spu.spu_read_decrementer();
                }
                if starts {
                    put_note(&spu, word, peer, note, i).await?;
                    spu.poll_ls_u32(note, |v| v >= i).await?;
                    if bytes > 0 {
                        get_all(&spu, buf, peer, buf, bytes).await?;
                    }
                } else {
                    spu.poll_ls_u32(note, |v| v >= i).await?;
                    if bytes > 0 {
                        get_all(&spu, buf, peer, buf, bytes).await?;
                    }
                    put_note(&spu, word, peer, note, i).await?;
                }
            }
            if starts {
                *out.borrow_mut() = ticks_to_ns(&spu, d0, spu.spu_read_decrementer()) / iterations as f64 / 2.0;
            }
            Ok(())
        })?;
    }
    blade.run()?;
    let v = *out.borrow();
    Ok(v)
}

/// What one SPE of a burst does at the start of each slot.
#[derive(Debug, Clone, Copy)]
pub enum Move {
    /// Get `bytes` from this SPE's local store.
    GetFrom(usize, u32),
    /// Put a 16-byte note into this SPE's local store.
    NoteTo(usize),
}

/// Every `(spe, move)` starts at the same instant, `iterations` times; returns each one's mean
/// time (issue to completion), in the order given.
pub fn burst(file: &MachineFile, moves: &[(usize, Move)], iterations: u32) -> Result<Vec<f64>> {
    let params = Params::resolve(file);
    let core = params.core_cycle.ticks();
    let total: u64 = moves.iter().map(|(_, m)| if let Move::GetFrom(_, b) = m { *b as u64 } else { 16 }).sum();
    // 20 us of set-up room plus 1 ns a byte (the BIF alone moves over 10 bytes a ns), and an
    // odd 37 ns so slots fall on every phase of the decrementer.
    let slot = Time::from_ns(20_000.0 + total as f64 + 37.0).ticks().div_ceil(core) * core;
    let mut blade = Blade::new(file.clone(), false);
    let out = Rc::new(RefCell::new(vec![0.0; moves.len()]));
    let mut users: Vec<usize> = moves.iter().map(|m| m.0).collect();
    for &(_, m) in moves {
        users.push(match m {
            Move::GetFrom(s, _) | Move::NoteTo(s) => s,
        });
    }
    users.sort_unstable();
    users.dedup();
    for spe in users {
        let mine: Vec<(usize, Move)> = moves.iter().enumerate().filter(|(_, m)| m.0 == spe).map(|(i, m)| (i, m.1)).collect();
        let out = out.clone();
        blade.spe(spe, move |spu| async move {
            let need = mine.iter().map(|(_, m)| if let Move::GetFrom(_, b) = m { *b } else { 16 }).max().unwrap_or(16);
            // Every SPE lays out the same: a 16-byte note slot, a word, and the data buffer.
            let note = spu.ls_alloc(16, 16)?;
            let word = spu.ls_alloc(16, 16)?;
            let buf = spu.ls_alloc(need.max(16).max(32768), 128)?;
            let Some(&(index, mv)) = mine.first() else { return Ok(()) };
            let mut sum = 0.0;
            for k in 1..=iterations as u64 {
                let start = slot * k;
                let now = spu.now().ticks();
                if now > start {
                    return Err(Error::Internal(format!("micro-benchmark: spe {} still busy at slot {k}", spu.spe_id())));
                }
                spu.compute((start - now) / core).await;
                let d0 = spu.spu_read_decrementer();
                match mv {
                    Move::GetFrom(peer, bytes) => get_all(&spu, buf, peer, buf, bytes).await?,
                    Move::NoteTo(peer) => {
                        put_note(&spu, word, peer, note, k as u32).await?;
                        spu.mfc_read_tag_status_all().await?;
                    }
                }
                sum += ticks_to_ns(&spu, d0, spu.spu_read_decrementer());
            }
            out.borrow_mut()[index] = sum / iterations as f64;
            Ok(())
        })?;
    }
    blade.run()?;
    let v = out.borrow().clone();
    Ok(v)
}

/// Kielmann's gap: SPE `b` gets `bytes` from SPE `a` `count` times back to back (one tag,
/// waited once); the time over the count, averaged over `iterations`.
pub fn train(file: &MachineFile, a: usize, b: usize, bytes: u32, count: u32, iterations: u32) -> Result<f64> {
    let mut blade = Blade::new(file.clone(), false);
    let out = Rc::new(RefCell::new(0.0));
    let o = out.clone();
    blade.spe(b, move |spu| async move {
        let buf = spu.ls_alloc(bytes.max(16), 128)?;
        let d0 = spu.spu_read_decrementer();
        for _ in 0..iterations {
            for _ in 0..count {
                let mut off = 0;
                while off < bytes {
                    let n = (bytes - off).min(MAX_DMA);
                    spu.mfc_get(buf + off, Spu::ls_ea(a, buf + off), n, DATA_TAG).await?;
                    off += n;
                }
            }
            spu.mfc_write_tag_mask(1 << DATA_TAG);
            spu.mfc_read_tag_status_all().await?;
        }
        *o.borrow_mut() = ticks_to_ns(&spu, d0, spu.spu_read_decrementer()) / (iterations * count) as f64;
        Ok(())
    })?;
    blade.spe(a, |spu| async move {
        spu.ls_alloc(bytes.max(16), 128)?;
        Ok(())
    })?;
    blade.run()?;
    let v = *out.borrow();
    Ok(v)
}

/// SPE `from` puts a 16-byte note to each SPE of `peers` back to back (each from its own
/// quadword, on one tag) and waits for all; the mean time of `iterations` such bursts.
pub fn note_train(file: &MachineFile, from: usize, peers: &[usize], iterations: u32) -> Result<f64> {
    let mut blade = Blade::new(file.clone(), false);
    let out = Rc::new(RefCell::new(0.0));
    let o = out.clone();
    let peers = peers.to_vec();
    for &q in &peers {
        blade.spe(q, |spu| async move {
            spu.ls_alloc(16, 16)?;
            Ok(())
        })?;
    }
    blade.spe(from, move |spu| async move {
        let note = spu.ls_alloc(16, 16)?;
        let words = spu.ls_alloc(16 * peers.len() as u32, 16)?;
        spu.mfc_write_tag_mask(1 << NOTE_TAG);
        let d0 = spu.spu_read_decrementer();
        for i in 0..iterations {
            for (k, &q) in peers.iter().enumerate() {
                spu.ls_write_u32(words + 16 * k as u32, i)?;
                spu.mfc_put(words + 16 * k as u32, Spu::ls_ea(q, note), 16, NOTE_TAG).await?;
            }
            spu.mfc_read_tag_status_all().await?;
        }
        *o.borrow_mut() = ticks_to_ns(&spu, d0, spu.spu_read_decrementer()) / iterations as f64;
        Ok(())
    })?;
    blade.run()?;
    let v = *out.borrow();
    Ok(v)
}

/// Every `(spe, peer, bytes)` gets `bytes` from `peer` over and over, each get waited before the
/// next, all starting once at the same instant and never again aligned: the loop of a
/// micro-benchmark averaged over many iterations (seed 003 §7: 100,000), in which each SPE
/// keeps its own pace. `warmup` gets before and after the timed `iterations` keep every SPE
/// busy while the others are timed. Returns each one's mean time per get.
pub fn free_running(file: &MachineFile, gets: &[(usize, usize, u32)], warmup: u32, iterations: u32) -> Result<Vec<f64>> {
    let mut blade = Blade::new(file.clone(), false);
    let out = Rc::new(RefCell::new(vec![0.0; gets.len()]));
    let mut users: Vec<usize> = gets.iter().flat_map(|g| [g.0, g.1]).collect();
    users.sort_unstable();
    users.dedup();
    for spe in users {
        let mine = gets.iter().enumerate().find(|(_, g)| g.0 == spe).map(|(i, g)| (i, g.1, g.2));
        let need = gets.iter().filter(|g| g.0 == spe || g.1 == spe).map(|g| g.2).max().unwrap_or(16);
        let out = out.clone();
        blade.spe(spe, move |spu| async move {
            let buf = spu.ls_alloc(need.max(16), 128)?;
            let Some((index, peer, bytes)) = mine else { return Ok(()) };
            let mut d0 = 0;
            for k in 0..warmup + iterations + warmup {
                if k == warmup {
                    d0 = spu.spu_read_decrementer();
                }
                if k == warmup + iterations {
                    out.borrow_mut()[index] = ticks_to_ns(&spu, d0, spu.spu_read_decrementer()) / iterations as f64;
                }
                get_all(&spu, buf, peer, buf, bytes).await?;
            }
            Ok(())
        })?;
    }
    blade.run()?;
    let v = out.borrow().clone();
    Ok(v)
}
