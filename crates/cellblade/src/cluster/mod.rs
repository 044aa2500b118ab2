//! Clusters of blades (seed 003 §6.1): up to [`MAX_BLADES`] blades whose PPEs talk over a node
//! network, run in ONE deterministic simulation.
//!
//! | file | what |
//! |---|---|
//! | `network.rs` | the node network: LogGP costs, per-blade adapters, PPE send/receive |
//! | `coll.rs` | the hierarchical barrier and broadcast of §6.1 on the SPEs of every blade |
//! | `request.rs` | `cluster run`: the fronts' request (fields, defaults, limits) |
//!
//! Mechanism: each blade keeps its own engine and machine (nothing in a blade is shared with
//! another but the network), and this driver runs them in conservative lock-step windows, the
//! classic lookahead of conservative parallel discrete-event simulation: no message sent at
//! time t can arrive before t + `network.latency_ns`, so once every blade has run every event
//! of the window [T, T + W) with W no longer than that latency, a message sent inside it lands
//! at or after T + W, in every receiver's future. A sender delivers straight into the
//! receiver's inbox and schedules the receiver's wake-up on the receiver's engine. Windows with
//! nothing in them are skipped (the next one starts at the earliest pending event of any
//! blade). The windows only bound how far a blade runs ahead: the results do not depend on
//! their length (a test runs the same collective with a window 7 times shorter and compares).
//! One engine per blade, rather than one engine for the whole cluster, keeps the machine model
//! single-blade (its SPE numbering, its bus) and leaves the blades free to run on threads later.
//!
//! Deadlock: a window in which no blade has anything pending while some program has not
//! finished is a deadlock; the report names every waiting program, blade by blade.

pub mod coll;
pub mod network;
pub mod request;

use std::cell::RefCell;
use std::rc::Rc;

use crate::blade::Blade;
use crate::error::{field_err, Error, Result};
use crate::machine::config::MachineFile;
use crate::sim::Time;
use network::Network;

/// Blades a cluster may have: the seed's largest cluster (64 SPEs, §7.2).
pub const MAX_BLADES: usize = 4;

/// Refuse a blade count outside 1..=[`MAX_BLADES`], naming the field `blades`.
pub fn check_blades(blades: usize) -> Result<()> {
    if blades == 0 || blades > MAX_BLADES {
        return Err(field_err("blades", blades, format!("1 to {MAX_BLADES}")));
    }
    Ok(())
}

/// What a finished cluster run measured about itself.
#[derive(Debug, Clone)]
pub struct ClusterReport {
    /// The latest time any blade reached.
    pub simulated: Time,
    pub events: u64,
    pub messages: u64,
    pub windows: u64,
}

pub struct Cluster {
    pub blades: Vec<Blade>,
    pub net: Rc<RefCell<Network>>,
    window: Time,
}

impl Cluster {
    /// `blades` blades of machine `file`, joined by its `[network]`.
    pub fn new(file: &MachineFile, blades: usize) -> Result<Cluster> {
        check_blades(blades)?;
        let blades: Vec<Blade> = (0..blades).map(|_| Blade::new(file.clone(), false)).collect();
        let net = Network::new(&file.network, blades.iter().map(|b| b.shared()).collect());
        let window = net.lookahead();
        Ok(Cluster { blades, net: Rc::new(RefCell::new(net)), window })
    }

    /// Use lock-step windows of `window` instead of the network latency; longer than the
    /// latency is refused (messages could land in a receiver's past).
    pub fn set_window(&mut self, window: Time) -> Result<()> {
        let most = self.net.borrow().lookahead();
        if window == Time::ZERO || window > most {
            return Err(crate::error::config_err(format!(
                "cluster window {window} is not allowed: above zero and at most the network latency ({most})"
            )));
        }
        self.window = window;
        Ok(())
    }

    /// Run every blade's programs to completion in lock-step windows.
    pub fn run(mut self) -> Result<ClusterReport> {
        let n = self.blades.len();
        let mut done = vec![false; n];
        let mut start = Time::ZERO;
        let mut windows = 0;
        loop {
            let end = start + self.window;
            windows += 1;
            for (b, blade) in self.blades.iter_mut().enumerate() {
                if !done[b] {
                    done[b] = blade.run_until(end)?;
                }
            }
            if done.iter().all(|&d| d) {
                break;
            }
            let next = self.blades.iter().zip(&done).filter(|(_, d)| !**d).filter_map(|(b, _)| b.pending()).min();
            match next {
                Some(t) => start = t.max(end),
                None => return Err(self.deadlock(&done)),
            }
        }
        let simulated = self.blades.iter().map(|b| b.now()).max().unwrap_or(Time::ZERO);
        let events = self.blades.iter().map(|b| b.events()).sum();
        let messages = self.net.borrow().messages;
        Ok(ClusterReport { simulated, events, messages, windows })
    }

    /// The deadlock report of every unfinished blade, one after another.
    fn deadlock(&self, done: &[bool]) -> Error {
        let parts: Vec<String> = self
            .blades
            .iter()
            .enumerate()
            .filter(|(b, _)| !done[*b])
            .map(|(b, blade)| format!("blade {b}: {}", blade.deadlock_error()))
            .collect();
        Error::Deadlock(format!("the cluster deadlocks (no blade has an event pending): {}", parts.join("; ")))
    }
}
