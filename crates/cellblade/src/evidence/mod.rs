//! The evidence layer: a claim or a calibration row, its rule and its verdict, defined once,
//! below the papers' modules. Each paper's claims and rows live beside the code they check
//! (`coll/claims/`, `affinity/claims.rs`, `affinity/rows.rs`, `stats/rows.rs`,
//! `model/claims.rs`, `model/cluster.rs`, `mpi/claims.rs`); `reproduce` and `calibrate` only
//! gather them. No module below `reproduce` and `calibrate` imports either (a test in
//! `tests/layers.rs` scans the sources).
//!
//! | file | what |
//! |---|---|
//! | `claim.rs` | [`Claim`]: a finding stated in words, its status, fitted, its verdict without contention |
//! | `row.rs` | [`Row`]: a published measurement beside the simulated one |
//! | `rules.rs` | one rule per kind of claim or row |
//! | `counts.rs` | the tallies both `calibrate` and `reproduce` report |
//!
//! The kinds of claim and row, one rule each ([`rules`]), and where each is used:
//! - *a published measurement* (a number in a table or the text, "takes X", "X% less", "a
//!   factor of X"): within 10% ([`rules::measured`]); calibration `value` rows, seed 004's
//!   ping-pong table and matrix-multiplication rates, seed 000's barrier latencies, rdb's 25%
//!   and 12.5% below CML's barrier, the 19x reduce speedup;
//! - *"about X", "around X"*: within 10% too ([`rules::about`], the same tolerance in
//!   calibrate and reproduce); seed 002's signal barriers, seed 001's affinity latencies and
//!   "close to twice";
//! - *"up to X"*: the largest over the claim's range is about X, and a gain at all
//!   ([`rules::up_to`]); the opt broadcast's 42%, the CML speedups, the hybrids' 35% and 15%,
//!   seed 003's 218%, 140% and 56%;
//! - *"under X"* (a limit): at or under it ([`rules::under`]); calibration `upper_bound` rows;
//! - *a bandwidth loss* (seed 001 Table 1): within 2.5 points ([`rules::loss`]);
//! - *"within X%"* (an accuracy the paper states): every error at most X% ([`rules::within`]);
//!   seed 003's cluster claims;
//! - *"N% within 10%"*: at least N% of the points ([`rules::share_at_least`]); seed 003 §7.2;
//! - *"best"*: within 2% of the best ([`rules::best_latency`], [`rules::best_ratio`]); every
//!   "X is best" of seeds 000 and 001;
//! - *"beats at every size"*: faster at every compared size ([`rules::beats_everywhere`]);
//! - *"constant"*: the largest within 10% of the smallest, "the same" at every point
//!   ([`rules::constant`]);
//! - *"the same", "equal", "almost none"*: within 10% of each other ([`rules::same`]); Bruck
//!   and rdb at 15 SPEs, the affinity latencies alike, BIF-1 against BIF-2, congestion up to
//!   256 B against none;
//! - *"rises", "climbs"*: never falls from one step to the next, and the last is not the same as
//!   the first ([`rules::rises`]); seed 003's latency above 256 B;
//! - *"well under"*: below 75% of the other ([`rules::well_under`]); seed 000's shrinking gap;
//! - *"good"* and *"poor"* placements: at least 90% / under 75% of the best named one
//!   ([`rules::good`], [`rules::poor`]); seed 001's figures.
//!
//! A claim is a prediction unless it is `fitted` (a machine-file value was chosen on it) or not
//! judged (`not modelled`, `unverified`); a row is a prediction unless `fitted`, and a row with
//! `same_as` is counted once, under the row it names.

pub mod claim;
pub mod counts;
pub mod row;
pub mod rules;

pub use claim::Claim;
pub use counts::{claim_counts, counts, tally, ClaimCounts, Counts};
pub use row::Row;
