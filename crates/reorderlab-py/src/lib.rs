//! Python bindings of the reorderlab core (`reorderlab._core`).
//!
//! Deliberately tiny: every function passes JSON text across the boundary,
//! so the schema lives in one place, `reorderlab::spec`, exported as JSON
//! Schema (`scenario_schema`) for the Python front's generated models.
//!
//! * One call into Rust per simulation run, with the GIL released
//!   ([`Python::detach`]) so that threads (e.g. a Dask worker) can run
//!   several simulations at once.
//! * A scenario error ([`reorderlab::spec::SpecError`], `"<field>: <message>"`)
//!   becomes a Python `ValueError` with that text.
//! * A panic inside the core is caught and becomes a Python `RuntimeError`
//!   that names the scenario; the interpreter never aborts.

mod conformance;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use reorderlab::result_codec::{Packed, MAGIC, MIN_ARRAY};

/// Outcome of one guarded call into the core.
enum Outcome<T = String> {
    Ok(T),
    Spec(String),
    Panic(String),
    /// Stopped by a signal (its Python exception is kept aside).
    Interrupted,
}

thread_local! {
    /// Where the last panic on this thread happened (`file:line:col`).
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Replace the default panic hook (which prints to stderr) of this extension
/// by one that remembers the location: the panic is reported once, as the
/// Python exception. (`std` is linked into this cdylib alone, so the hook does
/// not affect other Rust code in the process.)
fn install_panic_hook() {
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            PANIC_LOCATION.with(|cell| *cell.borrow_mut() = location);
        }));
    });
}

/// Text of a panic payload (`&str` or `String`; anything else is opaque),
/// with the location recorded by the hook.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    };
    match PANIC_LOCATION.with(|cell| cell.borrow_mut().take()) {
        Some(location) => format!("{message} (at {location})"),
        None => message,
    }
}

/// The scenario's `name` field, read without a full parse (for messages only).
fn scenario_name(scenario_json: &str) -> String {
    #[derive(serde::Deserialize)]
    struct NameOnly {
        #[serde(default)]
        name: Option<String>,
    }
    match serde_json::from_str::<NameOnly>(scenario_json) {
        Ok(NameOnly { name: Some(n) }) => n,
        _ => "<unnamed>".to_string(),
    }
}

/// Is this the interpreter's main thread (the one Python runs signal
/// handlers on)?
fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?.getattr("ident")?;
    let current = threading.call_method0("get_ident")?;
    main.eq(current)
}

/// Run one simulation. Returns the result JSON.
///
/// Raises `ValueError("<field>: <message>")` for an invalid scenario and
/// `RuntimeError` naming the scenario if the core panics. On the main
/// thread, the run looks for a signal (Ctrl-C) every few thousand events
/// (`sim::event_loop::CHECK_EVERY`): a pending one stops it at once and
/// its exception (`KeyboardInterrupt`) is raised; nothing of the run is kept.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None))]
fn run(py: Python<'_>, scenario_json: &str, seed: Option<u64>) -> PyResult<String> {
    guarded_run(py, scenario_json, seed, |text, stop| {
        reorderlab::run_json_interruptible(text, seed, stop)
    })
}

/// Run one simulation (as `run`) and return its result as the results
/// store keeps it (`reorderlab::result_codec`): the result JSON, or for a
/// result of `compress_from` characters or more with bulky parts (series,
/// traces, per-object records) the pair (summary JSON, encoded result),
/// `store.summary_of` and `result_codec.encode` of the result JSON.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed, compress_from))]
fn run_packed(
    py: Python<'_>,
    scenario_json: &str,
    seed: Option<u64>,
    compress_from: usize,
) -> PyResult<Py<PyAny>> {
    let packed = guarded_run(py, scenario_json, seed, |text, stop| {
        reorderlab::run_packed_interruptible(text, seed, compress_from, stop)
    })?;
    Ok(match packed {
        Packed::Text(text) => text.into_pyobject(py)?.into_any().unbind(),
        Packed::Encoded { summary, blob } => (summary, PyBytes::new(py, &blob))
            .into_pyobject(py)?
            .into_any()
            .unbind(),
    })
}

/// One run in the core (`body`, given the scenario text and the stop
/// request), the GIL released; see `run` for signals and errors.
fn guarded_run<T: Send>(
    py: Python<'_>,
    scenario_json: &str,
    seed: Option<u64>,
    body: impl FnOnce(&str, &mut dyn FnMut() -> bool) -> Result<T, reorderlab::RunError> + Send,
) -> PyResult<T> {
    let text = scenario_json.to_owned();
    let main = on_main_thread(py)?;
    let mut signal: Option<PyErr> = None;
    let outcome = py.detach(|| {
        // Python runs signal handlers on the main thread only: elsewhere
        // there is nothing to look for (and the GIL is not taken).
        let mut stop = || {
            main && Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(e) => {
                    signal = Some(e);
                    true
                }
            })
        };
        match catch_unwind(AssertUnwindSafe(|| body(&text, &mut stop))) {
            Ok(Ok(out)) => Outcome::Ok(out),
            Ok(Err(reorderlab::RunError::Spec(e))) => Outcome::Spec(e.to_string()),
            Ok(Err(reorderlab::RunError::Interrupted)) => Outcome::Interrupted,
            Err(payload) => Outcome::Panic(panic_message(payload.as_ref())),
        }
    });
    match outcome {
        Outcome::Ok(out) => Ok(out),
        Outcome::Spec(msg) => Err(PyValueError::new_err(msg)),
        Outcome::Interrupted => Err(signal.expect("a signal stopped the run")),
        Outcome::Panic(msg) => Err(PyRuntimeError::new_err(format!(
            "reorderlab core panicked while running scenario '{}' (seed {}): {}",
            scenario_name(scenario_json),
            seed.map_or_else(|| "from scenario".to_string(), |s| s.to_string()),
            msg
        ))),
    }
}

/// Run one simulation and write its `record.pcap` captures into `dir`.
/// Returns (result JSON, JSON list of the capture files).
///
/// Raises `ValueError` for an invalid scenario, `OSError` naming the file
/// for a capture that cannot be written, `RuntimeError` if the core panics.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed, dir))]
fn run_capture(
    py: Python<'_>,
    scenario_json: &str,
    seed: Option<u64>,
    dir: std::path::PathBuf,
) -> PyResult<(String, String)> {
    let text = scenario_json.to_owned();
    let outcome = py.detach(move || {
        catch_unwind(AssertUnwindSafe(|| {
            reorderlab::run_json_with_capture(&text, seed, &dir)
        }))
    });
    match outcome {
        Ok(Ok(pair)) => Ok(pair),
        Ok(Err(reorderlab::CaptureRunError::Spec(e))) => Err(PyValueError::new_err(e.to_string())),
        Ok(Err(reorderlab::CaptureRunError::Io(e))) => Err(PyOSError::new_err(e.to_string())),
        Err(payload) => Err(PyRuntimeError::new_err(format!(
            "reorderlab core panicked while running scenario '{}' with captures: {}",
            scenario_name(scenario_json),
            panic_message(payload.as_ref())
        ))),
    }
}

/// Parse and validate a scenario (JSON) without running it: the core's
/// checks, the one place the cross-field rules and the limits are written.
///
/// Returns None; raises `ValueError("<field>: <message>")` for an invalid
/// scenario. Cheap (tens of microseconds): the GIL is kept.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<()> {
    match catch_unwind(AssertUnwindSafe(|| {
        reorderlab::validate_json(scenario_json)
    })) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(PyValueError::new_err(e.to_string())),
        Err(payload) => Err(PyRuntimeError::new_err(format!(
            "reorderlab core panicked while validating scenario '{}': {}",
            scenario_name(scenario_json),
            panic_message(payload.as_ref())
        ))),
    }
}

/// The path of each of a scenario's flows as the simulator routes it
/// (JSON: per flow its links there and back, with rate, delay and queue
/// limits, and the sender's resolved segment size and window), for the
/// warnings of `reorderlab check`. Nothing is simulated.
///
/// Raises `ValueError("<field>: <message>")` for an invalid scenario.
#[pyfunction]
fn flow_paths(scenario_json: &str) -> PyResult<String> {
    match catch_unwind(AssertUnwindSafe(|| {
        reorderlab::sim::paths::flow_paths_json(scenario_json)
    })) {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(e)) => Err(PyValueError::new_err(e.to_string())),
        Err(payload) => Err(PyRuntimeError::new_err(format!(
            "reorderlab core panicked while routing scenario '{}': {}",
            scenario_name(scenario_json),
            panic_message(payload.as_ref())
        ))),
    }
}

/// The scenario's JSON Schema: every field's type, default, range and
/// one-line doc, from its one declaration in `reorderlab::spec` (the
/// Python models and the docs' field tables are generated from it:
/// `python -m reorderlab._schema_gen`).
#[pyfunction]
fn scenario_schema() -> String {
    reorderlab::spec::schema::scenario_schema_json()
}

/// Version of the simulation engine (part of every cache key).
#[pyfunction]
fn engine_version() -> String {
    reorderlab::engine_version()
}

/// How this core was compiled: "profile-guided", "instrumented" (the
/// training build of scripts/build-core.sh) or "plain" (build.rs).
#[pyfunction]
fn build_kind() -> &'static str {
    env!("REORDERLAB_BUILD_KIND")
}

/// JSON list of the registered sender variants: `{"name","description","source"}`.
#[pyfunction]
fn variants() -> String {
    reorderlab::variants_json()
}

/// The registry's spelling of a sender variant's name or alias
/// (case-insensitive), `None` for an unknown name: the one canonical name
/// (`reorderlab::tcp::variants::canonical_name`, then the QUIC variants of
/// `reorderlab::quic::variants`, then the UET ones of `reorderlab::uet::config`).
#[pyfunction]
fn canonical_variant(name: &str) -> Option<&'static str> {
    reorderlab::tcp::variants::canonical_name(name)
        .or_else(|| reorderlab::quic::variants::find(name).map(|v| v.name))
        .or_else(|| reorderlab::uet::config::find(name).map(|v| v.name))
}

/// JSON list of the registered congestion controls: `{"name","description","source"}`.
#[pyfunction]
fn congestion_controls() -> String {
    reorderlab::congestion_controls_json()
}

/// JSON list of the impairment kinds: `{"kind","description","params"}`.
#[pyfunction]
fn impairments() -> String {
    reorderlab::impairments_json()
}

/// Names of the reference benchmarks.
#[pyfunction]
fn bench_names() -> Vec<String> {
    reorderlab::bench_names()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// Run one reference benchmark (GIL released). Returns its JSON report.
#[pyfunction]
#[pyo3(name = "bench")]
fn run_bench(py: Python<'_>, name: &str) -> PyResult<String> {
    let owned = name.to_owned();
    detached(py, &format!("in benchmark '{name}'"), move || {
        reorderlab::bench_json(&owned)
    })
}

/// Run a scenario (JSON) once, timing each phase (GIL released): build,
/// run, result, JSON. Returns the report as JSON.
#[pyfunction]
fn time_scenario(py: Python<'_>, scenario_json: &str, seed: Option<u64>) -> PyResult<String> {
    let text = scenario_json.to_owned();
    detached(py, "while timing a scenario", move || {
        reorderlab::bench::time_scenario(&text, seed)
            .and_then(|r| serde_json::to_string(&r).map_err(|e| e.to_string()))
    })
}

/// `body` with the GIL released, a panic caught, for a call no signal
/// stops (a benchmark, a timed run): its result; its error as
/// `ValueError`; a panic as `RuntimeError` saying where (`context`).
fn detached(
    py: Python<'_>,
    context: &str,
    body: impl FnOnce() -> Result<String, String> + Send,
) -> PyResult<String> {
    match py.detach(|| caught(body)) {
        Outcome::Ok(json) => Ok(json),
        Outcome::Spec(msg) => Err(PyValueError::new_err(msg)),
        Outcome::Panic(msg) => Err(PyRuntimeError::new_err(format!(
            "reorderlab core panicked {context}: {msg}"
        ))),
        Outcome::Interrupted => unreachable!("no stop request is passed"),
    }
}

/// `body`'s result, its error (`Spec`) or its panic's message (`Panic`).
fn caught<T>(body: impl FnOnce() -> Result<T, String>) -> Outcome<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(out)) => Outcome::Ok(out),
        Ok(Err(e)) => Outcome::Spec(e),
        Err(payload) => Outcome::Panic(panic_message(payload.as_ref())),
    }
}

/// Check that the emulator can apply a scenario's network (Linux only).
/// Raises `ValueError("<field>: <message>")` if it cannot.
#[cfg(target_os = "linux")]
#[pyfunction]
fn emulation_check(scenario_json: &str) -> PyResult<()> {
    let scenario = reorderlab::Scenario::from_json(scenario_json)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    reorderlab::emu::check(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Run the link emulator (`reorderlab._emu_link`, a process of its own):
/// create the TUN devices, print `ready` on stdout, forward packets until
/// stdin has a byte or closes (or SIGTERM), and return the report JSON.
/// The GIL is released throughout. Raises `RuntimeError` with a one-line
/// message when a device cannot be created or the configuration is bad.
#[cfg(target_os = "linux")]
#[pyfunction]
fn emulate_link(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let text = config_json.to_owned();
    let outcome = py.detach(move || {
        let mut ready = || {
            use std::io::Write;
            let mut out = std::io::stdout();
            let _ = writeln!(out, "ready");
            let _ = out.flush();
        };
        caught(|| reorderlab::emu::run_json(&text, Some(0), &mut ready))
    });
    match outcome {
        Outcome::Ok(json) => Ok(json),
        Outcome::Spec(msg) => Err(PyRuntimeError::new_err(msg)),
        Outcome::Panic(msg) => Err(PyRuntimeError::new_err(format!(
            "reorderlab emulator panicked: {msg}"
        ))),
        // (the emulator stops on stdin or SIGTERM, not through a stop request)
        Outcome::Interrupted => Err(PyRuntimeError::new_err(
            "reorderlab emulator: stopped by a signal",
        )),
    }
}

/// The extension module `reorderlab._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_packed, m)?)?;
    m.add_function(wrap_pyfunction!(run_capture, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(flow_paths, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    m.add_function(wrap_pyfunction!(build_kind, m)?)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_variant, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(impairments, m)?)?;
    m.add_function(wrap_pyfunction!(bench_names, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(time_scenario, m)?)?;
    m.add_class::<conformance::Harness>()?;
    #[cfg(target_os = "linux")]
    {
        m.add_function(wrap_pyfunction!(emulation_check, m)?)?;
        m.add_function(wrap_pyfunction!(emulate_link, m)?)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // the encoding's constants, which `store/codec.py` has too (a test
    // checks they agree)
    m.add("CODEC_MAGIC", PyBytes::new(m.py(), MAGIC))?;
    m.add("CODEC_MIN_ARRAY", MIN_ARRAY)?;
    Ok(())
}
