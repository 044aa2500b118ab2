//! The memory interface controller: its 25.6 GB/s is for reads and writes combined (seed 001
//! §1 and §2: "25.6 GB/s total, in both directions combined"; hardware notes §3), so SPEs that
//! GET from and PUT to the same XDRAM at once share it, while either kind alone still gets it.

use cellblade::machine::config::{load, preset_text, Params};
use cellblade::{Blade, Spu};
use proptest::prelude::*;

/// What each SPE moves: `ROUNDS` batches of 16 commands of 16 KB, the MFC queue kept full.
const CHUNK: u32 = 16384;
const ROUNDS: u64 = 2;
const BYTES_PER_SPE: u64 = ROUNDS * 16 * CHUNK as u64;

/// The MIC's peak from the machine file: one 128-byte burst per `mic.access_bus_cycles`.
fn mic_peak_gb_s() -> f64 {
    let p = Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap());
    128.0 / p.mic_access.as_ns()
}

/// GB/s sustained by a set of SPEs: all their bytes over the time from the first one's start to
/// the last one's finish.
fn rate(spans: &[(f64, f64)]) -> f64 {
    let first = spans.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
    let last = spans.iter().map(|s| s.1).fold(0.0, f64::max);
    (spans.len() as u64 * BYTES_PER_SPE) as f64 / (last - first)
}

/// SPEs `getters` GET from and `putters` PUT to chip 0's XDRAM, all at once, each its own
/// 512 KB region; returns the GB/s of the getters, of the putters, and of all together.
fn memory_traffic(getters: &[usize], putters: &[usize]) -> (f64, f64, f64) {
    let mut b = Blade::new(load(preset_text("qs20").unwrap(), &[]).unwrap(), false);
    let spans = std::rc::Rc::new(std::cell::RefCell::new(vec![(0.0, 0.0); getters.len() + putters.len()]));
    for (k, &spe) in getters.iter().chain(putters).enumerate() {
        let get = k < getters.len();
        let region = b.machine().mem.xdram_ea(0, k as u64 * BYTES_PER_SPE);
        let spans = spans.clone();
        b.spe(spe, move |spu: Spu| async move {
            let buf = spu.ls_alloc(CHUNK, 128)?;
            spu.mfc_write_tag_mask(1);
            let start = spu.now();
            for round in 0..ROUNDS {
                for i in 0..16 {
                    let ea = region + (round * 16 + i) * CHUNK as u64;
                    if get {
                        spu.mfc_get(buf, ea, CHUNK, 0).await?;
                    } else {
                        spu.mfc_put(buf, ea, CHUNK, 0).await?;
                    }
                }
                spu.mfc_read_tag_status_all().await?;
            }
            spans.borrow_mut()[k] = (start.as_ns(), spu.now().as_ns());
            Ok(())
        })
        .unwrap();
    }
    b.run().unwrap();
    let spans = spans.borrow();
    let (g, p) = spans.split_at(getters.len());
    let side = |s: &[(f64, f64)]| if s.is_empty() { 0.0 } else { rate(s) };
    (side(g), side(p), rate(&spans))
}

#[test]
fn reads_and_writes_share_the_mics_bandwidth() {
    let peak = mic_peak_gb_s();
    assert!((peak - 25.6).abs() < 1e-9, "qs20's MIC peak is {peak} GB/s");
    let (getters, putters) = ([0, 1, 2, 3], [4, 5, 6, 7]);
    let (gets, _, _) = memory_traffic(&getters, &[]);
    let (_, puts, _) = memory_traffic(&[], &putters);
    let (_, _, both) = memory_traffic(&getters, &putters);
    // Alone, four SPEs come close to the MIC's peak in either direction...
    assert!(gets > 0.9 * peak && gets <= peak * 1.001, "4 SPEs' GETs alone: {gets:.2} GB/s");
    assert!(puts > 0.9 * peak && puts <= peak * 1.001, "4 SPEs' PUTs alone: {puts:.2} GB/s");
    // ...and together they share it: the sum stays at the peak, not twice it.
    assert!(both <= peak * 1.01, "4 GET + 4 PUT SPEs: {both:.2} GB/s through one MIC");
    assert!(both > 0.9 * peak, "4 GET + 4 PUT SPEs: {both:.2} GB/s, well under the MIC's peak");
}

#[test]
fn neither_direction_starves_the_other() {
    // One burst timeline in command order, and every SPE keeps as many commands in flight:
    // four getters and four putters each get about half the MIC.
    let peak = mic_peak_gb_s();
    let (gets, puts, _) = memory_traffic(&[0, 1, 2, 3], &[4, 5, 6, 7]);
    for (what, r) in [("getters", gets), ("putters", puts)] {
        assert!(r > 0.4 * peak && r < 0.6 * peak, "{what} beside as many of the other kind: {r:.2} GB/s of {peak}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, rng_seed: proptest::test_runner::RngSeed::Fixed(20261124), ..ProptestConfig::default() })]
    /// Any split of chip 0's and chip 1's SPEs into getters and putters of XDRAM0 stays within
    /// the MIC's peak.
    #[test]
    fn mixed_traffic_never_exceeds_the_mic(gets in 0usize..=6, puts in 0usize..=6, across in 0usize..=4) {
        prop_assume!(gets + puts > 0 && gets + puts <= 8 + across);
        // The first `across` SPEs come from chip 1, the others from chip 0.
        let spes: Vec<usize> = (0..gets + puts).map(|k| if k < across { 8 + k } else { k - across }).collect();
        let (_, _, rate) = memory_traffic(&spes[..gets], &spes[gets..]);
        prop_assert!(rate <= mic_peak_gb_s() * 1.01, "{gets} getters, {puts} putters ({across} from chip 1): {rate:.2} GB/s");
    }
}

/// Seed 004 §5.1's congested ping-pong in memory mode: four pairs on chip 0, every byte through
/// XDRAM0 twice (GET from the sender's buffer, PUT into the receiver's), so a pair moves at
/// most an eighth of the MIC's peak (mpi/pingpong.rs says what this means for the published
/// 4.48 GB/s).
#[test]
fn four_pairs_ping_ponging_through_memory_share_one_mic() {
    use cellblade::mpi::{pingpong, Mode, PingPong, DEFAULT_DEPTH};
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let run = |congested| {
        pingpong(file.clone(), PingPong { mode: Mode::Memory, congested, bytes: 1 << 20, reps: 8, depth: DEFAULT_DEPTH })
            .unwrap()
            .throughput_gbps
    };
    let (alone, congested) = (run(false), run(true));
    let bound = mic_peak_gb_s() / 8.0;
    assert!(congested <= bound * 1.01, "a congested pair: {congested:.3} GB/s, above the MIC's share {bound:.2}");
    assert!(congested > 0.95 * bound, "a congested pair: {congested:.3} GB/s, well under the MIC's share {bound:.2}");
    // One pair alone is bound by its SPEs' DMAs, not by the MIC (seed 004 §5.1: about 6 GB/s).
    assert!(alone > 1.5 * bound, "one pair alone: {alone:.3} GB/s");
}
