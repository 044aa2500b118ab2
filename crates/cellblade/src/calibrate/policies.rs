//! Identification of the data arbiter's policy, in the open: every combination of the family
//! in [`crate::machine::policy`] (6 half-way rules x 4 grant orders x 3 direction limits), each
//! with its free parameters fitted on a named training set and judged on what it was not fitted
//! on.
//!
//! - Training: seed 001 Table 1 #1-#5 and #8. The limiter's parameter is fitted on #5 0 <- 1
//!   (the ring start interval for `ring_interval`, the direction interval for `direction_rate`
//!   with the ring interval at Krolak's published 3 cycles; `command_slot` has none and takes
//!   the published 3 too), then `eib.blind_share` on #4 2 <- 0, then the limiter once more (it
//!   moves with the share): each by bisection on the sign of simulated minus published, the
//!   leave-one-out's method ([`super::leave_one_out::solve`]), at a resolution of 1/256 for
//!   the share. The other training rows are in sample and reported, not counted.
//! - Held out, for every policy: Table 1 #6, #7, #9, #10, #11a and #11b (#7 7 <- 1 left out:
//!   `eib.data_grants_per_bus_cycle` is fitted on it and not refitted here), each under the four
//!   draw seeds; and the predictions of `reproduce --quick`'s barrier claims (seed 000 and
//!   seed 002's 16-SPE barriers, which run over the contended bus).
//! - Held out, for the best policies of that first stage (the four best and every one tied
//!   with them) and the machine file's own (full
//!   run only): `reproduce --quick`'s seed 001 placement claims (group `affinity`), seed
//!   003's model claims (group `model`, with the BIF congestion) and seed 000's broadcast and
//!   reduction findings (groups `broadcasts` and `reductions`, on 8 and 16 SPEs over the
//!   contended bus), fifteen seconds and more a policy, too slow to run for all 72 on two cores.
//!
//! The table is deterministic: each policy's work depends on nothing but its machine file, and
//! the policies are listed in the family's order whatever the threads did.

use serde::Serialize;

use crate::error::Result;
use crate::evidence::claim::DRAW_SEEDS;
use crate::evidence::row::redrawn;
use crate::evidence::Row;
use crate::machine::config::{load, MachineFile};
use crate::machine::policy::{name, DirectionLimit, GrantOrder, HalfWay};
use crate::threads::run_each;

/// The training rows: Table 1 #1-#5 and #8 (name prefixes of `affinity/rows.rs`).
pub const TRAINING: &[&str] = &["Table 1 #1:", "Table 1 #2:", "Table 1 #3:", "Table 1 #4:", "Table 1 #5:", "Table 1 #8:"];

/// The claim groups judged for the first stage's best policies only (`reproduce --claims`).
const SECOND_STAGE_GROUPS: &[&str] = &["affinity", "model", "broadcasts", "reductions"];

/// Table 1 rows fitted by a parameter the sweep does not refit: neither trained on nor judged.
pub const NOT_JUDGED: &[&str] = &["Table 1 #7: 7 <- 1, loss"];

/// The row the limiter is fitted on, and the row the blind share is fitted on.
pub const LIMIT_ROW: &str = "Table 1 #5: 0 <- 1, loss";
pub const SHARE_ROW: &str = "Table 1 #4: 2 <- 0, loss";

/// Krolak's "a ring can start a new op every three cycles" (reference note §1.1).
const PUBLISHED_RING_INTERVAL: u64 = 3;

/// How many of the first stage's best policies (besides the machine file's) the slow groups
/// judge.
const SECOND_STAGE: usize = 4;

/// One policy of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Policy {
    pub half_way: HalfWay,
    pub grant_order: GrantOrder,
    pub direction_limit: DirectionLimit,
}

impl Policy {
    /// Every combination, half-way rule slowest.
    pub fn family() -> Vec<Policy> {
        let mut out = Vec::new();
        for half_way in HalfWay::ALL {
            for grant_order in GrantOrder::ALL {
                for direction_limit in DirectionLimit::ALL {
                    out.push(Policy { half_way, grant_order, direction_limit });
                }
            }
        }
        out
    }

    /// `half_way / grant_order / direction_limit`, as the machine file names them.
    pub fn label(&self) -> String {
        format!("{} / {} / {}", name(&self.half_way), name(&self.grant_order), name(&self.direction_limit))
    }

    fn of(file: &MachineFile) -> Policy {
        Policy { half_way: file.eib.half_way, grant_order: file.eib.grant_order, direction_limit: file.eib.direction_limit }
    }

    fn set(&self) -> Vec<String> {
        vec![
            format!("eib.half_way={}", name(&self.half_way)),
            format!("eib.grant_order={}", name(&self.grant_order)),
            format!("eib.direction_limit={}", name(&self.direction_limit)),
        ]
    }
}

/// One held-out (or training) row or claim under a policy.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub name: String,
    pub published: String,
    pub simulated: String,
    pub holds: bool,
}

/// A fitted value: the key, the row, the value, and whether some value in the range reproduces
/// the row (otherwise the value is the range's end nearest to it).
#[derive(Debug, Clone, Serialize)]
pub struct Fitted {
    pub key: String,
    pub row: String,
    pub value: f64,
    pub reached: bool,
}

/// One policy's identification.
#[derive(Debug, Clone, Serialize)]
pub struct Judged {
    pub policy: Policy,
    pub label: String,
    pub fitted: Vec<Fitted>,
    /// The training rows other than the two fitted on, in sample.
    pub training: Vec<Verdict>,
    /// Table 1's held-out rows.
    pub table1: Vec<Verdict>,
    /// Held-out claim predictions: the barriers for every policy; placement and model claims
    /// for the second stage.
    pub claims: Vec<Verdict>,
    /// Whether the slow groups (`affinity`, `model`) were judged.
    pub second_stage: bool,
    pub held_out_holding: usize,
    pub held_out_total: usize,
    /// Table 1 #9, #10, #11a and #11b all hold.
    pub gives_9_10_11: bool,
}

/// The identification: every policy, the one chosen and the machine file's.
#[derive(Debug, Clone, Serialize)]
pub struct Identification {
    pub training: Vec<String>,
    pub fitted_on: Vec<String>,
    pub held_out: String,
    pub policies: Vec<Judged>,
    /// Index in `policies` of the policy with the most held-out rows holding among those
    /// judged on everything (ties: the family's order, so the machine file's rules first).
    pub best: usize,
    /// Index in `policies` of the machine file's policy.
    pub machine: usize,
    pub quick: bool,
}

fn with(file: &MachineFile, set: &[String]) -> Result<MachineFile> {
    load(&file.to_toml(), set)
}

fn row<'a>(rows: &'a [Row], name: &str) -> &'a Row {
    rows.iter().find(|r| r.name == name).expect("Table 1 has the training rows")
}

/// Bisection of `key` over `range` on the sign of simulated minus published of `target`
/// (integer keys to adjacent values; the share to 1/256), the best value seen and whether the
/// row was bracketed.
fn bisect(file: &MachineFile, key: &str, target: &str, range: (f64, f64), integer: bool) -> Result<(f64, bool)> {
    let at = |v: f64| -> Result<f64> {
        let shown = if integer { format!("{}", v.round() as i64) } else { format!("{v:?}") };
        let rows = crate::affinity::rows::rows(&with(file, &[format!("{key}={shown}")])?)?;
        let r = row(&rows, target);
        Ok(r.simulated - r.published)
    };
    let (mut lo, mut hi) = range;
    let (mut f_lo, f_hi) = (at(lo)?, at(hi)?);
    let mut best = if f_lo.abs() <= f_hi.abs() { (lo, f_lo) } else { (hi, f_hi) };
    if f_lo.signum() == f_hi.signum() {
        return Ok((best.0, false));
    }
    let resolution = if integer { 1.0 } else { 1.0 / 256.0 };
    while hi - lo > resolution {
        let mid = if integer { ((lo + hi) / 2.0).floor() } else { (lo + hi) / 2.0 };
        let f_mid = at(mid)?;
        if f_mid.abs() < best.1.abs() {
            best = (mid, f_mid);
        }
        if f_mid.signum() == f_lo.signum() {
            (lo, f_lo) = (mid, f_mid);
        } else {
            hi = mid;
        }
    }
    Ok((best.0, true))
}

/// `policy` on `base` with its free parameters fitted on the training rows.
fn fit(base: &MachineFile, policy: Policy) -> Result<(MachineFile, Vec<Fitted>)> {
    let mut file = with(base, &policy.set())?;
    let limit_key = match policy.direction_limit {
        DirectionLimit::RingInterval => Some(("eib.ring_start_interval_bus_cycles", (1.0, 8.0))),
        DirectionLimit::DirectionRate => Some(("eib.direction_interval_bus_cycles", (1.0, 16.0))),
        DirectionLimit::CommandSlot => None,
    };
    if policy.direction_limit != DirectionLimit::RingInterval {
        file = with(&file, &[format!("eib.ring_start_interval_bus_cycles={PUBLISHED_RING_INTERVAL}")])?;
    }
    let mut fitted: Vec<Fitted> = Vec::new();
    let mut fit_one = |file: &mut MachineFile, key: &str, target: &str, range: (f64, f64), integer: bool| -> Result<()> {
        let (value, reached) = bisect(file, key, target, range, integer)?;
        let shown = if integer { format!("{}", value.round() as i64) } else { format!("{value:?}") };
        *file = with(file, &[format!("{key}={shown}")])?;
        fitted.retain(|f| f.key != key);
        fitted.push(Fitted { key: key.into(), row: target.into(), value, reached });
        Ok(())
    };
    if let Some((key, range)) = limit_key {
        fit_one(&mut file, key, LIMIT_ROW, range, true)?;
    }
    fit_one(&mut file, "eib.blind_share", SHARE_ROW, (0.0, 1.0), false)?;
    if let Some((key, range)) = limit_key {
        fit_one(&mut file, key, LIMIT_ROW, range, true)?;
    }
    fitted.sort_by(|a, b| a.key.cmp(&b.key));
    Ok((file, fitted))
}

fn verdict_of_row(r: &Row) -> Verdict {
    let shown = |v: f64| if r.kind == "loss" { format!("{:.1}%", 100.0 * v) } else { format!("{v:.3} {}", r.unit) };
    Verdict { name: r.name.clone(), published: shown(r.published), simulated: shown(r.simulated), holds: r.holds }
}

/// The predictions among `groups`' claims (`reproduce --quick`).
fn claim_verdicts(file: &MachineFile, groups: &[&str]) -> Result<Vec<Verdict>> {
    let claims = crate::reproduce::run_groups(file, true, groups, 1)?;
    Ok(claims
        .into_iter()
        .filter(|c| !c.fitted && (c.status == "holds" || c.status == "does not hold"))
        .map(|c| Verdict { name: c.claim, published: c.published, simulated: c.simulated, holds: c.holds })
        .collect())
}

/// The first stage of one policy: fit, then judge on Table 1's held-out rows and the barriers.
fn judge(base: &MachineFile, policy: Policy, quick: bool) -> Result<(MachineFile, Judged)> {
    let (file, fitted) = fit(base, policy)?;
    let mut runs = file.redraws(DRAW_SEEDS).iter().map(crate::affinity::rows::rows).collect::<Result<Vec<_>>>()?.into_iter();
    let first = runs.next().expect("a blade runs under its own draw seed");
    let rows = redrawn(first, runs.collect());
    let fitted_rows: Vec<&str> = fitted.iter().map(|f| f.row.as_str()).collect();
    let trained = |r: &&Row| TRAINING.iter().any(|t| r.name.starts_with(t));
    let training = rows.iter().filter(trained).filter(|r| !fitted_rows.contains(&r.name.as_str())).map(verdict_of_row).collect();
    let table1: Vec<Verdict> = rows.iter().filter(|r| !trained(r) && !NOT_JUDGED.contains(&r.name.as_str())).map(verdict_of_row).collect();
    let claims = if quick { Vec::new() } else { claim_verdicts(&file, &["barriers"])? };
    let gives_9_10_11 = ["#9:", "#10:", "#11a:", "#11b:"]
        .iter()
        .all(|p| table1.iter().filter(|v| v.name.contains(p)).all(|v| v.holds) && table1.iter().any(|v| v.name.contains(p)));
    let mut judged = Judged {
        policy,
        label: policy.label(),
        fitted,
        training,
        table1,
        claims,
        second_stage: false,
        held_out_holding: 0,
        held_out_total: 0,
        gives_9_10_11,
    };
    count(&mut judged);
    Ok((file, judged))
}

fn count(j: &mut Judged) {
    j.held_out_total = j.table1.len() + j.claims.len();
    j.held_out_holding = j.table1.iter().chain(&j.claims).filter(|v| v.holds).count();
}

/// Identify the arbiter's policy on `base` (the machine file whose other values stay).
pub fn identify(base: &MachineFile, quick: bool, jobs: usize) -> Result<Identification> {
    let family = Policy::family();
    let first: Vec<(MachineFile, Judged)> = run_each(&(0..family.len()).collect::<Vec<_>>(), jobs, |i| judge(base, family[i], quick))
        .into_iter()
        .collect::<Result<Vec<_>>>()?;
    let machine = family.iter().position(|p| *p == Policy::of(base)).expect("the machine file's policy is in the family");
    let (files, mut policies): (Vec<MachineFile>, Vec<Judged>) = first.into_iter().unzip();
    if !quick {
        // The best of the first stage, every policy tied with the last of them too (so no
        // tie is broken by the family's order), and the machine file's.
        let mut order: Vec<usize> = (0..policies.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(policies[i].held_out_holding));
        let bar = policies[order[SECOND_STAGE.min(order.len()) - 1]].held_out_holding;
        let mut second: Vec<usize> = order.into_iter().filter(|&i| policies[i].held_out_holding >= bar).collect();
        if !second.contains(&machine) {
            second.push(machine);
        }
        second.sort();
        let more = run_each(&(0..second.len()).collect::<Vec<_>>(), jobs, |k| claim_verdicts(&files[second[k]], SECOND_STAGE_GROUPS));
        for (k, claims) in second.iter().zip(more) {
            let j = &mut policies[*k];
            j.claims.extend(claims?);
            j.second_stage = true;
            count(j);
        }
    }
    let best = (0..policies.len())
        .filter(|&i| quick || policies[i].second_stage)
        .max_by_key(|&i| (policies[i].held_out_holding, std::cmp::Reverse(i)))
        .expect("the family is not empty");
    Ok(Identification {
        training: TRAINING.iter().map(|t| t.trim_end_matches(':').to_string()).collect(),
        fitted_on: vec![LIMIT_ROW.into(), SHARE_ROW.into()],
        held_out: if quick {
            "Table 1 #6, #7 (but 7 <- 1), #9, #10, #11a, #11b under four draw seeds".into()
        } else {
            format!(
                "Table 1 #6, #7 (but 7 <- 1), #9, #10, #11a, #11b under four draw seeds, and the barrier claims (reproduce --quick) for \
                 every policy; the placement (affinity), model, broadcast and reduction claims (reproduce --quick) for the \
                 {SECOND_STAGE} best (and any tied with them) and the machine file's"
            )
        },
        policies,
        best,
        machine,
        quick,
    })
}

/// Every arbiter policy fitted on the training rows and judged on the held-out ones.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoliciesRequest {
    /// Table 1's held-out rows only (no claims): for tests.
    pub quick: bool,
    /// Threads (at least 1; one per core when left out). The table is the same whatever it is.
    pub jobs: Option<usize>,
}

impl crate::request::Request for PoliciesRequest {
    const NAME: &'static str = "identify_policies";
    type Output = Identification;

    fn run(self, machine: &MachineFile) -> Result<Identification> {
        let jobs = crate::threads::jobs(self.jobs)?;
        identify(machine, self.quick, jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::config::preset_text;

    fn qs20() -> MachineFile {
        load(preset_text("qs20").unwrap(), &[]).unwrap()
    }

    #[test]
    fn the_family_has_every_combination_once_with_the_machine_files_rules_in_it() {
        let family = Policy::family();
        assert_eq!(family.len(), 6 * 4 * 3);
        for (i, p) in family.iter().enumerate() {
            assert!(!family[..i].contains(p), "{p:?} twice");
        }
        assert!(family.contains(&Policy::of(&qs20())));
        assert_eq!(Policy::of(&qs20()).label(), "pair_first_grant / round_robin / ring_interval");
    }

    #[test]
    fn the_quick_table_is_the_same_bytes_twice_and_on_any_number_of_threads() {
        let file = qs20();
        let id: Identification = identify(&file, true, 1).unwrap();
        let two = serde_json::to_string(&identify(&file, true, 2).unwrap()).unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), two);
        assert_eq!(id.policies.len(), 72);
        assert_eq!(id.policies[id.machine].label, "pair_first_grant / round_robin / ring_interval");
        // Every policy is judged on the same held-out rows, none of them a training row.
        let names: Vec<&str> = id.policies[0].table1.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names.len(), 2 + 4 + 3 + 5 + 3 + 3);
        for j in &id.policies {
            assert_eq!(j.table1.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), names);
            assert!(j.table1.iter().all(|v| !TRAINING.iter().any(|t| v.name.starts_with(t))));
        }
    }

    #[test]
    fn the_machine_files_policy_refitted_gives_the_machine_files_values() {
        // Its fitted values are the ones the machine file carries, so identification judges
        // the blade calibrate runs.
        let file = qs20();
        let (_, fitted) = fit(&file, Policy::of(&file)).unwrap();
        let value = |key: &str| fitted.iter().find(|f| f.key == key).unwrap().value;
        assert_eq!(value("eib.ring_start_interval_bus_cycles"), file.eib.ring_start_interval_bus_cycles as f64);
        assert!((value("eib.blind_share") - file.eib.blind_share).abs() <= 0.25, "{fitted:?}");
    }
}
