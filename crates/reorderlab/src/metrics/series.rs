//! Time series sampled at a fixed interval (cwnd, ssthresh, srtt, ...).
//! Samples are taken by a periodic engine event, so recording costs nothing
//! per packet.

use std::collections::BTreeMap;

use crate::engine::Time;

/// Columns of samples for a set of flows.
#[derive(Debug, Clone)]
pub struct SeriesRecorder {
    pub interval: Time,
    pub names: Vec<String>,
    pub flows: Vec<u32>,
    /// times[i] = time of sample i, seconds
    times: Vec<f64>,
    /// columns[flow position][name position]
    columns: Vec<Vec<Vec<f64>>>,
}

impl SeriesRecorder {
    pub fn new(interval: Time, names: Vec<String>, flows: Vec<u32>) -> SeriesRecorder {
        let columns = flows
            .iter()
            .map(|_| vec![Vec::new(); names.len()])
            .collect();
        SeriesRecorder {
            interval,
            names,
            flows,
            times: Vec::new(),
            columns,
        }
    }

    /// Record one sample row; `value(flow, name)` reads the current values.
    pub fn sample(&mut self, t: f64, mut value: impl FnMut(u32, &str) -> f64) {
        self.times.push(t);
        for (fi, &flow) in self.flows.iter().enumerate() {
            for (ni, name) in self.names.iter().enumerate() {
                self.columns[fi][ni].push(value(flow, name));
            }
        }
    }

    /// `{flow: {"t": [...], name: [...]}}`
    pub fn into_map(self) -> BTreeMap<String, BTreeMap<String, Vec<f64>>> {
        let mut out = BTreeMap::new();
        for (fi, flow) in self.flows.iter().enumerate() {
            let mut m = BTreeMap::new();
            m.insert("t".to_string(), self.times.clone());
            for (ni, name) in self.names.iter().enumerate() {
                m.insert(name.clone(), self.columns[fi][ni].clone());
            }
            out.insert(flow.to_string(), m);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_follow_flows_and_names() {
        let mut r = SeriesRecorder::new(10, vec!["cwnd".into(), "rto".into()], vec![0, 2]);
        r.sample(0.0, |f, n| if n == "cwnd" { f as f64 } else { 1.0 });
        r.sample(0.1, |f, n| if n == "cwnd" { f as f64 + 1.0 } else { 1.0 });
        let m = r.into_map();
        assert_eq!(m["2"]["cwnd"], vec![2.0, 3.0]);
        assert_eq!(m["0"]["t"], vec![0.0, 0.1]);
        assert_eq!(m["0"]["rto"], vec![1.0, 1.0]);
    }
}
