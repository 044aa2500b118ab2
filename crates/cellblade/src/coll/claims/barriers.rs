//! Seed 000 §4's barrier claims and seed 002 §5.2's signal barriers.

use super::{best_at, checked, is_best, sweep, winners, S4};
use crate::error::Result;
use crate::evidence::claim::claim;
use crate::evidence::rules::{about, measured, same};
use crate::evidence::Claim;
use crate::machine::config::MachineFile;

/// Why the 16-SPE CML barrier is what it is: the per-message cost is fitted at 8 SPEs.
const CML16_NOTE: &str = "a prediction of spu.cml_message_core_cycles, fitted on the 8-SPE row: rdb has 4 rounds here against 3, so CML's per-message code costs a third more per call, where the seed's figures (CML about 300 ns at 8 SPEs, 600 at 16) are 75 ns above rdb at both sizes";

/// The barrier claims.
pub fn claims(file: &MachineFile, quick: bool) -> Result<Vec<Claim>> {
    let it = if quick { 25 } else { 100 };
    let mut out = Vec::new();
    let b8 = sweep(file, 8, &["barrier.rdb", "barrier.ota", "barrier.bruck"], &[0], it)?;
    for n in ["barrier.rdb", "barrier.ota", "barrier.bruck"] {
        let v = b8[&(n.to_string(), 0)];
        out.push(checked(
            claim(&format!("{n} on 8 SPEs takes 225 ns"), S4, "225 ns", format!("{v:.0} ns"), measured(v, 225.0), ""),
            &[&b8],
        ));
    }
    let bars = ["barrier.rdb", "barrier.ota", "barrier.bruck", "barrier.gather_bcast"];
    let b16 = sweep(file, 16, &bars, &[0], it)?;
    let rdb16 = b16[&("barrier.rdb".to_string(), 0)];
    out.push(checked(
        claim("barrier.rdb on 16 SPEs takes 525 ns", S4, "525 ns", format!("{rdb16:.0} ns"), measured(rdb16, 525.0), ""),
        &[&b16],
    ));
    let best16 = best_at(&b16, &bars, 0);
    out.push(checked(
        claim(
            "on 16 SPEs the rdb barrier is the best",
            S4,
            "rdb best",
            format!("best {} {:.0} ns", best16.0, best16.1),
            is_best(&b16, &bars, 0, "barrier.rdb"),
            "",
        ),
        &[&b16],
    ));
    let extra8 = sweep(file, 8, &["barrier.ota_signal", "barrier.atomic"], &[0], it)?;
    let sig = extra8[&("barrier.ota_signal".to_string(), 0)];
    out.push(checked(
        claim(
            "barrier.ota_signal (OR-mode signal registers) on 8 SPEs takes 400 ns",
            S4,
            "400 ns",
            format!("{sig:.0} ns"),
            measured(sig, 400.0),
            "fitted: spu.signal_call_core_cycles (the control code around the signals, run once per call) is chosen on this row; the signals themselves cost what the signal sync rows of seed 002 give",
        )
        .fitted(),
        &[&extra8],
    ));
    let ota8 = b8[&("barrier.ota".to_string(), 0)];
    // "The OTA signal register implementation is slightly slower than the OTA DMA based
    // implementation": slower, and by no more than "the same" allows. Fitted: the signal
    // barrier's margin over the DMA one is the control code chosen on the 400 ns row (without
    // it the signal barrier is the faster), and the seed's own 400 ns against 225 ns is not
    // "slightly".
    out.push(checked(
        claim(
            "barrier.ota_signal is slightly slower than barrier.ota (extra control code, the OR)",
            S4,
            "signal slightly slower than DMA",
            format!("signal {sig:.0} ns, DMA {ota8:.0} ns ({:+.0}%)", 100.0 * (sig / ota8 - 1.0)),
            sig > ota8 && same(sig, ota8),
            "fitted: spu.signal_call_core_cycles (fitted on the 400 ns row) is what makes the signal barrier the slower one (with it at 0 the signal barrier is faster), so this claim is in sample; 'slightly' is 'the same' rule's 10%, which the seed's own 400 ns against 225 ns does not meet either",
        )
        .fitted(),
        &[&b8, &extra8],
    ));
    let atomic = extra8[&("barrier.atomic".to_string(), 0)];
    out.push(checked(claim("centralized atomic-increment barrier, 8 SPEs", S4, "35 us", format!("{:.1} us", atomic / 1000.0), measured(atomic, 35_000.0),
        "the seed does not describe its implementation; here arrivals are fetch-and-adds on one line (each hand-over of it 500 ns, atomic.handover_bus_cycles fitted on seed 002 §4.5.1's 16-SPE row) and the root releases each rank by a fetch-and-add on its line; 35 us is about 70 hand-overs, where this barrier makes about 8"), &[&extra8]));
    // "225 ns, which is 25% less latency than CML"; "525 ns, for 12.5% less latency than CML".
    for (p, less, table) in [(8usize, 0.25, &b8), (16, 0.125, &b16)] {
        let cml = sweep(file, p, &["barrier.cml"], &[0], it)?;
        let (ours, theirs) = (table[&("barrier.rdb".to_string(), 0)], cml[&("barrier.cml".to_string(), 0)]);
        let gain = 1.0 - ours / theirs;
        let c = claim(
            &format!("barrier.rdb on {p} SPEs is {}% below CML's (also rdb)", 100.0 * less),
            S4,
            &format!("{}% less than CML (CML about {:.0} ns)", 100.0 * less, if p == 8 { 225.0 / 0.75 } else { 525.0 / 0.875 }),
            format!("{:.1}% less: rdb {ours:.0} ns, barrier.cml {theirs:.0} ns", 100.0 * gain),
            measured(gain, less),
            if p == 8 {
                "fitted: spu.cml_message_core_cycles (CML's code at each end of a message) is chosen on this row; barrier.cml is rdb's rounds as receiver-initiated zero-byte messages (a request each way, then a completion each way)"
            } else {
                CML16_NOTE
            },
        );
        out.push(checked(if p == 8 { c.fitted() } else { c }, &[table, &cml]));
    }
    // "For non-power-of-two number of SPEs less than eight, Bruck and One-to-all are the best":
    // both, at each count (the near ties that count as best are shown).
    let mut np2_best = Vec::new();
    let mut np2_tables = Vec::new();
    for p in [3usize, 5, 6, 7] {
        let t = sweep(file, p, &bars, &[0], it)?;
        let ok = is_best(&t, &bars, 0, "barrier.bruck") && is_best(&t, &bars, 0, "barrier.ota");
        np2_best.push((p, winners(&t, &bars, &[0]), ok));
        np2_tables.push(t);
    }
    out.push(checked(
        claim(
            "barrier, 3 to 7 SPEs (not powers of two): Bruck and one-to-all are the best",
            S4,
            "bruck and ota best",
            np2_best.iter().map(|(p, w, _)| format!("{p} SPEs: {}", w.trim_start_matches("0: "))).collect::<Vec<_>>().join(", "),
            np2_best.iter().all(|(_, _, ok)| *ok),
            "both must be best (within 2% of the fastest) at every count, as the seed's 'and' says",
        ),
        &np2_tables.iter().collect::<Vec<_>>(),
    ));
    let b15 = sweep(file, 15, &["barrier.rdb", "barrier.bruck", "barrier.ota"], &[0], it)?;
    let (r15, k15) = (b15[&("barrier.rdb".to_string(), 0)], b15[&("barrier.bruck".to_string(), 0)]);
    out.push(checked(
        claim(
            "barrier, 15 SPEs: Bruck and rdb take the same time",
            S4,
            "bruck = rdb",
            format!("rdb {r15:.0} ns, bruck {k15:.0} ns"),
            same(r15, k15),
            "",
        ),
        &[&b15],
    ));
    // "OTA performance is worse for more than 8 SPEs because all of the BIF-crossing messages
    // are coming from a single source": slower than rdb and Bruck at 15 and 16 SPEs.
    let ota_worse: Vec<(usize, f64, f64)> = [(15usize, &b15), (16, &b16)]
        .iter()
        .map(|(p, t)| {
            let at = |n: &str| t[&(n.to_string(), 0)];
            (*p, at("barrier.ota"), at("barrier.rdb").min(at("barrier.bruck")))
        })
        .collect();
    out.push(checked(
        claim(
            "barrier, 15 and 16 SPEs: one-to-all is worse than rdb and Bruck",
            S4,
            "ota slower than rdb and bruck above 8 SPEs",
            ota_worse
                .iter()
                .map(|(p, ota, other)| format!("{p} SPEs: ota {ota:.0} ns, the faster of rdb and bruck {other:.0} ns"))
                .collect::<Vec<_>>()
                .join("; "),
            ota_worse.iter().all(|(_, ota, other)| ota > other),
            "",
        ),
        &[&b15, &b16],
    ));
    let s52 = "seed 002 §5.2";
    let sig16 = sweep(file, 16, &["barrier.ota_signal", "barrier.two_root_signal"], &[0], it)?;
    let (one_root, two_root) = (sig16[&("barrier.ota_signal".to_string(), 0)], sig16[&("barrier.two_root_signal".to_string(), 0)]);
    out.push(checked(
        claim(
            "signal barrier, 16 SPEs, one root: about 2700 ns",
            s52,
            "about 2700 ns",
            format!("{one_root:.0} ns"),
            about(one_root, 2700.0),
            "the eight chip-1 signals to the root, and its eight back, are guarded accesses across the BIF, one at a time each way; plus the control code fitted on seed 000's 8-SPE signal barrier",
        ),
        &[&sig16],
    ));
    out.push(checked(
        claim(
            "signal barrier, 16 SPEs, a root per chip: about 700 ns",
            s52,
            "about 700 ns",
            format!("{two_root:.0} ns"),
            about(two_root, 700.0),
            "the intra-chip signals, one exchange across the BIF, and the control code fitted on seed 000's 8-SPE signal barrier",
        ),
        &[&sig16],
    ));
    Ok(out)
}
