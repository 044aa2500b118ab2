//! The node network between the blades' PPEs, priced in LogGP terms (machine file `[network]`):
//! a send costs the sending PPE `overhead`; the message leaves the blade's adapter when the
//! adapter is free (one message per `gap`, or per m x `gap_per_byte` if longer), its last byte
//! `(m - 1) x gap_per_byte` later, and arrives `latency` after that; the receiving PPE pays
//! `overhead` again once it has it. Messages between one pair of blades with one tag arrive in
//! the order sent (MPI's non-overtaking rule). The adapter's DMA into the receiver's memory is
//! part of the per-byte gap: it does not appear on the receiving blade's bus.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::{program_err, Result};
use crate::machine::config::NetworkCfg;
use crate::machine::Machine;
use crate::ppe::Ppe;
use crate::sim::{Pid, Shared, Time};

struct Message {
    src: usize,
    tag: u32,
    arrival: Time,
    data: Vec<u8>,
}

pub struct Network {
    latency: Time,
    overhead: Time,
    gap: Time,
    /// Picoseconds per byte, so sub-tick rates stay exact enough.
    gap_per_byte_ps: u64,
    blades: Vec<Rc<Shared<Machine>>>,
    /// When each blade's adapter may start the next message.
    adapter_free: Vec<Time>,
    inbox: Vec<Vec<Message>>,
    /// The PPE process of each blade blocked in a receive, with the (source, tag) it waits for.
    waiting: Vec<Option<(Pid, usize, u32)>>,
    pub messages: u64,
}

impl Network {
    pub fn new(cfg: &NetworkCfg, blades: Vec<Rc<Shared<Machine>>>) -> Network {
        let n = blades.len();
        Network {
            latency: Time::from_ns(cfg.latency_ns),
            overhead: Time::from_ns(cfg.overhead_ns),
            gap: Time::from_ns(cfg.gap_ns),
            gap_per_byte_ps: (cfg.gap_per_byte_ns * 1000.0).round() as u64,
            blades,
            adapter_free: vec![Time::ZERO; n],
            inbox: (0..n).map(|_| Vec::new()).collect(),
            waiting: vec![None; n],
            messages: 0,
        }
    }

    /// The shortest time from a send to its arrival anywhere: the lock-step windows' bound.
    pub fn lookahead(&self) -> Time {
        self.latency
    }

    fn bytes_time(&self, bytes: u64) -> Time {
        Time::from_ns((bytes * self.gap_per_byte_ps) as f64 / 1000.0)
    }

    /// Queue `data` from blade `src` to blade `dst` at time `now`; wakes `dst`'s PPE if it
    /// waits for it. Returns nothing: the send is posted.
    fn post(&mut self, now: Time, src: usize, dst: usize, tag: u32, data: Vec<u8>) {
        let m = data.len().max(1) as u64;
        let depart = now.max(self.adapter_free[src]);
        self.adapter_free[src] = depart + self.gap.max(self.bytes_time(m));
        let arrival = depart + self.bytes_time(m - 1) + self.latency;
        self.messages += 1;
        self.inbox[dst].push(Message { src, tag, arrival, data });
        if let Some((pid, s, t)) = self.waiting[dst] {
            if s == src && t == tag {
                self.waiting[dst] = None;
                // The receiver's engine is behind `arrival` (the driver's windows ensure it).
                self.blades[dst].sched.borrow_mut().wake_at(arrival, pid, 0);
            }
        }
    }

    /// The first message in `dst`'s inbox from `src` with `tag`.
    fn take(&mut self, dst: usize, src: usize, tag: u32) -> Option<Message> {
        let i = self.inbox[dst].iter().position(|m| m.src == src && m.tag == tag)?;
        Some(self.inbox[dst].remove(i))
    }
}

/// A blade's PPE as an endpoint of the network (an MPI rank in the seed's MPICH2).
#[derive(Clone)]
pub struct Endpoint {
    pub blade: usize,
    pub ppe: Ppe,
    pub net: Rc<RefCell<Network>>,
}

impl Endpoint {
    pub fn blades(&self) -> usize {
        self.net.borrow().blades.len()
    }

    async fn overhead(&self) {
        let o = self.net.borrow().overhead;
        let (sh, pid) = self.ppe.process();
        sh.sleep(pid, o).await;
    }

    /// Send `data` to blade `dst` with `tag` (MPI_Send of a short message: the PPE pays the
    /// overhead, the adapter does the rest).
    pub async fn send(&self, dst: usize, tag: u32, data: Vec<u8>) -> Result<()> {
        if dst >= self.blades() || dst == self.blade {
            return Err(program_err(format!("blade {}: send to blade {dst}: no such peer", self.blade)));
        }
        self.overhead().await;
        let now = self.ppe.now();
        self.net.borrow_mut().post(now, self.blade, dst, tag, data);
        Ok(())
    }

    /// Receive the next message from blade `src` with `tag`, blocking until it has arrived.
    pub async fn recv(&self, src: usize, tag: u32) -> Result<Vec<u8>> {
        let (sh, pid) = self.ppe.process();
        loop {
            let msg = self.net.borrow_mut().take(self.blade, src, tag);
            if let Some(m) = msg {
                let now = sh.now();
                if m.arrival > now {
                    sh.sleep(pid, m.arrival - now).await;
                }
                self.overhead().await;
                return Ok(m.data);
            }
            self.net.borrow_mut().waiting[self.blade] = Some((pid, src, tag));
            let me = self.blade;
            sh.with(|_, s| s.set_waiting(pid, move || format!("a network message from blade {src} to blade {me} with tag {tag}")));
            sh.suspend(pid).await?;
        }
    }
}
