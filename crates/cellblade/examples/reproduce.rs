//! Print the reproduced claims: `cargo run --release --example reproduce [-- quick]`.
fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let out = cellblade::api::reproduce(&format!("{{\"quick\": {quick}}}")).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    for r in serde_json::from_str::<Vec<serde_json::Value>>(&out).unwrap() {
        println!("{:<13} {:<75} | {}", r["status"].as_str().unwrap(), r["claim"].as_str().unwrap(), r["simulated"].as_str().unwrap());
    }
}
