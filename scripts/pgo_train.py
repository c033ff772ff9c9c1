"""The training run of the profile-guided build (scripts/build-core.sh).

Runs every reference benchmark of ``reorderlab bench`` once with the
instrumented core; the counts it leaves in target/pgo/raw tell the compiler
which paths are hot. The benchmarks cover the engine, the links and their
impairments, SACK, RR-TCP, TCP-PR with HTTP traffic, HighSpeed TCP, RACK-TLP
and the Linux sender. Training on them gave a larger cut on scenarios of the
papers' reproductions than training on those scenarios themselves
(BENCHMARKS.md, "Profile-guided build").
"""

from __future__ import annotations

import json
import sys

from reorderlab import _core


def main() -> int:
    if _core.build_kind() != "instrumented":
        print(
            f"pgo_train: the installed core is a {_core.build_kind()} build, not an "
            "instrumented one: its run would leave no profile (scripts/build-core.sh builds it)",
            file=sys.stderr,
        )
        return 1
    for name in _core.bench_names():
        report = json.loads(_core.bench(name))
        print(f"  {name}: {report['events']} events", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
