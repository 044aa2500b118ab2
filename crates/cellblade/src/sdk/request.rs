//! `cellblade run`'s request: the PPE process the front started and how to start SPE ones.

use std::os::unix::net::UnixStream;

use serde::{Deserialize, Serialize};

use super::cost::{Compute, Front};
use super::job::{run_sdk, SdkOptions};
use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;
use crate::request::Request;
use crate::sim::Time;

/// Run the Cell SDK program whose PPE process is at the other end of `stream`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// The command that runs an SPE executable, before its path (qemu-user and its CPU).
    pub spe_command: Vec<String>,
    /// The PPE process, qemu-user's guest base in it (`-B`) and its pointer width.
    pub ppe_pid: i32,
    pub guest_base: u64,
    pub bits: u32,
    /// Whether the report carries a Chrome/Perfetto trace.
    #[serde(default)]
    pub trace: bool,
    /// What the SPE programs' own code costs: "model" (the SPU cycles the cost plugin counts)
    /// or "zero" ([`super::cost`]).
    #[serde(default = "default_compute")]
    pub compute: String,
    /// The cost plugin (a shared object the front built from `sdk/cost/`), needed by "model".
    #[serde(default)]
    pub cost_plugin: Option<String>,
    /// The simulator's end of the PPE process's socket: not request data, the front that
    /// started the process hands it over.
    #[serde(skip)]
    pub stream: Option<UnixStream>,
}

fn default_compute() -> String {
    Front::Sdk.default_compute().into()
}

/// `cellblade run`'s defaults and what its fields allow, for the fronts.
#[derive(Debug, Clone, Serialize)]
pub struct SdkCatalog {
    pub default_compute: &'static str,
    pub compute_allowed: String,
}

pub fn catalog() -> SdkCatalog {
    SdkCatalog { default_compute: Front::Sdk.default_compute(), compute_allowed: Front::Sdk.allowed() }
}

/// How the run ended, as the simulator saw it (the PPE process's exit status is the front's).
#[derive(Debug, Serialize)]
pub struct RunOutcome {
    pub simulated_ns: f64,
    pub events: u64,
    pub packets: u64,
    pub wall_s: f64,
    pub trace: Option<String>,
    /// What went wrong on an SPE that the PPE program was told of (a context's runtime error).
    pub notes: Vec<String>,
}

impl Request for RunRequest {
    const NAME: &'static str = "run";
    type Output = RunOutcome;

    fn run(self, file: &MachineFile) -> Result<RunOutcome> {
        if ![32, 64].contains(&self.bits) {
            return Err(config_err(format!("run: bits {}: allowed 32 or 64", self.bits)));
        }
        if self.spe_command.is_empty() {
            return Err(config_err("run: spe_command is empty: it names the program that runs an SPE executable"));
        }
        let compute = Compute::parse(&self.compute, Front::Sdk)?;
        if compute == Compute::Model && self.cost_plugin.is_none() {
            return Err(config_err("run: compute model needs cost_plugin, the SPU cost plugin the front builds from sdk/cost"));
        }
        let stream = self.stream.ok_or_else(|| config_err("run: no connection to the PPE process"))?;
        let opts = SdkOptions {
            spe_command: self.spe_command,
            ppe_pid: self.ppe_pid,
            guest_base: self.guest_base,
            bits: self.bits,
            trace: self.trace,
            compute,
            cost_plugin: self.cost_plugin.map(std::path::PathBuf::from),
        };
        let out = run_sdk(file.clone(), stream, opts)?;
        let r = out.report;
        Ok(RunOutcome {
            simulated_ns: Time::as_ns(r.simulated),
            events: r.events,
            packets: r.packets,
            wall_s: r.wall_s,
            trace: r.trace.map(|t| t.to_string()),
            notes: out.notes,
        })
    }
}
