"""Which sender copes with my network? :func:`compare` (``reorderlab.compare``,
``reorderlab compare`` on the command line) runs each chosen sender variant
on a scenario (every flow of it gets the variant), with several seeds,
through the normal sweep (cached in the store, parallel, Dask-capable), and
ranks the variants in a league table.

Per variant (and congestion control), as mean over the seeds with a 95 %
Student-t confidence interval:

* ``goodput``: data delivered in order to the receivers, per second (the
  flows' ``throughput_bps``, summed over the scenario's flows);
* ``share_undisturbed``: that goodput over the goodput of the *undisturbed*
  scenario, which is the same scenario with its impairments removed and no
  per-packet multipath splitting (packets follow the routing table), run
  with the same variant and seed;
* ``spurious_retransmits``: retransmissions of segments that had not been
  lost, by the simulator's ground truth (no real sender can count these);
* ``timeouts`` and ``retransmits``;
* ``queue_drops``: packets dropped by the links' queues (every link of
  the run, both directions), the drops a queue below the path's BDP makes;
* ``fct``: flow completion time of finite flows (the mean over the
  scenario's flows; a flow still open at the end counts as the run's
  duration, a lower bound, and ``completed`` says how many finished).

Variants are ranked by goodput (highest first) or, when every flow of the
scenario is finite, by completion time (lowest first). Senders whose 95 %
intervals overlap are not told apart: a sender's rank is one more than the
number of senders whose interval lies wholly better than its own (never
below the rank of the row above), so overlapping ones share a rank, and
``tied`` marks every rank held by more than one sender (shown ``=N``).
Each variant runs with the congestion control its own paper used (its
entry in the core's registry, ``tcp/variants/registry.rs``) unless ``cc``
names one for all.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from reorderlab import _core
from reorderlab.league_quic import as_quic_flows, quic_note
from reorderlab.runner import as_scenario
from reorderlab.scenario import (
    FieldError,
    Scenario,
    ScenarioError,
    did_you_mean,
    format_value,
    known_names,
)
from reorderlab.sweep import DEFAULT, seeds_list, sweep
from reorderlab.sweep.file import make_name

__all__ = [
    "LEAGUE_COLUMNS",
    "UNDISTURBED",
    "compare",
    "folder_name",
    "league_table",
    "link_latest",
    "paper_cc",
    "queue_drops",
    "undisturbed",
    "write_league",
]

#: What "undisturbed" means, for captions and the table's notes.
UNDISTURBED = (
    "the same scenario without its impairments and without per-packet multipath "
    "splitting, same variant and seed"
)

#: The league table's columns, in order.
LEAGUE_COLUMNS = (
    "rank",
    "tied",
    "variant",
    "cc",
    "goodput_mbps",
    "goodput_ci",
    "share_undisturbed",
    "share_ci",
    "spurious_retransmits",
    "timeouts",
    "queue_drops",
    "retransmits",
    "fct_s",
    "fct_ci",
    "completed",
    "seeds",
)


def paper_cc() -> dict[str, str]:
    """Variant -> the congestion control its paper used (registry names)."""
    return {str(v["name"]): str(v["paper_cc"]) for v in json.loads(_core.variants())}


def undisturbed(scenario: Scenario) -> Scenario:
    """``scenario`` without impairments and multipath splitting (captures
    dropped too: they are no part of a result); on a fat-tree, its switches
    route by ECMP (every packet of a flow on one path, ``docs/fabrics.md``)."""
    data = scenario.to_dict()
    data["impairments"] = []
    data["multipath"] = []
    if data["topology"].get("kind") == "fat_tree":
        data["topology"]["load_balancing"] = "ecmp"
    data.get("record", {}).pop("pcap", None)
    data["name"] = f"{scenario.name} (undisturbed)"
    return Scenario.from_dict(data)


def is_quic_variant(name: str) -> bool:
    """A QUIC variant of the registry (``crates/reorderlab/src/quic/variants.rs``:
    every name is ``QUIC`` or starts with ``QUIC-``)."""
    return name == "QUIC" or name.startswith("QUIC-")


def is_uet_variant(name: str) -> bool:
    """A UET variant of the registry (``crates/reorderlab/src/uet/config.rs``:
    every name is ``UET`` or starts with ``UET-``)."""
    return name == "UET" or name.startswith("UET-")


def _pick_variants(variants: str | Sequence[str]) -> list[str]:
    """``"all"``, a comma-separated string or a list -> registry names
    (aliases resolved, duplicates dropped)."""
    known = known_names("variants")
    if isinstance(variants, str):
        if variants.strip().lower() == "all":
            # the TCP senders: a QUIC variant (docs/quic.md) or a UET one
            # (docs/fabrics.md) runs when named
            return [v for v in known if not (is_quic_variant(v) or is_uet_variant(v))]
        variants = [v.strip() for v in variants.split(",") if v.strip()]
    elif isinstance(variants, bytes | Mapping) or not isinstance(variants, Iterable):
        message = (
            f"must be 'all', names comma-separated or a list of names, got {format_value(variants)}"
        )
        raise ScenarioError([FieldError("variants", message)])
    variants = list(variants)
    if not variants:
        raise ScenarioError([FieldError("variants", "must name at least one variant")])
    out: list[str] = []
    for i, name in enumerate(variants):
        try:
            resolved = _core.canonical_variant(str(name))
        except UnicodeEncodeError:  # a lone surrogate: no variant's name
            resolved = None
        if resolved is None:
            hint = did_you_mean(str(name), known)
            message = f"unknown variant {format_value(name)}{hint} (known: {', '.join(known)})"
            raise ScenarioError([FieldError(f"variants[{i}]", message)])
        if resolved not in out:
            out.append(resolved)
    return out


def _check_cc(cc: str | None) -> str | None:
    if cc is None:
        return None
    known = known_names("congestion_controls")
    if not isinstance(cc, str):
        message = f"must be the name of a congestion control, got {format_value(cc)}"
        raise ScenarioError([FieldError("cc", message)])
    for name in known:
        if name.lower() == cc.lower():
            return name
    hint = did_you_mean(cc, known)
    message = f"unknown congestion control {format_value(cc)}{hint} (known: {', '.join(known)})"
    raise ScenarioError([FieldError("cc", message)])


def _with_sender(scenario: Scenario, variant: str, cc: str) -> tuple[Scenario, str | None]:
    """Every flow of ``scenario`` with this variant and congestion control;
    for a QUIC variant, its flows' TCP-only fields carried or dropped
    (:mod:`reorderlab.league_quic`), and the note saying which (None when
    none or for a TCP variant)."""
    data = scenario.to_dict()
    for section in ("flows", "workloads"):
        for item in data.get(section) or []:
            item["variant"] = variant
            item["cc"] = cc
    note = None
    if is_quic_variant(variant):
        note = quic_note(*as_quic_flows(data))
    return Scenario.from_dict(data), note


def compare(
    scenario: Scenario | Mapping[str, Any] | str | Path,
    variants: str | Sequence[str] = "all",
    cc: str | None = None,
    seeds: int | Iterable[int] = 5,
    *,
    backend: Any = "local",
    address: Any = None,
    workers: int | None = None,
    store: Any = DEFAULT,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The league table of ``variants`` on ``scenario`` (module docstring).

    ``variants``: ``"all"`` (every registered TCP variant; a QUIC one runs
    when named), a comma-separated string or a list of names. ``cc``: one
    congestion control for every
    variant (default: each variant's paper's). ``seeds``: a count or a list.
    ``backend``, ``address``, ``workers``, ``store`` and ``progress`` are
    :func:`reorderlab.sweep`'s (the default store caches every run; None
    caches nothing).

    Returns the table (columns :data:`LEAGUE_COLUMNS`, best first);
    ``attrs["runs"]`` holds every run (``disturbed`` True / False),
    ``attrs["ranked_by"]`` the ranking metric, ``attrs["stats"]`` the
    sweep's :class:`~reorderlab.sweep.SweepStats`.
    """
    sc = as_scenario(scenario)
    if not sc.flows and not sc.workloads:
        raise ScenarioError(
            [FieldError("flows", "compare needs at least one flow (or workload), got []")]
        )
    names = _pick_variants(variants)
    fixed_cc = _check_cc(cc)
    defaults = paper_cc()
    seed_values = seeds_list(seeds)
    calm = undisturbed(sc)
    points: list[tuple[dict[str, Any], Scenario]] = []
    notes: list[str] = []
    for name in names:
        chosen = fixed_cc or defaults[name]
        for disturbed, base in ((True, sc), (False, calm)):
            params = {"variant": name, "cc": chosen, "disturbed": disturbed}
            point, said = _with_sender(base, name, chosen)
            points.append((params, point))
            if said is not None and said not in notes:
                notes.append(said)
    drops: dict[str, float] = {}

    def note(job: Any, text: str) -> None:
        drops[job.key] = queue_drops(orjson.loads(text))

    runs = sweep(
        points,
        seed_values,
        backend=backend,
        address=address,
        workers=workers,
        store=store,
        progress=progress,
        on_run=note,
    )
    runs["queue_drops"] = _stored_drops(list(runs["key"]), drops, store)
    # a workload's flows are known once it is expanded: count them in each run
    n_flows = None if sc.workloads else len(sc.flows)
    table = league_table(runs, n_flows=n_flows, duration=sc.duration, finite=_finite(sc))
    table.attrs["runs"] = runs
    table.attrs["stats"] = runs.attrs.get("stats")
    table.attrs["scenario"] = sc.name
    table.attrs["seeds"] = seed_values
    table.attrs["identity"] = _identity(sc, names, fixed_cc, seed_values)
    table.attrs["notes"] = notes
    return table


def queue_drops(result: Mapping[str, Any]) -> float:
    """Packets a run's link queues dropped (every link, both directions)."""
    return float(sum(int(link.get("queue_drops", 0)) for link in result.get("links", [])))


def _stored_drops(keys: list[str], known: dict[str, float], store: Any) -> list[float]:
    """Each run's queue drops: those just simulated (``known``), the others
    read back from the store they were found in."""
    missing = [k for k in keys if k not in known]
    if missing and store is not None:
        from reorderlab.store import Store

        st = store if isinstance(store, Store) else Store(None if store is DEFAULT else store)
        try:
            for key in missing:
                hit = st.get(key)
                if hit is not None:
                    known[key] = queue_drops(orjson.loads(hit.result_json))
        finally:
            if st is not store:
                st.close()
    return [known.get(k, math.nan) for k in keys]


def _identity(sc: Scenario, variants: list[str], cc: str | None, seeds: list[int]) -> str:
    """What a compare run is (scenario, senders, options), as a short hash:
    its folder's name (:func:`folder_name`)."""
    what = {"scenario": sc.canonical_json(), "variants": variants, "cc": cc, "seeds": seeds}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode("utf-8")).hexdigest()[:10]


def folder_name(table: pd.DataFrame) -> str:
    """``SCENARIO-HASH``: one folder per compare run, the hash of its
    scenario, variants and options (:func:`_identity`)."""
    name = str(table.attrs.get("scenario", "scenario"))
    # a name, not a path, and short enough for a file name (a scenario
    # named with 200 letters of 2 bytes: "File name too long")
    safe = make_name(name, "scenario").rstrip(".-") or "scenario"
    ident = str(table.attrs.get("identity", ""))
    return f"{safe}-{ident}" if ident else safe


def link_latest(folder: Path) -> Path | None:
    """Point ``latest`` beside ``folder`` at it (a relative symbolic link,
    replaced each time); None where links cannot be made."""
    link = folder.parent / "latest"
    try:
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists():
            return None  # a real folder named latest: left alone
        link.symlink_to(folder.name, target_is_directory=True)
    except OSError:
        return None
    return link


def _finite(sc: Scenario) -> bool:
    """Every flow of the scenario sends a fixed number of segments (a
    workload's always do)."""
    return all(f.segments > 0 for f in sc.flows)


# --- the table -----------------------------------------------------------------


def _flow_count(row: Mapping[str, Any]) -> int:
    """The flows of a run, from its sweep table row (``f{i}.completed`` for
    several flows, plain ``completed`` for one)."""
    n = sum(1 for k in row if k.startswith("f") and k.endswith(".completed"))
    return n or 1


def _flow_values(row: Mapping[str, Any], metric: str, n_flows: int | None) -> list[Any]:
    """A metric of each of the scenario's flows, from a sweep table row
    (``n_flows`` None: as many as the row has)."""
    if n_flows is None:
        n_flows = _flow_count(row)
    if n_flows == 1:
        return [row.get(metric)]
    return [row.get(f"f{i}.{metric}") for i in range(n_flows)]


def _number(value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return math.nan
    return x


def run_metrics(row: Mapping[str, Any], n_flows: int | None, duration: float) -> dict[str, float]:
    """One run's metrics summed (counts, goodput) or averaged (completion
    time) over the scenario's flows."""

    def total(metric: str) -> float:
        return sum(_number(v) for v in _flow_values(row, metric, n_flows))

    done = [bool(v) for v in _flow_values(row, "completed", n_flows)]
    fcts = [_number(v) for v in _flow_values(row, "fct", n_flows)]
    start = [_number(v) for v in _flow_values(row, "start", n_flows)]
    # an unfinished flow: the run's end, a lower bound of its completion time
    times = [f if ok else duration - s for f, ok, s in zip(fcts, done, start, strict=True)]
    return {
        "goodput_bps": total("throughput_bps"),
        "spurious_retransmits": total("spurious_retransmits"),
        "timeouts": total("timeouts"),
        "retransmits": total("retransmits"),
        "queue_drops": _number(row.get("queue_drops")),
        "fct_s": sum(times) / len(times),
        "completed": sum(done) / len(done),
    }


#: Two-sided 95 % Student-t quantiles t(0.975, df) for df = 1..30.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom
    (table to 30, then the normal approximation with a 1/df correction)."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    return 1.959964 + 2.4 / df


@dataclass(frozen=True)
class MeanCI:
    """Mean of a sample and the half-width of its 95 % confidence interval
    (NaN with fewer than two finite values)."""

    mean: float
    half: float

    @classmethod
    def of(cls, values: Iterable[float]) -> MeanCI:
        xs = [x for x in values if not math.isnan(x)]
        if not xs:
            return cls(math.nan, math.nan)
        mean = sum(xs) / len(xs)
        if len(xs) < 2:
            return cls(mean, math.nan)
        var = sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)
        return cls(mean, t975(len(xs) - 1) * math.sqrt(var / len(xs)))


def league_table(
    runs: pd.DataFrame, *, n_flows: int | None, duration: float, finite: bool
) -> pd.DataFrame:
    """The ranked table of a compare sweep's runs (columns :data:`LEAGUE_COLUMNS`)."""
    by_sender: dict[tuple[str, str], dict[bool, dict[int, dict[str, float]]]] = {}
    for raw in runs.to_dict("records"):
        row = {str(k): v for k, v in raw.items()}
        sender = (str(row["variant"]), str(row["cc"]))
        side = by_sender.setdefault(sender, {True: {}, False: {}})
        side[bool(row["disturbed"])][int(row["seed"])] = run_metrics(row, n_flows, duration)
    rows = [
        _league_row(variant, cc, side[True], side[False], finite)
        for (variant, cc), side in by_sender.items()
    ]
    metric, sign = ("fct_s", 1.0) if finite else ("goodput_mbps", -1.0)

    def order(row: dict[str, Any]) -> tuple[float, str, str]:
        value = float(row[metric])
        return (math.inf if math.isnan(value) else sign * value, row["variant"], row["cc"])

    rows.sort(key=order)
    _rank(rows, metric, sign)
    table = pd.DataFrame(rows, columns=list(LEAGUE_COLUMNS))
    table.attrs["ranked_by"] = metric
    return table


def _rank(rows: list[dict[str, Any]], metric: str, sign: float) -> None:
    """Set ``rank`` and ``tied`` of ``rows`` (sorted best first): one more
    than the number of rows whose 95 % interval lies wholly better, at
    least the rank above; ``tied`` where a rank is shared. A missing
    interval (one seed) is the mean alone; a missing mean ranks last."""
    ci = "fct_ci" if metric == "fct_s" else "goodput_ci"

    def interval(row: dict[str, Any]) -> tuple[float, float]:
        mean, half = float(row[metric]), float(row[ci])
        if math.isnan(mean):
            return (math.inf, math.inf)
        half = 0.0 if math.isnan(half) else half
        # in "lower is better" terms: sign * value
        ends = (sign * (mean - half), sign * (mean + half))
        return (min(ends), max(ends))

    spans = [interval(r) for r in rows]
    previous = 1
    for i, row in enumerate(rows):
        better = sum(1 for j, s in enumerate(spans) if j != i and s[1] < spans[i][0])
        previous = max(previous, better + 1)
        row["rank"] = previous
    for row in rows:
        row["tied"] = sum(1 for r in rows if r["rank"] == row["rank"]) > 1


def _league_row(
    variant: str,
    cc: str,
    hit: dict[int, dict[str, float]],
    calm: dict[int, dict[str, float]],
    finite: bool,
) -> dict[str, Any]:
    """One sender's row: its runs on the scenario (``hit``) and on the
    undisturbed scenario (``calm``), by seed."""
    seeds = sorted(hit)
    shares = [
        hit[s]["goodput_bps"] / calm[s]["goodput_bps"]
        if s in calm and calm[s]["goodput_bps"] > 0
        else math.nan
        for s in seeds
    ]
    goodput = MeanCI.of(hit[s]["goodput_bps"] / 1e6 for s in seeds)
    share = MeanCI.of(shares)
    fct = MeanCI.of(hit[s]["fct_s"] for s in seeds)
    mean = {k: sum(hit[s][k] for s in seeds) / len(seeds) for k in hit[seeds[0]]}
    return {
        "variant": variant,
        "cc": cc,
        "goodput_mbps": goodput.mean,
        "goodput_ci": goodput.half,
        "share_undisturbed": share.mean,
        "share_ci": share.half,
        "spurious_retransmits": mean["spurious_retransmits"],
        "timeouts": mean["timeouts"],
        "queue_drops": mean["queue_drops"],
        "retransmits": mean["retransmits"],
        "fct_s": fct.mean if finite else math.nan,
        "fct_ci": fct.half if finite else math.nan,
        "completed": mean["completed"] if finite else math.nan,
        "seeds": len(seeds),
    }


# --- files ---------------------------------------------------------------------


def write_league(table: pd.DataFrame, out: str | Path) -> list[Path]:
    """Write ``league.csv``, ``league.json`` (what the table is), ``runs.csv``
    and the bar chart ``league.png`` / ``league.svg`` into ``out``."""
    # Imported here, the one import of this module that waits for its use:
    # matplotlib (hundreds of ms) only for a league written to files.
    from reorderlab.plot import bar_plot

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "league.csv", folder / "league.json", folder / "runs.csv"]
    table.to_csv(paths[0], index=False)
    ranked_by = str(table.attrs.get("ranked_by", "goodput_mbps"))
    meta = {
        "scenario": table.attrs.get("scenario", ""),
        "seeds": list(table.attrs.get("seeds", [])),
        "ranked_by": ranked_by,
        "confidence": "95 % Student-t interval of the mean over seeds",
        "undisturbed": UNDISTURBED,
        "identity": table.attrs.get("identity", ""),
        "ties": "ranks whose 95 % intervals overlap are shared (tied: true, shown =N)",
    }
    if table.attrs.get("notes"):
        meta["notes"] = list(table.attrs["notes"])
    paths[1].write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    runs = table.attrs.get("runs")
    if runs is not None:
        runs.to_csv(paths[2], index=False)
    finite = ranked_by == "fct_s"
    value, ci = ("fct_s", "fct_ci") if finite else ("goodput_mbps", "goodput_ci")
    # each bar named as its row of the table: rank (=N when shared), variant, cc
    ranks = [
        f"={r}" if bool(t) else str(r) for r, t in zip(table["rank"], table["tied"], strict=True)
    ]
    labels = [
        f"{k} {v} ({c})" for k, v, c in zip(ranks, table["variant"], table["cc"], strict=True)
    ]
    n = len(meta["seeds"])
    paths += bar_plot(
        folder,
        "league",
        labels,
        [float(x) for x in table[value]],
        [float(x) for x in table[ci]],
        xlabel="flow completion time (s)" if finite else "goodput (Mb/s)",
        title=f"{meta['scenario']}: mean of {n} seed(s), 95 % CI",
    )
    return paths
