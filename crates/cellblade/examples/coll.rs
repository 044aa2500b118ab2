//! Measure collective algorithms: `cargo run --release --example coll -- allgather 8 64,1024,16384 [ALGOS]`.
fn main() {
    let arg = |i: usize, d: &str| std::env::args().nth(i).unwrap_or_else(|| d.to_string());
    let (op, spes, sizes, algos) = (arg(1, "barrier"), arg(2, "8"), arg(3, "1024"), arg(4, "all"));
    let req = format!("{{\"op\": \"{op}\", \"spes\": {spes}, \"sizes\": [{sizes}], \"algorithms\": \"{algos}\"}}");
    match cellblade::api::run_json::<cellblade::coll::request::RunRequest>(&req) {
        Ok(out) => {
            let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
            for r in answer["result"].as_array().unwrap() {
                println!(
                    "{:<28} {:>6} B {:>10.1} ns {}",
                    r["algorithm"].as_str().unwrap(),
                    r["size_bytes"],
                    r["latency_ns"].as_f64().unwrap(),
                    if r["verified"].as_bool().unwrap() { "verified" } else { "WRONG" }
                );
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
