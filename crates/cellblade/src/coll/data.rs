//! Element types and reduction operators, the reference inputs every collective starts from,
//! and what each operation must leave in each rank's buffer. Local stores are big-endian, as on
//! the Cell.

use std::rc::Rc;

use crate::error::{config_err, Result};
use crate::machine::config::Params;

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

    /// SPU core cycles to combine one quadword of this type: the machine file's cost of the
    /// combine loop for its add (sdk/cost/kernels/reduce_combine.c is that loop in C).
    pub fn reduce_cycles_per_quadword(self, p: &Params) -> u64 {
        match self {
            Dtype::Int32 => p.reduce_cycles_per_quadword,
            Dtype::Float32 => p.reduce_sp_cycles_per_quadword,
            Dtype::Float64 => p.reduce_dp_cycles_per_quadword,
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
}

/// `dst op= src`, element by element.
pub fn combine(dtype: Dtype, op: ReduceOp, dst: &mut [u8], src: &[u8]) {
    // One loop per type and operator, so each compiles to straight-line (vector) code rather
    // than a choice of operator per element; each type names its reading, writing and
    // operators once.
    macro_rules! by_op {
        ($read:expr, $write:expr, sum $sum:expr, min $min:expr, max $max:expr, prod $prod:expr) => {
            match op {
                ReduceOp::Sum => each(dst, src, $read, $write, $sum),
                ReduceOp::Min => each(dst, src, $read, $write, $min),
                ReduceOp::Max => each(dst, src, $read, $write, $max),
                ReduceOp::Prod => each(dst, src, $read, $write, $prod),
            }
        };
    }
    let (add, mul) = (|a: f64, b: f64| a + b, |a: f64, b: f64| a * b);
    match dtype {
        Dtype::Int32 => {
            by_op!(i32::from_be_bytes, i32::to_be_bytes, sum i32::wrapping_add, min i32::min, max i32::max, prod i32::wrapping_mul)
        }
        // Single precision through double, as the reference results are computed.
        Dtype::Float32 => by_op!(
            |b: [u8; 4]| f32::from_be_bytes(b) as f64,
            |v: f64| (v as f32).to_be_bytes(),
            sum add,
            min f64::min,
            max f64::max,
            prod mul
        ),
        Dtype::Float64 => by_op!(f64::from_be_bytes, f64::to_be_bytes, sum add, min f64::min, max f64::max, prod mul),
    }
}

/// `dst[i] = f(dst[i], src[i])` over the `N`-byte elements, read and written by `read` and
/// `write`.
#[inline(always)]
fn each<const N: usize, T>(dst: &mut [u8], src: &[u8], read: impl Fn([u8; N]) -> T, write: impl Fn(T) -> [u8; N], f: impl Fn(T, T) -> T) {
    for (d, s) in dst.chunks_exact_mut(N).zip(src.chunks_exact(N)) {
        let v = f(read(d.try_into().expect("an element")), read(s.try_into().expect("an element")));
        d.copy_from_slice(&write(v));
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

    /// Each type and operator on big-endian elements, against values worked by hand (the
    /// reference results are built with `combine` itself, so they cannot catch it).
    #[test]
    fn each_operator_combines_big_endian_elements() {
        let ints = |v: &[i32]| v.iter().flat_map(|x| x.to_be_bytes()).collect::<Vec<u8>>();
        let floats = |v: &[f32]| v.iter().flat_map(|x| x.to_be_bytes()).collect::<Vec<u8>>();
        let doubles = |v: &[f64]| v.iter().flat_map(|x| x.to_be_bytes()).collect::<Vec<u8>>();
        let cases: [(ReduceOp, [i32; 3]); 4] = [
            (ReduceOp::Sum, [8, 5, i32::MIN + 1]),
            (ReduceOp::Min, [3, -2, 2]),
            (ReduceOp::Max, [5, 7, i32::MAX]),
            (ReduceOp::Prod, [15, -14, -2]),
        ];
        for (op, want) in cases {
            let run = |dtype, mut dst: Vec<u8>, src: Vec<u8>| {
                combine(dtype, op, &mut dst, &src);
                dst
            };
            assert_eq!(run(Dtype::Int32, ints(&[3, -2, i32::MAX]), ints(&[5, 7, 2])), ints(&[want[0], want[1], want[2]]), "{op:?}");
            let f = |x: i32| x as f32;
            assert_eq!(run(Dtype::Float32, floats(&[3.0, -2.0]), floats(&[5.0, 7.0])), floats(&[f(want[0]), f(want[1])]), "{op:?}");
            let d = |x: i32| x as f64;
            assert_eq!(run(Dtype::Float64, doubles(&[3.0, -2.0]), doubles(&[5.0, 7.0])), doubles(&[d(want[0]), d(want[1])]), "{op:?}");
        }
    }
}
