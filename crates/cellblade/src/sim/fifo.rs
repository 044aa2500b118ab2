//! A first-in first-out ring buffer for the bus's per-source queues, which are pushed and popped
//! several times per packet: a power-of-two capacity makes the wrap a mask, and the rare growth
//! and mid-queue edits stay out of the inlined paths.

#[derive(Clone)]
pub struct Fifo<T: Copy + Default> {
    /// Capacity is a power of two (or zero); item i lives at `(head + i) & (buf.len() - 1)`.
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Default for Fifo<T> {
    fn default() -> Self {
        Fifo { buf: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy + Default> Fifo<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (self.buf.len() - 1)
    }

    /// Item `i` from the front.
    #[inline]
    pub fn get(&self, i: usize) -> T {
        assert!(i < self.len, "get at {i} past the end ({})", self.len);
        // SAFETY: i < len <= buf.len(), so buf is non-empty, its length a power of two, and the
        // masked slot is in bounds.
        unsafe { *self.buf.get_unchecked(self.slot(i)) }
    }

    #[inline]
    pub fn front(&self) -> Option<T> {
        (self.len > 0).then(|| self.get(0))
    }

    #[inline]
    pub fn back(&self) -> Option<T> {
        (self.len > 0).then(|| self.get(self.len - 1))
    }

    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let s = self.slot(self.len);
        // SAFETY: after the growth above len < buf.len(), a non-zero power of two, and the masked
        // slot is in bounds.
        unsafe { *self.buf.get_unchecked_mut(s) = v };
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        let v = self.front()?;
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(v)
    }

    /// Insert `v` before item `i` (`i == len` appends).
    #[cold]
    pub fn insert(&mut self, i: usize, v: T) {
        assert!(i <= self.len, "insert at {i} past the end ({})", self.len);
        self.push_back(v);
        for k in (i..self.len - 1).rev() {
            let (a, b) = (self.slot(k), self.slot(k + 1));
            self.buf.swap(a, b);
        }
    }

    /// Remove and return item `i`.
    #[cold]
    pub fn remove(&mut self, i: usize) -> T {
        assert!(i < self.len, "remove at {i} past the end ({})", self.len);
        let v = self.get(i);
        for k in i..self.len - 1 {
            let (a, b) = (self.slot(k), self.slot(k + 1));
            self.buf[a] = self.buf[b];
        }
        self.len -= 1;
        v
    }

    #[cold]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(8);
        let mut buf = vec![T::default(); cap];
        for (i, b) in buf.iter_mut().enumerate().take(self.len) {
            *b = self.get(i);
        }
        (self.buf, self.head) = (buf, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_a_vecdeque() {
        let mut f = Fifo::default();
        let mut r = VecDeque::new();
        let mut x: u64 = 0x2545f4914f6cdd1d;
        for n in 0..50_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 6 {
                0..=2 => {
                    f.push_back(n);
                    r.push_back(n);
                }
                3 | 4 => assert_eq!(f.pop_front(), r.pop_front()),
                _ if !r.is_empty() => {
                    let i = (x >> 8) as usize % (r.len() + 1);
                    if x & 0x10 != 0 && i < r.len() {
                        assert_eq!(f.remove(i), r.remove(i).unwrap());
                    } else {
                        f.insert(i, n);
                        r.insert(i, n);
                    }
                }
                _ => {}
            }
            assert_eq!(f.len(), r.len());
            assert_eq!(f.front(), r.front().copied());
            assert_eq!(f.back(), r.back().copied());
        }
        for (i, v) in r.iter().enumerate() {
            assert_eq!(f.get(i), *v);
        }
    }
}
