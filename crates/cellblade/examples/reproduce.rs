//! Print the reproduced claims: `cargo run --release --example reproduce [-- quick]`.
fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let file = cellblade::request::MachineChoice::default().resolve().unwrap();
    let claims =
        cellblade::request::Request::run(cellblade::reproduce::ReproduceRequest { quick, claims: None }, &file).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        });
    for r in &claims {
        println!("{:<13} {:<75} | {}", r.status, r.claim, r.simulated);
    }
}
