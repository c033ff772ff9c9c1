//! HTTP-like background traffic: the ns-2 web traffic model that the tcp-pr paper
//! (Sec. V) uses for its background and cross traffic.
//!
//! Each of `sessions` independent sessions starts pages as a renewal process
//! (gaps drawn from `page_interarrival`, counted from one page start to the
//! next, whether or not the previous page finished: open loop, as ns-2's
//! `WebTraf` schedules pages), or with `closed_loop` the gap is a think time
//! counted from the arrival of the page's last object (a user reads the page
//! before the next click, as in SURGE-like models). A page has `objects_per_page` objects whose
//! starts are spaced by `inter_object`; every object is sent from the server
//! to the client over a new connection (HTTP/1.0) of `object_size` bytes.
//! Requests are not modelled: the client -> server direction carries only
//! the connections' ACKs (and SYNs when `tcp.syn` is set).
//!
//! The source only decides *when* an object starts and *how big* it is; the
//! simulation creates the flow. All draws come from the source's own random
//! stream, so adding a generator never changes another component's draws.

use crate::engine::rng::{Component, Rng};
use crate::engine::time::secs;
use crate::engine::Time;
use crate::num::{ceil, round};
use crate::spec::{RandomVar, TrafficSpec};

/// One session's position in its page process.
#[derive(Debug, Clone, Copy, Default)]
struct Session {
    /// Objects of the current page not started yet.
    objects_left: u32,
    /// Start of the session's next page (open loop).
    next_page: Time,
    /// Objects started and not yet complete.
    in_progress: u32,
    /// Generator-wide number of the current page, and the position in it
    /// of the next object.
    page: u64,
    index: u32,
}

/// An object to start now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectStart {
    /// Size in segments (at least 1).
    pub segments: u64,
    /// When this session needs its next event, if before the stop time.
    pub next: Option<Time>,
    /// Generator-wide page number and the object's position in its page.
    pub page: u64,
    pub index: u32,
}

/// A running HTTP traffic generator.
#[derive(Debug, Clone)]
pub struct HttpSource {
    page_interarrival: RandomVar,
    objects_per_page: RandomVar,
    inter_object: RandomVar,
    object_size: RandomVar,
    /// Bytes per segment.
    mss: u32,
    start: Time,
    stop: Time,
    closed_loop: bool,
    rng: Rng,
    sessions: Vec<Session>,
    pub pages: u64,
    pub objects: u64,
}

impl HttpSource {
    /// The generator of `spec`, the `index`-th of the scenario; `end` is the
    /// end of the run (the default stop).
    pub fn new(spec: &TrafficSpec, index: u64, mss: u32, run_seed: u64, end: Time) -> HttpSource {
        HttpSource {
            page_interarrival: spec.page_interarrival.clone(),
            objects_per_page: spec.objects_per_page.clone(),
            inter_object: spec.inter_object.clone(),
            object_size: spec.object_size.clone(),
            mss,
            start: secs(spec.start),
            stop: spec.stop.map_or(end, secs).min(end),
            closed_loop: spec.closed_loop,
            rng: Rng::for_component(run_seed, Component::Traffic, index),
            sessions: vec![Session::default(); spec.sessions as usize],
            pages: 0,
            objects: 0,
        }
    }

    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Time of a session's first page: one page gap after the start, so the
    /// sessions do not all begin at the same instant.
    pub fn first_event(&mut self, session: usize) -> Option<Time> {
        let t = self.start + gap(&self.page_interarrival, &mut self.rng);
        self.sessions[session].next_page = t;
        (t < self.stop).then_some(t)
    }

    /// The session's event at `now`: begin a page if none is in progress,
    /// then start its next object.
    pub fn on_event(&mut self, session: usize, now: Time) -> ObjectStart {
        if self.sessions[session].objects_left == 0 {
            let n = round(self.objects_per_page.sample(&mut self.rng)).max(1.0);
            let gap = gap(&self.page_interarrival, &mut self.rng);
            let s = &mut self.sessions[session];
            s.objects_left = n.min(u32::MAX as f64) as u32;
            s.next_page = now + gap;
            s.page = self.pages;
            s.index = 0;
            self.pages += 1;
        }
        let bytes = self.object_size.sample(&mut self.rng).max(1.0);
        let segments = ceil(bytes / self.mss as f64).clamp(1.0, 1e12) as u64;
        self.objects += 1;
        let inter = gap(&self.inter_object, &mut self.rng);
        let s = &mut self.sessions[session];
        s.objects_left -= 1;
        s.in_progress += 1;
        let (page, index) = (s.page, s.index);
        s.index += 1;
        let next = if s.objects_left > 0 {
            Some(now + inter)
        } else if self.closed_loop {
            None // the next page waits for this one to complete
        } else {
            Some(s.next_page.max(now))
        };
        ObjectStart {
            segments,
            next: next.filter(|&t| t < self.stop),
            page,
            index,
        }
    }

    /// One of the session's objects has fully arrived at `now`. Returns the
    /// session's next event when this completes a page of a closed-loop
    /// session (after a think time).
    pub fn on_object_done(&mut self, session: usize, now: Time) -> Option<Time> {
        let s = &mut self.sessions[session];
        s.in_progress = s.in_progress.saturating_sub(1);
        if !self.closed_loop || s.objects_left > 0 || s.in_progress > 0 {
            return None;
        }
        let next = now + gap(&self.page_interarrival, &mut self.rng);
        (next < self.stop).then_some(next)
    }
}

/// A draw of a time variable, in ns.
fn gap(var: &RandomVar, rng: &mut Rng) -> Time {
    secs(var.sample(rng).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Scenario;

    fn spec(extra: &str) -> TrafficSpec {
        let text = format!(
            r#"{{"duration": 1000, "topology": {{"kind": "chain", "bottleneck_rate": 1e7,
               "bottleneck_delay": 0.01}}, "traffic": [{{"server": "S1", "client": "D"{extra}}}]}}"#
        );
        Scenario::from_json(&text).unwrap().traffic.remove(0)
    }

    /// Run one session's process to `end`; (page starts, object sizes).
    fn drive(src: &mut HttpSource) -> (Vec<Time>, Vec<u64>) {
        let mut starts = Vec::new();
        let mut sizes = Vec::new();
        let mut t = src.first_event(0);
        while let Some(now) = t {
            let before = src.pages;
            let o = src.on_event(0, now);
            if src.pages > before {
                starts.push(now);
            }
            sizes.push(o.segments);
            t = o.next;
        }
        (starts, sizes)
    }

    #[test]
    fn defaults_are_the_tcp_pr_parameters() {
        let s = spec("");
        assert_eq!(s.page_interarrival.mean(), Some(1.0));
        assert_eq!(s.objects_per_page.mean(), Some(1.0));
        assert_eq!(s.inter_object.mean(), Some(0.01));
        let mean = s.object_size.mean().unwrap();
        assert!((mean - 40_000.0).abs() < 1e-6, "{mean}");
    }

    #[test]
    fn pages_form_a_renewal_process_with_the_configured_mean_gap() {
        let s = spec("");
        let mut src = HttpSource::new(&s, 0, 1000, 7, secs(1000.0));
        let (starts, _) = drive(&mut src);
        // About 1000 pages in 1000 s at one page per second.
        assert!((900..1100).contains(&starts.len()), "{}", starts.len());
        let gaps: Vec<f64> = starts
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / 1e9)
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!((mean - 1.0).abs() < 0.08, "mean gap {mean}");
    }

    #[test]
    fn objects_of_a_page_are_spaced_by_the_inter_object_time() {
        let s = spec(
            r#", "objects_per_page": {"dist": "constant", "value": 3},
               "inter_object": {"dist": "constant", "value": 0.05},
               "page_interarrival": {"dist": "constant", "value": 2.0},
               "object_size": {"dist": "constant", "value": 2500}"#,
        );
        let mut src = HttpSource::new(&s, 0, 1000, 1, secs(10.0));
        let mut times = Vec::new();
        let mut t = src.first_event(0);
        while let Some(now) = t {
            let o = src.on_event(0, now);
            assert_eq!(o.segments, 3, "2500 B in 1000-B segments");
            times.push(now);
            t = o.next;
        }
        // Pages at 2, 4, 6, 8 s (the first one page gap after start 0), three
        // objects each, 50 ms apart; nothing at or after the 10 s stop.
        let expect: Vec<Time> = [2.0, 4.0, 6.0, 8.0]
            .iter()
            .flat_map(|p| [0.0, 0.05, 0.1].map(|d| secs(p + d)))
            .collect();
        assert_eq!(times, expect);
        assert_eq!(src.pages, 4);
        assert_eq!(src.objects, 12);
    }

    #[test]
    fn closed_loop_sessions_wait_for_the_page_then_think() {
        let s = spec(
            r#", "closed_loop": true, "objects_per_page": {"dist": "constant", "value": 2},
               "inter_object": {"dist": "constant", "value": 0.01},
               "page_interarrival": {"dist": "constant", "value": 1.0}"#,
        );
        let mut src = HttpSource::new(&s, 0, 1000, 1, secs(100.0));
        let t0 = src.first_event(0).unwrap();
        assert_eq!(t0, secs(1.0));
        let a = src.on_event(0, t0);
        assert_eq!(a.next, Some(secs(1.01)));
        let b = src.on_event(0, secs(1.01));
        assert_eq!(b.next, None, "the next page waits for this one");
        assert_eq!(
            src.on_object_done(0, secs(1.5)),
            None,
            "one object still open"
        );
        // The page completes at 2.5 s; the next click one think time later.
        assert_eq!(src.on_object_done(0, secs(2.5)), Some(secs(3.5)));
    }

    #[test]
    fn open_loop_sessions_ignore_completions() {
        let s = spec("");
        let mut src = HttpSource::new(&s, 0, 1000, 1, secs(100.0));
        let t0 = src.first_event(0).unwrap();
        let o = src.on_event(0, t0);
        assert!(o.next.is_some());
        assert_eq!(src.on_object_done(0, t0 + 1), None);
    }

    #[test]
    fn object_sizes_follow_the_pareto_law() {
        let s = spec("");
        let mut src = HttpSource::new(&s, 0, 1000, 3, secs(20_000.0));
        let (_, sizes) = drive(&mut src);
        // P(X > x) = (scale / x)^1.2 with scale 6667 B: P(size > 10 segments)
        // = P(X > 9000 B) = (6667 / 9000)^1.2 = 0.698.
        let frac = sizes.iter().filter(|&&s| s > 10).count() as f64 / sizes.len() as f64;
        let expect = crate::num::powf(40_000.0_f64 * 0.2 / 1.2 / 10_000.0, 1.2);
        assert!((frac - expect).abs() < 0.02, "{frac} vs {expect}");
        assert!(sizes.iter().all(|&s| s >= 7), "no draw below the scale");
    }

    #[test]
    fn same_seed_same_process_and_streams_are_per_source() {
        let s = spec("");
        let a = drive(&mut HttpSource::new(&s, 0, 1000, 5, secs(100.0)));
        let b = drive(&mut HttpSource::new(&s, 0, 1000, 5, secs(100.0)));
        let c = drive(&mut HttpSource::new(&s, 1, 1000, 5, secs(100.0)));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
