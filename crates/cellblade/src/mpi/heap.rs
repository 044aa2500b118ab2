//! A rank's message buffers: bump allocation in its areas of memory. Buffers a program keeps
//! for the run come from the bottom of an area up; the buffers of nonblocking requests from the
//! top down, so that releasing the requests (when none is pending) leaves the program's alone.
//! A main-memory heap has one area on the rank's own chip and, when the other chip runs no rank,
//! one there too, used once the near one is full: Linux's default NUMA policy (local node first,
//! then the other) does the same for the seed's buffers.
//!
//! An area also lends space to the rank's unexpected queue (`unexpected.rs`): bytes it *holds*
//! while messages are parked are not free for buffers, and come back when each message leaves.

use std::cell::Cell;

/// One area: `[base, limit)`, the program's buffers below `next`, the requests' above `end`,
/// and `held` bytes between them lent to the unexpected queue.
#[derive(Debug)]
pub(super) struct Area {
    base: u64,
    limit: Cell<u64>,
    next: Cell<u64>,
    end: Cell<u64>,
    held: Cell<u64>,
}

impl Area {
    /// The area of `bytes` bytes from `base` (both multiples of 128).
    pub fn new((base, bytes): (u64, u64)) -> Area {
        Area { base, limit: Cell::new(base + bytes), next: Cell::new(base), end: Cell::new(base + bytes), held: Cell::new(0) }
    }

    /// A buffer of `bytes` from the bottom, 128-byte aligned, if it fits. A 0-byte buffer still
    /// takes a slot, so that its address lies inside the area (one past the end of a full local
    /// store maps to nothing).
    pub fn alloc(&self, bytes: u64) -> Option<u64> {
        let bytes = bytes.max(1);
        let at = self.next.get().next_multiple_of(128);
        (at.checked_add(bytes)? <= self.end.get() - self.held.get()).then(|| {
            self.next.set(at + bytes);
            at
        })
    }

    /// A request buffer of `bytes` from the top, 128-byte aligned, if it fits; a 0-byte one
    /// takes a slot, as in [`Area::alloc`].
    pub fn alloc_top(&self, bytes: u64) -> Option<u64> {
        let bytes = bytes.max(1);
        let at = self.end.get().checked_sub(bytes)? & !127;
        (at >= self.next.get() + self.held.get()).then(|| {
            self.end.set(at);
            at
        })
    }

    /// Take `bytes` off the top for good (below every request buffer to come), if they fit and
    /// no request buffer is out.
    pub fn reserve_top(&self, bytes: u64) -> Option<u64> {
        let top = self
            .limit
            .get()
            .checked_sub(bytes)
            .filter(|&t| t >= self.next.get() + self.held.get() && t % 128 == 0 && self.end.get() == self.limit.get())?;
        self.limit.set(top);
        self.end.set(top);
        Some(top)
    }

    /// The area's whole size: no buffer larger than this can ever fit it.
    pub fn size(&self) -> u64 {
        self.limit.get() - self.base
    }

    /// Bytes between the program's buffers and the requests', less those held.
    pub fn free(&self) -> u64 {
        self.end.get().saturating_sub(self.next.get().next_multiple_of(128)).saturating_sub(self.held.get())
    }

    /// Lend `bytes` to the unexpected queue, if they are free.
    pub fn hold(&self, bytes: u64) -> bool {
        let fits = bytes <= self.free();
        if fits {
            self.held.set(self.held.get() + bytes);
        }
        fits
    }

    /// Take back `bytes` that [`Area::hold`] lent.
    pub fn unhold(&self, bytes: u64) {
        self.held.set(self.held.get() - bytes);
    }

    /// Bytes lent to the unexpected queue now.
    pub fn held(&self) -> u64 {
        self.held.get()
    }

    /// Release every request buffer.
    pub fn release_requests(&self) {
        self.end.set(self.limit.get());
    }

    /// Release every buffer of the program's.
    pub fn release_buffers(&self) {
        self.next.set(self.base);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_grow_up_requests_down_and_release_separately() {
        let a = Area::new((1024, 4096));
        assert_eq!(a.alloc(100), Some(1024));
        assert_eq!(a.alloc(100), Some(1152), "aligned to 128");
        assert_eq!(a.alloc_top(1000), Some(5120 - 1024));
        assert_eq!(a.free(), 4096 - 1024 - 256);
        assert_eq!(a.alloc(a.free() + 1), None);
        assert_eq!(a.alloc_top(a.free() + 128), None);
        a.release_requests();
        assert_eq!(a.free(), 4096 - 256);
        a.release_buffers();
        assert_eq!(a.alloc(4096), Some(1024));
        assert_eq!(a.alloc(1), None);
    }

    #[test]
    fn zero_byte_buffers_lie_inside_the_area() {
        let a = Area::new((0, 256));
        let top = a.alloc_top(0).unwrap();
        assert!(top < 256, "a 0-byte request buffer at {top} is past the area's end");
        let bottom = a.alloc(0).unwrap();
        assert!(bottom < top);
        assert_eq!((a.alloc(0), a.alloc_top(0)), (None, None), "the area is full");
    }

    #[test]
    fn held_bytes_are_free_for_no_buffer_until_given_back() {
        let a = Area::new((0, 1024));
        assert!(a.hold(512));
        assert_eq!(a.free(), 512);
        assert_eq!((a.alloc(513), a.alloc_top(513)), (None, None), "512 bytes are held");
        assert!(!a.hold(513), "more than is free");
        assert_eq!(a.alloc(256), Some(0));
        assert!(!a.hold(257));
        a.unhold(512);
        assert_eq!((a.held(), a.free()), (0, 768));
        assert_eq!(a.alloc_top(768), Some(256));
    }

    #[test]
    fn a_reserved_top_survives_releasing_the_requests() {
        let a = Area::new((0, 4096));
        assert_eq!(a.reserve_top(1024), Some(3072));
        assert_eq!(a.alloc_top(128), Some(2944));
        assert_eq!(a.reserve_top(128), None, "not while a request buffer is out");
        a.release_requests();
        assert_eq!(a.alloc_top(3072), Some(0));
        assert_eq!(a.alloc_top(1), None);
    }
}
