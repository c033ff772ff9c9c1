"""``reorderlab validate``: every cell on the kernel and in the simulator, the
comparison, the first difference, the files of the report.

Order: the instrument checks (:mod:`.instrument`, unless skipped); each
cell's kernel run (:mod:`.kernel`: from the store if it is there); the
simulator's runs of every cell (one sweep, ``seeds`` seeds, in the same
store); per cell the simulator's capture of the kernel run's seed and the
first difference (:mod:`.firstdiff`); the table (:mod:`.compare`) and the
report's files (:mod:`.report`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reorderlab.pcap import simulate_with_captures
from reorderlab.runner import engine_version
from reorderlab.scenario import Scenario
from reorderlab.store import Store
from reorderlab.validate import report
from reorderlab.validate.cells import Cell, select
from reorderlab.validate.compare import verdict
from reorderlab.validate.firstdiff import first_difference, transmissions, wire_fct
from reorderlab.validate.kernel import KernelRun, kernel_info, run_kernel
from reorderlab.validate.scenarios import scenario

#: The seed of the kernel run (its impairments' random streams), which the
#: simulator's capture for the first difference uses too.
KERNEL_SEED = 1
SENDER_TAP = {"link": "S1->R1", "position": "ingress"}


@dataclass
class Options:
    quick: bool
    cells: str | None
    out: Path
    store: Path
    seeds: int = 5
    rerun_kernel: int = 0
    instrument: bool = True
    kernel: bool = True
    log: Callable[[str], None] = print
    extra: dict[str, Any] = field(default_factory=dict)


def _folder(out: Path, side: str, cell: Cell) -> Path:
    return out / side / cell.name.replace("/", "_").replace("%", "pct")


def _sim_capture(sc: Scenario, folder: Path) -> Path:
    """The simulator's run of the kernel's seed with the sender's capture."""
    data = sc.to_dict()
    data["record"]["pcap"] = [SENDER_TAP]
    simulate_with_captures(Scenario.from_dict(data).to_json(), KERNEL_SEED, folder)
    return folder / "S1-R1.ingress.pcap"


def _sim_rows(
    cells: list[Cell], scs: list[Scenario], seeds: int, store: Store
) -> dict[str, list[dict[str, Any]]]:
    """Every cell's simulated runs (one sweep), by cell name."""
    from reorderlab.sweep import sweep

    points = [({"cell": c.name}, sc) for c, sc in zip(cells, scs, strict=True)]
    df = sweep(points, seeds=list(range(1, seeds + 1)), store=store, progress=False)
    out: dict[str, list[dict[str, Any]]] = {}
    for rec in df.to_dict("records"):
        out.setdefault(str(rec["cell"]), []).append({str(k): v for k, v in rec.items()})
    return out


def _timing(k: KernelRun) -> dict[str, Any]:
    t = k.emulation["timing"]
    return {
        "timing_p50_us": t["p50_us"],
        "timing_p99_us": t["p99_us"],
        "timing_max_us": t["max_us"],
        "timing_over_1ms": t["over_1ms"],
        "load": (k.emulation.get("load") or {}).get("after", [math.nan])[0],
        "attempts": k.attempts,
        "timing_flag": k.timing_flag,
        "kernel_reused": k.reused,
    }


def validate(o: Options) -> dict[str, Any]:
    """Run the matrix; write ``o.out/matrix.json`` and the report's files;
    return what was written."""
    t0 = time.monotonic()
    cells = select(o.quick, o.cells)
    if not cells:
        raise ValueError(
            f"--cells {o.cells!r}: no cell of the {'quick' if o.quick else 'full'} matrix matches"
        )
    o.out.mkdir(parents=True, exist_ok=True)
    info = kernel_info()
    checks: list[dict[str, Any]] = []
    if o.kernel and o.instrument:
        from reorderlab.validate.instrument import run_instrument

        checks = [ch.row() for ch in run_instrument(o.out / "instrument", o.log)]
        for ch in checks:
            holds = "holds" if ch["holds"] else "DOES NOT HOLD"
            o.log(
                f"instrument: {ch['name']}: {ch['measured']:.4g} {ch['unit']} "
                f"({holds}; {ch['detail']})"
            )
    scs = [scenario(c, o.quick) for c in cells]
    store = Store(o.store)
    try:
        kernel: dict[str, KernelRun] = {}
        if o.kernel:
            for i, (c, sc) in enumerate(zip(cells, scs, strict=True)):
                o.log(f"kernel {i + 1}/{len(cells)}: {c.name}")
                kernel[c.name] = run_kernel(
                    sc,
                    KERNEL_SEED,
                    _folder(o.out, "kernel", c),
                    store,
                    release=info["release"],
                    rerun=o.rerun_kernel,
                    log=o.log,
                )
        else:
            kernel = _recorded(o.out, cells)
        o.log(f"simulator: {len(cells)} cells x {o.seeds} seeds")
        sims = _sim_rows(cells, scs, o.seeds, store)
    finally:
        store.close()
    rows = []
    for c, sc in zip(cells, scs, strict=True):
        k = kernel.get(c.name)
        if k is None:
            continue
        krow = dict(k.result["flows"][0])
        if c.finite and (k.folder / "receiver.pcap").exists():
            krow["fct_wire"] = wire_fct(k.folder, int(sc.flows[0].segments))
        row = verdict(c, krow, sims[c.name])
        row.update(_timing(k))
        row["first_difference"] = _first_difference(c, sc, k, o.out)
        rows.append(row)
    doc = {
        "mode": "quick" if o.quick else "full",
        "cells_filter": o.cells,
        "engine_version": engine_version(),
        "kernel": info,
        "instrument": checks,
        "seeds": o.seeds,
        "seconds": time.monotonic() - t0,
        "rows": rows,
        **o.extra,
    }
    report.write(o.out, doc)
    return doc


def _first_difference(c: Cell, sc: Scenario, k: KernelRun, out: Path) -> str:
    kpcap = k.folder / "sender.pcap"
    if not kpcap.exists():
        return "no kernel capture"
    spcap = _sim_capture(sc, _folder(out, "sim", c))
    d = first_difference(transmissions(kpcap), transmissions(spcap), c.rtt)
    return "none" if d is None else d.text()


def _recorded(out: Path, cells: list[Cell]) -> dict[str, KernelRun]:
    """Kernel runs already on disk (``--no-kernel``: the simulator side
    alone against a recorded reference)."""
    found = {}
    for c in cells:
        folder = _folder(out, "kernel", c)
        path = folder / "result.json"
        if path.exists():
            result = json.loads(path.read_text(encoding="utf-8"))
            found[c.name] = KernelRun(result, folder, int(result.get("validate_attempts", 1)), True)
    return found
