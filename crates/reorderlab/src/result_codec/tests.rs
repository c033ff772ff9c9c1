//! The encoded result decoded as `store/codec.py`'s decoder does it (a
//! copy of its rules, for the tests of this side; pytest checks the real
//! one) and compared with the result's JSON, strictly: an integer is not
//! a float, and a float is its bits.

use miniz_oxide::inflate::decompress_to_vec_zlib;

use super::tree::Node;
use super::{pack, Packed, MAGIC};
use crate::spec::Scenario;
use crate::RunResult;

/// The value an encoded result decodes to, and its summary.
fn decode(blob: &[u8]) -> Node {
    assert_eq!(&blob[..4], MAGIC);
    let payload = decompress_to_vec_zlib(&blob[4..]).expect("a zlib stream");
    let n = u32::from_le_bytes(payload[..4].try_into().unwrap()) as usize;
    let skeleton: Node = serde_json::from_slice(&payload[4..4 + n]).expect("JSON");
    build(&skeleton, &payload[4 + n..])
}

fn build(v: &Node, data: &[u8]) -> Node {
    match v {
        Node::Map(e) if e.len() == 1 && e[0].0 == "\u{0}" => {
            let Node::List(mark) = &e[0].1 else {
                panic!("a marker is a list")
            };
            match &mark[0] {
                Node::Str(s) if s == "r" => table(mark, data),
                Node::Str(s) if s == "a" => array(mark, data),
                other => panic!("unknown marker {other:?}"),
            }
        }
        Node::Map(e) => Node::Map(e.iter().map(|(k, x)| (k.clone(), build(x, data))).collect()),
        Node::List(items) => Node::List(items.iter().map(|x| build(x, data)).collect()),
        other => other.clone(),
    }
}

fn int(n: &Node) -> usize {
    match n {
        Node::Int(i) => *i as usize,
        other => panic!("not an integer: {other:?}"),
    }
}

fn table(mark: &[Node], data: &[u8]) -> Node {
    let n = int(&mark[1]);
    let (Node::List(keys), Node::List(cols)) = (&mark[2], &mark[3]) else {
        panic!("a table marker")
    };
    let cols: Vec<Vec<Node>> = cols
        .iter()
        .map(|c| match build(c, data) {
            Node::List(v) if v.len() == n => v,
            other => panic!("a column of {n}: {other:?}"),
        })
        .collect();
    let rows = (0..n)
        .map(|i| {
            let entries = keys.iter().zip(&cols).map(|(k, c)| match k {
                Node::Str(k) => (k.clone(), c[i].clone()),
                other => panic!("a key: {other:?}"),
            });
            Node::Map(entries.collect())
        })
        .collect();
    Node::List(rows)
}

fn array(mark: &[Node], data: &[u8]) -> Node {
    let (Node::Str(kind), n, mut start, Node::Str(flags)) =
        (&mark[1], int(&mark[2]), int(&mark[3]), &mark[4])
    else {
        panic!("an array marker")
    };
    let mask = flags.contains('m').then(|| {
        start += n;
        &data[start - n..start]
    });
    let raw = &data[start..start + 8 * n];
    let mut words: Vec<u64> = (0..n)
        .map(|j| u64::from_le_bytes(std::array::from_fn(|i| raw[i * n + j])))
        .collect();
    if flags.contains('d') {
        let mut sum = 0i64;
        for w in &mut words {
            sum += *w as i64; // (Python adds exactly; a test value never overflows)
            *w = sum as u64;
        }
    }
    let values = words.iter().enumerate().map(|(j, &w)| {
        if mask.is_some_and(|m| m[j] == 1) {
            return Node::Null;
        }
        match kind.as_str() {
            "i" => Node::Int(w as i64),
            "F" => Node::Float(w as i64 as f64),
            "N" => Node::Float(w as i64 as f64 / 1e9),
            "f" => Node::Float(f64::from_bits(w)),
            other => panic!("unknown kind {other}"),
        }
    });
    Node::List(values.collect())
}

/// Where `a` and `b` differ (strictly), if they do.
fn difference(a: &Node, b: &Node, at: &str) -> Option<String> {
    match (a, b) {
        (Node::Float(x), Node::Float(y)) if x.to_bits() == y.to_bits() => None,
        (Node::List(x), Node::List(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| difference(p, q, &format!("{at}[{i}]"))),
        (Node::Map(x), Node::Map(y)) if x.len() == y.len() => {
            x.iter().zip(y).find_map(|((k, p), (l, q))| {
                if k != l {
                    Some(format!("{at}: key {k} != {l}"))
                } else {
                    difference(p, q, &format!("{at}.{k}"))
                }
            })
        }
        (Node::Float(_), _) | (Node::List(_), _) | (Node::Map(_), _) => {
            Some(format!("{at}: {a:?} != {b:?}"))
        }
        _ if a == b => None,
        _ => Some(format!("{at}: {a:?} != {b:?}")),
    }
}

fn parse(text: &str) -> Node {
    serde_json::from_str(text).expect("JSON")
}

/// The result encoded decodes to its text's value, and its summary is the
/// text's value without the bulky parts, "compressed" last.
fn check(result: &RunResult) -> Vec<u8> {
    let full = parse(&serde_json::to_string(result).unwrap());
    let Packed::Encoded { summary, blob } = pack(result.clone(), 1).unwrap() else {
        panic!("a big result with bulky parts is encoded")
    };
    if let Some(d) = difference(&decode(&blob), &full, "$") {
        panic!("decoded value differs: {d}");
    }
    let Node::Map(mut expected) = full else {
        panic!()
    };
    expected.retain(|(k, _)| k != "series" && k != "traces");
    for (k, v) in &mut expected {
        if let (true, Node::List(gens)) = (k == "traffic", v) {
            for g in gens {
                let Node::Map(e) = g else { panic!() };
                e.retain(|(k, _)| k != "object_list");
            }
        }
    }
    expected.push(("compressed".into(), Node::Str("result_z".into())));
    if let Some(d) = difference(&parse(&summary), &Node::Map(expected), "$") {
        panic!("summary differs: {d}");
    }
    blob
}

const WEB: &str = r#"{"name": "codec", "duration": 20.0, "warmup": 2.0,
    "topology": {"kind": "dumbbell", "pairs": 1, "bottleneck_rate": 1e7,
                 "bottleneck_delay": 0.01, "queue": {"kind": "droptail", "limit_packets": 30}},
    "impairments": [{"link": "R1->R2", "kind": "loss", "p": 0.03}],
    "flows": [{"src": "S0", "dst": "D0", "variant": "SACK"}],
    "traffic": [
      {"server": "R1", "client": "R2", "sessions": 10,
       "object_size": {"dist": "pareto", "scale": 6000.0, "shape": 1.2}},
      {"kind": "page", "server": "R1", "client": "R2", "sessions": 3}],
    "record": {"objects": true, "series": ["cwnd", "srtt", "ssthresh"], "interval": 0.05,
               "trace_window": [1.0, 3.0]}}"#;

fn web_result(seed: u64) -> RunResult {
    crate::run(&Scenario::from_json(WEB).unwrap(), Some(seed)).unwrap()
}

#[test]
fn web_runs_decode_to_their_json() {
    for seed in 1..=3 {
        let r = web_result(seed);
        assert!(
            r.traffic.iter().all(|t| t.object_list.len() >= 16),
            "tables"
        );
        assert!(
            r.traffic[0].object_list.iter().any(|o| o.oct.is_none()),
            "null octs"
        );
        assert!(!r.traces.is_empty() && !r.series.is_empty());
        check(&r);
    }
}

#[test]
fn odd_values_decode_exactly() {
    let mut r = web_result(1);
    let flow = r.series.get_mut("0").unwrap();
    let n = flow["cwnd"].len();
    let odd = [-0.0, 0.0, f64::NAN, 1e300, -1.5, f64::INFINITY, 0.1, 3.0];
    flow.insert("odd".into(), (0..n).map(|i| odd[i % odd.len()]).collect());
    flow.insert("negzero".into(), vec![-0.0; n]);
    flow.insert("nulls".into(), vec![f64::NAN; n]);
    flow.insert("short".into(), vec![1.0; 15]);
    flow.insert("whole".into(), (0..n).map(|i| i as f64 * 1e6).collect());
    let objects = &mut r.traffic[0].object_list;
    objects[0].segments = u64::MAX; // beyond int64: the column stays JSON
    objects[1].page = 1 << 62;
    objects[2].start = -0.0;
    for o in objects.iter_mut() {
        o.oct = None;
    }
    r.traffic[1].object_list.truncate(15); // a list of objects, not a table
    check(&r);
}

#[test]
fn the_threshold_is_the_texts_length_in_characters() {
    let mut r = web_result(2);
    r.scenario = "codec é".into(); // two bytes, one character
    let text = serde_json::to_string(&r).unwrap();
    let chars = text.chars().count();
    assert!(chars < text.len());
    assert_eq!(pack(r.clone(), chars + 1).unwrap(), Packed::Text(text));
    assert!(matches!(
        pack(r.clone(), chars).unwrap(),
        Packed::Encoded { .. }
    ));
    // without bulky parts: text, however long
    let mut plain = r.clone();
    plain.series.clear();
    plain.traces.clear();
    for t in &mut plain.traffic {
        t.object_list.clear();
    }
    let text = serde_json::to_string(&plain).unwrap();
    assert_eq!(pack(plain, 1).unwrap(), Packed::Text(text));
}

#[test]
fn a_marker_key_keeps_the_text() {
    let mut r = web_result(1);
    r.series.insert("\u{0}".into(), Default::default());
    let text = serde_json::to_string(&r).unwrap();
    assert_eq!(pack(r, 1).unwrap(), Packed::Text(text));
}
