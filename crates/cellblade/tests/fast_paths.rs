//! The fast paths (the engine's poll elision and the arbiter's lookahead skip,
//! `cellblade::sim::set_fast_paths`) change no result: random programs that wait by polling
//! (local-store flags, MPI entries with any source or by tag while other ranks run, MPI's
//! nonblocking waits, tests and probes,
//! the collective library) and random bulk DMA give the same simulated times, event counts,
//! packets, traces, bytes and errors with and without them. Local stores reused from an
//! earlier blade read as zeros, as fresh ones do.

use std::cell::RefCell;
use std::rc::Rc;

use cellblade::coll::algorithms::REGISTRY;
use cellblade::coll::data::{Dtype, ReduceOp};
use cellblade::coll::{measure, Setup};
use cellblade::machine::config::{load, preset_text, MachineFile};
use cellblade::mpi::{Mode, MpiWorld, ANY_SOURCE};
use cellblade::sim::set_fast_paths;
use cellblade::{Blade, Spu};
use proptest::prelude::*;

fn qs20() -> MachineFile {
    load(preset_text("qs20").unwrap(), &[]).unwrap()
}

/// `run` with the fast paths off, then on (they are per thread: tests run on their own).
fn both<T>(run: impl Fn() -> T) -> (T, T) {
    set_fast_paths(false);
    let slow = run();
    set_fast_paths(true);
    (slow, run())
}

/// A ring of the first `n` of `spes`: in each round each computes, puts `bytes` and then a
/// fenced flag to the next, and polls its own flag from the previous one. The other SPEs of
/// `spes`, when `busy`, run beside it: short computes and gets of 128 bytes into their own
/// local stores, activity that cannot change what a ring poller reads. Everything
/// observable, as text: time, events, packets, the trace and every local store's flags and data.
fn ring(spes: &[usize], n: usize, busy: bool, bytes: u32, computes: &[u64], poll_cycles: u64) -> String {
    let set = [format!("spu.poll_core_cycles={poll_cycles}")];
    let file = load(preset_text("qs20").unwrap(), &set).unwrap();
    let mut blade = Blade::new(file, true);
    for (k, &spe) in spes[n..].iter().enumerate().filter(|_| busy) {
        let (from, rounds) = (spes[(k + 1) % spes.len()], 8 * computes.len());
        let computes = computes.to_vec();
        blade
            .spe(spe, move |spu: Spu| async move {
                let data = spu.ls_alloc(128, 128)?;
                spu.mfc_write_tag_mask(1);
                for c in computes.iter().cycle().skip(k).take(rounds) {
                    spu.compute(c / 8).await;
                    spu.mfc_get(data, Spu::ls_ea(from, 0), 128, 0).await?;
                    spu.mfc_read_tag_status_all().await?;
                }
                Ok(())
            })
            .unwrap();
    }
    let spes = &spes[..n];
    let seen = Rc::new(RefCell::new(vec![Vec::new(); n]));
    for (k, &spe) in spes.iter().enumerate() {
        let (next, rounds) = (spes[(k + 1) % n], computes.len() as u32);
        let (computes, seen) = (computes.to_vec(), seen.clone());
        blade
            .spe(spe, move |spu: Spu| async move {
                let flags = spu.ls_alloc(16 * n as u32, 128)?;
                let scratch = spu.ls_alloc(16, 16)?;
                let data = spu.ls_alloc(bytes.max(16), 128)?;
                spu.ls_write(data, &vec![k as u8; bytes as usize])?;
                spu.mfc_write_tag_mask(1);
                for (r, c) in (1..=rounds).zip(computes.iter().cycle().skip(k)) {
                    spu.compute(*c).await;
                    spu.mfc_put(data, Spu::ls_ea(next, data), bytes, 0).await?;
                    spu.ls_write_u32(scratch, r)?;
                    spu.mfc_putf(scratch, Spu::ls_ea(next, flags + 16 * k as u32), 4, 0).await?;
                    spu.mfc_read_tag_status_all().await?;
                    let prev = ((k + n - 1) % n) as u32;
                    spu.poll_ls_u32(flags + 16 * prev, |v| v >= r).await?;
                    seen.borrow_mut()[k].push((spu.now().0, spu.ls_read(data, bytes)?));
                }
                Ok(())
            })
            .unwrap();
    }
    let r = blade.run().unwrap();
    format!("{:?} {} {} {:?} {:?}", r.simulated, r.events, r.packets, r.trace, seen.borrow())
}

/// Bulk DMA that queues legs to several destinations at one source: each `(spe, from, bytes,
/// put)` has SPE `spe` get `bytes` from (or put them to) SPE `from`'s local store, or main
/// memory when `from` is 16, in 16 KB commands on one tag, every SPE twice over. Time, events,
/// packets and the trace (every ring grant), as text.
fn bulk(jobs: &[(usize, usize, u32, bool)]) -> String {
    let mut blade = Blade::new(qs20(), true);
    let mut mine = vec![Vec::new(); 16];
    for &(spe, from, bytes, put) in jobs {
        mine[spe].push((from, bytes, put));
    }
    for (spe, jobs) in mine.into_iter().enumerate().filter(|(_, j)| !j.is_empty()) {
        blade
            .spe(spe, move |spu: Spu| async move {
                let buf = spu.ls_alloc(65536, 128)?;
                spu.mfc_write_tag_mask(1);
                for _ in 0..2 {
                    for &(from, bytes, put) in &jobs {
                        let ea = if from == 16 { (1 << 20) + spe as u64 * 65536 } else { Spu::ls_ea(from, 65536) };
                        for off in (0..bytes).step_by(16384) {
                            let (lsa, n) = (buf + off, 16384.min(bytes - off));
                            if put {
                                spu.mfc_put(lsa, ea + off as u64, n, 0).await?;
                            } else {
                                spu.mfc_get(lsa, ea + off as u64, n, 0).await?;
                            }
                        }
                    }
                    spu.mfc_read_tag_status_all().await?;
                }
                Ok(())
            })
            .unwrap();
    }
    let r = blade.run().unwrap();
    format!("{:?} {} {} {:?}", r.simulated, r.events, r.packets, r.trace)
}

/// Rank 0 takes `n - 1` messages from any source, then answers each; the others compute, send
/// and wait for the answer. The report and every status, or the error.
fn gather(n: usize, computes: &[u64], mode: Mode) -> String {
    let mut w = MpiWorld::new(qs20(), n, None, mode).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    for rank in 0..n {
        let (computes, log) = (computes.to_vec(), log.clone());
        w.rank(rank, move |r| async move {
            let b = r.alloc(64)?;
            if rank == 0 {
                for _ in 1..n {
                    let st = r.recv(b, 64, ANY_SOURCE, 7, 0).await?;
                    log.borrow_mut().push((r.spu().now().0, st.source, st.bytes));
                }
                for to in 1..n {
                    r.send(b, 8, to, 8, 0).await?;
                }
            } else {
                r.spu().compute(computes[rank % computes.len()]).await;
                r.send(b, 16 * rank as u32, 0, 7, 0).await?;
                let st = r.recv(b, 64, 0, 8, 0).await?;
                log.borrow_mut().push((r.spu().now().0, st.source, st.bytes));
            }
            Ok(())
        })
        .unwrap();
    }
    let out = w.run().map(|r| (r.simulated, r.events, r.packets));
    format!("{out:?} {:?}", log.borrow())
}

/// `rounds` of a broadcast and an all-reduce written with sends (bench_wait's MPI loop): rank 0
/// sends `bytes` to each rank, takes a 64-byte answer from any source from each, and sends each
/// a 64-byte result; the others compute, receive from rank 0 by tag, answer and receive (in odd
/// rounds with one `MPI_Sendrecv`). Every
/// receiver polls one entry while others run. With `stray`, the last rank then waits for a
/// message nobody sends (a deadlock found once the others have finished). The report and every
/// status with its time, or the error.
fn bcast_loop(n: usize, bytes: u32, computes: &[u64], rounds: u32, mode: Mode, stray: bool) -> String {
    let mut w = MpiWorld::new(qs20(), n, None, mode).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    for rank in 0..n {
        let (computes, log) = (computes.to_vec(), log.clone());
        w.rank(rank, move |r| async move {
            let b = r.alloc(bytes.max(64) as u64)?;
            let note = |st: cellblade::mpi::Status, now: u64| log.borrow_mut().push((now, rank, st.source, st.tag, st.bytes));
            for round in 0..rounds as usize {
                if rank == 0 {
                    for to in 1..n {
                        r.send(b, bytes, to, 1, 0).await?;
                    }
                    for _ in 1..n {
                        note(r.recv(b, 64, ANY_SOURCE, 2, 0).await?, r.spu().now().0);
                    }
                    for to in 1..n {
                        r.send(b, 64, to, 3, 0).await?;
                    }
                } else {
                    r.spu().compute(computes[(rank + round) % computes.len()]).await;
                    note(r.recv(b, bytes, 0, 1, 0).await?, r.spu().now().0);
                    if round % 2 == 1 {
                        // Acknowledged while it polls for the result: its epoch moves, no entry lands.
                        let (_, st) = r.sendrecv(b, 64, 0, 2, b, 64, 0, 3, 0).await?;
                        note(st, r.spu().now().0);
                        continue;
                    }
                    r.send(b, 64, 0, 2, 0).await?;
                    note(r.recv(b, 64, 0, 3, 0).await?, r.spu().now().0);
                }
            }
            if stray && rank == n - 1 {
                r.recv(b, 64, 0, 9, 0).await?;
            }
            Ok(())
        })
        .unwrap();
    }
    let out = w.run().map(|r| (r.simulated, r.events, r.packets)).map_err(|e| e.to_string());
    format!("{out:?} {:?}", log.borrow())
}

/// `n` ranks in a ring, each round: an `MPI_Irecv` from the previous rank (or any source), a
/// computation, two `MPI_Isend`s to the next rank, then per rank and round one of three ways
/// to finish: waits, an `MPI_Test` loop, or a blocking `MPI_Probe` with the receive pending. The
/// report and every status with its time, or the error.
fn nonblocking(n: usize, computes: &[u64], ways: &[u8], any: bool, mode: Mode) -> String {
    let mut w = MpiWorld::new(qs20(), n, None, mode).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    for rank in 0..n {
        let (computes, ways, log) = (computes.to_vec(), ways.to_vec(), log.clone());
        let (next, prev) = ((rank + 1) % n, (rank + n - 1) % n);
        w.rank(rank, move |r| async move {
            let (rb, sb, xb) = (r.alloc(256)?, r.alloc(256)?, r.alloc(16)?);
            let from = if any { ANY_SOURCE } else { prev as i32 };
            for round in 0..3i32 {
                let k = rank + round as usize;
                let q1 = r.irecv(rb, 256, from, round, 0)?;
                r.spu().compute(computes[k % computes.len()]).await;
                let q2 = r.isend(sb, 16 * (1 + k as u32 % 16), next, round, 0).await?;
                let q3 = r.isend(sb, 8, next, 500 + round, 0).await?;
                let mut seen = Vec::new();
                match ways[k % ways.len()] % 3 {
                    0 => {
                        seen.push(r.wait(q1).await?);
                        seen.push(r.waitany(&[q2]).await?.1);
                    }
                    1 => loop {
                        if let Some(st) = r.test(q1).await? {
                            seen.push(st);
                            seen.push(r.wait(q2).await?);
                            break;
                        }
                        r.spu().compute(computes[(k + 1) % computes.len()] / 8).await;
                    },
                    _ => {
                        seen.push(r.probe(from, 500 + round, 0).await?);
                        seen.push(r.wait(q1).await?);
                        seen.push(r.wait(q2).await?);
                    }
                }
                seen.push(r.recv(xb, 16, prev as i32, 500 + round, 0).await?);
                seen.push(r.wait(q3).await?);
                let now = r.spu().now().0;
                log.borrow_mut().extend(seen.into_iter().map(|st| (rank, now, st.source, st.tag, st.bytes)));
            }
            Ok(())
        })
        .unwrap();
    }
    let out = w.run().map(|r| (r.simulated, r.events, r.packets)).map_err(|e| e.to_string());
    format!("{out:?} {:?}", log.borrow())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, rng_seed: proptest::test_runner::RngSeed::Fixed(20261126), ..ProptestConfig::default() })]

    #[test]
    fn polling_rings_are_the_same_with_and_without_poll_elision(
        spes in Just((0..16).collect::<Vec<usize>>()).prop_shuffle(), n in 2usize..=16, bytes in prop::sample::select(vec![16u32, 128, 2048, 16384]),
        computes in prop::collection::vec(0u64..5000, 1..4), poll in prop::sample::select(vec![1u64, 12, 50]), busy in any::<bool>())
    {
        let (slow, fast) = both(|| ring(&spes, n, busy, bytes, &computes, poll));
        prop_assert_eq!(slow, fast);
    }

    #[test]
    fn mpi_any_source_jobs_are_the_same_with_and_without_poll_elision(
        n in 2usize..=16, computes in prop::collection::vec(0u64..20_000, 1..5), ls in any::<bool>())
    {
        let mode = if ls { Mode::Ls } else { Mode::Memory };
        let (slow, fast) = both(|| gather(n, &computes, mode));
        prop_assert_eq!(slow, fast);
    }

    #[test]
    fn mpi_tagged_receives_polling_while_others_run_are_the_same_with_and_without_poll_elision(
        n in 2usize..=16, bytes in prop::sample::select(vec![0u32, 64, 1024, 20_000]), computes in prop::collection::vec(0u64..20_000, 1..5),
        rounds in 1u32..=3, ls in any::<bool>(), stray in any::<bool>())
    {
        let mode = if ls { Mode::Ls } else { Mode::Memory };
        let (slow, fast) = both(|| bcast_loop(n, bytes, &computes, rounds, mode, stray));
        prop_assert_eq!(stray, slow.starts_with("Err(\"deadlock at "), "{}", slow);
        prop_assert_eq!(slow, fast);
    }

    #[test]
    fn mpi_nonblocking_jobs_are_the_same_with_and_without_poll_elision(
        n in 2usize..=12, computes in prop::collection::vec(0u64..20_000, 1..5), ways in prop::collection::vec(0u8..3, 1..4),
        any in any::<bool>(), ls in any::<bool>())
    {
        let mode = if ls { Mode::Ls } else { Mode::Memory };
        let (slow, fast) = both(|| nonblocking(n, &computes, &ways, any, mode));
        prop_assert!(slow.starts_with("Ok("), "{}", slow);
        prop_assert_eq!(slow, fast);
    }

    #[test]
    fn bulk_dma_is_the_same_with_and_without_the_lookahead_skip(
        jobs in prop::collection::vec((0usize..16, 0usize..=16, 1u32..=65536 / 128, any::<bool>()), 1..12))
    {
        // Sizes in whole 128-byte lines, so that each stays in the 64 KB buffers.
        let jobs: Vec<_> = jobs.into_iter().filter(|j| j.0 != j.1).map(|(s, f, lines, put)| (s, f, 128 * lines, put)).collect();
        let (slow, fast) = both(|| bulk(&jobs));
        prop_assert_eq!(slow, fast);
    }

    #[test]
    fn collectives_are_the_same_with_and_without_poll_elision(alg in 0..REGISTRY.len(), p in 2usize..=16, quads in 1u32..600,
                                                               spes in Just((0..16).collect::<Vec<usize>>()).prop_shuffle()) {
        let a = &REGISTRY[alg];
        prop_assume!((!a.pow2 || p.is_power_of_two()) && p >= a.min_spes);
        let setup = Setup { root: 0, placement: spes[..p].to_vec(), dtype: Dtype::Int32, rop: ReduceOp::Sum, iterations: 2 };
        let (slow, fast) = both(|| measure(&qs20(), a, 16 * quads, &setup).map(|r| format!("{r:?}")).map_err(|e| e.to_string()));
        prop_assert_eq!(slow, fast);
    }
}

#[test]
fn an_mpi_deadlock_found_by_polling_is_the_same_error_at_the_same_time() {
    let job = || {
        let mut w = MpiWorld::new(qs20(), 3, None, Mode::Memory).unwrap();
        for rank in 0..3 {
            w.rank(rank, move |r| async move {
                let b = r.alloc(16)?;
                r.spu().compute(1000 * rank as u64).await;
                // Everyone receives first: nobody ever sends.
                r.recv(b, 16, ANY_SOURCE, 1, 0).await?;
                Ok(())
            })
            .unwrap();
        }
        w.run().map(|r| r.events).map_err(|e| e.to_string())
    };
    let (slow, fast) = both(job);
    assert!(slow.as_ref().is_err_and(|e| e.starts_with("deadlock at ")), "{slow:?}");
    assert_eq!(slow, fast);
}

/// A blade's local stores reuse the block of a blade this thread dropped, with only what that
/// blade wrote cleared: whatever earlier blades wrote (by program, by DMA from memory and
/// from another store, at either end of a store), every store of the next blade reads zeros.
#[test]
fn each_blade_starts_with_zeroed_local_stores() {
    const LS: u32 = 262_144;
    for round in 0..3u8 {
        let mut blade = Blade::new(qs20(), false);
        let dirty: Vec<usize> = {
            let m = blade.machine();
            (0..m.mem.ls.len()).filter(|&s| m.mem.ls[s].iter().any(|&b| b != 0)).collect()
        };
        assert!(dirty.is_empty(), "round {round}: stores {dirty:?} hold bytes of an earlier blade");
        blade.machine().mem.write_mem(1 << 20, &[0xCD; 256]);
        for spe in [0, 5, 9, 15] {
            blade
                .spe(spe, move |spu: Spu| async move {
                    spu.ls_write(0, &[round + 1; 4096])?;
                    spu.ls_write(LS - 16, &[0xEF; 16])?;
                    spu.mfc_write_tag_mask(1);
                    spu.mfc_put(0, Spu::ls_ea((spe + 1) % 16, LS - 8192), 4096, 0).await?;
                    spu.mfc_get(8192, 1 << 20, 256, 0).await?;
                    spu.mfc_read_tag_status_all().await?;
                    Ok(())
                })
                .unwrap();
        }
        blade.run().unwrap();
    }
}
