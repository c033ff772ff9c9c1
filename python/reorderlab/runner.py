"""Run one scenario: ``reorderlab.run(scenario, seed=...)`` -> :class:`Result`."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from reorderlab import _core, worker
from reorderlab.pcap import Capture, simulate_with_captures
from reorderlab.scenario import Scenario, ScenarioError, check_seed, load_scenario

# pandas, numpy and the store (DuckDB) are imported where they are used,
# the only imports of this module that wait: a command-line run needs no
# pandas or numpy, nor DuckDB without a store (``--no-cache``)
# (tests/test_cli_imports.py).
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure

    from reorderlab.store import Store

__all__ = [
    "Result",
    "ScenarioLike",
    "as_scenario",
    "count_simulations",
    "engine_version",
    "run",
    "simulate_json",
    "simulations_executed",
]

ScenarioLike = Scenario | Mapping[str, Any] | str | Path

_SIMULATIONS = 0


def simulations_executed() -> int:
    """How many simulations this process has run through :func:`run` / sweeps.

    Cached runs do not count: a second ``run`` of the same scenario and seed
    with a store leaves this unchanged.
    """
    return _SIMULATIONS


def count_simulations(n: int = 1) -> None:
    """Count ``n`` simulations run in this process (a sweep counts its runs
    as it receives them from its workers): :func:`simulations_executed`."""
    global _SIMULATIONS
    _SIMULATIONS += n


@functools.cache
def engine_version() -> str:
    """Version of the compiled engine (part of every cache key)."""
    return _core.engine_version()


def as_scenario(scenario: ScenarioLike) -> Scenario:
    """Accept a Scenario, a dict, a path to a TOML/JSON file, or TOML text."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, Path):
        return load_scenario(scenario)
    if isinstance(scenario, str):
        if "\n" not in scenario and scenario.endswith((".toml", ".json")):
            return load_scenario(scenario)
        return Scenario.from_toml(scenario)
    raise TypeError(f"expected a Scenario, dict, path or TOML text, got {type(scenario).__name__}")


def simulate_json(scenario: Scenario, seed: int | None) -> tuple[str, float]:
    """One call into the core; core scenario errors become :class:`ScenarioError`."""
    try:
        text, wall, _cpu = worker.simulate(scenario.to_json(), seed)
    except ValueError as exc:
        raise ScenarioError.from_core(str(exc), scenario.name) from None
    count_simulations()
    return text, wall


class Result:
    """The outcome of one run.

    * :attr:`flows`: per-flow metrics, one row per flow (pandas DataFrame)
    * :attr:`links`: per-link counters (DataFrame)
    * :meth:`series`: sampled time series of one flow as numpy arrays
    * :meth:`to_dict`: the raw result (the JSON of ``docs/scenario-format.md``)
    """

    def __init__(
        self,
        data: Mapping[str, Any],
        *,
        key: str | None = None,
        cached: bool = False,
        wall_s: float | None = None,
    ) -> None:
        self._data: dict[str, Any] = dict(data)
        self.key = key
        self.cached = cached
        self.wall_s = wall_s
        #: The packet captures this run wrote (``record.pcap``), if any.
        self.captures: list[Capture] = []

    @classmethod
    def from_json(
        cls,
        text: str,
        *,
        key: str | None = None,
        cached: bool = False,
        wall_s: float | None = None,
    ) -> Result:
        # orjson: the same values as json, 4-6x faster (a result with object
        # lists is megabytes of JSON)
        return cls(orjson.loads(text), key=key, cached=cached, wall_s=wall_s)

    # -- scalars ----------------------------------------------------------

    @property
    def scenario_name(self) -> str:
        return str(self._data.get("scenario", ""))

    @property
    def seed(self) -> int:
        return int(self._data.get("seed", 0))

    @property
    def engine_version(self) -> str:
        return str(self._data.get("engine_version", ""))

    @property
    def duration(self) -> float:
        return float(self._data.get("duration", 0.0))

    @property
    def events(self) -> int:
        return int(self._data.get("events", 0))

    @property
    def packet_hops(self) -> int:
        return int(self._data.get("packet_hops", 0))

    # -- tables -----------------------------------------------------------

    @property
    def flows(self) -> pd.DataFrame:
        """Per-flow metrics, indexed by flow number."""
        import pandas as pd

        df = pd.DataFrame(self._data.get("flows", []))
        if "flow" in df.columns:
            df = df.set_index("flow")
        return df

    @property
    def links(self) -> pd.DataFrame:
        """Per-link counters, indexed by link name."""
        import pandas as pd

        df = pd.DataFrame(self._data.get("links", []))
        if "link" in df.columns:
            df = df.set_index("link")
        return df

    @property
    def traffic(self) -> pd.DataFrame:
        """Totals of each traffic generator (objects, bytes, object completion
        times), indexed by generator name."""
        import pandas as pd

        rows = [
            {k: v for k, v in t.items() if k != "object_list"}
            for t in self._data.get("traffic", [])
        ]
        df = pd.DataFrame(rows)
        if "name" in df.columns:
            df = df.set_index("name")
        return df

    def objects(self, generator: int | str = 0) -> pd.DataFrame:
        """Every object of one traffic generator (start, segments, oct, ...);
        empty unless the scenario set ``record.objects``."""
        import pandas as pd

        gens = self._data.get("traffic", [])
        for i, t in enumerate(gens):
            if generator in (i, t.get("name")):
                return pd.DataFrame(t.get("object_list", []))
        raise KeyError(f"no traffic generator {generator!r} (the run has {len(gens)})")

    @property
    def fairness(self) -> dict[str, Any] | None:
        """Fairness among the scenario's flows (the tcp-pr paper): ``jain_index`` and,
        per variant, ``mean_normalized_throughput`` and ``cov``; None with
        fewer than two flows."""
        raw = self._data.get("fairness")
        return dict(raw) if raw else None

    def flow_records(self) -> list[dict[str, Any]]:
        """Per-flow metrics as plain dicts, one per flow (what :attr:`flows`
        tabulates, without pandas)."""
        return [dict(f) for f in self._data.get("flows", [])]

    def flow(self, flow: int | str = 0) -> dict[str, Any]:
        """Metrics of one flow (by index or name) as a dict."""
        return dict(self._data["flows"][self._flow_index(flow)])

    def _flow_index(self, flow: int | str) -> int:
        flows = self._data.get("flows", [])
        if isinstance(flow, int):
            if not 0 <= flow < len(flows):
                raise KeyError(f"no flow {flow} (the run has {len(flows)})")
            return flow
        for i, f in enumerate(flows):
            if f.get("name") == flow:
                return i
        raise KeyError(f"no flow named {flow!r}")

    def series(self, flow: int | str = 0) -> dict[str, np.ndarray]:
        """Recorded time series of a flow: ``{"t": array, "cwnd": array, ...}``.

        Empty when the scenario recorded nothing for this flow (``[record]``).
        """
        import numpy as np

        index = self._flow_index(flow)
        raw = self._data.get("series", {}).get(str(index), {})
        return {name: np.asarray(values, dtype=float) for name, values in raw.items()}

    def trace(self, flow: int | str = 0) -> dict[str, pd.DataFrame]:
        """Time-sequence trace of a flow at its sender (``record.trace_window``):
        ``{"sent": DataFrame(t, seq, transmission), "acks": DataFrame(t, ack)}``
        (``transmission``: 0 for a segment's first transmission, n for its
        n-th retransmission; the core's ``send_copy``); empty frames when the
        flow was not traced."""
        import pandas as pd

        raw = self._data.get("traces", {}).get(str(self._flow_index(flow)), {})
        sent = pd.DataFrame(
            {
                "t": raw.get("send_t", []),
                "seq": raw.get("send_seq", []),
                "transmission": raw.get("send_copy", []),
            }
        )
        acks = pd.DataFrame({"t": raw.get("ack_t", []), "ack": raw.get("ack_seq", [])})
        return {"sent": sent, "acks": acks}

    def reorder_density(self, flow: int | str = 0) -> np.ndarray:
        """RFC 5236 reorder density of a flow at displacements -8..8 (17 values)."""
        import numpy as np

        raw = self._data.get("reorder_density", {}).get(str(self._flow_index(flow)), [])
        return np.asarray(raw, dtype=float)

    @property
    def impairments(self) -> pd.DataFrame:
        """Per-impairment-element counters (seen, dropped, held, ...), in scenario order."""
        import pandas as pd

        return pd.DataFrame(self._data.get("impairments", []))

    @property
    def multipath_routes(self) -> list[int]:
        """Packets routed over each multipath path (all splitters, in order)."""
        return [int(n) for n in self._data.get("multipath_routes", [])]

    def to_dict(self) -> dict[str, Any]:
        """The raw result (a deep copy)."""
        copied: dict[str, Any] = json.loads(json.dumps(self._data))
        return copied

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self._data, indent=indent)

    def save(self, out: str | Path) -> list[Path]:
        """Write ``result.json``, ``flows.csv``, ``links.csv`` and series CSVs to ``out``."""
        import pandas as pd

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "result.json", out / "flows.csv", out / "links.csv"]
        written[0].write_text(self.to_json(indent=2), encoding="utf-8")
        self.flows.to_csv(written[1])
        self.links.to_csv(written[2])
        for index in sorted(self._data.get("series", {}), key=int):
            series = self.series(int(index))
            if series:
                path = out / f"series_flow{index}.csv"
                pd.DataFrame(series).to_csv(path, index=False)
                written.append(path)
        return written

    def plot_tsg(
        self,
        flow: int | str = 0,
        *,
        window: tuple[float, float] | None = None,
        out: str | Path | None = None,
    ) -> Figure:
        """The time-sequence graph of ``flow`` (tcptrace style: data
        segments, ACK line, SACK blocks, retransmissions by cause, spurious
        ones by the ground truth, the receive window; docs/plots.md) within
        ``window`` seconds, as a matplotlib figure; with ``out``, also
        written there as ``tsg_flowN.png``. The run must have recorded a
        trace: run :func:`reorderlab.runplots.with_plot_recording` of the
        scenario."""
        from reorderlab.runplots.files import DPI, figure_of, file_name

        index = self._flow_index(flow)
        figure = figure_of(self, "tsg", index, window)
        if out is not None:
            Path(out).mkdir(parents=True, exist_ok=True)
            figure.savefig(Path(out) / file_name("tsg", index), dpi=DPI)
        return figure

    def __repr__(self) -> str:
        cached = ", cached" if self.cached else ""
        return (
            f"Result(scenario={self.scenario_name!r}, seed={self.seed}, "
            f"flows={len(self._data.get('flows', []))}{cached})"
        )


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    *,
    store: Store | str | Path | None = None,
    pcap_dir: str | Path | None = None,
) -> Result:
    """Simulate ``scenario`` with ``seed`` (default: the scenario's own seed).

    With a ``store`` (a :class:`~reorderlab.store.Store` or a path to one), a
    run already stored under the same (scenario, seed, engine version) key is
    returned from it without simulating (``result.cached`` is True); a new run
    is stored. Invalid scenarios raise :class:`~reorderlab.scenario.ScenarioError`.

    A scenario with captures (``record.pcap``) writes them into ``pcap_dir``
    (default: the current directory) and is always simulated: the store
    keeps results, not captures (``result.captures`` lists the files).
    """
    sc = as_scenario(scenario)
    effective = sc.seed if seed is None else check_seed(seed)
    if sc.record.pcap:
        return _run_capturing(sc, effective, store, Path.cwd() if pcap_dir is None else pcap_dir)
    if store is None:
        text, wall = simulate_json(sc, effective)
        return Result.from_json(text, wall_s=wall)
    from reorderlab.store import Store

    own = not isinstance(store, Store)
    st = store if isinstance(store, Store) else Store(store)
    try:
        version = engine_version()
        key = sc.cache_key(effective, version)
        hit = st.get(key)
        if hit is not None:
            try:
                return Result.from_json(hit.result_json, key=key, cached=True, wall_s=hit.wall_s)
            except orjson.JSONDecodeError:
                raise st.damaged_run(key) from None
        text, wall = simulate_json(sc, effective)
        st.put(
            key,
            scenario_name=sc.name,
            seed=effective,
            engine_version=version,
            scenario_json=sc.canonical_json(effective),
            result_json=text,
            wall_s=wall,
        )
        return Result.from_json(text, key=key, wall_s=wall)
    finally:
        if own:
            st.close()


def _run_capturing(
    sc: Scenario, seed: int, store: Store | str | Path | None, pcap_dir: str | Path
) -> Result:
    """A run writing its captures; its result goes into ``store`` like any
    other (under the key of the scenario without captures)."""
    try:
        text, wall, captures = simulate_with_captures(sc.to_json(), seed, pcap_dir)
    except ValueError as exc:
        raise ScenarioError.from_core(str(exc), sc.name) from None
    count_simulations()
    key = None
    if store is not None:
        from reorderlab.store import Store

        own = not isinstance(store, Store)
        st = store if isinstance(store, Store) else Store(store)
        try:
            version = engine_version()
            key = sc.cache_key(seed, version)
            if st.get(key) is None:
                st.put(
                    key,
                    scenario_name=sc.name,
                    seed=seed,
                    engine_version=version,
                    scenario_json=sc.canonical_json(seed),
                    result_json=text,
                    wall_s=wall,
                )
        finally:
            if own:
                st.close()
    result = Result.from_json(text, key=key, wall_s=wall)
    result.captures = captures
    return result
