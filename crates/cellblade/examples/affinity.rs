//! Print each placement's bandwidth on a pattern: `cargo run --release --example affinity -- ring`.
use cellblade::affinity::{pattern, placement::Placement, run, Choice};
use cellblade::machine::config::{load, preset_text};

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "ring".into());
    let reps: u32 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let size = pattern::default_size(&name).unwrap();
    let pat = pattern::build(&name, 8, size).unwrap();
    let mut choices: Vec<Choice> = cellblade::affinity::placement::named().map(|n| Choice::Fixed(n.into(), Placement::named(n, 8).unwrap())).collect();
    choices.push(Choice::Default);
    for c in choices {
        let t = std::time::Instant::now();
        let r = run(&file, &pat, &c, 8, 4, reps, 1).unwrap();
        println!("{:<10} min {:6.2} mean {:6.2} sd {:5.2} lat {:8.2} us  ({:.2}s)", r.placement, r.min_bandwidth_gbps, r.mean_bandwidth_gbps, r.stddev_gbps, r.latency_us, t.elapsed().as_secs_f64());
    }
}
