"""The ``reorderlab`` command line.

Exit codes: 0 success; 2 invalid input (a bad scenario or sweep file names the
field and value on one line of stderr, no traceback; so does a bad option);
1 any other failure.

One module per command (or pair of commands), each importing what it uses
at its top: :mod:`.run`, :mod:`.check` (and the warnings before
``run`` / ``sweep`` / ``compare``), :mod:`.emulate`, :mod:`.listings` (``variants``,
``impairments``), :mod:`.sweep`, :mod:`.compare`, :mod:`.reproduce`,
:mod:`.report`, :mod:`.store` (``store check | repair | compact``),
:mod:`.bench`; what they print is :mod:`.output`, their errors
:mod:`.common`, the parser :mod:`.parser`.

Start-up is kept short: the parser is the standard library alone
(argparse), and :func:`app` imports the module of the command it runs
only then, so ``--help`` and ``variants`` need neither pydantic nor
pandas, and ``run`` needs no pandas, matplotlib or Dask
(``tests/test_cli_imports.py`` checks these import sets). typer, which the
command line used before, built a pydantic adapter for every parameter of
the command it ran.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from collections.abc import Sequence

from reorderlab.cli.common import fail
from reorderlab.cli.parser import build_parser
from reorderlab.entry import commands_own_ctrl_c, interrupted, standard_streams

__all__ = ["app", "build_parser", "main"]


def app(argv: Sequence[str] | None = None) -> None:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); ends
    with ``SystemExit`` on an error (its code is the exit code)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    target = getattr(args, "command", None)
    if target is None:  # no command: the help, as a usage error
        parser.print_help()
        raise SystemExit(2)
    # The two imports that wait for the command, for a fast start-up: a
    # command that simulates on local workers starts them first, so that
    # the fork server's start (two interpreter starts) overlaps the imports
    # of the command's module (pandas, DuckDB, the recipes); then that module.
    if getattr(args, "workers", None) is not None:  # a count of processes: checked first
        try:
            importlib.import_module("reorderlab.pool").worker_count(args.workers)
        except ValueError as exc:
            fail(str(exc), 2)
    if getattr(args, "prestart", False) and not (
        getattr(args, "dask", None) or getattr(args, "list_only", False)
    ):
        importlib.import_module("reorderlab.pool").start_workers(getattr(args, "workers", None))
    module, function = target.split(":")
    command = getattr(importlib.import_module(f"{__name__}.{module}"), function)
    commands_own_ctrl_c()
    try:
        command(args)
    except BrokenPipeError:
        # the reader went away (`reorderlab variants | head`): nothing more
        # to write; stdout goes to /dev/null so that its flush at exit is quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None


def main() -> None:
    """Entry point of the ``reorderlab`` script (and ``python -m
    reorderlab``). Ctrl-C at any moment, the imports included, ends it
    with one line and exit 130 (a command that has runs to keep says so
    itself, :func:`.common.errors`); a closed standard output is one line
    and exit 1 before anything runs."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupted)  # (entry did, if it saw the command)
    try:
        standard_streams()
        app()
    except KeyboardInterrupt:  # outside a command's own handling: an orderly exit
        print("error: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
