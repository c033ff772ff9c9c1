"""Numbers with units, where people write them: ``"100Mbps"``, ``"30ms"``,
``"1.5MB"`` in a scenario field declared in seconds (``s``), bits per
second (``bit/s``) or bytes (``bytes``), as ns-3's ``DataRate`` / ``Time``
strings and tc's ``rate`` / ``delay`` options spell them.

The text is parsed exactly: the digits as a decimal, times the unit's
factor (a power of ten, or of two for ``KiB``-style sizes), rounded once
to the nearest double. ``"30ms"`` is then the very number ``0.03`` (not
``30 * 0.001 = 0.030000000000000002``), so a scenario written with units
has the same canonical form and cache key as one written in the base
unit. A byte count must come out whole.

Where ns-3 and tc disagree, ns-3 is followed and the clash is refused:
``kbps`` and ``bps`` are bits per second (tc reads them as bytes); ``mbps``
and ``gbps`` in lower case (tc: megabytes, gigabytes per second; ns-3:
unknown) are refused, naming ``Mbps`` / ``mbit`` and ``MB/s``. The units'
table is :data:`UNITS`; ``docs/scenario-format.md`` shows it (generated).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["UNITS", "UnitError", "parse_quantity"]

#: Field unit (the schema's ``x-unit``) -> suffix -> factor to that unit.
UNITS: dict[str, dict[str, str]] = {
    "s": {
        "ns": "1e-9",
        "nsec": "1e-9",
        "us": "1e-6",
        "usec": "1e-6",
        "ms": "1e-3",
        "msec": "1e-3",
        "s": "1",
        "sec": "1",
        "secs": "1",
        "min": "60",
        "h": "3600",
    },
    "bit/s": {
        "bps": "1",
        "b/s": "1",
        "bit": "1",
        "kbps": "1e3",
        "Kbps": "1e3",
        "kb/s": "1e3",
        "kbit": "1e3",
        "Kbit": "1e3",
        "Mbps": "1e6",
        "Mb/s": "1e6",
        "mbit": "1e6",
        "Mbit": "1e6",
        "Gbps": "1e9",
        "Gb/s": "1e9",
        "gbit": "1e9",
        "Gbit": "1e9",
        "Tbps": "1e12",
        "Tb/s": "1e12",
        "tbit": "1e12",
        "Tbit": "1e12",
        "B/s": "8",
        "kB/s": "8e3",
        "KB/s": "8e3",
        "MB/s": "8e6",
        "GB/s": "8e9",
    },
    "bytes": {
        "B": "1",
        "kB": "1e3",
        "KB": "1e3",
        "MB": "1e6",
        "GB": "1e9",
        "KiB": "1024",
        "MiB": "1048576",
        "GiB": "1073741824",
    },
}

#: Spellings that ns-3 and tc read differently, and what to write instead.
CLASHES = {
    "mbps": "tc reads it as megabytes/s: write 'Mbps' or 'mbit' (bits) or 'MB/s' (bytes)",
    "gbps": "tc reads it as gigabytes/s: write 'Gbps' or 'gbit' (bits) or 'GB/s' (bytes)",
    "tbps": "tc reads it as terabytes/s: write 'Tbps' or 'tbit' (bits)",
}

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY = re.compile(rf"\s*({_NUMBER})\s*([^\s\d.+-][^\s]*)\s*")


class UnitError(ValueError):
    """A quantity that cannot be read: the message says what it must be."""


def parse_quantity(text: str, unit: str) -> float | int:
    """``text`` (a number and a suffix of :data:`UNITS` [``unit``]) in
    ``unit``: a float, or an int for ``bytes``; a :class:`UnitError` with
    the accepted suffixes otherwise."""
    suffixes = UNITS[unit]
    if re.fullmatch(rf"\s*{_NUMBER}\s*", text):
        # a number in quotes: as strict as ever (a string is not a number)
        raise UnitError(
            f"must be a number, got {text!r} (a number without quotes, or with a unit: "
            f"{', '.join(suffixes)})"
        )
    m = _QUANTITY.fullmatch(text)
    if m is None:
        raise UnitError(
            f"must be a number or a number with a unit ({', '.join(suffixes)}), got {text!r}"
        )
    digits, suffix = m.groups()
    if suffix not in suffixes:
        why = CLASHES.get(suffix) if unit == "bit/s" else None
        known = ", ".join(suffixes)
        raise UnitError(
            f"unknown unit {suffix!r} in {text!r}" + (f" ({why})" if why else f" (known: {known})")
        )
    try:
        exact = Decimal(digits) * Decimal(suffixes[suffix])
    except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
        raise UnitError(f"must be a number, got {text!r}") from None
    if unit == "bytes":
        if exact != exact.to_integral_value():
            raise UnitError(f"must be a whole number of bytes, got {text!r} = {exact} bytes")
        return int(exact)
    return float(exact)


def with_units(unit: str) -> Any:
    """The before-validator of a field in ``unit``: a string is parsed
    (:func:`parse_quantity`), anything else passed on unchanged."""

    def parse(value: Any) -> Any:
        if isinstance(value, str):
            return parse_quantity(value, unit)
        return value

    return parse
