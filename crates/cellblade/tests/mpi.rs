//! The MPI layer driven from Rust (seed 004 §3-§5): bytes arrive, tags and sources match,
//! messages do not overtake, truncation is reported, deadlocks name every rank's call, and the
//! §5.1 ping-pong is printed beside the published figures.

use std::cell::RefCell;
use std::rc::Rc;

use cellblade::machine::config;
use cellblade::mpi::{self, code, pingpong, Mode, MpiWorld, PingPong, ANY_SOURCE, ANY_TAG};
use cellblade::ErrorKind;
use proptest::prelude::*;

fn qs20() -> config::MachineFile {
    config::load(config::preset_text("qs20").unwrap(), &[]).unwrap()
}

fn pattern(n: u32, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect()
}

/// Rank 0 sends `n` bytes to rank 1 with tag 3; returns what rank 1 received and its status.
fn one_message(n: u32, mode: Mode, placement: Option<Vec<usize>>) -> (Vec<u8>, mpi::Status) {
    let mut w = MpiWorld::new(qs20(), 2, placement, mode).unwrap();
    let got = Rc::new(RefCell::new(None));
    w.rank(0, move |r| async move {
        let b = r.alloc(n as u64)?;
        r.write(b, &pattern(n, 7))?;
        assert_eq!(r.send(b, n, 1, 3, 0).await?, code::SUCCESS);
        Ok(())
    })
    .unwrap();
    let g = got.clone();
    w.rank(1, move |r| async move {
        let b = r.alloc(n as u64)?;
        let st = r.recv(b, n, 0, 3, 0).await?;
        *g.borrow_mut() = Some((r.read(b, n)?, st));
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    let out = got.borrow_mut().take().unwrap();
    out
}

#[test]
fn bytes_arrive_in_both_modes_over_sizes() {
    for mode in [Mode::Memory, Mode::Ls] {
        for n in [0u32, 1, 3, 17, 128, 4000, 16384, 40000] {
            let (data, st) = one_message(n, mode, None);
            assert_eq!(data, pattern(n, 7), "{n} bytes, {mode:?}");
            assert_eq!(st, mpi::Status { source: 0, tag: 3, bytes: n, sent: n, error: code::SUCCESS });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, rng_seed: proptest::test_runner::RngSeed::Fixed(20261126), ..ProptestConfig::default() })]
    #[test]
    fn bytes_arrive_for_any_size_and_placement(n in 0u32..70000, a in 0usize..16, b in 0usize..16, ls in any::<bool>()) {
        prop_assume!(a != b);
        let mode = if ls { Mode::Ls } else { Mode::Memory };
        prop_assume!(!ls || n < 100_000);
        let (data, st) = one_message(n, mode, Some(vec![a, b]));
        prop_assert_eq!(data, pattern(n, 7));
        prop_assert_eq!(st.bytes, n);
    }
}

#[test]
fn tags_and_any_source_match_round_robin() {
    let mut w = MpiWorld::new(qs20(), 4, None, Mode::Memory).unwrap();
    for s in 1..4usize {
        w.rank(s, move |r| async move {
            let b = r.alloc(4)?;
            r.write(b, &[s as u8; 4])?;
            r.send(b, 4, 0, 10 + s as i32, 0).await?;
            r.send(b, 4, 0, 99, 0).await?;
            Ok(())
        })
        .unwrap();
    }
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s2 = seen.clone();
    w.rank(0, move |r| async move {
        let b = r.alloc(4)?;
        // Specific tag from any source: only rank 2's first message matches.
        let st = r.recv(b, 4, ANY_SOURCE, 12, 0).await?;
        s2.borrow_mut().push((st.source, st.tag, r.read(b, 4)?[0]));
        for _ in 0..5 {
            let st = r.recv(b, 4, ANY_SOURCE, ANY_TAG, 0).await?;
            s2.borrow_mut().push((st.source, st.tag, r.read(b, 4)?[0]));
        }
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    let seen = seen.borrow();
    assert_eq!(seen[0], (2, 12, 2));
    // The receive for tag 12 parked rank 1's tag 11 and rank 3's tag 13 on its way round:
    // wildcards take the parked messages first, oldest first, then the entries round robin.
    let rest: Vec<(usize, i32)> = seen[1..].iter().map(|&(s, t, _)| (s, t)).collect();
    assert_eq!(rest, vec![(1, 11), (3, 13), (1, 99), (2, 99), (3, 99)]);
}

#[test]
fn messages_from_one_sender_do_not_overtake() {
    // Synchronous mode: the receive for tag 2 parks tag 1 (unexpected.rs), but the blocking
    // send of tag 1 completes only once matched, so tag 2 is never sent: the program is unsafe
    // (MPI-1 §3.5, Example 3.9's order with synchronous sends) and reported.
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        r.send(0, 0, 1, 1, 0).await?;
        r.send(0, 0, 1, 2, 0).await?;
        Ok(())
    })
    .unwrap();
    w.rank(1, |r| async move {
        r.recv(0, 0, 0, 2, 0).await?;
        r.recv(0, 0, 0, 1, 0).await?;
        Ok(())
    })
    .unwrap();
    let err = w.run().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Deadlock);
    assert!(err.to_string().ends_with(": rank 0 waits in MPI_Send to 1, tag 1; rank 1 waits in MPI_Recv from 0, tag 2"), "{err}");
}

#[test]
fn in_order_messages_and_communicators_are_kept_apart() {
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Ls).unwrap();
    w.rank(0, |r| async move {
        let b = r.alloc(1)?;
        for v in 0..5u8 {
            r.write(b, &[v])?;
            r.send(b, 1, 1, 4, (v % 2) as u32).await?;
        }
        Ok(())
    })
    .unwrap();
    let got = Rc::new(RefCell::new(Vec::new()));
    let g = got.clone();
    w.rank(1, move |r| async move {
        let b = r.alloc(1)?;
        for v in 0..5u8 {
            r.recv(b, 1, 0, 4, (v % 2) as u32).await?;
            g.borrow_mut().push(r.read(b, 1)?[0]);
        }
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*got.borrow(), vec![0, 1, 2, 3, 4]);
}

#[test]
fn truncation_fills_the_buffer_and_reports_to_both() {
    let acks = Rc::new(RefCell::new(None));
    let a = acks.clone();
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    w.rank(0, move |r| async move {
        let b = r.alloc(100)?;
        r.write(b, &pattern(100, 1))?;
        *a.borrow_mut() = Some(r.send(b, 100, 1, 0, 0).await?);
        Ok(())
    })
    .unwrap();
    let got = Rc::new(RefCell::new(None));
    let g = got.clone();
    w.rank(1, move |r| async move {
        let b = r.alloc(64)?;
        let st = r.recv(b, 50, 0, ANY_TAG, 0).await?;
        *g.borrow_mut() = Some((st, r.read(b, 64)?));
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    let (st, data) = got.borrow_mut().take().unwrap();
    assert_eq!((st.bytes, st.sent, st.error), (50, 100, code::ERR_TRUNCATE));
    assert_eq!(&data[..50], &pattern(100, 1)[..50]);
    assert_eq!(&data[50..], &[0u8; 14], "nothing past the receive count is written");
    assert_eq!(*acks.borrow(), Some(code::ERR_TRUNCATE), "the signal carries the error (§3.3)");
}

#[test]
fn both_sending_first_is_a_deadlock_naming_each_call() {
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    for me in 0..2usize {
        w.rank(me, move |r| async move {
            r.send(0, 0, 1 - me, 5, 0).await?;
            r.recv(0, 0, (1 - me) as i32, 5, 0).await?;
            Ok(())
        })
        .unwrap();
    }
    let err = w.run().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Deadlock);
    let msg = err.to_string();
    assert!(msg.starts_with("deadlock at "), "{msg}");
    assert!(msg.ends_with(": rank 0 waits in MPI_Send to 1, tag 5; rank 1 waits in MPI_Send to 0, tag 5"), "{msg}");
}

#[test]
fn receiving_from_a_finished_rank_is_a_deadlock() {
    let mut w = MpiWorld::new(qs20(), 3, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move { r.recv(0, 0, ANY_SOURCE, 1, 0).await.map(|_| ()) }).unwrap();
    w.rank(1, |_| async move { Ok(()) }).unwrap();
    w.rank(2, |r| async move { r.recv(0, 0, 1, ANY_TAG, 0).await.map(|_| ()) }).unwrap();
    let msg = w.run().unwrap_err().to_string();
    assert!(
        msg.ends_with(": rank 0 waits in MPI_Recv from any source, tag 1; rank 1 has finished; rank 2 waits in MPI_Recv from 1, any tag"),
        "{msg}"
    );
}

#[test]
fn bad_requests_are_clear_errors() {
    let e = MpiWorld::new(qs20(), 17, None, Mode::Memory).err().unwrap();
    assert_eq!(e.to_string(), "ranks 17 is not allowed: 1 to 16 (one rank per SPE, 8 SPEs per chip, 2 chips; seed 004 §3.2)");
    assert!(MpiWorld::new(qs20(), 0, None, Mode::Memory).is_err());
    let e = MpiWorld::new(qs20(), 2, Some(vec![3, 3]), Mode::Memory).err().unwrap();
    assert!(e.to_string().contains("repeats SPE 3"), "{e}");
    assert_eq!(Mode::parse("cache").unwrap_err().to_string(), "unknown MPI mode 'cache': allowed memory, ls");
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move { r.send(0, 0, 2, 0, 0).await.map(|_| ()) }).unwrap();
    w.rank(1, |_| async move { Ok(()) }).unwrap();
    assert_eq!(w.run().unwrap_err().to_string(), "rank 0: MPI_Send to rank 2 does not exist: allowed 0 to 1");
    let mut w = MpiWorld::new(qs20(), 1, None, Mode::Ls).unwrap();
    w.rank(0, |r| async move { r.alloc(300_000).map(|_| ()) }).unwrap();
    assert_eq!(
        w.run().unwrap_err().to_string(),
        "rank 0: a 300000-byte buffer does not fit its local store (ls mode keeps message buffers there): 224768 bytes are free"
    );
}

#[test]
fn startup_reads_rank_from_the_boot_structure_and_costs_time() {
    let mut w = MpiWorld::new(qs20(), 16, Some((0..16).rev().collect()), Mode::Memory).unwrap();
    let seen = Rc::new(RefCell::new(vec![None; 16]));
    for rank in 0..16 {
        let s = seen.clone();
        w.rank(rank, move |r| async move {
            s.borrow_mut()[rank] = Some((r.rank(), r.size(), r.spu().spe_id(), r.wtime()));
            Ok(())
        })
        .unwrap();
    }
    w.run().unwrap();
    for (rank, v) in seen.borrow().iter().enumerate() {
        let (me, size, spe, t) = v.unwrap();
        assert_eq!((me, size, spe), (rank, 16, 15 - rank));
        assert!(t > 0.0, "MPI_Init took simulated time (mailbox and DMA)");
    }
}

#[test]
fn same_job_same_times() {
    let run =
        || pingpong(qs20(), PingPong { mode: Mode::Memory, congested: true, bytes: 4096, reps: 20, depth: mpi::DEFAULT_DEPTH }).unwrap();
    assert_eq!(run(), run());
}

#[test]
fn more_chunks_in_flight_move_the_same_bytes_no_slower() {
    // Seed 004 §5.1: "having more DMAs simultaneously in flight may enable ... a factor of two".
    // On the simulated blade it does not: one MFC keeps at most `mfc.outstanding_packets` (16)
    // transfers in flight, which two 16 KB chunks already fill (README, MPI section).
    let run = |depth| {
        pingpong(qs20(), PingPong { mode: Mode::Memory, congested: false, bytes: 1 << 20, reps: 8, depth }).unwrap().throughput_gbps
    };
    let (two, four) = (run(2), run(4));
    println!("1 MB ping-pong: depth 2 {two:.2} GB/s, depth 4 {four:.2} GB/s");
    assert!(four >= 0.99 * two, "{two} -> {four}");
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    assert_eq!(w.set_depth(9).unwrap_err().to_string(), "depth 9 is not allowed: 2 to 8 chunks in flight");
    let (data, _) = {
        w.set_depth(8).unwrap();
        drop(w);
        one_message(40000, Mode::Memory, None)
    };
    assert_eq!(data, pattern(40000, 7));
}

/// Seed 004 §5.1 / Table 1, printed beside the simulation (`cargo test -p cellblade --test mpi
/// pingpong_figures -- --nocapture`). Structure asserted, not values: the blade is calibrated
/// elsewhere and nothing here is fitted to these rows.
#[test]
fn pingpong_figures() {
    let sizes = [0u32, 1024, 16384, 65536, 262144, 1 << 20];
    let best = |mode, congested| {
        let rows: Vec<_> = sizes
            .iter()
            .filter(|&&b| mode == Mode::Memory || b <= 65536)
            .map(|&b| {
                pingpong(qs20(), PingPong { mode, congested, bytes: b, reps: mpi::default_reps(b).min(64), depth: mpi::DEFAULT_DEPTH })
                    .unwrap()
            })
            .collect();
        for r in &rows {
            println!("  {mode:?} congested={congested} {:>8} B  {:>8.3} us  {:>6.2} GB/s", r.bytes, r.latency_us, r.throughput_gbps);
        }
        (rows[0].latency_us, rows.iter().map(|r| r.throughput_gbps).fold(0.0, f64::max))
    };
    let (lat, mem) = best(Mode::Memory, false);
    let (_, cong) = best(Mode::Memory, true);
    let (lat_ls, ls) = best(Mode::Ls, false);
    let row = |what: &str, sim: f64, publ: f64| {
        println!(
            "{what:<32} simulated {sim:>7.3}  published {publ:>6.2}  error {:+.0}%  (seed 004 §5.1 Table 1)",
            (sim / publ - 1.0) * 100.0
        )
    };
    row("0-byte latency, memory (us)", lat, 0.65);
    row("0-byte latency, ls (us)", lat_ls, 0.65);
    row("max throughput, memory (GB/s)", mem, 6.01);
    row("max throughput, congested (GB/s)", cong, 4.48);
    row("max throughput, ls (GB/s)", ls, 23.29);
    assert!(ls > mem, "one SPE-to-SPE DMA beats two trips through main memory");
    assert!(cong <= mem * 1.0001, "congestion does not help");
    assert!((lat - lat_ls).abs() < 1e-9, "a 0-byte message moves no data in either mode");
}

#[test]
fn sendrecv_gets_a_ring_and_a_send_to_oneself_through() {
    // Every rank sends first to its right neighbour: plain sends would deadlock (§7).
    for n in [1usize, 2, 5] {
        let mut w = MpiWorld::new(qs20(), n, None, Mode::Memory).unwrap();
        let got = Rc::new(RefCell::new(vec![0u8; n]));
        for rank in 0..n {
            let g = got.clone();
            w.rank(rank, move |r| async move {
                let (s, d) = (r.alloc(8)?, r.alloc(8)?);
                r.write(s, &[rank as u8; 8])?;
                let left = ((rank + n - 1) % n) as i32;
                let (code, st) = r.sendrecv(s, 8, (rank + 1) % n, 2, d, 8, left, 2, 0).await?;
                assert_eq!((code, st.source as i32, st.bytes), (code::SUCCESS, left, 8));
                g.borrow_mut()[rank] = r.read(d, 8)?[0];
                Ok(())
            })
            .unwrap();
        }
        w.run().unwrap();
        let want: Vec<u8> = (0..n).map(|r| ((r + n - 1) % n) as u8).collect();
        assert_eq!(*got.borrow(), want, "{n} ranks");
    }
}

#[test]
fn probe_sees_without_taking_and_iprobe_does_not_wait() {
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        let b = r.alloc(24)?;
        r.spu().compute(10_000).await;
        r.send(b, 24, 1, 8, 0).await?;
        Ok(())
    })
    .unwrap();
    w.rank(1, |r| async move {
        assert_eq!(r.iprobe(ANY_SOURCE, ANY_TAG, 0).await?, None, "nothing sent yet: rank 0 is computing");
        let st = r.probe(ANY_SOURCE, ANY_TAG, 0).await?;
        assert_eq!((st.source, st.tag, st.bytes), (0, 8, 24));
        assert_eq!(r.iprobe(0, 8, 0).await?.map(|s| s.bytes), Some(24), "still there");
        assert_eq!(r.iprobe(0, 9, 0).await?, None, "another tag does not match");
        let b = r.alloc(24)?;
        assert_eq!(r.recv(b, 24, 0, 8, 0).await?.bytes, 24);
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
}

mod external {
    //! Ranks driven over sockets, with threads standing in for the rank processes.
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    use cellblade::mpi::{run_external, wire, Compute, ExternalOutcome, Mode};

    fn request(s: &mut UnixStream, op: u32, a: i32, b: i32, c: i32, payload: &[u8], len: u64) -> (wire::Answer, Vec<u8>) {
        let mut h = Vec::new();
        for v in [op, a as u32, b as u32, c as u32] {
            h.extend_from_slice(&v.to_ne_bytes());
        }
        h.extend_from_slice(&len.to_ne_bytes());
        s.write_all(&h).unwrap();
        s.write_all(payload).unwrap();
        let mut ans = [0u8; wire::ANSWER_BYTES];
        s.read_exact(&mut ans).unwrap();
        let i = |at: usize| i32::from_ne_bytes(ans[at..at + 4].try_into().unwrap());
        let count = u64::from_ne_bytes(ans[16..24].try_into().unwrap());
        let value = f64::from_ne_bytes(ans[24..32].try_into().unwrap());
        let mut data = vec![0u8; count as usize];
        s.read_exact(&mut data).unwrap();
        (wire::Answer { err: i(0), source: i(4), tag: i(8), flags: 0, count, value }, data)
    }

    #[test]
    fn processes_exchange_bytes_and_read_simulated_time() {
        let (mut a0, b0) = UnixStream::pair().unwrap();
        let (mut a1, b1) = UnixStream::pair().unwrap();
        let t0 = std::thread::spawn(move || {
            let (init, _) = request(&mut a0, wire::OP_INIT, 0, 0, 0, &[], 0);
            assert_eq!((init.source, init.tag), (0, 2));
            assert!((init.value - 1.0 / 14_318_000.0).abs() < 1e-15, "Wtick is the decrementer period");
            request(&mut a0, wire::OP_SEND, 1, 4, 1, b"hello", 5);
            let (t, _) = request(&mut a0, wire::OP_WTIME, 0, 0, 0, &[], 0);
            request(&mut a0, wire::OP_FINALIZE, 0, 0, 0, &[], 0);
            t.value
        });
        let t1 = std::thread::spawn(move || {
            request(&mut a1, wire::OP_INIT, 0, 0, 0, &[], 0);
            let (st, data) = request(&mut a1, wire::OP_RECV, -1, -1, 1, &[], 16);
            request(&mut a1, wire::OP_FINALIZE, 0, 0, 0, &[], 0);
            (st, data)
        });
        let file = super::qs20();
        let out = run_external(file, None, Mode::Memory, 2, false, Compute::Zero, vec![b0, b1]).unwrap();
        assert!(matches!(out, ExternalOutcome::Finished(..)), "{out:?}");
        let wtime = t0.join().unwrap();
        let (st, data) = t1.join().unwrap();
        assert_eq!((st.err, st.source, st.tag, st.count), (0, 0, 4, 5));
        assert_eq!(data, b"hello");
        assert!(wtime > 0.0 && wtime < 1e-5, "{wtime}");
    }

    #[test]
    fn a_closed_connection_and_an_abort_are_outcomes() {
        let (mut a0, b0) = UnixStream::pair().unwrap();
        let (a1, b1) = UnixStream::pair().unwrap();
        let t = std::thread::spawn(move || {
            request(&mut a0, wire::OP_INIT, 0, 0, 0, &[], 0);
            // Wait in a receive from rank 1, as a real rank would; the answer never comes.
            let h: Vec<u8> = [wire::OP_RECV, 1, 0, 0].iter().flat_map(|v: &u32| v.to_ne_bytes()).chain(0u64.to_ne_bytes()).collect();
            a0.write_all(&h).unwrap();
            let mut ans = [0u8; wire::ANSWER_BYTES];
            assert!(a0.read_exact(&mut ans).is_err(), "the simulator closes the connection");
        });
        drop(a1);
        let out = run_external(super::qs20(), None, Mode::Memory, 2, false, Compute::Zero, vec![b0, b1]).unwrap();
        t.join().unwrap();
        assert!(matches!(&out, ExternalOutcome::Lost { rank: 1, after } if after == "none, before MPI_Init"), "{out:?}");
        let (mut a0, b0) = UnixStream::pair().unwrap();
        let t = std::thread::spawn(move || {
            request(&mut a0, wire::OP_INIT, 0, 0, 0, &[], 0);
            let h: Vec<u8> = [wire::OP_ABORT, 3, 0, 0].iter().flat_map(|v: &u32| v.to_ne_bytes()).chain(0u64.to_ne_bytes()).collect();
            a0.write_all(&h).unwrap();
            a0
        });
        let out = run_external(super::qs20(), None, Mode::Ls, 2, true, Compute::Zero, vec![b0]).unwrap();
        drop(t.join().unwrap());
        assert!(matches!(out, ExternalOutcome::Aborted { rank: 0, code: 3 }), "{out:?}");
    }

    #[test]
    fn a_crafted_negative_rank_is_printed_negative() {
        for op in [wire::OP_SEND, wire::OP_SSEND] {
            let (mut a0, b0) = UnixStream::pair().unwrap();
            let t = std::thread::spawn(move || {
                request(&mut a0, wire::OP_INIT, 0, 0, 0, &[], 0);
                let h: Vec<u8> = [op, (-5i32) as u32, 3, 0].iter().flat_map(|v: &u32| v.to_ne_bytes()).chain(0u64.to_ne_bytes()).collect();
                a0.write_all(&h).unwrap();
                a0
            });
            let e = run_external(super::qs20(), None, Mode::Memory, 2, false, Compute::Zero, vec![b0]).unwrap_err();
            drop(t.join().unwrap());
            assert!(e.to_string().ends_with("rank 0: MPI_Send to rank -5 does not exist: allowed 0 to 0"), "{e}");
        }
    }

    #[test]
    fn a_short_sendrecv_request_is_refused_naming_it() {
        let (mut a0, b0) = UnixStream::pair().unwrap();
        let t = std::thread::spawn(move || {
            request(&mut a0, wire::OP_INIT, 0, 0, 0, &[], 0);
            // Four bytes where the source, tag and capacity take sixteen.
            let h: Vec<u8> = [wire::OP_SENDRECV, 0, 3, 0].iter().flat_map(|v: &u32| v.to_ne_bytes()).chain(4u64.to_ne_bytes()).collect();
            a0.write_all(&h).unwrap();
            a0.write_all(&[0; 4]).unwrap();
            a0
        });
        let e = run_external(super::qs20(), None, Mode::Memory, 2, false, Compute::Zero, vec![b0]).unwrap_err();
        drop(t.join().unwrap());
        assert_eq!(
            e.to_string(),
            "rank 0: malformed request 8 (MPI_Sendrecv to 0, tag 3): 4 bytes of payload: at least 16 expected (source, tag, capacity)"
        );
    }
}
