"""reorderlab: a deterministic packet-level TCP simulator (Rust core, Python front).

Quick start::

    import reorderlab as rl

    sc = rl.Scenario.load("scenario.toml")
    res = rl.run(sc, seed=1)
    print(res.flows[["variant", "throughput_bps", "retransmits"]])

    df = rl.sweep(rl.Grid(sc, {"impairments[0].p": [0.001, 0.01]}), seeds=3)
    league = rl.compare(sc, variants="SACK,DSACK-TA,RACK-TLP", seeds=5)

Attributes are imported lazily (pydantic, pandas and DuckDB only when
first used): worker processes, which only need the compiled core, and the
command line start quickly. ``reorderlab.sweep`` is the package of sweeps,
which can be called as its function ``sweep``.
"""

from __future__ import annotations

# first: a Ctrl-C while the command's imports run is one line (reorderlab.entry)
from reorderlab import entry  # noqa: F401

# isort: split
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reorderlab.claims import Claim
    from reorderlab.league import compare
    from reorderlab.pcap import read_pcap
    from reorderlab.pool import start_workers
    from reorderlab.runner import Result, engine_version, run, simulations_executed
    from reorderlab.scenario import (
        ArqImpairment,
        BurstLossImpairment,
        ChainTopology,
        ConstantVar,
        CustomTopology,
        DelayImpairment,
        DroptailQueue,
        DumbbellTopology,
        EmpiricalVar,
        ExponentialVar,
        FatTreeTopology,
        FlowSpec,
        GilbertElliottImpairment,
        HyperexponentialVar,
        LinkSpec,
        LossImpairment,
        MultipathSpec,
        NormalVar,
        Pareto2Var,
        ParetoVar,
        ParkingLotTopology,
        PcapTap,
        PositionedImpairment,
        ReceiverSpec,
        RecordSpec,
        RedQueue,
        ReorderImpairment,
        Scenario,
        ScenarioError,
        SwapImpairment,
        TcpSpec,
        UniformVar,
        load_scenario,
    )
    from reorderlab.store import Store
    from reorderlab.sweep import Grid, sweep

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "ArqImpairment": "reorderlab.scenario",
    "BurstLossImpairment": "reorderlab.scenario",
    "ConstantVar": "reorderlab.scenario",
    "DelayImpairment": "reorderlab.scenario",
    "EmpiricalVar": "reorderlab.scenario",
    "ExponentialVar": "reorderlab.scenario",
    "GilbertElliottImpairment": "reorderlab.scenario",
    "HyperexponentialVar": "reorderlab.scenario",
    "MultipathSpec": "reorderlab.scenario",
    "NormalVar": "reorderlab.scenario",
    "Pareto2Var": "reorderlab.scenario",
    "ParetoVar": "reorderlab.scenario",
    "PositionedImpairment": "reorderlab.scenario",
    "ReorderImpairment": "reorderlab.scenario",
    "SwapImpairment": "reorderlab.scenario",
    "UniformVar": "reorderlab.scenario",
    "Claim": "reorderlab.claims",
    "compare": "reorderlab.league",
    "read_pcap": "reorderlab.pcap",
    "PcapTap": "reorderlab.scenario",
    "Result": "reorderlab.runner",
    "engine_version": "reorderlab.runner",
    "run": "reorderlab.runner",
    "simulations_executed": "reorderlab.runner",
    "ChainTopology": "reorderlab.scenario",
    "CustomTopology": "reorderlab.scenario",
    "DroptailQueue": "reorderlab.scenario",
    "DumbbellTopology": "reorderlab.scenario",
    "FatTreeTopology": "reorderlab.scenario",
    "FlowSpec": "reorderlab.scenario",
    "LinkSpec": "reorderlab.scenario",
    "LossImpairment": "reorderlab.scenario",
    "ParkingLotTopology": "reorderlab.scenario",
    "ReceiverSpec": "reorderlab.scenario",
    "RecordSpec": "reorderlab.scenario",
    "RedQueue": "reorderlab.scenario",
    "Scenario": "reorderlab.scenario",
    "ScenarioError": "reorderlab.scenario",
    "TcpSpec": "reorderlab.scenario",
    "load_scenario": "reorderlab.scenario",
    "Store": "reorderlab.store",
    "Grid": "reorderlab.sweep",
    "sweep": "reorderlab.sweep",  # the package itself, which can be called
    "start_workers": "reorderlab.pool",
}

__all__ = [
    "ArqImpairment",
    "BurstLossImpairment",
    "ChainTopology",
    "Claim",
    "ConstantVar",
    "CustomTopology",
    "DelayImpairment",
    "DroptailQueue",
    "DumbbellTopology",
    "EmpiricalVar",
    "ExponentialVar",
    "FatTreeTopology",
    "FlowSpec",
    "GilbertElliottImpairment",
    "Grid",
    "HyperexponentialVar",
    "LinkSpec",
    "LossImpairment",
    "MultipathSpec",
    "NormalVar",
    "Pareto2Var",
    "ParetoVar",
    "ParkingLotTopology",
    "PcapTap",
    "PositionedImpairment",
    "ReceiverSpec",
    "RecordSpec",
    "RedQueue",
    "ReorderImpairment",
    "Result",
    "Scenario",
    "ScenarioError",
    "Store",
    "SwapImpairment",
    "TcpSpec",
    "UniformVar",
    "__version__",
    "compare",
    "engine_version",
    "load_scenario",
    "read_pcap",
    "run",
    "simulations_executed",
    "start_workers",
    "sweep",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'reorderlab' has no attribute {name!r}")
    imported = importlib.import_module(module)
    # ``sweep`` names the package reorderlab.sweep, as importing it does,
    # which can be called as its function sweep()
    value = imported if module == f"{__name__}.{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
