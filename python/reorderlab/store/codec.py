"""A compact, exact encoding of a run's result for the results store.

Big results are mostly long arrays: per-object records of traffic
generators (``traffic[i].object_list``: thousands of objects with the same
keys), time series and traces. As JSON text they take 100-200 bytes per
object, and zlib shrinks that only ~7x: a 300 s run of the tail-loss paper's Fig. 3
was 2.4 MB of text, 340 KB compressed. :func:`encode` stores them by column
instead:

* a list of at least :data:`MIN_ARRAY` objects that all have the same keys
  in the same order becomes a table: one column per key;
* a list (or column) of at least :data:`MIN_ARRAY` numbers, all integers or
  all floats (``null`` allowed among them), becomes a little-endian
  64-bit array: integers as they are; floats that are all whole numbers
  as integers; floats that are all whole nanoseconds (``x == ns / 1e9``
  exactly, as the core writes times) as nanoseconds; other floats as they
  are. An integer array whose successive differences are small next to
  its values (a non-decreasing one, times of objects in start order) is
  stored as its differences; a ``null`` is a byte of a mask (its slot
  holds 0). Each array's bytes are shuffled (all first bytes, then all
  second bytes, ...), so that the zeros of small numbers line up for zlib;
* everything else stays JSON, in a skeleton in which each array is a marker
  object: ``{"\\u0000": [...]}`` (a key the core never writes; a result
  that has it anywhere is not encoded: :func:`encode` returns None).

The skeleton and the arrays are compressed together (zlib). Encoding and
decoding need the standard library only (``array``; a command that stores a
run does not import numpy); a process that has imported numpy (a sweep's
driver) encodes with it, to the same bytes, faster. :func:`decode`
gives back the same JSON value: the same keys in the same order, the same
numbers of the same types (a float stays a float, ``-0.0`` stays ``-0.0``:
a conversion that would change any value, or its sign, is not used), the
same ``null`` s. The tail-loss paper's runs shrink 20-50x from their text (5-10x from
its zlib), and decoding is faster than parsing the text.

:func:`decode` with ``columns=True`` gives each table as :class:`Records`
(a column per key, numeric ones as numpy arrays) instead of a list of
dicts, for readers that want the columns (the tail-loss recipes);
:func:`records` makes the same from a list of dicts.

The core has an encoder of this format too (``crates/reorderlab/src/
result_codec``, ``_core.run_packed``), which a sweep's workers use: it
writes a result from its typed records, with the tables and arrays this
encoder would make (a reader of columns sees them) and its own choices of
kinds and differences, each checked value by value to decode exactly. Its
bytes are not this encoder's (another zlib; numbers in the skeleton
spelled as the core spells them); :func:`decode` reads both.
"""

from __future__ import annotations

import itertools
import operator
import struct
import sys
import zlib
from array import array
from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import orjson

_fast_zlib: ModuleType | None
try:  # zlib-ng inflates these payloads ~5x faster than CPython's zlib
    from zlib_ng import zlib_ng as _fast_zlib
except ImportError:  # (a platform without its wheel: the same bytes, slower)
    _fast_zlib = None

# numpy is imported where columns are built (Records), the only imports of
# this module that wait: a command that stores one run needs no numpy.
if TYPE_CHECKING:
    import numpy as np

__all__ = ["MAGIC", "MIN_ARRAY", "Records", "decode", "encode", "is_encoded", "records"]

#: First bytes of an encoded result. (A zlib stream, which older stores keep
#: in the same column, starts with 0x78.)
MAGIC = b"RLc\x01"

#: Lists shorter than this stay JSON.
MIN_ARRAY = 16

#: zlib level. On the tail-loss paper's Fig. 3 runs (4.5 MB of text each): 6 makes
#: 199 KB in 30 ms of encoding, 3 makes 210 KB in 24 ms, 1 215 KB in 23 ms
#: (9: 2 % smaller than 6, at 3x its time).
LEVEL = 3

#: The key of a marker object in the skeleton.
_MARK = "\x00"

_INT, _FLOAT = int, float
_NONE = type(None)
_BIG_ENDIAN = sys.byteorder == "big"
#: A negative zero's bytes (little-endian float64).
_NEGATIVE_ZERO = struct.pack("<d", -0.0)
#: ``n -> n / 1e9`` (nanoseconds to seconds), as the encoder checks it.
_SECONDS = (1e9).__rtruediv__
_GIGA = (1e9).__mul__
#: How many values the encoder tries a way of storing an array on first.
_SAMPLE = 256
_TWO_63 = float(2**63)


class _NotEncodableError(Exception):
    """The value has the marker key somewhere: keep it as JSON text."""


def is_encoded(blob: bytes) -> bool:
    """Was ``blob`` made by :func:`encode`?"""
    return blob[: len(MAGIC)] == MAGIC


def encode(value: Any) -> bytes | None:
    """``value`` (a parsed result) encoded, or None if it cannot be (it has
    the marker key somewhere, or what JSON text parsed by orjson cannot
    hold: an integer beyond [-2^63, 2^64))."""
    arrays: list[bytes] = []
    try:
        skeleton = orjson.dumps(_strip(value, arrays, [0]))
    except (_NotEncodableError, TypeError):
        return None
    payload = b"".join([struct.pack("<I", len(skeleton)), skeleton, *arrays])
    return MAGIC + zlib.compress(payload, LEVEL)


def inflate(data: bytes) -> bytes:
    """``zlib.decompress(data)``: the same bytes, by zlib-ng when installed
    (reading the store's big results is mostly inflating them: 1.9 GB for
    the tail-loss paper's full reproduction, 4.5 s with zlib, 0.8 s with
    zlib-ng). Damage raises ``zlib.error`` either way."""
    if _fast_zlib is None:
        return zlib.decompress(data)
    try:
        return bytes(_fast_zlib.decompress(data))
    except _fast_zlib.error as exc:
        raise zlib.error(str(exc)) from None


def decode(blob: bytes, *, columns: bool = False) -> Any:
    """The value :func:`encode` encoded. ``columns``: tables as
    :class:`Records` rather than lists of dicts (imports numpy). Raises
    ``ValueError`` if the blob is not one (or is damaged)."""
    if not is_encoded(blob):
        raise ValueError("not an encoded result")
    try:
        payload = inflate(blob[len(MAGIC) :])
        (n,) = struct.unpack_from("<I", payload)
        skeleton = orjson.loads(payload[4 : 4 + n])
        return _Builder(memoryview(payload)[4 + n :], columns).build(skeleton)
    except (zlib.error, struct.error, KeyError, IndexError, TypeError, ValueError) as exc:
        raise ValueError(f"damaged encoded result ({exc!r})") from None


# -- encoding -------------------------------------------------------------


def _strip(v: Any, arrays: list[bytes], offset: list[int]) -> Any:
    """``v`` with its long arrays and tables taken out into ``arrays``."""
    if isinstance(v, dict):
        if _MARK in v:
            raise _NotEncodableError
        return {k: _strip(x, arrays, offset) for k, x in v.items()}
    if isinstance(v, list):
        if len(v) >= MIN_ARRAY:
            types = set(map(type, v))
            if types == {dict}:
                table = _table(v, arrays, offset)
                if table is not None:
                    return table
            else:
                marker = _array(v, types, arrays, offset)
                if marker is not None:
                    return marker
        return [_strip(x, arrays, offset) for x in v]
    return v


def _table(rows: list[dict[str, Any]], arrays: list[bytes], offset: list[int]) -> Any:
    """A list of dicts with the same keys in the same order, by column
    (None if their keys differ)."""
    keys = tuple(rows[0])
    if not keys or _MARK in keys or not all(map(keys.__eq__, map(tuple, rows))):
        return None
    cols = [_strip(list(map(operator.itemgetter(k), rows)), arrays, offset) for k in keys]
    return {_MARK: ["r", len(rows), list(keys), cols]}


def _array(v: list[Any], types: set[type], arrays: list[bytes], offset: list[int]) -> Any:
    """A list of numbers (and nulls) as an array marker, or None if it is
    not one (strings, booleans, a mix of integers and floats, integers
    beyond 64 bits)."""
    kinds = types - {_NONE}
    if kinds != {_INT} and kinds != {_FLOAT}:
        return None
    mask = None
    if _NONE in types:
        mask = bytes(map(operator.is_, v, itertools.repeat(None)))
        v = list(v)
        for i in itertools.compress(itertools.count(), mask):
            v[i] = 0
    np = _numpy()
    packed = _numbers(v, kinds == {_INT}) if np is None else _numbers_np(v, kinds == {_INT}, np)
    if packed is None:
        return None
    kind, data, delta = packed
    return _marker(kind, len(v), data, mask, delta, arrays, offset)


def _numpy() -> Any:
    """numpy, if this process has imported it already (it is not imported
    for the encoder: ``reorderlab run`` does without it)."""
    return sys.modules.get("numpy")


def _numbers(v: list[Any], integers: bool) -> tuple[str, bytes, bool] | None:
    """An array's kind, its bytes (little-endian) and whether they are its
    differences; None if it does not fit in 64 bits."""
    try:
        if integers:
            kind, ints = "i", array("q", v)
        else:
            floats = array("d", v)
            kind, as_ints = _floats_as_ints(v, floats)
            if as_ints is None:
                return "f", _little(floats).tobytes(), False
            ints = as_ints
    except OverflowError:
        return None
    diffs = _differences(ints)
    stored = ints if diffs is None else diffs
    return kind, _little(stored).tobytes(), diffs is not None


def _numbers_np(v: list[Any], integers: bool, np: Any) -> tuple[str, bytes, bool] | None:
    """:func:`_numbers` with numpy, which the driver of a sweep has
    imported: the same decisions, the same bytes, in a third of the time."""
    if integers:
        try:
            ints = np.array(v, dtype=np.int64)
        except OverflowError:
            return None
        kind = "i"
    else:
        a = np.array(v, dtype=np.float64)
        if not np.all(np.abs(a) < _TWO_63) or np.any(np.signbit(a) & (a == 0)):
            return "f", a.astype("<f8").tobytes(), False
        if np.array_equal(np.trunc(a), a):
            kind, ints = "F", a.astype(np.int64)
        else:
            ns = np.rint(a * 1e9)  # (as round(x * 1e9): to the nearest, ties to even)
            if not np.all(np.abs(ns) < _TWO_63):
                return "f", a.astype("<f8").tobytes(), False
            ints = ns.astype(np.int64)
            if not np.array_equal(ints / 1e9, a):  # (int64 to float64, then divided)
                return "f", a.astype("<f8").tobytes(), False
            kind = "N"
    head = ints[:_SAMPLE].tolist()
    delta = 4 * sum(map(abs, map(operator.sub, head[1:], head[:-1]))) < sum(map(abs, head[1:]))
    if delta and int(ints.min()) > -(2**62) and int(ints.max()) < 2**62:
        return kind, np.diff(ints, prepend=np.int64(0)).astype("<i8").tobytes(), True
    return kind, ints.astype("<i8").tobytes(), False


def _floats_as_ints(v: list[float], floats: array[float]) -> tuple[str, array[int] | None]:
    """Floats as exact integers, if they all are whole numbers ("F") or
    whole nanoseconds ("N": ``n / 1e9`` gives each back exactly); else
    ("f", None). A negative zero is kept as a float (its integer would lose
    the sign). Each way is tried on the first :data:`_SAMPLE` values first."""
    data = _little(floats).tobytes()
    at = data.find(_NEGATIVE_ZERO)
    while at >= 0:
        if at % 8 == 0:
            return "f", None
        at = data.find(_NEGATIVE_ZERO, at + 1)
    for kind, back in (("F", float), ("N", _SECONDS)):
        for part in (v[:_SAMPLE], v):
            try:  # (whole nanoseconds: round(x * 1e9), without a call per value)
                whole = map(int, part) if kind == "F" else map(round, map(_GIGA, part))
                ints = array("q", whole)
            except (OverflowError, ValueError):  # (beyond 64 bits)
                break
            if array("d", map(back, ints)) != floats[: len(part)]:
                break
        else:
            return kind, ints
    return "f", None


def _differences(ints: array[int]) -> array[int] | None:
    """The successive differences (the first value's from 0), if they are
    small next to the values (a quarter of their sum of magnitudes, on the
    first :data:`_SAMPLE` values), else None. Only for values within
    +-2^62 (then every difference fits in 64 bits)."""
    head = ints[:_SAMPLE]
    if 4 * sum(map(abs, map(operator.sub, head[1:], head[:-1]))) >= sum(map(abs, head[1:])):
        return None
    if not (min(ints) > -(2**62) and max(ints) < 2**62):
        return None
    return array("q", itertools.chain(ints[:1], map(operator.sub, ints[1:], ints[:-1])))


def _little(a: array[Any]) -> array[Any]:
    """``a`` little-endian (a copy on a big-endian machine)."""
    if _BIG_ENDIAN:
        a = array(a.typecode, a)
        a.byteswap()
    return a


def _marker(
    kind: str,
    n: int,
    data: bytes,
    mask: bytes | None,
    delta: bool,
    arrays: list[bytes],
    offset: list[int],
) -> Any:
    """Append the array's bytes (``n`` values, little-endian; its mask
    first) to ``arrays``; its marker."""
    flags = ("d" if delta else "") + ("m" if mask is not None else "")
    start = offset[0]
    if mask is not None:
        arrays.append(mask)
        offset[0] += n
    shuffled = b"".join(data[i::8] for i in range(8))
    arrays.append(shuffled)
    offset[0] += len(shuffled)
    return {_MARK: ["a", kind, n, start, flags]}


# -- decoding -------------------------------------------------------------


class Records:
    """A table of records by column: ``records["oct"]`` is every record's
    ``oct``, in order; ``records.n`` the number of records; iterating
    gives the keys. Numeric columns are numpy arrays (int64; float64 for
    floats, and for integers with nulls, a null being NaN); others are
    lists."""

    def __init__(self, n: int, cols: dict[str, Any]) -> None:
        self.n = n
        self._cols = cols

    def __getitem__(self, key: str) -> Any:
        return self._cols[key]

    def __contains__(self, key: object) -> bool:
        return key in self._cols

    def __iter__(self) -> Iterator[str]:
        return iter(self._cols)

    def keys(self) -> list[str]:
        return list(self._cols)

    def rows(self) -> list[dict[str, Any]]:
        """The records as dicts (numpy numbers as Python's; NaN as None)."""
        cols = [_plain(c) for c in self._cols.values()]
        keys = list(self._cols)
        return [dict(zip(keys, row, strict=True)) for row in zip(*cols, strict=True)]


def _plain(col: Any) -> list[Any]:
    import numpy as np

    if isinstance(col, np.ndarray):
        out = col.tolist()
        if col.dtype.kind == "f":
            for i in np.flatnonzero(np.isnan(col)).tolist():
                out[i] = None
        return list(out)
    return list(col)


def records(rows: Sequence[Mapping[str, Any]]) -> Records:
    """A list of dicts with the same keys as :class:`Records`: the columns
    :func:`decode` gives for the same list when it is stored encoded."""
    keys = list(rows[0]) if rows else []
    return Records(len(rows), {k: _column([r[k] for r in rows]) for k in keys})


def _column(col: list[Any]) -> Any:
    """A column of :class:`Records`: integers (no null) as int64; floats,
    or integers with nulls, as float64 with NaN for null; else the list."""
    import numpy as np

    types = set(map(type, col))
    kinds = types - {_NONE}
    if kinds == {_INT} and _NONE not in types:
        try:
            return np.array(col, dtype=np.int64)
        except OverflowError:
            return col
    if kinds == {_FLOAT} or (kinds == {_INT} and _NONE in types):
        return np.array([np.nan if x is None else x for x in col], dtype=np.float64)
    return col


class _Builder:
    """Rebuilds a value from its skeleton and the arrays' bytes."""

    def __init__(self, data: memoryview, columns: bool) -> None:
        self.data = data
        self.columns = columns

    def build(self, v: Any) -> Any:
        if isinstance(v, dict):
            mark = v.get(_MARK)
            if mark is not None:
                return self._table(mark) if mark[0] == "r" else self._list(mark)
            return {k: self.build(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.build(x) for x in v]
        return v

    def _table(self, mark: list[Any]) -> Any:
        _, n, keys, cols = mark
        if self.columns:
            built = {k: self._column(c) for k, c in zip(keys, cols, strict=True)}
            return Records(int(n), built)
        lists = [self.build(c) for c in cols]
        return [dict(zip(keys, row, strict=True)) for row in zip(*lists, strict=True)]

    def _column(self, c: Any) -> Any:
        """A table's column for :class:`Records`."""
        if isinstance(c, dict) and isinstance(c.get(_MARK), list) and c[_MARK][0] == "a":
            return self._numpy(c[_MARK])
        return self.build(c)

    def _span(self, mark: list[Any]) -> tuple[str, int, int | None, int, str]:
        """An array's kind, length, where its null mask starts (None: no
        mask), where its byte planes start, and its flags; checked against
        the data."""
        _, kind, n, start, flags = mark
        if kind not in ("i", "f", "F", "N"):
            raise ValueError(f"unknown array kind {kind!r}")
        n, start = int(n), int(start)
        mask_at = start if "m" in flags else None
        planes_at = start + n if "m" in flags else start
        if n < 0 or start < 0 or planes_at + 8 * n > len(self.data):
            raise ValueError("array cut short")
        return kind, n, mask_at, planes_at, flags

    def _values(self, mark: list[Any]) -> tuple[str, array[Any], bytes | None]:
        """An array's kind, its values as stored (differences undone) and
        its null mask."""
        kind, n, mask_at, start, flags = self._span(mark)
        mask = None if mask_at is None else bytes(self.data[mask_at : mask_at + n])
        raw = self.data[start : start + 8 * n]
        data = bytearray(8 * n)
        for i in range(8):
            data[i::8] = raw[i * n : (i + 1) * n]
        values = array("d" if kind == "f" else "q")
        values.frombytes(data)
        if _BIG_ENDIAN:
            values.byteswap()
        if "d" in flags:
            values = array("q", itertools.accumulate(values))
        return kind, values, mask

    def _list(self, mark: list[Any]) -> list[Any]:
        kind, values, mask = self._values(mark)
        if kind == "F":
            out: list[Any] = list(map(float, values))
        elif kind == "N":
            out = list(map(_SECONDS, values))
        else:
            out = values.tolist()
        if mask is not None:
            for i in itertools.compress(itertools.count(), mask):
                out[i] = None
        return out

    def _numpy(self, mark: list[Any]) -> np.ndarray:
        """An array as numpy reads it: what :meth:`_values` does, by whole
        arrays (the driver reads millions of values per figure)."""
        import numpy as np

        kind, n, mask_at, start, flags = self._span(mark)
        mask = None
        if mask_at is not None:
            mask = np.frombuffer(self.data, dtype=np.uint8, count=n, offset=mask_at)
        # byte i of every value, then byte i + 1 ...: back to whole values
        planes = np.frombuffer(self.data, dtype=np.uint8, count=8 * n, offset=start)
        raw = np.ascontiguousarray(planes.reshape(8, n).T)
        values = raw.view("<f8" if kind == "f" else "<i8").reshape(n)
        if "d" in flags:  # differences of integers: the prefix sums are the
            values = np.cumsum(values, dtype=np.int64)  # values, so none overflows
        out: np.ndarray
        if kind == "i":
            out = values.astype(np.int64)
        elif kind in ("f", "F"):  # floats, or integers that were floats
            out = values.astype(np.float64)
        else:  # "N": as _SECONDS does it, n converted to a float then divided
            out = values.astype(np.float64) / 1e9
        if mask is not None:
            out = out.astype(np.float64)
            out[mask.astype(bool)] = np.nan
        return out
