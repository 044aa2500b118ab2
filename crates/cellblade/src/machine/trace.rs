//! An optional Chrome/Perfetto trace (open it at ui.perfetto.dev or chrome://tracing): one
//! process per EIB, per BIF and per SPE; ring grants and BIF transfers as slices on their ring or
//! link track, DMA commands as async slices on their SPE's "DMA queue" track (they overlap),
//! mailbox and signal events as instants on the SPE's "channels" track.

use serde_json::{json, Value};

use crate::sim::Time;

use super::topology::Element;

/// Events kept at most; a longer run is cut (and says so in the trace's metadata).
const MAX_EVENTS: usize = 500_000;

#[derive(Default)]
pub struct Tracer {
    enabled: bool,
    events: Vec<Value>,
    dropped: u64,
}

fn us(t: Time) -> f64 {
    t.as_ns() / 1000.0
}

const PID_EIB: u64 = 1;
const PID_BIF: u64 = 3;
const PID_SPE: u64 = 10;

impl Tracer {
    pub fn new(enabled: bool) -> Tracer {
        Tracer { enabled, events: Vec::new(), dropped: 0 }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    fn push(&mut self, v: Value) {
        if self.events.len() < MAX_EVENTS {
            self.events.push(v);
        } else {
            self.dropped += 1;
        }
    }

    // Called per packet and per command: when tracing is off this inlines to one test, and the
    // JSON building stays out of line.
    #[inline]
    pub fn ring(&mut self, chip: usize, ring: usize, start: Time, end: Time, from: Element, to: Element, bytes: u32) {
        if self.enabled {
            self.record_ring(chip, ring, start, end, from, to, bytes);
        }
    }

    #[inline(never)]
    fn record_ring(&mut self, chip: usize, ring: usize, start: Time, end: Time, from: Element, to: Element, bytes: u32) {
        self.push(json!({"name": format!("{} -> {}", from.name(), to.name()), "ph": "X", "ts": us(start), "dur": us(end - start),
            "pid": PID_EIB + chip as u64, "tid": ring, "args": {"bytes": bytes}}));
    }

    #[inline]
    pub fn bif(&mut self, from_chip: usize, start: Time, end: Time, bytes: u32) {
        if self.enabled {
            self.record_bif(from_chip, start, end, bytes);
        }
    }

    #[inline(never)]
    fn record_bif(&mut self, from_chip: usize, start: Time, end: Time, bytes: u32) {
        self.push(json!({"name": format!("cell{} -> cell{}", from_chip, 1 - from_chip), "ph": "X", "ts": us(start), "dur": us(end - start),
            "pid": PID_BIF, "tid": from_chip, "args": {"bytes": bytes}}));
    }

    #[inline]
    pub fn dma(&mut self, spe: usize, id: u64, name: &str, start: Time, end: Time, bytes: u32, tag: u32) {
        if self.enabled {
            self.record_dma(spe, id, name, start, end, bytes, tag);
        }
    }

    #[inline(never)]
    fn record_dma(&mut self, spe: usize, id: u64, name: &str, start: Time, end: Time, bytes: u32, tag: u32) {
        let pid = PID_SPE + spe as u64;
        self.push(json!({"name": name, "cat": "dma", "ph": "b", "id": id, "ts": us(start), "pid": pid, "tid": 1, "args": {"bytes": bytes, "tag": tag}}));
        self.push(json!({"name": name, "cat": "dma", "ph": "e", "id": id, "ts": us(end), "pid": pid, "tid": 1}));
    }

    #[inline]
    pub fn instant(&mut self, spe: usize, name: &str, at: Time, value: u32) {
        if self.enabled {
            self.record_instant(spe, name, at, value);
        }
    }

    #[inline(never)]
    fn record_instant(&mut self, spe: usize, name: &str, at: Time, value: u32) {
        self.push(json!({"name": name, "ph": "i", "s": "t", "ts": us(at), "pid": PID_SPE + spe as u64, "tid": 0, "args": {"value": value}}));
    }

    /// The Chrome trace object, with track names.
    pub fn finish(self) -> Option<Value> {
        if !self.enabled {
            return None;
        }
        let mut meta = Vec::new();
        let mut name = |pid: u64, tid: Option<u64>, n: String| {
            let (kind, t) = match tid {
                Some(t) => ("thread_name", t),
                None => ("process_name", 0),
            };
            meta.push(json!({"name": kind, "ph": "M", "pid": pid, "tid": t, "args": {"name": n}}));
        };
        for chip in 0..2u64 {
            name(PID_EIB + chip, None, format!("EIB cell{chip}"));
            for r in 0..4u64 {
                let dir = if r < 2 { "clockwise" } else { "counter-clockwise" };
                name(PID_EIB + chip, Some(r), format!("ring {r} ({dir})"));
            }
        }
        name(PID_BIF, None, "BIF".into());
        name(PID_BIF, Some(0), "cell0 -> cell1".into());
        name(PID_BIF, Some(1), "cell1 -> cell0".into());
        for spe in 0..16u64 {
            name(PID_SPE + spe, None, format!("SPE{spe}"));
            name(PID_SPE + spe, Some(0), "channels".into());
            name(PID_SPE + spe, Some(1), "DMA queue".into());
        }
        // In time order: the bus's arbiters run a little ahead of the rest of the simulation
        // (see `Bus::step`), so their slices are recorded early. The sort is stable.
        let mut recorded = self.events;
        recorded.sort_by(|a, b| a["ts"].as_f64().partial_cmp(&b["ts"].as_f64()).expect("finite times"));
        let mut events = meta;
        events.extend(recorded);
        Some(json!({"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"dropped_events": self.dropped}}))
    }
}
