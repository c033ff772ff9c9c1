//! The control packets of a UET flow's receiver: an ACK carries the
//! cumulative ACK (the next PSN expected), a 64-bit SACK bitmap, the
//! receiver's out-of-order count that SLEEK reads, and ECN-Echo; a NACK
//! names the PSN of a trimmed header; a probe's answer is marked as one.
//! A [`Packet`](crate::net::packet::Packet) is 64 bytes and `Copy`, so an
//! ACK packet carries the slot of its frame here (as QUIC's do).

use super::config::SACK_BITS;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UetAck {
    /// Cumulative ACK: every PSN below is received.
    pub cack: u32,
    /// The PSN whose arrival made this ACK (its RTT sample); in a
    /// probe's answer, the probe's number.
    pub ref_psn: u32,
    /// `bitmap` bit i: PSN `base + i` received.
    pub base: u32,
    pub bitmap: u64,
    /// Packets received above `cack` (uet-htsim `_out_of_order_count`).
    pub ooo: u32,
    /// The packet that made it arrived with CE.
    pub ece: bool,
    /// The answer to a probe.
    pub probe: bool,
    /// A NACK: the header of PSN `ref_psn` arrived trimmed.
    pub nack: bool,
}

impl UetAck {
    /// Whether the frame says `psn` was received.
    pub fn covers(&self, psn: u32) -> bool {
        if psn < self.cack {
            return true;
        }
        let i = psn.wrapping_sub(self.base);
        psn >= self.base && i < SACK_BITS && self.bitmap >> i & 1 == 1
    }
}

/// Frames on their way across the network, by slot.
#[derive(Debug, Clone, Default)]
pub struct AckSlab {
    frames: Vec<UetAck>,
    free: Vec<u32>,
}

impl AckSlab {
    pub fn put(&mut self, a: UetAck) -> u32 {
        match self.free.pop() {
            Some(s) => {
                self.frames[s as usize] = a;
                s
            }
            None => {
                self.frames.push(a);
                (self.frames.len() - 1) as u32
            }
        }
    }

    /// The frame of `slot`, whose slot is freed.
    pub fn take(&mut self, slot: u32) -> UetAck {
        self.free.push(slot);
        self.frames[slot as usize]
    }

    pub fn in_use(&self) -> usize {
        self.frames.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_covers_below_cack_and_its_bitmap_only() {
        let a = UetAck {
            cack: 10,
            base: 12,
            bitmap: 0b101,
            ..Default::default()
        };
        let got: Vec<u32> = (0..80).filter(|&p| a.covers(p)).collect();
        let mut want: Vec<u32> = (0..10).collect();
        want.extend([12, 14]);
        assert_eq!(got, want);
        let far = UetAck {
            cack: 0,
            base: 0,
            bitmap: 1 << 63,
            ..Default::default()
        };
        assert!(far.covers(63) && !far.covers(64));
    }

    #[test]
    fn slots_are_reused() {
        let mut s = AckSlab::default();
        let a = s.put(UetAck {
            cack: 3,
            ..Default::default()
        });
        let b = s.put(UetAck::default());
        assert_eq!(s.take(a).cack, 3);
        assert_eq!(s.put(UetAck::default()), a);
        assert_ne!(a, b);
        assert_eq!(s.in_use(), 2);
    }
}
