"""Errors of the results store and of the sweep backends, in a module of
their own so that catching them (the CLI does, around every command) does
not import DuckDB, pandas and the sweep machinery.

``reorderlab.store`` and ``reorderlab.sweep`` export the same classes.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

__all__ = [
    "BackendError",
    "MissingRunsError",
    "StoreBusyError",
    "StoreDamagedError",
    "StoreError",
    "StoreReadOnlyError",
    "StoreWriteError",
    "import_distributed",
    "one_line",
    "printable",
]

#: The longest error line printed (a 1 MB unknown key made a 1 MB line; the
#: longest message of its own, the list of known variants, is ~500).
MAX_LINE = 2000

#: What a terminal would act on rather than show: C0 and C1 control
#: characters (ESC starts an ANSI sequence), DEL, lone surrogates (not
#: printable as UTF-8), and the line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` safe to print to a terminal, its lines kept: what
    :func:`one_line` escapes, but newlines (a flow named with an ANSI
    sequence was printed raw in the tables of ``run`` and ``compare``)."""
    return "\n".join(_UNSAFE.sub(_escaped, line) for line in text.split("\n"))


def one_line(text: str, limit: int | None = MAX_LINE) -> str:
    """``text`` as one line that is safe to print: control characters
    (newlines, ``ESC`` of an ANSI sequence, ...) and lone surrogates
    escaped as ``\\xNN`` / ``\\uNNNN``, cut to ``limit`` characters
    (saying how many more there were; ``None``: not cut)."""
    safe = _UNSAFE.sub(_escaped, text)
    if limit is None or len(safe) <= limit:
        return safe
    cut = limit - 40
    return f"{safe[:cut]}... ({len(safe) - cut} more characters)"


class StoreError(RuntimeError):
    """The store file cannot be used: a directory, not a DuckDB file, a
    folder that cannot be created, or open in another process."""


class StoreBusyError(StoreError):
    """The store file is open for writing by another process."""


class StoreDamagedError(StoreError):
    """The store file cannot be read back (cut short, overwritten): the
    message says how to recover (``reorderlab store repair``)."""


class StoreReadOnlyError(StoreError):
    """The store cannot be written: its file, folder or file system is
    read-only (permissions, ``chattr +i``, a read-only mount). Nothing is
    wrong with what it holds."""


class StoreWriteError(StoreError):
    """Writing to the store failed for want of room: a full disk, a quota,
    a file size limit. What was stored before is kept (the journal, the
    committed transactions)."""


class BackendError(RuntimeError):
    """The sweep's backend cannot be used (a Dask scheduler that cannot be
    reached, or an address that is not one)."""


class MissingRunsError(StoreError):
    """Runs that were to be read from the store without simulating (a sweep
    with ``cached_only``, ``reorderlab report --recheck``) are not in it."""


def import_distributed() -> Any:
    """Dask's ``distributed`` package (an optional dependency), or a
    :class:`BackendError` saying how to install it."""
    try:
        return importlib.import_module("distributed")
    except ImportError as exc:
        raise BackendError(
            "the dask backend needs Dask, an optional dependency of reorderlab: "
            f"pip install 'reorderlab[dask]' ({exc})"
        ) from None
