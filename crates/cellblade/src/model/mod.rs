//! The performance model of seed 003: the extended PLogP parameters measured on the simulated
//! blade, the seed's equations, and a model that prices any schedule.
//!
//! | file | what |
//! |---|---|
//! | `params.rs` | the parameters L, g, C, gamma: TOML with units, checks, interpolation |
//! | `bench.rs` | the §3.3 micro-benchmarks as SPE programs timed with the decrementer |
//! | `measure.rs` | runs the micro-benchmarks into a [`params::ModelParams`] |
//! | `equations.rs` | seed 003 tables 1-5, each mapped to a registry name |
//! | `price.rs` | the price of any schedule, read off its rounds |
//! | `predict.rs` | `model predict`: equations, price and simulation side by side |
//! | `auto.rs` | the automatic algorithm choice of `coll OP --algos auto` |
//! | `claims.rs` | seed 003's claims as rows of `cellblade reproduce` |
//! | `request.rs` | the typed requests of the fronts, on the project's request path |
//! | `validate.rs` | the seed's accuracy grid, error spread, figure 11's baseline, regret |

pub mod auto;
pub mod bench;
pub mod claims;
pub mod cluster;
pub mod equations;
pub mod measure;
pub mod params;
pub mod predict;
pub mod price;
pub mod request;
pub mod validate;

pub use measure::{measure, MeasureRequest};
pub use params::ModelParams;
pub use predict::{predict, PredictRequest, PredictResult};
