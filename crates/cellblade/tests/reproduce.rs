//! The seeds' findings, re-checked in the full form `cellblade reproduce` runs: every claim
//! holds except those the README lists as not reproduced, the claims the model cannot evaluate
//! are "not modelled", and no claim rests on a run with a wrong result. The lists are kept
//! honest in both directions: a listed claim that holds, disappears or changes status fails.

use cellblade::evidence::claim::SKIPPED;
use cellblade::evidence::{claim_counts, rules, tally, ClaimCounts};
use cellblade::machine::config::{load, preset_text};
use cellblade::machine::parameters;
use cellblade::reproduce::{run_all, QUICK_DIFFERS};

const NOT_REPRODUCED: &[&str] = &[
    "centralized atomic-increment barrier, 8 SPEs",
    "barrier.rdb on 8 SPEs is 25% below CML's (also rdb)",
    "barrier.rdb on 16 SPEs is 12.5% below CML's (also rdb)",
    "barrier, 3 to 7 SPEs (not powers of two): Bruck and one-to-all are the best",
    "reduce, 16 SPEs: Rabenseifner beats binomial above 4096 B, binomial best up to it",
    "ignoring BIF contention alone errs up to 56%",
    "signal barrier, 16 SPEs, one root: about 2700 ns",
    "reduce, 8 SPEs: local-store and mailbox binomial differ by a constant at every size",
    "bruck2: Identity good, a little below EvenOdd",
    "Bruck all-gather: Identity and Leap2 a little below EvenOdd, Overlap below both",
    "barrier, 15 and 16 SPEs: one-to-all is worse than rdb and Bruck",
    "reduce, 16 SPEs: similar gaps to CML as on 8 SPEs (19 times at 16 and 32 KB)",
    "all-reduce, 16 SPEs: hybridA-2-8 is best at 256 B",
    "all-reduce, 16 SPEs: rdb with a barrier every two rounds is best at a few sizes from 512 B",
    "all-reduce, 16 SPEs: reduce-scatter then rdb all-gather or gather plus broadcast perform alike at 32 KB",
    "barrier.ota_signal is slightly slower than barrier.ota (extra control code, the OR)",
    "broadcast, 16 SPEs: two-to-all best for small sizes, hybrid segmented binomial above 2 KB",
    "ordered (opt) binomial broadcast beats simple, by up to 42%",
    "all-reduce, 8 SPEs: above 256 B local-store rdb degrades (EIB stress), the mailbox gap shrinks",
    "all-reduce, 8 SPEs: rdb with a barrier every two rounds is best at a few sizes from 512 B",
    "reduce, 8 SPEs: 19 times faster than CML at 16 and 32 KB",
    "all-reduce, 8 SPEs: up to 19.21 times faster than CML",
    "all-reduce, 16 SPEs: up to 9.48 times faster than CML",
    "all-reduce, 16 SPEs: hybrid_a_3_4 up to 7.3 times faster than CML",
    "all-reduce, 16 SPEs: hybrid_b_3_4 up to 11 times faster than CML",
    "all-gather, 16 SPEs: rdb and gather plus broadcast perform alike at 32 KB",
    "all-reduce, 16 SPEs: HybridB-3-4 up to 15% better than reduce-scatter plus all-gather",
    "ring pattern: Overlap gets under half the best placement",
    "latency climbs above 256 B and above two BIF messages",
    "bcast pattern takes about 17 us on every placement (limit 15 us)",
    "scatter pattern takes about 5 us on every placement (limit 4.375 us)",
    "the seed's equations: 94% of predictions within 10% of the measured time",
    "the seed's equations: every prediction within 15%",
    "MPI ping-pong: maximum throughput 4.48 GB/s with every SPE of a chip in exchanging pairs",
    "on many patterns the best placement is close to twice as good as the default's average",
    "a good placement is over twice as fast as a poor one",
    "broadcast, 8 SPEs: one-to-all best up to 2 KB, segmented binomial above 2-4 KB",
    "non-Cell-specific models (Kielmann's g, no C) err up to 140%",
    "broadcast up to 64 SPEs (4 blades) predicted within 13%",
    "a model of the seed's parameters: 94% within 10%, all within 15%",
    "bruck2: EvenOdd best; Ring and Leap2 poor",
    "EvenOdd is good on every pattern",
];

/// Every claim is modelled now that the CML-style baseline has a barrier (`barrier.cml`).
const NOT_MODELLED: &[&str] = &[];

#[test]
fn seed_claims_hold_except_the_listed_ones() {
    let claims = run_all(&load(preset_text("qs20").unwrap(), &[]).unwrap(), false).unwrap();
    let mut surprises = Vec::new();
    for c in &claims {
        let want = if NOT_REPRODUCED.contains(&c.claim.as_str()) {
            "does not hold"
        } else if NOT_MODELLED.contains(&c.claim.as_str()) {
            "not modelled"
        } else {
            "holds"
        };
        if c.status != want || c.holds != (want == "holds") {
            surprises.push(format!("{}: {} (listed: {want}; {})", c.claim, c.status, c.simulated));
        }
    }
    for listed in NOT_REPRODUCED.iter().chain(NOT_MODELLED) {
        if !claims.iter().any(|c| c.claim == *listed) {
            surprises.push(format!("listed claim {listed} no longer exists"));
        }
    }
    assert!(surprises.is_empty(), "{}", surprises.join("\n"));
    let mut ids: Vec<&str> = claims.iter().map(|c| c.claim.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), claims.len(), "claims must be unique");
    assert_eq!(tally(&claims), [claims.len() - NOT_REPRODUCED.len() - NOT_MODELLED.len(), NOT_REPRODUCED.len(), NOT_MODELLED.len(), 0]);
    the_counts_say_which_claims_could_tell_contention_from_none(&claims);
}

/// The predictions that hold and that a blade without contention fails: the only claims that
/// tell the contention model from none (issue 21): ring contention in seed 001's affinity
/// patterns and the 15-SPE barrier, and BIF congestion in seed 000's 16-SPE hybrids and seed
/// 003's congestion figures.
const DISCRIMINATING: &[&str] = &[
    "ring pattern: Ring is poor (all transfers one way), Leap2 good",
    "rd1: overlap alone is poor (all paths half-way), the other named placements good",
    "rd2: leap2 alone is poor (all paths half-way), the other named placements good",
    "rd3: ring alone is poor (all paths half-way), the other named placements good",
    "Bruck all-gather: EvenOdd best, Ring worst",
    "recursive-doubling all-gather: Ring, Overlap and Leap2 worse than EvenOdd and Identity",
    "barrier, 15 SPEs: Bruck and rdb take the same time",
    "all-reduce, 16 SPEs: HybridB-2-8 best above 2 KB, HybridB-3-4 above 4 KB",
    "all-gather, 16 SPEs: hybrid-3-4 best above 4 KB, up to 35% below rdb",
    "all-gather, 16 SPEs: rdb best up to 2 KB; at 4 KB hybrid-2-8 beats rdb",
    "congestion adds up to 218% of the uncontended latency",
];

/// Claims that hold with some of the draw seeds of the arbiter and not with the others, so do
/// not hold: Leap2 on bruck2 is at 74.9% of the best with one seed and 75.0% with another
/// ("poor" is under 75%), EvenOdd's worst pattern at 93% and 87% ("good" is 90%), and the
/// fitted schedule price's worst error at 16% and 14% ("all within 15%").
const DEPENDS_ON_DRAWS: &[&str] = &[
    "bruck2: EvenOdd best; Ring and Leap2 poor",
    "EvenOdd is good on every pattern",
    "a model of the seed's parameters: 94% within 10%, all within 15%",
];

/// Claims a machine-file value or a model was chosen on: they hold by construction, or (the
/// signal barrier "slightly slower" than the DMA one, which only the value fitted on the 400 ns
/// row makes slower at all, and by 83%: not "slightly") are in sample all the same.
const FITTED: &[&str] = &[
    "barrier.ota_signal (OR-mode signal registers) on 8 SPEs takes 400 ns",
    "barrier.ota_signal is slightly slower than barrier.ota (extra control code, the OR)",
    "barrier.rdb on 8 SPEs is 25% below CML's (also rdb)",
    "a model of the seed's parameters: 94% within 10%, all within 15%",
    "MPI ping-pong: 0-byte latency about 0.65 us",
];

/// Which claims are fitted and which could tell the contention model from none, and the
/// counts that follow (one full run serves both tests' checks: it is the slowest test).
fn the_counts_say_which_claims_could_tell_contention_from_none(claims: &[cellblade::evidence::Claim]) {
    let named = |pred: &dyn Fn(&cellblade::evidence::Claim) -> bool| {
        claims.iter().filter(|c| pred(c)).map(|c| c.claim.as_str()).collect::<Vec<_>>()
    };
    assert_eq!(named(&|c| c.fitted), FITTED);
    // A machine-file key fitted on a claim (not a calibration row) names it, and the claim
    // says so.
    for key in parameters::PARAMETERS.iter().filter(|p| p.origin == parameters::Origin::Fitted) {
        if let Some(c) = claims.iter().find(|c| c.claim == key.source) {
            assert!(c.fitted && c.note.contains(key.key), "{}: claim '{}' is not marked as fitting it: {}", key.key, c.claim, c.note);
        }
    }
    let mut redrawn = named(&|c| c.depends_on_draws);
    redrawn.sort();
    let mut listed = DEPENDS_ON_DRAWS.to_vec();
    listed.sort();
    assert_eq!(redrawn, listed);
    assert_eq!(named(&|c| !c.fitted && c.holds && c.without_contention == Some(false)), DISCRIMINATING);
    let counted = claims.len() - NOT_MODELLED.len();
    // A fitted claim that does not hold is listed in both lists: subtract it once.
    let not_reproduced = NOT_REPRODUCED.iter().filter(|c| !FITTED.contains(c)).count();
    let hold = counted - not_reproduced - FITTED.len();
    assert_eq!(
        claim_counts(claims),
        ClaimCounts {
            claims: claims.len(),
            fitted: FITTED.len(),
            predictions: counted - FITTED.len(),
            predictions_hold: hold,
            predictions_hold_discriminating: DISCRIMINATING.len(),
        }
    );
}

/// `reproduce --quick`'s verdicts are pinned as the full run's are: each judged claim has the
/// full run's status except those `QUICK_DIFFERS` names (which the quick summary prints), and
/// the counts are these. A claim that changes in either form fails one of the two tests.
#[test]
fn quick_verdicts_are_the_full_runs_except_the_listed_ones() {
    let claims = run_all(&load(preset_text("qs20").unwrap(), &[]).unwrap(), true).unwrap();
    let mut surprises = Vec::new();
    for c in claims.iter().filter(|c| c.status != SKIPPED) {
        let full = if NOT_REPRODUCED.contains(&c.claim.as_str()) { "does not hold" } else { "holds" };
        let want = match QUICK_DIFFERS.iter().find(|d| d.0 == c.claim) {
            Some(d) => {
                assert_eq!(d.1, full, "{}: QUICK_DIFFERS gives the full run's status", c.claim);
                if full == "holds" {
                    "does not hold"
                } else {
                    "holds"
                }
            }
            None => full,
        };
        if c.status != want {
            surprises.push(format!("{}: {} with --quick (expected {want}; {})", c.claim, c.status, c.simulated));
        }
    }
    for (listed, _) in QUICK_DIFFERS {
        if !claims.iter().any(|c| c.claim == *listed && c.status != SKIPPED) {
            surprises.push(format!("listed claim {listed} is not judged by --quick"));
        }
    }
    assert!(surprises.is_empty(), "{}", surprises.join("\n"));
    assert_eq!(
        claim_counts(&claims),
        ClaimCounts { claims: 82, fitted: 4, predictions: 72, predictions_hold: 38, predictions_hold_discriminating: 11 }
    );
}

#[test]
fn each_rule_draws_its_line_where_the_readme_says() {
    assert!(rules::over(2.01, 2.0) && !rules::over(2.0, 2.0) && rules::under(2.0, 2.0) && !rules::under(2.01, 2.0));
    assert!(rules::about(110.0, 100.0) && rules::about(90.0, 100.0) && !rules::about(110.1, 100.0) && !rules::about(89.9, 100.0));
    assert_eq!(rules::ABOUT, rules::MEASURED, "one tolerance for 'about' in calibrate and reproduce");
    assert!(rules::up_to(0.40, 0.42) && !rules::up_to(-0.1, -0.1) && !rules::up_to(0.37, 0.42));
    assert!(rules::best_latency(102.0, 100.0) && !rules::best_latency(102.1, 100.0));
    assert!(rules::best_ratio(0.98) && !rules::best_ratio(0.979));
    assert!(
        rules::constant(&[100.0, 110.0, 105.0])
            && !rules::constant(&[100.0, 110.1])
            && !rules::constant(&[])
            && !rules::constant(&[-1.0, -1.0])
    );
    assert!(rules::same(109.9, 100.0) && rules::same(100.0, 109.9) && !rules::same(111.0, 100.0));
    assert!(
        rules::beats_everywhere(&[(1.0, 2.0), (3.0, 4.0)])
            && !rules::beats_everywhere(&[(1.0, 2.0), (4.0, 4.0)])
            && !rules::beats_everywhere(&[])
    );
    assert!(rules::well_under(74.9, 100.0) && !rules::well_under(75.0, 100.0));
    assert!(rules::good(0.9) && !rules::good(0.899) && rules::poor(0.749) && !rules::poor(0.75));
}
