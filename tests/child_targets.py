"""Targets of processes started by tests: a module that imports nothing of
reorderlab, so that a child imports only what its target does."""

from __future__ import annotations

from typing import Any


def import_sweeper_and_report_fork_server(conn: Any) -> None:
    """Import the sweeper (in a started child process) and send whether
    this process has started a fork server of its own."""
    import reorderlab.sweeper  # noqa: F401
    from reorderlab import _pool

    conn.send(_pool.fork_server_started())
