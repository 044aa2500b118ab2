//! Matching by source, tag and communicator (MPI-1 §3.5): a message no posted receive matches
//! is parked in the receiver's unexpected queue, so it never blocks the pair's later messages;
//! sends stay synchronous; and random programs either complete with the right bytes or, when
//! erroneous, are reported as deadlocks (never hang).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;

use cellblade::machine::config;
use cellblade::mpi::{Mode, MpiWorld, ANY_SOURCE, ANY_TAG};
use cellblade::ErrorKind;
use proptest::prelude::*;

fn machine(buffered: bool) -> config::MachineFile {
    let set = if buffered { vec!["mpi.buffered_bytes=64".to_string()] } else { vec![] };
    config::load(config::preset_text("qs20").unwrap(), &set).unwrap()
}

/// A message's bytes: its sender, tag, communicator and sequence number, then a pattern.
fn payload(n: u32, src: usize, tag: i32, comm: u32, seq: u32) -> Vec<u8> {
    let head = [src as u8, tag as u8, comm as u8, seq as u8];
    (0..n as usize).map(|i| if i < 4 { head[i] } else { (i as u8).wrapping_mul(31) ^ seq as u8 }).collect()
}

/// Run `w` on another thread with a wall-clock limit: an erroneous program must be reported,
/// never hang.
fn run_within<F: FnOnce() -> cellblade::Result<()> + Send + 'static>(f: F) -> cellblade::Result<()> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(120)).expect("the job neither finished nor reported a deadlock within 120 s")
}

#[test]
fn a_receive_for_the_second_tag_parks_the_first_isend() {
    for (mode, buffered) in [(Mode::Memory, false), (Mode::Ls, false), (Mode::Memory, true), (Mode::Ls, true)] {
        let mut w = MpiWorld::new(machine(buffered), 2, None, mode).unwrap();
        w.rank(0, |r| async move {
            let (a, b) = (r.alloc(40)?, r.alloc(3000)?);
            r.write(a, &payload(40, 0, 1, 0, 0))?;
            r.write(b, &payload(3000, 0, 2, 0, 1))?;
            let q1 = r.isend(a, 40, 1, 1, 0).await?;
            let q2 = r.isend(b, 3000, 1, 2, 0).await?;
            r.wait(q2).await?;
            r.wait(q1).await?;
            Ok(())
        })
        .unwrap();
        let got = Rc::new(RefCell::new(Vec::new()));
        let g = got.clone();
        w.rank(1, move |r| async move {
            let d = r.alloc(3000)?;
            let st = r.recv(d, 3000, 0, 2, 0).await?;
            g.borrow_mut().push((st.tag, st.bytes, r.read(d, st.bytes)?));
            let st = r.recv(d, 3000, 0, 1, 0).await?;
            g.borrow_mut().push((st.tag, st.bytes, r.read(d, st.bytes)?));
            Ok(())
        })
        .unwrap();
        w.run().unwrap_or_else(|e| panic!("{mode:?} buffered {buffered}: {e}"));
        let got = got.borrow();
        assert_eq!((got[0].0, got[0].1), (2, 3000));
        assert_eq!(got[0].2, payload(3000, 0, 2, 0, 1));
        assert_eq!((got[1].0, got[1].1), (1, 40));
        assert_eq!(got[1].2, payload(40, 0, 1, 0, 0), "{mode:?} buffered {buffered}: the parked message's bytes");
    }
}

#[test]
fn an_isend_on_a_duplicate_communicator_does_not_block_a_send_on_the_world() {
    // Communicator words: 0 is MPI_COMM_WORLD's point-to-point context, 2 a duplicate's.
    let mut w = MpiWorld::new(machine(false), 2, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        let b = r.alloc(8)?;
        r.write(b, &payload(8, 0, 5, 2, 0))?;
        let q = r.isend(b, 8, 1, 5, 2).await?;
        let c = r.alloc(8)?;
        r.write(c, &payload(8, 0, 5, 0, 0))?;
        r.send(c, 8, 1, 5, 0).await?;
        r.wait(q).await?;
        Ok(())
    })
    .unwrap();
    let got = Rc::new(RefCell::new(Vec::new()));
    let g = got.clone();
    w.rank(1, move |r| async move {
        let d = r.alloc(8)?;
        for comm in [0, 2] {
            r.recv(d, 8, 0, 5, comm).await?;
            g.borrow_mut().push(r.read(d, 8)?[2]);
        }
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*got.borrow(), vec![0, 2], "each receive got its communicator's message");
}

#[test]
fn a_parked_issend_completes_only_once_its_receive_matches() {
    let mut w = MpiWorld::new(machine(true), 2, None, Mode::Memory).unwrap();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    w.rank(0, move |r| async move {
        let b = r.alloc(16)?;
        let q1 = r.issend(b, 16, 1, 1, 0).await?;
        let q2 = r.issend(b, 16, 1, 2, 0).await?;
        // Rank 1 has taken tag 2 (and parked tag 1) once its token arrives.
        r.recv(0, 0, 1, 9, 0).await?;
        let (two, one) = (r.test(q2).await?.is_some(), r.test(q1).await?.is_some());
        s.borrow_mut().extend([two, one]);
        r.send(0, 0, 1, 9, 0).await?;
        r.wait(q1).await?;
        s.borrow_mut().push(true);
        Ok(())
    })
    .unwrap();
    w.rank(1, |r| async move {
        let d = r.alloc(16)?;
        r.recv(d, 16, 0, 2, 0).await?;
        r.send(0, 0, 0, 9, 0).await?;
        r.recv(0, 0, 0, 9, 0).await?;
        r.recv(d, 16, 0, 1, 0).await?;
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*seen.borrow(), vec![true, false, true], "tag 2 done, tag 1 parked but not done until received");
}

#[test]
fn wildcards_take_the_earliest_parked_message_and_probe_sees_it() {
    let mut w = MpiWorld::new(machine(false), 3, None, Mode::Memory).unwrap();
    w.rank(0, |r| async move {
        let b = r.alloc(4)?;
        let mut qs = Vec::new();
        for tag in [1, 2, 3] {
            qs.push(r.isend(b, 4, 2, tag, 0).await?);
        }
        for q in qs {
            r.wait(q).await?;
        }
        Ok(())
    })
    .unwrap();
    w.rank(1, |_| async move { Ok(()) }).unwrap();
    let got = Rc::new(RefCell::new(Vec::new()));
    let g = got.clone();
    w.rank(2, move |r| async move {
        let d = r.alloc(4)?;
        let st = r.recv(d, 4, 0, 3, 0).await?;
        g.borrow_mut().push(st.tag);
        let p = r.probe(ANY_SOURCE, ANY_TAG, 0).await?;
        g.borrow_mut().push(p.tag);
        assert_eq!(r.iprobe(0, 2, 0).await?.map(|s| s.tag), Some(2));
        for _ in 0..2 {
            let tag = r.recv(d, 4, ANY_SOURCE, ANY_TAG, 0).await?.tag;
            g.borrow_mut().push(tag);
        }
        Ok(())
    })
    .unwrap();
    w.run().unwrap();
    assert_eq!(*got.borrow(), vec![3, 1, 1, 2]);
}

/// One message of a random program.
#[derive(Debug, Clone)]
struct Msg {
    src: usize,
    dst: usize,
    tag: i32,
    comm: u32,
    size: u32,
    synchronous: bool,
}

/// How a receiver names the messages of one communicator: exactly, by any source, by any tag,
/// or by both. Every receive of a class matches the same messages, so any correct matching
/// completes and the program is safe.
fn key(m: &Msg, wild: u8) -> (i32, i32, u32) {
    let source = if wild & 1 != 0 { ANY_SOURCE } else { m.src as i32 };
    let tag = if wild & 2 != 0 { ANY_TAG } else { m.tag };
    (source, tag, m.comm)
}

fn msgs(ranks: usize) -> impl Strategy<Value = Vec<Msg>> {
    proptest::collection::vec((0..ranks, 0..ranks, 0..3i32, 0..2u32, 0u32..300, any::<bool>()), 1..24).prop_map(|v| {
        v.into_iter().map(|(src, dst, tag, c, size, synchronous)| Msg { src, dst, tag, comm: 2 * c, size, synchronous }).collect()
    })
}

/// Every rank posts its sends and receives (nonblocking, in a shuffled order), then waits for
/// them in another; `extra` adds a receive nobody sends to rank 0.
fn run_program(
    ranks: usize,
    msgs: Vec<Msg>,
    wild: Vec<u8>,
    shuffle: u64,
    mode: Mode,
    buffered: bool,
    extra: bool,
) -> cellblade::Result<()> {
    let mut w = MpiWorld::new(machine(buffered), ranks, None, mode)?;
    for me in 0..ranks {
        let (msgs, wild) = (msgs.clone(), wild.clone());
        w.rank(me, move |r| async move {
            let sends: Vec<Msg> = msgs.iter().filter(|m| m.src == me).cloned().collect();
            // Sequence numbers in posting order, per (receiver, tag, communicator).
            let mut seq = std::collections::HashMap::new();
            let recvs: Vec<Msg> = msgs.iter().filter(|m| m.dst == me).cloned().collect();
            let mut ops: Vec<(bool, usize)> = (0..sends.len()).map(|i| (true, i)).chain((0..recvs.len()).map(|i| (false, i))).collect();
            ops.sort_by_key(|&(s, i)| (i as u64 * 2654435761 + s as u64 * 40503 + shuffle) % 1009);
            let mut reqs = Vec::new();
            for (is_send, i) in ops {
                if is_send {
                    let m = &sends[i];
                    let n = seq.entry((m.dst, m.tag, m.comm)).or_insert(0u32);
                    let b = r.alloc(m.size as u64)?;
                    r.write(b, &payload(m.size, me, m.tag, m.comm, *n))?;
                    *n += 1;
                    let q = if m.synchronous {
                        r.issend(b, m.size, m.dst, m.tag, m.comm).await?
                    } else {
                        r.isend(b, m.size, m.dst, m.tag, m.comm).await?
                    };
                    reqs.push((q, None));
                } else {
                    let m = &recvs[i];
                    let (source, tag, comm) = key(m, wild[(m.comm / 2) as usize * 16 + me]);
                    let d = r.alloc(300)?;
                    reqs.push((r.irecv(d, 300, source, tag, comm)?, Some((d, (source, tag, comm)))));
                }
            }
            if extra && me == 0 {
                reqs.push((r.irecv(0, 0, (ranks - 1) as i32, 77, 0)?, None));
            }
            // Wait in another order; then check every receive's bytes and per-class order.
            let mut order: Vec<usize> = (0..reqs.len()).collect();
            order.sort_by_key(|&i| (i as u64 * 40503 + shuffle) % 997);
            let mut got = vec![None; reqs.len()];
            for i in order {
                got[i] = Some(r.wait(reqs[i].0).await?);
            }
            // The last sequence number by (receive class, sender, tag).
            let mut last = std::collections::HashMap::new();
            for (k, (_, recv)) in reqs.iter().enumerate() {
                let Some((d, class)) = recv else { continue };
                let st = got[k].expect("waited");
                let bytes = r.read(*d, st.bytes)?;
                let head = |i: usize| bytes.get(i).copied();
                let m =
                    msgs.iter().find(|m| m.src == st.source && m.dst == me && m.tag == st.tag && m.comm == class.2 && m.size == st.bytes);
                assert!(m.is_some(), "rank {me}: no such message: {st:?}");
                if st.bytes >= 4 {
                    assert_eq!((head(0), head(1), head(2)), (Some(st.source as u8), Some(st.tag as u8), Some(class.2 as u8)));
                    assert_eq!(bytes, payload(st.bytes, st.source, st.tag, class.2, head(3).unwrap() as u32), "rank {me}: bytes");
                    // Receives of one class take one sender's messages (of a tag) in order.
                    let seq = head(3).unwrap() as u32;
                    let prev: Option<u32> = last.insert((*class, st.source, st.tag), seq);
                    assert!(prev.is_none_or(|p| p < seq), "rank {me}: message {seq} overtook {prev:?} in class {class:?}");
                }
            }
            Ok(())
        })?;
    }
    w.run().map(|_| ())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, rng_seed: proptest::test_runner::RngSeed::Fixed(20261126), ..ProptestConfig::default() })]

    /// Random correct programs (tags, two communicators, wildcards, any order of Isend, Issend
    /// and Irecv, 2-16 ranks, both modes, buffered or not) complete with the right bytes.
    #[test]
    fn random_correct_programs_complete_with_the_right_bytes(
        (ranks, msgs) in (2usize..=16).prop_flat_map(|n| (Just(n), msgs(n))),
        wild in proptest::collection::vec(0u8..4, 32),
        shuffle in 0u64..1000, ls in any::<bool>(), buffered in any::<bool>(),
    ) {
        let mode = if ls { Mode::Ls } else { Mode::Memory };
        let out = run_within(move || run_program(ranks, msgs, wild, shuffle, mode, buffered, false));
        prop_assert!(out.is_ok(), "{:?}", out);
    }

    /// The same programs with a receive nobody sends are reported as deadlocks.
    #[test]
    fn a_receive_nobody_sends_is_reported(
        (ranks, msgs) in (2usize..=8).prop_flat_map(|n| (Just(n), msgs(n))),
        wild in proptest::collection::vec(0u8..4, 32),
        shuffle in 0u64..1000,
    ) {
        let out = run_within(move || run_program(ranks, msgs, wild, shuffle, Mode::Memory, false, true));
        let e = out.expect_err("a receive nobody sends");
        prop_assert_eq!(e.kind(), ErrorKind::Deadlock, "{}", e);
        prop_assert!(e.to_string().contains("rank 0 waits in MPI_Wait"), "{}", e);
    }

    /// A cycle of blocking synchronous sends among some ranks (each sends before it receives),
    /// the others exchanging correctly meanwhile, is reported as a deadlock naming each send.
    #[test]
    fn a_cycle_of_synchronous_sends_is_reported(ranks in 2usize..=16, len in 2usize..=16, start in 0usize..16) {
        let len = len.min(ranks);
        let cycle: Vec<usize> = (0..len).map(|k| (start + k) % ranks).collect();
        let c = cycle.clone();
        let out = run_within(move || {
            let mut w = MpiWorld::new(machine(true), ranks, None, Mode::Memory)?;
            for me in 0..ranks {
                let c = c.clone();
                w.rank(me, move |r| async move {
                    if let Some(k) = c.iter().position(|&x| x == me) {
                        let (next, prev) = (c[(k + 1) % c.len()], c[(k + c.len() - 1) % c.len()]);
                        r.ssend(0, 0, next, 3, 0).await?;
                        r.recv(0, 0, prev as i32, 3, 0).await?;
                    }
                    Ok(())
                })?;
            }
            w.run().map(|_| ())
        });
        let e = out.expect_err("a cycle of synchronous sends");
        prop_assert_eq!(e.kind(), ErrorKind::Deadlock, "{}", e);
        for (k, &me) in cycle.iter().enumerate() {
            let next = cycle[(k + 1) % cycle.len()];
            let want = format!("rank {me} waits in MPI_Ssend to {next}, tag 3");
            prop_assert!(e.to_string().contains(&want), "{} lacks {}", e, want);
        }
    }
}

#[test]
fn two_ranks_ssend_to_each_other_while_a_third_receives_is_reported_at_once() {
    let e = run_within(|| {
        let mut w = MpiWorld::new(machine(false), 3, None, Mode::Memory)?;
        for me in 0..2usize {
            w.rank(me, move |r| async move {
                r.ssend(0, 0, 1 - me, 0, 0).await?;
                r.recv(0, 0, (1 - me) as i32, 0, 0).await?;
                Ok(())
            })?;
        }
        w.rank(2, |r| async move { r.recv(0, 0, 1, 0, 0).await.map(|_| ()) })?;
        w.run().map(|_| ())
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Deadlock);
    assert!(
        e.to_string().ends_with(
            ": rank 0 waits in MPI_Ssend to 1, tag 0; rank 1 waits in MPI_Ssend to 0, tag 0; rank 2 waits in MPI_Recv from 1, tag 0"
        ),
        "{e}"
    );
}

#[test]
fn sixteen_sends_in_flight_per_pair_then_the_next_waits_and_is_reported_if_needed_first() {
    // 16 Isends to one receiver in flight (15 parked, one in the entry) fit; a receiver that
    // wants the 17th first leaves it queued at the sender: a reported deadlock, not a hang.
    for (sends, ok) in [(16, true), (17, false)] {
        let out = run_within(move || {
            let mut w = MpiWorld::new(machine(false), 2, None, Mode::Memory)?;
            w.rank(0, move |r| async move {
                let b = r.alloc(4)?;
                let mut qs = Vec::new();
                for tag in 0..sends {
                    qs.push(r.isend(b, 4, 1, tag, 0).await?);
                }
                for q in qs {
                    r.wait(q).await?;
                }
                Ok(())
            })?;
            w.rank(1, move |r| async move {
                let d = r.alloc(4)?;
                for tag in (0..sends).rev() {
                    r.recv(d, 4, 0, tag, 0).await?;
                }
                Ok(())
            })?;
            w.run().map(|_| ())
        });
        match out {
            Ok(()) => assert!(ok, "{sends} sends"),
            Err(e) => {
                assert!(!ok, "{sends} sends: {e}");
                assert_eq!(e.kind(), ErrorKind::Deadlock, "{e}");
                assert!(e.to_string().contains("rank 1 waits in MPI_Recv from 0, tag 16"), "{e}");
            }
        }
    }
}
