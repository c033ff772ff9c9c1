//! The skeleton and the arrays of an encoded result: the parts of the
//! result written from JSON ([`Node`]) are stripped as `store/codec.py`'s
//! `_strip` strips them; the bulky parts are written from the core's typed
//! records, to the same shapes.

use std::collections::BTreeMap;

use super::arrays::{write_list, Arrays, Num, MIN_ARRAY};
use super::tree::{write_str, Bulk, Node};
use crate::metrics::{FlowTrace, ObjectRecord};

/// The key of a marker object (`_MARK`); a result that has it anywhere
/// is not encoded.
pub const MARK: &str = "\u{0}";

/// A result with a [`MARK`] key somewhere: kept as text.
#[derive(Debug)]
pub struct NotEncodable;

/// The bulky parts of a result, taken out of it.
#[derive(Debug, Default)]
pub struct Parts {
    pub series: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
    pub traces: BTreeMap<String, FlowTrace>,
    /// Each traffic generator's `object_list`, in order.
    pub objects: Vec<Vec<ObjectRecord>>,
}

/// The keys of an [`ObjectRecord`] in the order serde writes them (a test
/// checks them against its JSON).
pub const OBJECT_KEYS: [&str; 11] = [
    "start",
    "segments",
    "oct",
    "retransmits",
    "timeouts",
    "tail_drops",
    "tail_retransmits",
    "session",
    "page",
    "index",
    "connection",
];

/// Writes the skeleton (JSON with markers) and the arrays.
pub struct Encoder<'a> {
    pub skel: Vec<u8>,
    pub arrays: Arrays,
    parts: &'a Parts,
}

impl<'a> Encoder<'a> {
    pub fn new(parts: &'a Parts) -> Encoder<'a> {
        Encoder {
            skel: Vec::new(),
            arrays: Arrays::default(),
            parts,
        }
    }

    /// `v` into the skeleton (`_strip`).
    pub fn value(&mut self, v: &Node) -> Result<(), NotEncodable> {
        match v {
            Node::Map(entries) => {
                if entries.iter().any(|(k, _)| k == MARK) {
                    return Err(NotEncodable);
                }
                self.skel.push(b'{');
                for (i, (k, x)) in entries.iter().enumerate() {
                    self.key(i, k);
                    self.value(x)?;
                }
                self.skel.push(b'}');
                Ok(())
            }
            Node::List(items) => self.list(&items.iter().collect::<Vec<_>>()),
            Node::Bulk(part) => self.bulk(*part),
            scalar => {
                scalar.write(&mut self.skel);
                Ok(())
            }
        }
    }

    /// `"key":` (after a comma unless first).
    fn key(&mut self, i: usize, k: &str) {
        if i > 0 {
            self.skel.push(b',');
        }
        write_str(&mut self.skel, k);
        self.skel.push(b':');
    }

    /// A list (or a table's column): a table if it is one of at least
    /// [`MIN_ARRAY`] objects with the same keys, an array if one of
    /// numbers, else JSON with its items stripped.
    fn list(&mut self, items: &[&Node]) -> Result<(), NotEncodable> {
        if items.len() >= MIN_ARRAY {
            if items.iter().all(|n| matches!(n, Node::Map(_))) {
                if self.table(items)? {
                    return Ok(());
                }
            } else if let Some(nums) = numbers(items) {
                if self.arrays.put(&mut self.skel, &nums) {
                    return Ok(());
                }
            }
        }
        self.skel.push(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.skel.push(b',');
            }
            self.value(item)?;
        }
        self.skel.push(b']');
        Ok(())
    }

    /// Objects with the same keys in the same order (and some) as a table
    /// marker `{"\u0000":["r", n, keys, columns]}` (`_table`); false if
    /// they are not such.
    fn table(&mut self, rows: &[&Node]) -> Result<bool, NotEncodable> {
        let keys = keys_of(rows[0]);
        if keys.is_empty() || keys.contains(&MARK) || rows.iter().any(|r| keys_of(r) != keys) {
            return Ok(false);
        }
        self.table_head(rows.len(), &keys);
        for k in 0..keys.len() {
            if k > 0 {
                self.skel.push(b',');
            }
            let column: Vec<&Node> = rows
                .iter()
                .map(|r| match r {
                    Node::Map(e) => &e[k].1,
                    _ => unreachable!("rows are objects"),
                })
                .collect();
            self.list(&column)?;
        }
        self.skel.extend_from_slice(b"]]}");
        Ok(true)
    }

    /// `{"\u0000":["r",n,[keys],[` (the columns follow).
    fn table_head(&mut self, n: usize, keys: &[&str]) {
        self.skel
            .extend_from_slice(format!(r#"{{"\u0000":["r",{n},["#).as_bytes());
        for (i, k) in keys.iter().enumerate() {
            if i > 0 {
                self.skel.push(b',');
            }
            write_str(&mut self.skel, k);
        }
        self.skel.extend_from_slice(b"],[");
    }

    /// Numbers as an array, or as the JSON list they are.
    fn numbers(&mut self, values: &[Num]) {
        if !self.arrays.put(&mut self.skel, values) {
            write_list(&mut self.skel, values);
        }
    }

    fn bulk(&mut self, part: Bulk) -> Result<(), NotEncodable> {
        let parts = self.parts;
        match part {
            Bulk::Series => self.series(&parts.series),
            Bulk::Traces => self.traces(&parts.traces),
            Bulk::Objects(i) => {
                self.objects(&parts.objects[i]);
                Ok(())
            }
        }
    }

    /// `{flow: {name: [values]}}`
    fn series(
        &mut self,
        series: &BTreeMap<String, BTreeMap<String, Vec<f64>>>,
    ) -> Result<(), NotEncodable> {
        self.skel.push(b'{');
        for (i, (flow, columns)) in series.iter().enumerate() {
            if flow == MARK || columns.contains_key(MARK) {
                return Err(NotEncodable);
            }
            self.key(i, flow);
            self.skel.push(b'{');
            for (j, (name, values)) in columns.iter().enumerate() {
                self.key(j, name);
                self.numbers(&times(values));
            }
            self.skel.push(b'}');
        }
        self.skel.push(b'}');
        Ok(())
    }

    /// `{flow: {"send_t": [...], ...}}`, the fields in their order.
    fn traces(&mut self, traces: &BTreeMap<String, FlowTrace>) -> Result<(), NotEncodable> {
        self.skel.push(b'{');
        for (i, (flow, trace)) in traces.iter().enumerate() {
            if flow == MARK {
                return Err(NotEncodable);
            }
            self.key(i, flow);
            let FlowTrace {
                send_t,
                send_seq,
                send_copy,
                ack_t,
                ack_seq,
            } = trace;
            let fields: [(&str, Vec<Num>); 5] = [
                ("send_t", times(send_t)),
                ("send_seq", ints(send_seq)),
                ("send_copy", ints(send_copy)),
                ("ack_t", times(ack_t)),
                ("ack_seq", ints(ack_seq)),
            ];
            self.skel.push(b'{');
            for (j, (name, nums)) in fields.iter().enumerate() {
                self.key(j, name);
                self.numbers(nums);
            }
            self.skel.push(b'}');
        }
        self.skel.push(b'}');
        Ok(())
    }

    /// A traffic generator's `object_list`: a table of [`OBJECT_KEYS`]
    /// (at least [`MIN_ARRAY`] records), else its JSON.
    fn objects(&mut self, records: &[ObjectRecord]) {
        if records.len() < MIN_ARRAY {
            serde_json::to_writer(&mut self.skel, records).expect("records are written to memory");
            return;
        }
        self.table_head(records.len(), &OBJECT_KEYS);
        for (k, column) in object_columns(records).iter().enumerate() {
            if k > 0 {
                self.skel.push(b',');
            }
            self.numbers(column);
        }
        self.skel.extend_from_slice(b"]]}");
    }
}

/// An object's keys, in order.
fn keys_of(n: &Node) -> Vec<&str> {
    match n {
        Node::Map(e) => e.iter().map(|(k, _)| k.as_str()).collect(),
        _ => Vec::new(),
    }
}

/// Times (or any floats) as JSON has them.
fn times(v: &[f64]) -> Vec<Num> {
    v.iter().map(|&x| Num::of_f64(x)).collect()
}

/// Integers of 32 bits or fewer.
fn ints<T: Copy + Into<i64>>(v: &[T]) -> Vec<Num> {
    v.iter().map(|&x| Num::Int(x.into())).collect()
}

/// The values of `items` as numbers, if they all are (or `null`).
fn numbers(items: &[&Node]) -> Option<Vec<Num>> {
    items
        .iter()
        .map(|n| match n {
            Node::Null => Some(Num::Null),
            Node::Int(i) => Some(Num::Int(*i)),
            Node::UInt(u) => Some(Num::UInt(*u)),
            Node::Float(x) => Some(Num::Float(*x)),
            _ => None,
        })
        .collect()
}

/// The columns of [`OBJECT_KEYS`], each value as JSON has it.
fn object_columns(records: &[ObjectRecord]) -> [Vec<Num>; 11] {
    let mut cols: [Vec<Num>; 11] = std::array::from_fn(|_| Vec::with_capacity(records.len()));
    for r in records {
        // every field, by name: a new one does not compile until it is
        // given its column (and its key in OBJECT_KEYS)
        let ObjectRecord {
            start,
            segments,
            oct,
            retransmits,
            timeouts,
            tail_drops,
            tail_retransmits,
            session,
            page,
            index,
            connection,
        } = *r;
        let row = [
            Num::of_f64(start),
            Num::of_u64(segments),
            Num::of_opt(oct),
            Num::of_u64(retransmits),
            Num::of_u64(timeouts),
            Num::Int(tail_drops.into()),
            Num::Int(tail_retransmits.into()),
            Num::Int(session.into()),
            Num::of_u64(page),
            Num::Int(index.into()),
            Num::Int(connection.into()),
        ];
        for (col, v) in cols.iter_mut().zip(row) {
            col.push(v);
        }
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_keys_are_the_records_keys_in_order() {
        let r = ObjectRecord {
            start: 0.5,
            segments: 1,
            oct: None,
            retransmits: 2,
            timeouts: 3,
            tail_drops: 4,
            tail_retransmits: 5,
            session: 6,
            page: 7,
            index: 8,
            connection: 9,
        };
        let node: Node = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        let Node::Map(entries) = node else {
            panic!("an object")
        };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, OBJECT_KEYS);
        let values: Vec<Num> = object_columns(&[r]).iter().map(|c| c[0]).collect();
        let expected: Vec<Num> = entries
            .iter()
            .map(|(_, v)| numbers(&[v]).expect("a number")[0])
            .collect();
        assert_eq!(values, expected);
    }
}
