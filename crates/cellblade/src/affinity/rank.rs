//! A fast model of EIB ring and BIF sharing that ranks placements of a pattern without
//! simulating them: the two-chip search (`search.rs`) uses it to choose which candidates to
//! simulate.
//!
//! Each get of a phase loads the resources on its path with its bytes: the source's off-ramp,
//! the ring segments it travels (half on each direction when it is half the ring away, as the
//! arbiter may grant either), the destination's on-ramp, and for a transfer between the chips
//! the BIF element's ramps and the link in its direction (the route the bus takes, `bus.rs`). A
//! resource moves its bytes at its bandwidth: a ramp one 16-byte beat per bus cycle, a segment
//! that times the rings of its direction, the link `bif.data_gbps`. A transfer is as slow as
//! the busiest resource on its path; a phase as its slowest transfer.
//!
//! What it leaves out (the simulation has them): latencies, the arbiter's order and the
//! three-transfers-per-ring limit. It is a ranking, not a prediction: the search simulates what
//! it ranks first.

use std::collections::HashMap;

use super::pattern::Pattern;
use super::search::Objective;
use crate::machine::config::Params;
use crate::machine::topology::{route, Element, ELEMENTS_PER_CHIP};

/// A loaded resource: an element's off-ramp or on-ramp, a ring segment in one direction, or the
/// BIF link in one direction; each of a chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Resource {
    Off(usize, usize),
    On(usize, usize),
    Segment(usize, bool, usize),
    Link(usize),
}

/// The bandwidths (bytes per ns) the model shares.
pub struct Ranker {
    p: Params,
    ramp: f64,
    segment: f64,
    link: f64,
}

impl Ranker {
    pub fn new(p: &Params) -> Ranker {
        let ns_per_tick = p.bus_cycle.as_ns() / p.bus_cycle.0 as f64;
        let ramp = p.beat_bytes as f64 / p.bus_cycle.as_ns();
        let link = 1024.0 / (p.bif_ticks_per_kib as f64 * ns_per_tick);
        Ranker { p: p.clone(), ramp, segment: ramp * p.rings_per_direction as f64, link }
    }

    fn capacity(&self, r: Resource) -> f64 {
        match r {
            Resource::Off(..) | Resource::On(..) => self.ramp,
            Resource::Segment(..) => self.segment,
            Resource::Link(_) => self.link,
        }
    }

    /// The resources of one on-chip leg from element `from` to `to` of `chip`, with the share of
    /// the bytes each carries.
    fn leg(&self, chip: usize, from: usize, to: usize, out: &mut Vec<(Resource, f64)>) {
        out.push((Resource::Off(chip, from), 1.0));
        out.push((Resource::On(chip, to), 1.0));
        let r = route(&self.p, from, to);
        let ways = [(true, r.cw_ok, r.cw_mask), (false, r.ccw_ok, r.ccw_mask)];
        let share = if r.either_way() { 0.5 } else { 1.0 };
        for (cw, ok, mask) in ways {
            if ok {
                (0..ELEMENTS_PER_CHIP).filter(|k| mask & (1 << k) != 0).for_each(|k| out.push((Resource::Segment(chip, cw, k), share)));
            }
        }
    }

    /// The resources a get from physical SPE `src` to `dst` loads.
    fn path(&self, src: usize, dst: usize) -> Vec<(Resource, f64)> {
        let (a, b) = (Element::spe(src), Element::spe(dst));
        let mut out = Vec::new();
        if a.chip() == b.chip() {
            self.leg(a.chip(), a.index(), b.index(), &mut out);
        } else {
            self.leg(a.chip(), a.index(), self.p.bif_element, &mut out);
            out.push((Resource::Link(a.chip()), 1.0));
            self.leg(b.chip(), self.p.bif_element, b.index(), &mut out);
        }
        out
    }

    /// The model's value of `pattern` with rank r on physical SPE `mapping[r]`, in the
    /// objective's unit: the least bandwidth a get receives (GB/s), or the sum of the phases'
    /// times (us).
    pub fn value(&self, pattern: &Pattern, mapping: &[usize], objective: Objective) -> f64 {
        let mut least = f64::INFINITY;
        let mut total_ns = 0.0;
        for phase in &pattern.phases {
            let paths: Vec<Vec<(Resource, f64)>> = phase.iter().map(|t| self.path(mapping[t.src], mapping[t.dst])).collect();
            let mut load: HashMap<Resource, f64> = HashMap::new();
            for (t, path) in phase.iter().zip(&paths) {
                for &(r, share) in path {
                    *load.entry(r).or_default() += share * t.bytes as f64;
                }
            }
            let mut slowest = 0.0f64;
            for (t, path) in phase.iter().zip(&paths) {
                let ns = path.iter().map(|&(r, _)| load[&r] / self.capacity(r)).fold(0.0, f64::max);
                slowest = slowest.max(ns);
                least = least.min(t.bytes as f64 / ns.max(1e-9));
            }
            total_ns += slowest;
        }
        match objective {
            Objective::MinBandwidth => least,
            Objective::Latency => total_ns / 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::affinity::pattern::build;
    use crate::affinity::placement::Placement;
    use crate::machine::config::{load, preset_text};

    fn ranker() -> Ranker {
        Ranker::new(&Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap()))
    }

    #[test]
    fn crossing_the_bif_is_ranked_below_staying_on_a_chip() {
        let r = ranker();
        let rd1 = build("rd1", 16, 65536).unwrap();
        // Identity keeps every rd1 pair on one chip; pairing SPE i with 8+i sends all 16 gets
        // over the link, 8 each way: at most 13.6 / 8 GB/s each.
        let identity: Vec<usize> = (0..16).collect();
        let across: Vec<usize> = (0..8).flat_map(|i| [i, 8 + i]).collect();
        let (on, over) = (r.value(&rd1, &identity, Objective::MinBandwidth), r.value(&rd1, &across, Objective::MinBandwidth));
        assert_eq!(on, 25.6, "on chip: each get at its ramps' 16 bytes a bus cycle");
        assert!((over - 13.6 / 8.0).abs() < 0.01, "{over}");
        assert!(r.value(&rd1, &identity, Objective::Latency) < r.value(&rd1, &across, Objective::Latency));
    }

    #[test]
    fn overlap_is_ranked_below_evenodd_and_leap2_for_the_ring_pattern() {
        // Seed 001 §4, ring pattern: Overlap was built to overlap paths in one direction. The
        // ranking sees that (three transfers on a segment of two rings); it does not see why the
        // Ring affinity is slow (the seed: unbalanced, every transfer one way), which is within
        // the rings' capacity and rests on the arbiter: on one chip it ranks most named
        // placements alike, at the ramps' 25.6 GB/s.
        let r = ranker();
        let ring = build("ring", 8, 65536).unwrap();
        let value = |name: &str| r.value(&ring, &Placement::named(name, 8).unwrap().rank_to_spe, Objective::MinBandwidth);
        assert!((value("overlap") - 2.0 * 25.6 / 3.0).abs() < 1e-9, "overlap {}", value("overlap"));
        assert_eq!(value("evenodd"), 25.6);
        assert_eq!(value("leap2"), 25.6);
    }
}
