//! Where a current Linux kernel's TCP differs from the RFC text the other
//! variants follow: the `Linux` and `Linux-classic` variants carry a
//! [`LinuxKernel`] in their configuration, and each component that reads it
//! names the kernel function it follows. Checked against the kernel source
//! (6.12; the functions cited are unchanged up to the 6.18 that
//! `reorderlab validate` measured) and found by `reorderlab validate`'s
//! first-difference report (docs/validation.md).
//!
//! Timers. The kernel arms its TCP timers (retransmission, loss probe,
//! RACK's reorder timer) in jiffies of 1/HZ s: a duration in microseconds
//! becomes jiffies rounded up (`usecs_to_jiffies`), the timer is set to
//! expire at `jiffies + timeout` (`inet_csk_reset_xmit_timer` ->
//! `sk_reset_timer` -> `mod_timer`), and the timer wheel
//! (`kernel/time/timer.c`, `calc_wheel_index` / `calc_index`) files a timer
//! `delta` jiffies ahead in level L, the first with delta < 63 x 8^L, and
//! fires it at the first multiple of 8^L jiffies after its expiry: at
//! level 0 (the next 63 jiffies) one jiffy late, further out up to 8^L.
//! The jiffy counter here starts at the simulation's time 0.

use crate::engine::time::NS_PER_SEC;
use crate::engine::Time;

/// `TCP_TIMEOUT_MIN_US`: the least timeout TCP arms (2 ms).
pub const TCP_TIMEOUT_MIN: Time = 2_000_000;
/// `CONFIG_HZ` of the kernel `reorderlab validate` measured (6.18, x86-64).
pub const DEFAULT_HZ: u32 = 250;
/// The timer wheel: `LVL_CLK_SHIFT` (each level 8 times coarser),
/// `LVL_SIZE - 1` buckets ahead per level, `LVL_DEPTH` levels (HZ > 100).
const LVL_CLK_SHIFT: u32 = 3;
const LVL_SPAN: u64 = 63;
const LVL_DEPTH: u32 = 9;

/// A current Linux kernel's behaviour where it differs from the RFCs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinuxKernel {
    /// `CONFIG_HZ`: the timers' tick.
    pub hz: u32,
}

impl Default for LinuxKernel {
    fn default() -> LinuxKernel {
        LinuxKernel { hz: DEFAULT_HZ }
    }
}

impl LinuxKernel {
    /// One jiffy.
    pub fn jiffy(&self) -> Time {
        NS_PER_SEC / self.hz.max(1) as Time
    }

    /// `usecs_to_jiffies`: a duration in jiffies, rounded up.
    pub fn to_jiffies(&self, d: Time) -> u64 {
        d.div_ceil(self.jiffy())
    }

    /// When a timer armed at `now` for `timeout` jiffies fires: expiry
    /// `jiffies + timeout`, rounded up by the timer wheel to its level's
    /// granularity, strictly after the expiry (`calc_index`).
    pub fn fires_at(&self, now: Time, timeout: u64) -> Time {
        let j = self.jiffy();
        let expires = now / j + timeout;
        let mut level = 0;
        while level + 1 < LVL_DEPTH && timeout >= LVL_SPAN << (LVL_CLK_SHIFT * level) {
            level += 1;
        }
        let shift = LVL_CLK_SHIFT * level;
        (((expires >> shift) + 1) << shift) * j
    }

    /// A timer for the duration `d` armed at `now`: when it fires.
    pub fn timer(&self, now: Time, d: Time) -> Time {
        self.fires_at(now, self.to_jiffies(d))
    }
}

/// `tcp_schedule_loss_probe`: the probe timeout is 2 SRTT plus, with one
/// segment out, `tcp_rto_min_us` (the receiver may delay its ACK), else
/// `TCP_TIMEOUT_MIN_US`, in jiffies; never later than the RTO.
pub fn probe_timeout(srtt: Time, outstanding: u32, rto_min: Time) -> Time {
    2 * srtt
        + if outstanding == 1 {
            rto_min
        } else {
            TCP_TIMEOUT_MIN
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    #[test]
    fn durations_round_up_to_jiffies() {
        let k = LinuxKernel::default();
        assert_eq!(k.jiffy(), ms(4));
        assert_eq!(k.to_jiffies(ms(4)), 1);
        assert_eq!(k.to_jiffies(ms(4) + 1), 2);
        assert_eq!(k.to_jiffies(ms(89)), 23);
        assert_eq!(LinuxKernel { hz: 1000 }.to_jiffies(ms(7)), 7);
    }

    /// Level 0 (fewer than 63 jiffies ahead) fires one jiffy after the
    /// expiry; level 1 (63 to 503) at the next multiple of 8 jiffies after
    /// it; level 2 (504 to 4031) of 64.
    #[test]
    fn the_timer_wheel_rounds_up_by_its_level() {
        let k = LinuxKernel::default();
        let j = k.jiffy();
        // Armed 1 ms into jiffy 100 for 23 jiffies: expires at 123, fires at 124.
        assert_eq!(k.fires_at(100 * j + ms(1), 23), 124 * j);
        assert_eq!(k.fires_at(100 * j, 62), 163 * j);
        // 83 jiffies (332 ms) from jiffy 100: expires 183, fires at 184 (= 23 x 8).
        assert_eq!(k.fires_at(100 * j, 83), 184 * j);
        // from jiffy 101: expires 184, fires at 192.
        assert_eq!(k.fires_at(101 * j, 83), 192 * j);
        assert_eq!(k.fires_at(0, 600), 640 * j);
        // The tail-loss cell at 40 ms (validate): the probe of 2 x 43.5 ms
        // + 2 ms goes 92-96 ms after the ACK, not 89.
        let now = ms(88) + 954_000;
        let fired = k.timer(now, probe_timeout(43_500_000, 3, ms(200)));
        assert!(
            fired - now > ms(92) && fired - now <= ms(96),
            "{}",
            fired - now
        );
    }
}
