//! The performance model of seed 003: micro-benchmarks on the simulated blade, parameter files,
//! the seed's equations and the schedule pricer.

use cellblade::machine::config;
use cellblade::model::{measure, MeasureRequest, ModelParams};

fn qs20() -> config::MachineFile {
    config::load(config::preset_text("qs20").unwrap(), &[]).unwrap()
}

fn quick() -> MeasureRequest {
    MeasureRequest { sizes: vec![64, 1024, 16384], iterations: 8 }
}

#[test]
fn micro_benchmarks_show_the_blade_structure() {
    let p = measure(&qs20(), &quick()).unwrap();
    println!("{}", p.to_toml());
    // The BIF costs a crossing each way: L2 above L1, for ACKs and data.
    assert!(p.l2_ack_ns > p.l1_ack_ns + 100.0, "{} vs {}", p.l2_ack_ns, p.l1_ack_ns);
    for i in 0..3 {
        assert!(p.l2_ns[i] > p.l1_ns[i]);
        assert!(p.l1_ns[i] > p.l1_ack_ns);
    }
    // Latency grows with size.
    assert!(p.l1_ns[2] > p.l1_ns[0] + 300.0);
    // The file round-trips through its TOML text.
    assert_eq!(ModelParams::from_toml(&p.to_toml()).unwrap(), p);
}
