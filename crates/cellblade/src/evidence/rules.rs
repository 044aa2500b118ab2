//! One rule per kind of claim or row; every claim and row uses these and nothing else to
//! decide (the kinds and where each is used: [`super`]'s docs).

/// A published measurement: within 10% of it.
pub const MEASURED: f64 = 0.10;
/// A bandwidth loss (seed 001 Table 1): within 2.5 points, 0.61 GB/s of 24.3. Table 1's
/// standard deviations run from 0.01 to 0.5 GB/s in #1-#8 (0.3 in most contended rows, 0.5 at
/// most, #5's 2 <- 0) and reach 1.0-1.3 GB/s in #9 and #10 (7 <- 2: 1.3): the rule is about
/// twice the usual deviation, and stricter than the largest ones.
pub const LOSS: f64 = 0.025;
/// "About X", "around X": within 10% of X, the tolerance of a published measurement, in
/// calibrate and in reproduce alike. One tolerance for one word (reproduce had 15% and calibrate
/// 10%, so seed 002's "around 300 ns" and "around 2700 ns" were judged apart), and the stricter
/// of the two: "about" qualifies a number the paper measured, so it does not loosen it. A plain
/// number ("takes X", "is X") is a published measurement ([`measured`]), not "about".
pub const ABOUT: f64 = MEASURED;
/// "Best": within 2% of the best (fastest, or highest bandwidth).
pub const BEST: f64 = 0.02;
/// "Constant": the largest value within 10% of the smallest, all positive: "the same" at
/// every point (seed 000's "differ only by a constant amount of time regardless of data
/// size"), not a looser rule of its own (it was 25%).
pub const CONSTANT: f64 = SAME;
/// "The same": within 10% of each other.
pub const SAME: f64 = 0.10;
/// "Good" placement: at least 90% of the best named one's minimum bandwidth.
pub const GOOD: f64 = 0.90;
/// "Poor" placement: under 75% of the best named one's.
pub const POOR: f64 = 0.75;

pub fn measured(simulated: f64, published: f64) -> bool {
    ((simulated - published) / published).abs() <= MEASURED
}
/// A limit: at or under it.
pub fn under(simulated: f64, limit: f64) -> bool {
    simulated <= limit
}
/// "Over X": above it.
pub fn over(simulated: f64, limit: f64) -> bool {
    simulated > limit
}
/// Losses as fractions of the bandwidth.
pub fn loss(simulated: f64, published: f64) -> bool {
    (simulated - published).abs() <= LOSS
}
pub fn about(simulated: f64, published: f64) -> bool {
    (simulated - published).abs() <= ABOUT * published.abs()
}
/// "Up to X": the largest over the claim's range is about X (and is a gain at all).
pub fn up_to(largest: f64, published: f64) -> bool {
    largest > 0.0 && about(largest, published)
}
/// "Within X%": every error (in percent, either sign) at most X.
pub fn within(errors_pct: &[f64], limit_pct: f64) -> bool {
    errors_pct.iter().all(|e| e.abs() <= limit_pct)
}
/// "N% of the points": at least that share of `of`.
pub fn share_at_least(count: usize, of: usize, pct: f64) -> bool {
    of > 0 && 100.0 * count as f64 / of as f64 >= pct
}
/// A latency is "best" among others whose fastest is `fastest`.
pub fn best_latency(latency: f64, fastest: f64) -> bool {
    latency <= fastest * (1.0 + BEST)
}
/// A bandwidth, as a fraction of the best one, is "best".
pub fn best_ratio(ratio: f64) -> bool {
    ratio >= 1.0 - BEST
}
pub fn constant(values: &[f64]) -> bool {
    let lo = values.iter().copied().fold(f64::MAX, f64::min);
    let hi = values.iter().copied().fold(f64::MIN, f64::max);
    !values.is_empty() && lo > 0.0 && hi <= (1.0 + CONSTANT) * lo
}
pub fn same(a: f64, b: f64) -> bool {
    (a / b - 1.0).abs() <= SAME
}
/// No step falls (no allowance for a dip).
pub fn never_falls(values: &[f64]) -> bool {
    values.windows(2).all(|w| w[1] >= w[0])
}
/// "Rises": no step falls, and the last is not [`same`] as the first.
pub fn rises(values: &[f64]) -> bool {
    values.len() >= 2 && never_falls(values) && !same(values[values.len() - 1], values[0])
}
/// "Beats at every size": faster in every (ours, theirs) pair, and there is at least one.
pub fn beats_everywhere(pairs: &[(f64, f64)]) -> bool {
    !pairs.is_empty() && pairs.iter().all(|(ours, theirs)| ours < theirs)
}
/// "Well under": below 75% of the other.
pub fn well_under(a: f64, b: f64) -> bool {
    a < 0.75 * b
}
pub fn good(ratio: f64) -> bool {
    ratio >= GOOD
}
pub fn poor(ratio: f64) -> bool {
    ratio < POOR
}

#[cfg(test)]
mod tests {
    use super::*;

    // The older rules are tested in tests/reproduce.rs (`each_rule_draws_its_line_...`).
    #[test]
    fn the_rules_of_measurements_limits_losses_shares_and_rises_draw_their_lines() {
        assert!(measured(110.0, 100.0) && measured(90.0, 100.0) && !measured(110.5, 100.0));
        assert!(loss(0.05, 0.025) && !loss(0.06, 0.025));
        assert!(under(100.0, 100.0) && !under(100.1, 100.0));
        assert!(within(&[-13.0, 12.9], 13.0) && !within(&[13.1], 13.0));
        assert!(share_at_least(94, 100, 94.0) && !share_at_least(93, 100, 94.0) && !share_at_least(0, 0, 0.0));
        assert!(never_falls(&[1.0, 1.0, 2.0]) && !never_falls(&[1.0, 0.999]));
        assert!(rises(&[1.0, 1.0, 1.2]) && !rises(&[1.0, 1.3, 1.29]) && !rises(&[1.0, 1.05]) && !rises(&[1.0]));
    }
}
