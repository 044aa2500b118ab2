//! Print the calibration table: `cargo run --release --example calibrate [-- key=value ...]`
//! (machine-file overrides, as `--set` takes them); `-- --json` prints the rows as JSON.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let set: Vec<String> = args.into_iter().filter(|a| a != "--json").collect();
    let out = cellblade::api::run_json::<cellblade::calibrate::CalibrateRequest>(&serde_json::json!({ "set": set }).to_string())
        .unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        });
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    if json {
        println!("{}", answer["result"]);
        return;
    }
    let rows: Vec<cellblade::evidence::Row> = serde_json::from_value(answer["result"].clone()).unwrap();
    for r in &rows {
        println!(
            "{:<62} {:>10.3} {:>10.3} {:<8} {:>+7.1}{} {} {}{}{}",
            r.name,
            r.published,
            r.simulated,
            r.unit,
            100.0 * r.error,
            if r.kind == "loss" { "pt" } else { "% " },
            if r.holds { "ok  " } else { "FAIL" },
            if r.fitted { "fitted" } else { "" },
            r.same_as.as_ref().map(|s| format!(" (same as: {s})")).unwrap_or_default(),
            match r.without_contention {
                Some(false) => " [a blade without contention fails it]",
                _ => "",
            }
        );
    }
    let c = cellblade::evidence::counts(&rows);
    println!(
        "{} rows shown, {} distinct: {} fitted ({} hold), {} predictions ({} hold, {} of them failed by a blade without contention)",
        rows.len(),
        c.rows,
        c.fitted,
        c.fitted_hold,
        c.predictions,
        c.predictions_hold,
        c.predictions_hold_discriminating
    );
}
