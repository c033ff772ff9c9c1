"""The OCT samples of Fig. 4 (:mod:`.fig4`): the paper's two readings of its
sample selection, each point's runs pooled over its seeds, and the tables
made of those pools."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.papers.kit.runs import (
    Runs,
)
from reorderlab.papers.tail_loss.setting import (
    BASELINE,
    FIG4_CASES,
    PAPER_VARIANTS,
    SITES,
    as_records,
    floats,
    ints,
)
from reorderlab.store.codec import (
    Records,
)

#: The two readings of the paper's sample selection (Sec. 3.3: "all objects
#: in flows where at least one object experienced a segment retransmission
#: in one of the four last segments of the object").
SELECTIONS = ("connections", "objects")


def selected_octs(objects: Records | Sequence[dict[str, Any]], selection: str) -> list[float]:
    """OCTs of the paper's selection, in the objects' order. ``connections``
    (the literal reading, a "flow" being a persistent connection): every
    completed object of each connection of a download on which at least one
    object had a retransmitted segment among its last four. ``objects`` (a
    "flow" being one object's transfer, as in Fig. 3): only the completed
    objects that had such a retransmission."""
    objs = as_records(objects)
    return list(_selected(objs, floats(objs, "oct"), selection).tolist())


def _selected(objs: Records, octs: np.ndarray, selection: str) -> np.ndarray:
    """:func:`selected_octs` given the objects' OCT column, as an array."""
    if objs.n == 0:
        return np.empty(0)
    tail = ints(objs, "tail_retransmits") > 0
    keep = ~np.isnan(octs)
    if selection == "objects":
        keep &= tail
    else:
        conn = ints(objs, "connection")
        # (page, connection) as one number: connections are numbered from 0
        pair = ints(objs, "page") * (int(conn.max()) + 1) + conn
        keep &= np.isin(pair, pair[tail])
    chosen: np.ndarray = octs[keep]
    return chosen


def _joined(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Arrays one after the other (a copy)."""
    return np.concatenate(parts) if parts else np.empty(0)


@dataclass(frozen=True)
class Fig4:
    """Per point, over its seeds: counts and OCT statistics of each
    selection (``table``); the OCT samples by (selection, variant, site,
    RTT)."""

    table: pd.DataFrame
    octs: dict[tuple[str, str, str, float], np.ndarray]


#: Counters summed over a point's seeds: (column, generator field).
_FIG4_COUNTS = (
    ("pages", "pages_completed"),
    ("unfinished", "active_at_end"),
    ("data_packets", "data_packets_sent"),
    ("spurious", "spurious_retransmits"),
    ("dsacks", "dsacks_received"),
)


@dataclass
class Pool:
    """One Fig. 4 point pooled over its seeds: counters and OCT samples
    (each kept as its runs' arrays, in order: :meth:`sample` joins them;
    as Python floats the samples of the full Fig. 4 took ~400 MB)."""

    counts: dict[str, float]
    done: list[np.ndarray]
    octs: dict[str, list[np.ndarray]]
    seeds: int = 0

    def completed(self) -> np.ndarray:
        """The OCTs of every completed object, run by run."""
        return _joined(self.done)

    def sample(self, selection: str) -> np.ndarray:
        """The OCTs of a selection (:data:`SELECTIONS`), run by run."""
        return _joined(self.octs.get(selection, []))

    def add(self, raw: dict[str, Any]) -> None:
        """Add one run (its selections are made within the run: page and
        connection numbers are per run)."""
        gen = raw["traffic"][0]
        objs = as_records(gen["object_list"])
        octs = floats(objs, "oct")
        ge = raw["impairments"][0]
        link = next(x for x in raw["links"] if x["link"] == "R1->R2")
        more = {col: float(gen[field]) for col, field in _FIG4_COUNTS}
        more["ge_seen"], more["ge_dropped"] = float(ge["seen"]), float(ge["dropped"])
        more["queue_drops"] = float(link["queue_drops"])
        for col, v in more.items():
            self.counts[col] = self.counts.get(col, 0.0) + float(v)
        self.done.append(octs[~np.isnan(octs)])
        for sel_name in SELECTIONS:
            self.octs.setdefault(sel_name, []).append(_selected(objs, octs, sel_name))
        self.seeds += 1

    def merge(self, other: Pool) -> None:
        """Add another pool's runs."""
        for col, v in other.counts.items():
            self.counts[col] = self.counts.get(col, 0.0) + v
        self.done.extend(other.done)
        for sel_name, x in other.octs.items():
            self.octs.setdefault(sel_name, []).extend(x)
        self.seeds += other.seeds


def pool_row(key: tuple[str, str, float], pool: Pool) -> dict[str, Any]:
    """The Fig. 4 table's row of one (variant, site, RTT), over its seeds."""
    v, site, rtt = key
    c = pool.counts
    nan = float("nan")
    done = pool.completed()
    row: dict[str, Any] = {
        "variant": v,
        "site": site,
        "rtt": rtt,
        "seeds": pool.seeds,
        "pages": int(c["pages"]),
        "objects": len(done),
        "unfinished": int(c["unfinished"]),
        "mean_all": float(np.mean(done)) if len(done) else nan,
    }
    for sel_name in SELECTIONS:
        x = pool.sample(sel_name)
        row[f"{sel_name}.n"] = len(x)
        row[f"{sel_name}.mean"] = float(x.mean()) if len(x) else nan
        row[f"{sel_name}.median"] = float(np.median(x)) if len(x) else nan
        row[f"{sel_name}.p90"] = float(np.percentile(x, 90)) if len(x) else nan
        row[f"{sel_name}.below_1s"] = float(np.mean(x < 1.0)) if len(x) else nan
    sent = max(1.0, c["data_packets"])
    return {
        **row,
        "data_packets": int(c["data_packets"]),
        "spurious": int(c["spurious"]),
        "dsacks": int(c["dsacks"]),
        "spurious_frac": c["spurious"] / sent,
        "dsack_frac": c["dsacks"] / sent,
        "ge_seen": int(c["ge_seen"]),
        "ge_dropped": int(c["ge_dropped"]),
        "queue_drops": int(c["queue_drops"]),
    }


Fig4Key = tuple[str, str, float]


def pools_by_seed(
    runs: Runs, name: str, key: Callable[[dict[str, Any]], Any]
) -> dict[int, dict[Any, Pool]]:
    """The runs of sweep ``name`` as pools by seed, then by ``key(rec)``."""
    pools: dict[int, dict[Any, Pool]] = {}
    for rec, raw in runs.results(name, columns=True):
        by_key = pools.setdefault(int(rec["seed"]), {})
        by_key.setdefault(key(rec), Pool({}, [], {})).add(raw)
    return pools


def merged_over_seeds(per_seed: dict[int, dict[Any, Pool]]) -> dict[Any, Pool]:
    """Each key's pools merged over the seeds."""
    out: dict[Any, Pool] = {}
    for seed in sorted(per_seed):
        for key, pool in per_seed[seed].items():
            out.setdefault(key, Pool({}, [], {})).merge(pool)
    return out


def fig4_of(pools: dict[Fig4Key, Pool]) -> Fig4:
    table = pd.DataFrame([pool_row(key, pool) for key, pool in pools.items()])
    octs = {(sel, *key): pool.sample(sel) for key, pool in pools.items() for sel in SELECTIONS}
    return Fig4(table, octs)


def fig4_sensitivity(pools: dict[tuple[int, str, str], Pool]) -> pd.DataFrame:
    """Per bottleneck queue and site (RTT 10 ms): the mean-OCT reduction of
    RTOR, TLP and TLPR over the baseline (objects selection) and the share
    of data packets the queue drops."""
    rows = []
    for q in sorted({k[0] for k in pools}):
        for site in SITES:
            base = pools[(q, site, BASELINE)]
            base_mean = float(np.mean(base.sample("objects")))
            row: dict[str, Any] = {"queue": q, "site": site, "seeds": base.seeds}
            for v in PAPER_VARIANTS[1:]:
                row[v] = 1 - float(np.mean(pools[(q, site, v)].sample("objects"))) / base_mean
            row["queue_drops"] = base.counts["queue_drops"] / max(1.0, base.counts["data_packets"])
            rows.append(row)
    return pd.DataFrame(rows)


def fig4_deciles(data: Fig4) -> pd.DataFrame:
    """Per selection, site, RTT and mechanism: 1 - its OCT decile / the
    baseline's (deciles 10 .. 90 %), the reduction read off the CDFs."""
    q = np.arange(1, 10) / 10
    rows = []
    for sel_name in SELECTIONS:
        for site, rtt in FIG4_CASES:
            base = data.octs.get((sel_name, BASELINE, site, rtt), np.empty(0))
            if not len(base):
                continue
            b = np.quantile(base, q)
            for v in PAPER_VARIANTS[1:]:
                x = data.octs.get((sel_name, v, site, rtt), np.empty(0))
                if len(x):
                    red = 1 - np.quantile(x, q) / b
                    row = {"selection": sel_name, "site": site, "rtt": rtt, "variant": v}
                    rows.append(
                        row | {f"p{round(100 * k)}": float(r) for k, r in zip(q, red, strict=True)}
                    )
    return pd.DataFrame(rows)
