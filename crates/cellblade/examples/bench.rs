//! Print the speed benchmark: `cargo run --release --example bench [-- quick]`.
fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    match cellblade::bench::run(quick) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).unwrap()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
