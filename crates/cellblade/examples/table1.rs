//! Seed 001 Table 1 alone, published beside simulated loss: `cargo run --release --example table1
//! [-- key=value ...]` (machine-file overrides as `--set` takes them).
use cellblade::affinity::rows::TABLE1;
use cellblade::machine::config::{load, preset_text};
use cellblade::stats::pattern::{run_gets, Get};

fn main() {
    let set: Vec<String> = std::env::args().skip(1).collect();
    let file = load(preset_text("qs20").unwrap(), &set).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let run = |p: &[(usize, usize, f64)]| {
        run_gets(file.clone(), &p.iter().map(|&(dst, src, _)| Get { dst, src }).collect::<Vec<_>>(), 65536, 3).unwrap()
    };
    let alone = run(TABLE1[0].1)[0];
    println!("#1 alone: published 24.3, simulated {alone:.2} GB/s");
    let (mut held, mut real, mut real_held) = (0, 0, 0);
    for (num, pattern) in &TABLE1[1..] {
        let bw = run(pattern);
        for (&(dst, src, published), got) in pattern.iter().zip(bw) {
            let (lp, ls) = (100.0 * (1.0 - published / 24.3), 100.0 * (1.0 - got / alone));
            let ok = (lp - ls).abs() <= 2.5;
            held += ok as usize;
            if lp > 2.5 {
                real += 1;
                real_held += ok as usize;
            }
            println!("#{num:<4} {dst} <- {src}  published {lp:6.1}%  simulated {ls:6.1}%  {}", if ok { "ok" } else { "FAIL" });
        }
    }
    println!("loss rows holding: {held} of 37; with a real loss (> 2.5 pt): {real_held} of {real}");
}
