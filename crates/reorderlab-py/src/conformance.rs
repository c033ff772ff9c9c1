//! `reorderlab._core.Harness`: one simulated connection driven a segment at
//! a time (`reorderlab::conformance`), for the conformance scripts'
//! simulator backend (`python/reorderlab/conformance/sim.py`).
//!
//! Times are nanoseconds, sequence numbers the simulator's segment numbers.
//! A scenario error is a `ValueError` naming the field; a panic of the core
//! a `RuntimeError` (the interpreter never aborts).

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use reorderlab::conformance::{self, From, Sent};
use reorderlab::net::packet::PacketKind;

/// One segment the local end sent: (time ns, "sender" | "receiver",
/// "data" | "ack" | "syn" | "synack", seq, copy, ts, SACK blocks).
type SentTuple = (
    u64,
    &'static str,
    &'static str,
    u32,
    u16,
    u64,
    Vec<(u32, u32)>,
);

fn sent_tuple(s: Sent) -> SentTuple {
    let from = match s.from {
        From::Sender => "sender",
        From::Receiver => "receiver",
    };
    let kind = match s.kind {
        PacketKind::Data => "data",
        PacketKind::Ack => "ack",
        PacketKind::Syn => "syn",
        PacketKind::SynAck => "synack",
    };
    (s.at, from, kind, s.seq, s.copy, s.ts, s.sack)
}

fn guard<T>(what: &str, body: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(body)).map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic payload".to_string());
        PyRuntimeError::new_err(format!("reorderlab core panicked in Harness.{what}: {msg}"))
    })
}

/// The local end of one simulated connection (its sender and receiver).
#[pyclass(unsendable, module = "reorderlab._core")]
pub struct Harness {
    inner: conformance::Harness,
}

#[pymethods]
impl Harness {
    /// From a scenario (JSON) whose first flow is the connection, and
    /// whether the connection uses timestamps.
    #[new]
    #[pyo3(signature = (scenario_json, timestamps = true))]
    fn new(scenario_json: &str, timestamps: bool) -> PyResult<Harness> {
        match guard("new", || {
            conformance::Harness::from_json(scenario_json, timestamps)
        })? {
            Ok(inner) => Ok(Harness { inner }),
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    }

    fn now(&self) -> u64 {
        self.inner.now()
    }

    fn next_deadline(&self) -> Option<u64> {
        self.inner.next_deadline()
    }

    /// Move the clock to `to` ns, firing the timers due by then.
    fn advance(&mut self, to: u64) -> PyResult<()> {
        guard("advance", || self.inner.advance(to))?
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    fn open(&mut self) -> PyResult<()> {
        guard("open", || self.inner.open())
    }

    fn handshake_done(&mut self) -> PyResult<()> {
        guard("handshake_done", || self.inner.handshake_done())
    }

    /// An ACK from the peer (segment numbers; TSecr in ns, 0 for none).
    fn ack(&mut self, ack: u32, sack: Vec<(u32, u32)>, tsecr: u64) -> PyResult<()> {
        guard("ack", || self.inner.ack(ack, &sack, tsecr))
    }

    /// A data segment from the peer.
    fn data(&mut self, seq: u32, tsval: u64) -> PyResult<()> {
        guard("data", || self.inner.data(seq, tsval))
    }

    fn write(&mut self, segments: u64) -> PyResult<()> {
        guard("write", || self.inner.write(segments))
    }

    /// What the local end sent since the last call.
    fn take_sent(&mut self) -> Vec<SentTuple> {
        self.inner.take_sent().into_iter().map(sent_tuple).collect()
    }

    /// The sender's `struct tcp_info` fields, by name without `tcpi_`.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let i = self.inner.info();
        let d = PyDict::new(py);
        d.set_item("ca_state", i.ca_state)?;
        d.set_item("snd_cwnd", i.snd_cwnd)?;
        d.set_item("snd_ssthresh", i.snd_ssthresh)?;
        d.set_item("retrans", i.retrans)?;
        d.set_item("lost", i.lost)?;
        d.set_item("sacked", i.sacked)?;
        d.set_item("reordering", i.reordering)?;
        d.set_item("rto", i.rto)?;
        d.set_item("unacked", i.unacked)?;
        d.set_item("total_retrans", i.total_retrans)?;
        Ok(d)
    }
}
