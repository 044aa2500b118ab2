//! Simulated time: an integer count of ticks of 1/25.6 GHz (39.0625 ps).
//!
//! At the Cell's 3.2 GHz core clock a core cycle is exactly 8 ticks and a 1.6 GHz EIB bus cycle
//! exactly 16, so every clocked event lands on an integer; rates that do not divide (the BIF's
//! 20 GB/s, the 14.318 MHz decrementer) are converted once, at the edge, with rounding.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Ticks per second of simulated time.
pub const TICKS_PER_SECOND: u64 = 25_600_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    /// The end of representable simulated time, 2^62 ticks (about 5.7 years): the engine refuses
    /// any event at or past it, and the headroom above it keeps every sum of an event time and
    /// a machine latency (each bounded in the machine file) from wrapping.
    pub const HORIZON: Time = Time(1 << 62);

    pub fn from_ns(ns: f64) -> Time {
        Time((ns * TICKS_PER_SECOND as f64 / 1e9).round() as u64)
    }

    pub fn as_ns(self) -> f64 {
        self.0 as f64 * 1e9 / TICKS_PER_SECOND as f64
    }

    pub fn ticks(self) -> u64 {
        self.0
    }

    /// The first multiple of `period` at or after `self`.
    #[inline]
    pub fn align_up(self, period: Time) -> Time {
        let p = period.0.max(1);
        if p.is_power_of_two() {
            // The usual case (a bus cycle is 16 ticks), called several times per packet: a mask
            // instead of a 64-bit division.
            return Time((self.0 + (p - 1)) & !(p - 1));
        }
        Time(self.0.div_ceil(p) * p)
    }
}

// Sums saturate rather than wrap: a saturated time lies past [`Time::HORIZON`], where the
// engine refuses to schedule it, so an overflow ends the run with an error instead of landing
// on a plausible early time.
impl Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}

impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, o: Time) {
        *self = *self + o;
    }
}

impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} ns", self.as_ns())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_are_exact() {
        // 3.2 GHz core and 1.6 GHz bus cycles are whole numbers of ticks.
        assert_eq!(TICKS_PER_SECOND % 3_200_000_000, 0);
        assert_eq!(TICKS_PER_SECOND / 3_200_000_000, 8);
        assert_eq!(TICKS_PER_SECOND / 1_600_000_000, 16);
        assert_eq!(Time::from_ns(1.0).0, 26); // 25.6 rounds to 26
        assert_eq!(Time(16).align_up(Time(16)), Time(16));
        assert_eq!(Time(17).align_up(Time(16)), Time(32));
        assert_eq!(Time(0).align_up(Time(16)), Time(0));
        assert_eq!(Time(25).align_up(Time(24)), Time(48));
        assert_eq!(Time(5).align_up(Time(0)), Time(5));
    }

    #[test]
    fn sums_saturate_past_the_horizon_instead_of_wrapping() {
        assert_eq!(Time(u64::MAX - 1) + Time(5), Time(u64::MAX));
        let mut t = Time::HORIZON;
        t += Time(u64::MAX);
        assert!(t >= Time::HORIZON);
    }
}
