//! Web page downloads over persistent connections: the browser model of
//! tail-loss Sec. 3.3 ("first retrieving the HTML document, and then all
//! resources ... using six parallel connections per sub domain, using
//! persistent TCP connections").
//!
//! A session downloads pages one after another (closed loop): a page starts
//! one think time (`page_interarrival`) after the previous one completed.
//! A page is a list of objects; the first is the HTML document.
//!
//! * The browser opens one connection and requests the HTML on it.
//! * When the HTML has fully arrived, the browser requests every other
//!   object over up to `connections` parallel connections: the first one is
//!   reused and up to `connections - 1` new ones are opened at that moment
//!   (never more connections than objects left). One host only: the paper's
//!   "per sub domain" limit is applied to a single domain.
//! * A connection carries one object at a time (HTTP/1.1 without
//!   pipelining): when an object has fully arrived, the connection takes the
//!   next object of the page's queue, if any.
//!
//! Every connection of a page is new (a fresh TCP state: initial window,
//! no RTT estimate); the next page opens new connections again.
//!
//! **Requests.** A request is one small packet on the client -> server path,
//! which carries only ACKs and is never congested in these scenarios. It is
//! therefore not simulated as a packet: the server receives it one
//! *request delay* after it was issued, the unloaded one-way latency of an
//! ACK-sized packet from client to server (propagation plus serialisation on
//! every hop, computed from the route). On a reused connection the request
//! also carries the ACK the client's receiver was delaying (a data-carrying
//! segment always carries the current ACK), so that ACK is sent at once; the
//! server then hands the object to its sender ([`crate::tcp::Sender::write`],
//! which resumes the finished connection under the sender's own idle rules).
//! A request is never lost: the modelled losses (the tail-loss paper: "segment loss")
//! hit data segments only.
//!
//! **New connections** open with a handshake. The simulated sender (the
//! server) sends the SYN one request delay after the browser decided to
//! open the connection, so its SYN reaches the client when the browser's
//! SYN-ACK would, and its first data leaves when the browser's first
//! request would arrive (1.5 RTT after the browser's SYN, as in a real
//! client-opened connection). The object's request is issued when the SYN
//! reaches the client.
//!
//! **Object completion time** (OCT) = from the request being issued to the
//! arrival of the object's last segment at the client (all segments before
//! it delivered in order).
//!
//! **Object sizes.** The paper gives for each site only the number of
//! objects and their mean size. A page is either the fixed list
//! `object_sizes` (a recorded site: every download fetches the same
//! objects; the first one is the HTML), or drawn anew for every page:
//! `objects_per_page` objects (rounded, at least 1), each of `object_size`
//! bytes, the first draw being the HTML. Sizes become `ceil(size / mss)`
//! segments (at least 1).

use crate::num::{ceil, round};
use std::collections::VecDeque;

use crate::engine::rng::{Component, Rng};
use crate::engine::time::secs;
use crate::engine::Time;
use crate::spec::{RandomVar, TrafficSpec};

/// Default number of parallel persistent connections per host (the tail-loss paper
/// Sec. 3.3, and the per-host limit of common browsers).
pub const DEFAULT_CONNECTIONS: u32 = 6;

/// One object of a page, from its assignment to a connection on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageObject {
    pub session: u32,
    /// Page number of the generator (0-based, over all sessions).
    pub page: u64,
    /// Position in its page; 0 is the HTML document.
    pub index: u32,
    /// Connection of the page carrying it (0 = the first one, which also
    /// carries the HTML).
    pub connection: u32,
    pub segments: u64,
    /// Simulation flow of that connection (set by the simulation).
    pub flow: u32,
    /// Segments the connection carried before this object.
    pub first_segment: u64,
    /// When the browser decided to fetch it (connection opened or request
    /// issued on a reused connection).
    pub assigned: Time,
    /// When the request was issued; `None` while the new connection's
    /// handshake is in progress.
    pub requested: Option<Time>,
    /// Arrival of its last segment at the client.
    pub completed: Option<Time>,
    /// The connection's timeout count when the object was assigned and
    /// when it completed (set by the simulation).
    pub timeouts_before: u64,
    pub timeouts_after: Option<u64>,
}

impl PageObject {
    /// Object completion time, ns.
    pub fn oct(&self) -> Option<Time> {
        Some(self.completed? - self.requested?)
    }
}

/// An object to put on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assign {
    /// Index into [`PageSource::objects`].
    pub object: u32,
    pub segments: u64,
    /// Connection number within the page.
    pub connection: u32,
}

/// What the simulation does after an object completed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AfterObject {
    /// The next object on the same connection (request issued now).
    pub next_on_connection: Option<Assign>,
    /// New connections to open now, each with its first object.
    pub open: Vec<Assign>,
    /// The page is complete: the session's next page starts then.
    pub next_page: Option<Time>,
}

#[derive(Debug, Clone, Default)]
struct Session {
    page: u64,
    /// Sizes (segments) of the page's objects not requested yet, in order.
    queue: VecDeque<u64>,
    /// Page index of the next object taken from `queue`.
    next_index: u32,
    /// Connections opened for the current page.
    connections: u32,
    /// Objects requested and not complete.
    outstanding: u32,
}

/// A running page-download generator.
#[derive(Debug, Clone)]
pub struct PageSource {
    fixed: Option<Vec<f64>>,
    objects_per_page: RandomVar,
    object_size: RandomVar,
    think: RandomVar,
    mss: u32,
    start: Time,
    stop: Time,
    max_connections: u32,
    rng: Rng,
    sessions: Vec<Session>,
    pub pages: u64,
    pub pages_completed: u64,
    /// Every object assigned so far, in assignment order.
    pub objects: Vec<PageObject>,
}

impl PageSource {
    /// The generator of `spec` (kind `page`), the `index`-th of the
    /// scenario; `end` is the end of the run (the default stop).
    pub fn new(spec: &TrafficSpec, index: u64, mss: u32, run_seed: u64, end: Time) -> PageSource {
        PageSource {
            fixed: spec.object_sizes.clone(),
            objects_per_page: spec.objects_per_page.clone(),
            object_size: spec.object_size.clone(),
            think: spec.page_interarrival.clone(),
            mss,
            start: secs(spec.start),
            stop: spec.stop.map_or(end, secs).min(end),
            max_connections: spec.connections.unwrap_or(DEFAULT_CONNECTIONS),
            rng: Rng::for_component(run_seed, Component::Traffic, index),
            sessions: vec![Session::default(); spec.sessions as usize],
            pages: 0,
            pages_completed: 0,
            objects: Vec::new(),
        }
    }

    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Time of a session's first page: one think time after the start, so
    /// sessions do not all begin at the same instant.
    pub fn first_event(&mut self) -> Option<Time> {
        let t = self.start + secs(self.think.sample(&mut self.rng).max(0.0));
        (t < self.stop).then_some(t)
    }

    fn segments(&self, bytes: f64) -> u64 {
        ceil(bytes.max(1.0) / self.mss as f64).clamp(1.0, 1e12) as u64
    }

    /// A page starts at `now`: its objects are laid out and the HTML goes
    /// on connection 0 (to be opened now).
    pub fn begin_page(&mut self, session: usize, now: Time) -> Assign {
        let sizes: Vec<u64> = match &self.fixed {
            Some(list) => list.iter().map(|&b| self.segments(b)).collect(),
            None => {
                let n = round(self.objects_per_page.sample(&mut self.rng)).max(1.0);
                let n = n.min(1e6) as usize;
                (0..n)
                    .map(|_| {
                        let b = self.object_size.sample(&mut self.rng);
                        self.segments(b)
                    })
                    .collect()
            }
        };
        let page = self.pages;
        self.pages += 1;
        let s = &mut self.sessions[session];
        *s = Session {
            page,
            queue: sizes.into(),
            ..Session::default()
        };
        s.connections = 1;
        self.take(session, 0, now, None)
            .expect("a page has at least one object")
    }

    /// The next object of the session's queue on `connection`.
    fn take(
        &mut self,
        session: usize,
        connection: u32,
        now: Time,
        requested: Option<Time>,
    ) -> Option<Assign> {
        let s = &mut self.sessions[session];
        let segments = s.queue.pop_front()?;
        let index = s.next_index;
        s.next_index += 1;
        s.outstanding += 1;
        let object = self.objects.len() as u32;
        self.objects.push(PageObject {
            session: session as u32,
            page: s.page,
            index,
            connection,
            segments,
            flow: u32::MAX,
            first_segment: 0,
            assigned: now,
            requested,
            completed: None,
            timeouts_before: 0,
            timeouts_after: None,
        });
        Some(Assign {
            object,
            segments,
            connection,
        })
    }

    /// The handshake of the connection carrying `object` reached the client
    /// at `now`: the request is issued (the first time only).
    pub fn on_handshake(&mut self, object: u32, now: Time) {
        let o = &mut self.objects[object as usize];
        if o.requested.is_none() {
            o.requested = Some(now);
        }
    }

    /// The last segment of `object` arrived at `now`.
    pub fn on_object_done(&mut self, object: u32, now: Time) -> AfterObject {
        let o = &mut self.objects[object as usize];
        o.completed = Some(now);
        let (session, connection, html) = (o.session as usize, o.connection, o.index == 0);
        self.sessions[session].outstanding -= 1;
        let mut after = AfterObject {
            next_on_connection: self.take(session, connection, now, Some(now)),
            ..AfterObject::default()
        };
        if html {
            // The resources go out over up to `max_connections` connections:
            // this one plus new ones, never more than there are objects.
            while self.sessions[session].connections < self.max_connections {
                let c = self.sessions[session].connections;
                match self.take(session, c, now, None) {
                    Some(a) => {
                        self.sessions[session].connections += 1;
                        after.open.push(a);
                    }
                    None => break,
                }
            }
        }
        let s = &self.sessions[session];
        if s.outstanding == 0 && s.queue.is_empty() {
            self.pages_completed += 1;
            let next = now + secs(self.think.sample(&mut self.rng).max(0.0));
            after.next_page = (next < self.stop).then_some(next);
        }
        after
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Scenario;

    fn spec(extra: &str) -> TrafficSpec {
        let text = format!(
            r#"{{"duration": 1000, "topology": {{"kind": "chain", "bottleneck_rate": 1e7,
               "bottleneck_delay": 0.01}}, "traffic": [{{"kind": "page", "server": "S1",
               "client": "D"{extra}}}]}}"#
        );
        Scenario::from_json(&text).unwrap().traffic.remove(0)
    }

    #[test]
    fn html_first_then_the_rest_over_six_connections() {
        let s = spec(r#", "object_sizes": [3000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 2500]"#);
        let mut src = PageSource::new(&s, 0, 1000, 1, secs(100.0));
        let html = src.begin_page(0, 0);
        assert_eq!((html.object, html.segments, html.connection), (0, 3, 0));
        // Nothing else is requested before the HTML is complete.
        assert_eq!(src.objects.len(), 1);
        src.on_handshake(0, 10);
        src.on_handshake(0, 99); // a repeated SYN does not move the request
        assert_eq!(src.objects[0].requested, Some(10));
        let a = src.on_object_done(0, 50);
        // Connection 0 takes object 1 at once; connections 1..5 open with
        // objects 2..6; objects 7 and 8 wait.
        let next = a.next_on_connection.unwrap();
        assert_eq!((next.object, next.connection), (1, 0));
        assert_eq!(src.objects[1].requested, Some(50));
        let conns: Vec<u32> = a.open.iter().map(|x| x.connection).collect();
        assert_eq!(conns, vec![1, 2, 3, 4, 5]);
        assert!(a
            .open
            .iter()
            .all(|x| src.objects[x.object as usize].requested.is_none()));
        assert_eq!(a.next_page, None);
        // Connection 3 finishes first and takes object 7, then object 8 goes
        // to whichever connection finishes next.
        let b = src.on_object_done(4, 80);
        let n = b.next_on_connection.unwrap();
        assert_eq!((src.objects[n.object as usize].index, n.connection), (7, 3));
        assert!(b.open.is_empty());
        let c = src.on_object_done(1, 90);
        let n = c.next_on_connection.unwrap();
        assert_eq!((src.objects[n.object as usize].index, n.segments), (8, 3));
        // The rest completes; only the last completion ends the page.
        for obj in [2, 3, 5, 6, 7] {
            let r = src.on_object_done(obj, 100);
            assert_eq!((r.next_on_connection, r.next_page), (None, None));
        }
        let last = src.on_object_done(8, 200);
        assert!(last.next_page.is_some());
        assert_eq!(src.pages_completed, 1);
        assert_eq!(src.objects.len(), 9);
    }

    #[test]
    fn few_objects_open_few_connections() {
        let s = spec(r#", "object_sizes": [1000, 1000, 1000]"#);
        let mut src = PageSource::new(&s, 0, 1000, 1, secs(100.0));
        src.begin_page(0, 0);
        let a = src.on_object_done(0, 5);
        assert!(a.next_on_connection.is_some());
        assert_eq!(
            a.open.len(),
            1,
            "two resources: the first connection and one more"
        );
    }

    #[test]
    fn random_pages_draw_count_and_sizes_deterministically() {
        let s = spec(
            r#", "objects_per_page": {"dist": "constant", "value": 12},
               "object_size": {"dist": "exponential", "mean": 24000}"#,
        );
        let run = |seed| {
            let mut src = PageSource::new(&s, 0, 1000, seed, secs(100.0));
            let mut sizes = vec![src.begin_page(0, 0).segments];
            let a = src.on_object_done(0, 1);
            sizes.extend(
                a.next_on_connection
                    .iter()
                    .chain(&a.open)
                    .map(|x| x.segments),
            );
            sizes
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
        assert_eq!(run(3).len(), 7, "HTML + 6 connections' first objects");
    }

    #[test]
    fn think_time_follows_the_page_and_respects_stop() {
        let s = spec(
            r#", "object_sizes": [1000], "page_interarrival": {"dist": "constant", "value": 2.0},
               "stop": 5.0"#,
        );
        let mut src = PageSource::new(&s, 0, 1000, 1, secs(100.0));
        assert_eq!(src.first_event(), Some(secs(2.0)));
        src.begin_page(0, secs(2.0));
        let a = src.on_object_done(0, secs(2.5));
        assert_eq!(
            a.next_page,
            Some(secs(4.5)),
            "one think time after completion"
        );
        src.begin_page(0, secs(4.5));
        let b = src.on_object_done(1, secs(4.6));
        assert_eq!(b.next_page, None, "6.6 s is past the stop time");
        assert_eq!(src.pages, 2);
    }
}
