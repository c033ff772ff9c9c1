//! Congestion Window Validation, RFC 2861 (Handley, Padhye, Floyd 2000).
//!
//! RFC 2861 rather than its successor RFC 7661 (newCWV): the wwan paper's
//! standards-compliant baseline was an ns-2.27 agent of 2006-2007, when RFC
//! 2861 was the CWV of record, and its two rules are simple and stateless
//! beyond three variables, whereas newCWV adds a non-validated phase, a
//! pipeACK sampling and a different loss response. The RFC's pseudocode
//! (its Sec. 3-4), in segments:
//!
//! ```text
//! after sending a data segment:
//!     if now - T_last >= RTO:                  (the sender has been idle)
//!         ssthresh = max(ssthresh, 3/4 cwnd)
//!         repeat (now - T_last) / RTO times:
//!             cwnd = max(min(cwnd, rwnd) / 2, 1)
//!         T_prev = now; W_used = 0
//!     T_last = now
//!     if the window is full:   T_prev = now; W_used = 0
//!     else if no more data is available to send:
//!         W_used = max(W_used, data in flight)
//!         if now - T_prev >= RTO:           (application-limited for an RTO)
//!             ssthresh = max(ssthresh, 3/4 cwnd)
//!             cwnd = (cwnd + W_used) / 2
//!             T_prev = now; W_used = 0
//! ```
//!
//! One departure from the letter: the idle test runs just *before* the
//! first segment after the idle period is sent (as Linux's
//! `tcp_cwnd_restart` does), so the burst after an idle period already
//! obeys the decayed window; the RFC's placement would let that first
//! window go out undecayed. The application-limited test runs after each
//! segment as written. Both apply in the Open state only: during loss
//! recovery the window is being set by the recovery itself.

use crate::engine::Time;
use crate::tcp::cc::Window;

/// RFC 2861 state: T_last, T_prev, W_used.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rfc2861 {
    /// Time of the latest data transmission.
    pub t_last: Time,
    /// Start of the current application-limited measurement period.
    pub t_prev: Time,
    /// Largest amount of data in flight in that period, segments.
    pub w_used: u32,
}

impl Rfc2861 {
    /// The connection starts sending at `now`.
    pub fn new(now: Time) -> Rfc2861 {
        Rfc2861 {
            t_last: now,
            t_prev: now,
            w_used: 0,
        }
    }

    /// Before a segment is sent at `now`: if nothing was sent for an RTO or
    /// more, halve cwnd once per RTO elapsed (ssthresh keeps 3/4 of the old
    /// window). Returns the number of halvings.
    pub fn before_send(&mut self, w: &mut Window, now: Time, rto: Time, rwnd: u32) -> u32 {
        let idle = now.saturating_sub(self.t_last);
        if rto == 0 || idle < rto {
            return 0;
        }
        w.ssthresh = w.ssthresh.max(0.75 * w.cwnd);
        let halvings = idle / rto;
        for _ in 0..halvings.min(64) {
            w.cwnd = (w.cwnd.min(rwnd as f64) / 2.0).max(1.0);
        }
        self.t_prev = now;
        self.w_used = 0;
        // The idle period is over: a second call before the segment goes
        // out must not decay again.
        self.t_last = now;
        halvings as u32
    }

    /// After a segment was sent at `now`. `window_full`: no room for another
    /// segment; `app_limited`: the application has nothing more to send;
    /// `in_flight`: segments outstanding. Returns whether cwnd was decayed.
    pub fn after_send(
        &mut self,
        w: &mut Window,
        now: Time,
        rto: Time,
        window_full: bool,
        app_limited: bool,
        in_flight: u32,
    ) -> bool {
        self.t_last = now;
        if window_full {
            self.t_prev = now;
            self.w_used = 0;
            return false;
        }
        if !app_limited {
            return false;
        }
        self.w_used = self.w_used.max(in_flight);
        if now.saturating_sub(self.t_prev) < rto {
            return false;
        }
        w.ssthresh = w.ssthresh.max(0.75 * w.cwnd);
        w.cwnd = ((w.cwnd + self.w_used as f64) / 2.0).max(1.0);
        self.t_prev = now;
        self.w_used = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::ms;

    #[test]
    fn idle_halves_once_per_rto_and_saves_three_quarters_in_ssthresh() {
        let mut c = Rfc2861::new(0);
        let mut w = Window {
            cwnd: 40.0,
            ssthresh: 10.0,
        };
        // 3.5 RTOs of silence: three halvings.
        assert_eq!(c.before_send(&mut w, ms(700), ms(200), 1000), 3);
        assert_eq!(w.cwnd, 5.0);
        assert_eq!(w.ssthresh, 30.0);
        assert_eq!(c.before_send(&mut w, ms(700), ms(200), 1000), 0);
    }

    #[test]
    fn application_limited_decays_to_the_mean_of_cwnd_and_used() {
        let mut c = Rfc2861::new(0);
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: f64::INFINITY,
        };
        assert!(!c.after_send(&mut w, ms(50), ms(200), false, true, 4));
        assert!(!c.after_send(&mut w, ms(100), ms(200), false, true, 6));
        // A full window restarts the period.
        assert!(!c.after_send(&mut w, ms(150), ms(200), true, false, 20));
        assert!(!c.after_send(&mut w, ms(300), ms(200), false, true, 3));
        assert!(c.after_send(&mut w, ms(350), ms(200), false, true, 2));
        assert_eq!(w.cwnd, (20.0 + 3.0) / 2.0);
        assert!(w.ssthresh.is_infinite());
    }
}
