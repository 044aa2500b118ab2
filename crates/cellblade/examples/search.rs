//! Search the best placement for a pattern: `cargo run --release --example search -- ring [16]`.
fn main() {
    let pattern = std::env::args().nth(1).unwrap_or_else(|| "ring".into());
    let spes = std::env::args().nth(2).unwrap_or_else(|| "8".into());
    match cellblade::api::run_json::<cellblade::affinity::request::SearchRequest>(&format!(
        "{{\"pattern\": \"{pattern}\", \"spes\": {spes}}}"
    )) {
        Ok(out) => println!("{out}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
