//! A CellStats measurement as a [`Request`]: [`StatsParams`] in, the result with the simulator's
//! own figures (and the trace, when asked for) out.

use serde::Serialize;
use serde_json::Value;

use super::{run, StatsParams, StatsResult};
use crate::blade::RunReport;
use crate::error::Result;
use crate::machine::config::MachineFile;
use crate::machine::topology::SPES;
use crate::request::Request;

/// What a run cost the simulator.
#[derive(Debug, Clone, Serialize)]
pub struct SimFigures {
    pub simulated_ns: f64,
    pub events: u64,
    pub packets: u64,
    pub wall_s: f64,
    pub events_per_second: f64,
}

impl SimFigures {
    pub fn of(rep: &RunReport) -> SimFigures {
        SimFigures {
            simulated_ns: rep.simulated.as_ns(),
            events: rep.events,
            packets: rep.packets,
            wall_s: rep.wall_s,
            events_per_second: if rep.wall_s > 0.0 { rep.events as f64 / rep.wall_s } else { 0.0 },
        }
    }
}

/// A measurement's result, the simulator's figures, and the Chrome trace when one was asked for.
#[derive(Debug, Clone, Serialize)]
pub struct StatsAnswer {
    #[serde(flatten)]
    pub result: StatsResult,
    pub sim: SimFigures,
    pub trace: Option<Value>,
}

impl Request for StatsParams {
    const NAME: &'static str = "stats";
    type Output = StatsAnswer;

    fn allowed(field: &str) -> Option<String> {
        match field {
            "function" => Some(format!("one of {}", super::FUNCTIONS.join(", "))),
            "spes" => Some(format!("1 to {SPES} SPEs")),
            "cell" => Some("cell 0 or 1".into()),
            "xdram" => Some("XDRAM module 0 or 1".into()),
            "iterations" => Some(format!("1 to {}", u32::MAX)),
            "list_elements" => Some("1 to 2048 list elements".into()),
            _ => None,
        }
    }

    fn run(self, machine: &MachineFile) -> Result<StatsAnswer> {
        let mut result = run(machine.clone(), &self)?;
        let report = result.report.take().expect("a finished run has its report");
        Ok(StatsAnswer { sim: SimFigures::of(&report), trace: report.trace, result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::parse;
    use serde_json::json;

    #[test]
    fn integer_fields_that_do_not_parse_name_field_value_and_range() {
        let e = parse::<StatsParams>(json!({"spes": -1})).unwrap_err();
        assert_eq!((e.field(), e.message()), (Some("spes"), "spes -1 is not allowed: 1 to 16 SPEs"));
        let e = parse::<StatsParams>(json!({"iterations": 1_000_000_000_000u64})).unwrap_err();
        assert_eq!(e.message(), "iterations 1000000000000 is not allowed: 1 to 4294967295");
        let e = parse::<StatsParams>(json!({"size": "16k"})).unwrap_err();
        assert_eq!(e.message(), "size \"16k\" is not allowed: a whole number from 0 to 4294967295");
        let e = parse::<StatsParams>(json!({"function": null})).unwrap_err();
        assert_eq!(e.message(), "function null is not allowed: one of mkthread, mailbox, signal, dmaget, dmaput, dmalistget, dmalistput, fetchadd, fetchsub, fetchinc, fetchdec, fetchset");
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { rng_seed: proptest::test_runner::RngSeed::Fixed(20261126), ..Default::default() })]
        #[test]
        fn every_count_outside_u32_names_the_field_and_the_value(n in proptest::prop_oneof![i64::MIN..0, (u32::MAX as i64 + 1)..i64::MAX]) {
            let e = parse::<StatsParams>(json!({"iterations": n})).unwrap_err();
            proptest::prop_assert_eq!(e.field(), Some("iterations"));
            proptest::prop_assert_eq!(e.message(), format!("iterations {n} is not allowed: 1 to 4294967295"));
        }
    }
}
