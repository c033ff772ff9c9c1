"""What a results folder was made with: ``DIR/reproduction.json``, written
by ``reproduce`` for the report's header (mode, date, engine and model
revision, machine).

Each paper keeps the mode and date of its last reproduction (a figure
rerun in quick mode into a full reproduction's folder makes that paper
"quick"), so the header says what the page really shows. The report reads
the file and adds nothing of its own: the same files, the same page.
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["INFO_FILE", "RunInfo", "machine", "read_info", "record_papers"]

INFO_FILE = "reproduction.json"


def machine() -> str:
    """``"Linux x86_64, AMD EPYC 7B13, 2 cores, Python 3.11.9"``."""
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [f"{platform.system()} {platform.machine()}", cpu, f"{os.cpu_count() or 1} cores"]
    return ", ".join(p for p in parts if p) + f", Python {platform.python_version()}"


@dataclass(frozen=True)
class RunInfo:
    """The folder's papers: each one's mode (``quick`` / ``full``), date
    (UTC) and engine version; the machine of the last reproduction."""

    papers: dict[str, dict[str, str]]
    machine: str

    def modes(self) -> list[str]:
        return sorted({p["mode"] for p in self.papers.values()})

    def engines(self) -> list[str]:
        return sorted({p["engine"] for p in self.papers.values()})

    def dates(self) -> list[str]:
        return sorted({p["date"] for p in self.papers.values()})


def record_papers(out: Path, papers: list[str], quick: bool, engine: str) -> None:
    """Note in ``out/reproduction.json`` that ``papers`` were reproduced now."""
    path = Path(out) / INFO_FILE
    old = read_info(out)
    known = dict(old.papers) if old else {}
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    for paper in papers:
        known[paper] = {"mode": "quick" if quick else "full", "date": now, "engine": engine}
    data = {"papers": dict(sorted(known.items())), "machine": machine()}
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    part.replace(path)


def read_info(out: Path) -> RunInfo | None:
    """``out/reproduction.json``, or None if there is none or it cannot be read."""
    try:
        data: Any = json.loads((Path(out) / INFO_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    papers = data.get("papers") if isinstance(data, dict) else None
    if not isinstance(papers, dict):
        return None
    clean = {
        str(k): {f: str(v.get(f, "?")) for f in ("mode", "date", "engine")}
        for k, v in papers.items()
        if isinstance(v, dict)
    }
    return RunInfo(clean, str(data.get("machine", "?")))
