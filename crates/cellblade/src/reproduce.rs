//! `cellblade reproduce`: the seeds' findings, each stated as a claim with its source, re-run
//! on the simulated blade and marked as holding or not. Seed 001 (affinity) today; seed 000's
//! collectives join when the collective library lands.
//!
//! Words used in the claims: on one pattern, a placement is *good* when its minimum bandwidth
//! is at least 90% of the best named placement's, and *poor* when it is under 75%.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::affinity::pattern::{build, default_size};
use crate::affinity::placement::{named, Placement};
use crate::affinity::{run, Choice, PlacementResult, REPS};
use crate::error::Result;
use crate::machine::config::MachineFile;

#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    pub claim: String,
    pub source: String,
    pub published: String,
    pub simulated: String,
    pub holds: bool,
    pub note: String,
}

const GOOD: f64 = 0.90;
const POOR: f64 = 0.75;

struct PatternRun {
    by_name: BTreeMap<String, PlacementResult>,
}

impl PatternRun {
    fn min(&self, name: &str) -> f64 {
        self.by_name[name].min_bandwidth_gbps
    }
    fn best_named(&self) -> (String, f64) {
        self.by_name
            .iter()
            .filter(|(n, _)| *n != "default")
            .map(|(n, r)| (n.clone(), r.min_bandwidth_gbps))
            .fold((String::new(), f64::MIN), |a, b| if b.1 > a.1 { b } else { a })
    }
    fn ratio(&self, name: &str) -> f64 {
        self.min(name) / self.best_named().1
    }
    fn summary(&self, names: &[&str]) -> String {
        let (b, bv) = self.best_named();
        let mut parts: Vec<String> = names.iter().map(|n| format!("{n} {:.1}", self.min(n))).collect();
        parts.push(format!("best {b} {bv:.1} GB/s"));
        parts.join(", ")
    }
}

fn claim(claim: &str, source: &str, published: &str, simulated: String, holds: bool, note: &str) -> Claim {
    Claim { claim: claim.into(), source: source.into(), published: published.into(), simulated, holds, note: note.into() }
}

pub fn run_all(file: &MachineFile, quick: bool) -> Result<Vec<Claim>> {
    let (trials, reps) = if quick { (3, 10) } else { (8, REPS) };
    let mut runs = BTreeMap::new();
    for name in ["ring", "rd1", "rd2", "rd3", "bruck2", "binomial3", "bcast", "scatter", "bruck", "rd"] {
        let pattern = build(name, 8, default_size(name)?)?;
        let mut by_name = BTreeMap::new();
        for pl in named() {
            by_name.insert(pl.to_string(), run(file, &pattern, &Choice::Fixed(pl.into(), Placement::named(pl, 8)?), 8, trials, reps, 1)?);
        }
        by_name.insert("default".into(), run(file, &pattern, &Choice::Default, 8, trials, reps, 1)?);
        runs.insert(name, PatternRun { by_name });
    }
    let mut out = Vec::new();
    let s5 = "seed 001 §5";
    let ring = &runs["ring"];
    out.push(claim("ring pattern: Overlap gets under half the best placement", "seed 001 §5, Fig. 5 left", "Overlap < 50% of best",
        format!("Overlap {:.0}% of best ({})", 100.0 * ring.ratio("overlap"), ring.summary(&["overlap"])), ring.ratio("overlap") < 0.5, ""));
    out.push(claim("ring pattern: Ring is poor (all transfers one way), Leap2 good", "seed 001 §5, Fig. 5 left", "Ring poor, Leap2 good",
        ring.summary(&["ring", "leap2"]), ring.ratio("ring") < POOR && ring.ratio("leap2") >= GOOD, ""));
    for (pat, bad, fig) in [("rd1", "overlap", "Fig. 5 right"), ("rd2", "leap2", "Fig. 6 left"), ("rd3", "ring", "Fig. 6 right")] {
        let r = &runs[pat];
        let others_good = named().filter(|n| *n != bad).all(|n| r.ratio(n) >= GOOD);
        out.push(claim(&format!("{pat}: {bad} alone is poor (all paths half-way), the other named placements good"), &format!("seed 001 §5, {fig}"),
            &format!("{bad} poor, others good"), r.summary(&named().collect::<Vec<_>>()), r.ratio(bad) < POOR && others_good, ""));
    }
    let b2 = &runs["bruck2"];
    out.push(claim("bruck2: EvenOdd best; Ring and Leap2 poor", "seed 001 §5, Fig. 7 left", "EvenOdd best, Ring and Leap2 poor",
        b2.summary(&["evenodd", "ring", "leap2"]), b2.ratio("evenodd") >= 0.999 && b2.ratio("ring") < POOR && b2.ratio("leap2") < POOR, ""));
    let b3 = &runs["binomial3"];
    out.push(claim("binomial3: every placement performs well", "seed 001 §5, Fig. 7 right", "all good",
        b3.summary(&named().collect::<Vec<_>>()), named().all(|n| b3.ratio(n) >= GOOD), ""));
    for (pat, published, limit) in [("bcast", 17.0, 15.0), ("scatter", 5.0, 4.375)] {
        let r = &runs[pat];
        let lats: Vec<f64> = named().map(|n| r.by_name[n].latency_us).collect();
        let (lo, hi) = (lats.iter().copied().fold(f64::MAX, f64::min), lats.iter().copied().fold(0.0, f64::max));
        let mid = (lo + hi) / 2.0;
        out.push(claim(&format!("{pat} pattern takes about {published} us on every placement (limit {limit} us)"), s5,
            &format!("~{published} us, all placements alike; limit {limit} us"),
            format!("{lo:.2} to {hi:.2} us"), (mid - published).abs() <= 0.15 * published && hi / lo < 1.1 && lo >= limit,
            "about: within 15%; alike: within 10% of each other"));
    }
    let bruck = &runs["bruck"];
    out.push(claim("Bruck all-gather: EvenOdd best, Ring worst", "seed 001 §5, Fig. 8 left", "EvenOdd best, Ring worst",
        bruck.summary(&["evenodd", "ring"]),
        bruck.ratio("evenodd") >= 0.999 && named().all(|n| bruck.min("ring") <= bruck.min(n)), ""));
    let rd = &runs["rd"];
    out.push(claim("recursive-doubling all-gather: EvenOdd and Identity best", "seed 001 §5, Fig. 8 right", "EvenOdd and Identity best",
        rd.summary(&["evenodd", "identity"]), rd.ratio("evenodd") >= 0.98 && rd.ratio("identity") >= 0.98, "best: within 2% of the best named"));
    let worst_evenodd = runs.iter().map(|(n, r)| (n.to_string(), r.ratio("evenodd"))).fold((String::new(), f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
    out.push(claim("EvenOdd is good on every pattern", "seed 001 §5, §7", "EvenOdd good everywhere",
        format!("lowest: {:.0}% of the best on {}", 100.0 * worst_evenodd.1, worst_evenodd.0), worst_evenodd.1 >= GOOD, ""));
    // Seed 001 §1: good placements give about twice the default's average performance, and
    // more predictable performance (lower standard deviation). Compared on average over patterns.
    let avg = |f: &dyn Fn(&PatternRun) -> f64| runs.values().map(f).sum::<f64>() / runs.len() as f64;
    let (dmin, emin) = (avg(&|r| r.min("default")), avg(&|r| r.min("evenodd")));
    let (dsd, esd) = (avg(&|r| r.by_name["default"].stddev_gbps), avg(&|r| r.by_name["evenodd"].stddev_gbps));
    out.push(claim("the default placement is worse on average and varies more than EvenOdd", "seed 001 §1, §4, §5",
        "default lower, larger standard deviation",
        format!("mean over patterns: default {dmin:.1} GB/s (sd {dsd:.2}), EvenOdd {emin:.1} GB/s (sd {esd:.2})"),
        dmin < emin && dsd > esd, ""));
    Ok(out)
}
