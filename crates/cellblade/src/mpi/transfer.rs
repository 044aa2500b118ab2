//! The receiver's data move (seed 004 §3.3). An SPE cannot copy main memory to main memory:
//! in "memory" mode it gets each chunk into its local store and puts it back out, in 16 KB
//! chunks with double buffering (chunk k+2 is fetched into the buffer chunk k just left, fenced
//! behind that put). In "ls" mode the destination is the receiver's own local store and one
//! DMA per 16 KB moves the data straight from the sender's.

use crate::error::Result;
use crate::machine::memory::Loc;
use crate::spu::Spu;

use super::layout::{tag, CHUNKS, CHUNK_BYTES};

/// Legal DMA pieces covering `[0, len)` of 16-byte-aligned buffers: multiples of 16 up to
/// `max`, then a tail of 8, 4, 2 and 1 bytes (each naturally aligned where it falls).
pub fn pieces(len: u32, max: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut at = 0;
    let body = len & !15;
    while at < body {
        let n = (body - at).min(max);
        out.push((at, n));
        at += n;
    }
    for n in [8, 4, 2, 1] {
        if (len - at) >= n {
            out.push((at, n));
            at += n;
        }
    }
    out
}

fn max_dma(spu: &Spu) -> u32 {
    spu.with_machine(|m| m.p.max_dma_bytes).min(CHUNK_BYTES)
}

/// Move `len` bytes from effective address `src` to `dst`, with `depth` staging chunks in
/// flight when it goes through the local store.
pub async fn move_data(spu: &Spu, src: u64, dst: u64, len: u32, depth: u32) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let own = spu.with_machine(|m| m.mem.resolve(dst, len))?;
    match own {
        Loc::Ls { spe, off } if spe == spu.spe_id() => direct(spu, src, off, len).await,
        _ => staged(spu, src, dst, len, depth).await,
    }
}

/// One get per piece straight into the local store at `dst`.
async fn direct(spu: &Spu, src: u64, dst: u32, len: u32) -> Result<()> {
    for (at, n) in pieces(len, max_dma(spu)) {
        spu.mfc_get(dst + at, src + at as u64, n, tag::DIRECT).await?;
    }
    spu.mfc_write_tag_mask(1 << tag::DIRECT);
    spu.mfc_read_tag_status_all().await?;
    Ok(())
}

/// Copy `len` bytes between the local-store offset `lsa` and the buffer at `ea`, either way
/// (`into_ls`): the SPU's own loads and stores when the buffer is in its local store, else one
/// DMA per piece. A buffered message moves this way, into and out of its meta-data entry.
pub async fn ls_copy(spu: &Spu, lsa: u32, ea: u64, len: u32, into_ls: bool) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    if let Loc::Ls { spe, off } = spu.with_machine(|m| m.mem.resolve(ea, len))? {
        if spe == spu.spe_id() {
            let (from, to) = if into_ls { (off, lsa) } else { (lsa, off) };
            let bytes = spu.ls_read(from, len)?;
            spu.ls_write(to, &bytes)?;
            let per = spu.with_machine(|m| m.p.copy_cycles_per_quadword);
            spu.compute(len.div_ceil(16) as u64 * per).await;
            return Ok(());
        }
    }
    for (at, n) in pieces(len, max_dma(spu)) {
        if into_ls {
            spu.mfc_get(lsa + at, ea + at as u64, n, tag::DIRECT).await?;
        } else {
            spu.mfc_put(lsa + at, ea + at as u64, n, tag::DIRECT).await?;
        }
    }
    spu.mfc_write_tag_mask(1 << tag::DIRECT);
    spu.mfc_read_tag_status_all().await?;
    Ok(())
}

async fn get_chunk(spu: &Spu, src: u64, k: u32, len: u32, depth: u32, fenced: bool) -> Result<()> {
    let chunk = CHUNK_BYTES.min(len - k * CHUNK_BYTES);
    let (buf, t) = (CHUNKS + (k % depth) * CHUNK_BYTES, tag::CHUNK0 + k % depth);
    let from = src + (k * CHUNK_BYTES) as u64;
    for (at, n) in pieces(chunk, max_dma(spu)) {
        if fenced {
            spu.mfc_getf(buf + at, from + at as u64, n, t).await?;
        } else {
            spu.mfc_get(buf + at, from + at as u64, n, t).await?;
        }
    }
    Ok(())
}

/// Through `depth` staging chunks of the local store: chunk k+depth is fetched into the buffer
/// chunk k leaves, fenced behind its put (the seed's double buffering is depth 2).
async fn staged(spu: &Spu, src: u64, dst: u64, len: u32, depth: u32) -> Result<()> {
    let chunks = len.div_ceil(CHUNK_BYTES);
    for k in 0..chunks.min(depth) {
        get_chunk(spu, src, k, len, depth, false).await?;
    }
    for k in 0..chunks {
        let (buf, t) = (CHUNKS + (k % depth) * CHUNK_BYTES, tag::CHUNK0 + k % depth);
        spu.mfc_write_tag_mask(1 << t);
        spu.mfc_read_tag_status_all().await?;
        let chunk = CHUNK_BYTES.min(len - k * CHUNK_BYTES);
        let to = dst + (k * CHUNK_BYTES) as u64;
        for (at, n) in pieces(chunk, max_dma(spu)) {
            spu.mfc_put(buf + at, to + at as u64, n, t).await?;
        }
        if k + depth < chunks {
            get_chunk(spu, src, k + depth, len, depth, true).await?;
        }
    }
    spu.mfc_write_tag_mask(((1u32 << depth) - 1) << tag::CHUNK0);
    spu.mfc_read_tag_status_all().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_legal_and_cover_the_buffer() {
        for len in [0u32, 1, 3, 15, 16, 17, 31, 100, 16384, 16385, 40000] {
            let p = pieces(len, 16384);
            let mut at = 0;
            for &(off, n) in &p {
                assert_eq!(off, at, "contiguous for {len}");
                assert!(matches!(n, 1 | 2 | 4 | 8) || (n % 16 == 0 && n <= 16384), "size {n} for {len}");
                assert_eq!(off % n.min(16), 0, "aligned for {len}");
                at += n;
            }
            assert_eq!(at, len);
        }
        assert_eq!(pieces(31, 16384), vec![(0, 16), (16, 8), (24, 4), (28, 2), (30, 1)]);
    }
}
