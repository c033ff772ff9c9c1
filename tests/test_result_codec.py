"""The store's encoding of big results (``reorderlab.store.codec``): every
value reads back as the same JSON value, keys in the same order, numbers of
the same types, and by column as the same columns a list of dicts gives."""

from __future__ import annotations

import json
import math
import zlib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reorderlab.store import codec as rc


def same(a: Any, b: Any) -> bool:
    """The same JSON value, keys in the same order, ints and floats apart
    (``json.dumps`` writes ``1`` and ``1.0``, ``0.0`` and ``-0.0``)."""
    return json.dumps(a) == json.dumps(b)


def web_result(n: int = 300) -> dict[str, Any]:
    """A result shaped as a page generator's: per-object records (times in
    whole nanoseconds, a null OCT, small counters), series, traces."""
    rng = np.random.default_rng(5)
    starts = np.cumsum(rng.integers(1, 10**8, n)) / 1e9
    objects = [
        {
            "start": float(starts[i]),
            "segments": int(rng.integers(1, 40)),
            "oct": None if i % 37 == 5 else float(rng.integers(10**6, 10**9)) / 1e9,
            "retransmits": int(rng.integers(0, 3)),
            "page": i // 12,
            "connection": i % 6,
        }
        for i in range(n)
    ]
    return {
        "scenario": "web",
        "seed": 2**64 - 1,
        "flows": [],
        "traffic": [{"name": "web", "objects": n, "oct_mean": 0.25, "object_list": objects}],
        "series": {"0": {"t": [0.1 * k for k in range(50)], "cwnd": [2.0 * k for k in range(50)]}},
        "traces": {"0": {"send_t": [100.0002368 + 8e-7 * k for k in range(40)]}},
        "links": [{"link": "R1->R2", "arrivals": 10}],
    }


def test_a_result_reads_back_as_the_same_value_and_smaller() -> None:
    data = web_result()
    blob = rc.encode(data)
    assert blob is not None and rc.is_encoded(blob)
    assert same(rc.decode(blob), data)
    text = json.dumps(data).encode()
    assert len(blob) < len(zlib.compress(text, 1)) / 2


def without_numpy(value: Any, monkeypatch: pytest.MonkeyPatch) -> bytes | None:
    """``value`` encoded as a process without numpy does (the standard
    library's arrays)."""
    with monkeypatch.context() as m:
        m.setattr(rc, "_numpy", lambda: None)
        return rc.encode(value)


def test_encoded_with_or_without_numpy_to_the_same_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    data = web_result()
    assert rc._numpy() is np
    assert rc.encode(data) == without_numpy(data, monkeypatch)


def test_by_column_as_records_of_the_list_of_dicts() -> None:
    data = web_result()
    objects = data["traffic"][0]["object_list"]
    recs = rc.decode(rc.encode(data), columns=True)["traffic"][0]["object_list"]  # type: ignore[arg-type]
    plain = rc.records(objects)
    assert isinstance(recs, rc.Records) and recs.n == plain.n == len(objects)
    assert recs.keys() == plain.keys() == list(objects[0])
    for key in recs:
        a, b = recs[key], plain[key]
        assert a.dtype == b.dtype, key
        np.testing.assert_array_equal(a, b)  # (NaN where null, in both)
    assert np.isnan(recs["oct"][5]) and recs["page"].dtype == np.int64
    assert same(recs.rows(), objects)


@pytest.mark.parametrize(
    "values",
    [
        [0.0, -0.0] * 10,  # a negative zero keeps its sign
        [1e300, -2.5, 3.0] * 6,  # beyond 2^53, not whole
        [2**63 - 1, -(2**63)] * 8,  # the int64 extremes
        [2**64 - 1] * 16,  # beyond int64: kept as JSON
        [True, False] * 8,  # booleans are not integers
        [1, 2.0] * 8,  # integers and floats mixed
        [None] * 16,
        [1, None] * 8,
        [0.1 * k for k in range(20)],  # not whole nanoseconds
        [float(k) for k in range(20, 0, -1)],  # whole, decreasing
        [2.0**62 + 2.0**12 * k for k in range(20)],  # increasing, beyond +-2^62
        [-(2.0**63)] + [0.5] * 20,  # the int64 minimum, as a float
        [0.5, 2.0**63] * 10,  # beyond int64, as floats
        [-(2**63), 0] * 10,  # the int64 minimum
        [1e-9 * k + 1e9 for k in range(20)],  # seconds whose nanoseconds pass 2^53
        ["a", "b"] * 8,
        [[1, 2]] * 16,
        [{"a": 1}] * 10 + [{"b": 1}] * 10,  # different keys: not a table
        [{"a": 1, "b": 2}] * 10 + [{"b": 2, "a": 1}] * 10,  # different order
        [{"a": {"x": [1.5] * 20}, "b": None}] * 20,  # nested
        [{}] * 20,
        [],
    ],
)
def test_edge_values_read_back_the_same(values: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    data = {"x": values, "y": {"z": values}}
    blob = rc.encode(data)
    assert blob is not None
    assert same(rc.decode(blob), data)
    assert without_numpy(data, monkeypatch) == blob


def test_a_value_with_the_marker_key_is_not_encoded() -> None:
    assert rc.encode({"a": [{"\x00": 1}] * 20}) is None
    assert rc.encode({"\x00": ["a", "i", 1, 0, ""]}) is None
    assert rc.encode({"a": -(2**63) - 1}) is None  # (no JSON parsed by orjson has it)


def test_a_damaged_blob_is_a_value_error() -> None:
    blob = rc.encode(web_result())
    assert blob is not None
    with pytest.raises(ValueError, match="damaged"):
        rc.decode(blob[:-20])
    with pytest.raises(ValueError, match="not an encoded result"):
        rc.decode(zlib.compress(b"{}"))
    # the arrays' bytes cut short inside a valid zlib stream
    payload = zlib.decompress(blob[len(rc.MAGIC) :])
    with pytest.raises(ValueError, match="damaged"):
        rc.decode(rc.MAGIC + zlib.compress(payload[:-100]))


# -- any JSON value -----------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),  # (what orjson parses)
    finite,
    st.integers(min_value=0, max_value=10**12).map(lambda ns: ns / 1e9),  # times
    st.integers(min_value=-(2**53), max_value=2**53).map(float),  # whole floats
    st.text(max_size=5),
)
numbers = st.one_of(
    st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), min_size=16),
    st.lists(st.one_of(st.none(), finite), min_size=16),
    st.lists(st.integers(0, 10**12).map(lambda ns: ns / 1e9), min_size=16),
    st.lists(st.integers(-5, 5), min_size=16).map(sorted),
)


def tables(children: st.SearchStrategy[Any]) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Lists of at least 16 dicts with the same keys (a table), sometimes not."""
    keys = st.lists(st.text(max_size=3), min_size=1, max_size=4, unique=True)
    return keys.flatmap(
        lambda ks: st.lists(
            st.fixed_dictionaries({k: st.one_of(scalars, children) for k in ks}),
            min_size=16,
            max_size=20,
        )
    )


values = st.recursive(
    st.one_of(scalars, numbers),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=4), children, max_size=4),
        tables(children),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_any_json_value_reads_back_the_same(value: Any) -> None:
    data = {"result": value}
    blob = rc.encode(data)
    if blob is None:  # (a generated key may be the marker)
        assert "\\u0000" in json.dumps(data)
        return
    plain = rc.decode(blob)
    assert same(plain, data)
    _same_columns(rc.decode(blob, columns=True), plain)
    with pytest.MonkeyPatch.context() as m:  # (a fixture would not be reset per example)
        m.setattr(rc, "_numpy", lambda: None)
        assert rc.encode(data) == blob


def _same_columns(by_column: Any, plain: Any) -> None:
    """Each table read by column is what :func:`rc.records` makes of it."""
    if isinstance(by_column, rc.Records):
        expected = rc.records(plain)
        assert by_column.n == expected.n and by_column.keys() == expected.keys()
        for key in expected:
            a, b = by_column[key], expected[key]
            if isinstance(b, np.ndarray):
                assert isinstance(a, np.ndarray) and a.dtype == b.dtype
                np.testing.assert_array_equal(a, b)
            else:
                _same_columns(a, b)
    elif isinstance(by_column, dict):
        assert by_column.keys() == plain.keys()
        for k in plain:
            _same_columns(by_column[k], plain[k])
    elif isinstance(by_column, list):
        assert len(by_column) == len(plain)
        for a, b in zip(by_column, plain, strict=True):
            _same_columns(a, b)
    else:
        assert same(by_column, plain)


def test_records_of_integers_with_nulls_are_floats_with_nan() -> None:
    recs = rc.records([{"a": i if i % 2 else None, "b": True} for i in range(4)])
    assert recs["a"].dtype == np.float64 and math.isnan(recs["a"][0]) and recs["a"][1] == 1.0
    assert recs["b"] == [True] * 4
    assert rc.records([]).n == 0


@pytest.mark.parametrize("fast", [True, False])
def test_inflate_is_zlib_decompress_and_damage_is_a_zlib_error(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's reads inflate by zlib-ng when it is installed (it is a
    dependency), else by zlib: the same bytes, and the same error."""
    if fast:
        assert rc._fast_zlib is not None, "zlib-ng is a dependency"
    else:
        monkeypatch.setattr(rc, "_fast_zlib", None)
    data = bytes(range(256)) * 500 + b"tail"
    for level in (1, 6, 9):
        assert rc.inflate(zlib.compress(data, level)) == data
    with pytest.raises(zlib.error):
        rc.inflate(b"not a zlib stream")
    with pytest.raises(zlib.error):
        rc.inflate(zlib.compress(data)[:-9])  # truncated
