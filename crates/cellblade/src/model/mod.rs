//! The performance model of seed 003: the extended PLogP parameters measured on the simulated
//! blade, the seed's equations, and a model that prices any schedule.
//!
//! | file | what |
//! |---|---|
//! | `params.rs` | the parameters L, g, C, gamma: TOML with units, checks, interpolation |
//! | `bench.rs` | the §3.3 micro-benchmarks as SPE programs timed with the decrementer |
//! | `measure.rs` | runs the micro-benchmarks into a [`params::ModelParams`] |

pub mod bench;
pub mod measure;
pub mod params;

pub use measure::{measure, MeasureRequest};
pub use params::ModelParams;
