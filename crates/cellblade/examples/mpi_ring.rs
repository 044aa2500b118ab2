//! An MPI program written in Rust against the core's rank protocol (`cellblade::mpi::Rank`,
//! the one `cellblade mpirun` runs C programs on and `cellblade.programs_mpi` Python ones):
//! a token goes round a ring of N ranks (each adds its rank), then rank 0 and rank 1 time a
//! ping-pong of `bytes` as seed 004 §5.1 does. `cargo run --release --example mpi_ring -- 8 4096`
//! (ranks, at least 2, and bytes; default 4 ranks, 1024 bytes) prints the token and the latency.

use std::cell::Cell;
use std::rc::Rc;

use cellblade::machine::config::{load, preset_text};
use cellblade::mpi::{Mode, MpiWorld, ANY_SOURCE, ANY_TAG};

const TOKEN: i32 = 1;
const PING: i32 = 2;
const REPS: u32 = 100;

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).map(|a| a.parse().expect("ranks and bytes are whole numbers")).collect();
    let (ranks, bytes) = (args.first().copied().unwrap_or(4) as usize, args.get(1).copied().unwrap_or(1024));
    if ranks < 2 {
        // A synchronous send to oneself waits for a receive that never comes (seed 004 §7).
        eprintln!("error: the ring needs at least 2 ranks, not {ranks}");
        std::process::exit(2)
    }
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let mut world = MpiWorld::new(file, ranks, None, Mode::Memory).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let token = Rc::new(Cell::new(0u32));
    let latency = Rc::new(Cell::new(0.0f64));
    for rank in 0..ranks {
        let (token, latency) = (token.clone(), latency.clone());
        world
            .rank(rank, move |r| async move {
                // The ring: rank 0 starts it and receives it back from anyone (ANY_SOURCE).
                let word = r.alloc(4)?;
                let next = (rank + 1) % r.size();
                if rank == 0 {
                    r.write(word, &0u32.to_be_bytes())?;
                    r.send(word, 4, next, TOKEN, 0).await?;
                    let st = r.recv(word, 4, ANY_SOURCE, ANY_TAG, 0).await?;
                    assert_eq!((st.source, st.tag), (r.size() - 1, TOKEN));
                    token.set(u32::from_be_bytes(r.read(word, 4)?.try_into().unwrap()));
                } else {
                    r.recv(word, 4, (rank - 1) as i32, TOKEN, 0).await?;
                    let v = u32::from_be_bytes(r.read(word, 4)?.try_into().unwrap()) + rank as u32;
                    r.write(word, &v.to_be_bytes())?;
                    r.send(word, 4, next, TOKEN, 0).await?;
                }
                // The ping-pong between ranks 0 and 1, timed on the decrementer.
                r.barrier(0).await?;
                if rank < 2 {
                    let buf = r.alloc(bytes as u64)?;
                    let t0 = r.wtime();
                    for _ in 0..REPS {
                        if rank == 0 {
                            r.send(buf, bytes, 1, PING, 0).await?;
                            r.recv(buf, bytes, 1, PING, 0).await?;
                        } else {
                            r.recv(buf, bytes, 0, PING, 0).await?;
                            r.send(buf, bytes, 0, PING, 0).await?;
                        }
                    }
                    latency.set((r.wtime() - t0) / (2.0 * REPS as f64));
                }
                Ok(())
            })
            .unwrap();
    }
    let report = world.run().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    println!("ring of {ranks} ranks: token {} (sum of the ranks: {})", token.get(), ranks * (ranks - 1) / 2);
    println!("ping-pong of {bytes} bytes, ranks 0 and 1: {:.3} us per message", latency.get() * 1e6);
    println!("simulated {:.3} us, {} events", report.simulated.as_ns() / 1e3, report.events);
}
