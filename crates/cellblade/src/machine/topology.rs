//! Where things are on the blade: elements on each chip's EIB ring, physical SPE ids, hop
//! counts, ring directions and the ring segments a transfer occupies.

use super::config::Params;

/// Elements per chip, in the index order of [`super::config::RING_ELEMENTS`].
pub const ELEMENTS_PER_CHIP: usize = 12;
pub const PPE: usize = 0;
pub const MIC: usize = 9;
pub const SPES_PER_CHIP: usize = 8;
pub const CHIPS: usize = 2;
pub const SPES: usize = SPES_PER_CHIP * CHIPS;
// `Element::chip` relies on it.
const _: () = assert!(CHIPS == 2);

/// An element on one chip: `chip * 12 + index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Element(pub usize);

impl Element {
    pub fn spe(spe: usize) -> Element {
        Element((spe / SPES_PER_CHIP) * ELEMENTS_PER_CHIP + 1 + spe % SPES_PER_CHIP)
    }
    pub fn ppe(chip: usize) -> Element {
        Element(chip * ELEMENTS_PER_CHIP + PPE)
    }
    pub fn mic(chip: usize) -> Element {
        Element(chip * ELEMENTS_PER_CHIP + MIC)
    }
    pub fn on_chip(chip: usize, index: usize) -> Element {
        Element(chip * ELEMENTS_PER_CHIP + index)
    }
    // A blade has two chips, so a comparison finds the chip: cheaper than a division, and both
    // run several times per bus packet.
    pub fn chip(self) -> usize {
        debug_assert!(self.0 < CHIPS * ELEMENTS_PER_CHIP);
        (self.0 >= ELEMENTS_PER_CHIP) as usize
    }
    pub fn index(self) -> usize {
        self.0 - self.chip() * ELEMENTS_PER_CHIP
    }
    pub fn name(self) -> String {
        let i = self.index();
        let n = match i {
            PPE => "PPE".to_string(),
            MIC => "MIC".to_string(),
            10 => "IOIF0".to_string(),
            11 => "IOIF1".to_string(),
            s => format!("SPE{}", self.chip() * SPES_PER_CHIP + s - 1),
        };
        if matches!(i, PPE | MIC | 10 | 11) {
            format!("{n}@cell{}", self.chip())
        } else {
            n
        }
    }
}

/// Which way a transfer goes round the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Clockwise,
    CounterClockwise,
}

/// The route of one on-chip leg: hop count and the directions it may take, each with the
/// bitmask of ring segments it occupies (segment k joins ring positions k and k+1).
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// Small fields: the arbiter looks a route up for every grant, and 144 of these fit in a
    /// kilobyte.
    pub hops: u8,
    pub cw_mask: u16,
    pub ccw_mask: u16,
    /// Shortest way clockwise, counter-clockwise, or exactly half the ring (either way).
    pub cw_ok: bool,
    pub ccw_ok: bool,
}

impl Route {
    /// Exactly half the ring away: either direction is a shortest way.
    pub fn either_way(&self) -> bool {
        self.cw_ok && self.ccw_ok
    }
}

pub fn route(p: &Params, from: usize, to: usize) -> Route {
    let n = ELEMENTS_PER_CHIP;
    let a = p.ring_pos[from];
    let b = p.ring_pos[to];
    let cw = (b + n - a) % n;
    let ccw = (n - cw) % n;
    let mut cw_mask = 0u16;
    for k in 0..cw {
        cw_mask |= 1 << ((a + k) % n);
    }
    let mut ccw_mask = 0u16;
    for k in 0..ccw {
        ccw_mask |= 1 << ((b + k) % n);
    }
    Route { hops: cw.min(ccw) as u8, cw_mask, ccw_mask, cw_ok: cw <= ccw, ccw_ok: ccw <= cw }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::config::{load, preset_text};

    fn params() -> Params {
        Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap())
    }

    #[test]
    fn ring_facts_from_the_seeds_hold() {
        let p = params();
        let s = |i: usize| Element::spe(i).index();
        // seed 000 §2: SPE6-SPE4 nearest neighbours, SPE1-SPE6 six hops.
        assert_eq!(route(&p, s(6), s(4)).hops, 1);
        let half = route(&p, s(1), s(6));
        assert_eq!(half.hops, 6);
        assert!(half.cw_ok && half.ccw_ok && half.either_way());
        // seed 001 §2: SPE1 -> SPE5 clockwise, SPE4 -> SPE5 counter-clockwise.
        let r = route(&p, s(1), s(5));
        assert!(r.cw_ok && !r.ccw_ok && !r.either_way());
        let r = route(&p, s(4), s(5));
        assert!(!r.cw_ok && r.ccw_ok);
        // seed 001 Table 1 #10: 0 <-> 7 go half-way.
        assert_eq!(route(&p, s(0), s(7)).hops, 6);
    }

    #[test]
    fn masks_cover_exactly_the_hops() {
        let p = params();
        for a in 0..12 {
            for b in 0..12 {
                let r = route(&p, a, b);
                if r.cw_ok {
                    assert_eq!(r.cw_mask.count_ones(), r.hops as u32);
                }
                if r.ccw_ok {
                    assert_eq!(r.ccw_mask.count_ones(), r.hops as u32);
                }
            }
        }
    }

    #[test]
    fn element_names() {
        assert_eq!(Element::spe(9).name(), "SPE9");
        assert_eq!(Element::spe(9).chip(), 1);
        assert_eq!(Element::mic(1).name(), "MIC@cell1");
    }
}
