"""The report's conformance section: the pass table of the packet-level
scripts (``reorderlab script ... --out DIR`` writes ``DIR/conformance.json``,
:mod:`reorderlab.conformance`), one row per script, one column per backend."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

FILE = "conformance.json"


def read_outcomes(out: Path) -> list[dict[str, Any]]:
    """The outcomes in ``out/conformance.json`` (none when there is no such
    file; a file that cannot be read is an error naming it)."""
    path = Path(out) / FILE
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a conformance outcome list: {exc}") from None
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise ValueError(f"{path}: not a conformance outcome list")
    return data


def conformance_html(outcomes: list[dict[str, Any]]) -> str:
    """A ``<section>`` with the table (empty string for no outcomes)."""
    if not outcomes:
        return ""
    backends = sorted({str(o.get("backend", "")) for o in outcomes})
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    for o in outcomes:
        rows.setdefault(Path(str(o.get("path", ""))).name, {})[str(o.get("backend", ""))] = o
    passed = {
        b: sum(1 for r in rows.values() if r.get(b, {}).get("status") == "pass") for b in backends
    }
    head = "".join(f"<th>{html.escape(b)}</th>" for b in backends)
    lines = [
        '<section id="conformance">',
        "<h2>Packet-level conformance scripts</h2>",
        "<p>"
        + ", ".join(f"{html.escape(b)}: {passed[b]} of {len(rows)} pass" for b in backends)
        + " (docs/conformance.md).</p>",
        f"<table><tr><th>script</th>{head}</tr>",
    ]
    for name, row in rows.items():
        cells = "".join(_cell(row.get(b)) for b in backends)
        lines.append(f"<tr><td>{html.escape(name)}</td>{cells}</tr>")
    lines += ["</table>", "</section>"]
    return "\n".join(lines)


def _cell(o: dict[str, Any] | None) -> str:
    if o is None:
        return "<td>-</td>"
    status = str(o.get("status", ""))
    why = o.get("xfail_reason") or o.get("skip_reason") or ""
    failure = o.get("failure") or {}
    if isinstance(failure, dict) and failure.get("message") and status != "pass":
        why = f"{why} [{failure.get('where', '')}: {failure['message']}]".strip()
    title = f' title="{html.escape(str(why))}"' if why else ""
    return f'<td class="{html.escape(status)}"{title}>{html.escape(status)}</td>'
