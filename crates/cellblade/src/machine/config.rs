//! Machine files: the TOML description of a blade (presets `qs20`, `qs22` in `machines/`), user
//! overrides (`key=value`), validation, and the resolution of human units into exact ticks.
//!
//! Every key is declared once, in the structs below, with its unit in its name and, for a
//! number, its allowed range beside it (each section's `LIMITS`); the presets carry each value's
//! source. Unknown keys, wrong types and out-of-range values are errors naming the key, the
//! value and what is allowed (and, in a file, its line).
//!
//! Every range is finite: the latencies stop at a millisecond or so (the longest, a thread
//! creation, at a second), far above any Cell figure and low enough that no run short of
//! about 10^8 seconds of simulated time reaches the end of representable time
//! ([`crate::sim::Time::HORIZON`]).

use serde::{Deserialize, Serialize};

use super::policy::{DirectionLimit, GrantOrder, HalfWay};
use crate::error::{config_err, Result};
use crate::sim::{Time, TICKS_PER_SECOND};

const QS20: &str = include_str!("../../../../machines/qs20.toml");
const QS22: &str = include_str!("../../../../machines/qs22.toml");

/// Names of the built-in presets.
pub const PRESETS: [&str; 2] = ["qs20", "qs22"];

/// Each numeric key of a section with its allowed range, inclusive: `(key, min, max)`.
type Limits = &'static [(&'static str, f64, f64)];

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineFile {
    pub name: String,
    pub clock: ClockCfg,
    pub eib: EibCfg,
    pub bif: BifCfg,
    pub mic: MicCfg,
    pub mfc: MfcCfg,
    pub spu: SpuCfg,
    pub atomic: AtomicCfg,
    pub ppe: PpeCfg,
    pub memory: MemoryCfg,
    pub scheduler: SchedulerCfg,
    pub mpi: MpiCfg,
    pub network: NetworkCfg,
    pub spu_cost: SpuCostCfg,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockCfg {
    pub core_mhz: u64,
    pub bus_divider: u64,
    pub decrementer_hz: u64,
}

impl ClockCfg {
    const LIMITS: Limits = &[("core_mhz", 1.0, 25_600.0), ("bus_divider", 1.0, 8.0), ("decrementer_hz", 1_000_000.0, 1_000_000_000.0)];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EibCfg {
    pub ring_order: Vec<String>,
    pub rings_per_direction: u32,
    pub max_transfers_per_ring: u32,
    pub ring_start_interval_bus_cycles: u64,
    pub beat_bytes: u32,
    pub packet_bytes: u32,
    pub hop_latency_bus_cycles: u64,
    pub command_phase_bus_cycles: u64,
    pub data_grants_per_bus_cycle: u32,
    /// `false`: a bus without contention, for the evidence only (see [`Params::contention`]).
    #[serde(default = "contended")]
    pub contention: bool,
    /// The share of the data arbiter's ring assignments made by path alone (see
    /// [`Params::blind_below`]).
    #[serde(default)]
    pub blind_share: f64,
    /// Salt of the blind arbiter's draws (see [`Params::draw_seed`]).
    #[serde(default)]
    pub draw_seed: u64,
    /// The arbiter's policies (`machine::policy`), each defaulting to the rule it had before
    /// the family existed.
    #[serde(default)]
    pub half_way: HalfWay,
    #[serde(default)]
    pub grant_order: GrantOrder,
    #[serde(default)]
    pub direction_limit: DirectionLimit,
    /// With `direction_limit = "direction_rate"`: bus cycles between two starts in one
    /// direction (unused otherwise).
    #[serde(default)]
    pub direction_interval_bus_cycles: u64,
}

fn contended() -> bool {
    true
}

impl EibCfg {
    const LIMITS: Limits = &[
        ("rings_per_direction", 1.0, 4.0),
        ("max_transfers_per_ring", 1.0, 6.0),
        ("ring_start_interval_bus_cycles", 1.0, 64.0),
        ("beat_bytes", 8.0, 32.0),
        ("packet_bytes", 128.0, 128.0),
        ("hop_latency_bus_cycles", 0.0, 64.0),
        ("command_phase_bus_cycles", 0.0, 10_000.0),
        ("data_grants_per_bus_cycle", 1.0, 12.0),
        ("blind_share", 0.0, 1.0),
        ("draw_seed", 0.0, 4_294_967_295.0),
        ("direction_interval_bus_cycles", 0.0, 64.0),
    ];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BifCfg {
    pub element: String,
    pub data_gbps: f64,
    /// Coherent traffic (DMA to and from memory and local stores): command and data crossing.
    pub crossing_latency_ns: f64,
    /// A cache-inhibited access to the other chip's local stores or problem-state registers;
    /// guarded ones (the registers) one at a time in each direction, each for this long.
    pub noncacheable_crossing_ns: f64,
    /// What the data of a cache-inhibited read from the other chip pays to cross back (0 in
    /// machine files that predate it).
    #[serde(default)]
    pub noncacheable_read_return_ns: f64,
}

impl BifCfg {
    const LIMITS: Limits = &[
        ("data_gbps", 0.1, 100.0),
        ("crossing_latency_ns", 0.0, 100_000.0),
        ("noncacheable_crossing_ns", 0.0, 100_000.0),
        ("noncacheable_read_return_ns", 0.0, 100_000.0),
    ];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MicCfg {
    pub access_bus_cycles: u64,
    pub read_latency_ns: f64,
}

impl MicCfg {
    const LIMITS: Limits = &[("access_bus_cycles", 1.0, 1024.0), ("read_latency_ns", 0.0, 100_000.0)];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MfcCfg {
    pub queue_depth: u32,
    pub tag_groups: u32,
    pub issue_core_cycles: u64,
    pub tag_update_bus_cycles: u64,
    pub outstanding_packets: u32,
    pub list_element_bus_cycles: u64,
    pub max_list_elements: u32,
    pub max_dma_bytes: u32,
}

impl MfcCfg {
    const LIMITS: Limits = &[
        ("queue_depth", 1.0, 64.0),
        ("tag_groups", 1.0, 32.0),
        ("issue_core_cycles", 0.0, 10_000.0),
        ("tag_update_bus_cycles", 0.0, 10_000.0),
        ("outstanding_packets", 1.0, 256.0),
        ("list_element_bus_cycles", 0.0, 1000.0),
        ("max_list_elements", 1.0, 2048.0),
        ("max_dma_bytes", 16.0, 1_048_576.0),
    ];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpuCfg {
    pub ls_bytes: u32,
    pub channel_core_cycles: u64,
    pub poll_core_cycles: u64,
    pub reduce_core_cycles_per_quadword: u64,
    pub reduce_sp_core_cycles_per_quadword: u64,
    pub reduce_dp_core_cycles_per_quadword: u64,
    pub copy_core_cycles_per_quadword: u64,
    /// The control code a collective call that notifies through signal registers runs once
    /// (0 in machine files that predate it).
    #[serde(default)]
    pub signal_call_core_cycles: u64,
    /// CML's code at each end of one of its receiver-initiated messages (0 in machine files
    /// that predate it).
    #[serde(default)]
    pub cml_message_core_cycles: u64,
}

impl SpuCfg {
    const LIMITS: Limits = &[
        ("ls_bytes", 4096.0, 1_048_576.0),
        ("channel_core_cycles", 1.0, 1000.0),
        ("poll_core_cycles", 1.0, 1000.0),
        ("reduce_core_cycles_per_quadword", 1.0, 1000.0),
        ("reduce_sp_core_cycles_per_quadword", 1.0, 1000.0),
        ("reduce_dp_core_cycles_per_quadword", 1.0, 1000.0),
        ("copy_core_cycles_per_quadword", 1.0, 1000.0),
        ("signal_call_core_cycles", 0.0, 1_000_000.0),
        ("cml_message_core_cycles", 0.0, 1_000_000.0),
    ];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtomicCfg {
    pub hit_core_cycles: u64,
    /// How long a new holder keeps a handed-over line before the next hand-over may start.
    pub guard_core_cycles: u64,
    /// A contended lock-line command: from the requester's getllar to the holder giving the
    /// line up, retries and address-collision stalls included (0 in machine files that predate
    /// it).
    #[serde(default)]
    pub handover_bus_cycles: u64,
    pub line_bytes: u32,
}

impl AtomicCfg {
    const LIMITS: Limits = &[
        ("hit_core_cycles", 0.0, 100_000.0),
        ("guard_core_cycles", 0.0, 100_000.0),
        ("handover_bus_cycles", 0.0, 1_000_000.0),
        ("line_bytes", 128.0, 128.0),
    ];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PpeCfg {
    pub mmio_ns: f64,
    pub syscall_ns: f64,
    pub thread_create_us: f64,
}

impl PpeCfg {
    const LIMITS: Limits = &[("mmio_ns", 0.0, 1_000_000.0), ("syscall_ns", 0.0, 1_000_000.0), ("thread_create_us", 0.0, 1_000_000.0)];
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryCfg {
    pub xdram_bytes: u64,
}

impl MemoryCfg {
    const LIMITS: Limits = &[("xdram_bytes", 1_048_576.0, 68_719_476_736.0)];
}

/// The default thread-to-SPE scheduler of seed 001 §3 (see `affinity::scheduler`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerCfg {
    /// A trial keeps the previous trial's assignment with this probability.
    pub keep_probability: f64,
    /// A fresh assignment makes one more random swap with this probability (a geometric count;
    /// below 1, or it never ends).
    pub more_swaps_probability: f64,
}

impl SchedulerCfg {
    const LIMITS: Limits = &[("keep_probability", 0.0, 1.0), ("more_swaps_probability", 0.0, 0.99)];
}

/// The largest message seed 004's MPI may send in buffered mode: what the 128-byte meta-data
/// entry holds after its 48 bytes of fields (`mpi::layout` checks that it agrees).
pub const MPI_BUFFERED_MAX_BYTES: u32 = 80;

/// Seed 004's MPI library on the SPUs (`crate::mpi`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpiCfg {
    /// The SPU's own code of one send or one receive call (checks, building or reading the
    /// entry, the library's branches), charged once per call on top of its channel accesses.
    pub call_core_cycles: u64,
    /// Messages of at most this many bytes go in buffered mode (seed 004 §7), inside the
    /// meta-data entry; 0: synchronous mode only, the seed's library.
    pub buffered_bytes: u32,
}

impl MpiCfg {
    const LIMITS: Limits = &[("call_core_cycles", 0.0, 100_000.0), ("buffered_bytes", 0.0, MPI_BUFFERED_MAX_BYTES as f64)];
}

/// The node network between blades of a cluster (seed 003 §6.1), in LogGP terms: a message of
/// m bytes costs its sender `overhead_ns` of PPE time, leaves the sender's adapter no sooner
/// than `gap_ns` (and m x `gap_per_byte_ns`) after the previous one, arrives `latency_ns` after
/// its last byte left, and costs the receiver `overhead_ns` again.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkCfg {
    pub latency_ns: f64,
    pub overhead_ns: f64,
    pub gap_ns: f64,
    pub gap_per_byte_ns: f64,
}

impl NetworkCfg {
    /// The latency is at least 10 ns: it is the lookahead of the cluster's lock-step windows
    /// (`cluster/`), which must be positive.
    const LIMITS: Limits = &[
        ("latency_ns", 10.0, 1_000_000.0),
        ("overhead_ns", 0.0, 1_000_000.0),
        ("gap_ns", 0.0, 1_000_000.0),
        ("gap_per_byte_ns", 0.0, 1000.0),
    ];
}

/// The SPU cost plugin's table (`sdk/cost/`, `cellblade run --compute model`): for each class of
/// SPU instructions a PowerPC instruction of an SPE program is priced as, `[even, odd, stall,
/// latency]`: its issue cycles on the even and on the odd pipeline, the cycles after its issue
/// in which nothing issues, and the cycles until its result can be used.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpuCostCfg {
    pub nop: [u32; 4],
    pub fx: [u32; 4],
    pub ws: [u32; 4],
    pub sh: [u32; 4],
    pub sp: [u32; 4],
    pub fi: [u32; 4],
    pub dp: [u32; 4],
    pub imul: [u32; 4],
    pub idiv: [u32; 4],
    pub fdiv: [u32; 4],
    pub lq: [u32; 4],
    pub sq: [u32; 4],
    pub load_scalar: [u32; 4],
    pub store_scalar: [u32; 4],
    pub branch: [u32; 4],
    pub branch_indirect: [u32; 4],
}

impl SpuCostCfg {
    /// Every cycle count of a class is at most this: the longest, a software divide, is 40.
    pub const MAX_CYCLES: u32 = 1000;
    /// No scalar keys: each class is an array, checked in `validate` against [`Self::MAX_CYCLES`].
    const LIMITS: Limits = &[];

    /// Each class by the name the plugin knows it by, in the plugin's order (`spu_cost.h`).
    pub fn classes(&self) -> [(&'static str, [u32; 4]); 16] {
        [
            ("nop", self.nop),
            ("fx", self.fx),
            ("ws", self.ws),
            ("sh", self.sh),
            ("sp", self.sp),
            ("fi", self.fi),
            ("dp", self.dp),
            ("imul", self.imul),
            ("idiv", self.idiv),
            ("fdiv", self.fdiv),
            ("lq", self.lq),
            ("sq", self.sq),
            ("load_scalar", self.load_scalar),
            ("store_scalar", self.store_scalar),
            ("branch", self.branch),
            ("branch_indirect", self.branch_indirect),
        ]
    }
}

/// The text of a built-in preset.
pub fn preset_text(name: &str) -> Result<&'static str> {
    match name {
        "qs20" => Ok(QS20),
        "qs22" => Ok(QS22),
        other => Err(config_err(format!("unknown machine preset '{other}': allowed are {}", PRESETS.join(", ")))),
    }
}

/// Parse a machine file, apply `key=value` overrides (keys must exist), and validate.
impl MachineFile {
    /// The same machine with a bus without contention (`eib.contention = false`): the blade
    /// that every calibration row and claim is also run on, so that each says whether it could
    /// tell the contention model from no contention at all.
    pub fn without_contention(&self) -> MachineFile {
        let mut free = self.clone();
        free.eib.contention = false;
        free
    }

    /// Whether the data arbiter draws (some blind ring assignments on a contended bus).
    pub fn draws(&self) -> bool {
        self.eib.contention && self.eib.blind_share > 0.0
    }

    /// This blade and, when its arbiter draws, the same blade with its next `seeds - 1` draw
    /// seeds: equally likely runs of it, for the evidence's check that no verdict rests on one
    /// sequence of draws.
    pub fn redraws(&self, seeds: u64) -> Vec<MachineFile> {
        let seeds = if self.draws() { seeds.max(1) } else { 1 };
        (0..seeds)
            .map(|k| {
                let mut other = self.clone();
                other.eib.draw_seed = (self.eib.draw_seed + k) % (u32::MAX as u64 + 1);
                other
            })
            .collect()
    }
}

pub fn load(text: &str, overrides: &[String]) -> Result<MachineFile> {
    let mut table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| config_err(format!("machine file does not parse{}: {}", at_line(text, &e), one_line(&e))))?;
    // The file's own keys first, from its text, so an error can give the key's line.
    serde_path_to_error::deserialize::<_, MachineFile>(toml::Deserializer::new(text))
        .map_err(|e| config_err(format!("machine file key '{}'{}: {}", e.path(), at_line(text, e.inner()), e.inner().message())))?;
    for ov in overrides {
        apply_override(&mut table, ov)?;
    }
    // Ranges before types: `-1` for an unsigned key is out of its range, as a user reads it,
    // not serde's "expected u64". A key the file leaves out takes its default, 0, which every
    // range with a default admits.
    MachineFile::check_ranges(&table)?;
    let file: MachineFile = serde_path_to_error::deserialize(toml::Value::Table(table))
        .map_err(|e| config_err(format!("machine file with overrides: key '{}': {}", e.path(), e.inner().message())))?;
    file.validate()?;
    Ok(file)
}

/// " at line N" of an error in `text`, or nothing if it has no position.
pub(crate) fn at_line(text: &str, e: &toml::de::Error) -> String {
    e.span().map_or(String::new(), |span| format!(" at line {}", text[..span.start.min(text.len())].matches('\n').count() + 1))
}

/// A TOML syntax error's message on one line ("invalid array: expected `]`"): the parser puts
/// its expectation on a line of its own, which would break the CLI's one-line error.
pub(crate) fn one_line(e: &toml::de::Error) -> String {
    e.message().trim().lines().collect::<Vec<_>>().join(": ")
}

fn apply_override(table: &mut toml::Table, ov: &str) -> Result<()> {
    let (key, raw) = ov.split_once('=').ok_or_else(|| config_err(format!("override '{ov}' is not of the form section.key=value")))?;
    let key = key.trim();
    let path: Vec<&str> = key.split('.').collect();
    let mut cur = &mut *table;
    for (i, part) in path.iter().enumerate() {
        let allowed = cur.keys().cloned().collect::<Vec<_>>().join(", ");
        let last = i + 1 == path.len();
        let Some(slot) = cur.get_mut(*part) else {
            return Err(config_err(format!("unknown machine key '{key}': '{part}' is not one of {allowed}")));
        };
        if last {
            let parsed = parse_value(raw.trim());
            if std::mem::discriminant(&parsed) != std::mem::discriminant(slot)
                && !(matches!(slot, toml::Value::Float(_)) && matches!(parsed, toml::Value::Integer(_)))
            {
                return Err(config_err(format!("machine key '{key}' must be of type {}, got '{}'", slot.type_str(), raw.trim())));
            }
            *slot = match (&*slot, parsed) {
                (toml::Value::Float(_), toml::Value::Integer(i)) => toml::Value::Float(i as f64),
                (_, v) => v,
            };
            return Ok(());
        }
        cur = slot.as_table_mut().ok_or_else(|| config_err(format!("machine key '{key}': '{part}' is a value, not a section")))?;
    }
    Err(config_err(format!("override '{ov}' names no key")))
}

fn parse_value(raw: &str) -> toml::Value {
    format!("v = {raw}").parse::<toml::Table>().ok().and_then(|mut t| t.remove("v")).unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

/// A number as a user would write it: whole numbers without a fraction, others (and 1e18, inf)
/// in Rust's shortest round-trip form.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{}", v as i64)
    } else {
        format!("{v:?}")
    }
}

fn check(ok: bool, key: &str, value: impl std::fmt::Display, allowed: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(config_err(format!("machine key '{key}' = {value} is out of range: allowed {allowed}")))
    }
}

/// The element names a ring must contain, each exactly once.
pub const RING_ELEMENTS: [&str; 12] = ["PPE", "SPE0", "SPE1", "SPE2", "SPE3", "SPE4", "SPE5", "SPE6", "SPE7", "MIC", "IOIF0", "IOIF1"];

impl MachineFile {
    /// Each section's name and numeric limits.
    const SECTIONS: [(&'static str, Limits); 13] = [
        ("clock", ClockCfg::LIMITS),
        ("eib", EibCfg::LIMITS),
        ("bif", BifCfg::LIMITS),
        ("mic", MicCfg::LIMITS),
        ("mfc", MfcCfg::LIMITS),
        ("spu", SpuCfg::LIMITS),
        ("atomic", AtomicCfg::LIMITS),
        ("ppe", PpeCfg::LIMITS),
        ("memory", MemoryCfg::LIMITS),
        ("scheduler", SchedulerCfg::LIMITS),
        ("mpi", MpiCfg::LIMITS),
        ("network", NetworkCfg::LIMITS),
        ("spu_cost", SpuCostCfg::LIMITS),
    ];

    /// The rules a key's range cannot state (its range is checked on the table, before typing).
    fn validate(&self) -> Result<()> {
        let c = &self.clock;
        check(
            TICKS_PER_SECOND.is_multiple_of(c.core_mhz * 1_000_000),
            "clock.core_mhz",
            c.core_mhz,
            "a divisor of 25600 (e.g. 3200, 1600, 800)",
        )?;
        let e = &self.eib;
        let mut seen = e.ring_order.clone();
        seen.sort();
        let mut want: Vec<String> = RING_ELEMENTS.iter().map(|s| s.to_string()).collect();
        want.sort();
        check(seen == want, "eib.ring_order", format!("{:?}", e.ring_order), "each of PPE, SPE0..SPE7, MIC, IOIF0, IOIF1 exactly once")?;
        check([8, 16, 32].contains(&e.beat_bytes), "eib.beat_bytes", e.beat_bytes, "8, 16 or 32")?;
        check(["IOIF0", "IOIF1"].contains(&self.bif.element.as_str()), "bif.element", &self.bif.element, "IOIF0 or IOIF1")?;
        check(self.mfc.max_dma_bytes.is_multiple_of(16), "mfc.max_dma_bytes", self.mfc.max_dma_bytes, "a multiple of 16")?;
        check(self.spu.ls_bytes.is_multiple_of(128), "spu.ls_bytes", self.spu.ls_bytes, "a multiple of 128")?;
        check(self.memory.xdram_bytes.is_multiple_of(65536), "memory.xdram_bytes", self.memory.xdram_bytes, "a multiple of 64 KiB")?;
        for (name, cycles) in self.spu_cost.classes() {
            let allowed = format!("[even, odd, stall, latency], each 0 to {}", SpuCostCfg::MAX_CYCLES);
            check(cycles.iter().all(|&c| c <= SpuCostCfg::MAX_CYCLES), &format!("spu_cost.{name}"), format!("{cycles:?}"), &allowed)?;
        }
        Ok(())
    }

    /// Every numeric key of a machine file's table within its section's `LIMITS` (NaN and
    /// infinities never are).
    fn check_ranges(table: &toml::Table) -> Result<()> {
        for (section, limits) in Self::SECTIONS {
            let Some(values) = table.get(section).and_then(toml::Value::as_table) else { continue };
            for (name, value) in values {
                let (v, shown) = match value {
                    toml::Value::Integer(i) => (*i as f64, i.to_string()),
                    toml::Value::Float(f) => (*f, number(*f)),
                    _ => continue,
                };
                let key = format!("{section}.{name}");
                // A key added without a range is caught by the test that every key has one.
                let Some(&(_, lo, hi)) = limits.iter().find(|(k, _, _)| k == name) else { continue };
                check(v >= lo && v <= hi, &key, shown, &format!("{} to {}", number(lo), number(hi)))?;
            }
        }
        Ok(())
    }

    /// The resolved file as TOML, to save beside every result.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("machine file serialises")
    }
}

/// Machine parameters resolved into ticks: what the model reads on its hot paths.
#[derive(Debug, Clone)]
pub struct Params {
    pub core_cycle: Time,
    pub bus_cycle: Time,
    pub decrementer_hz: u64,
    /// Ring position (0..12) of each element, indexed by [`super::topology::Element::index`].
    pub ring_pos: [usize; 12],
    pub rings_per_direction: u32,
    pub max_transfers_per_ring: u32,
    pub ring_start_interval: Time,
    pub beat_bytes: u32,
    pub packet_bytes: u32,
    pub hop_latency: Time,
    pub command_phase: Time,
    pub data_grants_per_bus_cycle: u32,
    /// `false` (`eib.contention = false`): the command bus takes every command at once, the
    /// data arbiter grants every ready leg whose ramps are free, on a ring that any number of
    /// transfers share whatever their paths, and the BIF link carries data without
    /// serialisation. Ramps (each unit's port), the MIC and crossing latencies stay. Calibrate
    /// and reproduce run every row on such a blade too, so each row says whether a bus
    /// without contention would also pass it.
    pub contention: bool,
    /// How often the data arbiter assigns a ring by its path alone: a draw's upper 32 bits
    /// below this (`eib.blind_share` of 2^32) make that assignment blind to the ring's start
    /// gate, the packet then waiting for the drawn ring; otherwise it takes the first ring whose
    /// gate is open. 0: never blind; 2^32: always.
    pub blind_below: u64,
    /// Mixed into every blind draw. The draws stand for an arbiter state the seeds do not
    /// describe, so each seed is an equally likely blade: a verdict that changes with it
    /// depends on the draws, not on the mechanism (`reproduce` runs every claim with this seed and
    /// the next ones, [`crate::evidence::claim::DRAW_SEEDS`] in all).
    pub draw_seed: u64,
    pub half_way: HalfWay,
    pub grant_order: GrantOrder,
    pub direction_limit: DirectionLimit,
    pub direction_interval: Time,
    pub bif_element: usize,
    /// Ticks per byte on the BIF, as a rational `num / 1024` to keep sub-tick rates exact enough.
    pub bif_ticks_per_kib: u64,
    pub bif_crossing: Time,
    pub bif_noncacheable_crossing: Time,
    pub bif_noncacheable_read_return: Time,
    pub mic_access: Time,
    pub mic_read_latency: Time,
    pub mfc_queue_depth: usize,
    pub tag_groups: u32,
    pub mfc_issue: Time,
    pub tag_update: Time,
    pub outstanding_packets: u32,
    pub list_element: Time,
    pub max_list_elements: u32,
    pub max_dma_bytes: u32,
    pub ls_bytes: u32,
    pub channel: Time,
    pub poll: Time,
    pub reduce_cycles_per_quadword: u64,
    pub reduce_sp_cycles_per_quadword: u64,
    pub reduce_dp_cycles_per_quadword: u64,
    pub copy_cycles_per_quadword: u64,
    pub atomic_hit: Time,
    pub atomic_guard: Time,
    pub atomic_handover: Time,
    pub ppe_mmio: Time,
    pub syscall: Time,
    pub thread_create: Time,
    pub xdram_bytes: u64,
    pub mpi_call: Time,
    pub mpi_buffered_bytes: u32,
}

impl Params {
    pub fn resolve(f: &MachineFile) -> Params {
        let core_cycle = Time(TICKS_PER_SECOND / (f.clock.core_mhz * 1_000_000));
        let bus_cycle = Time(core_cycle.0 * f.clock.bus_divider);
        let mut ring_pos = [0usize; 12];
        for (pos, name) in f.eib.ring_order.iter().enumerate() {
            let idx = RING_ELEMENTS.iter().position(|n| n == name).expect("validated");
            ring_pos[idx] = pos;
        }
        let bif_idx = RING_ELEMENTS.iter().position(|n| *n == f.bif.element).expect("validated");
        Params {
            core_cycle,
            bus_cycle,
            decrementer_hz: f.clock.decrementer_hz,
            ring_pos,
            rings_per_direction: f.eib.rings_per_direction,
            max_transfers_per_ring: f.eib.max_transfers_per_ring,
            ring_start_interval: Time(bus_cycle.0 * f.eib.ring_start_interval_bus_cycles),
            beat_bytes: f.eib.beat_bytes,
            packet_bytes: f.eib.packet_bytes,
            hop_latency: Time(bus_cycle.0 * f.eib.hop_latency_bus_cycles),
            command_phase: Time(bus_cycle.0 * f.eib.command_phase_bus_cycles),
            // Without contention the arbiter's grant limit and the BIF link's serialisation
            // resolve away here, so the bus needs no case of its own for them.
            data_grants_per_bus_cycle: if f.eib.contention { f.eib.data_grants_per_bus_cycle } else { u32::MAX },
            contention: f.eib.contention,
            blind_below: (f.eib.blind_share * (1u64 << 32) as f64).round() as u64,
            draw_seed: f.eib.draw_seed,
            half_way: f.eib.half_way,
            grant_order: f.eib.grant_order,
            direction_limit: f.eib.direction_limit,
            direction_interval: Time(bus_cycle.0 * f.eib.direction_interval_bus_cycles),
            bif_element: bif_idx,
            bif_ticks_per_kib: if f.eib.contention {
                (1024.0 * TICKS_PER_SECOND as f64 / (f.bif.data_gbps * 1e9)).round() as u64
            } else {
                0
            },
            bif_crossing: Time::from_ns(f.bif.crossing_latency_ns),
            bif_noncacheable_crossing: Time::from_ns(f.bif.noncacheable_crossing_ns),
            bif_noncacheable_read_return: Time::from_ns(f.bif.noncacheable_read_return_ns),
            mic_access: Time(bus_cycle.0 * f.mic.access_bus_cycles),
            mic_read_latency: Time::from_ns(f.mic.read_latency_ns),
            mfc_queue_depth: f.mfc.queue_depth as usize,
            tag_groups: f.mfc.tag_groups,
            mfc_issue: Time(core_cycle.0 * f.mfc.issue_core_cycles),
            tag_update: Time(bus_cycle.0 * f.mfc.tag_update_bus_cycles),
            outstanding_packets: f.mfc.outstanding_packets,
            list_element: Time(bus_cycle.0 * f.mfc.list_element_bus_cycles),
            max_list_elements: f.mfc.max_list_elements,
            max_dma_bytes: f.mfc.max_dma_bytes,
            ls_bytes: f.spu.ls_bytes,
            channel: Time(core_cycle.0 * f.spu.channel_core_cycles),
            poll: Time(core_cycle.0 * f.spu.poll_core_cycles),
            reduce_cycles_per_quadword: f.spu.reduce_core_cycles_per_quadword,
            reduce_sp_cycles_per_quadword: f.spu.reduce_sp_core_cycles_per_quadword,
            reduce_dp_cycles_per_quadword: f.spu.reduce_dp_core_cycles_per_quadword,
            copy_cycles_per_quadword: f.spu.copy_core_cycles_per_quadword,
            atomic_hit: Time(core_cycle.0 * f.atomic.hit_core_cycles),
            atomic_guard: Time(core_cycle.0 * f.atomic.guard_core_cycles),
            atomic_handover: Time(bus_cycle.0 * f.atomic.handover_bus_cycles),
            ppe_mmio: Time::from_ns(f.ppe.mmio_ns),
            syscall: Time::from_ns(f.ppe.syscall_ns),
            thread_create: Time::from_ns(f.ppe.thread_create_us * 1000.0),
            xdram_bytes: f.memory.xdram_bytes,
            mpi_call: Time(core_cycle.0 * f.mpi.call_core_cycles),
            mpi_buffered_bytes: f.mpi.buffered_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_load_and_resolve() {
        for p in PRESETS {
            let f = load(preset_text(p).unwrap(), &[]).unwrap();
            let params = Params::resolve(&f);
            assert_eq!(params.core_cycle, Time(8));
            assert_eq!(params.bus_cycle, Time(16));
        }
    }

    #[test]
    fn overrides_change_values_and_round_trip() {
        let f = load(QS20, &["eib.hop_latency_bus_cycles=5".into(), "bif.data_gbps=20".into()]).unwrap();
        assert_eq!(f.eib.hop_latency_bus_cycles, 5);
        assert_eq!(f.bif.data_gbps, 20.0);
        let again = load(&f.to_toml(), &[]).unwrap();
        assert_eq!(again.eib.hop_latency_bus_cycles, 5);
    }

    #[test]
    fn bad_keys_and_values_are_named() {
        let e = load(QS20, &["eib.nosuch=1".into()]).unwrap_err().to_string();
        assert!(e.contains("unknown machine key 'eib.nosuch'") && e.contains("hop_latency_bus_cycles"), "{e}");
        let e = load(QS20, &["eib.rings_per_direction=9".into()]).unwrap_err().to_string();
        assert_eq!(e, "machine key 'eib.rings_per_direction' = 9 is out of range: allowed 1 to 4");
        let e = load(QS20, &["eib.rings_per_direction=fast".into()]).unwrap_err().to_string();
        assert!(e.contains("must be of type integer, got 'fast'"), "{e}");
        let e = load(QS20, &["noequals".into()]).unwrap_err().to_string();
        assert!(e.contains("not of the form"), "{e}");
        let e = load(&QS20.replace("\"SPE7\", ", ""), &[]).unwrap_err().to_string();
        assert!(e.contains("eib.ring_order"), "{e}");
        assert!(preset_text("qs99").unwrap_err().to_string().contains("allowed are qs20, qs22"));
    }

    #[test]
    fn file_errors_give_the_key_and_the_line() {
        let line = QS20.lines().position(|l| l.starts_with("data_gbps")).unwrap() + 1;
        let text = QS20.replacen("data_gbps = 13.6", "data_gbps = \"fast\"", 1);
        let e = load(&text, &[]).unwrap_err().to_string();
        assert_eq!(e, format!("machine file key 'bif.data_gbps' at line {line}: invalid type: string \"fast\", expected f64"));
        let e = load(&QS20.replacen("data_gbps = 13.6", "data_gbps = ", 1), &[]).unwrap_err().to_string();
        assert!(e.starts_with(&format!("machine file does not parse at line {line}: ")), "{e}");
        assert!(!e.contains('\n'), "one line for the command line's error: {e}");
        let e = load(&QS20.replacen("data_gbps = 13.6", "data_gbps = 13.6\nspeed = 1", 1), &[]).unwrap_err().to_string();
        assert!(e.starts_with(&format!("machine file key 'bif.speed' at line {}: unknown field `speed`", line + 1)), "{e}");
    }

    #[test]
    fn every_number_has_a_finite_range_and_out_of_range_values_name_it() {
        // The bug report's values: huge, infinite and not-a-number latencies.
        for (value, shown) in [("1e18", "1e18"), ("inf", "inf"), ("1e300", "1e300"), ("nan", "NaN"), ("-1", "-1")] {
            let e = load(QS20, &[format!("ppe.mmio_ns={value}")]).unwrap_err().to_string();
            assert_eq!(e, format!("machine key 'ppe.mmio_ns' = {shown} is out of range: allowed 0 to 1000000"));
        }
        let e = load(QS20, &["ppe.syscall_ns=1e18".into()]).unwrap_err().to_string();
        assert_eq!(e, "machine key 'ppe.syscall_ns' = 1e18 is out of range: allowed 0 to 1000000");
        // A key left out takes its default, which its range admits (ranges are checked on the
        // table, where the default does not appear).
        let defaulted = ["blind_share", "draw_seed", "noncacheable_read_return_ns", "signal_call_core_cycles", "cml_message_core_cycles"];
        let text: String =
            QS20.lines().filter(|l| !defaulted.iter().any(|k| l.starts_with(&format!("{k} ")))).map(|l| format!("{l}\n")).collect();
        let f = load(&text, &[]).unwrap();
        assert_eq!((f.eib.blind_share, f.spu.cml_message_core_cycles), (0.0, 0), "the keys were left out");
        MachineFile::check_ranges(&toml::Table::try_from(&f).unwrap()).unwrap();
        // Negative values of unsigned keys are out of range too, not a type error.
        for key in ["eib.draw_seed", "spu.poll_core_cycles", "mfc.tag_update_bus_cycles"] {
            let e = load(QS20, &[format!("{key}=-1")]).unwrap_err().to_string();
            assert!(e.starts_with(&format!("machine key '{key}' = -1 is out of range: allowed ")), "{e}");
        }
        let e = load(QS20, &["mfc.tag_update_bus_cycles=18446744073709551".into()]).unwrap_err().to_string();
        assert_eq!(e, "machine key 'mfc.tag_update_bus_cycles' = 18446744073709551 is out of range: allowed 0 to 10000");
        // The message and the range agree at the edges.
        assert_eq!(load(QS20, &["bif.data_gbps=0.1".into()]).unwrap().bif.data_gbps, 0.1);
        let e = load(QS20, &["bif.data_gbps=0.09".into()]).unwrap_err().to_string();
        assert_eq!(e, "machine key 'bif.data_gbps' = 0.09 is out of range: allowed 0.1 to 100");
        // Each numeric key of both presets has a range, and the largest of each resolves to
        // latencies far below the horizon.
        for p in PRESETS {
            let f = load(preset_text(p).unwrap(), &[]).unwrap();
            let table = toml::Table::try_from(&f).unwrap();
            let sections: Vec<&str> = MachineFile::SECTIONS.iter().map(|(n, _)| *n).collect();
            for (name, value) in &table {
                assert!(!value.is_table() || sections.contains(&name.as_str()), "section {name} has no LIMITS in MachineFile::SECTIONS");
            }
            let mut maxed = Vec::new();
            for (section, limits) in MachineFile::SECTIONS {
                let keys: Vec<&String> =
                    table[section].as_table().unwrap().iter().filter(|(_, v)| v.is_integer() || v.is_float()).map(|(k, _)| k).collect();
                let mut declared: Vec<&str> = limits.iter().map(|(k, _, _)| *k).collect();
                declared.sort();
                let mut have: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
                have.sort();
                assert_eq!(have, declared, "section {section}: every numeric key has exactly one range");
                for &(k, _, hi) in limits {
                    if !matches!(
                        (section, k),
                        ("clock", _)
                            | ("eib", "packet_bytes")
                            | ("atomic", "line_bytes")
                            | ("spu", "ls_bytes")
                            | ("mfc", "max_dma_bytes")
                            | ("memory", _)
                            | ("eib", "beat_bytes")
                    ) {
                        maxed.push(format!("{section}.{k}={hi}"));
                    }
                }
            }
            let f = load(preset_text(p).unwrap(), &maxed).unwrap();
            let q = Params::resolve(&f);
            for t in [
                q.command_phase,
                q.tag_update,
                q.syscall,
                q.thread_create,
                q.ppe_mmio,
                q.bif_crossing,
                q.mic_read_latency,
                q.atomic_hit,
                q.atomic_handover,
            ] {
                assert!(t.0 < Time::HORIZON.0 >> 20, "{t:?}");
            }
        }
    }
}
