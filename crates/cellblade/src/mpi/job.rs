//! A job whose rank programs run inside the simulator (written in Rust, or in Python through
//! the bindings' `MpiJob`), from the same request fields as `cellblade mpirun`: so a bad rank
//! count, mode, placement or depth is refused naming the same field with the same words.

use crate::error::{config_err, Result};
use crate::machine::config::MachineFile;

use super::request::{mode_of, JobRequest};
use super::{check_depth, check_ranks, MpiWorld};

/// The world `request` describes (its ranks, mode, placement or placement file, depth and
/// trace), ready for a program per rank ([`MpiWorld::rank`]). A request carrying rank
/// processes' sockets belongs to `mpirun`, not here.
///
/// ```
/// use cellblade::mpi::{self, request::JobRequest};
/// use cellblade::request::{parse, MachineChoice};
/// let job: JobRequest = parse(serde_json::json!({"ranks": 2, "mode": "ls"})).unwrap();
/// let mut w = mpi::world(&job, MachineChoice::default().resolve().unwrap()).unwrap();
/// for rank in 0..2 {
///     w.rank(rank, move |r| async move {
///         let buf = r.alloc(8)?;
///         if rank == 0 {
///             r.write(buf, b"from one")?;
///             r.send(buf, 8, 1, 0, 0).await?;
///         } else {
///             let st = r.recv(buf, 8, mpi::ANY_SOURCE, mpi::ANY_TAG, 0).await?;
///             assert_eq!((st.source, r.read(buf, st.bytes)?), (0, b"from one".to_vec()));
///         }
///         Ok(())
///     })
///     .unwrap();
/// }
/// w.run().unwrap();
/// ```
pub fn world(request: &JobRequest, file: MachineFile) -> Result<MpiWorld> {
    check_ranks(request.ranks)?;
    if !request.streams.is_empty() {
        return Err(config_err("a job of in-process rank programs takes no rank connections"));
    }
    let mode = mode_of(&request.mode)?;
    check_depth(request.depth)?;
    let mut w = MpiWorld::with_trace(file, request.ranks, request.placement()?, mode, request.trace)?;
    w.set_depth(request.depth)?;
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{parse, MachineChoice};
    use serde_json::json;

    fn job(fields: serde_json::Value) -> Result<MpiWorld> {
        world(&parse::<JobRequest>(fields)?, MachineChoice::default().resolve()?)
    }

    #[test]
    fn the_request_fields_place_the_ranks_and_bad_ones_are_named() {
        assert_eq!(job(json!({"ranks": 2, "placement": [0, 8]})).unwrap().spes(), [0, 8]);
        assert_eq!(job(json!({"ranks": 3})).unwrap().spes(), [0, 1, 2]);
        for (fields, field) in [
            (json!({"ranks": 0}), "ranks"),
            (json!({"ranks": 2, "mode": "shm"}), "mode"),
            (json!({"ranks": 2, "depth": 1}), "depth"),
            (json!({"ranks": 2, "placement": [0]}), "placement"),
        ] {
            assert_eq!(job(fields.clone()).err().and_then(|e| e.field().map(str::to_string)).as_deref(), Some(field), "{fields}");
        }
    }
}
