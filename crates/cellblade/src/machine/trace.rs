//! An optional Chrome/Perfetto trace (open it at ui.perfetto.dev or chrome://tracing): one
//! process per EIB, per BIF and per SPE; ring grants and BIF transfers as slices on their ring or
//! link track, DMA commands as async slices on their SPE's "DMA queue" track (they overlap),
//! mailbox and signal events as instants on the SPE's "channels" track.
//!
//! Two sinks: events kept in memory and returned as one object (Python programs ask for it),
//! or streamed to a file as they happen, so memory stays bounded however long the run. The file
//! is written under a temporary name and renamed into place when the run ends well; in it the
//! bus's slices come a little before the rest (the arbiters run ahead, see `Bus::step`), which
//! trace viewers sort. The memory sink keeps a number of events at most, the file a number of
//! bytes (a limit a user thinks of as disk); each counts the events it drops, and a file, once
//! cut, stays cut, so that it holds the run's beginning whole.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::error::Result;
use crate::sim::Time;

use super::topology::Element;

/// Events kept in memory at most (about 250 MB of JSON values).
const MAX_EVENTS: usize = 500_000;
/// Bytes of events streamed to a file at most (its head and tail add a few kilobytes): 256 MiB,
/// which the Perfetto UI opens in a browser tab; counted in events, 4,000,000 of them made
/// 408 MB for 16 ranks (issue 43).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

#[derive(Default)]
enum Sink {
    #[default]
    Off,
    Memory(Vec<Value>),
    File {
        out: BufWriter<File>,
        path: PathBuf,
        part: PathBuf,
        /// Bytes of events written, and the most there may be.
        written: u64,
        limit: u64,
        /// An event did not fit: every later one is dropped too.
        cut: bool,
        failed: Option<std::io::Error>,
    },
}

#[derive(Default)]
pub struct Tracer {
    /// Whether the sink is on: tested per packet, so a plain flag.
    enabled: bool,
    sink: Sink,
    dropped: u64,
}

/// What a finished trace gave: the object (in-memory sink) and how many events did not fit.
pub struct Finished {
    pub trace: Option<Value>,
    pub dropped: u64,
}

fn us(t: Time) -> f64 {
    t.as_ns() / 1000.0
}

const PID_EIB: u64 = 1;
const PID_BIF: u64 = 3;
const PID_SPE: u64 = 10;

impl Tracer {
    /// Off, or kept in memory.
    pub fn new(enabled: bool) -> Tracer {
        Tracer { enabled, sink: if enabled { Sink::Memory(Vec::new()) } else { Sink::Off }, dropped: 0 }
    }

    /// Streamed to `path` (through `path.part`, renamed by [`Tracer::finish`]). The file is
    /// created now, so a path that cannot be written fails before the run.
    pub fn to_file(path: &Path) -> Result<Tracer> {
        Self::to_file_with_limit(path, MAX_FILE_BYTES)
    }

    fn to_file_with_limit(path: &Path, limit: u64) -> Result<Tracer> {
        // A device or pipe (/dev/stdout, a FIFO) is written in place: renaming over it would
        // replace it with a regular file.
        let part = if path.exists() && !path.is_file() {
            path.to_path_buf()
        } else {
            let mut part = path.as_os_str().to_owned();
            part.push(".part");
            PathBuf::from(part)
        };
        let file = File::create(&part).map_err(|e| unwritable(path, e))?;
        let mut out = BufWriter::new(file);
        let head = serde_json::to_string(&track_names()).expect("serialises");
        // The metadata events open the array; events follow, each after a comma.
        let write = out
            .write_all(b"{\"displayTimeUnit\": \"ns\", \"traceEvents\": ")
            .and_then(|_| out.write_all(&head.as_bytes()[..head.len() - 1]));
        write.map_err(|e| unwritable(path, e))?;
        Ok(Tracer {
            enabled: true,
            sink: Sink::File { out, path: path.to_path_buf(), part, written: 0, limit, cut: false, failed: None },
            dropped: 0,
        })
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    fn push(&mut self, v: Value) {
        match &mut self.sink {
            Sink::Off => {}
            Sink::Memory(events) if events.len() < MAX_EVENTS => events.push(v),
            Sink::File { out, written, limit, cut: cut @ false, failed, .. } => {
                let text = serde_json::to_string(&v).expect("serialises");
                let bytes = text.len() as u64 + 2; // and the separator before it
                if *written + bytes > *limit {
                    *cut = true;
                    self.dropped += 1;
                    return;
                }
                if failed.is_none() {
                    *failed = out.write_all(b",\n").and_then(|_| out.write_all(text.as_bytes())).err();
                }
                *written += bytes;
            }
            _ => self.dropped += 1,
        }
    }

    // Called per packet and per command: when tracing is off this inlines to one test, and the
    // JSON building stays out of line.
    #[inline]
    // An event's fields are passed flat: a struct would be built on the hot path even when
    // tracing is off.
    #[allow(clippy::too_many_arguments)]
    pub fn ring(&mut self, chip: usize, ring: usize, start: Time, end: Time, from: Element, to: Element, bytes: u32) {
        if self.enabled {
            self.record_ring(chip, ring, start, end, from, to, bytes);
        }
    }

    #[inline(never)]
    // An event's fields are passed flat: a struct would be built on the hot path even when
    // tracing is off.
    #[allow(clippy::too_many_arguments)]
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
        self.push(
            json!({"name": format!("cell{} -> cell{}", from_chip, 1 - from_chip), "ph": "X", "ts": us(start), "dur": us(end - start),
            "pid": PID_BIF, "tid": from_chip, "args": {"bytes": bytes}}),
        );
    }

    #[inline]
    // An event's fields are passed flat: a struct would be built on the hot path even when
    // tracing is off.
    #[allow(clippy::too_many_arguments)]
    pub fn dma(&mut self, spe: usize, id: u64, name: &str, start: Time, end: Time, bytes: u32, tag: u32) {
        if self.enabled {
            self.record_dma(spe, id, name, start, end, bytes, tag);
        }
    }

    #[inline(never)]
    // An event's fields are passed flat: a struct would be built on the hot path even when
    // tracing is off.
    #[allow(clippy::too_many_arguments)]
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
        self.push(
            json!({"name": name, "ph": "i", "s": "t", "ts": us(at), "pid": PID_SPE + spe as u64, "tid": 0, "args": {"value": value}}),
        );
    }

    /// End the trace: the in-memory object with its track names, or the file completed and
    /// renamed into place; and how many events were dropped past the sink's limit.
    pub fn finish(self) -> Result<Finished> {
        let dropped = self.dropped;
        let trace = match self.sink {
            Sink::Off => None,
            Sink::Memory(mut recorded) => {
                // In time order: the bus's arbiters record their slices early. The sort is stable.
                recorded.sort_by(|a, b| a["ts"].as_f64().partial_cmp(&b["ts"].as_f64()).expect("finite times"));
                let mut events = track_names();
                events.extend(recorded);
                Some(json!({"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"dropped_events": dropped}}))
            }
            Sink::File { mut out, path, part, failed, .. } => {
                let tail = format!("],\n\"otherData\": {{\"dropped_events\": {dropped}}}}}\n");
                let res = match failed {
                    Some(e) => Err(e),
                    None => out.write_all(tail.as_bytes()).and_then(|_| out.flush()).and_then(|_| {
                        if part == path {
                            Ok(())
                        } else {
                            std::fs::rename(&part, &path)
                        }
                    }),
                };
                if let Err(e) = res {
                    if part != path {
                        let _ = std::fs::remove_file(&part);
                    }
                    return Err(unwritable(&path, e));
                }
                None
            }
        };
        Ok(Finished { trace, dropped })
    }

    /// Drop an unfinished file trace (the run failed): nothing is left at its path.
    pub fn abandon(self) {
        if let Sink::File { out, part, path, .. } = self.sink {
            drop(out);
            if part != path {
                let _ = std::fs::remove_file(part);
            }
        }
    }
}

/// The error of request field `trace` for a file that cannot be written.
fn unwritable(path: &Path, e: std::io::Error) -> crate::error::Error {
    crate::error::field_msg("trace", format!("trace {}: cannot be written: {e}", path.display()))
}

/// The metadata events naming every process and track.
fn track_names() -> Vec<Value> {
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
    meta
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("cellblade-trace-{}-{name}.json", std::process::id()))
    }

    #[test]
    fn a_file_trace_streams_events_up_to_its_limit_and_counts_the_rest() {
        let path = temp("limit");
        // Room for three of the five events (each with the ",\n" before it), a byte short of four.
        let mut kept = Tracer::new(true);
        for k in 0..5 {
            kept.instant(2, "in_mbox write", Time(16 * k), k as u32);
        }
        let Sink::Memory(events) = &kept.sink else { unreachable!("a memory trace") };
        let bytes: Vec<u64> = events.iter().map(|e| serde_json::to_string(e).unwrap().len() as u64 + 2).collect();
        let mut t = Tracer::to_file_with_limit(&path, bytes[..4].iter().sum::<u64>() - 1).unwrap();
        assert!(t.enabled());
        for k in 0..5 {
            t.instant(2, "in_mbox write", Time(16 * k), k as u32);
        }
        assert!(!path.exists(), "the file appears only once complete");
        let done = t.finish().unwrap();
        assert_eq!((done.trace, done.dropped), (None, 2));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        let timed: Vec<&Value> = events.iter().filter(|e| e["ph"] != "M").collect();
        assert_eq!(timed.len(), 3);
        assert_eq!(timed[2]["args"]["value"], 2);
        assert_eq!(events.len() - timed.len(), track_names().len());
        assert_eq!(v["otherData"]["dropped_events"], 2);
        assert_eq!(v["displayTimeUnit"], "ns");
    }

    #[test]
    fn a_file_trace_that_cannot_be_created_fails_at_once_and_an_abandoned_one_leaves_nothing() {
        let e = Tracer::to_file(Path::new("/nonexistent-dir/t.json")).err().unwrap().to_string();
        assert!(e.starts_with("trace /nonexistent-dir/t.json: cannot be written: "), "{e}");
        let path = temp("abandon");
        let mut t = Tracer::to_file(&path).unwrap();
        t.instant(0, "signal1 write", Time(0), 1);
        t.abandon();
        let mut part = path.clone().into_os_string();
        part.push(".part");
        assert!(!path.exists() && !Path::new(&part).exists());
    }

    #[test]
    fn a_device_is_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let null = Path::new("/dev/null");
        let mut t = Tracer::to_file(null).unwrap();
        t.instant(0, "signal1 write", Time(0), 1);
        t.finish().unwrap();
        assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
        let e = Tracer::to_file(Path::new("/dev/full")).and_then(Tracer::finish).err().unwrap();
        assert_eq!(e.field(), Some("trace"));
        assert!(e.to_string().starts_with("trace /dev/full: cannot be written: "), "{e}");
        assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device());
    }
}
