"""Reading a user's text file (a scenario, a sweep file): a regular file of
bounded size, decoded as UTF-8, or one line saying why not.

``/dev/zero`` given as a scenario was read until memory ran out, a FIFO
would block the read for ever, and undecodable bytes made a
``UnicodeDecodeError``: each is now a :class:`TextFileError` (a
``ValueError``) whose message names the path and the cause; the callers
turn it into their one-line error naming the field.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["MAX_FILE_BYTES", "TextFileError", "check_regular", "read_text"]

#: The largest scenario or sweep file read (a scenario is a few kB; a
#: custom topology of thousands of links a few MB).
MAX_FILE_BYTES = 16 << 20


class TextFileError(ValueError):
    """A file that cannot be read as a user's text file."""


def _check_status(path: Path, st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise TextFileError(f"{path} is not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise TextFileError(f"{path} is {st.st_size} bytes, more than the {MAX_FILE_BYTES} read")


def check_regular(path: Path) -> None:
    """A regular file (symlinks followed) of at most :data:`MAX_FILE_BYTES`,
    or a :class:`TextFileError`: not a device, FIFO or folder."""
    try:
        st = path.stat()
    except OSError as exc:
        raise TextFileError(f"cannot read {path}: {exc.strerror}") from None
    _check_status(path, st)


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path`` if :func:`check_regular` accepts it, else
    a :class:`TextFileError`. The file is checked again once open (it may
    have been replaced in between): opened without blocking (a FIFO put in
    its place), read up to one byte past the bound."""
    check_regular(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            _check_status(path, os.fstat(f.fileno()))
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise TextFileError(f"cannot read {path}: {exc.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise TextFileError(f"{path} is more than the {MAX_FILE_BYTES} bytes read")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise TextFileError(f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at line {line}") from None
