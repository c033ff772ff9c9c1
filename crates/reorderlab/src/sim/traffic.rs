//! Traffic generators: flows opened during the run.

use super::world::{Flow, Origin, Simulation, Source, WebConn};
use crate::app::{AfterObject, Assign};
use crate::engine::time::to_secs;
use crate::engine::Event;
use crate::net::packet::Packet;
use crate::spec::{limits, SpecError};

impl Simulation {
    /// A traffic session is due: open a flow for its next object and
    /// schedule the session's following event.
    pub(super) fn on_traffic(&mut self, source: u32, session: u32) {
        let t = &mut self.traffic[source as usize];
        let src = match &mut t.source {
            Source::Http(h) => h,
            Source::Page(p) => {
                let html = p.begin_page(session as usize, self.now);
                self.open_connection(source, session, html);
                return;
            }
        };
        let object = src.on_event(session as usize, self.now);
        if !self.may_open_connection(source) {
            return;
        }
        let t = &mut self.traffic[source as usize];
        let mut cfg = t.sender.clone();
        cfg.segments = Some(object.segments);
        let mut rcfg = t.receiver.clone();
        rcfg.expected_segments = cfg.segments;
        let i = self.flows.len() as u32;
        let flow = Flow::new(
            i,
            String::new(),
            String::new(),
            (t.server, t.client),
            (cfg, t.cc.clone(), rcfg),
            self.now,
            self.warmup,
            Some(Origin {
                source,
                session,
                page: object.page,
                index: object.index,
            }),
        );
        self.flows.push(flow);
        if let Some(next) = object.next {
            self.events
                .schedule(next, Event::Traffic { source, session });
        }
        self.start_flow(i);
    }

    /// A page download opens a persistent connection for `first`: the
    /// server's side starts (SYN) one request delay later (see
    /// [`crate::app::web`] for why this matches a client-opened connection).
    fn open_connection(&mut self, source: u32, session: u32, first: Assign) {
        if !self.may_open_connection(source) {
            return;
        }
        let t = &mut self.traffic[source as usize];
        let mut cfg = t.sender.clone();
        cfg.segments = Some(first.segments);
        cfg.syn = true;
        let mut rcfg = t.receiver.clone();
        rcfg.expected_segments = None;
        let i = self.flows.len() as u32;
        let start = self.now + t.request_delay;
        let mut flow = Flow::new(
            i,
            String::new(),
            String::new(),
            (t.server, t.client),
            (cfg, t.cc.clone(), rcfg),
            start,
            self.warmup,
            Some(Origin {
                source,
                session,
                page: 0,
                index: 0,
            }),
        );
        flow.web = Some(WebConn {
            object: first.object,
            end: first.segments,
            busy: true,
            pending: 0,
        });
        if let Source::Page(p) = &mut t.source {
            let o = &mut p.objects[first.object as usize];
            o.flow = i;
            o.first_segment = 0;
        }
        self.flows.push(flow);
        self.events.schedule(start, Event::FlowStart { flow: i });
    }

    /// Whether one more connection fits in the run's memory limit (every
    /// connection a generator opens is kept until the end, for its
    /// results). The first one that does not stops the run: the event loop
    /// reports it, naming the generator, at its next look.
    fn may_open_connection(&mut self, source: u32) -> bool {
        let bytes = (self.flows.len() as u64 + 1).saturating_mul(limits::FLOW_BYTES);
        if bytes <= self.memory_limit {
            return true;
        }
        if self.failure.is_none() {
            let message = format!(
                "the run had opened {} connections by {:.3} s; one more would take about {}, \
                 above the memory limit of {}; set {} (e.g. 16G) to allow more, or shorten \
                 the run",
                self.flows.len(),
                to_secs(self.now),
                limits::human_bytes(bytes as f64),
                limits::human_bytes(self.memory_limit as f64),
                limits::MEMORY_LIMIT_VAR,
            );
            self.failure = Some(SpecError::new(format!("traffic[{source}]"), message));
        }
        false
    }

    /// The last segment of the object on page connection `fi` arrived:
    /// the connection takes its next object (the request carries the ACK
    /// the client was delaying), new connections open after the HTML, and
    /// a complete page schedules the session's next one.
    pub(super) fn web_object_done(&mut self, fi: usize, out: &mut Vec<Packet>) {
        let f = &mut self.flows[fi];
        let (Some(mut w), Some(origin)) = (f.web, f.origin) else {
            return;
        };
        w.busy = false;
        let t = &mut self.traffic[origin.source as usize];
        let Source::Page(p) = &mut t.source else {
            return;
        };
        let after: AfterObject = p.on_object_done(w.object, self.now);
        p.objects[w.object as usize].timeouts_after = Some(f.sender().stats().timeouts);
        if let Some(next) = after.next_on_connection {
            let o = &mut p.objects[next.object as usize];
            o.flow = fi as u32;
            o.first_segment = w.end;
            o.timeouts_before = f.sender().stats().timeouts;
            w.object = next.object;
            w.end += next.segments;
            w.busy = true;
            w.pending += next.segments;
            f.live_mut().receiver.flush_delayed_ack(self.now, out);
            let at = self.now + t.request_delay;
            self.events.schedule(at, Event::Request { flow: fi as u32 });
        }
        self.flows[fi].web = Some(w);
        for a in after.open {
            self.open_connection(origin.source, origin.session, a);
        }
        if let Some(at) = after.next_page {
            let (source, session) = (origin.source, origin.session);
            self.events.schedule(at, Event::Traffic { source, session });
        }
    }

    /// A request reached the server of a persistent connection: its sender
    /// gets the object's segments.
    pub(super) fn on_request(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let Some(w) = f.web.as_mut() else {
            return;
        };
        let n = std::mem::take(&mut w.pending);
        let mut out = std::mem::take(&mut self.out);
        f.live_mut().sender.write(n, self.now, &mut out);
        let src = f.src;
        self.send_all(&mut out, flow, src);
        self.out = out;
        self.sync_timers(flow);
    }

    /// A generated flow delivered its whole object: tell its session.
    pub(super) fn object_done(&mut self, flow: usize) {
        let Some(Origin {
            source, session, ..
        }) = self.flows[flow].origin
        else {
            return;
        };
        let Source::Http(src) = &mut self.traffic[source as usize].source else {
            return;
        };
        if let Some(next) = src.on_object_done(session as usize, self.now) {
            self.events
                .schedule(next, Event::Traffic { source, session });
        }
    }
}
