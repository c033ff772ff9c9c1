//! A JSON value that keeps its objects' key order (serde_json's `Value`
//! sorts them unless a feature the rest of the crate does not want is
//! on), read from the JSON text serde_json writes and written back the
//! same way: a number is spelled as serde_json spelled it, so any reader
//! parses it to the value it parses from the result's text.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A part of the result that the encoder writes from the core's typed
/// records rather than from JSON (see [`super::Bulk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    Series,
    Traces,
    /// The `object_list` of traffic generator `i`.
    Objects(usize),
}

/// A JSON value; integers and floats kept apart, as Python's `int` and
/// `float` are.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// An integer within `i64`.
    Int(i64),
    /// An integer above `i64::MAX`.
    UInt(u64),
    Float(f64),
    Str(String),
    List(Vec<Node>),
    Map(Vec<(String, Node)>),
    /// Stands for a bulky part taken out of the result.
    Bulk(Bulk),
}

impl Node {
    /// The value of `key` in an object (serde_json writes each key once).
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match self {
            Node::Map(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Write the value as compact JSON (a [`Node::Bulk`] as `null`: the
    /// callers replace it first).
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Node::Null | Node::Bulk(_) => out.extend_from_slice(b"null"),
            Node::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Node::Int(i) => write_int(out, *i),
            Node::UInt(u) => out.extend_from_slice(u.to_string().as_bytes()),
            Node::Float(x) => write_float(out, *x),
            Node::Str(s) => write_str(out, s),
            Node::List(items) => write_items(out, items, |out, item| item.write(out)),
            Node::Map(entries) => {
                out.push(b'{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_str(out, k);
                    out.push(b':');
                    v.write(out);
                }
                out.push(b'}');
            }
        }
    }
}

/// An integer as JSON.
pub fn write_int(out: &mut Vec<u8>, i: i64) {
    out.extend_from_slice(i.to_string().as_bytes());
}

/// A float as serde_json writes it (`null` if not finite).
pub fn write_float(out: &mut Vec<u8>, x: f64) {
    serde_json::to_writer(out, &x).expect("a float is written to memory");
}

/// A string as serde_json writes it (quoted, escaped).
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(out, s).expect("a string is written to memory");
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Node, E> {
        Ok(Node::Int(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Node, E> {
        Ok(i64::try_from(u).map_or(Node::UInt(u), Node::Int))
    }

    fn visit_f64<E>(self, x: f64) -> Result<Node, E> {
        Ok(Node::Float(x))
    }

    fn visit_str<E>(self, s: &str) -> Result<Node, E> {
        Ok(Node::Str(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Node, E> {
        Ok(Node::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((k, v)) = map.next_entry::<String, Node>()? {
            entries.push((k, v));
        }
        Ok(Node::Map(entries))
    }
}

/// `items` as a JSON list, each written by `write`.
pub fn write_items<T>(out: &mut Vec<u8>, items: &[T], mut write: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        let node: Node = serde_json::from_str(text).unwrap();
        let mut out = Vec::new();
        node.write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn keeps_key_order_and_number_kinds() {
        let text = r#"{"z":1,"a":1.0,"m":[-0.0,1e-7,18446744073709551615,-3],"s":"\u0000é\"","n":null,"b":true}"#;
        assert_eq!(round_trip(text), text);
        let node: Node = serde_json::from_str(text).unwrap();
        let Node::Map(entries) = node else { panic!() };
        assert_eq!(entries[0], ("z".to_string(), Node::Int(1)));
        assert_eq!(entries[1], ("a".to_string(), Node::Float(1.0)));
        let Node::List(m) = &entries[2].1 else {
            panic!()
        };
        assert_eq!(m[2], Node::UInt(u64::MAX));
        assert!(matches!(m[0], Node::Float(x) if x == 0.0 && x.is_sign_negative()));
    }
}
