//! Random variables used by impairment models, as plain data with a
//! documented parameterisation, and their sampling by inverse transform.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{num, SpecError};
use super::ranges::within;
use crate::engine::time::{MAX_SECONDS, MIN_STEP_SECONDS};
use crate::engine::Rng;
use crate::num::powf;

/// A random variable. Units are those of the field it describes (seconds
/// for delays, packets for block sizes).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum RandomVar {
    /// Always `value`.
    Constant {
        /// The value.
        #[schemars(transform = within(">= 0"))]
        value: f64,
    },
    /// Uniform on `[low, high]`.
    Uniform {
        /// Lowest value.
        #[schemars(transform = within(">= 0"))]
        low: f64,
        /// Highest value; >= low.
        high: f64,
    },
    /// Normal with `mean` and standard deviation `sd`, truncated at 0
    /// (negative draws are redrawn), as delays cannot be negative.
    Normal {
        /// Mean of the untruncated law.
        mean: f64,
        /// Standard deviation of the untruncated law.
        #[schemars(transform = within(">= 0"))]
        sd: f64,
    },
    /// Exponential with the given `mean` (rate 1 / mean).
    Exponential {
        /// The mean.
        #[schemars(transform = within("> 0"))]
        mean: f64,
    },
    /// Mixture of exponentials: with probability `probs[i]` an exponential
    /// of mean `means[i]`.
    Hyperexponential {
        /// Mean of each exponential, each > 0.
        means: Vec<f64>,
        /// Probability of each, one per mean, summing to 1.
        probs: Vec<f64>,
    },
    /// Pareto type I: P(X > x) = (scale / x)^shape for x >= scale; mean
    /// shape * scale / (shape - 1) for shape > 1.
    Pareto {
        /// The smallest value.
        #[schemars(transform = within("> 0"))]
        scale: f64,
        /// Tail index.
        #[schemars(transform = within("> 0"))]
        shape: f64,
    },
    /// Pareto type II (Lomax): P(X > x) = (1 + x / scale)^-shape for x >= 0;
    /// mean scale / (shape - 1) for shape > 1.
    Pareto2 {
        /// Scale of the law.
        #[schemars(transform = within("> 0"))]
        scale: f64,
        /// Tail index.
        #[schemars(transform = within("> 0"))]
        shape: f64,
    },
    /// Empirical CDF: `cdf[i]` = P(X <= values[i]), both ascending, the last
    /// cdf value 1; sampled by linear interpolation of the inverse CDF (below
    /// the first point: `values[0]`).
    Empirical {
        /// Values, ascending, each >= 0.
        values: Vec<f64>,
        /// P(X <= values[i]), one per value, ascending to 1.
        cdf: Vec<f64>,
    },
}

impl RandomVar {
    /// Draw one value.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            RandomVar::Constant { value } => *value,
            RandomVar::Uniform { low, high } => low + (high - low) * rng.uniform(),
            RandomVar::Normal { mean, sd } => {
                for _ in 0..64 {
                    let x = mean + sd * rng.standard_normal();
                    if x >= 0.0 {
                        return x;
                    }
                }
                0.0
            }
            RandomVar::Exponential { mean } => rng.exponential(*mean),
            RandomVar::Hyperexponential { means, probs } => {
                let u = rng.uniform();
                let mut acc = 0.0;
                let mut pick = means.len() - 1;
                for (i, p) in probs.iter().enumerate() {
                    acc += p;
                    if u < acc {
                        pick = i;
                        break;
                    }
                }
                rng.exponential(means[pick])
            }
            RandomVar::Pareto { scale, shape } => {
                let u = 1.0 - rng.uniform(); // (0, 1]
                scale / powf(u, 1.0 / shape)
            }
            RandomVar::Pareto2 { scale, shape } => {
                let u = 1.0 - rng.uniform();
                scale * (powf(u, -1.0 / shape) - 1.0)
            }
            RandomVar::Empirical { values, cdf } => {
                let u = rng.uniform();
                let i = cdf.partition_point(|&c| c < u);
                if i == 0 {
                    return values[0];
                }
                if i >= values.len() {
                    return values[values.len() - 1];
                }
                let (c0, c1) = (cdf[i - 1], cdf[i]);
                let (v0, v1) = (values[i - 1], values[i]);
                if c1 <= c0 {
                    v1
                } else {
                    v0 + (v1 - v0) * (u - c0) / (c1 - c0)
                }
            }
        }
    }

    /// The mean, where it is finite and known in closed form (the Normal's
    /// is that of the untruncated law).
    pub fn mean(&self) -> Option<f64> {
        match self {
            RandomVar::Constant { value } => Some(*value),
            RandomVar::Uniform { low, high } => Some((low + high) / 2.0),
            RandomVar::Normal { mean, .. } => Some(*mean),
            RandomVar::Exponential { mean } => Some(*mean),
            RandomVar::Hyperexponential { means, probs } => {
                Some(means.iter().zip(probs).map(|(m, p)| m * p).sum())
            }
            RandomVar::Pareto { scale, shape } => {
                (*shape > 1.0).then(|| shape * scale / (shape - 1.0))
            }
            RandomVar::Pareto2 { scale, shape } => (*shape > 1.0).then(|| scale / (shape - 1.0)),
            RandomVar::Empirical { .. } => None,
        }
    }

    /// The median, where it is known in closed form (the Normal's is that
    /// of the untruncated law).
    fn median(&self) -> Option<f64> {
        match self {
            RandomVar::Pareto { scale, shape } => Some(scale * powf(2.0, 1.0 / shape)),
            RandomVar::Pareto2 { scale, shape } => Some(scale * (powf(2.0, 1.0 / shape) - 1.0)),
            RandomVar::Empirical { values, cdf } => {
                let i = cdf.partition_point(|&c| c < 0.5).min(values.len() - 1);
                Some(values[i])
            }
            _ => self.mean(),
        }
    }

    /// The largest parameter that scales the draws (seconds for a time),
    /// and its field: what must stay within [`MAX_SECONDS`].
    fn scale_param(&self) -> (&'static str, f64) {
        match self {
            RandomVar::Constant { value } => ("value", *value),
            RandomVar::Uniform { high, .. } => ("high", *high),
            RandomVar::Normal { mean, sd } => {
                if mean >= sd {
                    ("mean", *mean)
                } else {
                    ("sd", *sd)
                }
            }
            RandomVar::Exponential { mean } => ("mean", *mean),
            RandomVar::Hyperexponential { means, .. } => {
                ("means", means.iter().fold(0.0, |a, &m| m.max(a)))
            }
            RandomVar::Pareto { scale, .. } | RandomVar::Pareto2 { scale, .. } => ("scale", *scale),
            RandomVar::Empirical { values, .. } => {
                ("values", values.last().copied().unwrap_or(0.0))
            }
        }
    }

    /// Check a random time in seconds: the parameters (as [`Self::validate`])
    /// and none of them beyond [`MAX_SECONDS`] (longer draws are clamped
    /// there, but a parameter that long is a mistake worth naming).
    pub fn validate_time(&self, path: &str) -> Result<(), SpecError> {
        self.validate(path)?;
        let (field, v) = self.scale_param();
        if v > MAX_SECONDS {
            return Err(SpecError::new(
                format!("{path}.{field}"),
                format!(
                    "must be at most 1e9 s (the longest simulated time), got {}",
                    num(v)
                ),
            ));
        }
        Ok(())
    }

    /// Check a random time that spaces a repeated event (a session's pages):
    /// as [`Self::validate_time`], and a typical draw (the mean, or the
    /// median of a law without one) of at least 1 ns, or the events would
    /// all fall at one instant and the run never advance.
    pub fn validate_gap(&self, path: &str) -> Result<(), SpecError> {
        self.validate_time(path)?;
        match self.median() {
            Some(m) if m < MIN_STEP_SECONDS => Err(SpecError::new(
                path,
                format!(
                    "must have a mean of at least 1 ns (the engine's time step), got {}",
                    num(m)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Check the rules that join parameters (each parameter's own range
    /// is declared on it and checked with every field: `fields.rs`);
    /// `path` names the field.
    pub fn validate(&self, path: &str) -> Result<(), SpecError> {
        match self {
            RandomVar::Uniform { low, high } if !(high.is_finite() && high >= low) => {
                Err(SpecError::new(
                    format!("{path}.high"),
                    format!("must be >= low ({}), got {}", num(*low), num(*high)),
                ))
            }
            RandomVar::Hyperexponential { means, probs } => {
                check_hyperexponential(path, means, probs)
            }
            RandomVar::Empirical { values, cdf } => check_empirical(path, values, cdf),
            _ => Ok(()),
        }
    }
}

fn check_hyperexponential(path: &str, means: &[f64], probs: &[f64]) -> Result<(), SpecError> {
    let bad = |field: &str, msg: String| Err(SpecError::new(format!("{path}.{field}"), msg));
    if means.is_empty() || means.len() != probs.len() {
        return bad(
            "probs",
            format!(
                "must have one probability per mean ({}), got {}",
                means.len(),
                probs.len()
            ),
        );
    }
    if let Some(m) = means.iter().find(|m| !(m.is_finite() && **m > 0.0)) {
        return bad("means", format!("every mean must be > 0, got {}", num(*m)));
    }
    let sum: f64 = probs.iter().sum();
    if probs.iter().any(|p| *p < 0.0) || (sum - 1.0).abs() > 1e-9 {
        return bad(
            "probs",
            format!("must be >= 0 and sum to 1, got sum {}", num(sum)),
        );
    }
    Ok(())
}

fn check_empirical(path: &str, values: &[f64], cdf: &[f64]) -> Result<(), SpecError> {
    let bad = |field: &str, msg: String| Err(SpecError::new(format!("{path}.{field}"), msg));
    if values.is_empty() || values.len() != cdf.len() {
        return bad(
            "cdf",
            format!(
                "must have one cdf value per value ({}), got {}",
                values.len(),
                cdf.len()
            ),
        );
    }
    if values.windows(2).any(|w| w[1] < w[0])
        || values.iter().any(|v| !(v.is_finite() && *v >= 0.0))
    {
        return bad("values", "must be >= 0 and ascending".to_string());
    }
    if cdf.windows(2).any(|w| w[1] < w[0]) || cdf.iter().any(|c| !(0.0..=1.0).contains(c)) {
        return bad("cdf", "must be ascending within [0, 1]".to_string());
    }
    let last = cdf[cdf.len() - 1];
    if (last - 1.0).abs() > 1e-9 {
        return bad("cdf", format!("must end at 1, got {}", num(last)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sample mean and variance of n draws.
    fn moments(rv: &RandomVar, n: usize, seed: u64) -> (f64, f64) {
        let mut rng = Rng::from_seed(seed);
        let xs: Vec<f64> = (0..n).map(|_| rv.sample(&mut rng)).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n as f64 - 1.0);
        (m, v)
    }

    /// Mean within 5 standard errors computed from the law's own variance.
    fn assert_mean(rv: &RandomVar, mean: f64, var: f64) {
        let n = 200_000;
        let (m, _) = moments(rv, n, 17);
        let se = (var / n as f64).sqrt();
        assert!(
            (m - mean).abs() < 5.0 * se,
            "{rv:?}: mean {m} vs {mean} (se {se})"
        );
    }

    #[test]
    fn each_law_has_its_documented_mean() {
        assert_mean(&RandomVar::Constant { value: 0.3 }, 0.3, 0.0 + 1e-18);
        assert_mean(
            &RandomVar::Uniform {
                low: 1.0,
                high: 3.0,
            },
            2.0,
            4.0 / 12.0,
        );
        assert_mean(&RandomVar::Exponential { mean: 0.02 }, 0.02, 0.0004);
        // Hyperexponential: mean sum p m, second moment sum p 2 m^2.
        let h = RandomVar::Hyperexponential {
            means: vec![0.01, 0.1],
            probs: vec![0.9, 0.1],
        };
        let m = 0.9 * 0.01 + 0.1 * 0.1;
        let m2 = 0.9 * 2.0 * 0.0001 + 0.1 * 2.0 * 0.01;
        assert_mean(&h, m, m2 - m * m);
        // Pareto with shape 3: mean 1.5 scale, variance scale^2 a/((a-1)^2 (a-2)).
        let p = RandomVar::Pareto {
            scale: 2.0,
            shape: 3.0,
        };
        assert_mean(&p, 3.0, 4.0 * 3.0 / (4.0 * 1.0));
        // Lomax with shape 3: mean scale/2, variance scale^2 a/((a-1)^2 (a-2)).
        let l = RandomVar::Pareto2 {
            scale: 2.0,
            shape: 3.0,
        };
        assert_mean(&l, 1.0, 4.0 * 3.0 / 4.0);
        // Empirical: uniform on [0, 2] written as a two-point CDF.
        let e = RandomVar::Empirical {
            values: vec![0.0, 2.0],
            cdf: vec![0.0, 1.0],
        };
        assert_mean(&e, 1.0, 4.0 / 12.0);
    }

    #[test]
    fn normal_is_truncated_at_zero_with_the_right_spread() {
        let n = RandomVar::Normal {
            mean: 0.025,
            sd: 0.008,
        };
        let (m, v) = moments(&n, 200_000, 5);
        // 3.1 sd above zero: truncation changes the moments negligibly.
        assert!((m - 0.025).abs() < 5.0 * 0.008 / (200_000f64).sqrt());
        assert!((v.sqrt() - 0.008).abs() < 0.0002);
        let t = RandomVar::Normal { mean: 0.0, sd: 1.0 };
        let mut rng = Rng::from_seed(1);
        assert!((0..10_000).all(|_| t.sample(&mut rng) >= 0.0));
    }

    #[test]
    fn validation_names_the_bad_parameter() {
        let e = RandomVar::Uniform {
            low: 2.0,
            high: 1.0,
        }
        .validate("x.delay")
        .unwrap_err();
        assert_eq!(e.to_string(), "x.delay.high: must be >= low (2), got 1");
        let h = RandomVar::Hyperexponential {
            means: vec![1.0],
            probs: vec![0.5],
        };
        assert!(h
            .validate("h")
            .unwrap_err()
            .to_string()
            .contains("sum to 1"));
    }
}
