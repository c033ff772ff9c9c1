"""examples/quickstart.ipynb runs, cell by cell, on the current code
(issue 41): executed with nbclient in a kernel of this interpreter, it
raises nothing and shows the time-sequence graph."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "quickstart.ipynb"

nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[dev]' brings nbformat")
nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[dev]' brings nbclient")


def test_quickstart_notebook_runs_and_draws_the_time_sequence_graph() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "commit the notebook without outputs (they would go stale)"
    )
    client = nbclient.NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on a failure
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    pngs = [o.data["image/png"] for o in outputs if "image/png" in o.get("data", {})]
    assert len(pngs) == 1
    assert base64.b64decode(pngs[0])[:8] == b"\x89PNG\r\n\x1a\n"
    texts = " ".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    for shown in ("RACK-TLP", "Linux", "throughput_bps"):
        assert shown in texts, shown
