"""The link emulator's process: ``python -m reorderlab._emu.link CONFIG REPORT``.

Runs the core's emulator (``_core.emulate_link``) with the JSON configuration
in CONFIG: it creates the TUN devices, prints ``ready``, forwards packets
until a byte arrives on stdin or stdin closes (so it stops when its parent
dies), and writes its report JSON to REPORT. A failure is one line on
stderr and exit status 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

from reorderlab import _core


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m reorderlab._emu.link CONFIG REPORT", file=sys.stderr)
        return 2
    config = Path(argv[0]).read_text(encoding="utf-8")
    try:
        report = _core.emulate_link(config)
    except (RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 1
    Path(argv[1]).write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
