"""Canonical JSON of plain data (:func:`canonical_json`: the text a run's
cache key hashes) and plain data from numpy's scalars (:func:`plain`).
Re-exported by :mod:`reorderlab.scenario`.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["canonical_json", "plain"]


def plain(value: Any) -> Any:
    """``value`` with numpy scalars (``np.int64(5)``, ``np.bool_(True)``)
    as the Python numbers they hold, in lists and tables too: a grid built
    with numpy gives the same scenario as one built with Python numbers
    (the field types are strict, and numpy's integers are not ``int``)."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        item = value.item()
        return item if isinstance(item, bool | int | float | str) else value
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def canonical_json(data: Any) -> str:
    """Deterministic JSON text: sorted keys, no whitespace.

    For plain data (dicts, lists, str, int, float, bool, None: what
    :meth:`Scenario.to_dict` gives) this is exactly ``json.dumps(data,
    sort_keys=True, separators=(",", ":"), allow_nan=False)``: the store's
    keys hash this text, so it must not change. orjson writes the same text
    several times faster (a sweep computes one per run), except where its
    output shows it may differ; ``json.dumps`` writes it then.
    """
    try:
        fast = orjson.dumps(data, option=_ORJSON_OPTIONS, default=_not_plain)
    except (TypeError, orjson.JSONEncodeError):  # big ints, non-str keys, other types
        fast = None
    if fast is not None and not _may_differ_from_json_dumps(fast):
        return fast.decode("ascii")
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _may_differ_from_json_dumps(text: bytes) -> bool:
    """Could ``json.dumps`` write something else than orjson's ``text``?

    Yes where ``text`` has a float with an exponent (Python writes
    ``1e+16``, orjson ``1e16``), a float below 1e-4 (Python ``1e-05``,
    orjson ``0.00001``), a non-ASCII or DEL character (Python escapes them),
    or ``null`` (orjson writes NaN as null, Python refuses NaN). Text inside
    strings can match too, which only costs the slow path. Substring tests
    rather than a regular expression: a few microseconds, not tens.
    ``tests/test_scenario.py`` checks both agree on ~100k random values.
    """
    digits_as_zero = text.translate(_DIGITS_TO_ZERO)
    return (
        b"0e" in digits_as_zero
        or b"0.0000" in text
        or b"null" in text
        or b"\x7f" in text
        or not text.isascii()
    )


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
#: Plain JSON types only: anything else goes to ``_not_plain`` (and then to
#: ``json.dumps``), as do subclasses of str, int, dict and list.
_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def _not_plain(obj: Any) -> Any:
    raise TypeError(f"not plain JSON data: {type(obj).__name__}")
