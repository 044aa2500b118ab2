//! The cross-chip rows that `bif.noncacheable_crossing_ns` and `bif.crossing_latency_ns` move, for
//! machine-file overrides: `cargo run --release --example cross_chip -- bif.noncacheable_crossing_ns=200`.
use cellblade::machine::config::{load, preset_text};

fn main() {
    let set: Vec<String> = std::env::args().skip(1).collect();
    let file = load(preset_text("qs20").unwrap(), &set).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    let rows = cellblade::calibrate::run_all(&file).unwrap();
    for r in rows
        .iter()
        .filter(|r| r.name.contains("other chip") || r.name.contains("chip 1") || r.name.contains("XDRAM1") || r.name.contains("shared"))
    {
        println!("{:<64} {:>9.1} {:>9.1} {:>+6.1}%", r.name, r.published, r.simulated, 100.0 * r.error);
    }
    let (one, two) = cellblade::coll::claims::signal_barriers(&file, 20).unwrap();
    println!(
        "{:<64} {:>9.1} {:>9.1} {:>+6.1}%",
        "signal barrier 16 SPEs, one root (seed 002 §5.2)",
        2700.0,
        one,
        100.0 * (one / 2700.0 - 1.0)
    );
    println!(
        "{:<64} {:>9.1} {:>9.1} {:>+6.1}%",
        "signal barrier 16 SPEs, a root per chip (seed 002 §5.2)",
        700.0,
        two,
        100.0 * (two / 700.0 - 1.0)
    );
}
