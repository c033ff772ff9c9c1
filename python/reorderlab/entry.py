"""The process's side of the command line: Ctrl-C during the imports, and
closed standard streams.

Imported first by the package (``reorderlab/__init__.py``), the earliest
line of the project that runs: when the ``reorderlab`` script (or
``python -m reorderlab``) is what runs, a Ctrl-C from here until
:func:`reorderlab.cli.main` takes over ends the process with one line and
exit 130 (:func:`interrupted`), not a traceback from whichever import it
cut (8 of 20 tries did). A program that imports the package keeps its own
handler. (Before this line, in the interpreter's own start, a Ctrl-C is
Python's: the process ends by the signal.) Standard library only, nothing
slow: every import of the package runs this.
"""

from __future__ import annotations

# the C part of ``signal``, loaded with the interpreter: ``signal`` itself
# imports ``enum`` first, 10-25 ms of the very window this module closes
import _signal as signal  # type: ignore[import-not-found]
import os
import sys

__all__ = ["as_command", "commands_own_ctrl_c", "interrupted", "standard_streams"]


def interrupted(signum: int, frame: object) -> None:
    """Ctrl-C before a command has begun its work (or outside its own
    handling, :func:`reorderlab.cli.common.errors`): one line, exit 130 at
    once; nothing was run that could be kept."""
    os.write(2, b"error: interrupted\n")
    os._exit(130)


def commands_own_ctrl_c() -> None:
    """From here on a Ctrl-C is a ``KeyboardInterrupt`` that the command
    handles (its runs kept, its own line): called once the command's module
    is imported. Until then :func:`interrupted` ends the process, also in
    the middle of an extension module's initialisation, where a
    ``KeyboardInterrupt`` crashed orjson's (SIGSEGV, 2 of 20 tries at the
    right moment)."""
    if signal.getsignal(signal.SIGINT) is interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def standard_streams() -> None:
    """Closed standard streams (``reorderlab variants >&-``): Python makes
    ``sys.stdout`` None, and the next file opened would take descriptor 1
    (a store, a CSV) and receive what is printed. Each closed one is given
    ``/dev/null``; a closed stdout is then one line on stderr, exit 1."""
    closed = [fd for fd in (0, 1, 2) if not _is_open(fd)]
    for fd in closed:
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    if 1 in closed:
        os.write(2, b"error: standard output is closed: nothing could be shown\n")
        raise SystemExit(1)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def as_command() -> bool:
    """Is the package run as the ``reorderlab`` command (its script, or
    ``python -m reorderlab``), not imported by a program?"""
    argv = getattr(sys, "argv", None) or [""]
    head, name = os.path.split(str(argv[0]))  # (os.path: pathlib is slow to import)
    return name == "reorderlab" or (name == "__main__.py" and head.endswith("reorderlab"))


if as_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, interrupted)
