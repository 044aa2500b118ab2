//! The arguments of the Python program handles ([`crate::programs`]): integers are checked
//! here so that a negative or too large value is a ConfigError naming the argument, the value
//! and the range, not pyo3's bare OverflowError.

use cellblade::machine::mfc::ListElement;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::to_py;

/// A DMA list from `(size, eal)` pairs, each number checked as [`unsigned`] checks arguments.
pub(crate) fn list_of(list: &Bound<'_, PyAny>) -> PyResult<Vec<ListElement>> {
    list.try_iter()?
        .map(|element| {
            let (size, eal): (Bound<'_, PyAny>, Bound<'_, PyAny>) = element?.extract()?;
            Ok(ListElement { size: unsigned(&size, "list size")?, eal: unsigned(&eal, "list eal")? })
        })
        .collect()
}

/// An unsigned integer argument of a handle method: a value out of the type's range is a
/// ConfigError naming the argument, the value and the range (not pyo3's bare OverflowError).
pub(crate) fn unsigned<T: TryFrom<u64> + Bounded>(value: &Bound<'_, PyAny>, name: &str) -> PyResult<T> {
    let refused = || {
        let shown = value.repr().map_or_else(|_| "the value".to_string(), |r| r.to_string());
        to_py(cellblade::error::field_err(name, shown, format!("a whole number from 0 to {}", T::MAX)))
    };
    match value.extract::<u64>() {
        Ok(n) => T::try_from(n).map_err(|_| refused()),
        Err(e) if e.is_instance_of::<PyTypeError>(value.py()) => Err(PyTypeError::new_err(format!("{name}: {}", e.value(value.py())))),
        Err(_) => Err(refused()),
    }
}

/// The largest value of an unsigned argument type.
pub(crate) trait Bounded {
    const MAX: u64;
}

impl Bounded for u32 {
    const MAX: u64 = u32::MAX as u64;
}

impl Bounded for u64 {
    const MAX: u64 = u64::MAX;
}

impl Bounded for usize {
    const MAX: u64 = usize::MAX as u64;
}
