//! Seed 000's collective findings (§4, with seed 002 §5.2's signal barriers) as claims of
//! `cellblade reproduce`, one file per operation; here the sweep they share and the helpers that
//! read it.
//!
//! | file | what |
//! |---|---|
//! | `barriers.rs` | barrier latencies, the best barrier per SPE count, the CML barrier |
//! | `broadcasts.rs` | the best broadcast per size, opt against simple, against CML |
//! | `reductions.rs` | reduce, all-reduce and all-gather: the best per size, the CML speedups |

mod barriers;
mod broadcasts;
mod reductions;

pub use barriers::claims as barriers;
pub use broadcasts::claims as broadcasts;
pub use reductions::{claims_of as reductions_of, part as reduction_part, PARTS as REDUCTION_PARTS};

use std::collections::BTreeMap;

use crate::error::Result;
use crate::evidence::rules;
use crate::evidence::Claim;
use crate::machine::config::MachineFile;

/// The claim, unless a collective run behind it (in `tables`) computed a wrong result: then it
/// is `unverified` and not counted, whatever its timing says.
fn checked(c: Claim, tables: &[&Table]) -> Claim {
    let bad: Vec<&String> = tables.iter().flat_map(|t| &t.unverified).collect();
    if bad.is_empty() {
        return c;
    }
    let note = format!("unverified runs: {}", bad.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "));
    c.unverified(note)
}

/// Latencies (ns) by (algorithm, size), and the runs whose result was wrong.
#[derive(Default)]
struct Table {
    lat: BTreeMap<(String, u32), f64>,
    unverified: Vec<String>,
}

impl std::ops::Deref for Table {
    type Target = BTreeMap<(String, u32), f64>;
    fn deref(&self) -> &Self::Target {
        &self.lat
    }
}

/// Latency (ns) of each algorithm at each size on `p` SPEs (identity placement, root 0).
fn sweep(file: &MachineFile, p: usize, names: &[&str], sizes: &[u32], iterations: u32) -> Result<Table> {
    sweep_once(file, p, names, sizes, iterations, &mut Runs::default())
}

/// The runs made so far, by (SPEs, algorithm, size): their latency (ns) and whether their
/// result was right. A run is deterministic, so a sweep can take it from here.
#[derive(Default)]
struct Runs(BTreeMap<(usize, String, u32), (f64, bool)>);

/// [`sweep`] at `iterations` every time, taking the runs already in `runs` from there.
fn sweep_once(file: &MachineFile, p: usize, names: &[&str], sizes: &[u32], iterations: u32, runs: &mut Runs) -> Result<Table> {
    use crate::coll::{
        algorithms::find,
        data::{Dtype, ReduceOp},
        measure, Setup,
    };
    let setup = Setup { root: 0, placement: (0..p).collect(), dtype: Dtype::Int32, rop: ReduceOp::Sum, iterations };
    let mut out = Table::default();
    for name in names {
        let alg = find(name)?;
        for &size in sizes {
            let fits = |s: &crate::coll::schedule::Schedule| crate::coll::lower::Layout::footprint(s) <= u64::from(file.spu.ls_bytes);
            if alg.schedule(p, 0, size).is_ok_and(|s| fits(&s)) {
                let key = (p, name.to_string(), size);
                let (latency_ns, verified) = match runs.0.get(&key) {
                    Some(&run) => run,
                    None => {
                        let r = measure(file, alg, size, &setup)?;
                        *runs.0.entry(key).or_insert((r.latency_ns, r.verified))
                    }
                };
                if !verified {
                    out.unverified.push(format!("{name} on {p} SPEs at {size} B"));
                }
                out.lat.insert((name.to_string(), size), latency_ns);
            }
        }
    }
    Ok(out)
}

/// Seed 002 §5.2's signal barriers on 16 SPEs: (one root, a root per chip), in ns.
pub fn signal_barriers(file: &MachineFile, iterations: u32) -> Result<(f64, f64)> {
    let t = sweep(file, 16, &["barrier.ota_signal", "barrier.two_root_signal"], &[0], iterations)?;
    Ok((t[&("barrier.ota_signal".to_string(), 0)], t[&("barrier.two_root_signal".to_string(), 0)]))
}

/// The fastest of `names` at `size`.
fn best_at(t: &BTreeMap<(String, u32), f64>, names: &[&str], size: u32) -> (String, f64) {
    names.iter().filter_map(|n| t.get(&(n.to_string(), size)).map(|v| (n.to_string(), *v))).fold((String::new(), f64::MAX), |a, b| {
        if b.1 < a.1 {
            b
        } else {
            a
        }
    })
}

/// Is `name` best (by [`rules::best_latency`]) among `names` at `size`?
fn is_best(t: &BTreeMap<(String, u32), f64>, names: &[&str], size: u32, name: &str) -> bool {
    t.get(&(name.to_string(), size)).is_some_and(|&v| rules::best_latency(v, best_at(t, names, size).1))
}

/// (ours, theirs) at each of `sizes` where both ran.
fn pairs(t: &BTreeMap<(String, u32), f64>, ours: &str, theirs: &str, sizes: &[u32]) -> Vec<(f64, f64)> {
    sizes.iter().filter_map(|&s| Some((*t.get(&(ours.to_string(), s))?, *t.get(&(theirs.to_string(), s))?))).collect()
}

fn winners(t: &BTreeMap<(String, u32), f64>, names: &[&str], sizes: &[u32]) -> String {
    winners_labelled(t, names, sizes, |s| s)
}

/// [`winners`], each size shown as `label` makes it (an all-gather's total from its block).
/// The others that also count as best there ([`rules::best_latency`]) follow the fastest with
/// how much slower they are, so a verdict that rests on a near tie shows it.
fn winners_labelled(t: &BTreeMap<(String, u32), f64>, names: &[&str], sizes: &[u32], label: impl Fn(u32) -> u32) -> String {
    let short = |n: &str| n.split('.').nth(1).unwrap_or("").to_string();
    sizes
        .iter()
        .map(|&s| (s, best_at(t, names, s)))
        .filter(|(_, (n, _))| !n.is_empty())
        .map(|(s, (n, fastest))| {
            let ties: String = names
                .iter()
                .filter(|&&o| o != n)
                .filter_map(|&o| t.get(&(o.to_string(), s)).filter(|&&v| rules::best_latency(v, fastest)).map(|v| (o, v)))
                .map(|(o, v)| format!(" = {} (+{:.1}%)", short(o), 100.0 * (v / fastest - 1.0)))
                .collect();
            format!("{}: {}{ties}", label(s), short(&n))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

const S4: &str = "seed 000 §4";

#[cfg(test)]
mod tests {
    use super::*;

    /// Sweeps sharing their runs give each sweep's own figures: the runs are told apart by SPE
    /// count, algorithm and size (a key missing one would hand a 4-SPE sweep 2-SPE figures).
    #[test]
    fn sweeps_that_share_runs_give_their_own_figures() {
        let file = crate::machine::config::load(crate::machine::config::preset_text("qs20").unwrap(), &[]).unwrap();
        let names = ["allreduce.rdb", "allreduce.reduce_bcast"];
        let alone = |p: usize, sizes: &[u32]| sweep(&file, p, &names, sizes, 2).unwrap().lat;
        let mut runs = Runs::default();
        let mut shared = |p: usize, sizes: &[u32]| sweep_once(&file, p, &names, sizes, 2, &mut runs).unwrap().lat;
        let (a, b, c) = (shared(2, &[64, 128]), shared(4, &[128, 256]), shared(2, &[128]));
        assert_eq!(runs.0.len(), 8, "each run simulated once");
        assert_eq!((a, b, c), (alone(2, &[64, 128]), alone(4, &[128, 256]), alone(2, &[128])));
        assert_ne!(alone(2, &[128]), alone(4, &[128]), "the SPE count matters here");
    }

    /// A size where another algorithm is within the rule for "best" shows it beside the
    /// fastest; one just outside the rule is not shown.
    #[test]
    fn winners_show_the_near_ties_that_count_as_best() {
        let names = ["x.a", "x.b", "x.c"];
        let t: BTreeMap<(String, u32), f64> =
            [("x.a", 64, 100.0), ("x.b", 64, 101.5), ("x.c", 64, 103.0), ("x.a", 128, 300.0), ("x.b", 128, 200.0), ("x.c", 128, 250.0)]
                .iter()
                .map(|&(n, s, v)| ((n.to_string(), s), v))
                .collect();
        assert_eq!(winners(&t, &names, &[64, 128]), "64: a = b (+1.5%), 128: b");
        assert_eq!(winners_labelled(&t, &names, &[64], |s| s * 8), "512: a = b (+1.5%)");
    }
}
