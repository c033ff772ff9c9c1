"""The validation's files and its section of the report.

``reorderlab validate --out DIR`` writes ``DIR/matrix.json`` (everything:
the kernel, the instrument checks, one row per cell), ``DIR/matrix.csv``
(the rows), ``DIR/heatmap_<kind>.png`` (simulator / kernel per cell) and
``DIR/section.html``. ``reorderlab report --out RESULTS`` shows that
section when ``RESULTS/validate/matrix.json`` exists (the default folder of
``reorderlab validate``), :func:`section_html`.
"""

from __future__ import annotations

import csv
import html
import json
import math
from pathlib import Path
from typing import Any

#: Where ``reorderlab validate`` writes, under the results folder.
FOLDER = "validate"

_COLUMNS = (
    "cell",
    "metric",
    "kernel",
    "sim",
    "sim_sd",
    "ratio",
    "band",
    "ok",
    "kernel_retransmits",
    "sim_retransmits",
    "kernel_fast_recoveries",
    "sim_fast_recoveries",
    "kernel_timeouts",
    "sim_timeouts",
    "kernel_spurious_retransmits",
    "sim_spurious_retransmits",
    "kernel_tlp_probes",
    "sim_tlp_probes",
    "kernel_undos",
    "sim_undos",
    "counts_off",
    "timing_p50_us",
    "timing_p99_us",
    "timing_max_us",
    "load",
    "attempts",
    "timing_flag",
    "first_difference",
)


def _axes(row: dict[str, Any]) -> tuple[str, str, str]:
    """(heat map, row label, column label) of a table row."""
    head = f"{row['config']} {row['cc']}"
    if row["kind"] == "bulk":
        reo = "none" if not row["reorder"] else f"{row['reorder']:.0%} x{row['hold_rtt']:g}RTT"
        return (
            "bulk",
            f"{head} {row['rate_mbps']:g}M {row['rtt_ms']:g}ms",
            f"{reo} loss {row['loss']:.0%}",
        )
    if row["kind"] == "tail":
        return "tail", f"{head} {row['rtt_ms']:g}ms", f"n={row['lost']}"
    return "burst", head, f"{row['rtt_ms']:g}ms"


def heatmaps(out: Path, rows: list[dict[str, Any]]) -> list[str]:
    """One heat map per kind of cell; returns the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    names = []
    for kind in ("bulk", "tail", "burst"):
        mine = [(_axes(r), r) for r in rows if r["kind"] == kind]
        if not mine:
            continue
        ys = list(dict.fromkeys(a[1] for a, _ in mine))
        xs = list(dict.fromkeys(a[2] for a, _ in mine))
        grid = [[math.nan] * len(xs) for _ in ys]
        fig, ax = plt.subplots(figsize=(1.2 + 1.1 * len(xs), 0.9 + 0.32 * len(ys)))
        for (_, y, x), r in mine:
            i, j = ys.index(y), xs.index(x)
            grid[i][j] = r["ratio"]
            mark = "" if r["ok"] else "*"
            text = "n/a" if math.isnan(r["ratio"]) else f"{r['ratio']:.2f}{mark}"
            ax.text(j, i, text, ha="center", va="center", fontsize=7)
        im = ax.imshow(grid, cmap="RdBu_r", norm=TwoSlopeNorm(1.0, 0.7, 1.3), aspect="auto")
        ax.set_xticks(range(len(xs)), xs, rotation=45, ha="right", fontsize=7)
        ax.set_yticks(range(len(ys)), ys, fontsize=7)
        what = "FCT" if kind != "bulk" else "goodput"
        ax.set_title(f"{kind}: simulator / kernel {what} (* misses its target)", fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.8)
        fig.tight_layout()
        name = f"heatmap_{kind}.png"
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        names.append(name)
    return names


def write(out: Path, doc: dict[str, Any]) -> None:
    """``matrix.json``, ``matrix.csv``, the heat maps and ``section.html``."""
    doc["heatmaps"] = heatmaps(out, doc["rows"])
    (out / "matrix.json").write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
    with (out / "matrix.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(_COLUMNS), extrasaction="ignore")
        w.writeheader()
        w.writerows(doc["rows"])
    (out / "section.html").write_text(section_html(doc, ""), encoding="utf-8")


def _e(x: object) -> str:
    return html.escape(str(x))


def _num(x: Any, fmt: str = "{:.3g}") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return fmt.format(x) if isinstance(x, int | float) else _e(x)


def section_html(doc: dict[str, Any], prefix: str) -> str:
    """The report's section (``prefix``: the folder of the images relative
    to the page)."""
    rows = doc["rows"]
    ok = sum(1 for r in rows if r["ok"])
    k = doc["kernel"]
    flagged = sum(1 for r in rows if r.get("timing_flag"))
    out = [
        '<section id="validate">',
        "<h2>Validation: the simulator against this machine's kernel</h2>",
        f"<p>Kernel {_e(k['release'])} (HZ {_e(k.get('hz'))}), engine {_e(doc['engine_version'])}, "
        f"{_e(doc['mode'])} matrix: <b>{ok} of {len(rows)} cells</b> within their targets "
        f"(Linux 10 %, Linux-classic 15 % in goodput or FCT; counts within 20 % or +/-2); "
        f"{flagged} flagged for the emulator's timing; {doc['seconds'] / 60:.1f} min.</p>",
    ]
    if doc.get("instrument"):
        heads = ("instrument check", "measured", "expected", "", "detail")
        out.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr>")
        for c in doc["instrument"]:
            verdict = "holds" if c["holds"] else "<b>does not hold</b>"
            tds = [
                _e(c["name"]),
                f"{_num(c['measured'], '{:.4g}')} {_e(c['unit'])}",
                _num(c["expected"], "{:.4g}"),
                verdict,
                _e(c["detail"]),
            ]
            out.append("<tr>" + "".join(f"<td>{t}</td>" for t in tds) + "</tr>")
        out.append("</table>")
    for name in doc.get("heatmaps", []):
        out.append(f'<p><img src="{_e(prefix + name)}" alt="{_e(name)}"></p>')
    cols = (
        "cell",
        "kernel",
        "sim",
        "ratio",
        "retx k/s",
        "recov k/s",
        "RTO k/s",
        "spur k/s",
        "p99 us",
        "first difference",
    )
    out.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in cols) + "</tr>")
    for r in rows:
        style = "" if r["ok"] else ' style="background:#fde0dc"'
        pairs = [
            f"{_num(r['kernel_' + n], '{:g}')} / {_num(r['sim_' + n], '{:.1f}')}"
            for n in ("retransmits", "fast_recoveries", "timeouts", "spurious_retransmits")
        ]
        cells = [
            _e(r["cell"]),
            _num(r["kernel"]),
            _num(r["sim"]),
            _num(r["ratio"], "{:.3f}"),
            *pairs,
            _num(r["timing_p99_us"], "{:.0f}") + (" (flagged)" if r.get("timing_flag") else ""),
            _e(r["first_difference"]),
        ]
        out.append(f"<tr{style}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out += ["</table>", "</section>"]
    return "\n".join(out)


def find_section(results: Path) -> str | None:
    """The section for ``RESULTS/index.html`` if a validation was written
    into ``RESULTS/validate``."""
    path = results / FOLDER / "matrix.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text(encoding="utf-8"))
    return section_html(doc, f"{FOLDER}/")
