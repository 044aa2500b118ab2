//! The tallies of claims and rows that `reproduce` and `calibrate` report: predictions, how many
//! hold, and how many of those a blade without contention fails (the discriminating ones).

use serde::Serialize;

use super::{Claim, Row};

/// How many claims hold, do not hold, are not modelled, and are unverified.
pub fn tally(claims: &[Claim]) -> [usize; 4] {
    let n = |s: &str| claims.iter().filter(|c| c.status == s).count();
    [n("holds"), n("does not hold"), n("not modelled"), n("unverified")]
}

/// The honest counts of the claims: predictions (claims that are neither fitted, nor not
/// modelled, nor unverified), how many hold, and how many of those a blade without contention
/// fails (the discriminating ones); fitted claims are counted apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClaimCounts {
    pub claims: usize,
    pub fitted: usize,
    pub predictions: usize,
    pub predictions_hold: usize,
    pub predictions_hold_discriminating: usize,
}

pub fn claim_counts(claims: &[Claim]) -> ClaimCounts {
    let judged: Vec<&Claim> = claims.iter().filter(|c| c.judged()).collect();
    let predictions: Vec<&&Claim> = judged.iter().filter(|c| !c.fitted).collect();
    let hold: Vec<&&&Claim> = predictions.iter().filter(|c| c.holds).collect();
    ClaimCounts {
        claims: claims.len(),
        fitted: judged.len() - predictions.len(),
        predictions: predictions.len(),
        predictions_hold: hold.len(),
        predictions_hold_discriminating: hold.iter().filter(|c| c.without_contention == Some(false)).count(),
    }
}

/// The honest counts of a table: distinct rows (each `same_as` row counted under its own),
/// fitted, predictions, and how many of each hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub rows: usize,
    pub fitted: usize,
    pub fitted_hold: usize,
    pub predictions: usize,
    pub predictions_hold: usize,
    /// Predictions that hold and that a blade without contention fails.
    pub predictions_hold_discriminating: usize,
}

pub fn counts(rows: &[Row]) -> Counts {
    let distinct: Vec<&Row> = rows.iter().filter(|r| r.same_as.is_none()).collect();
    let fitted: Vec<&&Row> = distinct.iter().filter(|r| r.fitted).collect();
    let predictions: Vec<&&Row> = distinct.iter().filter(|r| !r.fitted).collect();
    Counts {
        rows: distinct.len(),
        fitted: fitted.len(),
        fitted_hold: fitted.iter().filter(|r| r.holds).count(),
        predictions: predictions.len(),
        predictions_hold: predictions.iter().filter(|r| r.holds).count(),
        predictions_hold_discriminating: predictions.iter().filter(|r| r.holds && r.without_contention == Some(false)).count(),
    }
}
