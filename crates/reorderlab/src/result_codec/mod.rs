//! A run's result in the form the Python results store keeps a big one
//! (`python/reorderlab/store/rows.py`, `pack`): its summary (the result
//! without its bulky parts) and the whole result encoded as
//! `python/reorderlab/store/codec.py` encodes it (format: that module's
//! docstring), made here from the core's typed records, so that a sweep's
//! driver parses and encodes nothing for it.
//!
//! * [`pack`] gives a result that the store keeps as it is (shorter than
//!   the store's threshold, or without bulky parts) as the JSON text
//!   [`crate::run_json`] gives, and a big one as (summary, blob).
//! * The summary is the JSON value `store.summary_of` gives: the result
//!   without `series`, `traces` and each traffic generator's
//!   `object_list`, then `"compressed": "result_z"`.
//! * `store.codec.decode(blob)` is the JSON value Python's `orjson.loads`
//!   gives for the result's text: the same keys in the same order, the
//!   same numbers of the same types (an integer stays an integer, a float
//!   keeps its bits, -0.0 included), the same nulls. The bulky parts are
//!   written from the typed records (`object_list` as a table, long lists
//!   of numbers as arrays); the rest from the result's JSON, with the
//!   Python encoder's decisions of what becomes a table or an array (a
//!   reader of columns sees them); every array's kind is checked value by
//!   value (see `arrays`).
//! * The bytes need not be those the Python encoder makes (its skeleton
//!   spells some numbers otherwise, and its zlib is another library).

mod arrays;
mod encoder;
mod tree;

#[cfg(test)]
mod tests;

use std::io::{self, Write};

use miniz_oxide::deflate::compress_to_vec_zlib;

pub use arrays::MIN_ARRAY;
use encoder::{Encoder, Parts};
use tree::{Bulk, Node};

use crate::sim::RunResult;

/// First bytes of an encoded result (`store.codec.MAGIC`).
pub const MAGIC: &[u8; 4] = b"RLc\x01";

/// The zlib level (miniz_oxide's scale, 0-10). Level 1 (greedy matching)
/// deflates the full reproduction's payloads (1.8 GB) in ~1.7 s of CPU
/// against 4.4 s at level 2, for blobs ~10 % larger (measured on an eighth
/// of them: 230.8 MB -> 20.2 MB, against 18.3 MB).
pub const LEVEL: u8 = 1;

/// A result as the store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub enum Packed {
    /// The result's JSON text (the store keeps it as it is, or, for a
    /// result the encoding cannot hold, packs it itself).
    Text(String),
    /// A big result: its summary (JSON text) and its encoded form.
    Encoded { summary: String, blob: Vec<u8> },
}

/// `result` as the store keeps it, where a result of `compress_from`
/// characters of JSON text or more with bulky parts is kept encoded
/// (`store.COMPRESS_FROM`, `store.is_big`).
pub fn pack(mut result: RunResult, compress_from: usize) -> serde_json::Result<Packed> {
    if !has_bulk(&result) {
        return serde_json::to_string(&result).map(Packed::Text);
    }
    if let Some(text) = text_if_short(&result, compress_from)? {
        return Ok(Packed::Text(text));
    }
    let parts = take_parts(&mut result);
    // (the rest is small: its text is a cheap way to its keys in order)
    let mut rest: Node = serde_json::from_str(&serde_json::to_string(&result)?)?;
    let summary = summary(&rest);
    mark_bulk(&mut rest);
    match encode(&rest, &parts) {
        Some(blob) => Ok(Packed::Encoded { summary, blob }),
        None => {
            // a result the format cannot hold is stored as its text
            put_back(parts, &mut result);
            serde_json::to_string(&result).map(Packed::Text)
        }
    }
}

/// The blob of `rest` (its bulky parts marked) and `parts`; None if the
/// format cannot hold it (the marker key in it, a skeleton of 4 GB).
fn encode(rest: &Node, parts: &Parts) -> Option<Vec<u8>> {
    let mut enc = Encoder::new(parts);
    enc.value(rest).ok()?;
    let n = u32::try_from(enc.skel.len()).ok()?;
    let mut payload = Vec::with_capacity(4 + enc.skel.len() + enc.arrays.data.len());
    payload.extend_from_slice(&n.to_le_bytes());
    payload.extend_from_slice(&enc.skel);
    payload.extend_from_slice(&enc.arrays.data);
    let mut blob = MAGIC.to_vec();
    blob.extend_from_slice(&compress_to_vec_zlib(&payload, LEVEL));
    Some(blob)
}

/// Has the result any part a summary leaves out (`store._has_bulk`)?
fn has_bulk(r: &RunResult) -> bool {
    !r.series.is_empty()
        || !r.traces.is_empty()
        || r.traffic.iter().any(|t| !t.object_list.is_empty())
}

/// The result's JSON text if it is shorter than `limit` characters (what
/// Python's `len` counts); None (having written no more than that) if not.
fn text_if_short(result: &RunResult, limit: usize) -> serde_json::Result<Option<String>> {
    let mut capped = Capped {
        out: Vec::new(),
        chars: 0,
        limit,
    };
    match serde_json::to_writer(&mut capped, result) {
        Ok(()) => Ok(Some(
            String::from_utf8(capped.out).expect("serde_json writes UTF-8"),
        )),
        Err(_) if capped.chars >= limit => Ok(None),
        Err(e) => Err(e),
    }
}

/// Keeps what is written until it reaches `limit` characters, then fails.
struct Capped {
    out: Vec<u8>,
    chars: usize,
    limit: usize,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // UTF-8: a character per byte that does not continue one
        self.chars += buf.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        if self.chars >= self.limit {
            return Err(io::Error::other("long enough to be encoded"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn take_parts(r: &mut RunResult) -> Parts {
    Parts {
        series: std::mem::take(&mut r.series),
        traces: std::mem::take(&mut r.traces),
        objects: r
            .traffic
            .iter_mut()
            .map(|t| std::mem::take(&mut t.object_list))
            .collect(),
    }
}

fn put_back(parts: Parts, r: &mut RunResult) {
    r.series = parts.series;
    r.traces = parts.traces;
    for (t, list) in r.traffic.iter_mut().zip(parts.objects) {
        t.object_list = list;
    }
}

/// The parts a summary leaves out: `series` and `traces` at the top, each
/// traffic generator's `object_list`.
const BULKY: [&str; 2] = ["series", "traces"];
const OBJECTS: &str = "object_list";

/// The summary (`store.summary_of`) of the result whose bulky parts were
/// taken out (`rest`).
fn summary(rest: &Node) -> String {
    let Node::Map(entries) = rest else {
        unreachable!("a result is an object")
    };
    let mut out: Vec<(String, Node)> = Vec::with_capacity(entries.len() + 1);
    for (k, v) in entries {
        if BULKY.contains(&k.as_str()) {
            continue;
        }
        let v = match v {
            Node::List(gens) if k == "traffic" => Node::List(
                gens.iter()
                    .map(|g| match g {
                        Node::Map(e) => {
                            Node::Map(e.iter().filter(|(k, _)| k != OBJECTS).cloned().collect())
                        }
                        other => other.clone(),
                    })
                    .collect(),
            ),
            other => other.clone(),
        };
        out.push((k.clone(), v));
    }
    let compressed = Node::Str("result_z".to_string());
    match out.iter_mut().find(|(k, _)| k == "compressed") {
        Some((_, v)) => *v = compressed,
        None => out.push(("compressed".to_string(), compressed)),
    }
    let mut text = Vec::new();
    Node::Map(out).write(&mut text);
    String::from_utf8(text).expect("JSON written from strings is UTF-8")
}

/// Put the placeholders of the bulky parts where the result has them.
fn mark_bulk(rest: &mut Node) {
    if let Some(v) = rest.get_mut("series") {
        *v = Node::Bulk(Bulk::Series);
    }
    if let Some(v) = rest.get_mut("traces") {
        *v = Node::Bulk(Bulk::Traces);
    }
    if let Some(Node::List(gens)) = rest.get_mut("traffic") {
        for (i, g) in gens.iter_mut().enumerate() {
            if let Some(v) = g.get_mut(OBJECTS) {
                *v = Node::Bulk(Bulk::Objects(i));
            }
        }
    }
}
