//! Cell SDK programs on the simulated blade: C programs written against libspe2 on the PPE and
//! spu_mfcio.h on the SPEs (`sdk/` holds their libraries), built by `cellblade spu-gcc` and
//! `ppu-gcc` and run by `cellblade run` ([`job`]).

pub mod cost;
pub mod job;
pub mod process_memory;
pub mod request;
pub mod wire;
