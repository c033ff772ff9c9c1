"""What the interpreter (:mod:`.runner`) asks of a backend: the local stack
under test, on a clock of seconds since the script's start.

Two implement it: :class:`~reorderlab.conformance.sim.SimBackend` (the
simulator's sender and receiver, in simulated time) and
:class:`~reorderlab.conformance.kernel.KernelBackend` (this machine's
kernel through a TUN device, on the wall clock).
"""

from __future__ import annotations

from typing import Protocol

from .model import Command, SegmentSpec, Syscall
from .segment import Seg


class BackendError(RuntimeError):
    """The backend cannot do what the script asks (a call it does not
    model, a sysctl it cannot set); one line."""


class Backend(Protocol):
    name: str

    def begin(self) -> None:
        """The events start: this is time 0 (after the preamble's commands)."""
        ...

    def now(self) -> float:
        """Seconds since the script's start."""
        ...

    def wait(self, t: float) -> None:
        """Let time run to ``t`` (what the stack sends meanwhile is kept
        for :meth:`outbound`)."""
        ...

    def outbound(self, deadline: float) -> Seg | None:
        """The next segment the stack sent (the earliest not yet taken),
        waiting for one until ``deadline``; ``None`` if none by then."""
        ...

    def inject(self, spec: SegmentSpec, ecr: int | None) -> None:
        """Deliver the peer's segment now; ``ecr`` is the live value of its
        TS ecr (mapped by the interpreter from the script's)."""
        ...

    def syscall(self, call: Syscall) -> tuple[int, str | None]:
        """Run a socket call now: (return value, errno name or ``None``)."""
        ...

    def info(self) -> dict[str, int]:
        """``struct tcp_info`` of the connection's socket (names without
        ``tcpi_``)."""
        ...

    def command(self, cmd: Command) -> None:
        """Run a command of the script (a ``sysctl`` line)."""
        ...
