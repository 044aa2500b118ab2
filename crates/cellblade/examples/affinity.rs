//! Print each placement's minimum bandwidth on a pattern, as seed 001 §5 reports it:
//! `cargo run --release --example affinity -- ring [reps] [trials]`.
use cellblade::affinity::{pattern, placement, run, Choice};
use cellblade::machine::config::{load, preset_text};

fn main() {
    let arg = |i: usize| std::env::args().nth(i);
    let name = arg(1).unwrap_or_else(|| "ring".into());
    let reps: u32 = arg(2).and_then(|s| s.parse().ok()).unwrap_or(cellblade::affinity::REPS);
    let trials: u32 = arg(3).and_then(|s| s.parse().ok()).unwrap_or(8);
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let pat = pattern::build(&name, 8, pattern::default_size(&name).unwrap()).unwrap();
    let mut choices: Vec<Choice> =
        placement::named().map(|n| Choice::Fixed(n.into(), placement::Placement::named(n, 8).unwrap())).collect();
    choices.push(Choice::Default);
    let cells: Vec<String> = choices
        .iter()
        .map(|c| {
            let r = run(&file, &pat, c, 8, trials, reps, 1).unwrap();
            format!("{:.1} (sd {:.1})", r.min_bandwidth_gbps, r.stddev_gbps)
        })
        .collect();
    println!("| {name} | {} |", cells.join(" | "));
}
