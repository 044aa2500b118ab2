//! Print the reproduced claims: `cargo run --release --example reproduce [-- quick]`.
fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let file = cellblade::request::MachineChoice::default().resolve().unwrap();
    let claims = cellblade::request::Request::run(cellblade::reproduce::ReproduceRequest { quick, claims: None }, &file).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    for r in serde_json::to_value(claims).unwrap().as_array().unwrap() {
        println!("{} {:<75} | {}", if r["holds"].as_bool().unwrap() { "ok  " } else { "FAIL" }, r["claim"].as_str().unwrap(), r["simulated"].as_str().unwrap());
    }
}
