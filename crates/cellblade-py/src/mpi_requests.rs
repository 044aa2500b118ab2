//! The nonblocking requests of a Python rank program, on the core's progress engine
//! (`cellblade::mpi::Rank::isend`/`irecv`/`test`/`wait`/`waitany`), as `mpi/nb_wire.rs`
//! serves a C rank's: each request keeps its own simulated buffer (from the top of the rank's
//! heap) until it is done, and with no request left the buffers are free again.
//!
//! `isend`/`irecv` are not yielded (mpi4py's return a request at once): the handle queues the
//! post under a number, and the driver posts queued requests, in order, before it runs the
//! program's next yielded operation, or when the program ends. Computing between calls is free,
//! so a request is posted at the simulated time of its call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use cellblade::mpi::{Rank, Request, Status};
use cellblade::Error;

/// A nonblocking operation to post.
#[derive(Debug, Clone)]
pub enum Post {
    Send { data: Vec<u8>, dest: usize, tag: i32, comm: u32 },
    Recv { cap: u32, source: i32, tag: i32, comm: u32 },
}

/// The posts a program queued since its last yield, each under the number its handle gave.
#[derive(Debug, Default)]
pub struct Queue {
    posts: Vec<(u64, Post)>,
    next: u64,
}

/// The queue shared by a rank's handle (which fills it) and its driver (which posts it).
pub type Shared = Rc<RefCell<Queue>>;

impl Queue {
    /// Queue `post`; its request's number.
    pub fn push(&mut self, post: Post) -> u64 {
        let n = self.next;
        self.next += 1;
        self.posts.push((n, post));
        n
    }
}

/// A completed request: a receive's bytes (None for a send) and its status.
pub type Done = (Option<Vec<u8>>, Status);

/// The requests a rank program has posted and not yet completed, by number.
#[derive(Default)]
pub struct Live {
    reqs: HashMap<u64, (Request, Option<u64>)>,
}

fn not_pending(r: &Rank, call: &str, n: u64) -> Error {
    Error::Config(format!("rank {}: {call}: request {n} is not pending (it was completed, or never posted)", r.rank()))
}

impl Live {
    /// Post every queued request, in the order the program made them.
    pub async fn post_queued(&mut self, r: &Rank, queue: &Shared) -> cellblade::Result<()> {
        let posts = std::mem::take(&mut queue.borrow_mut().posts);
        for (n, post) in posts {
            let kept = match post {
                Post::Send { data, dest, tag, comm } => {
                    let ea = r.alloc_request(data.len() as u64)?;
                    r.write(ea, &data)?;
                    (r.isend(ea, data.len() as u32, dest, tag, comm).await?, None)
                }
                Post::Recv { cap, source, tag, comm } => {
                    let ea = r.alloc_request(cap as u64)?;
                    (r.irecv(ea, cap, source, tag, comm)?, Some(ea))
                }
            };
            self.reqs.insert(n, kept);
        }
        Ok(())
    }

    fn get(&self, r: &Rank, call: &str, n: u64) -> cellblade::Result<Request> {
        self.reqs.get(&n).map(|k| k.0).ok_or_else(|| not_pending(r, call, n))
    }

    /// `MPI_Wait` on request `n`.
    pub async fn wait(&mut self, r: &Rank, n: u64) -> cellblade::Result<Done> {
        let st = r.wait(self.get(r, "wait", n)?).await?;
        self.done(r, n, st)
    }

    /// `MPI_Test` on request `n`: None while it is not done.
    pub async fn test(&mut self, r: &Rank, n: u64) -> cellblade::Result<Option<Done>> {
        match r.test(self.get(r, "test", n)?).await? {
            Some(st) => Ok(Some(self.done(r, n, st)?)),
            None => Ok(None),
        }
    }

    /// `MPI_Waitany` on requests `ns`: the index of the one done.
    pub async fn waitany(&mut self, r: &Rank, ns: &[u64]) -> cellblade::Result<(usize, Done)> {
        let qs = ns.iter().map(|&n| self.get(r, "waitany", n)).collect::<cellblade::Result<Vec<_>>>()?;
        let (k, st) = r.waitany(&qs).await?;
        Ok((k, self.done(r, ns[k], st)?))
    }

    /// Request `n` is done: a receive's bytes come out of its buffer, and with no request left
    /// the request buffers are free again.
    fn done(&mut self, r: &Rank, n: u64, st: Status) -> cellblade::Result<Done> {
        let (_, buf) = self.reqs.remove(&n).expect("a request being completed is live");
        let data = buf.map(|ea| r.read(ea, st.bytes)).transpose()?;
        if self.reqs.is_empty() {
            r.free_requests();
        }
        Ok((data, st))
    }
}
