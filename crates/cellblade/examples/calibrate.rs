//! Print the calibration table: `cargo run --release --example calibrate`.
fn main() {
    let out = cellblade::api::run_json::<cellblade::calibrate::CalibrateRequest>("{}").unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = answer["result"].as_array().unwrap().clone();
    for r in rows {
        println!(
            "{:<48} {:>10.2} {:>10.2} {:<5} {:>+7.1}% {} {}",
            r["name"].as_str().unwrap(),
            r["published"].as_f64().unwrap(),
            r["simulated"].as_f64().unwrap(),
            r["unit"].as_str().unwrap(),
            100.0 * r["error"].as_f64().unwrap(),
            if r["holds"].as_bool().unwrap() { "ok  " } else { "FAIL" },
            if r["fitted"].as_bool().unwrap() { "fitted" } else { "" }
        );
    }
}
