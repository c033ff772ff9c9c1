//! Arithmetic that gives the same bits on every machine, and cheaply.
//!
//! * `floor`, `ceil`, `round`: exactly the bits of the standard library's.
//!   The release build targets baseline x86-64 (SSE2), which has no
//!   rounding instruction: `f64::floor` is a call into libm. The sender
//!   floors its congestion window on every transmission decision, and those
//!   calls were 4.7 % of a high-speed AVG-DEV run (perf); BIC rounds it up
//!   on every ACK.
//! * `ln`, `log2`, `exp`, `powf`, `cos`: the `libm` crate's (a Rust port of
//!   musl's), not the C library's. `f64::ln` and the others call the
//!   platform's libm, whose result may differ in the last bit from machine
//!   to machine: glibc picks an FMA variant of `exp`, `log`, `log2`, `pow`
//!   and `cos` when the CPU has FMA, and on this machine the two variants
//!   disagreed by one ulp on 99 (`log`), 611 (`exp`), 853 (`pow`) and 553
//!   (`log2`) of a million random arguments (`GLIBC_TUNABLES=
//!   glibc.cpu.hwcaps=-AVX2,-FMA`); macOS and Windows have libms of their
//!   own. The simulation feeds these into random variates, windows and
//!   decay factors, so a sweep spread over a Dask cluster of mixed machines
//!   could give a run other bytes on another worker. `libm`'s functions are
//!   plain IEEE arithmetic, the same on every target. `clippy.toml`
//!   forbids the `f64` methods so that no new call slips past these.
//!   (`sqrt` is exact in IEEE 754 and `powi` a product, so both stay.)

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

/// The natural logarithm, the same bits on every machine (see the module).
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// The base-2 logarithm, the same bits on every machine.
#[inline]
pub fn log2(x: f64) -> f64 {
    libm::log2(x)
}

/// e^x, the same bits on every machine.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// x^y, the same bits on every machine.
#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// The cosine, the same bits on every machine.
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// The cube root, the same bits on every machine (`f64::cbrt` already
/// comes from Rust's own libm port on Linux, but from the C library
/// elsewhere).
#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
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

    /// Arguments of the kinds the simulation passes: uniforms (random
    /// variates), windows, exponents of decay factors, angles.
    fn transcendental_cases(n: usize) -> Vec<(f64, f64)> {
        let mut rng = crate::engine::Rng::from_seed(11);
        (0..n)
            .map(|_| {
                let u = rng.uniform();
                let w = 1.0 + rng.uniform() * 1e5;
                (u, w)
            })
            .collect()
    }

    /// Each function's results on the cases, as bits.
    fn transcendental_bits(cases: &[(f64, f64)]) -> Vec<[u64; 6]> {
        cases
            .iter()
            .map(|&(u, w)| {
                [
                    ln(u).to_bits(),
                    log2(w).to_bits(),
                    exp(-20.0 * u).to_bits(),
                    powf(0.5 + u / 2.0, 1.0 / w).to_bits(),
                    cos(std::f64::consts::TAU * u).to_bits(),
                    cbrt(w).to_bits(),
                ]
            })
            .collect()
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // the platform's, to compare with
    fn transcendentals_are_within_one_ulp_of_the_platforms() {
        let cases = transcendental_cases(200_000);
        let ours = transcendental_bits(&cases);
        for (&(u, w), got) in cases.iter().zip(&ours) {
            let platform = [
                u.ln(),
                w.log2(),
                (-20.0 * u).exp(),
                (0.5 + u / 2.0).powf(1.0 / w),
                (std::f64::consts::TAU * u).cos(),
                w.cbrt(),
            ];
            for (k, (&a, b)) in got.iter().zip(platform).enumerate() {
                let ulps = (a as i64).abs_diff(b.to_bits() as i64);
                assert!(ulps <= 1, "function {k} at u={u:e}, w={w:e}: {ulps} ulps");
            }
        }
    }

    /// The same bits on every machine: a hash of 200,000 results of each
    /// function, recorded once. The platform's libm fails this on an FMA
    /// machine (glibc: about one result in 1,000-10,000 differs by an ulp).
    #[test]
    fn transcendentals_give_the_recorded_bits() {
        let cases = transcendental_cases(200_000);
        let mut hash = [0xcbf2_9ce4_8422_2325u64; 6];
        for bits in transcendental_bits(&cases) {
            for (h, b) in hash.iter_mut().zip(bits) {
                *h = (*h ^ b).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        assert_eq!(hash, RECORDED_BITS, "{hash:#018x?}");
    }

    const RECORDED_BITS: [u64; 6] = [
        0x40ce_0cd1_2259_c6ab,
        0x4a25_cca0_1044_beba,
        0xd045_3e02_c259_e209,
        0x7f86_8aee_d5f5_8f74,
        0x492c_296f_96de_ba82,
        0xce56_d2d8_f5b1_3184,
    ];
}
