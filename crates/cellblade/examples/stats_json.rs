//! Run one CellStats request given as JSON on the command line and print the result object
//! (without the machine file and trace): `cargo run --release --example stats_json -- '{"function":"dmaget","spes":8,"size":16384}'`.
fn main() {
    let req = std::env::args().nth(1).unwrap_or_else(|| "{}".into());
    match cellblade::api::run_json::<cellblade::stats::StatsParams>(&req) {
        Ok(out) => {
            let mut v: serde_json::Value = serde_json::from_str::<serde_json::Value>(&out).unwrap()["result"].take();
            v.as_object_mut().unwrap().remove("trace");
            println!("{v}");
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
