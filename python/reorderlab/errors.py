"""Errors of the results store and of the sweep backends, in a module of
their own so that catching them (the CLI does, around every command) does
not import DuckDB, pandas and the sweep machinery.

``reorderlab.store`` and ``reorderlab.sweep`` export the same classes.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "BackendError",
    "MissingRunsError",
    "StoreBusyError",
    "StoreDamagedError",
    "StoreError",
    "import_distributed",
]


class StoreError(RuntimeError):
    """The store file cannot be used: a directory, not a DuckDB file, a
    folder that cannot be created, or open in another process."""


class StoreBusyError(StoreError):
    """The store file is open for writing by another process."""


class StoreDamagedError(StoreError):
    """The store file cannot be read back (cut short, overwritten): the
    message says how to recover (``reorderlab store repair``)."""


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
