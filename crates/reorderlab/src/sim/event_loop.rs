//! The event loop: dispatch, flow start, and the endpoints' timers.

use super::walk::Walk;
use super::world::{Ends, Simulation};
use crate::engine::time::to_secs;
use crate::engine::timer::Fire;
use crate::engine::{Event, Time, TimerKind};
use crate::spec::SpecError;

/// Events between two looks at the stop request: at tens of millions of
/// events per second, a few hundred looks a second (Ctrl-C ends a run well
/// within a second) for a cost that does not show.
pub const CHECK_EVERY: u64 = 1 << 14;

/// Why a run ended before its end time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The caller asked it to stop (Ctrl-C).
    Interrupted,
    /// A limit of the scenario was reached during the run (the memory of
    /// the connections a traffic generator opened).
    Limit(SpecError),
}

impl Simulation {
    /// Run to the end time (or until no event is left), asking `stop`
    /// every [`CHECK_EVERY`] events whether to give up.
    pub fn run_checked(&mut self, mut stop: impl FnMut() -> bool) -> Result<(), Stopped> {
        self.run_until_checked(self.end, &mut stop)
    }

    /// Run events up to and including time `t` (at most the end time),
    /// asking `stop` every [`CHECK_EVERY`] events whether to give up; a run
    /// that reached a limit ends at the next look. The clock then stays
    /// where the last event put it.
    ///
    /// (`stop` is a trait object, called only at a look: one copy of the
    /// loop, into which `dispatch` is inlined as before.)
    pub fn run_until_checked(
        &mut self,
        t: Time,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), Stopped> {
        let limit = t.min(self.end);
        let mut until_look = CHECK_EVERY;
        while let Some((time, event)) = self.events.peek() {
            if time > limit {
                break;
            }
            debug_assert!(
                time >= self.now,
                "event at {time} ns before now {}",
                self.now
            );
            self.now = time;
            self.counters.events += 1;
            self.dispatch(event);
            // a count down in a register: the look costs the loop about
            // one instruction per event (cachegrind)
            until_look -= 1;
            if until_look == 0 {
                until_look = CHECK_EVERY;
                self.look(stop)?;
            }
        }
        self.look_for_failure()?;
        self.now = self.now.max(limit);
        Ok(())
    }

    /// The periodic look: a limit reached, or the caller's stop request.
    #[cold]
    #[inline(never)]
    fn look(&mut self, stop: &mut dyn FnMut() -> bool) -> Result<(), Stopped> {
        self.look_for_failure()?;
        if stop() {
            return Err(Stopped::Interrupted);
        }
        Ok(())
    }

    fn look_for_failure(&self) -> Result<(), Stopped> {
        match &self.failure {
            Some(e) => Err(Stopped::Limit(e.clone())),
            None => Ok(()),
        }
    }

    /// Handle `event`, which is still at the top of the queue: a link head
    /// replaces itself there, every other event is removed first.
    pub(super) fn dispatch(&mut self, event: Event) {
        if let Event::LinkDeliver { link } = event {
            self.deliver_link_head(link, self.now);
            return;
        }
        self.events.pop();
        match event {
            Event::LinkDeliver { .. } => {}
            Event::Timer { flow, kind, gen } => self.fire_timer(flow, kind, gen),
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::ImpairRelease { element, gen } => self.fire_element(element, gen, self.now),
            Event::Sample => self.sample(),
            Event::Traffic { source, session } => self.on_traffic(source, session),
            Event::Request { flow } => self.on_request(flow),
            Event::HeaderDeliver { link } => self.deliver_header(link, self.now),
            Event::LinkChange { index } => self.graph.apply_change(index),
        }
    }

    pub(super) fn start_flow(&mut self, flow: u32) {
        let mut out = std::mem::take(&mut self.out);
        match &mut self.flows[flow as usize].ends {
            Ends::Quic(q) => q.sender.start(self.now, &mut out),
            _ => (self.flows[flow as usize].live_mut().sender).start(self.now, &mut out),
        }
        let src = self.flows[flow as usize].src;
        self.send_all(&mut out, flow, src);
        self.out = out;
        self.sync_timers(flow);
    }

    fn fire_timer(&mut self, flow: u32, kind: TimerKind, gen: u32) {
        let f = &mut self.flows[flow as usize];
        let deadline = match &f.ends {
            // over: nothing armed, so every event left is stale
            Ends::Over(_) => None,
            Ends::Live(e) if kind == TimerKind::DelAck => e.receiver.deadline(),
            Ends::Live(e) => e.sender.deadline(kind),
            Ends::Quic(q) => q.deadline(kind),
        };
        match f.timers[kind as usize].on_fire(gen, self.now, deadline) {
            Fire::Ignore => {}
            Fire::Requeue(t) => {
                let gen = f.timers[kind as usize].generation();
                self.events.schedule(t, Event::Timer { flow, kind, gen });
            }
            Fire::Expire => {
                let mut out = std::mem::take(&mut self.out);
                let (src, dst) = (f.src, f.dst);
                let node_of = |k| if k == TimerKind::DelAck { dst } else { src };
                if let Some(q) = f.quic_mut() {
                    q.on_timer(kind, self.now, &mut out);
                    self.send_all(&mut out, flow, node_of(kind));
                    self.out = out;
                    self.sync_timers(flow);
                    return;
                }
                if kind == TimerKind::Rto {
                    self.reps_timeout(flow);
                }
                let f = &mut self.flows[flow as usize];
                let e = f.live_mut();
                let node = if kind == TimerKind::DelAck {
                    e.receiver.on_timer(self.now, &mut out);
                    dst
                } else {
                    e.sender.on_timer(kind, self.now, &mut out);
                    src
                };
                self.send_all(&mut out, flow, node);
                self.out = out;
                if kind == TimerKind::DelAck {
                    self.sync_receiver_timer(flow);
                } else {
                    self.sync_sender_timers(flow);
                }
                self.retire_if_over(flow as usize);
            }
        }
    }

    /// REPS's freezing mode (`net/reps.rs`): the flow's retransmission
    /// timer expired.
    #[cold]
    fn reps_timeout(&mut self, flow: u32) {
        if let Some(r) = self.reps.as_mut().and_then(|r| r.get_mut(flow as usize)) {
            r.on_timeout(self.now);
        }
    }

    /// Queue events for any timer of `flow` whose deadline moved earlier.
    pub(super) fn sync_timers(&mut self, flow: u32) {
        self.sync_sender_timers(flow);
        self.sync_receiver_timer(flow);
    }

    /// The sender's timers (after it handled an ACK or a timer): the
    /// receiver's state did not change, so its timer needs no look.
    pub(super) fn sync_sender_timers(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        for kind in [TimerKind::Rto, TimerKind::Aux] {
            let deadline = match &f.ends {
                Ends::Live(e) => e.sender.deadline(kind),
                Ends::Quic(q) => q.deadline(kind),
                Ends::Over(_) => return,
            };
            if let Some((t, gen)) = f.timers[kind as usize].sync(deadline, self.now) {
                self.events.schedule(t, Event::Timer { flow, kind, gen });
            }
        }
    }

    /// The receiver's delayed-ACK timer (after it handled data or a timer).
    pub(super) fn sync_receiver_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let kind = TimerKind::DelAck;
        let deadline = match &f.ends {
            Ends::Live(e) => e.receiver.deadline(),
            Ends::Quic(q) => q.deadline(kind),
            Ends::Over(_) => return,
        };
        if let Some((t, gen)) = f.timers[kind as usize].sync(deadline, self.now) {
            self.events.schedule(t, Event::Timer { flow, kind, gen });
        }
    }

    fn sample(&mut self) {
        let Some(rec) = self.recorder.as_mut() else {
            return;
        };
        let flows = &self.flows;
        rec.sample(to_secs(self.now), |f, name| {
            let fl = &flows[f as usize];
            if let Ends::Quic(q) = &fl.ends {
                return super::quic::sample(q, name);
            }
            if name == "delivered" {
                fl.receiver().stats.segments_delivered as f64
            } else {
                fl.sender().sample(name)
            }
        });
        let next = self.now + rec.interval;
        if let Some(d) = self.details.as_mut() {
            let links = self.graph.links.iter();
            d.sample_queues(self.now, links.map(|l| (l.name.as_str(), l.in_system())));
        }
        if next <= self.end {
            self.events.schedule(next, Event::Sample);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Scenario;

    fn long_run() -> Simulation {
        let sc = Scenario::from_json(
            r#"{"duration": 1000, "topology": {"kind": "chain", "bottleneck_rate": 1e7,
                "bottleneck_delay": 0.01}, "flows": [{"src": "S1", "dst": "D"}]}"#,
        )
        .unwrap();
        Simulation::new(&sc, 1).unwrap()
    }

    /// Issue 25 case 5: the loop looks at the stop request every
    /// CHECK_EVERY events and ends the run at the first yes.
    #[test]
    fn a_stop_request_ends_the_run_at_the_next_look() {
        let mut sim = long_run();
        let mut looks = 0;
        let stopped = sim.run_checked(|| {
            looks += 1;
            looks == 3
        });
        assert_eq!(stopped, Err(Stopped::Interrupted));
        assert_eq!(sim.counters().events, 3 * CHECK_EVERY);
        assert!(sim.now() < crate::engine::time::secs(1000.0));
    }

    /// REPS's freezing mode is driven by the sender's retransmission
    /// timer: h0's own cable down for 2.5 ms makes the flow time out, which
    /// freezes its entropy values; the freeze ends after net::reps::FREEZE.
    #[test]
    fn a_retransmission_timeout_freezes_reps() {
        let sc = Scenario::from_json(
            r#"{"duration": 0.06, "topology": {"kind": "fat_tree", "k": 4, "rate": 10e9,
                "load_balancing": "reps", "events": [
                  {"at": 0.0005, "link": "h0->edge0", "action": "down"},
                  {"at": 0.003, "link": "h0->edge0", "action": "up"}]},
                "flows": [{"src": "h0", "dst": "h15", "variant": "SACK", "segments": 20000,
                  "tcp": {"mss": 1460, "min_rto": 0.001, "initial_rto": 0.001}}]}"#,
        )
        .unwrap();
        let mut sim = Simulation::new(&sc, 1).unwrap();
        let frozen = |s: &Simulation| s.reps.as_ref().unwrap()[0].is_frozen();
        let mut never = || false;
        sim.run_until_checked(400_000, &mut never).unwrap();
        assert!(!frozen(&sim), "no timeout yet");
        sim.run_until_checked(2_900_000, &mut never).unwrap();
        assert!(frozen(&sim), "the cable is down: a timeout froze it");
        sim.run_checked(|| false).unwrap();
        assert!(!frozen(&sim), "thawed after the freeze");
        assert!(sim.result().flows[0].completed);
    }

    #[test]
    fn a_run_never_asked_to_stop_matches_run() {
        let mut a = long_run();
        a.run();
        let mut b = long_run();
        assert_eq!(b.run_checked(|| false), Ok(()));
        assert_eq!(a.counters().events, b.counters().events);
        assert_eq!(a.now(), b.now());
    }
}
