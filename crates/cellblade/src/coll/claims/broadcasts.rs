//! Seed 000 §4's broadcast claims.

use super::{best_at, checked, is_best, pairs, sweep, winners, S4};
use crate::error::Result;
use crate::evidence::claim::claim;
use crate::evidence::rules::{beats_everywhere, up_to};
use crate::evidence::Claim;
use crate::machine::config::MachineFile;

/// The broadcast claims.
pub fn claims(file: &MachineFile, quick: bool) -> Result<Vec<Claim>> {
    let it = if quick { 5 } else { 20 };
    let mut out = Vec::new();
    let sizes: Vec<u32> = (7..=15).map(|k| 1 << k).collect();
    let bc = [
        "broadcast.ota",
        "broadcast.two_to_all",
        "broadcast.binomial_simple",
        "broadcast.binomial_opt",
        "broadcast.segmented",
        "broadcast.hybrid_segmented",
    ];
    let t8 = sweep(file, 8, &bc, &sizes, it)?;
    let small_ota = sizes.iter().filter(|&&s| s <= 2048).all(|&s| is_best(&t8, &bc, s, "broadcast.ota"));
    // "Above 2-4 KB": segmented best at every size above 2 KB.
    let large_seg = sizes.iter().filter(|&&s| s > 2048).all(|&s| is_best(&t8, &bc, s, "broadcast.segmented"));
    out.push(checked(
        claim(
            "broadcast, 8 SPEs: one-to-all best up to 2 KB, segmented binomial above 2-4 KB",
            S4,
            "ota <= 2 KB, segmented >= 4 KB",
            winners(&t8, &bc, &sizes),
            small_ota && large_seg,
            "checked: ota best up to 2 KB, segmented best at every size above 2 KB",
        ),
        &[&t8],
    ));
    let t16 = sweep(file, 16, &bc, &sizes, it)?;
    let small_two = sizes.iter().filter(|&&s| s <= 1024).all(|&s| is_best(&t16, &bc, s, "broadcast.two_to_all"));
    let large_hyb = sizes.iter().filter(|&&s| s >= 4096).all(|&s| is_best(&t16, &bc, s, "broadcast.hybrid_segmented"));
    out.push(checked(
        claim(
            "broadcast, 16 SPEs: two-to-all best for small sizes, hybrid segmented binomial above 2 KB",
            S4,
            "two-to-all small, hybrid segmented > 2 KB",
            winners(&t16, &bc, &sizes),
            small_two && large_hyb,
            "checked: two-to-all up to 1 KB, hybrid from 4 KB",
        ),
        &[&t16],
    ));
    // "a non-hybrid 16 SPE segmented binomial would result in an exchange of 14 messages over
    // the BIF ... Its performance is thus worse than even an unsegmented binomial tree", said of
    // the sizes above 2 KB where the hybrid is best.
    let above2k: Vec<u32> = sizes.iter().copied().filter(|&s| s > 2048).collect();
    let seg_worse = pairs(&t16, "broadcast.binomial_opt", "broadcast.segmented", &above2k);
    out.push(checked(
        claim(
            "broadcast, 16 SPEs: segmented binomial is worse than the unsegmented binomial above 2 KB",
            S4,
            "segmented slower than binomial > 2 KB",
            seg_worse
                .iter()
                .zip(&above2k)
                .map(|((b, g), z)| format!("{z}: segmented {:+.0}%", 100.0 * (g / b - 1.0)))
                .collect::<Vec<_>>()
                .join(", "),
            beats_everywhere(&seg_worse),
            "against binomial_opt (the optimized versions are the ones compared)",
        ),
        &[&t16],
    ));
    // The whole statement: opt beats simple at every size on 8 and 16 SPEs, by up to 42%.
    let opt_simple: Vec<(f64, f64)> =
        [&t8, &t16].iter().flat_map(|t| pairs(t, "broadcast.binomial_opt", "broadcast.binomial_simple", &sizes)).collect();
    let gain = opt_simple.iter().map(|(o, s)| 1.0 - o / s).fold(f64::MIN, f64::max);
    let losses: Vec<String> = [(8, &t8), (16, &t16)]
        .iter()
        .flat_map(|(p, t)| {
            sizes
                .iter()
                .zip(pairs(t, "broadcast.binomial_opt", "broadcast.binomial_simple", &sizes))
                .filter(|(_, (o, s))| o >= s)
                .map(move |(z, (o, s))| format!("{p} SPEs {z} B: +{:.0}%", 100.0 * (o / s - 1.0)))
        })
        .collect();
    out.push(checked(
        claim(
            "ordered (opt) binomial broadcast beats simple, by up to 42%",
            S4,
            "opt faster at every size, up to 42% less latency",
            format!(
                "up to {:.0}% less; slower at {}",
                100.0 * gain,
                if losses.is_empty() { "no size".to_string() } else { losses.join(", ") }
            ),
            beats_everywhere(&opt_simple) && up_to(gain, 0.42),
            "8 and 16 SPEs, 128 B to 32 KB",
        ),
        &[&t8, &t16],
    ));
    let bc_cml: Vec<&str> = bc.iter().copied().chain(["broadcast.cml"]).collect();
    for (p, t) in [(8, &t8), (16, &t16)] {
        let c = sweep(file, p, &["broadcast.cml"], &sizes, it)?;
        let vs: Vec<(f64, f64)> =
            sizes.iter().filter_map(|&s| Some((best_at(t, &bc, s).1, *c.get(&("broadcast.cml".into(), s))?))).collect();
        let ratios: Vec<f64> = vs.iter().map(|(b, c)| c / b).collect();
        let (lo, hi) = (ratios.iter().copied().fold(f64::MAX, f64::min), ratios.iter().copied().fold(0.0, f64::max));
        out.push(checked(
            claim(
                &format!("broadcast, {p} SPEs: the best new algorithm beats the CML-style binomial at every size"),
                S4,
                "best < CML everywhere",
                format!("CML / best: {lo:.2}x to {hi:.2}x"),
                beats_everywhere(&vs),
                &format!("{} algorithms compared", bc_cml.len()),
            ),
            &[t, &c],
        ));
    }
    Ok(out)
}
