"""A run as the store keeps it: its row, its key, and a big result packed.

A row of ``runs`` (and a line of the journal) holds a run's key, scenario
name, seed, engine version, scenario JSON, result JSON, core time and
creation time, then ``result_z``. A result of :data:`COMPRESS_FROM`
characters or more with bulky parts (per-object records, time series,
traces) is kept encoded in ``result_z`` (:mod:`reorderlab.store.codec`;
zlib-compressed JSON text in stores written before layout 5), and
``result_json`` holds its summary (see :func:`pack`).
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from reorderlab.store import codec

__all__ = [
    "COLUMNS",
    "COMPRESS_FROM",
    "Row",
    "StoreRow",
    "StoredRun",
    "is_big",
    "pack",
    "packed",
    "run_key",
    "stored_run",
    "summary_of",
    "unpack",
    "unpack_value",
    "valid_run",
]

#: Results this long (characters) or longer, with bulky parts (series,
#: traces, per-object records), are stored encoded, their summary in
#: ``result_json``. (The tail-loss paper's web runs, 0.3-1.3 MB of text each, were
#: below the 1 MiB of layout 4: 169 MB of the store as plain text.)
COMPRESS_FROM = 8 << 10

#: What a big result's summary leaves out (besides each traffic generator's
#: ``object_list``): the parts that make it big.
_BULKY = ("series", "traces")

#: The columns of ``runs``, in order; also the fields of a journal line.
COLUMNS = (
    "key",
    "scenario_name",
    "seed",
    "engine_version",
    "scenario_json",
    "result_json",
    "wall_s",
    "created_at",
)

#: A run as a row of ``runs``: the values of :data:`COLUMNS`, in order,
#: then ``result_z`` (``result_json`` being the summary when it is set).
Row = tuple[str, str, int, str, str, str, float | None, float, bytes | None]


@dataclass(frozen=True)
class StoreRow:
    """A run to insert."""

    key: str
    scenario_name: str
    seed: int
    engine_version: str
    scenario_json: str
    result_json: str
    wall_s: float | None = None
    #: the result parsed (``orjson.loads(result_json)``), if the caller has
    #: it: a big result is encoded from it rather than parsed again. Not
    #: modified.
    result_value: Any = field(default=None, repr=False, compare=False)
    #: the result already packed as the store keeps a big one (the core's
    #: ``run_packed``, in a sweep's worker): this is its encoded form
    #: (:mod:`reorderlab.store.codec`) and ``result_json`` its summary
    #: (:func:`summary_of`); stored as they are.
    result_z: bytes | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class StoredRun:
    """One row of the store."""

    key: str
    scenario_name: str
    seed: int
    engine_version: str
    scenario_json: str
    result_json: str
    wall_s: float | None
    created_at: float


def run_key(scenario_json: str, seed: int, engine_version: str) -> str:
    """A run's key from its stored scenario (canonical JSON, seed included),
    seed and engine version: :meth:`reorderlab.Scenario.cache_key`."""
    text = f"{scenario_json}\n{seed}\n{engine_version}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def packed(
    head: tuple[str, str, int, str, str],
    text: str,
    value: Any,
    wall_s: float | None,
    created: float,
) -> Row:
    """A run as it is stored (``head``: key, scenario name, seed, engine
    version, scenario JSON), its result ``text`` packed by :func:`pack`
    (``value``: the text parsed, if the caller has it)."""
    result_json, result_z = pack(text, value)
    return (*head, result_json, wall_s, created, result_z)


def pack(text: str, value: Any = None) -> tuple[str, bytes | None]:
    """``(result_json, result_z)`` of a result: itself; or for a big one
    (:func:`is_big`) with bulky parts (series, traces, per-object records)
    its summary (:func:`summary_of`) and the result encoded by
    :mod:`reorderlab.store.codec` (from ``value``, the text parsed, if
    given). A 2.4 MB result of the tail-loss paper's Fig. 3 is stored in 115 KB
    (zlib of its text: 310 KB), and reads back faster than its text parses
    into the same lists of dicts when asked for by column."""
    if len(text) < COMPRESS_FROM:
        return text, None
    if value is None:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = None
    if not isinstance(value, dict):  # not a result: kept as it is, compressed
        return summary_of(value), zlib.compress(text.encode("utf-8"), 1)
    if not _has_bulk(value):
        return text, None
    blob = codec.encode(value)
    if blob is None:  # (a key the encoding reserves): the text, compressed
        blob = zlib.compress(text.encode("utf-8"), 1)
    return summary_of(value), blob


def _has_bulk(data: dict[str, Any]) -> bool:
    """Has the result any of the parts a summary leaves out?"""
    if any(data.get(name) for name in _BULKY):
        return True
    gens = data.get("traffic")
    return isinstance(gens, list) and any(
        isinstance(gen, dict) and gen.get("object_list") for gen in gens
    )


def is_big(text: str) -> bool:
    """Is this result long enough to be stored encoded, with its summary in
    ``result_json`` (if it has bulky parts: see :func:`pack`)?"""
    return len(text) >= COMPRESS_FROM


def summary_of(data: Any) -> str:
    """A big result (parsed) without its bulky parts (``series``,
    ``traces``, each traffic generator's ``object_list``), marked
    ``"compressed": "result_z"``: SQL on the file still finds the run's
    metrics in ``result_json``; ``Store.get`` gives the whole result.
    ``data`` is not modified."""
    if not isinstance(data, dict):
        return '{"compressed":"result_z"}'
    out = {name: value for name, value in data.items() if name not in _BULKY}
    if out.get("traffic"):
        out["traffic"] = [
            {k: v for k, v in gen.items() if k != "object_list"} if isinstance(gen, dict) else gen
            for gen in out["traffic"]
        ]
    out["compressed"] = "result_z"
    return orjson.dumps(out).decode("utf-8")


def unpack(result_json: Any, result_z: Any) -> str:
    """A result's text from its two columns. (An encoded result's text is
    the same JSON value, written by orjson: compact, and its numbers may be
    spelled differently than the core spelled them, e.g. ``1e-07``.)"""
    if result_z is None:
        return str(result_json)
    blob = bytes(result_z)
    if codec.is_encoded(blob):
        return orjson.dumps(codec.decode(blob)).decode("utf-8")
    return codec.inflate(blob).decode("utf-8")


def unpack_value(result_json: Any, result_z: Any, *, columns: bool = False) -> Any:
    """A result, parsed, from its two columns (``columns``: see
    :meth:`Store.get_values`). Raises ``ValueError`` (or ``zlib.error``)
    if they cannot be read."""
    if result_z is None:
        return orjson.loads(str(result_json))
    blob = bytes(result_z)
    if codec.is_encoded(blob):
        return codec.decode(blob, columns=columns)
    return orjson.loads(codec.inflate(blob))


def valid_run(row: tuple[Any, ...]) -> bool:
    """Are this run's scenario and result JSON objects (the result's
    summary too, and its encoded or compressed form, if it has one: row
    value 9)? (A journal line valid as JSON whose result text was cut short
    used to be replayed, and broke every later sweep that read it.)
    ``reorderlab store check`` also checks each key against :func:`run_key`."""
    sjson, rjson = row[4], row[5]
    z = row[8] if len(row) > 8 else None
    try:
        if not (isinstance(orjson.loads(sjson), dict) and isinstance(orjson.loads(rjson), dict)):
            return False
        return z is None or isinstance(unpack_value(rjson, z), dict)
    except (ValueError, UnicodeDecodeError, zlib.error):
        return False


def stored_run(row: tuple[Any, ...]) -> StoredRun:
    """A run from a journal row or a ``runs`` row with ``result_z`` (both
    have it last)."""
    key, name, seed, version, sjson, rjson, wall, created = row[:8]
    return StoredRun(
        key=str(key),
        scenario_name=str(name),
        seed=int(seed),
        engine_version=str(version),
        scenario_json=str(sjson),
        result_json=unpack(rjson, row[8] if len(row) > 8 else None),
        wall_s=None if wall is None else float(wall),
        created_at=float(created),
    )
