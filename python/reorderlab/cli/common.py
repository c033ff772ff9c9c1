"""What every command of the command line shares: one line on stderr and
an exit code for each expected failure."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

from reorderlab.errors import (
    BackendError,
    StoreBusyError,
    StoreDamagedError,
    StoreError,
    StoreReadOnlyError,
    one_line,
)

__all__ = ["core_failure", "errors", "fail"]


def fail(message: str, code: int) -> NoReturn:
    """``error: MESSAGE`` on stderr (one line: control characters escaped,
    cut if very long), exit ``code``."""
    print(f"error: {one_line(message)}", file=sys.stderr)
    raise SystemExit(code)


def _scenario_error() -> type[Exception] | tuple[()]:
    """The scenario error class, if the scenario module was imported (only
    then can one have been raised): catching it must not import pydantic."""
    module = sys.modules.get("reorderlab.scenario")
    return module.ScenarioError if module is not None else ()


@contextmanager
def errors(source: str | None = None) -> Iterator[None]:
    """Map expected failures to one line on stderr and an exit code."""
    try:
        yield
    except _scenario_error() as exc:
        where = getattr(exc, "source", None) or source
        fail(f"{where}: {exc}" if where else str(exc), 2)
    # the store given cannot be used now: damaged, busy, read-only
    except (StoreDamagedError, StoreBusyError, StoreReadOnlyError) as exc:
        fail(str(exc), 2)
    except (StoreError, BackendError) as exc:
        fail(str(exc), 1)
    except OSError as exc:  # an output file or folder that cannot be written
        where = f"{exc.filename}: " if exc.filename else ""
        fail(f"{where}{exc.strerror or exc}", 1)
    except KeyboardInterrupt:
        _interrupted()
    except Exception as exc:
        if not _query_interrupted(exc):
            raise
        _interrupted()


def _interrupted() -> NoReturn:
    print("interrupted: completed runs are stored; run again to resume", file=sys.stderr)
    raise SystemExit(130) from None


def _query_interrupted(exc: Exception) -> bool:
    """Is ``exc`` DuckDB's answer to a Ctrl-C during one of its statements?
    (It turns the KeyboardInterrupt into ``RuntimeError: Query
    interrupted``, or an ``InterruptException``: a Ctrl-C as the store
    opened was a traceback.)"""
    duckdb = sys.modules.get("duckdb")
    if duckdb is not None and isinstance(exc, duckdb.InterruptException):
        return True
    return type(exc) is RuntimeError and str(exc) == "Query interrupted"


def core_failure(exc: RuntimeError) -> NoReturn:
    """A run that failed (the core panicked, a worker died): exit 1; a store
    error goes on to :func:`errors` (a damaged store is exit 2)."""
    if isinstance(exc, StoreError):
        raise exc
    fail(str(exc), 1)
