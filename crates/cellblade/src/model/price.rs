//! Beyond the seed: a price for ANY schedule (a built-in's or one written in Python), read off
//! its rounds with the measured parameters, with no hand-written equation.
//!
//! It follows the notification protocol of `coll/lower.rs` step by step, with a clock per rank:
//! - a rank starts round k when it has finished round k-1 and (ordered rounds) when the
//!   readers of its round k-1 sends have acknowledged;
//! - it announces its sends, one ADDR each: the i-th arrives after i issue gaps (notes sent
//!   back to back by one SPE) plus the ACK latency of its path (L1(1) or L2(1), figure 3(a));
//! - each get starts when the reader has its ADDR and takes L(m) - L(1) of its path (figure
//!   3(b)'s half round trip less the ADDR in it); gets from one source queue behind each other
//!   by the gap g(m), or g1(m) and g2(m) in two queues when it has readers on both chips (§4's
//!   one-to-all pattern), gets by one reader by Kielmann's back-to-back gap; both queues carry
//!   over from round to round (unordered rounds overlap);
//! - when more than two sources send across the BIF in a round, each crossing transfer pays the
//!   congestion of the BIF-n butterfly (§4, the third pattern) with its n DMAs issued at one
//!   instant, as a round issues them, and the excess of the slowest of them: the seed's C is
//!   the mean's excess, but a round ends with its last transfer (at 2 KB, BIF-16, the slowest
//!   waits 1048 ns more than BIF-2, the mean 588 ns: the all-gather rdb rounds of 16 SPEs
//!   were 6-9% low with the mean);
//! - it acknowledges each get the way it announced, and a reduction (after its own readers'
//!   ACKs, as the lowering waits) costs gamma per byte;
//! - a rank's call ends when every reader of its sends has acknowledged; a note (ADDR or ACK)
//!   to a peer waits until the rank's previous note to that peer has landed, as the lowering
//!   waits on that peer's tag group before it writes the note's word again.
//!
//! The price is that of a timed loop, as `coll::measure` (and the seed, §7) measures: [`CALLS`]
//! calls back to back, each rank starting the next call when its part of the last is done, the
//! slowest rank's time over the count. A broadcast is timed with the rdb barrier after it
//! (coll::measure does so), so its price includes the barrier's.
//!
//! Not modelled (the assumption, as in the seed): EIB ring sharing on one chip.

use serde::Serialize;

use super::measure::{FAR_READERS, NEAR_READERS};
use super::params::ModelParams;
use crate::coll::algorithms;
use crate::coll::schedule::{Action, Op, Schedule, Via, Xfer};
use crate::error::{config_err, Result};

/// A schedule's price.
#[derive(Debug, Clone, Serialize)]
pub struct Price {
    pub latency_ns: f64,
    /// A size was above the largest measured one: a value was extrapolated.
    pub extrapolated: bool,
}

struct Ctx<'a> {
    p: &'a ModelParams,
    chips: Vec<usize>,
    gamma: f64,
    extrapolated: bool,
}

impl Ctx<'_> {
    fn cross(&self, a: usize, b: usize) -> bool {
        self.chips[a] != self.chips[b]
    }
    fn note_ns(&self, a: usize, b: usize) -> f64 {
        if self.cross(a, b) {
            self.p.l2_ack_ns
        } else {
            self.p.l1_ack_ns
        }
    }
    /// Notes one SPE sends back to back leave one issue gap apart.
    fn note_gap(&self) -> f64 {
        self.p.g_note_issue_ns
    }
    fn look(&mut self, values: &[f64], m: u32) -> f64 {
        let l = self.p.at(values, m);
        self.extrapolated |= l.extrapolated;
        l.ns
    }
    /// Time of one get of `m` bytes from `src` to `dst`, alone.
    fn get_ns(&mut self, src: usize, dst: usize, m: u32) -> f64 {
        if self.cross(src, dst) {
            (self.look(&self.p.l2_ns.clone(), m) - self.p.l2_ack_ns).max(0.0)
        } else {
            (self.look(&self.p.l1_ns.clone(), m) - self.p.l1_ack_ns).max(0.0)
        }
    }
    /// The gap between two readers of one source. On one chip, g: the readers queue on the
    /// source's on-ramp. When the source also has readers on the other chip in the round, the
    /// two chips' readers form two queues, g1 apart on the source's chip and g2 apart across
    /// the BIF: what the g1/g2 burst measures (§7.1). The seed's g is the burst's time over
    /// its k readers; as a queue that time is one lone get plus k-1 gaps, so the gap between
    /// queued readers is (k g - get) / (k - 1): at small sizes, where the burst is mostly one
    /// latency, far less than g.
    fn source_gap(&mut self, src: usize, dst: usize, mixed: bool, m: u32) -> f64 {
        let cross = self.cross(src, dst);
        let (v, k) = if cross {
            (self.p.g2_ns.clone(), FAR_READERS)
        } else if mixed {
            (self.p.g1_ns.clone(), NEAR_READERS)
        } else {
            (self.p.g_ns.clone(), NEAR_READERS)
        };
        let (g, get) = (self.look(&v, m), self.get_ns(src, dst, m));
        let k = k as f64;
        ((k * g - get) / (k - 1.0)).max(0.0)
    }
    fn congestion(&mut self, m: u32, n: u32) -> f64 {
        let l = self.p.slowest_congestion_ns(m, n);
        self.extrapolated |= l.extrapolated;
        l.ns
    }
}

/// The model covers local-store notifications only: the seed measures no other channel.
pub fn check_covered(s: &Schedule) -> Result<()> {
    if let Some(x) = s.rounds.iter().flatten().find(|x| x.via != Via::LocalStore) {
        return Err(config_err(format!(
            "{}: the model is not defined for notifications via {} (seed 003 measures local-store ADDR/ACK arrays only, §3.2-3.3)",
            s.algorithm,
            x.via.name()
        )));
    }
    Ok(())
}

/// Price schedule `s` with ranks on the physical SPEs `placement`; `dtype` sets gamma.
pub fn price(p: &ModelParams, s: &Schedule, placement: &[usize], dtype: &str) -> Result<Price> {
    if placement.len() != s.p {
        return Err(config_err(format!("{}: the placement names {} SPEs, the schedule has {}", s.algorithm, placement.len(), s.p)));
    }
    check_covered(s)?;
    let chips: Vec<usize> = placement.iter().map(|spe| spe / 8).collect();
    let gamma = if s.reduces() { p.gamma_ns_per_byte(dtype)? } else { 0.0 };
    let mut cx = Ctx { p, chips, gamma, extrapolated: false };
    let barrier = if s.op == Op::Broadcast { Some(algorithms::find("barrier.rdb")?.schedule(s.p, 0, 0)?) } else { None };
    let mut state = State::new(s.p);
    for _ in 0..CALLS {
        run(&mut cx, s, &mut state);
        if let Some(b) = &barrier {
            run(&mut cx, b, &mut state);
        }
    }
    let latency_ns = state.t.iter().copied().fold(0.0, f64::max) / CALLS as f64;
    Ok(Price { latency_ns, extrapolated: cx.extrapolated })
}

/// Calls priced back to back, as `coll::measure` times them (each rank's loop of calls over
/// the count, the slowest rank's): a rank starts its next call as soon as its own part of the
/// last is done, so a call's tail (the last ACKs) overlaps the next call's first rounds.
pub const CALLS: usize = 10;

/// What carries from one call to the next: each rank's clock, its ramps' queues, and when its
/// last note to each peer landed (`landed[from][to]`).
struct State {
    t: Vec<f64>,
    src_free: Vec<[f64; 2]>,
    dst_free: Vec<f64>,
    landed: Vec<Vec<f64>>,
}

impl State {
    fn new(n: usize) -> State {
        State { t: vec![0.0; n], src_free: vec![[f64::MIN; 2]; n], dst_free: vec![f64::MIN; n], landed: vec![vec![f64::MIN; n]; n] }
    }
}

/// One call, from each rank's clock in `state`; leaves each rank's clock at the end of its part.
fn run(cx: &mut Ctx, s: &Schedule, state: &mut State) {
    let n = s.p;
    let State { t, src_free, dst_free, landed } = state;
    // ACK arrival times owed to each rank for its sends of the previous round.
    let mut owed: Vec<f64> = vec![0.0; n];
    let mut all_owed: Vec<f64> = vec![0.0; n];
    let shared = shared_sends(cx, s);
    for round in &s.rounds {
        // (1) start: previous round done and, ordered, its readers have acknowledged.
        let start: Vec<f64> = (0..n).map(|r| if s.ordered { t[r].max(owed[r]) } else { t[r] }).collect();
        // (2) announcements.
        let mut addr = vec![0.0f64; round.len()];
        let mut issue = start.clone();
        let mut announced = start.clone();
        for (i, x) in round.iter().enumerate().filter(|(_, x)| !x.is_local()) {
            let at = issue[x.src].max(landed[x.src][x.dst]);
            addr[i] = at + cx.note_ns(x.src, x.dst);
            landed[x.src][x.dst] = addr[i];
            issue[x.src] = at + cx.note_gap();
            announced[x.src] = announced[x.src].max(at);
        }
        // (3) local copies, then gets in issue order.
        let mut ready = announced.clone();
        for x in round.iter().filter(|x| x.is_local()) {
            ready[x.dst] += cx.p.copy_ns_per_byte() * x.bytes as f64;
        }
        let done = gets(cx, round, &addr, &ready, &shared, src_free, dst_free);
        // (4) acknowledgements, (5) reductions after our own readers' ACKs.
        let mut ack_issue = done.clone();
        let mut new_owed = vec![0.0f64; n];
        for x in round.iter().filter(|x| !x.is_local() && x.action != Action::Notify) {
            let at = ack_issue[x.dst].max(landed[x.dst][x.src]);
            let arrive = at + cx.note_ns(x.dst, x.src);
            landed[x.dst][x.src] = arrive;
            ack_issue[x.dst] = at + cx.note_gap();
            new_owed[x.src] = new_owed[x.src].max(arrive);
        }
        for r in 0..n {
            let mut end = done[r];
            let reduced: u32 = round.iter().filter(|x| x.dst == r && x.action == Action::Reduce).map(|x| x.bytes).sum();
            if reduced > 0 {
                end = end.max(new_owed[r]) + cx.gamma * reduced as f64;
            }
            t[r] = end;
            all_owed[r] = all_owed[r].max(new_owed[r]);
        }
        owed = new_owed;
    }
    for r in 0..n {
        t[r] = t[r].max(all_owed[r]);
    }
}

/// Unordered rounds: a rank announces every send after its last receive at once, so those
/// readers share its ramp round-robin (the seed's priority inversion, §5.2) and each finishes as
/// the last of them would; readers on the other chip form their own queue (as for g1/g2). For
/// each rank, how many share (same chip, other chip); 1 for ordered rounds.
fn shared_sends(cx: &Ctx, s: &Schedule) -> Vec<[usize; 2]> {
    (0..s.p)
        .map(|r| {
            if s.ordered {
                return [1, 1];
            }
            let last = s.rounds.iter().rposition(|rd| rd.iter().any(|x| x.dst == r && !x.is_local())).map_or(0, |k| k + 1);
            let sends = s.rounds[last..].iter().flatten().filter(|x| x.src == r && !x.is_local() && x.action != Action::Notify);
            let mut count = [0, 0];
            for x in sends {
                count[cx.cross(x.src, x.dst) as usize] += 1;
            }
            [count[0].max(1), count[1].max(1)]
        })
        .collect()
}

/// BIF messages at once in a round: crossing transfers from distinct sources (one source's
/// readers already queue on its ramp), as in the butterfly benchmark where every source differs.
fn crossing_sources(cx: &Ctx, round: &[Xfer]) -> u32 {
    let mut srcs: Vec<usize> =
        round.iter().filter(|x| x.action != Action::Notify && !x.is_local() && cx.cross(x.src, x.dst)).map(|x| x.src).collect();
    srcs.sort_unstable();
    srcs.dedup();
    srcs.len() as u32
}

/// Sources read from both chips in a round.
fn mixed_sources(cx: &Ctx, round: &[Xfer], n: usize) -> Vec<bool> {
    let mut near = vec![false; n];
    let mut far = vec![false; n];
    for x in round.iter().filter(|x| !x.is_local() && x.action != Action::Notify) {
        if cx.cross(x.src, x.dst) {
            far[x.src] = true;
        } else {
            near[x.src] = true;
        }
    }
    (0..n).map(|r| near[r] && far[r]).collect()
}

/// The round's receives, in issue order (a reader takes its notes in turn, each once its ADDR
/// has come): when each reader is done, given when each is `ready` and each transfer's `addr`
/// arrival. The ramps' queues carry over in `src_free` and `dst_free`.
fn gets(
    cx: &mut Ctx,
    round: &[Xfer],
    addr: &[f64],
    ready: &[f64],
    shared: &[[usize; 2]],
    src_free: &mut [[f64; 2]],
    dst_free: &mut [f64],
) -> Vec<f64> {
    let n = ready.len();
    let crossing = crossing_sources(cx, round);
    let mixed = mixed_sources(cx, round, n);
    let mut issue: Vec<(f64, usize)> = Vec::new();
    let mut next_issue = ready.to_vec();
    for (i, x) in round.iter().enumerate().filter(|(_, x)| !x.is_local()) {
        let at = next_issue[x.dst].max(addr[i]);
        next_issue[x.dst] = at;
        issue.push((at, i));
    }
    issue.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut done = ready.to_vec();
    for &(at, i) in &issue {
        let x = round[i];
        let end = if x.action == Action::Notify {
            at
        } else {
            let cross = cx.cross(x.src, x.dst);
            let sg = cx.source_gap(x.src, x.dst, mixed[x.src], x.bytes);
            let mut end = at + cx.get_ns(x.src, x.dst, x.bytes) + (shared[x.src][cross as usize] - 1) as f64 * sg;
            if cross {
                end += cx.congestion(x.bytes, crossing);
            }
            let kg = {
                let v = cx.p.g_kielmann_ns.clone();
                cx.look(&v, x.bytes)
            };
            let queue = &mut src_free[x.src][cross as usize];
            end = end.max(*queue + sg).max(dst_free[x.dst] + kg);
            *queue = end;
            dst_free[x.dst] = end;
            end
        };
        done[x.dst] = done[x.dst].max(end);
    }
    done
}
