//! The event loop: dispatch, flow start, and the endpoints' timers.

use super::Simulation;
use crate::engine::time::to_secs;
use crate::engine::timer::Fire;
use crate::engine::{Event, TimerKind};

impl Simulation {
    /// Handle `event`, which is still at the top of the queue: a link head
    /// replaces itself there, every other event is removed first.
    pub(super) fn dispatch(&mut self, event: Event) {
        if let Event::LinkDeliver { link } = event {
            self.deliver_link_head(link);
            return;
        }
        self.events.pop();
        match event {
            Event::LinkDeliver { .. } => {}
            Event::Timer { flow, kind, gen } => self.fire_timer(flow, kind, gen),
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::ImpairRelease { element, gen } => self.fire_element(element, gen),
            Event::Sample => self.sample(),
            Event::Traffic { source, session } => self.on_traffic(source, session),
            Event::Request { flow } => self.on_request(flow),
        }
    }

    pub(super) fn start_flow(&mut self, flow: u32) {
        let mut out = std::mem::take(&mut self.out);
        self.flows[flow as usize].sender.start(self.now, &mut out);
        let src = self.flows[flow as usize].src;
        self.send_all(&mut out, src);
        self.out = out;
        self.sync_timers(flow);
    }

    fn fire_timer(&mut self, flow: u32, kind: TimerKind, gen: u32) {
        let f = &mut self.flows[flow as usize];
        let deadline = match kind {
            TimerKind::DelAck => f.receiver.deadline(),
            _ => f.sender.deadline(kind),
        };
        match f.timers[kind as usize].on_fire(gen, self.now, deadline) {
            Fire::Ignore => {}
            Fire::Requeue(t) => {
                let gen = f.timers[kind as usize].generation();
                self.events.schedule(t, Event::Timer { flow, kind, gen });
            }
            Fire::Expire => {
                let mut out = std::mem::take(&mut self.out);
                let node = if kind == TimerKind::DelAck {
                    f.receiver.on_timer(self.now, &mut out);
                    f.dst
                } else {
                    f.sender.on_timer(kind, self.now, &mut out);
                    f.src
                };
                self.send_all(&mut out, node);
                self.out = out;
                if kind == TimerKind::DelAck {
                    self.sync_receiver_timer(flow);
                } else {
                    self.sync_sender_timers(flow);
                }
            }
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
            if let Some((t, gen)) = f.timers[kind as usize].sync(f.sender.deadline(kind), self.now)
            {
                self.events.schedule(t, Event::Timer { flow, kind, gen });
            }
        }
    }

    /// The receiver's delayed-ACK timer (after it handled data or a timer).
    pub(super) fn sync_receiver_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let kind = TimerKind::DelAck;
        if let Some((t, gen)) = f.timers[kind as usize].sync(f.receiver.deadline(), self.now) {
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
            if name == "delivered" {
                fl.receiver.stats.segments_delivered as f64
            } else {
                fl.sender.sample(name)
            }
        });
        let next = self.now + rec.interval;
        if next <= self.end {
            self.events.schedule(next, Event::Sample);
        }
    }
}
