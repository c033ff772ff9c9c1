//! Fairness among competing flows (tcp-pr Sec. V, Figs. 4-12).
//!
//! * Normalized throughput of flow i: `T_i = x_i / ((1/n) sum_j x_j)`, the
//!   flow's throughput over the measurement window divided by the mean over
//!   all n flows (the tcp-pr paper uses the last 60 s of the run).
//! * Mean normalized throughput of a protocol: the mean of `T_i` over its
//!   flows; 1 for both protocols means they got the same average share.
//! * Coefficient of variation as the tcp-pr paper defines it:
//!   `CoV = sqrt(sum_{i in I} (T_i - mean_I T)^2) / sum_{i in I} T_i`
//!   over the flows I of one protocol. (Not the textbook sd / mean: the
//!   paper divides the root of the summed squares by the sum.)
//! * Jain's fairness index (Jain, Chiu, Hawe 1984):
//!   `J = (sum x_i)^2 / (n sum x_i^2)`, 1 when all flows are equal, 1/n when
//!   one flow takes everything.

use serde::Serialize;

/// `T_i` for every flow; all zeros when no flow moved any data.
pub fn normalized(x: &[f64]) -> Vec<f64> {
    let mean = x.iter().sum::<f64>() / x.len().max(1) as f64;
    if mean > 0.0 {
        x.iter().map(|v| v / mean).collect()
    } else {
        vec![0.0; x.len()]
    }
}

/// The tcp-pr paper's coefficient of variation of normalized throughputs `t`.
pub fn coefficient_of_variation(t: &[f64]) -> f64 {
    let sum: f64 = t.iter().sum();
    if t.is_empty() || sum <= 0.0 {
        return 0.0;
    }
    let mean = sum / t.len() as f64;
    t.iter().map(|v| (v - mean).powi(2)).sum::<f64>().sqrt() / sum
}

/// Jain's fairness index of throughputs `x` (1 for an empty or idle set).
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    if squares <= 0.0 {
        return 1.0;
    }
    sum * sum / (x.len() as f64 * squares)
}

/// Fairness of a set of flows, grouped by protocol.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fairness {
    pub flows: usize,
    pub jain_index: f64,
    /// One entry per protocol (sender variant), in order of first flow.
    pub groups: Vec<FairnessGroup>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FairnessGroup {
    pub variant: String,
    pub flows: usize,
    pub mean_normalized_throughput: f64,
    pub cov: f64,
}

impl Fairness {
    /// From (protocol, throughput) per flow; `None` with fewer than 2 flows.
    pub fn of(flows: &[(&str, f64)]) -> Option<Fairness> {
        if flows.len() < 2 {
            return None;
        }
        let x: Vec<f64> = flows.iter().map(|f| f.1).collect();
        let t = normalized(&x);
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in flows {
            if !names.contains(name) {
                names.push(name);
            }
        }
        let groups = names
            .into_iter()
            .map(|name| {
                let ti: Vec<f64> = flows
                    .iter()
                    .zip(&t)
                    .filter(|(f, _)| f.0 == name)
                    .map(|(_, &v)| v)
                    .collect();
                FairnessGroup {
                    variant: name.to_string(),
                    flows: ti.len(),
                    mean_normalized_throughput: ti.iter().sum::<f64>() / ti.len() as f64,
                    cov: coefficient_of_variation(&ti),
                }
            })
            .collect();
        Some(Fairness {
            flows: flows.len(),
            jain_index: jain_index(&x),
            groups,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_throughput_divides_by_the_mean() {
        assert_eq!(normalized(&[1.0, 3.0]), vec![0.5, 1.5]);
        assert_eq!(normalized(&[0.0, 0.0]), vec![0.0, 0.0]);
    }

    #[test]
    fn cov_is_the_papers_root_of_squares_over_the_sum() {
        // T = 0.5, 1.5: mean 1, squares 0.25 + 0.25, root 0.7071, sum 2.
        let c = coefficient_of_variation(&[0.5, 1.5]);
        assert!((c - 0.5_f64.sqrt() / 2.0).abs() < 1e-12, "{c}");
        assert_eq!(coefficient_of_variation(&[1.0, 1.0, 1.0]), 0.0);
    }

    #[test]
    fn jain_index_bounds() {
        assert!((jain_index(&[2.0, 2.0, 2.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // (1 + 3)^2 / (2 * (1 + 9)) = 0.8
        assert!((jain_index(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn groups_by_protocol() {
        let f = Fairness::of(&[
            ("TCP-PR", 1.0),
            ("SACK", 3.0),
            ("TCP-PR", 1.0),
            ("SACK", 3.0),
        ])
        .unwrap();
        assert_eq!(f.flows, 4);
        assert_eq!(f.groups[0].variant, "TCP-PR");
        assert!((f.groups[0].mean_normalized_throughput - 0.5).abs() < 1e-12);
        assert!((f.groups[1].mean_normalized_throughput - 1.5).abs() < 1e-12);
        assert_eq!(f.groups[1].cov, 0.0);
        assert!(Fairness::of(&[("SACK", 1.0)]).is_none());
    }
}
