"""Why a store could not be used, in one line: busy (another process
writes to it), read-only (its file, folder or file system), full (no room
left for what it writes), or damaged (:func:`reorderlab.store.db.damaged`).

The operating system says which in an ``errno``; DuckDB says it in the
text of its errors (``IO Error: Could not write file "...": No space left
on device``), where the same words of ``strerror`` are looked for. A full
disk or a read-only file system is never reported as damage: nothing is
wrong with what the store holds, and ``store repair`` would not help.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from reorderlab.errors import StoreError, StoreReadOnlyError, StoreWriteError

__all__ = ["FULL", "READ_ONLY", "from_os_error", "from_text"]

#: The file a DuckDB error names.
_FILE = re.compile(r'file "([^"]+)"')

#: No room: the disk, a quota, the process's file size limit (``ulimit -f``).
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
#: Not writable: a read-only mount, permissions, an immutable file.
READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


def _full(path: Path, where: str, cause: str) -> StoreWriteError:
    return StoreWriteError(
        f"results store {path}: cannot write {where}: {cause} (what it held is kept; "
        "free some space, or use another store with --store)"
    )


def _read_only(path: Path, where: str, cause: str) -> StoreReadOnlyError:
    return StoreReadOnlyError(
        f"results store {path} is read-only ({where}: {cause}): use another store "
        "(--store) or none (--no-cache)"
    )


def from_os_error(path: Path, exc: OSError, where: str | Path | None = None) -> StoreError:
    """The one-line error of ``exc``, raised on the store at ``path`` while
    working on ``where`` (a file of the store; default: its ``filename``)."""
    target = str(where if where is not None else exc.filename or path)
    cause = exc.strerror or str(exc)
    if exc.errno in FULL:
        return _full(path, target, cause)
    if exc.errno in READ_ONLY:
        return _read_only(path, target, cause)
    return StoreError(f"results store {path}: cannot use {target}: {cause}")


def from_text(path: Path, text: str, where: str | None = None) -> StoreError | None:
    """The one-line error of a DuckDB error text that names a full disk or
    a read-only file, else None (``where``: the file it was working on)."""
    for code in (*FULL, *READ_ONLY):
        cause = os.strerror(code)
        if cause in text:
            named = _FILE.search(text)  # DuckDB: Could not write file "X": ...
            target = where or (named.group(1) if named else str(path))
            return _full(path, target, cause) if code in FULL else _read_only(path, target, cause)
    return None
