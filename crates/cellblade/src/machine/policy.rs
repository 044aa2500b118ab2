//! The data arbiter's unpublished choices, as a family of policies the machine file names
//! (`eib.half_way`, `eib.grant_order`, `eib.direction_limit`). The published rules
//! (`reference/eib-published-rules.md` §1: the shortest direction and never more than half-way,
//! no interference with transfers in flight, the MIC first and the others round-robin, eight-beat
//! tenures, a ring start every three cycles) leave three choices open; each variant below is
//! one reading the rules allow, and `cellblade calibrate --policies` runs every combination,
//! fits each one's free parameters on named rows and judges it on the rest (the calibration
//! layer's `policies` module, above this one).
//!
//! The bus reads a policy once per decision by a `match` on these plain enums (no strings, no
//! allocation), so a policy that is not chosen costs nothing on the hot path: the default
//! variants take exactly the code paths the arbiter had before the family existed.

use serde::{Deserialize, Serialize};

/// Which way an exactly half-way (six-hop) transfer goes. Ties (both ways equal by the rule's
/// measure) go clockwise, the ring order's first direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HalfWay {
    /// Fixed per pair: always clockwise. Seed 001's footnote-3 argument and the reference note
    /// §1.5 say a fixed rule contradicts #11a or #11b; in the family so that the table shows it.
    Clockwise,
    /// Chosen by in-flight overlap at the pair's first grant, then kept by the pair for the rest
    /// of the run (the arbiter's rule before the family; the default).
    #[default]
    PairFirstGrant,
    /// Chosen by in-flight overlap at a stream's first grant, kept while the pair has packets
    /// queued at the source, chosen afresh once its queue to that destination empties: the
    /// bus sees packets, not DMA commands, and a DMA's packets are queued together, so this
    /// stands for "per DMA at its first grant".
    Stream,
    /// Per packet at grant: the direction whose rings carry fewer transfers crossing its path,
    /// then the emptier one (the note's "per 128 B tenure").
    Overlap,
    /// Per packet at grant: the direction whose rings carry fewer transfers, overlapping or not.
    Occupancy,
    /// Per packet at grant: a pointer per chip that alternates the first direction tried at
    /// every half-way grant.
    RoundRobin,
}

/// In which order the arbiter offers the ready requesters a grant (the MIC always first:
/// "gives priority to requests coming from the memory controller").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GrantOrder {
    /// One round-robin pointer over the units, moved past each unit granted (the default).
    #[default]
    RoundRobin,
    /// A round-robin pointer per direction: a unit's place is counted from the pointer of the
    /// direction its first packet goes, moved past each unit granted that way.
    RoundRobinPerDirection,
    /// Greedy first free path: the shortest path first (the reference note §1.5 on #9: the
    /// winner has the shortest path), ties round-robin.
    ShortestFirst,
    /// The oldest ready packet first, ties round-robin.
    OldestFirst,
}

/// What limits how often one direction starts a transfer, beside the ramps and the
/// no-overlap rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DirectionLimit {
    /// Each ring starts a transfer at most every `eib.ring_start_interval_bus_cycles` (the
    /// default).
    #[default]
    RingInterval,
    /// Besides the ring interval, a direction starts at most one transfer every
    /// `eib.direction_interval_bus_cycles` over both its rings (a grant rate per direction).
    DirectionRate,
    /// Besides the ring interval, a direction starts transfers only in its own command slots,
    /// clockwise on even bus cycles, counter-clockwise on odd: the one command a bus cycle
    /// (hardware notes §1, 204.8 GB/s) shared out by direction. No free parameter.
    CommandSlot,
}

impl HalfWay {
    pub const ALL: [HalfWay; 6] =
        [HalfWay::Clockwise, HalfWay::PairFirstGrant, HalfWay::Stream, HalfWay::Overlap, HalfWay::Occupancy, HalfWay::RoundRobin];
}

impl GrantOrder {
    pub const ALL: [GrantOrder; 4] =
        [GrantOrder::RoundRobin, GrantOrder::RoundRobinPerDirection, GrantOrder::ShortestFirst, GrantOrder::OldestFirst];
}

impl DirectionLimit {
    pub const ALL: [DirectionLimit; 3] = [DirectionLimit::RingInterval, DirectionLimit::DirectionRate, DirectionLimit::CommandSlot];
}

/// The name a policy has in a machine file (`snake_case`, as serde writes it).
pub fn name<T: Serialize>(v: &T) -> String {
    match toml::Value::try_from(v) {
        Ok(toml::Value::String(s)) => s,
        _ => unreachable!("a policy serialises as its name"),
    }
}
