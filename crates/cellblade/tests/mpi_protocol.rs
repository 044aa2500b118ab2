//! Seed 004's MPI protocol beyond the synchronous send: buffered mode for short messages (§7)
//! and the SPU's own cost per call (`mpi.call_core_cycles`, fitted on §5.1's 0-byte latency).

use std::cell::RefCell;
use std::rc::Rc;

use cellblade::machine::config;
use cellblade::mpi::{self, code, pingpong, Mode, MpiWorld, PingPong, ANY_SOURCE, ANY_TAG};
use cellblade::ErrorKind;
use proptest::prelude::*;

fn qs20(set: &[&str]) -> config::MachineFile {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    config::load(config::preset_text("qs20").unwrap(), &set).unwrap()
}

fn pattern(n: u32, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(29) ^ seed).collect()
}

/// Both ranks send `n` bytes first, then receive: the classic exchange.
fn exchange(set: &[&str], n: u32, mode: Mode) -> cellblade::Result<Vec<Vec<u8>>> {
    exchange_as(set, n, mode, Kind::Send)
}

/// Which send a test makes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Send,
    Ssend,
    Issend,
}

impl Kind {
    async fn send(self, r: &mpi::Rank, buf: u64, n: u32, dest: usize, tag: i32) -> cellblade::Result<u32> {
        match self {
            Kind::Send => r.send(buf, n, dest, tag, 0).await,
            Kind::Ssend => r.ssend(buf, n, dest, tag, 0).await,
            Kind::Issend => {
                let q = r.issend(buf, n, dest, tag, 0).await?;
                r.wait(q).await.map(|st| st.error)
            }
        }
    }
}

fn exchange_as(set: &[&str], n: u32, mode: Mode, kind: Kind) -> cellblade::Result<Vec<Vec<u8>>> {
    let mut w = MpiWorld::new(qs20(set), 2, None, mode)?;
    let got = Rc::new(RefCell::new(vec![Vec::new(); 2]));
    for me in 0..2usize {
        let g = got.clone();
        w.rank(me, move |r| async move {
            let (s, d) = (r.alloc(n as u64)?, r.alloc(n as u64)?);
            r.write(s, &pattern(n, me as u8))?;
            assert_eq!(kind.send(&r, s, n, 1 - me, 5).await?, code::SUCCESS);
            let st = r.recv(d, n, (1 - me) as i32, 5, 0).await?;
            assert_eq!((st.source, st.bytes, st.error), (1 - me, n, code::SUCCESS));
            g.borrow_mut()[me] = r.read(d, n)?;
            Ok(())
        })?;
    }
    w.run()?;
    let out = got.borrow().clone();
    Ok(out)
}

#[test]
fn a_buffered_exchange_gets_through_where_the_synchronous_one_deadlocks() {
    for mode in [Mode::Memory, Mode::Ls] {
        for n in [0u32, 1, 16, 33, 80] {
            let got = exchange(&["mpi.buffered_bytes=80"], n, mode).unwrap();
            assert_eq!(got, vec![pattern(n, 1), pattern(n, 0)], "{n} bytes, {mode:?}");
        }
    }
    // Off (the seed's library), or a message above the threshold: the seed's deadlock.
    for (set, n) in [("mpi.buffered_bytes=0", 0u32), ("mpi.buffered_bytes=32", 33)] {
        let err = exchange(&[set], n, Mode::Memory).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Deadlock);
        assert!(err.to_string().ends_with(": rank 0 waits in MPI_Send to 1, tag 5; rank 1 waits in MPI_Send to 0, tag 5"), "{err}");
    }
}

#[test]
fn buffered_and_synchronous_messages_do_not_overtake() {
    // Small (buffered), large (synchronous), small, small: received in order with any tag.
    let sizes = [8u32, 5000, 0, 80];
    let mut w = MpiWorld::new(qs20(&["mpi.buffered_bytes=80"]), 2, None, Mode::Memory).unwrap();
    w.rank(0, move |r| async move {
        let b = r.alloc(5000)?;
        for (k, &n) in sizes.iter().enumerate() {
            r.write(b, &pattern(n, k as u8))?;
            r.send(b, n, 1, k as i32, 0).await?;
        }
        Ok(())
    })
    .unwrap();
    let got = Rc::new(RefCell::new(Vec::new()));
    let g = got.clone();
    w.rank(1, move |r| async move {
        let b = r.alloc(5000)?;
        for _ in 0..sizes.len() {
            let st = r.recv(b, 5000, 0, ANY_TAG, 0).await?;
            g.borrow_mut().push((st.tag, r.read(b, st.bytes)?));
        }
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    let want: Vec<(i32, Vec<u8>)> = sizes.iter().enumerate().map(|(k, &n)| (k as i32, pattern(n, k as u8))).collect();
    assert_eq!(*got.borrow(), want);

    // A receive for the second message parks the buffered first one (its bytes copied out of
    // the entry), which frees the entry for the second: both arrive, each to its receive.
    let mut w = MpiWorld::new(qs20(&["mpi.buffered_bytes=80"]), 2, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        let b = r.alloc(8)?;
        r.write(b, &pattern(8, 1))?;
        r.send(b, 8, 1, 1, 0).await?;
        r.send(0, 0, 1, 2, 0).await?;
        Ok(())
    })
    .unwrap();
    let got = Rc::new(RefCell::new(Vec::new()));
    let g = got.clone();
    w.rank(1, move |r| async move {
        let b = r.alloc(8)?;
        let st = r.recv(b, 8, 0, 2, 0).await?;
        g.borrow_mut().push((st.tag, st.bytes, Vec::new()));
        let st = r.recv(b, 8, 0, 1, 0).await?;
        g.borrow_mut().push((st.tag, st.bytes, r.read(b, 8)?));
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*got.borrow(), vec![(2, 0, Vec::new()), (1, 8, pattern(8, 1))]);
}

#[test]
fn many_senders_and_receivers_share_the_or_mode_signal() {
    // Ranks 1-3 each send 4 buffered messages to rank 0 and 4 to rank 4, alternating; both
    // receive from any source and see every sender's messages in order.
    let mut w = MpiWorld::new(qs20(&["mpi.buffered_bytes=16"]), 5, Some(vec![0, 9, 2, 11, 4]), Mode::Memory).unwrap();
    let got = Rc::new(RefCell::new(vec![Vec::new(); 5]));
    for rank in 0..5usize {
        let g = got.clone();
        w.rank(rank, move |r| async move {
            let b = r.alloc(16)?;
            if rank == 0 || rank == 4 {
                for _ in 0..12 {
                    let st = r.recv(b, 16, ANY_SOURCE, ANY_TAG, 0).await?;
                    assert_eq!(r.read(b, 16)?, pattern(16, (st.source * 16 + st.tag as usize) as u8));
                    g.borrow_mut()[rank].push((st.source, st.tag));
                }
            } else {
                for k in 0..8usize {
                    r.write(b, &pattern(16, (rank * 16 + k / 2) as u8))?;
                    r.send(b, 16, if k % 2 == 0 { 0 } else { 4 }, (k / 2) as i32, 0).await?;
                }
            }
            Ok(())
        })
        .unwrap();
    }
    w.run().unwrap();
    for receiver in [0, 4] {
        let seen = &got.borrow()[receiver];
        for sender in 1..4 {
            let tags: Vec<i32> = seen.iter().filter(|(s, _)| *s == sender).map(|(_, t)| *t).collect();
            assert_eq!(tags, vec![0, 1, 2, 3], "receiver {receiver}, sender {sender}");
        }
    }
}

#[test]
fn a_truncated_buffered_message_is_the_receivers_error_only() {
    let mut w = MpiWorld::new(qs20(&["mpi.buffered_bytes=64"]), 2, None, Mode::Ls).unwrap();
    let acks = Rc::new(RefCell::new(None));
    let a = acks.clone();
    w.rank(0, move |r| async move {
        let b = r.alloc(64)?;
        r.write(b, &pattern(64, 3))?;
        *a.borrow_mut() = Some(r.send(b, 64, 1, 0, 0).await?);
        Ok(())
    })
    .unwrap();
    let got = Rc::new(RefCell::new(None));
    let g = got.clone();
    w.rank(1, move |r| async move {
        let b = r.alloc(64)?;
        let st = r.recv(b, 20, 0, 0, 0).await?;
        *g.borrow_mut() = Some((st, r.read(b, 64)?));
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    let (st, data) = got.borrow_mut().take().unwrap();
    assert_eq!((st.bytes, st.sent, st.error), (20, 64, code::ERR_TRUNCATE));
    assert_eq!(&data[..20], &pattern(64, 3)[..20]);
    assert_eq!(&data[20..], &[0u8; 44][..], "nothing past the receive count is written");
    assert_eq!(*acks.borrow(), Some(code::SUCCESS), "the sender returned before the receive");
}

#[test]
fn the_threshold_is_limited_by_the_entry() {
    let e = config::load(config::preset_text("qs20").unwrap(), &["mpi.buffered_bytes=81".into()]).unwrap_err();
    assert_eq!(e.to_string(), "machine key 'mpi.buffered_bytes' = 81 is out of range: allowed 0 to 80");
    let e = config::load(config::preset_text("qs22").unwrap(), &["mpi.call_core_cycles=100001".into()]).unwrap_err();
    assert_eq!(e.to_string(), "machine key 'mpi.call_core_cycles' = 100001 is out of range: allowed 0 to 100000");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, rng_seed: proptest::test_runner::RngSeed::Fixed(20261126), ..ProptestConfig::default() })]
    /// Any mix of message sizes around the threshold arrives whole and in order.
    #[test]
    fn any_mix_of_sizes_arrives_in_order(sizes in proptest::collection::vec(0u32..200, 1..6), limit in 0u32..=80, ls in any::<bool>()) {
        let mode = if ls { Mode::Ls } else { Mode::Memory };
        let set = format!("mpi.buffered_bytes={limit}");
        let mut w = MpiWorld::new(qs20(&[&set]), 2, Some(vec![3, 12]), mode).unwrap();
        let s = sizes.clone();
        w.rank(0, move |r| async move {
            let b = r.alloc(200)?;
            for (k, &n) in s.iter().enumerate() {
                r.write(b, &pattern(n, k as u8))?;
                r.send(b, n, 1, 7, 0).await?;
            }
            Ok(())
        }).unwrap();
        let got = Rc::new(RefCell::new(Vec::new()));
        let (g, count) = (got.clone(), sizes.len());
        w.rank(1, move |r| async move {
            let b = r.alloc(200)?;
            for _ in 0..count {
                let st = r.recv(b, 200, 0, 7, 0).await?;
                g.borrow_mut().push(r.read(b, st.bytes)?);
            }
            Ok(())
        }).unwrap();
        w.run().unwrap();
        let want: Vec<Vec<u8>> = sizes.iter().enumerate().map(|(k, &n)| pattern(n, k as u8)).collect();
        prop_assert_eq!(&*got.borrow(), &want);
    }
}

fn latency(set: &[&str], bytes: u32, mode: Mode) -> f64 {
    pingpong(qs20(set), PingPong { mode, congested: false, bytes, reps: 200, depth: mpi::DEFAULT_DEPTH }).unwrap().latency_us
}

/// Ping-pong latency with and without buffered mode, printed (`cargo test -p cellblade --test
/// mpi_protocol buffered_latency -- --nocapture`). A ping-pong waits for the reply, not for the
/// acknowledgement, so buffering gains only where it moves the data: in ls mode one SPU copy
/// into the entry replaces the receiver's separate get; in memory mode the sender's get from
/// main memory costs what the receiver's did.
#[test]
fn buffered_latency() {
    let zero = latency(&[], 0, Mode::Memory);
    for mode in [Mode::Memory, Mode::Ls] {
        for bytes in [0u32, 16, 64] {
            let (sync, buffered) = (latency(&[], bytes, mode), latency(&["mpi.buffered_bytes=80"], bytes, mode));
            println!("{mode:?} {bytes:>3} B: synchronous {sync:.3} us, buffered {buffered:.3} us");
            if mode == Mode::Ls && bytes > 0 {
                // About a 0-byte message: the bytes ride in the entry, no SPE-to-SPE get follows.
                assert!(
                    buffered < 1.02 * zero && sync - buffered > 0.08,
                    "{bytes} B in ls mode: buffered {buffered} vs synchronous {sync}"
                );
            } else {
                assert!((buffered / sync - 1.0).abs() < 0.05, "{mode:?} {bytes} B: buffered {buffered} vs synchronous {sync}");
            }
        }
    }
}

/// How long rank 0's send of `bytes` takes while rank 1 computes 10 us before receiving.
fn send_time(set: &[&str], bytes: u32) -> f64 {
    send_time_as(set, bytes, Kind::Send)
}

fn send_time_as(set: &[&str], bytes: u32, kind: Kind) -> f64 {
    let mut w = MpiWorld::new(qs20(set), 2, None, Mode::Memory).unwrap();
    let took = Rc::new(RefCell::new(0.0));
    let t = took.clone();
    w.rank(0, move |r| async move {
        let b = r.alloc(64)?;
        let t0 = r.wtime();
        kind.send(&r, b, bytes, 1, 0).await?;
        *t.borrow_mut() = r.wtime() - t0;
        Ok(())
    })
    .unwrap();
    w.rank(1, move |r| async move {
        let b = r.alloc(64)?;
        r.spu().compute(32_000).await;
        r.recv(b, 64, 0, 0, 0).await.map(|_| ())
    })
    .unwrap();
    w.run().unwrap();
    let out = *took.borrow();
    out * 1e6
}

#[test]
fn a_buffered_send_returns_without_waiting_for_the_receiver() {
    let (sync, buffered) = (send_time(&[], 16), send_time(&["mpi.buffered_bytes=16"], 16));
    println!("16-byte send to a receiver busy for 10 us: synchronous {sync:.3} us, buffered {buffered:.3} us");
    assert!(sync > 10.0, "a synchronous send waits for the receive: {sync} us");
    assert!(buffered < 1.0, "a buffered send returns once its entry has landed: {buffered} us");
    assert!(send_time(&["mpi.buffered_bytes=16"], 17) > 10.0, "above the threshold the send is synchronous");
}

#[test]
fn a_synchronous_send_is_never_buffered() {
    // MPI_Ssend and MPI_Issend complete only once the receive has matched them (issue 15),
    // even where buffered mode would carry the message inline; MPI_Send still returns early.
    let set = ["mpi.buffered_bytes=80"];
    let send = send_time_as(&set, 16, Kind::Send);
    assert!(send < 1.0, "a buffered send returns once its entry has landed: {send} us");
    for kind in [Kind::Ssend, Kind::Issend] {
        let took = send_time_as(&set, 16, kind);
        println!("16-byte {kind:?} to a receiver busy for 10 us, buffered mode: {took:.3} us (send: {send:.3} us)");
        assert!(took >= 10.0, "{kind:?} waits for the receive: {took} us");
    }
}

#[test]
fn a_synchronous_exchange_deadlocks_in_buffered_mode() {
    for (kind, call) in [(Kind::Ssend, "MPI_Ssend"), (Kind::Issend, "MPI_Wait for MPI_Issend")] {
        let err = exchange_as(&["mpi.buffered_bytes=80"], 16, Mode::Memory, kind).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Deadlock, "{kind:?}: {err}");
        let tail = format!(": rank 0 waits in {call} to 1, tag 5; rank 1 waits in {call} to 0, tag 5");
        assert!(err.to_string().ends_with(&tail), "{err}");
    }
    // The standard send of the same exchange is buffered and gets through.
    assert_eq!(exchange_as(&["mpi.buffered_bytes=80"], 16, Mode::Memory, Kind::Send).unwrap(), vec![pattern(16, 1), pattern(16, 0)]);
}
