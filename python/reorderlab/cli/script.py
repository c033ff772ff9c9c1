"""``reorderlab script``: packet-level conformance scripts on the simulator
and the kernel (docs/conformance.md)."""

from __future__ import annotations

import argparse

from reorderlab.cli.common import errors, fail
from reorderlab.conformance import ScriptError, run_scripts, summary_table, to_json

__all__ = ["cmd_script"]


def cmd_script(a: argparse.Namespace) -> None:
    """Run each script on the chosen backends; print one line per outcome
    (or JSON) and the table; exit 1 if one failed unexpectedly."""
    backends = ("sim", "kernel") if a.backend == "both" else (a.backend,)
    try:
        outcomes = run_scripts(a.scripts, backends, a.variant, a.tolerance_us, a.timeout)
    except ScriptError as exc:
        fail(str(exc), 2)
    except KeyboardInterrupt:
        print("interrupted: the script's namespace is removed", flush=True)
        raise SystemExit(130) from None
    if a.out is not None:
        with errors(str(a.out)):
            a.out.mkdir(parents=True, exist_ok=True)
            (a.out / "conformance.json").write_text(to_json(outcomes) + "\n", encoding="utf-8")
    if a.json:
        print(to_json(outcomes))
    else:
        for o in outcomes:
            print(o.line())
            if a.trace and o.trace:
                print("  " + "\n  ".join(o.trace))
        if len(outcomes) > 1:
            print(summary_table(outcomes))
    if not all(o.ok for o in outcomes):
        raise SystemExit(1)
