"""The interpreter: a script's events played against a backend, in order.

Timing follows packetdrill's rules. An absolute time is seconds since the
script's start; a relative one (``+0.1``) counts from when the previous
event happened (for an outbound segment, when it was sent), except that
consecutive inbound segments count from the previous one's scheduled time
(so that the time spent injecting does not add up). An event happened in
time if it is within the tolerance of its time (or of its range
``t1~t2``); ``*`` is any time.

Outbound segments are compared in the order the stack sent them: the
script's next outbound segment must be the stack's next one. Segmentation
offload and the lack of it are both accepted: a script's segment may be
met by several consecutive segments sent within the tolerance (a
``P. 1:10001(10000)`` by ten 1000-byte ones, PSH on the last), and one
large segment may meet several of the script's (cut as offload cuts it).
When the events are over, the stack must have sent nothing more up to the
last event's time plus the tolerance.

The script's TS ecr values are mapped to the live TSval of the outbound
segment the script gave that TS val (packetdrill's mapping), or, for a
value never seen, shifted by the offset between the first live and script
TSval.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from .backend import Backend, BackendError
from .info import ca_state_name
from .model import (
    AssertBlock,
    Check,
    Command,
    Event,
    Pos,
    Script,
    SegmentSpec,
    Syscall,
    TimeKind,
)
from .outcome import Failure
from .segment import Seg, difference, got_text, spec_text

#: packetdrill's default tolerance, microseconds.
DEFAULT_TOLERANCE_US = 4000


class ScriptFailedError(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


@dataclass
class _Clock:
    """Times of the previous event, for relative times."""

    actual: float = 0.0
    scheduled: float = 0.0
    inbound: bool = False


class Runner:
    def __init__(self, script: Script, backend: Backend, tolerance_us: int | None = None) -> None:
        self.script = script
        self.backend = backend
        if tolerance_us is None:
            tolerance_us = int(script.options.get("tolerance_usecs", DEFAULT_TOLERANCE_US))
        self.tol = tolerance_us / 1e6
        self.pending: deque[Seg] = deque()
        self.clock = _Clock()
        self.ts_map: dict[int, int] = {}
        self.ts_first: tuple[int, int] | None = None  # (script, live)
        self.done = 0

    # -- the whole script -----------------------------------------------------

    def run(self) -> Failure | None:
        """Play every event; the first difference, or ``None``."""
        try:
            for cmd in self.script.preamble:
                self._command(cmd)
            self.backend.begin()
            for ev in self.script.events:
                self._event(ev)
                self.done += 1
            self._finish()
        except ScriptFailedError as exc:
            return exc.failure
        except (BackendError, RuntimeError) as exc:  # RuntimeError: the core failed
            where = (
                self.script.events[self.done].pos if self.done < len(self.script.events) else None
            )
            return Failure("error", str(where or self.script.path), str(exc))
        return None

    def _finish(self) -> None:
        end = self.clock.actual + self.tol
        self.backend.wait(end)
        extra = self._next_outbound(end)
        if extra is not None:
            last = self.script.events[-1].pos if self.script.events else Pos(self.script.path, 1, 1)
            raise ScriptFailedError(
                Failure(
                    "unexpected",
                    str(last),
                    f"the stack sent a segment the script does not have, at {extra.t:.6f} s "
                    "(after the script's last event)",
                    expected="nothing more",
                    got=got_text(extra),
                )
            )

    # -- one event ------------------------------------------------------------

    def _window(self, ev: Event) -> tuple[float, float] | None:
        """Earliest and latest time of ``ev`` (tolerance excluded)."""
        t = ev.time
        if t.kind is TimeKind.ANY:
            return None
        if t.kind is TimeKind.ABSOLUTE:
            base = 0.0
        else:
            inbound = isinstance(ev.action, SegmentSpec) and ev.action.inbound
            base = self.clock.scheduled if (inbound and self.clock.inbound) else self.clock.actual
        start = base + t.start
        return start, base + (t.end if t.end is not None else t.start)

    def _event(self, ev: Event) -> None:
        window = self._window(ev)
        action = ev.action
        if isinstance(action, SegmentSpec) and not action.inbound:
            actual = self._expect(action, window)
            scheduled = window[0] if window else actual
        else:
            scheduled = window[0] if window else self.backend.now()
            self.backend.wait(scheduled)
            actual = self.backend.now()
            if window is not None and actual > window[1] + self.tol:
                raise ScriptFailedError(
                    Failure(
                        "timing",
                        str(ev.pos),
                        f"the backend reached this event at {actual:.6f} s, "
                        f"later than {window[1]:.6f} s + tolerance (the machine was too slow)",
                    )
                )
            self._act(action)
        inbound = isinstance(action, SegmentSpec) and action.inbound
        self.clock = _Clock(actual, scheduled, inbound)

    def _act(self, action: SegmentSpec | Syscall | Command | AssertBlock) -> None:
        if isinstance(action, SegmentSpec):
            self.backend.inject(action, self._live_ecr(action))
        elif isinstance(action, Syscall):
            self._syscall(action)
        elif isinstance(action, Command):
            self._command(action)
        else:
            self._asserts(action)

    def _command(self, cmd: Command) -> None:
        try:
            self.backend.command(cmd)
        except BackendError as exc:
            raise ScriptFailedError(Failure("error", str(cmd.pos), str(exc))) from None

    def _syscall(self, call: Syscall) -> None:
        try:
            result, errno = self.backend.syscall(call)
        except BackendError as exc:
            raise ScriptFailedError(Failure("error", str(call.pos), str(exc))) from None
        want = "..." if call.result is None else str(call.result)
        if call.errno:
            want += f" {call.errno}"
        got = str(result) + (f" {errno}" if errno else "")
        bad_result = call.result is not None and result != call.result
        bad_errno = call.errno is not None and errno != call.errno
        if bad_result or bad_errno:
            raise ScriptFailedError(
                Failure(
                    "syscall",
                    str(call.pos),
                    f"{call.name}() returned {got}",
                    expected=f"{call.name}(...) = {want}",
                    got=f"{call.name}(...) = {got}",
                )
            )

    def _asserts(self, block: AssertBlock) -> None:
        info = self.backend.info()
        for check in block.checks:
            if not check.holds(info):
                raise ScriptFailedError(_assert_failure(check, info))

    # -- outbound segments ----------------------------------------------------

    def _next_outbound(self, deadline: float) -> Seg | None:
        if self.pending:
            return self.pending.popleft()
        return self.backend.outbound(deadline)

    def _expect(self, want: SegmentSpec, window: tuple[float, float] | None) -> float:
        lo, hi = (window[0] - self.tol, window[1] + self.tol) if window else (0.0, float("inf"))
        deadline = hi if window else self.backend.now() + 10.0
        got = self._next_outbound(deadline)
        if got is None:
            when = f"by {hi:.6f} s" if window else "within 10 s"
            raise ScriptFailedError(
                Failure(
                    "missing", str(want.pos), f"no segment sent {when}", spec_text(want), "nothing"
                )
            )
        got = self._reshape(want, got, deadline)
        if (why := difference(want, got)) is not None:
            raise ScriptFailedError(
                Failure(
                    "mismatch",
                    str(want.pos),
                    f"{why} (sent at {got.t:.6f} s)",
                    spec_text(want),
                    got_text(got),
                )
            )
        if not lo <= got.t <= hi:
            span = (
                f"{window[0]:.6f}"
                if window and window[0] == window[1]
                else (f"{window[0]:.6f}~{window[1]:.6f}" if window else "any time")
            )
            raise ScriptFailedError(
                Failure(
                    "timing",
                    str(want.pos),
                    f"sent at {got.t:.6f} s, expected at {span} s "
                    f"(tolerance {self.tol * 1e6:.0f} us)",
                    spec_text(want),
                    got_text(got),
                )
            )
        self._learn_ts(want, got)
        return got.t

    def _reshape(self, want: SegmentSpec, got: Seg, deadline: float) -> Seg:
        """Cut or join data segments so that ``got`` covers the script's
        range when the stack segmented differently (see the module's
        docstring)."""
        if want.length == 0 or got.length == 0 or got.seq != want.seq:
            return got
        if got.end > want.end:
            head, rest = got.split(want.end)
            self.pending.appendleft(rest)
            return head
        first = got
        while got.end < want.end:
            nxt = self._next_outbound(min(deadline, first.t + self.tol))
            if nxt is None:
                break
            if nxt.seq != got.end or nxt.length == 0 or nxt.ack != got.ack:
                self.pending.appendleft(nxt)
                break
            if nxt.end > want.end:
                nxt, rest = nxt.split(want.end)
                self.pending.appendleft(rest)
            got = replace(nxt, t=first.t, seq=first.seq, tsval=first.tsval)
        return got

    # -- timestamps -----------------------------------------------------------

    def _learn_ts(self, want: SegmentSpec, got: Seg) -> None:
        ts = want.option("TS")
        if ts is None or ts.value is None or got.tsval is None:
            return
        self.ts_map.setdefault(ts.value, got.tsval)
        if self.ts_first is None:
            self.ts_first = (ts.value, got.tsval)

    def _live_ecr(self, spec: SegmentSpec) -> int | None:
        ts = spec.option("TS")
        if ts is None or ts.ecr is None:
            return None
        if ts.ecr in self.ts_map:
            return self.ts_map[ts.ecr]
        if self.ts_first is not None:
            return (ts.ecr - self.ts_first[0] + self.ts_first[1]) % (1 << 32)
        if ts.ecr == 0:
            return 0
        raise ScriptFailedError(
            Failure(
                "error",
                str(spec.pos),
                f"TS ecr {ts.ecr} echoes no outbound TS val of the script yet "
                "(give the outbound segment its <...,TS val V ecr E> first)",
            )
        )


def _assert_failure(check: Check, info: dict[str, int]) -> Failure:
    value = info[check.field]
    shown = ca_state_name(value) if check.field == "ca_state" else str(value)
    other = ""
    if isinstance(check.value, str):
        other = f", tcpi_{check.value} = {info[check.value]}"
    return Failure(
        "assert",
        str(check.pos),
        f"{check.text} does not hold: tcpi_{check.field} = {shown}{other}",
    )


def run_script(
    script: Script, backend: Backend, tolerance_us: int | None = None
) -> tuple[Failure | None, int]:
    """Play ``script`` on ``backend``: (the first difference or ``None``,
    how many events ran)."""
    r = Runner(script, backend, tolerance_us)
    failure = r.run()
    return failure, r.done
