"""Targets of processes started by tests: a module that imports nothing of
reorderlab, so that a child imports only what its target does."""

from __future__ import annotations

from typing import Any


def import_sweep_and_report_fork_server(conn: Any) -> None:
    """Import the sweep package (in a started child process) and send whether
    this process has started a fork server of its own."""
    import reorderlab.sweep  # noqa: F401
    from reorderlab import pool

    conn.send(pool.fork_server_started())


def sigint_as_at_a_terminal() -> None:
    """``preexec_fn`` of a child a test will Ctrl-C: a shell without job
    control starts background commands (``make test &``) with SIGINT
    ignored, and a child inherits that, so the signal would do nothing."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
