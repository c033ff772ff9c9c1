"""Big results packed by the core (``_core.run_packed``): a sweep's worker
returns a big result as the store keeps it, its summary and its encoded
form, made from the core's typed records. Each must be what the Python
side makes of the result's text: ``store.codec.decode(blob)`` the value
``orjson.loads(text)`` gives (keys in the same order, ``1`` and ``1.0``,
``0.0`` and ``-0.0`` told apart), by column the same columns, the summary
``store.summary_of``'s value; and a sweep stores the same runs either way."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pytest

import reorderlab
from reorderlab import _core
from reorderlab import store as store_mod
from reorderlab.scenario import Scenario
from reorderlab.store import COMPRESS_FROM, Store, summary_of, wait_for_background_closes
from reorderlab.store import codec as rc

from .conftest import ROOT
from .test_result_codec import _same_columns, same
from .test_store_journal import run_child
from .test_sweep import comparable

#: Web traffic on a lossy dumbbell: an ``http`` generator (one connection
#: per object, Pareto sizes: objects still open at the end have a null
#: OCT) and a ``page`` one, every object recorded; series and a trace of
#: the bulk flow.
WEB: dict[str, Any] = {
    "name": "packed-web",
    "duration": 20.0,
    "warmup": 2.0,
    "topology": {
        "kind": "dumbbell",
        "pairs": 1,
        "bottleneck_rate": 1e7,
        "bottleneck_delay": 0.01,
        "queue": {"kind": "droptail", "limit_packets": 30},
    },
    "impairments": [{"link": "R1->R2", "kind": "loss", "p": 0.03}],
    "flows": [{"src": "S0", "dst": "D0", "variant": "SACK"}],
    "traffic": [
        {
            "server": "R1",
            "client": "R2",
            "sessions": 10,
            "object_size": {"dist": "pareto", "scale": 6000.0, "shape": 1.2},
        },
        {"kind": "page", "server": "R1", "client": "R2", "sessions": 3},
    ],
    "record": {
        "objects": True,
        "series": ["cwnd", "srtt", "ssthresh", "rto"],
        "interval": 0.05,
        "trace_window": [1.0, 3.0],
    },
}


def variant(**changes: Any) -> dict[str, Any]:
    """:data:`WEB` with top-level fields changed (None: removed)."""
    data = json.loads(json.dumps(WEB))
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


CASES = {
    "web": WEB,
    "no-loss": variant(impairments=[]),
    "objects-only": variant(record={"objects": True}),
    "series-only": variant(record={"series": ["cwnd", "srtt"], "interval": 0.01}),
    "trace-only": variant(record={"trace_window": [0.5, 4.0]}),
    "page-only": variant(traffic=[WEB["traffic"][1]], flows=[]),
    "short": variant(duration=3.0),  # few objects, many still open at the end
}


def packed(case: dict[str, Any], seed: int, compress_from: int = COMPRESS_FROM) -> Any:
    return _core.run_packed(json.dumps(case), seed, compress_from)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", list(CASES))
def test_packed_is_the_texts_value_summary_and_columns(name: str, seed: int) -> None:
    case = CASES[name]
    text = _core.run(json.dumps(case), seed)
    value = orjson.loads(text)
    out = packed(case, seed)
    assert isinstance(out, tuple), "a big result with bulky parts comes back packed"
    summary, blob = out
    assert rc.is_encoded(blob)
    assert same(rc.decode(blob), value)
    assert same(orjson.loads(summary), orjson.loads(summary_of(value)))
    assert list(orjson.loads(summary))[-1] == "compressed"
    # by column: the tables and arrays the Python encoder makes of the text
    python_blob = rc.encode(value)
    assert python_blob is not None
    _same_columns(rc.decode(blob, columns=True), rc.decode(python_blob))
    _same_structure(rc.decode(blob, columns=True), rc.decode(python_blob, columns=True))


def _same_structure(a: Any, b: Any) -> None:
    """Tables where the Python encoder has tables (a reader of columns
    sees them), with columns of the same types."""
    assert type(a) is type(b)
    if isinstance(a, rc.Records):
        assert a.n == b.n and a.keys() == b.keys()
        for key in a:
            if isinstance(a[key], np.ndarray):
                assert a[key].dtype == b[key].dtype
            else:
                _same_structure(a[key], b[key])
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same_structure(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same_structure(x, y)


def test_the_threshold_is_the_texts_length() -> None:
    """Encoded from ``compress_from`` characters of text (a non-ASCII name
    counts as one character, as Python's ``len`` counts it); below, the
    text; without bulky parts, the text however long."""
    case = variant(name="packed-é", duration=3.0, record={"objects": True})
    text = _core.run(json.dumps(case), 1)
    assert len(text) < len(text.encode()) and len(text) > 8
    assert packed(case, 1, len(text) + 1) == text
    at = packed(case, 1, len(text))
    assert isinstance(at, tuple) and same(rc.decode(at[1]), orjson.loads(text))
    plain = variant(record={})
    plain_text = _core.run(json.dumps(plain), 1)
    assert len(plain_text) >= 1000
    assert packed(plain, 1, 1000) == plain_text


def test_the_core_and_the_codec_agree_on_constants() -> None:
    assert _core.CODEC_MAGIC == rc.MAGIC
    assert _core.CODEC_MIN_ARRAY == rc.MIN_ARRAY


def grid() -> list[tuple[dict[str, Any], Scenario]]:
    cases = ("web", "objects-only", "series-only", "short")
    return [({"case": name}, Scenario.from_dict(CASES[name])) for name in cases]


def fingerprint(path: Path) -> list[str]:
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import fingerprint as fp
    finally:
        sys.path.pop(0)
    lines: list[str] = fp.store_lines(str(path))
    return lines


@pytest.mark.parametrize("backend", ["local", "serial"])
def test_a_sweep_stores_what_the_text_path_stores(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep into a store has its workers pack big results (the driver
    encodes none); with an ``on_run``, which needs the text, they return
    texts and the driver encodes them: the same table, the same
    fingerprints, the same values read back, by column too."""
    encoded: list[int] = []
    real = rc.encode

    def counting(value: Any) -> bytes | None:
        encoded.append(1)
        return real(value)

    monkeypatch.setattr(rc, "encode", counting)
    packed_path, text_path = tmp_path / "packed.duckdb", tmp_path / "text.duckdb"
    kw: dict[str, Any] = {"seeds": 2, "backend": backend, "workers": 2, "progress": False}
    df = reorderlab.sweep(grid(), store=packed_path, **kw)
    assert encoded == []
    texts: list[str] = []
    old = reorderlab.sweep(grid(), store=text_path, on_run=lambda job, t: texts.append(t), **kw)
    assert len(encoded) == len(texts) == 8
    pd.testing.assert_frame_equal(comparable(df), comparable(old))
    wait_for_background_closes()
    assert fingerprint(packed_path) == fingerprint(text_path)
    with Store(packed_path, read_only=True) as a, Store(text_path, read_only=True) as b:
        keys = list(df["key"])
        values, expected = a.get_values(keys), b.get_values(keys)
        for key in keys:
            assert same(values[key][0], expected[key][0])
            assert same(a.get_results([key])[key][0], b.get_results([key])[key][0])
            assert same(
                orjson.loads(a.get_results([key], summaries=True)[key][0]),
                orjson.loads(b.get_results([key], summaries=True)[key][0]),
            )
        by_column = a.get_values(keys, columns=True)
        for key in keys:
            _same_columns(by_column[key][0], expected[key][0])
    # cached: the table of the stored runs (read from their summaries)
    again = reorderlab.sweep(grid(), store=packed_path, **kw)
    assert again.attrs["cached"] == 8
    pd.testing.assert_frame_equal(comparable(again), comparable(df))


def test_packed_runs_in_a_killed_drivers_journal_are_replayed(tmp_path: Path) -> None:
    """The journal holds a packed run as it is stored: replayed after a
    ``kill -9``, it reads back as the core's result."""
    path = tmp_path / "killed.duckdb"
    proc = run_child(
        f"""
        import os, signal
        from reorderlab.sweep import jobs_for, simulate_jobs
        from tests.test_packed import grid

        def stop(keys):
            if keys:
                os.kill(os.getpid(), signal.SIGKILL)

        simulate_jobs(jobs_for(grid(), seeds=1), {str(path)!r}, workers=1, on_stored=stop)
        """
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    rows, ignored = store_mod.read_journal(store_mod.journal_path(path))
    assert rows and ignored == 0
    assert all(r[8] is not None for r in rows), "packed runs, encoded"
    jobs = {job.key: job for job in reorderlab.sweep.jobs_for(grid(), seeds=1)}
    with Store(path) as st:  # replays the journal
        values = st.get_values([r[0] for r in rows])
        assert st.pending() == 0 and len(values) == len(rows)
    assert not store_mod.journal_path(path).exists()
    for key, (value, _wall) in values.items():
        job = jobs[key]
        assert same(value, orjson.loads(_core.run(job.core_json(), job.seed)))
    assert path.exists()
