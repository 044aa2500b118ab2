//! Element types and reduction operators, the reference inputs every collective starts from,
//! and what each operation must leave in each rank's buffer. Local stores are big-endian, as on
//! the Cell.

use std::rc::Rc;

use crate::error::{config_err, Result};

use super::schedule::Op;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    Int32,
    Float32,
    Float64,
}

impl Dtype {
    pub const NAMES: [&'static str; 3] = ["int32", "float32", "float64"];

    pub fn parse(s: &str) -> Result<Dtype> {
        match s {
            "int32" => Ok(Dtype::Int32),
            "float32" => Ok(Dtype::Float32),
            "float64" => Ok(Dtype::Float64),
            o => Err(config_err(format!("unknown dtype '{o}': allowed {}", Self::NAMES.join(", ")))),
        }
    }

    pub fn bytes(self) -> u32 {
        match self {
            Dtype::Float64 => 8,
            _ => 4,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Min,
    Max,
    Prod,
}

impl ReduceOp {
    pub const NAMES: [&'static str; 4] = ["sum", "min", "max", "prod"];

    pub fn parse(s: &str) -> Result<ReduceOp> {
        match s {
            "sum" => Ok(ReduceOp::Sum),
            "min" => Ok(ReduceOp::Min),
            "max" => Ok(ReduceOp::Max),
            "prod" => Ok(ReduceOp::Prod),
            o => Err(config_err(format!("unknown reduction '{o}': allowed {}", Self::NAMES.join(", ")))),
        }
    }

    fn f64(self, a: f64, b: f64) -> f64 {
        match self {
            ReduceOp::Sum => a + b,
            ReduceOp::Min => a.min(b),
            ReduceOp::Max => a.max(b),
            ReduceOp::Prod => a * b,
        }
    }

    fn i32(self, a: i32, b: i32) -> i32 {
        match self {
            ReduceOp::Sum => a.wrapping_add(b),
            ReduceOp::Min => a.min(b),
            ReduceOp::Max => a.max(b),
            ReduceOp::Prod => a.wrapping_mul(b),
        }
    }
}

/// `dst op= src`, element by element.
pub fn combine(dtype: Dtype, op: ReduceOp, dst: &mut [u8], src: &[u8]) {
    match dtype {
        Dtype::Int32 => {
            for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
                let v = op.i32(i32::from_be_bytes(d.try_into().unwrap()), i32::from_be_bytes(s.try_into().unwrap()));
                d.copy_from_slice(&v.to_be_bytes());
            }
        }
        Dtype::Float32 => {
            for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
                let v = op.f64(f32::from_be_bytes(d.try_into().unwrap()) as f64, f32::from_be_bytes(s.try_into().unwrap()) as f64) as f32;
                d.copy_from_slice(&v.to_be_bytes());
            }
        }
        Dtype::Float64 => {
            for (d, s) in dst.chunks_exact_mut(8).zip(src.chunks_exact(8)) {
                let v = op.f64(f64::from_be_bytes(d.try_into().unwrap()), f64::from_be_bytes(s.try_into().unwrap()));
                d.copy_from_slice(&v.to_be_bytes());
            }
        }
    }
}

/// Element `i` of rank `r`'s input: small integers, so that sums and products are exact in
/// floating point whatever order an algorithm reduces in.
fn element(dtype: Dtype, r: usize, i: usize) -> Vec<u8> {
    let v = ((r * 7 + i * 3) % 5) as i32 - 2 + if (r + i).is_multiple_of(3) { 3 } else { 0 };
    match dtype {
        Dtype::Int32 => v.to_be_bytes().to_vec(),
        Dtype::Float32 => (v as f32).to_be_bytes().to_vec(),
        Dtype::Float64 => (v as f64).to_be_bytes().to_vec(),
    }
}

/// Elements after which `element` repeats: its `i * 3 % 5` and `(r + i) % 3` both come back.
const PERIOD: usize = 15;

/// Rank `r`'s input of `bytes`: one period of elements, repeated (made once per collective run
/// for every rank, element by element it was a tenth of a `reproduce --quick`).
fn vector(dtype: Dtype, r: usize, bytes: u32) -> Vec<u8> {
    let len = (bytes / dtype.bytes() * dtype.bytes()) as usize;
    let period: Vec<u8> = (0..PERIOD).flat_map(|i| element(dtype, r, i)).collect();
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        out.extend_from_slice(&period[..period.len().min(len - out.len())]);
    }
    out
}

/// Each rank's buffer before the operation.
pub fn inputs(op: Op, p: usize, root: usize, size: u32, dtype: Dtype) -> Vec<Vec<u8>> {
    let buffer = op.buffer_bytes(p, size) as usize;
    (0..p)
        .map(|r| match op {
            Op::Barrier => Vec::new(),
            Op::Broadcast if r == root => vector(dtype, 1000 + root, size),
            Op::Broadcast => vec![0; buffer],
            Op::Allgather => {
                let mut b = vec![0; buffer];
                b[r * size as usize..(r + 1) * size as usize].copy_from_slice(&vector(dtype, r, size));
                b
            }
            Op::Reduce | Op::Allreduce => vector(dtype, r, size),
        })
        .collect()
}

/// What each rank's buffer must hold afterwards (None: anything; e.g. non-roots after reduce),
/// one allocation shared by the ranks that hold the same.
pub fn expected(op: Op, p: usize, root: usize, size: u32, dtype: Dtype, rop: ReduceOp) -> Vec<Option<Rc<[u8]>>> {
    let reduced = || {
        let mut acc = vector(dtype, 0, size);
        for r in 1..p {
            combine(dtype, rop, &mut acc, &vector(dtype, r, size));
        }
        Rc::from(acc)
    };
    match op {
        Op::Barrier => vec![None; p],
        Op::Broadcast => vec![Some(vector(dtype, 1000 + root, size).into()); p],
        Op::Allgather => vec![Some((0..p).flat_map(|r| vector(dtype, r, size)).collect()); p],
        Op::Reduce => (0..p).map(|r| (r == root).then(reduced)).collect(),
        Op::Allreduce => vec![Some(reduced()); p],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_is_its_elements_in_order() {
        for dtype in [Dtype::Int32, Dtype::Float32, Dtype::Float64] {
            for r in [0, 1, 2, 7, 15, 1003] {
                for bytes in [0, 4, 8, 56, 60, 64, 120, 128, 1000, 8192] {
                    let one_by_one: Vec<u8> = (0..(bytes / dtype.bytes()) as usize).flat_map(|i| element(dtype, r, i)).collect();
                    assert_eq!(vector(dtype, r, bytes), one_by_one, "{dtype:?} rank {r} {bytes} B");
                }
            }
        }
    }
}
