"""Fingerprint a results store: one line per run, ``<scenario+seed hash> <result hash>``.

Used to show that a refactor or a speed change leaves every result
bit-identical: run the same reproduction before and after into two stores,
then ``diff`` the two fingerprints. Neither the run's key nor the result's
engine version is used (a model revision bump alone changes nothing here);
runs are identified by the sha256 of their canonical scenario JSON and seed.
``--bench`` adds the event counts of ``reorderlab bench``.

    python scripts/fingerprint.py results/reorderlab.duckdb > before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

from reorderlab.store import Store


def _without_version(result_json: str) -> str:
    """The result without its engine version (a model revision bump alone
    must not change the fingerprint)."""
    result = json.loads(result_json)
    result.pop("engine_version", None)
    return json.dumps(result, sort_keys=True)


def store_lines(path: str) -> list[str]:
    lines = []
    with Store(path, read_only=True) as store:
        for run in store.runs():
            ident = hashlib.sha256(f"{run.scenario_json}\0{run.seed}".encode()).hexdigest()
            digest = hashlib.sha256(_without_version(run.result_json).encode()).hexdigest()
            lines.append(f"{ident[:16]} {digest[:16]} {run.scenario_name} seed={run.seed}")
    return sorted(lines)


def bench_lines() -> list[str]:
    from reorderlab import _core

    lines = []
    for name in _core.bench_names():
        res = json.loads(_core.bench(name))
        lines.append(f"bench {name} events={res['events']} packets={res.get('packet_hops')}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", nargs="?", help="a results store (.duckdb)")
    ap.add_argument("--bench", action="store_true", help="add the bench event counts")
    args = ap.parse_args()
    lines = store_lines(args.store) if args.store else []
    if args.bench:
        lines += bench_lines()
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
