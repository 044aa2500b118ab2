//! The event queue: items ordered by `(time, push order)`, popped earliest first.
//!
//! A binary heap costs a dozen unpredictable compares per pop, and in a bus simulation nearly
//! every event lands a little after now (a bus cycle, a command phase, an XDR latency: at most a
//! few microseconds, tens of thousands of ticks). So the queue is a timing wheel for the near
//! future and a heap for the rest:
//!
//! ```text
//!  near: slot (time / SLOT_TICKS) mod SLOTS -> list of its items sorted by time, FIFO on ties;
//!        a two-level occupancy bitmap finds the next busy slot
//!  far:  items more than a wheel turn ahead when pushed: binary heap by (time, push sequence)
//! ```
//!
//! A slot spans 16 ticks (one bus cycle at the usual clock), so its list rarely holds more than
//! one time and insertion is nearly always an append, while the slot table (64 KB) stays in
//! cache; one slot per tick made every push a cache miss.
//!
//! Exactness: near items all lie within one wheel turn of the last popped time, which only grows,
//! so a slot never mixes turns; its list keeps equal times in push order, as a `(time, sequence)`
//! heap would. An item is never moved from the heap into the wheel: at pop the earlier of the two
//! heads wins, and on equal times the heap's, because every far item at time t was pushed before
//! t came within a turn, hence before any near item at t.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Ticks per slot (a power of two).
const SLOT_BITS: u32 = 4;
/// Slots in the wheel: 2^13 slots of 16 ticks cover 2^17 ticks (5.1 us), enough for the MIC and
/// BIF queues of 16 MFCs with every packet in flight; anything later goes to the heap.
const SLOTS_BITS: u32 = 13;
const SLOTS: u64 = 1 << SLOTS_BITS;
const WORDS: usize = (SLOTS / 64) as usize;
/// Node 0 is a placeholder, so that an all-zero slot table (lazily zeroed pages) means empty.
const NIL: u32 = 0;

struct Node<T> {
    time: u64,
    next: u32,
    item: Option<T>,
}

struct FarEntry<T> {
    time: u64,
    seq: u64,
    item: T,
}

impl<T> PartialEq for FarEntry<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl<T> Eq for FarEntry<T> {}
impl<T> PartialOrd for FarEntry<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for FarEntry<T> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

pub struct EventQueue<T> {
    /// Time of the last pop: no item is earlier.
    base: u64,
    /// Per slot, first and last node of its list (NIL if empty).
    slots: Vec<[u32; 2]>,
    /// Bit s set when slot s is busy; `summary` bit w set when `busy[w]` is non-zero.
    busy: Vec<u64>,
    summary: Vec<u64>,
    nodes: Vec<Node<T>>,
    free_node: u32,
    near_len: usize,
    far: BinaryHeap<FarEntry<T>>,
    far_seq: u64,
    /// The earliest time queued (`u64::MAX` if none), or `None` if a pop has made it unknown:
    /// the event loop asks for it every iteration and pops far less often.
    earliest: Option<u64>,
}

impl<T> Default for EventQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> EventQueue<T> {
    pub fn new() -> Self {
        EventQueue {
            base: 0,
            slots: vec![[NIL; 2]; SLOTS as usize],
            busy: vec![0; WORDS],
            summary: vec![0; WORDS.div_ceil(64)],
            nodes: vec![Node { time: 0, next: NIL, item: None }],
            free_node: NIL,
            near_len: 0,
            far: BinaryHeap::new(),
            far_seq: 0,
            earliest: Some(u64::MAX),
        }
    }

    /// Add `item` at `time`, which must not be before the last pop.
    #[inline]
    pub fn push(&mut self, time: u64, item: T) {
        debug_assert!(time >= self.base, "pushed into the past");
        if let Some(e) = self.earliest {
            self.earliest = Some(e.min(time));
        }
        if (time >> SLOT_BITS) - (self.base >> SLOT_BITS) >= SLOTS {
            self.far_seq += 1;
            self.far.push(FarEntry { time, seq: self.far_seq, item });
            return;
        }
        let node = Node { time, next: NIL, item: Some(item) };
        let n = if self.free_node != NIL {
            let n = self.free_node;
            self.free_node = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        let s = ((time >> SLOT_BITS) & (SLOTS - 1)) as usize;
        let [head, tail] = self.slots[s];
        if head == NIL {
            self.slots[s] = [n, n];
            let w = s >> 6;
            self.busy[w] |= 1 << (s & 63);
            self.summary[w >> 6] |= 1 << (w & 63);
        } else if self.nodes[tail as usize].time <= time {
            self.nodes[tail as usize].next = n;
            self.slots[s][1] = n;
        } else {
            // Rare: an earlier time than the slot's last. Insert after the items not later.
            let mut prev = NIL;
            let mut cur = head;
            while self.nodes[cur as usize].time <= time {
                prev = cur;
                cur = self.nodes[cur as usize].next;
            }
            self.nodes[n as usize].next = cur;
            if prev == NIL {
                self.slots[s][0] = n;
            } else {
                self.nodes[prev as usize].next = n;
            }
        }
        self.near_len += 1;
    }

    /// The time of the earliest item, `u64::MAX` if there is none.
    #[inline]
    pub fn earliest(&mut self) -> u64 {
        if let Some(e) = self.earliest {
            return e;
        }
        let near = if self.near_len > 0 { self.nodes[self.slots[self.next_busy_slot()][0] as usize].time } else { u64::MAX };
        let e = near.min(self.far.peek().map_or(u64::MAX, |f| f.time));
        self.earliest = Some(e);
        e
    }

    /// Remove and return the earliest item with its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, T)> {
        self.earliest = None;
        let near = if self.near_len > 0 { Some(self.next_busy_slot()) } else { None };
        if let Some(f) = self.far.peek() {
            let far_first = match near {
                None => true,
                Some(s) => f.time <= self.nodes[self.slots[s][0] as usize].time,
            };
            if far_first {
                let f = self.far.pop().expect("peeked");
                self.base = f.time;
                return Some((f.time, f.item));
            }
        }
        let s = near?;
        let n = self.slots[s][0];
        let node = &mut self.nodes[n as usize];
        let (time, next) = (node.time, node.next);
        let item = node.item.take().expect("live node");
        node.next = self.free_node;
        self.free_node = n;
        self.slots[s][0] = next;
        if next == NIL {
            self.slots[s][1] = NIL;
            let w = s >> 6;
            self.busy[w] &= !(1 << (s & 63));
            if self.busy[w] == 0 {
                self.summary[w >> 6] &= !(1 << (w & 63));
            }
        }
        self.near_len -= 1;
        self.base = time;
        Some((time, item))
    }

    /// The earliest item, the one [`EventQueue::pop`] would return.
    pub fn peek(&self) -> Option<&T> {
        let near = (self.near_len > 0).then(|| self.slots[self.next_busy_slot()][0] as usize);
        match (self.far.peek(), near) {
            (Some(f), Some(n)) if f.time <= self.nodes[n].time => Some(&f.item),
            (_, Some(n)) => self.nodes[n].item.as_ref(),
            (f, None) => f.map(|f| &f.item),
        }
    }

    /// The first busy slot at or after the base's, cyclically: the earliest near item's.
    #[inline]
    fn next_busy_slot(&self) -> usize {
        let start = ((self.base >> SLOT_BITS) & (SLOTS - 1)) as usize;
        self.busy_from(start).or_else(|| self.busy_from(0)).expect("a busy slot")
    }

    /// The first busy slot at or after `start` (no wrap).
    #[inline]
    fn busy_from(&self, start: usize) -> Option<usize> {
        let w = start >> 6;
        let bits = self.busy[w] & (!0u64 << (start & 63));
        if bits != 0 {
            return Some((w << 6) | bits.trailing_zeros() as usize);
        }
        let first_word = w + 1;
        if first_word >= WORDS {
            return None;
        }
        let mut sw = first_word >> 6;
        let mut mask = self.summary[sw] & (!0u64 << (first_word & 63));
        loop {
            if mask != 0 {
                let word = (sw << 6) | mask.trailing_zeros() as usize;
                return Some((word << 6) | self.busy[word].trailing_zeros() as usize);
            }
            sw += 1;
            if sw >= self.summary.len() {
                return None;
            }
            mask = self.summary[sw];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticks in one turn of the wheel.
    const TURN: u64 = SLOTS << SLOT_BITS;

    /// The reference order: a stable sort by time.
    fn check(ops: &[(u64, bool)]) {
        // (delay, pop_after): push at base + delay, then optionally pop one.
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, usize)> = Vec::new();
        let mut now = 0;
        let mut id = 0;
        let pop_both = |q: &mut EventQueue<usize>, reference: &mut Vec<(u64, usize)>, now: &mut u64| {
            let want = reference.iter().enumerate().min_by_key(|(_, (t, i))| (*t, *i)).map(|(k, &v)| (k, v));
            assert_eq!(q.earliest(), want.map_or(u64::MAX, |(_, (t, _))| t));
            let peeked = q.peek().copied();
            let got = q.pop();
            assert_eq!(peeked, got.map(|g| g.1), "peek names the item pop returns");
            match want {
                None => assert!(got.is_none()),
                Some((k, v)) => {
                    reference.remove(k);
                    assert_eq!(got, Some(v));
                    *now = v.0;
                }
            }
        };
        for &(delay, pop) in ops {
            q.push(now + delay, id);
            reference.push((now + delay, id));
            id += 1;
            // Known after a push that followed another, unknown after a pop: both paths.
            if id % 2 == 0 {
                assert_eq!(q.earliest(), reference.iter().map(|r| r.0).min().unwrap());
            }
            if pop {
                pop_both(&mut q, &mut reference, &mut now);
            }
        }
        while !reference.is_empty() {
            pop_both(&mut q, &mut reference, &mut now);
        }
        assert!(q.pop().is_none());
    }

    #[test]
    fn equal_times_pop_in_push_order_across_wheel_and_heap() {
        // Item 0 at TURN+5 goes to the heap; after a pop at 10 the same time is near, and the items
        // pushed there then must come out after it.
        check(&[(TURN + 5, false), (10, true), (TURN - 5, false), (TURN - 5, false), (0, true)]);
    }

    #[test]
    fn matches_a_stable_sort() {
        // A deterministic mix of short, wheel-edge and far delays.
        let mut x: u64 = 0x9e3779b97f4a7c15;
        let mut ops = Vec::new();
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let delay = match x % 7 {
                0 => 0,
                1 => x % 40,
                2 => (x >> 8) % 5000,
                3 => TURN - 1 - (x >> 8) % 3,
                4 => TURN + (x >> 8) % 3,
                5 => (x >> 8) % (4 * TURN),
                _ => 16 * ((x >> 8) % 64),
            };
            ops.push((delay, !x.is_multiple_of(3)));
        }
        check(&ops);
    }
}
