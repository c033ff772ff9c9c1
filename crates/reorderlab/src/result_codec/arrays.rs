//! Lists of numbers as `store/codec.py` stores them: a 64-bit
//! little-endian array, its bytes shuffled, a null mask before it, and a
//! marker in the skeleton naming its kind, length, offset and flags.
//!
//! Which lists become arrays is decided as the Python encoder decides
//! (`_array`), since a reader asking for columns
//! (`decode(..., columns=True)`) sees the difference: at least
//! [`MIN_ARRAY`] values, all integers or all floats (nulls allowed among
//! them), integers within `i64`. How an array is stored (its kind, its
//! differences) is this encoder's choice, each one checked value by value
//! to decode to the same number: the check computes what the decoder
//! computes and compares the bits.

use super::tree::{write_float, write_int, write_items};

/// Lists shorter than this stay JSON (`store.codec.MIN_ARRAY`).
pub const MIN_ARRAY: usize = 16;

/// How many values the choice of differences looks at (`_SAMPLE`).
const SAMPLE: usize = 256;

/// A list's value as JSON has it: a number, or `null` (also a float that
/// is not finite: serde_json writes it as `null`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Null,
    Int(i64),
    /// An integer above `i64::MAX` (no array holds it).
    UInt(u64),
    Float(f64),
}

impl Num {
    pub fn of_f64(x: f64) -> Num {
        if x.is_finite() {
            Num::Float(x)
        } else {
            Num::Null
        }
    }

    pub fn of_opt(x: Option<f64>) -> Num {
        x.map_or(Num::Null, Num::of_f64)
    }

    pub fn of_u64(u: u64) -> Num {
        i64::try_from(u).map_or(Num::UInt(u), Num::Int)
    }

    /// The value as JSON, spelled as serde_json spells it.
    pub fn write(self, out: &mut Vec<u8>) {
        match self {
            Num::Null => out.extend_from_slice(b"null"),
            Num::Int(i) => write_int(out, i),
            Num::UInt(u) => out.extend_from_slice(u.to_string().as_bytes()),
            Num::Float(x) => write_float(out, x),
        }
    }
}

/// Values as the JSON list they are.
pub fn write_list(out: &mut Vec<u8>, values: &[Num]) {
    write_items(out, values, |out, v| v.write(out));
}

/// The arrays' bytes, in the order their markers were written.
#[derive(Debug, Default)]
pub struct Arrays {
    pub data: Vec<u8>,
}

impl Arrays {
    /// `values` as an array: its bytes appended here, its marker written to
    /// `skel`; false (nothing written) if the Python encoder would keep
    /// them as a JSON list.
    pub fn put(&mut self, skel: &mut Vec<u8>, values: &[Num]) -> bool {
        let (mut ints, mut floats, mut nulls) = (false, false, false);
        for v in values {
            match v {
                Num::Null => nulls = true,
                Num::Int(_) => ints = true,
                Num::Float(_) => floats = true,
                Num::UInt(_) => return false, // (beyond int64: `_array` gives up)
            }
        }
        if values.len() < MIN_ARRAY || ints == floats {
            return false; // short, no numbers, or integers and floats mixed
        }
        let mask: Option<Vec<u8>> =
            nulls.then(|| values.iter().map(|v| u8::from(*v == Num::Null)).collect());
        if ints {
            let words: Vec<i64> = values.iter().map(int_or_zero).collect();
            self.put_ints(skel, "i", &words, mask.as_deref());
            return true;
        }
        let xs: Vec<f64> = values.iter().map(float_or_zero).collect();
        let masked = |i: usize| mask.as_ref().is_some_and(|m| m[i] == 1);
        for (kind, exact) in [("F", whole as fn(f64) -> Option<i64>), ("N", nanos)] {
            let words: Option<Vec<i64>> = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| if masked(i) { Some(0) } else { exact(x) })
                .collect();
            if let Some(words) = words {
                self.put_ints(skel, kind, &words, mask.as_deref());
                return true;
            }
        }
        let bits: Vec<u64> = xs.iter().map(|x| x.to_bits()).collect();
        self.put_words(skel, "f", &bits, mask.as_deref(), false);
        true
    }

    /// Integers (kind "i", "F" or "N"), as their differences if those are
    /// small next to them (`_differences`).
    fn put_ints(&mut self, skel: &mut Vec<u8>, kind: &str, words: &[i64], mask: Option<&[u8]>) {
        if let Some(diffs) = differences(words) {
            self.put_words(skel, kind, &diffs, mask, true);
        } else {
            let raw: Vec<u64> = words.iter().map(|&w| w as u64).collect();
            self.put_words(skel, kind, &raw, mask, false);
        }
    }

    /// Append the mask and the shuffled words (all first bytes, then all
    /// second bytes, ...); write the marker
    /// `{"\u0000":["a", kind, n, offset, flags]}`.
    fn put_words(
        &mut self,
        skel: &mut Vec<u8>,
        kind: &str,
        words: &[u64],
        mask: Option<&[u8]>,
        delta: bool,
    ) {
        let n = words.len();
        let start = self.data.len();
        if let Some(m) = mask {
            self.data.extend_from_slice(m);
        }
        let base = self.data.len();
        self.data.resize(base + 8 * n, 0);
        let planes = &mut self.data[base..];
        for (j, w) in words.iter().enumerate() {
            for (i, b) in w.to_le_bytes().into_iter().enumerate() {
                planes[i * n + j] = b;
            }
        }
        let flags = match (delta, mask.is_some()) {
            (true, true) => "dm",
            (true, false) => "d",
            (false, true) => "m",
            (false, false) => "",
        };
        let marker = format!(r#"{{"\u0000":["a","{kind}",{n},{start},"{flags}"]}}"#);
        skel.extend_from_slice(marker.as_bytes());
    }
}

fn int_or_zero(v: &Num) -> i64 {
    match *v {
        Num::Int(i) => i,
        _ => 0,
    }
}

fn float_or_zero(v: &Num) -> f64 {
    match *v {
        Num::Float(x) => x,
        _ => 0.0,
    }
}

/// `x` as the integer kind "F" stores it: the decoder's `float(n)` gives
/// back the same bits (not for -0.0, nor for what is not a whole number).
fn whole(x: f64) -> Option<i64> {
    let n = x as i64; // (saturates; the check below refuses what it changed)
    ((n as f64).to_bits() == x.to_bits()).then_some(n)
}

/// `x` as the nanoseconds kind "N" stores it: the decoder's `n / 1e9`
/// (`n` converted to a float, correctly rounded, then divided) gives back
/// the same bits. The core writes its times so: `ns as f64 / 1e9`.
fn nanos(x: f64) -> Option<i64> {
    let y = x * 1e9;
    if y.abs() >= 9.0e18 {
        return None; // (x is finite: so is y, or it is infinite)
    }
    let n = y.round() as i64;
    ((n as f64 / 1e9).to_bits() == x.to_bits()).then_some(n)
}

/// The successive differences (the first value's from 0), as `u64`
/// words, if they are small next to the values on the first [`SAMPLE`]
/// (a quarter of their sum of magnitudes) and every value is within
/// +-2^62 (so that every difference fits in 64 bits).
fn differences(v: &[i64]) -> Option<Vec<u64>> {
    let head = &v[..v.len().min(SAMPLE)];
    let steps: i128 = head
        .windows(2)
        .map(|w| (w[1] as i128 - w[0] as i128).abs())
        .sum();
    let size: i128 = head.iter().skip(1).map(|&x| (x as i128).abs()).sum();
    let bound = 1i64 << 62;
    if 4 * steps >= size || !v.iter().all(|&x| -bound < x && x < bound) {
        return None;
    }
    let mut prev = 0i64;
    Some(
        v.iter()
            .map(|&x| {
                let d = x - prev;
                prev = x;
                d as u64
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_exact() {
        assert_eq!(whole(3.0), Some(3));
        assert_eq!(whole(-0.0), None);
        assert_eq!(whole(0.5), None);
        assert_eq!(whole(1e300), None);
        assert_eq!(nanos(1.5e-9), None);
        assert_eq!(nanos(-0.0), None);
        for ns in [
            0u64,
            1,
            999_999_999,
            123_456_789_012,
            1 << 53,
            (1 << 60) + 1,
        ] {
            let x = ns as f64 / 1e9;
            let n = nanos(x).expect("a time the core writes");
            assert_eq!((n as f64 / 1e9).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn differences_only_when_small() {
        let rising: Vec<i64> = (0..100).map(|i| 1_000_000 + i).collect();
        assert!(differences(&rising).is_some());
        let jumping: Vec<i64> = (0..100)
            .map(|i| if i % 2 == 0 { 0 } else { 1000 })
            .collect();
        assert!(differences(&jumping).is_none());
        let huge = vec![1i64 << 62; 20];
        assert!(differences(&huge).is_none());
    }

    #[test]
    fn what_stays_json() {
        let mut a = Arrays::default();
        let mut skel = Vec::new();
        let mixed: Vec<Num> = (0..20)
            .map(|i| if i == 3 { Num::Float(1.0) } else { Num::Int(i) })
            .collect();
        assert!(!a.put(&mut skel, &mixed));
        assert!(!a.put(&mut skel, &[Num::Null; 20]));
        assert!(!a.put(&mut skel, &[Num::Int(1); 15]));
        let big: Vec<Num> = (0..20).map(|_| Num::of_u64(u64::MAX)).collect();
        assert!(!a.put(&mut skel, &big));
        assert!(skel.is_empty() && a.data.is_empty());
        assert!(a.put(&mut skel, &[Num::Int(1); 16]));
        assert_eq!(a.data.len(), 16 * 8);
    }
}
