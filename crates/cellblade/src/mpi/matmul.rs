//! Seed 004 §5.2's master-worker double-precision matrix multiplication (Gropp, Lusk and
//! Skjellum's "Using MPI", the seed's [10]) as rank programs inside the simulator: the twin of
//! examples/mpi/matmul.c, call for call, so `cellblade reproduce` can state the seed's figures
//! without a C compiler. Rank 0 broadcasts B (the C library's seed broadcast: a send to every
//! other rank), hands out rows of A one per message and collects rows of C; each worker
//! multiplies its row by B on the host, in real doubles, and charges its SPU `n * n` scalar DP
//! multiply-adds, as `MPIX_Compute_dp_fma` does. Messages go through the same two grown
//! buffers a rank process's calls use ([`Buffers`]), so both cost the same simulated time.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::error::{field_err, program_err, Result};
use crate::machine::config::MachineFile;
use crate::request::{parse, Request};

use super::external::{compute_dp_fma, Buffers};
use super::request::JobRequest;
use super::{code, job, rank_words, Rank, Status, ANY_SOURCE, ANY_TAG, MAX_RANKS};

/// The largest matrix order: the seed's largest (§5.2); B alone is 8 MB there.
pub const MAX_N: usize = 1024;
/// The ranks of the seed's runs: a master and 7 workers, 8 SPEs.
pub const DEFAULT_RANKS: usize = 8;
/// The communicator word of MPI_COMM_WORLD's point-to-point messages and of its collectives
/// (the C library's `wire_ctx`: 2 * context + 1 for a collective).
const WORLD: u32 = 0;
const WORLD_COLL: u32 = 1;
/// The C library's tag for its seed broadcast (libmpi/src/coll/coll.c's `T_BCAST`).
const T_BCAST: i32 = 1;
const DOUBLE: u64 = 8;

/// One run: C = A x B with n x n matrices on `ranks` ranks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatmulRequest {
    pub n: usize,
    #[serde(default = "default_ranks")]
    pub ranks: usize,
}

fn default_ranks() -> usize {
    DEFAULT_RANKS
}

/// What rank 0 measured, with the C example's `MPI_Wtime` points (after the barrier, before
/// the broadcast; after the last message).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatmulRun {
    pub n: usize,
    pub workers: usize,
    pub seconds: f64,
    pub gflops: f64,
    /// Sampled rows of C (every `1 + n / 17`th) equal the host's product.
    pub verified: bool,
}

impl Request for MatmulRequest {
    const NAME: &'static str = "mpi matmul";
    type Output = MatmulRun;

    fn allowed(field: &str) -> Option<String> {
        match field {
            "n" => Some(format!("1 to {MAX_N}")),
            "ranks" => Some(format!("2 to {MAX_RANKS}")),
            _ => None,
        }
    }

    fn run(self, file: &MachineFile) -> Result<MatmulRun> {
        matmul(file.clone(), self.n, self.ranks)
    }
}

/// Run the multiplication of order `n` on `ranks` ranks (a master and `ranks - 1` workers).
pub fn matmul(file: MachineFile, n: usize, ranks: usize) -> Result<MatmulRun> {
    if !(1..=MAX_N).contains(&n) {
        return Err(field_err("n", n, format!("1 to {MAX_N}")));
    }
    if ranks < 2 {
        return Err(field_err("ranks", ranks, format!("2 or more (a master and a worker); {}", rank_words())));
    }
    let job: JobRequest = parse(serde_json::json!({ "ranks": ranks }))?;
    let mut w = job::world(&job, file)?;
    let out: Rc<RefCell<Option<MatmulRun>>> = Rc::default();
    let told = out.clone();
    w.rank(0, move |r| async move {
        *told.borrow_mut() = Some(master(&r, n).await?);
        Ok(())
    })?;
    for rank in 1..ranks {
        w.rank(rank, move |r| async move { worker(&r, n).await })?;
    }
    w.run()?;
    let run = out.borrow_mut().take();
    run.ok_or_else(|| program_err("matmul: rank 0 ended without a result"))
}

fn b_matrix(n: usize) -> Vec<f64> {
    (0..n * n).map(|i| (i % 7) as f64 - 3.0).collect()
}

async fn master(r: &Rank, n: usize) -> Result<MatmulRun> {
    let mut bufs = Buffers::default();
    let b = b_matrix(n);
    r.barrier(WORLD).await?;
    let t0 = r.wtime();
    for w in 1..r.size() {
        send(r, &mut bufs, &b, w, T_BCAST, WORLD_COLL).await?;
    }
    let a: Vec<f64> = (0..n * n).map(|i| (i % 5) as f64 - 2.0).collect();
    let mut c = vec![0.0; n * n];
    let row = |i: usize| &a[i * n..(i + 1) * n];
    let mut sent = 0;
    for w in (1..r.size()).take(n) {
        send(r, &mut bufs, row(sent), w, sent as i32 + 1, WORLD).await?;
        sent += 1;
    }
    for _ in 0..n {
        let (st, out) = recv(r, &mut bufs, n, ANY_SOURCE, ANY_TAG, WORLD).await?;
        let i = st.tag as usize - 1;
        c[i * n..(i + 1) * n].copy_from_slice(&out);
        if sent < n {
            send(r, &mut bufs, row(sent), st.source, sent as i32 + 1, WORLD).await?;
            sent += 1;
        } else {
            send(r, &mut bufs, &[], st.source, 0, WORLD).await?;
        }
    }
    // Workers that never got a row.
    for w in n + 1..r.size() {
        send(r, &mut bufs, &[], w, 0, WORLD).await?;
    }
    let seconds = r.wtime() - t0;
    let verified =
        (0..n).step_by(1 + n / 17).all(|i| row_times(row(i), &b).iter().zip(&c[i * n..(i + 1) * n]).all(|(x, y)| (x - y).abs() <= 1e-9));
    Ok(MatmulRun { n, workers: r.size() - 1, seconds, gflops: 2.0 * (n as f64).powi(3) / seconds / 1e9, verified })
}

async fn worker(r: &Rank, n: usize) -> Result<()> {
    let mut bufs = Buffers::default();
    r.barrier(WORLD).await?;
    let (_, b) = recv(r, &mut bufs, n * n, 0, T_BCAST, WORLD_COLL).await?;
    loop {
        let (st, row) = recv(r, &mut bufs, n, 0, ANY_TAG, WORLD).await?;
        if st.tag == 0 {
            return Ok(());
        }
        let out = row_times(&row, &b);
        compute_dp_fma(r, (n * n) as u64).await;
        send(r, &mut bufs, &out, 0, st.tag, WORLD).await?;
    }
}

/// `row` times the n x n matrix `b`: each element of the product summed in the C example's
/// order (k rising, from 0.0), so the same bits as a column-by-column dot product. Adding
/// `row[k]` times B's row k into all of them at once reads B in order and keeps n sums going
/// side by side instead of one chain of dependent additions.
fn row_times(row: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; row.len()];
    for (x, b_row) in row.iter().zip(b.chunks_exact(row.len())) {
        for (o, y) in out.iter_mut().zip(b_row) {
            *o += x * y;
        }
    }
    out
}

/// `MPI_Send` of doubles, as a rank process's send reaches the simulator.
async fn send(r: &Rank, bufs: &mut Buffers, data: &[f64], dest: usize, tag: i32, comm: u32) -> Result<()> {
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_ne_bytes()).collect();
    let (ea, _) = bufs.fit(r, bytes.len() as u64, 0)?;
    r.write(ea, &bytes)?;
    let err = r.send(ea, bytes.len() as u32, dest, tag, comm).await?;
    if err != code::SUCCESS {
        return Err(program_err(format!("matmul: rank {} sending to {dest}: the receiver reported error {err}", r.rank())));
    }
    Ok(())
}

/// `MPI_Recv` of up to `count` doubles, as a rank process's receive reaches the simulator.
async fn recv(r: &Rank, bufs: &mut Buffers, count: usize, source: i32, tag: i32, comm: u32) -> Result<(Status, Vec<f64>)> {
    let cap = count as u64 * DOUBLE;
    let (_, ea) = bufs.fit(r, 0, cap)?;
    let st = r.recv(ea, cap as u32, source, tag, comm).await?;
    let data = r.read(ea, st.bytes)?;
    Ok((st, data.chunks_exact(DOUBLE as usize).map(|d| f64::from_ne_bytes(d.try_into().expect("8 bytes"))).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::MachineChoice;

    fn file() -> MachineFile {
        MachineChoice::default().resolve().unwrap()
    }

    #[test]
    fn small_products_are_verified_on_any_worker_count() {
        // n below, at and above the worker count: idle workers, one round, many rounds.
        for (n, ranks) in [(3, 8), (7, 8), (24, 3), (17, 2)] {
            let run = matmul(file(), n, ranks).unwrap();
            assert!(run.verified, "n {n}, {ranks} ranks");
            assert_eq!((run.n, run.workers), (n, ranks - 1));
            assert!(run.seconds > 0.0 && run.gflops > 0.0);
        }
    }

    #[test]
    fn a_row_times_b_gives_each_columns_sum_bit_for_bit() {
        for n in [1, 9, 33] {
            let b: Vec<f64> = (0..n * n).map(|i| (i as f64 * 0.37).sin()).collect();
            let row: Vec<f64> = (0..n).map(|k| 1.0 / (k as f64 + 1.5)).collect();
            let out = row_times(&row, &b);
            for (j, x) in out.iter().enumerate() {
                let column = (0..n).fold(0.0, |s, k| s + row[k] * b[k * n + j]);
                assert_eq!(x.to_bits(), column.to_bits(), "n {n}, column {j}");
            }
        }
    }

    #[test]
    fn the_same_run_gives_the_same_time() {
        assert_eq!(matmul(file(), 32, 8).unwrap(), matmul(file(), 32, 8).unwrap());
    }

    #[test]
    fn more_workers_finish_sooner() {
        let two = matmul(file(), 64, 3).unwrap().seconds;
        let seven = matmul(file(), 64, 8).unwrap().seconds;
        assert!(seven < 0.6 * two, "7 workers {seven} s, 2 workers {two} s");
    }

    #[test]
    fn bad_sizes_and_rank_counts_are_named() {
        let field = |n, ranks| matmul(file(), n, ranks).unwrap_err().field().map(str::to_string);
        assert_eq!(field(0, 8).as_deref(), Some("n"));
        assert_eq!(field(MAX_N + 1, 8).as_deref(), Some("n"));
        assert_eq!(field(8, 1).as_deref(), Some("ranks"));
        assert_eq!(field(8, MAX_RANKS + 1).as_deref(), Some("ranks"));
    }
}
