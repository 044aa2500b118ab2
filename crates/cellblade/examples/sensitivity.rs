//! Which calibration rows each machine parameter moves: every parameter is moved by 10% (at
//! least one unit; 20 ns for a zero latency) and the rows that change by more than 1% (0.5
//! points for a loss) are listed. `cargo run --release --example sensitivity` prints the
//! README's "Parameters and the rows they move" from a measurement, not from reasoning.
use cellblade::calibrate::run_all;
use cellblade::evidence::Row;
use cellblade::machine::config::{load, preset_text};

const KEYS: &[&str] = &[
    "eib.command_phase_bus_cycles",
    "eib.ring_start_interval_bus_cycles",
    "eib.hop_latency_bus_cycles",
    "bif.data_gbps",
    "bif.crossing_latency_ns",
    "bif.noncacheable_crossing_ns",
    "mic.access_bus_cycles",
    "mic.read_latency_ns",
    "mfc.issue_core_cycles",
    "mfc.tag_update_bus_cycles",
    "mfc.outstanding_packets",
    "mfc.list_element_bus_cycles",
    "spu.channel_core_cycles",
    "spu.poll_core_cycles",
    "atomic.hit_core_cycles",
    "atomic.guard_core_cycles",
    "ppe.mmio_ns",
    "ppe.syscall_ns",
    "ppe.thread_create_us",
];

fn moved(a: &Row, b: &Row) -> bool {
    if a.kind == "loss" {
        (a.simulated - b.simulated).abs() > 0.005
    } else {
        (a.simulated - b.simulated).abs() > 0.01 * a.simulated.abs()
    }
}

fn main() {
    let text = preset_text("qs20").unwrap();
    let base_file = load(text, &[]).unwrap();
    let base = run_all(&base_file).unwrap();
    let table: toml::Table = text.parse().unwrap();
    for key in KEYS {
        let (section, name) = key.split_once('.').unwrap();
        let value = &table[section][name];
        let moved_to = match value {
            toml::Value::Integer(i) => format!("{}", i + (i / 10).max(1)),
            toml::Value::Float(f) if *f == 0.0 => "20.0".to_string(),
            toml::Value::Float(f) => format!("{}", f * 1.1),
            other => panic!("{key} is {other}"),
        };
        let rows = run_all(&load(text, &[format!("{key}={moved_to}")]).unwrap()).unwrap();
        let names: Vec<String> = base
            .iter()
            .zip(&rows)
            .filter(|(a, b)| moved(a, b))
            .map(|(a, b)| {
                format!(
                    "{} ({:+.1}{})",
                    a.name,
                    if a.kind == "loss" { 100.0 * (b.simulated - a.simulated) } else { 100.0 * (b.simulated / a.simulated - 1.0) },
                    if a.kind == "loss" { " pt" } else { "%" }
                )
            })
            .collect();
        println!("{key} {value} -> {moved_to}: {} rows: {}", names.len(), if names.is_empty() { "none".into() } else { names.join("; ") });
    }
}
