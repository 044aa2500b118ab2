//! The collective library: every algorithm gives the reference result, through the data-only
//! interpreter over SPE counts, roots and sizes, and on the simulated blade (real bytes through
//! the notification protocol) over placements; bad requests fail with their reason.

use cellblade::coll::algorithms::REGISTRY;
use cellblade::coll::data::{Dtype, ReduceOp};
use cellblade::coll::verify::verify;
use cellblade::coll::{measure, Setup};
use cellblade::machine::config::{load, preset_text};
use proptest::prelude::*;

fn applicable(a: &cellblade::coll::algorithms::Algorithm, p: usize) -> bool {
    (!a.pow2 || p.is_power_of_two()) && p >= a.min_spes
}

proptest! {
    // A fixed seed: the same cases on every run, as CI needs.
    #![proptest_config(ProptestConfig { cases: 200, rng_seed: proptest::test_runner::RngSeed::Fixed(20261122), ..ProptestConfig::default() })]
    #[test]
    fn every_schedule_computes_the_reference(alg in 0..REGISTRY.len(), p in 1usize..=16, root in 0usize..16, quads in 1u32..64,
                                             dtype in prop::sample::select(vec![Dtype::Int32, Dtype::Float32, Dtype::Float64]),
                                             rop in prop::sample::select(vec![ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max, ReduceOp::Prod])) {
        let a = &REGISTRY[alg];
        prop_assume!(applicable(a, p));
        let size = 16 * p as u32 * quads;
        let s = a.schedule(p, root % p, size).unwrap();
        prop_assert!(verify(&s, dtype, rop).is_ok(), "{}: {:?}", a.name, verify(&s, dtype, rop));
    }

    /// Any number of elements: the message is padded to whole quadwords (or p segments of them).
    #[test]
    fn any_number_of_elements_is_padded_and_computes_the_reference(alg in 0..REGISTRY.len(), p in 1usize..=16, root in 0usize..16, elements in 1u32..300,
                                                                  dtype in prop::sample::select(vec![Dtype::Int32, Dtype::Float64])) {
        let a = &REGISTRY[alg];
        prop_assume!(applicable(a, p));
        let size = elements * dtype.bytes();
        let s = a.schedule(p, root % p, size).unwrap();
        prop_assert!(s.op == cellblade::coll::schedule::Op::Barrier || (s.size >= size && s.size < size + 16 * p as u32));
        prop_assert!(verify(&s, dtype, ReduceOp::Sum).is_ok(), "{} p={p} size={size}: {:?}", a.name, verify(&s, dtype, ReduceOp::Sum));
    }
}

#[test]
fn every_algorithm_for_every_spe_count_and_several_roots() {
    for a in REGISTRY {
        for p in (1..=16).filter(|&p| applicable(a, p)) {
            for root in [0, p / 2, p - 1] {
                // One element per segment, an odd number of quadwords, and a large message.
                for size in [16 * p as u32, 16 * p as u32 * 5, 16 * p as u32 * 64] {
                    for (dtype, rop) in [(Dtype::Int32, ReduceOp::Sum), (Dtype::Float64, ReduceOp::Max)] {
                        let s = a.schedule(p, root, size).unwrap();
                        if let Err(e) = verify(&s, dtype, rop) {
                            panic!("{} p={p} root={root} size={size}: {e}", a.name);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_algorithm_verifies_on_the_simulated_blade() {
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let evenodd16: Vec<usize> = vec![0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15];
    for a in REGISTRY {
        for (p, placement, root) in [(8, (0..8).collect::<Vec<_>>(), 0), (16, evenodd16.clone(), 3), (6, vec![7, 1, 3, 0, 5, 2], 1)] {
            if !applicable(a, p) {
                continue;
            }
            let root = if a.name.contains("two_to_all") || a.name.contains("hybrid") { 0 } else { root };
            let setup = Setup { root, placement, dtype: Dtype::Float32, rop: ReduceOp::Sum, iterations: 1 };
            let r = measure(&file, a, 16 * 16 * 4, &setup).unwrap();
            assert!(r.verified, "{} on {p} SPEs", a.name);
            assert!(r.latency_ns > 0.0);
            if p == 6 {
                // Three elements: padded to a quadword (or six), reported as asked.
                let r = measure(&file, a, 12, &setup).unwrap();
                assert!(
                    r.verified && r.size_bytes == if a.op == cellblade::coll::schedule::Op::Barrier { 0 } else { 12 },
                    "{} with 3 elements",
                    a.name
                );
            }
        }
    }
}

#[test]
fn bad_requests_say_why() {
    let err = |req: &str| cellblade::api::run_json::<cellblade::coll::request::RunRequest>(req).unwrap_err().to_string();
    assert!(err(r#"{"op": "allgather", "spes": 17}"#).contains("spes 17 is not allowed: 1 to 16"));
    assert!(err(r#"{"op": "reduce", "spes": 8, "root": 8, "algorithms": ["reduce.binomial"]}"#).contains("root 8 is not allowed: 0 to 7"));
    assert!(err(r#"{"op": "allreduce", "spes": 8, "sizes": [20], "dtype": "float64"}"#)
        .contains("sizes 20 is not allowed: a multiple of the element size (8 bytes)"));
    assert!(err(r#"{"op": "allgather", "algorithms": ["allgather.spiral"]}"#)
        .contains("algorithms allgather.spiral is not allowed: one of barrier.rdb,"));
    assert!(
        err(r#"{"op": "allgather", "spes": 6, "algorithms": ["allgather.rdb"]}"#).contains("needs a power-of-two number of SPEs, got 6")
    );
    assert!(err(r#"{"op": "allgather", "algorithms": ["reduce.binomial"]}"#)
        .contains("reduce.binomial belongs to operation reduce, not allgather"));
    assert!(err(r#"{"op": "broadcast", "sizes": [262144], "algorithms": ["broadcast.ota"]}"#)
        .contains("broadcast.ota: does not fit: needs 262656 bytes, the local store has 262144"));
    assert!(err(r#"{"op": "scatter"}"#).contains("op scatter is not allowed: one of barrier, broadcast"));
    assert!(err(r#"{"op": "reduce", "sizes": [0]}"#).contains("sizes 0 is not allowed: at least one element"));
    assert!(err(r#"{"op": "barrier", "iterations": 0}"#).contains("iterations 0 is not allowed: at least 1"));
}

#[test]
fn a_timed_run_longer_than_the_decrementer_counts_is_refused() {
    // A 1 GHz decrementer wraps after 4.29 s; with 31 us atomic hits an atomic barrier takes
    // about 90 us, so some 50000 calls pass it (few events each: the test stays quick).
    let sets = r#"["clock.decrementer_hz=1000000000", "atomic.hit_core_cycles=100000", "eib.command_phase_bus_cycles=10000", "mfc.tag_update_bus_cycles=10000", "mfc.issue_core_cycles=10000", "spu.channel_core_cycles=1000", "spu.poll_core_cycles=1000"]"#;
    let req = |iterations: u32| {
        format!(r#"{{"op": "barrier", "spes": 2, "algorithms": ["barrier.atomic"], "iterations": {iterations}, "set": {sets}}}"#)
    };
    let coll_run = |req: &str| cellblade::api::run_json::<cellblade::coll::request::RunRequest>(req);
    let ok: serde_json::Value = serde_json::from_str(&coll_run(&req(20)).unwrap()).unwrap();
    let per_call = ok["result"][0]["latency_ns"].as_f64().unwrap();
    let n = (5e9 / per_call).ceil() as u32;
    let e = coll_run(&req(n)).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("iterations {n} is not allowed: rank "))
            && e.ends_with("longer than its 32-bit decrementer counts before it wraps (4.3 s)"),
        "{per_call} {e}"
    );
    // Within the span the run is measured (a shorter first estimate: no more warm-up share).
    let lat: serde_json::Value = serde_json::from_str(&coll_run(&req((3.8e9 / per_call) as u32)).unwrap()).unwrap();
    assert!((lat["result"][0]["latency_ns"].as_f64().unwrap() - per_call).abs() < 0.1 * per_call, "{lat}");
}

#[test]
fn the_largest_message_that_fits_runs_and_one_more_quadword_fails_clearly() {
    use cellblade::coll::lower::Layout;
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let setup = Setup { root: 0, placement: (0..8).collect(), dtype: Dtype::Int32, rop: ReduceOp::Sum, iterations: 1 };
    for a in REGISTRY.iter().filter(|a| a.op != cellblade::coll::schedule::Op::Barrier) {
        let fits = |size: u32| Layout::footprint(&a.schedule(8, 0, size).unwrap()) <= u64::from(file.spu.ls_bytes);
        // The largest multiple of 128 bytes (a whole segment for every algorithm on 8 SPEs) that fits.
        let (mut lo, mut hi) = (128u32, file.spu.ls_bytes);
        while hi - lo > 128 {
            let mid = (lo + hi) / 2 / 128 * 128;
            if fits(mid) {
                lo = mid
            } else {
                hi = mid
            }
        }
        assert!(verify(&a.schedule(8, 0, lo).unwrap(), Dtype::Int32, ReduceOp::Sum).is_ok(), "{} at {lo} B", a.name);
        let r = measure(&file, a, lo, &setup).unwrap();
        assert!(r.verified, "{} at its largest size {lo} B", a.name);
        let err = measure(&file, a, hi, &setup).unwrap_err().to_string();
        let need = Layout::footprint(&a.schedule(8, 0, hi).unwrap());
        assert_eq!(err, format!("{}: does not fit: needs {need} bytes, the local store has 262144", a.name));
    }
}

/// Every collective on the simulated blade (real bytes through the notification protocol), for
/// every SPE count it accepts from 1 to 16 and two roots: the first rank and the last. Small
/// messages and one iteration keep it fast. An algorithm that only takes root 0 must say so.
#[test]
fn every_collective_runs_on_the_blade_for_every_spe_count_and_two_roots() {
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let mut runs = 0;
    for a in REGISTRY {
        for p in (1..=16).filter(|&p| applicable(a, p)) {
            for root in [0, p - 1] {
                let size = 16 * p as u32;
                if let Err(e) = a.schedule(p, root, size) {
                    assert!(root != 0 && e.to_string().contains("root"), "{} p={p} root={root}: {e}", a.name);
                    continue;
                }
                let setup = Setup { root, placement: (0..p).collect(), dtype: Dtype::Int32, rop: ReduceOp::Sum, iterations: 1 };
                let r = measure(&file, a, size, &setup).unwrap_or_else(|e| panic!("{} p={p} root={root}: {e}", a.name));
                // One SPE has nobody to talk to; more take time.
                assert!(r.verified && (r.latency_ns > 0.0) == (p > 1), "{} p={p} root={root}: {} ns", a.name, r.latency_ns);
                runs += 1;
            }
        }
    }
    // Most algorithms take any root: the loop must not have skipped its way to a pass.
    assert!(runs > 600, "{runs} runs");
}
