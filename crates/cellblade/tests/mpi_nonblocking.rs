//! Nonblocking point-to-point on the simulated SPEs: requests in flight together, progress in
//! tests and waits, order kept, deadlocks still named.

use std::cell::RefCell;
use std::rc::Rc;

use cellblade::machine::config;
use cellblade::mpi::{code, Mode, MpiWorld, ANY_SOURCE, ANY_TAG};
use cellblade::ErrorKind;
use proptest::prelude::*;

fn qs20() -> config::MachineFile {
    config::load(config::preset_text("qs20").unwrap(), &[]).unwrap()
}

fn pattern(n: u32, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(37) ^ seed).collect()
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Style {
    /// Rank 0 sends then receives, rank 1 receives then sends (blocking).
    Blocking,
    /// Both post Irecv and Isend, then wait for both.
    Nonblocking,
    /// Both post Isend first, then Irecv (with blocking sends this would deadlock).
    SendsFirst,
}

/// Ranks 0 and 1 swap `n` bytes; returns the simulated time of the exchange (us) and the bytes
/// each received.
fn exchange(n: u32, mode: Mode, style: Style) -> cellblade::Result<(f64, Vec<Vec<u8>>)> {
    let mut w = MpiWorld::new(qs20(), 2, None, mode)?;
    let out = Rc::new(RefCell::new((0.0, vec![Vec::new(); 2])));
    for me in 0..2usize {
        let o = out.clone();
        w.rank(me, move |r| async move {
            let peer = 1 - me;
            let (s, d) = (r.alloc(n as u64)?, r.alloc(n as u64)?);
            r.write(s, &pattern(n, me as u8))?;
            r.barrier(0).await?;
            let t0 = r.wtime();
            match style {
                Style::Blocking if me == 0 => {
                    r.send(s, n, peer, 1, 0).await?;
                    r.recv(d, n, peer as i32, 1, 0).await?;
                }
                Style::Blocking => {
                    r.recv(d, n, peer as i32, 1, 0).await?;
                    r.send(s, n, peer, 1, 0).await?;
                }
                Style::Nonblocking | Style::SendsFirst => {
                    let (a, b) = if style == Style::Nonblocking {
                        let b = r.irecv(d, n, peer as i32, 1, 0)?;
                        (r.isend(s, n, peer, 1, 0).await?, b)
                    } else {
                        let a = r.isend(s, n, peer, 1, 0).await?;
                        (a, r.irecv(d, n, peer as i32, 1, 0)?)
                    };
                    let sent = r.wait(a).await?;
                    assert_eq!((sent.source, sent.bytes, sent.error), (peer, n, code::SUCCESS));
                    let got = r.wait(b).await?;
                    assert_eq!((got.source, got.tag, got.bytes), (peer, 1, n));
                }
            }
            let t = r.wtime() - t0;
            let mut o = o.borrow_mut();
            if me == 0 {
                o.0 = t * 1e6;
            }
            o.1[me] = r.read(d, n)?;
            Ok(())
        })?;
    }
    w.run()?;
    let o = out.borrow().clone();
    Ok(o)
}

#[test]
fn an_exchange_of_isend_and_irecv_overlaps_both_directions() {
    for mode in [Mode::Memory, Mode::Ls] {
        for n in [0u32, 1024, 65536] {
            let (blocking, data) = exchange(n, mode, Style::Blocking).unwrap();
            assert_eq!(data, vec![pattern(n, 1), pattern(n, 0)]);
            let (overlapped, data) = exchange(n, mode, Style::Nonblocking).unwrap();
            assert_eq!(data, vec![pattern(n, 1), pattern(n, 0)], "{mode:?} {n} B");
            println!("{mode:?} {n:>6} B exchange: send then recv {blocking:.3} us, Isend+Irecv+Wait {overlapped:.3} us");
            assert!(overlapped < 0.75 * blocking, "{mode:?} {n} B: {overlapped} vs {blocking}");
        }
    }
}

#[test]
fn both_sending_first_gets_through_with_isend() {
    for n in [0u32, 100, 40000] {
        let (_, data) = exchange(n, Mode::Memory, Style::SendsFirst).unwrap();
        assert_eq!(data, vec![pattern(n, 1), pattern(n, 0)]);
    }
}

#[test]
fn isends_to_one_receiver_do_not_overtake_and_irecvs_match_in_posting_order() {
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        let b = r.alloc(4 * 64)?;
        let mut reqs = Vec::new();
        for k in 0..4u32 {
            r.write(b + 64 * k as u64, &pattern(64, k as u8))?;
            reqs.push(r.isend(b + 64 * k as u64, 64, 1, k as i32, 0).await?);
        }
        for q in reqs {
            r.wait(q).await?;
        }
        Ok(())
    })
    .unwrap();
    let got = Rc::new(RefCell::new(Vec::new()));
    let g = got.clone();
    w.rank(1, move |r| async move {
        let b = r.alloc(4 * 64)?;
        let reqs: Vec<_> = (0..4u64).map(|k| r.irecv(b + 64 * k, 64, ANY_SOURCE, ANY_TAG, 0)).collect::<Result<_, _>>()?;
        // Waited for in reverse: the messages still land in posting order.
        for (k, &q) in reqs.iter().enumerate().rev() {
            assert_eq!(r.wait(q).await?.tag, k as i32, "the k-th receive takes the k-th message");
        }
        for k in 0..4u64 {
            g.borrow_mut().push(r.read(b + 64 * k, 64)?);
        }
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*got.borrow(), (0..4).map(|k| pattern(64, k)).collect::<Vec<_>>());
}

#[test]
fn test_reports_not_done_then_done_and_waitany_takes_the_first_to_finish() {
    let mut w = MpiWorld::new(qs20(), 3, None, Mode::Ls).unwrap();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    w.rank(0, move |r| async move {
        let b = r.alloc(32)?;
        let from2 = r.irecv(b, 16, 2, 0, 0)?;
        let from1 = r.irecv(b + 16, 16, 1, 0, 0)?;
        let first = r.test(from1).await?.map(|st| st.source);
        s.borrow_mut().push(format!("test {first:?}"));
        let (k, st) = r.waitany(&[from2, from1]).await?;
        s.borrow_mut().push(format!("waitany {k} from {}", st.source));
        let mut tests = 0;
        while r.test(from2).await?.is_none() {
            tests += 1;
        }
        s.borrow_mut().push(format!("rank 2 arrived after more tests: {}", tests > 0));
        Ok(())
    })
    .unwrap();
    w.rank(1, |r| async move {
        r.spu().compute(3200).await;
        r.send(0, 0, 0, 0, 0).await.map(|_| ())
    })
    .unwrap();
    w.rank(2, |r| async move {
        r.spu().compute(32000).await;
        r.send(0, 0, 0, 0, 0).await.map(|_| ())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*seen.borrow(), vec!["test None", "waitany 1 from 1", "rank 2 arrived after more tests: true"]);
}

#[test]
fn a_wait_nobody_can_satisfy_is_a_deadlock_naming_the_request() {
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    for me in 0..2usize {
        w.rank(me, move |r| async move {
            let q = r.irecv(0, 0, (1 - me) as i32, 4, 0)?;
            r.wait(q).await.map(|_| ())
        })
        .unwrap();
    }
    let err = w.run().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Deadlock);
    assert!(
        err.to_string()
            .ends_with(": rank 0 waits in MPI_Wait for MPI_Irecv from 1, tag 4; rank 1 waits in MPI_Wait for MPI_Irecv from 0, tag 4"),
        "{err}"
    );
    let mut w = MpiWorld::new(qs20(), 1, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        let q = r.irecv(0, 0, 0, 0, 0)?;
        r.isend(0, 0, 0, 0, 0).await?;
        r.wait(q).await?;
        r.wait(q).await.map(|_| ())
    })
    .unwrap();
    assert_eq!(w.run().unwrap_err().to_string(), "rank 0: MPI_Wait: request 0 is not pending");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, rng_seed: proptest::test_runner::RngSeed::Fixed(20261126), ..ProptestConfig::default() })]
    /// Every rank of a ring posts Irecv from the left and Isend to the right (several each,
    /// sizes mixed, some buffered), then waits in a random order: everything arrives in order.
    #[test]
    fn a_ring_of_requests_arrives_whole(ranks in 2usize..6, sizes in proptest::collection::vec(0u32..3000, 1..4), seed in 0u64..1000, buffered in any::<bool>()) {
        let set = if buffered { vec!["mpi.buffered_bytes=64".to_string()] } else { vec![] };
        let file = config::load(config::preset_text("qs20").unwrap(), &set).unwrap();
        let mut w = MpiWorld::new(file, ranks, None, Mode::Memory).unwrap();
        let ok = Rc::new(RefCell::new(0usize));
        for me in 0..ranks {
            let (sizes, ok) = (sizes.clone(), ok.clone());
            w.rank(me, move |r| async move {
                let (right, left) = ((me + 1) % ranks, (me + ranks - 1) % ranks);
                let mut reqs = Vec::new();
                let mut bufs = Vec::new();
                for (k, &n) in sizes.iter().enumerate() {
                    let (s, d) = (r.alloc(n as u64)?, r.alloc(n as u64)?);
                    r.write(s, &pattern(n, (me * 8 + k) as u8))?;
                    reqs.push(r.irecv(d, n, left as i32, k as i32, 0)?);
                    reqs.push(r.isend(s, n, right, k as i32, 0).await?);
                    bufs.push((d, n, k));
                }
                let mut order: Vec<usize> = (0..reqs.len()).collect();
                order.sort_by_key(|&i| (i as u64 * 2654435761 + seed) % 97);
                for i in order {
                    r.wait(reqs[i]).await?;
                }
                for (d, n, k) in bufs {
                    assert_eq!(r.read(d, n)?, pattern(n, (left * 8 + k) as u8));
                }
                *ok.borrow_mut() += 1;
                Ok(())
            }).unwrap();
        }
        w.run().unwrap();
        prop_assert_eq!(*ok.borrow(), ranks);
    }
}

#[test]
fn sendrecv_behind_a_pending_irecv_takes_the_later_message() {
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    let tags = Rc::new(RefCell::new(Vec::new()));
    let t = tags.clone();
    w.rank(0, move |r| async move {
        let (b, c) = (r.alloc(4)?, r.alloc(4)?);
        let q = r.irecv(b, 4, 1, ANY_TAG, 0)?;
        let (_, st) = r.sendrecv(c, 0, 1, 3, c, 4, 1, ANY_TAG, 0).await?;
        let first = r.wait(q).await?;
        t.borrow_mut().extend([first.tag, st.tag]);
        Ok(())
    })
    .unwrap();
    w.rank(1, |r| async move {
        let b = r.alloc(4)?;
        r.send(b, 4, 0, 1, 0).await?;
        let (_, st) = r.sendrecv(b, 4, 0, 2, b, 4, 0, ANY_TAG, 0).await?;
        assert_eq!(st.tag, 3);
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*tags.borrow(), vec![1, 2], "the Irecv posted first takes the first message");
}

#[test]
fn a_probe_keeps_pending_requests_progressing() {
    // Rank 0's second Isend is queued behind its first; only a progress pass posts it, and rank
    // 1 sends what rank 0 probes for only after receiving both.
    let mut w = MpiWorld::new(qs20(), 2, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        let q1 = r.isend(0, 0, 1, 1, 0).await?;
        let q2 = r.isend(0, 0, 1, 2, 0).await?;
        let st = r.probe(1, 3, 0).await?;
        assert_eq!((st.source, st.tag), (1, 3));
        r.wait(q1).await?;
        r.wait(q2).await?;
        r.recv(0, 0, 1, 3, 0).await.map(|_| ())
    })
    .unwrap();
    w.rank(1, |r| async move {
        r.recv(0, 0, 0, 1, 0).await?;
        r.recv(0, 0, 0, 2, 0).await?;
        r.send(0, 0, 0, 3, 0).await.map(|_| ())
    })
    .unwrap();
    w.run().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, rng_seed: proptest::test_runner::RngSeed::Fixed(20261126), ..ProptestConfig::default() })]

    /// A pending Isend whose receiver enters a barrier first does not hold the barrier up (the
    /// collective context has entries of its own), for any rank count and either end of the
    /// pair, and a second message on the pair still comes after it.
    #[test]
    fn a_pending_isend_does_not_hold_up_a_barrier(ranks in 2usize..=16, pick in 0usize..256, n in 0u32..200) {
        let (from, to) = (pick % ranks, (pick / 16 + 1 + pick % ranks) % ranks);
        prop_assume!(from != to);
        let mut w = MpiWorld::new(qs20(), ranks, None, Mode::Memory).unwrap();
        let got = Rc::new(RefCell::new(Vec::new()));
        for me in 0..ranks {
            let got = got.clone();
            w.rank(me, move |r| async move {
                let b = r.alloc(n.max(1) as u64)?;
                if me == from {
                    r.write(b, &pattern(n, 9))?;
                    let q = r.isend(b, n, to, 4, 0).await?;
                    r.barrier(0).await?;
                    r.send(b, 0, to, 4, 0).await?;
                    r.wait(q).await?;
                } else if me == to {
                    r.barrier(0).await?;
                    let first = r.recv(b, n, from as i32, 4, 0).await?;
                    got.borrow_mut().push((first.bytes, r.read(b, n)?));
                    let second = r.recv(b, n, from as i32, 4, 0).await?;
                    got.borrow_mut().push((second.bytes, Vec::new()));
                } else {
                    r.barrier(0).await?;
                }
                Ok(())
            })
            .unwrap();
        }
        w.run().unwrap();
        prop_assert_eq!(&*got.borrow(), &vec![(n, pattern(n, 9)), (0, Vec::new())]);
    }
}
