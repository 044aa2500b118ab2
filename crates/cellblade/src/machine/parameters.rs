//! What each machine-file key is and where its value comes from: the one declaration that the
//! docs' parameter table, `cellblade machine` and the leave-one-out groups read. The values
//! themselves live in the machine files (`machines/*.toml`), whose comments give the longer
//! derivation; the ranges live beside the structs in `config.rs`.
//!
//! A fitted key names the calibration row (or claim) it was fitted on, by the name `cellblade
//! calibrate` prints; a test runs the calibration and checks that the row exists, is marked
//! fitted and names the key in its note.

use serde::Serialize;

/// Where a parameter's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Read from a publication: `source` cites it (seed file and section, or a hardware note).
    Published,
    /// Chosen so that one published measurement matches: `source` is that row's name.
    Fitted,
    /// No source found: `source` says what the value rests on.
    Unpublished,
    /// An assumption of the right order where nothing was measured: `source` says which.
    Assumed,
    /// A switch of the simulator, not a property of the hardware: `source` says what for.
    Setting,
}

/// One machine-file key.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Parameter {
    /// `section.key`, as in the machine file and `--set`.
    pub key: &'static str,
    pub unit: &'static str,
    /// What it is, in a line.
    pub what: &'static str,
    pub origin: Origin,
    /// The citation, the row fitted on, or what an unpublished value rests on.
    pub source: &'static str,
}

const fn p(key: &'static str, unit: &'static str, what: &'static str, origin: Origin, source: &'static str) -> Parameter {
    Parameter { key, unit, what, origin, source }
}

use Origin::{Assumed, Fitted, Published, Setting, Unpublished};

/// Every key of a machine file except `name`, in the files' order.
#[rustfmt::skip] // one line per key, as a table reads
pub const PARAMETERS: &[Parameter] = &[
    p("clock.core_mhz", "MHz", "core clock of the PPE and the SPUs", Published, "seed 002 §4.1"),
    p("clock.bus_divider", "core cycles", "core cycles per EIB bus cycle", Published, "hardware notes §1"),
    p("clock.decrementer_hz", "Hz", "decrementer (timebase) rate the benchmarks time with", Published, "seed 001 §3, seed 004 §5.1 (qs20); hardware notes §2 (qs22)"),
    p("eib.ring_order", "elements", "the 12 elements in their physical order around the rings", Published, "seed 000 §2 Fig. 1; hardware notes §1"),
    p("eib.rings_per_direction", "rings", "data rings each way", Published, "seed 001 §2, seed 000 §2"),
    p("eib.max_transfers_per_ring", "transfers", "non-overlapping transfers one ring carries at once", Published, "seed 000 §2"),
    p("eib.ring_start_interval_bus_cycles", "bus cycles", "how often a ring may start a transfer", Fitted, "Table 1 #5: 0 <- 1, loss"),
    p("eib.beat_bytes", "bytes", "width of a ring and a ramp", Published, "seed 000 §2"),
    p("eib.packet_bytes", "bytes", "data of one grant (eight beats)", Published, "seed 000 §2"),
    p("eib.hop_latency_bus_cycles", "bus cycles", "forwarding delay per ramp passed", Unpublished, "hardware notes §7 gap; small by design"),
    p("eib.command_phase_bus_cycles", "bus cycles", "command issue and snoop responses of a transaction", Fitted, "SPE-SPE mailbox sync, same chip"),
    p("eib.data_grants_per_bus_cycle", "grants", "data grants the arbiter gives per bus cycle", Fitted, "Table 1 #7: 7 <- 1, loss"),
    p("eib.contention", "on/off", "false: the blade without contention the evidence compares against", Setting, "every calibration row and claim is also judged without contention"),
    p("eib.blind_share", "share", "of the arbiter's ring assignments, those made by path alone, blind to the start gate", Fitted, "Table 1 #4: 2 <- 0, loss"),
    p("eib.draw_seed", "seed", "salt of the blind arbiter's draws: each seed is an equally likely blade", Setting, "reproduce runs every claim with it and the next three, and counts a claim only if all four agree"),
    p("eib.half_way", "policy", "which way an exactly half-way transfer goes, and when it is chosen", Unpublished, "the reference note §1.5 (dynamic, not fixed per pair); the variant by `calibrate --policies`"),
    p("eib.grant_order", "policy", "the order in which ready requesters after the MIC are offered a grant", Unpublished, "round-robin (Kistler et al. 2006, as quoted in the reference note §1.1); its granularity by `calibrate --policies`"),
    p("eib.direction_limit", "policy", "what limits how often one direction starts a transfer", Unpublished, "the reference note §1.5 (the limiter behind #5); the variant by `calibrate --policies`"),
    p("eib.direction_interval_bus_cycles", "bus cycles", "with the direction_rate limit: bus cycles between starts in one direction", Unpublished, "fitted per policy by `calibrate --policies` on Table 1 #5; unused by the file's limit"),
    p("bif.element", "element", "the ramp the chip-to-chip link hangs off", Published, "hardware notes §3"),
    p("bif.data_gbps", "GB/s", "data rate of coherent traffic over the link", Fitted, "8 SPEs GET 16 KB from XDRAM1, aggregate"),
    p("bif.crossing_latency_ns", "ns", "extra crossing latency of coherent traffic", Fitted, "private-buffer GET latency, 128 B, XDRAM1"),
    p("bif.noncacheable_crossing_ns", "ns", "crossing of a cache-inhibited access to the other chip", Fitted, "SPE-SPE mailbox sync, other chip"),
    p("bif.noncacheable_read_return_ns", "ns", "the data of a cache-inhibited read from the other chip crossing back", Fitted, "PPE-SPE mailbox, SPE on chip 1"),
    p("mic.access_bus_cycles", "bus cycles", "one 128-byte XDR burst, reads and writes on one timeline", Published, "seed 002 §2.1 (25.6 GB/s), seed 001 §2"),
    p("mic.read_latency_ns", "ns", "memory read latency behind the MIC", Fitted, "private-buffer GET latency, 128 B, XDRAM0"),
    p("mfc.queue_depth", "commands", "SPU command queue entries", Published, "hardware notes §4 (Linux spu.h)"),
    p("mfc.tag_groups", "tags", "DMA tag groups", Published, "hardware notes §4"),
    p("mfc.issue_core_cycles", "core cycles", "channel writes that enqueue one command", Unpublished, "six channel writes (spu_mfcio.h), about 3 cycles each"),
    p("mfc.tag_update_bus_cycles", "bus cycles", "a completion reaching the tag-status channel", Fitted, "SPE-SPE DMA of a small message"),
    p("mfc.outstanding_packets", "packets", "bus transactions one MFC keeps in flight", Unpublished, "one per queue slot"),
    p("mfc.list_element_bus_cycles", "bus cycles", "fetching and unrolling one list element", Unpublished, "an 8-byte local-store read; hidden behind a 128-byte element"),
    p("mfc.max_list_elements", "elements", "elements of one DMA list", Published, "hardware notes §4"),
    p("mfc.max_dma_bytes", "bytes", "largest single DMA (MFC_MAX_DMA_SIZE)", Published, "hardware notes §4"),
    p("spu.ls_bytes", "bytes", "local store size", Published, "seed 002 §2.1"),
    p("spu.channel_core_cycles", "core cycles", "one channel read or write", Unpublished, "rdch/wrch issue cost"),
    p("spu.poll_core_cycles", "core cycles", "one iteration of a local-store polling loop", Unpublished, "a load, a compare, a branch"),
    p("spu.reduce_core_cycles_per_quadword", "core cycles", "combine 16 bytes of int32", Published, "one iteration of gcc -O3's loop (seed 003 §7): loads, add and store in series by the SDK 3.0 SPU latency table"),
    p("spu.reduce_sp_core_cycles_per_quadword", "core cycles", "combine 16 bytes of float32", Published, "the same loop with the single-precision add (latency 6) by the same table"),
    p("spu.reduce_dp_core_cycles_per_quadword", "core cycles", "combine 16 bytes of float64", Published, "seed 002 §2.1 (one double-precision op per 7 cycles)"),
    p("spu.copy_core_cycles_per_quadword", "core cycles", "copy 16 bytes within the local store", Published, "SPU pipelines: a load and a store on the odd pipeline"),
    p("spu.signal_call_core_cycles", "core cycles", "control code a collective call notifying through signal registers runs once", Fitted, "barrier.ota_signal (OR-mode signal registers) on 8 SPEs takes 400 ns"),
    p("spu.cml_message_core_cycles", "core cycles", "CML's code at each end of a receiver-initiated message (the receiver's post, the sender's answer)", Fitted, "barrier.rdb on 8 SPEs is 25% below CML's (also rdb)"),
    p("atomic.hit_core_cycles", "core cycles", "getllar and putllc hitting the MFC's atomic cache", Fitted, "fetch-and-add, private variables"),
    p("atomic.handover_bus_cycles", "bus cycles", "a contended lock-line command, from the getllar to the holder giving the line up (retries and address-collision stalls included)", Fitted, "fetch-and-add, one shared 128 B variable, 16 SPEs"),
    p("atomic.guard_core_cycles", "core cycles", "how long a new holder keeps a handed-over lock line", Unpublished, "the modify between getllar and putllc, about 16 cycles of SPU code"),
    p("atomic.line_bytes", "bytes", "lock-line size", Published, "hardware notes §4"),
    p("ppe.mmio_ns", "ns", "the PPE's own part of a load from a problem-state register", Fitted, "PPE-SPE signal, SPE on chip 0"),
    p("ppe.syscall_ns", "ns", "one kernel entry through spufs", Fitted, "PPE-SPE mailbox via library call"),
    p("ppe.thread_create_us", "us", "creating, loading, running and joining an SPE thread", Fitted, "thread creation"),
    p("memory.xdram_bytes", "bytes", "memory behind each chip's MIC", Published, "seed 002 §4.1"),
    p("scheduler.keep_probability", "probability", "a trial keeps the previous trial's thread-to-SPE assignment", Unpublished, "seed 001 §3 gives only the behaviour"),
    p("scheduler.more_swaps_probability", "probability", "a fresh assignment makes one more random swap", Unpublished, "seed 001 §3 gives only the behaviour"),
    p("mpi.call_core_cycles", "core cycles", "the MPI library's own SPU code per send and per receive", Fitted, "MPI ping-pong: 0-byte latency about 0.65 us"),
    p("mpi.buffered_bytes", "bytes", "largest message sent in buffered mode (0: synchronous only)", Published, "seed 004 §3.3, §7"),
    p("network.latency_ns", "ns", "node network: first byte to arrival", Assumed, "adapter, wire and one switch; seed 003 §6.1 prints no figure"),
    p("network.overhead_ns", "ns", "node network: an MPI send or receive call on the PPE", Assumed, "of the order of that generation's MPI small-message figures"),
    p("network.gap_ns", "ns", "node network: least time between two messages from one adapter", Assumed, "one message per microsecond"),
    p("network.gap_per_byte_ns", "ns", "node network: time per byte", Published, "InfiniBand Architecture Specification 1.2, 4x DDR (2 GB/s)"),
    p("spu_cost.nop", "cycles: [even, odd, stall, latency]", "SPU cost of sync, isync and cache hints: no SPU work", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (NOP/LNOP)"),
    p("spu_cost.fx", "cycles: [even, odd, stall, latency]", "SPU cost of simple fixed point (add, logical, compare, move)", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (FX)"),
    p("spu_cost.ws", "cycles: [even, odd, stall, latency]", "SPU cost of word shifts and rotates", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (WS)"),
    p("spu_cost.sh", "cycles: [even, odd, stall, latency]", "SPU cost of shuffles, quadword rotates, splats and estimates", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (SH)"),
    p("spu_cost.sp", "cycles: [even, odd, stall, latency]", "SPU cost of single-precision arithmetic, 4-wide", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (SP); Floating-point operations"),
    p("spu_cost.fi", "cycles: [even, odd, stall, latency]", "SPU cost of conversions and 16-bit multiplies", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (FI)"),
    p("spu_cost.dp", "cycles: [even, odd, stall, latency]", "SPU cost of double-precision arithmetic", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (DP) and note 2"),
    p("spu_cost.imul", "cycles: [even, odd, stall, latency]", "SPU cost of a 32-bit multiply (three 16-bit multiplies and two adds)", Assumed, "the sequence; its instructions from the SDK 3.0 tutorial's Table 1 (FI, FX)"),
    p("spu_cost.idiv", "cycles: [even, odd, stall, latency]", "SPU cost of an integer divide (no SPU instruction)", Assumed, "a software divide routine's order of magnitude"),
    p("spu_cost.fdiv", "cycles: [even, odd, stall, latency]", "SPU cost of a floating divide or square root", Assumed, "frest, fi and Newton steps; their instructions from the SDK 3.0 tutorial's Table 1"),
    p("spu_cost.lq", "cycles: [even, odd, stall, latency]", "SPU cost of a quadword load", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (LS)"),
    p("spu_cost.sq", "cycles: [even, odd, stall, latency]", "SPU cost of a quadword store", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (LS)"),
    p("spu_cost.load_scalar", "cycles: [even, odd, stall, latency]", "SPU cost of a scalar load (load quadword, rotate)", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (LS + SH)"),
    p("spu_cost.store_scalar", "cycles: [even, odd, stall, latency]", "SPU cost of a scalar store (load, shuffle, store quadword)", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (LS + SH + LS)"),
    p("spu_cost.branch", "cycles: [even, odd, stall, latency]", "SPU cost of a direct branch, hinted or not taken", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 (BR) and note 1"),
    p("spu_cost.branch_indirect", "cycles: [even, odd, stall, latency]", "SPU cost of a branch through lr or ctr: unhinted, taken", Published, "SDK 3.0 Programming Tutorial, Pipelines and dual-issue rules, Table 1 note 1 (18-19 cycles)"),
];

/// The declaration of `key`, if it is one.
pub fn parameter(key: &str) -> Option<&'static Parameter> {
    PARAMETERS.iter().find(|p| p.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::config::{load, preset_text, PRESETS};

    #[test]
    fn every_key_of_every_preset_is_declared_once_in_file_order() {
        for preset in PRESETS {
            // The keys in the order the file writes them (a parsed table sorts them).
            let mut section = "";
            let mut keys = Vec::new();
            for line in preset_text(preset).unwrap().lines() {
                if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    section = name;
                } else if let Some((key, _)) = line.split_once(" = ").filter(|_| !section.is_empty() && !line.starts_with('#')) {
                    keys.push(format!("{section}.{}", key.trim()));
                }
            }
            let declared: Vec<&str> = PARAMETERS.iter().map(|p| p.key).collect();
            assert_eq!(keys, declared, "{preset}: machine-file keys against PARAMETERS");
            load(preset_text(preset).unwrap(), &[]).unwrap();
        }
    }
}
