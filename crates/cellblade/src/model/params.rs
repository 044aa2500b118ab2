//! The parameters of seed 003's extended PLogP model (§3.1, §3.3): latency L(m), gap g(m),
//! BIF congestion C(m, n) and compute time per byte gamma, as measured on a blade.
//!
//! They serialise to TOML a person can read and edit: every key names its unit (`_ns`,
//! `_bytes`, `_ns_per_byte`), per-size values are arrays over `sizes_bytes`. Loading checks
//! that every array has one value per size and that no value is negative.
//!
//! Between measured sizes a value is interpolated linearly in m (latency grows linearly with
//! bytes once packets stream); below the smallest size the smallest size's value holds (seed 003
//! §7.2: "performance of data sizes less than 64 bytes is the same as ... at 64 bytes"); above
//! the largest it is extrapolated from the last two sizes and the lookup says so.

use serde::{Deserialize, Serialize};

use crate::error::{config_err, Result};
use crate::machine::config::{at_line, one_line};

/// One point of the BIF-n butterfly micro-benchmark (seed 003 §3.3, figure 8).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CongestionRow {
    /// Messages crossing the BIF at once (BIF-n).
    pub bif_messages: u32,
    pub size_bytes: u32,
    /// Mean time of the n DMAs, each SPE looping at its own pace (the seed's method).
    pub latency_ns: f64,
    /// C(m, n): latency over the BIF-2 latency at the same size (0 for n <= 2 by definition).
    pub excess_ns: f64,
    /// Time of the slowest of the n DMAs when all n are issued at one instant, as a round of a
    /// collective issues them; the round ends with its slowest transfer (the schedule price's C).
    pub slowest_latency_ns: f64,
    /// Its excess over the same measure of BIF-2 (0 for n <= 2, as `excess_ns`).
    pub slowest_excess_ns: f64,
}

/// Compute time per byte of one reduction (seed 003 §3.1: gamma).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GammaRow {
    pub dtype: String,
    pub op: String,
    pub ns_per_byte: f64,
}

/// The measured parameters. L1/g1 are on one chip, L2/g2 across the BIF; `g` is the gap on a
/// single chip (only that chip's SPEs active), g1/g2 with all 16 SPEs active.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelParams {
    /// Where these numbers come from (machine preset or file, and the benchmark settings).
    pub source: String,
    /// Message sizes m of every per-size array below.
    pub sizes_bytes: Vec<u32>,
    /// Half the figure 3(a) round trip (ACK array only), one chip: L1(1) for barriers.
    pub l1_ack_ns: f64,
    /// The same across the BIF: L2(1) for barriers.
    pub l2_ack_ns: f64,
    /// Half the figure 3(b) round trip (ADDR, get of m bytes, ADDR), one chip: L1(m).
    pub l1_ns: Vec<f64>,
    /// The same across the BIF: L2(m).
    pub l2_ns: Vec<f64>,
    /// One chip: one root, the 7 other SPEs get m bytes from it at once; total time over 7.
    pub g_ns: Vec<f64>,
    /// Blade: one root, 15 SPEs get at once; the root chip's 7 (time of the last over 7).
    pub g1_ns: Vec<f64>,
    /// Blade: the other chip's 8 (time of the last over 8).
    pub g2_ns: Vec<f64>,
    /// The gap of 16-byte ACKs sent to one SPE at once: one chip, and each chip of the blade.
    pub g_ack_ns: f64,
    pub g1_ack_ns: f64,
    pub g2_ack_ns: f64,
    /// One SPE sends 16-byte notes to 7 others back to back: the time between two (LogP's g at
    /// the sender; not in the seed, used by the schedule price).
    pub g_note_issue_ns: f64,
    /// Kielmann's gap (PLogP's usual measure, the baseline of seed 003 figure 11): one SPE gets
    /// m bytes from another 8 times back to back; the time over 8.
    pub g_kielmann_ns: Vec<f64>,
    /// The butterfly BIF-n benchmark, every n and size.
    pub congestion: Vec<CongestionRow>,
    pub gamma: Vec<GammaRow>,
    /// The SPU's local copy (a staging copy of the CML-style baseline), per byte.
    pub copy_ns_per_byte: f64,
}

/// A looked-up value and whether it was extrapolated past the largest measured size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lookup {
    pub ns: f64,
    pub extrapolated: bool,
}

impl ModelParams {
    /// The TOML text, with a header saying what the keys mean.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("model parameters serialise");
        format!(
            "# Extended PLogP parameters (seed 003 §3.3) measured on the simulated blade.\n\
             # Units are in the key names: _ns nanoseconds, _bytes bytes, ns_per_byte.\n\
             # Per-size arrays have one value per entry of sizes_bytes. Edit and pass with\n\
             # `cellblade model predict --params FILE`.\n{body}"
        )
    }

    /// Parse and check a parameter file.
    pub fn from_toml(text: &str) -> Result<ModelParams> {
        // Syntax first, then the keys, as a machine file is read: each error gives its line.
        let _: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| config_err(format!("model parameters do not parse{}: {}", at_line(text, &e), one_line(&e))))?;
        let p: ModelParams = serde_path_to_error::deserialize(toml::Deserializer::new(text)).map_err(|e| {
            // An error of the whole file (a missing key) has no line worth naming.
            let place = match e.path().to_string() {
                root if root == "." => String::new(),
                key => format!(" key '{key}'{}", at_line(text, e.inner())),
            };
            config_err(format!("model parameters{place}: {}", e.inner().message()))
        })?;
        p.check()?;
        Ok(p)
    }

    /// Every per-size array has one value per size, sizes rise, and nothing is negative.
    pub fn check(&self) -> Result<()> {
        let n = self.sizes_bytes.len();
        if n < 2 || self.sizes_bytes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(config_err("model parameters: sizes_bytes must list at least two rising sizes"));
        }
        let arrays = [
            ("l1_ns", &self.l1_ns),
            ("l2_ns", &self.l2_ns),
            ("g_ns", &self.g_ns),
            ("g1_ns", &self.g1_ns),
            ("g2_ns", &self.g2_ns),
            ("g_kielmann_ns", &self.g_kielmann_ns),
        ];
        for (name, a) in arrays {
            if a.len() != n {
                return Err(config_err(format!("model parameters: {name} has {} values, sizes_bytes has {n}: one per size", a.len())));
            }
            if let Some((i, v)) = a.iter().enumerate().find(|(_, v)| !v.is_finite() || **v < 0.0) {
                return Err(config_err(format!("model parameters: {name}[{i}] = {v} is not allowed: a time of 0 ns or more")));
            }
        }
        let scalars = [
            ("l1_ack_ns", self.l1_ack_ns),
            ("l2_ack_ns", self.l2_ack_ns),
            ("g_ack_ns", self.g_ack_ns),
            ("g1_ack_ns", self.g1_ack_ns),
            ("g2_ack_ns", self.g2_ack_ns),
            ("copy_ns_per_byte", self.copy_ns_per_byte),
            ("g_note_issue_ns", self.g_note_issue_ns),
        ];
        if let Some((name, v)) = scalars.iter().find(|(_, v)| !v.is_finite() || *v < 0.0) {
            return Err(config_err(format!("model parameters: {name} = {v} is not allowed: a time of 0 ns or more")));
        }
        for r in &self.congestion {
            let times = [("latency_ns", r.latency_ns), ("slowest_latency_ns", r.slowest_latency_ns)];
            if let Some((name, v)) = times.iter().find(|(_, v)| !v.is_finite() || *v < 0.0) {
                return Err(config_err(format!(
                    "model parameters: congestion bif_messages={} size_bytes={}: {name} = {v} is not allowed: a time of 0 ns or more",
                    r.bif_messages, r.size_bytes
                )));
            }
            let excesses = [("excess_ns", r.excess_ns), ("slowest_excess_ns", r.slowest_excess_ns)];
            if let Some((name, v)) = excesses.iter().find(|(_, v)| !v.is_finite()) {
                return Err(config_err(format!(
                    "model parameters: congestion bif_messages={} size_bytes={}: {name} = {v} is not allowed: a finite number of ns",
                    r.bif_messages, r.size_bytes
                )));
            }
        }
        if let Some(g) = self.gamma.iter().find(|g| !g.ns_per_byte.is_finite() || g.ns_per_byte < 0.0) {
            return Err(config_err(format!(
                "model parameters: gamma {} {} = {} is not allowed: 0 or more ns per byte",
                g.dtype, g.op, g.ns_per_byte
            )));
        }
        Ok(())
    }

    pub fn copy_ns_per_byte(&self) -> f64 {
        self.copy_ns_per_byte
    }

    /// The largest measured size.
    pub fn max_size(&self) -> u32 {
        *self.sizes_bytes.last().expect("checked: at least two sizes")
    }

    /// Interpolate `values` (one per size) at `m` bytes.
    pub fn at(&self, values: &[f64], m: u32) -> Lookup {
        interpolate(&self.sizes_bytes, values, m)
    }

    /// Gamma for `dtype` (any op: the SPU combines every op at the same rate).
    pub fn gamma_ns_per_byte(&self, dtype: &str) -> Result<f64> {
        self.gamma
            .iter()
            .find(|g| g.dtype == dtype)
            .map(|g| g.ns_per_byte)
            .ok_or_else(|| config_err(format!("model parameters: no gamma for dtype '{dtype}'")))
    }

    /// C(m, n): the excess latency of n BIF-crossing messages of m bytes over BIF-2. n is
    /// rounded up to the next measured count; 0 for n <= 2 (the seed's baseline).
    pub fn congestion_ns(&self, m: u32, n: u32) -> Lookup {
        self.congestion_lookup(m, n, |r| r.excess_ns)
    }

    /// The slowest DMA's excess of the BIF-n butterfly over BIF-2, looked up as [`Self::congestion_ns`].
    pub fn slowest_congestion_ns(&self, m: u32, n: u32) -> Lookup {
        self.congestion_lookup(m, n, |r| r.slowest_excess_ns)
    }

    fn congestion_lookup(&self, m: u32, n: u32, value: impl Fn(&CongestionRow) -> f64) -> Lookup {
        if n <= 2 {
            return Lookup { ns: 0.0, extrapolated: false };
        }
        let counts: Vec<u32> = {
            let mut c: Vec<u32> = self.congestion.iter().map(|r| r.bif_messages).collect();
            c.sort_unstable();
            c.dedup();
            c
        };
        let Some(&want) = counts.iter().find(|&&c| c >= n).or(counts.last()) else {
            return Lookup { ns: 0.0, extrapolated: true };
        };
        let rows: Vec<&CongestionRow> = self.congestion.iter().filter(|r| r.bif_messages == want).collect();
        let sizes: Vec<u32> = rows.iter().map(|r| r.size_bytes).collect();
        let excess: Vec<f64> = rows.iter().map(|r| value(r)).collect();
        let mut l = interpolate(&sizes, &excess, m);
        l.extrapolated |= n > want;
        l.ns = l.ns.max(0.0);
        l
    }
}

/// Piecewise-linear in m; flat below the first size; the last segment's slope above the last.
pub fn interpolate(sizes: &[u32], values: &[f64], m: u32) -> Lookup {
    let n = sizes.len().min(values.len());
    if n == 0 {
        return Lookup { ns: 0.0, extrapolated: true };
    }
    if m <= sizes[0] || n == 1 {
        return Lookup { ns: values[0], extrapolated: m > sizes[0] };
    }
    let i = sizes[..n].iter().position(|&s| s >= m).unwrap_or(n - 1).max(1);
    let (s0, s1, v0, v1) = (sizes[i - 1] as f64, sizes[i] as f64, values[i - 1], values[i]);
    let ns = v0 + (v1 - v0) * (m as f64 - s0) / (s1 - s0);
    Lookup { ns, extrapolated: m > sizes[n - 1] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_is_linear_between_sizes_flat_below_and_flags_extrapolation() {
        let s = [64, 128, 256];
        let v = [10.0, 20.0, 40.0];
        assert_eq!(interpolate(&s, &v, 16), Lookup { ns: 10.0, extrapolated: false });
        assert_eq!(interpolate(&s, &v, 96), Lookup { ns: 15.0, extrapolated: false });
        assert_eq!(interpolate(&s, &v, 256), Lookup { ns: 40.0, extrapolated: false });
        assert_eq!(interpolate(&s, &v, 512), Lookup { ns: 80.0, extrapolated: true });
    }
}
