//! Print the speed benchmark: `cargo run --release --example bench [-- quick] [wait]`; `wait`
//! runs only the polling workloads (the collective all-reduces and the MPI loop).
fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let out = if std::env::args().any(|a| a == "wait") {
        cellblade::bench_wait::run(quick).map(|r| serde_json::to_string_pretty(&r).unwrap())
    } else {
        cellblade::bench::run(quick).map(|r| serde_json::to_string_pretty(&r).unwrap())
    };
    match out {
        Ok(r) => println!("{r}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
