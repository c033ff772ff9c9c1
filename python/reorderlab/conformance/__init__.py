"""Packet-level conformance: scripts in the packetdrill language, played
against the simulator's sender and against this machine's kernel
(``reorderlab script``, ``docs/conformance.md``).

One module per job: :mod:`.lexer` and :mod:`.parser` (text to
:mod:`.model`), :mod:`.runner` (the interpreter), :mod:`.segment` (the
comparison of a segment), the backends :mod:`.sim` and :mod:`.kernel`
(with :mod:`.agent`, :mod:`.packets`, :mod:`.sysctl_shim`), the settings
:mod:`.sysctls`, the outcome :mod:`.outcome`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .model import Script, ScriptError
from .outcome import Outcome, outcome_of, summary_table, to_json
from .parser import parse_file

__all__ = [
    "BACKENDS",
    "Outcome",
    "ScriptError",
    "parse_file",
    "run_scripts",
    "run_sim",
    "summary_table",
    "to_json",
]

BACKENDS = ("sim", "kernel")


def run_sim(script: Script, variant: str = "Linux", tolerance_us: int | None = None) -> Outcome:
    """Play ``script`` on the simulator's ``variant``."""
    from .backend import BackendError
    from .runner import run_script
    from .sim import SimBackend

    xfail = script.xfail.get("sim", "")
    try:
        backend = SimBackend(Path(script.path).resolve().parent, variant)
    except BackendError as exc:
        from .outcome import Failure

        return outcome_of(script.path, "sim", Failure("error", script.path, str(exc)), xfail, 0)
    failure, events = run_script(script, backend, tolerance_us)
    return outcome_of(script.path, "sim", failure, xfail, events, tuple(backend.trace))


def run_scripts(
    paths: Iterable[str | Path],
    backends: Iterable[str] = ("sim",),
    variant: str = "Linux",
    tolerance_us: int | None = None,
    timeout: float | None = None,
) -> list[Outcome]:
    """Every script on every backend, in order; a malformed script raises
    :class:`ScriptError` (one line, ``file:line:column``) before any runs."""
    scripts = [parse_file(p) for p in paths]
    out: list[Outcome] = []
    for script in scripts:
        for backend in backends:
            if backend == "sim":
                out.append(run_sim(script, variant, tolerance_us))
            else:
                from .kernel import run_kernel

                out.append(run_kernel(script, tolerance_us, timeout))
    return out
