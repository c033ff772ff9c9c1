//! Timers with lazy cancellation.
//!
//! A TCP sender re-arms its retransmission timer on nearly every ACK. Pushing
//! a heap entry each time (and searching the heap to cancel the old one) would
//! dominate the run time. Instead each timer has a slot that remembers the
//! earliest event already in the queue and a generation number:
//!
//! * moving the deadline later costs nothing: when the queued event fires it
//!   finds the deadline in the future and re-queues itself once;
//! * moving it earlier pushes a new event with a new generation; the old one
//!   is recognised as stale when it fires and ignored;
//! * cancelling just clears the deadline.
//!
//! A sender with thousands of per-packet deadlines (TCP-PR) keeps them in its
//! own ordered structure and exposes only the earliest through one slot.

use super::time::Time;

/// What the engine should do with a timer event that just fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fire {
    /// Deliver the timeout to its owner now.
    Expire,
    /// The deadline moved later: queue a new event at this time (with the
    /// slot's new generation).
    Requeue(Time),
    /// Stale or cancelled: nothing to do.
    Ignore,
}

/// The engine side of one timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct TimerSlot {
    /// Time of the live event in the queue, if any.
    queued_at: Option<Time>,
    /// Generation of the live event.
    gen: u32,
}

impl TimerSlot {
    /// Reconcile the slot with the owner's wanted deadline at `now`.
    /// Returns `Some((time, gen))` when a new event must be queued. An
    /// overdue deadline (TCP-PR's time(n) + mxrtt once mxrtt shrank) is
    /// queued at `now`: an event in the past would run the clock backwards.
    pub fn sync(&mut self, deadline: Option<Time>, now: Time) -> Option<(Time, u32)> {
        let d = deadline?.max(now);
        match self.queued_at {
            Some(q) if q <= d => None,
            _ => {
                self.gen = self.gen.wrapping_add(1);
                self.queued_at = Some(d);
                Some((d, self.gen))
            }
        }
    }

    /// An event of this slot fired at `now`; `deadline` is the owner's current
    /// wanted deadline.
    pub fn on_fire(&mut self, gen: u32, now: Time, deadline: Option<Time>) -> Fire {
        if gen != self.gen {
            return Fire::Ignore;
        }
        self.queued_at = None;
        match deadline {
            None => Fire::Ignore,
            Some(d) if d <= now => Fire::Expire,
            Some(d) => {
                self.gen = self.gen.wrapping_add(1);
                self.queued_at = Some(d);
                Fire::Requeue(d)
            }
        }
    }

    pub fn generation(&self) -> u32 {
        self.gen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_deadline_requeues_once_earlier_deadline_supersedes() {
        let mut s = TimerSlot::default();
        let (t, g1) = s.sync(Some(100), 0).unwrap();
        assert_eq!(t, 100);
        // Moving later: no new event.
        assert_eq!(s.sync(Some(150), 0), None);
        // The event at 100 fires, deadline is 150: requeue.
        assert_eq!(s.on_fire(g1, 100, Some(150)), Fire::Requeue(150));
        let g2 = s.generation();
        // Moving earlier: a new event, the one at 150 becomes stale.
        let (t3, g3) = s.sync(Some(120), 0).unwrap();
        assert_eq!(t3, 120);
        assert_eq!(s.on_fire(g3, 120, Some(120)), Fire::Expire);
        assert_eq!(s.on_fire(g2, 150, Some(120)), Fire::Ignore);
    }

    #[test]
    fn cancelled_timer_is_ignored() {
        let mut s = TimerSlot::default();
        let (_, g) = s.sync(Some(10), 0).unwrap();
        assert_eq!(s.on_fire(g, 10, None), Fire::Ignore);
        assert_eq!(s.sync(None, 0), None);
    }

    #[test]
    fn overdue_deadline_is_queued_now_not_in_the_past() {
        let mut s = TimerSlot::default();
        let (t, g) = s.sync(Some(70), 100).unwrap();
        assert_eq!(t, 100);
        assert_eq!(s.on_fire(g, 100, Some(70)), Fire::Expire);
    }
}
