//! Print the reproduced claims: `cargo run --release --example reproduce [-- quick] [json]
//! [key=value ...]` (machine-file overrides, as `--set` takes them). A claim that holds here and
//! fails on the blade without contention is marked `*`; `json` prints the claims as JSON (to
//! compare two builds); `pieces` prints the seconds of CPU each piece of work takes instead
//! (the weights that order them in `reproduce.rs`).
fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let json = std::env::args().any(|a| a == "json");
    let pieces = std::env::args().any(|a| a == "pieces");
    let set = std::env::args().skip(1).filter(|a| !["quick", "json", "pieces"].contains(&a.as_str())).collect();
    let file = cellblade::request::MachineChoice { set, ..Default::default() }.resolve().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    if pieces {
        for (name, s) in cellblade::reproduce::piece_times(&file, quick).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        }) {
            println!("{name:<36} {s:7.3} s");
        }
        return;
    }
    let claims = cellblade::request::Request::run(cellblade::reproduce::ReproduceRequest { quick, claims: None, jobs: None }, &file)
        .unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        });
    if json {
        println!("{}", serde_json::to_string_pretty(&claims).unwrap());
        return;
    }
    for r in &claims {
        let mark = if r.holds && r.without_contention == Some(false) { "*" } else { " " };
        let fitted = if r.fitted { " (fitted)" } else { "" };
        println!("{:<13}{mark} {:<75} | {}{fitted}", r.status, r.claim, r.simulated);
    }
    let c = cellblade::evidence::claim_counts(&claims);
    println!(
        "{} claims: {} fitted, {} predictions, {} hold, {} of them failed by a blade without contention (*)",
        c.claims, c.fitted, c.predictions, c.predictions_hold, c.predictions_hold_discriminating
    );
}
