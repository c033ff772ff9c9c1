//! Arithmetic that gives exactly the bits of the standard library's, cheaper.
//!
//! The release build targets baseline x86-64 (SSE2), which has no rounding
//! instruction: `f64::floor` is a call into libm. The sender floors its
//! congestion window on every transmission decision, and those calls were
//! 4.7 % of a high-speed AVG-DEV run (perf); BIC rounds it up on every ACK.

/// 2^52: every `f64` of this magnitude or more is an integer.
const INTEGRAL_FROM: f64 = 4_503_599_627_370_496.0;

/// `x.floor()`, bit for bit (signed zeros, infinities and NaN included),
/// without a libm call.
#[inline(always)]
pub fn floor(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= INTEGRAL_FROM {
        // NaN, infinite or already integral
        return x;
    }
    // |x| < 2^52: the conversion truncates toward zero, exactly
    let t = x as i64 as f64;
    if t == x {
        x // keeps the sign of -0.0
    } else if t > x {
        t - 1.0 // a negative non-integer
    } else {
        t
    }
}

/// `x.ceil()`, bit for bit: -floor(-x) (negation is exact, and it keeps
/// the sign of zero and a NaN's payload).
#[inline(always)]
pub fn ceil(x: f64) -> f64 {
    -floor(-x)
}

/// `x.round()` (half away from zero), bit for bit.
#[inline(always)]
pub fn round(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= INTEGRAL_FROM {
        return x;
    }
    let t = x as i64 as f64; // toward zero
    let frac = x - t; // exact: t and x share sign and binade or t is 0
    let r = if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    };
    if r == 0.0 {
        0.0f64.copysign(x) // round(-0.3) is -0.0
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// Ties and their neighbours, where `round` can go wrong.
    const HALVES: [f64; 10] = [
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        0.499_999_999_999_999_94,
        -0.499_999_999_999_999_94,
        4_503_599_627_370_495.5,
        -4_503_599_627_370_495.5,
        2_251_799_813_685_248.5,
    ];

    #[test]
    fn floor_ceil_round_match_std_on_edges() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            0.999_999_999_999_999_9,
            -0.999_999_999_999_999_9,
            2.5,
            -2.5,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            INTEGRAL_FROM - 0.5,
            -(INTEGRAL_FROM - 0.5),
            INTEGRAL_FROM,
            INTEGRAL_FROM + 1.0,
            -INTEGRAL_FROM,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for x in edges.into_iter().chain(HALVES) {
            assert!(same(floor(x), x.floor()), "floor({x:e})");
            assert!(same(ceil(x), x.ceil()), "ceil({x:e})");
            assert!(same(round(x), x.round()), "round({x:e})");
        }
    }

    #[test]
    fn floor_ceil_round_match_std_on_random_values() {
        let mut rng = crate::engine::Rng::from_seed(3);
        for i in 0..200_000u64 {
            let bits = rng.next_u64();
            // every bit pattern, and values of the sizes a window takes
            let x = if i % 2 == 0 {
                f64::from_bits(bits)
            } else {
                (bits >> 11) as f64 / (1u64 << (bits % 40)) as f64 - 1000.0
            };
            assert!(same(floor(x), x.floor()), "floor({x:e})");
            assert!(same(ceil(x), x.ceil()), "ceil({x:e})");
            assert!(same(round(x), x.round()), "round({x:e})");
        }
    }
}
