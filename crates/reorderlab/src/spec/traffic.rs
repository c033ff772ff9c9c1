//! Traffic generators: web-like sessions that open flows during the run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::flow::{default_cc, default_variant, ReceiverSpec, TcpSpec};
use super::random::RandomVar;
use super::ranges::{seconds, seconds_or_zero, unit, within};

/// A traffic generator (`docs/traffic.md`): sessions that open a finite
/// flow per object, from `server` to `client`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// Name shown in results.
    #[serde(default)]
    pub name: Option<String>,
    /// The kind of sessions.
    #[serde(default)]
    pub kind: TrafficKind,
    /// Node that sends the objects (the web server).
    pub server: String,
    /// Node that receives them (the web client).
    pub client: String,
    /// Concurrent sessions, each an independent page process.
    #[serde(default = "default_sessions")]
    #[schemars(range(min = 1))]
    pub sessions: u32,
    /// Time of the first page (each session starts one page gap later).
    #[serde(default)]
    #[schemars(transform = seconds_or_zero)]
    pub start: f64,
    /// No page starts at or after this time (none: the end of the run); > start.
    #[serde(default)]
    #[schemars(transform = seconds)]
    pub stop: Option<f64>,
    /// false: pages start as a renewal process, page_interarrival apart (ns-2); true: page_interarrival after the previous page's last object arrived (think time).
    #[serde(default)]
    pub closed_loop: bool,
    /// Time between page starts (or think time, see closed_loop).
    #[serde(default = "default_page_interarrival")]
    #[schemars(transform = unit("s"))]
    pub page_interarrival: RandomVar,
    /// Objects per page (rounded to the nearest integer, at least 1).
    #[serde(default = "default_objects_per_page")]
    pub objects_per_page: RandomVar,
    /// Time between the starts of a page's objects.
    #[serde(default = "default_inter_object")]
    #[schemars(transform = unit("s"))]
    pub inter_object: RandomVar,
    /// Object size (sent as ceil(size / mss) segments, at least 1).
    #[serde(default = "default_object_size")]
    #[schemars(transform = unit("bytes"))]
    pub object_size: RandomVar,
    /// `kind = "page"` only: parallel persistent connections per page (none: 6, tail-loss Sec. 3.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 64))]
    pub connections: Option<u32>,
    /// `kind = "page"` only: the page as a fixed list of object sizes, the HTML first (a recorded site); none: objects_per_page objects of object_size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = within("> 0"), transform = unit("bytes"))]
    pub object_sizes: Option<Vec<f64>>,
    /// Sender variant of the generated flows.
    #[serde(default = "default_variant")]
    #[schemars(extend("x-registry" = "variants"))]
    pub variant: String,
    /// Congestion control of the generated flows.
    #[serde(default = "default_cc")]
    #[schemars(extend("x-registry" = "congestion_controls"))]
    pub cc: String,
    /// Sender parameters of the generated flows.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// Receiver ACK policy of the generated flows.
    #[serde(default)]
    pub receiver: ReceiverSpec,
}

impl TrafficSpec {
    /// `sessions` web sessions from `server` to `client` with the tcp-pr paper's
    /// parameters (every other field at its default).
    pub fn http(server: &str, client: &str, sessions: u32) -> TrafficSpec {
        TrafficSpec {
            name: None,
            kind: TrafficKind::Http,
            server: server.to_string(),
            client: client.to_string(),
            sessions,
            start: 0.0,
            stop: None,
            closed_loop: false,
            page_interarrival: default_page_interarrival(),
            objects_per_page: default_objects_per_page(),
            inter_object: default_inter_object(),
            object_size: default_object_size(),
            connections: None,
            object_sizes: None,
            variant: default_variant(),
            cc: default_cc(),
            tcp: TcpSpec::default(),
            receiver: ReceiverSpec::default(),
        }
    }
}

/// Kind of traffic generator.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrafficKind {
    /// HTTP/1.0-like sessions, one connection per object (the ns-2 web
    /// traffic model the tcp-pr paper uses).
    #[default]
    Http,
    /// Web page downloads: the HTML, then the other objects over up to
    /// `connections` persistent connections (tail-loss Sec. 3.3;
    /// [`crate::app::web`]).
    Page,
}

fn default_sessions() -> u32 {
    1
}
/// tcp-pr Sec. V: "interpage time was exponentially distributed with mean
/// 1 second".
fn default_page_interarrival() -> RandomVar {
    RandomVar::Exponential { mean: 1.0 }
}
/// tcp-pr Sec. V: "uniformly distributed with mean 1" -- one object.
fn default_objects_per_page() -> RandomVar {
    RandomVar::Constant { value: 1.0 }
}
/// tcp-pr Sec. V: "exponentially distributed with mean 10 ms".
fn default_inter_object() -> RandomVar {
    RandomVar::Exponential { mean: 0.01 }
}
/// tcp-pr Sec. V: "Pareto-distributed with mean 40KB and shape parameter
/// equal to 1.2": scale = mean (shape - 1) / shape, computed in that order
/// (6666.666666666665, the double every stored run was keyed with).
fn default_object_size() -> RandomVar {
    let (mean, shape) = (40_000.0, 1.2);
    RandomVar::Pareto {
        scale: mean * (shape - 1.0) / shape,
        shape,
    }
}
