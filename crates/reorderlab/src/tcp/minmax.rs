//! A windowed maximum or minimum in constant space: Kathleen Nichols'
//! tracker of the best, second-best and third-best values of a stream over
//! a sliding window, as Linux keeps it (`lib/win_minmax.c`,
//! `minmax_running_max` / `minmax_running_min`). BBR's bandwidth filter
//! (a maximum over 10 packet-timed rounds) and TCP's min RTT (`tcp_min_rtt`,
//! a minimum over 300 s) are such windows.
//!
//! The three choices keep the invariant that the n-th best was measured no
//! earlier than the (n-1)-th: a new best forgets everything; when the best
//! ages out of the window the second takes its place; after a quarter (half)
//! of the window without a new second (third) choice, the current value
//! becomes it, so the choices stay spread over the window.

/// One measurement: the time it was taken (a round count or a time, as the
/// user chooses) and its value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    pub t: u64,
    pub v: u64,
}

/// Which extreme the window tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extreme {
    Max,
    Min,
}

/// The windowed extreme of a stream of samples.
#[derive(Debug, Clone, Copy)]
pub struct WindowedExtreme {
    kind: Extreme,
    s: [Sample; 3],
}

impl WindowedExtreme {
    /// A window holding `v` at time `t` (`minmax_reset`).
    pub fn new(kind: Extreme, t: u64, v: u64) -> WindowedExtreme {
        let s = Sample { t, v };
        WindowedExtreme { kind, s: [s; 3] }
    }

    /// The current extreme.
    #[inline]
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forget everything: the window holds `v` at `t` only.
    pub fn reset(&mut self, t: u64, v: u64) -> u64 {
        *self = WindowedExtreme::new(self.kind, t, v);
        v
    }

    /// A new measurement `v` at time `t`, the window `win` long (in the
    /// unit of `t`); returns the extreme over the window.
    pub fn update(&mut self, win: u64, t: u64, v: u64) -> u64 {
        // The kind is matched once per update, not at each comparison (the
        // comparisons were 40 % of this function's instructions on
        // `ref-gigabit-bbr`, which calls it twice per ACK).
        match self.kind {
            Extreme::Max => self.update_by(win, t, v, |a, b| a >= b),
            Extreme::Min => self.update_by(win, t, v, |a, b| a <= b),
        }
    }

    /// [`Self::update`] with `better_or_equal(a, b)`: `a` is at least as
    /// good as `b` (>= for a maximum, <= for a minimum).
    #[inline(always)]
    fn update_by(
        &mut self,
        win: u64,
        t: u64,
        v: u64,
        better_or_equal: impl Fn(u64, u64) -> bool,
    ) -> u64 {
        let val = Sample { t, v };
        if better_or_equal(v, self.s[0].v) || t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if better_or_equal(v, self.s[1].v) {
            self.s[1] = val;
            self.s[2] = val;
        } else if better_or_equal(v, self.s[2].v) {
            self.s[2] = val;
        }
        self.age(win, val)
    }

    /// `minmax_subwin_update`: as time passes, promote the later choices.
    fn age(&mut self, win: u64, val: Sample) -> u64 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_maximum_replaces_the_old_at_once() {
        let mut m = WindowedExtreme::new(Extreme::Max, 0, 10);
        assert_eq!(m.update(10, 1, 5), 10);
        assert_eq!(m.update(10, 2, 12), 12);
        assert_eq!(m.update(10, 3, 11), 12);
    }

    /// The maximum of 100 at round 0 is forgotten once the window of 10
    /// rounds has passed: the second choice takes over, the value seen
    /// once a quarter of the window had passed (30 at round 3), not the
    /// latest, nor 50 at round 1 (before the quarter: not kept).
    #[test]
    fn the_maximum_ages_out_after_the_window() {
        let mut m = WindowedExtreme::new(Extreme::Max, 0, 100);
        let mut seen = Vec::new();
        for (t, v) in [
            (1, 50),
            (2, 40),
            (3, 30),
            (6, 20),
            (9, 10),
            (10, 10),
            (11, 10),
        ] {
            seen.push(m.update(10, t, v));
        }
        assert_eq!(seen, vec![100, 100, 100, 100, 100, 100, 30]);
        // 30 (round 3) ages out at round 14: the third choice, 20 at round 6
        assert_eq!(m.update(10, 14, 5), 20);
    }

    #[test]
    fn a_minimum_window_mirrors_the_maximum() {
        let mut m = WindowedExtreme::new(Extreme::Min, 0, 50);
        assert_eq!(m.update(100, 10, 60), 50);
        assert_eq!(m.update(100, 20, 40), 40);
        assert_eq!(m.update(100, 125, 70), 70);
    }

    #[test]
    fn nothing_left_in_the_window_resets() {
        let mut m = WindowedExtreme::new(Extreme::Max, 0, 100);
        assert_eq!(m.update(10, 50, 1), 1);
    }
}
