"""The outcome of one script on one backend, and how it is printed.

A script passes on a backend when every event happened as written; else
the outcome has the first difference (:class:`Failure`): where in the
script, what the script expected and what the stack did. A script marked
``// xfail-BACKEND: reason`` is expected to fail there: its failure is
``xfail`` (not an error) and a pass is ``xpass`` (the mark should go).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Failure:
    """The first difference: ``kind`` is ``mismatch`` (another segment),
    ``timing`` (the right segment at the wrong time), ``missing`` (no
    segment), ``unexpected`` (a segment the script does not have),
    ``syscall``, ``assert``, ``error`` (the script cannot run there)."""

    kind: str
    where: str  # file:line:column
    message: str
    expected: str = ""
    got: str = ""

    def text(self) -> str:
        out = f"{self.where}: {self.message}"
        if self.expected:
            out += f"\n    expected: {self.expected}"
        if self.got:
            out += f"\n    got:      {self.got}"
        return out


@dataclass(frozen=True)
class Outcome:
    path: str
    backend: str
    #: "pass" | "fail" | "xfail" | "xpass" | "skip"
    status: str
    failure: Failure | None = None
    #: why the script is expected to fail on this backend (// xfail-BACKEND:)
    xfail_reason: str = ""
    #: why the backend did not run (skip)
    skip_reason: str = ""
    events: int = 0
    #: what went through the device, in script notation (kernel backend)
    trace: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Not a reason to fail a run: pass, an expected failure, a skip."""
        return self.status in ("pass", "xfail", "skip")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if self.failure is None:
            d.pop("failure")
        return d

    def line(self) -> str:
        head = f"{self.status.upper():5} {self.backend:6} {self.path}"
        if self.status == "skip":
            return f"{head}: {self.skip_reason}"
        if self.status == "xfail":
            return f"{head}  (expected: {self.xfail_reason})"
        if self.status == "xpass":
            return f"{head}  (marked xfail: {self.xfail_reason}; it passes now)"
        if self.failure is not None:
            return head + "\n  " + self.failure.text().replace("\n", "\n  ")
        return head


def outcome_of(
    path: str,
    backend: str,
    failure: Failure | None,
    xfail: str,
    events: int,
    trace: tuple[str, ...] = (),
) -> Outcome:
    if xfail:
        status = "xfail" if failure is not None else "xpass"
    else:
        status = "fail" if failure is not None else "pass"
    return Outcome(path, backend, status, failure, xfail, "", events, trace)


def to_json(outcomes: list[Outcome]) -> str:
    return json.dumps([o.to_dict() for o in outcomes], indent=2)


def summary_table(outcomes: list[Outcome]) -> str:
    """One row per script, one column per backend (plain text)."""
    backends = sorted({o.backend for o in outcomes})
    by_path: dict[str, dict[str, str]] = {}
    for o in outcomes:
        by_path.setdefault(o.path, {})[o.backend] = o.status
    width = max([len(p) for p in by_path] + [6])
    lines = [f"{'script':{width}}  " + "  ".join(f"{b:6}" for b in backends)]
    for path, row in by_path.items():
        lines.append(f"{path:{width}}  " + "  ".join(f"{row.get(b, '-'):6}" for b in backends))
    counts = {
        b: sum(1 for o in outcomes if o.backend == b and o.status == "pass") for b in backends
    }
    lines.append("passed: " + ", ".join(f"{b} {counts[b]}/{len(by_path)}" for b in backends))
    return "\n".join(lines)
