//! A link's in-flight FIFO: every accepted packet not yet delivered, with its
//! arrival time at the far node and its size, oldest first.
//!
//! Every packet hop pushes one entry and pops one, so this sits on the
//! hottest path of the simulator. It is one ring of power-of-two capacity
//! holding three parallel arrays (packets, arrival times, sizes) that share
//! one head, one length and a wrap-around by mask; two `VecDeque`s each did
//! their own wrap and capacity bookkeeping, about a fifth of all
//! instructions per event. The sizes are kept apart (2 bytes each) because
//! the link's occupancy needs the size of the packet in transmission, which
//! was accepted long ago: reading it from a dense array avoids touching that
//! packet's cold cache line.

use super::packet::Packet;
use crate::engine::Time;

const MIN_CAPACITY: usize = 16;

/// A packet in its own cache line: a long link's FIFO is far larger than
/// the caches, and a 64-byte packet that straddles two lines costs two
/// misses when it is written (accepted) and two when it is read (delivered).
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct Slot(Packet);

#[derive(Debug)]
pub struct Fifo {
    packets: Vec<Slot>,
    times: Vec<Time>,
    sizes: Vec<u16>,
    /// Slot of the oldest entry.
    head: usize,
    len: usize,
}

impl Default for Fifo {
    fn default() -> Fifo {
        Fifo::new()
    }
}

impl Fifo {
    pub fn new() -> Fifo {
        Fifo {
            packets: Vec::new(),
            times: Vec::new(),
            sizes: Vec::new(),
            head: 0,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The invariant the unchecked reads and writes rely on: every array
    /// has the ring's capacity (a power of two) and slot `s` is below it.
    #[inline(always)]
    fn debug_check(&self, s: usize) {
        debug_assert!(self.packets.len().is_power_of_two());
        debug_assert!(self.times.len() == self.packets.len());
        debug_assert!(self.sizes.len() == self.packets.len());
        debug_assert!(s < self.packets.len());
    }

    /// Ring slot of the `i`-th oldest entry (capacity is a power of two).
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (self.packets.len().wrapping_sub(1))
    }

    /// Append a packet arriving at the far node at `time`.
    #[inline]
    pub fn push_back(&mut self, pkt: &Packet, time: Time) {
        if self.len == self.packets.len() {
            self.grow();
        }
        let s = self.slot(self.len);
        self.debug_check(s);
        // SAFETY: the three arrays have the ring's capacity, a power of two
        // (grown above if it was full or empty), and `slot` masks by it.
        unsafe {
            *self.packets.get_unchecked_mut(s) = Slot(*pkt);
            *self.times.get_unchecked_mut(s) = time;
            *self.sizes.get_unchecked_mut(s) = pkt.size;
        }
        self.len += 1;
        // The next slot was last used a whole ring ago and is cold: start
        // loading it now rather than at the next push.
        let next = self.slot(self.len);
        self.debug_check(next);
        // SAFETY: as above.
        prefetch(unsafe { self.packets.get_unchecked(next) });
    }

    /// Remove the oldest packet.
    #[inline]
    pub fn pop_front(&mut self) -> Option<Packet> {
        if self.len == 0 {
            return None;
        }
        self.debug_check(self.head);
        // SAFETY: a non-empty ring has a capacity (a power of two) and its
        // head is a masked slot, in range of the three arrays.
        let pkt = unsafe { self.packets.get_unchecked(self.head).0 };
        self.head = self.slot(1);
        self.len -= 1;
        // The new head was queued long ago and is cold: ask for it now, it
        // is read when this link's next event comes up.
        self.debug_check(self.head);
        // SAFETY: as above (a masked slot of the same capacity).
        prefetch(unsafe { self.packets.get_unchecked(self.head) });
        Some(pkt)
    }

    /// Where the oldest packet is stored, and the arrival time of the one
    /// after it (read when the oldest leaves): prefetch hints for the event
    /// loop, never dereferenced (a later growth may move them; 0 if empty).
    #[inline]
    pub fn front_addrs(&self) -> [usize; 2] {
        if self.len == 0 {
            return [0, 0];
        }
        let next = self.slot(1);
        [
            self.packets.as_ptr().wrapping_add(self.head) as usize,
            self.times.as_ptr().wrapping_add(next) as usize,
        ]
    }

    /// Arrival time of the oldest packet.
    #[inline]
    pub fn front_time(&self) -> Option<Time> {
        if self.len == 0 {
            return None;
        }
        self.debug_check(self.head);
        // SAFETY: a non-empty ring's head is a masked slot, in range.
        Some(unsafe { *self.times.get_unchecked(self.head) })
    }

    /// Arrival time of the `i`-th oldest packet (`i < len`).
    #[inline]
    pub fn time(&self, i: usize) -> Time {
        assert!(i < self.len, "fifo index {i} out of {}", self.len);
        // SAFETY: a non-empty ring's masked slot is in range.
        unsafe { *self.times.get_unchecked(self.slot(i)) }
    }

    /// Size in bytes of the `i`-th oldest packet (`i < len`).
    #[inline]
    pub fn size(&self, i: usize) -> u16 {
        assert!(i < self.len, "fifo index {i} out of {}", self.len);
        // SAFETY: a non-empty ring's masked slot is in range.
        unsafe { *self.sizes.get_unchecked(self.slot(i)) }
    }

    /// The `i`-th oldest packet (`i < len`).
    pub fn get(&self, i: usize) -> &Packet {
        assert!(i < self.len, "fifo index {i} out of {}", self.len);
        &self.packets[self.slot(i)].0
    }

    /// Exchange the packets of entries `i` and `j`; the arrival times stay
    /// with the slots. Only for packets of equal size (the sizes stay too).
    pub fn swap_packets(&mut self, i: usize, j: usize) {
        assert!(i < self.len && j < self.len, "fifo swap out of range");
        let (si, sj) = (self.slot(i), self.slot(j));
        assert_eq!(self.sizes[si], self.sizes[sj], "swap of unequal sizes");
        self.packets.swap(si, sj);
    }

    /// Packets oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> + '_ {
        (0..self.len).map(move |i| &self.packets[self.slot(i)].0)
    }

    /// Double the capacity, moving the entries to slots 0..len.
    #[cold]
    fn grow(&mut self) {
        let cap = (self.packets.len() * 2).max(MIN_CAPACITY);
        let filler = Slot(Packet::data(0, 0, 0, 0, 0, 0));
        let mut packets = vec![filler; cap];
        let mut times = vec![0; cap];
        let mut sizes = vec![0; cap];
        for i in 0..self.len {
            let s = self.slot(i);
            packets[i] = self.packets[s];
            times[i] = self.times[s];
            sizes[i] = self.sizes[s];
        }
        self.packets = packets;
        self.times = times;
        self.sizes = sizes;
        self.head = 0;
    }
}

/// Hint the CPU to load `value` into cache (no effect on results).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    prefetch_addr(value as *const T as usize);
}

/// Hint the CPU to load the cache line at `addr` (no effect on results:
/// a prefetch never faults, whatever the address).
#[inline(always)]
pub(crate) fn prefetch_addr(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, even on bad addresses.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(addr as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u32, size: u32) -> Packet {
        Packet::data(0, 1, size, seq, 0, 0)
    }

    /// Against a `VecDeque` model through many wrap-arounds and growths.
    #[test]
    fn behaves_like_a_deque_across_wraps_and_growth() {
        let mut f = Fifo::new();
        let mut model = std::collections::VecDeque::new();
        let mut rng = crate::engine::Rng::from_seed(5);
        for step in 0..20_000u32 {
            let r = rng.next_u64();
            // Push slightly more often than pop, so it grows, then drains.
            let push = if step < 15_000 {
                r % 5 < 3
            } else {
                r.is_multiple_of(5)
            };
            if push {
                let size = 40 + (r % 1460) as u32;
                f.push_back(&pkt(step, size), step as Time * 10);
                model.push_back((step, size as u16, step as Time * 10));
            } else {
                assert_eq!(f.front_time(), model.front().map(|m| m.2));
                let got = f.pop_front().map(|p| p.seq);
                assert_eq!(got, model.pop_front().map(|m| m.0));
            }
            assert_eq!(f.len(), model.len());
            if let Some(i) = (!model.is_empty()).then(|| (r >> 20) as usize % model.len()) {
                assert_eq!(f.get(i).seq, model[i].0);
                assert_eq!(f.size(i), model[i].1);
                assert_eq!(f.time(i), model[i].2);
            }
        }
        let seqs: Vec<u32> = f.iter().map(|p| p.seq).collect();
        let want: Vec<u32> = model.iter().map(|m| m.0).collect();
        assert_eq!(seqs, want);
    }

    #[test]
    fn swap_exchanges_packets_but_not_times() {
        let mut f = Fifo::new();
        for s in 0..3 {
            f.push_back(&pkt(s, 1000), s as Time);
        }
        f.swap_packets(0, 2);
        assert_eq!((f.get(0).seq, f.time(0)), (2, 0));
        assert_eq!((f.get(2).seq, f.time(2)), (0, 2));
        assert_eq!(f.pop_front().map(|p| p.seq), Some(2));
    }
}
