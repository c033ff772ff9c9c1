"""The kernel side of a cell: one run of ``reorderlab emulate``, stored in the
results store beside the simulated runs, and what this machine's kernel is.

A kernel run is stored under the key of (its scenario, its seed, the
"engine" ``linux-<release>``), so a second ``reorderlab validate`` with the
same store reuses it (the simulator side is simulated again whenever the
engine changed): model fixes are judged against the same kernel runs.
``--rerun-kernel`` runs them again (a new attempt number in the engine
string). A run whose emulator timing error p99 exceeds 1 ms is run once
more; if the second is also late the cell is flagged (``timing_flag``).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import platform
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reorderlab.scenario import Scenario
from reorderlab.store import Store, run_key

#: p99 of the emulator's timing error above which a run is repeated once.
TIMING_LIMIT_US = 1000.0
#: The kernel's TCP sysctls recorded with every validation.
SYSCTLS = (
    "tcp_congestion_control",
    "tcp_recovery",
    "tcp_early_retrans",
    "tcp_frto",
    "tcp_dsack",
    "tcp_timestamps",
    "tcp_sack",
    "tcp_reordering",
    "tcp_max_reordering",
    "tcp_rmem",
    "tcp_wmem",
    "tcp_min_rtt_wlen",
    "tcp_comp_sack_nr",
    "tcp_comp_sack_delay_ns",
    "tcp_rto_min_us",
    "tcp_pacing_ss_ratio",
    "tcp_pacing_ca_ratio",
    "tcp_limit_output_bytes",
    "tcp_autocorking",
)


def kernel_hz() -> int | None:
    """CONFIG_HZ from the kernel's configuration (``/proc/config.gz`` or
    ``/boot/config-<release>``), or None if neither says."""
    texts: list[str] = []
    with contextlib.suppress(OSError):
        texts.append(
            gzip.decompress(Path("/proc/config.gz").read_bytes()).decode("ascii", "replace")
        )
    boot = Path(f"/boot/config-{platform.release()}")
    if boot.exists():
        texts.append(boot.read_text(encoding="ascii", errors="replace"))
    for text in texts:
        m = re.search(r"^CONFIG_HZ=(\d+)$", text, re.MULTILINE)
        if m:
            return int(m.group(1))
    return None


def kernel_info() -> dict[str, Any]:
    """What the kernel is: release, version string, HZ, preemption model and
    the host's TCP sysctls (each namespace starts from the defaults)."""
    sysctls = {}
    for name in SYSCTLS:
        path = Path("/proc/sys/net/ipv4") / name
        if path.exists():
            sysctls[name] = " ".join(path.read_text(encoding="ascii").split())
    return {
        "release": platform.release(),
        "version": platform.version(),
        "hz": kernel_hz(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "sysctls": sysctls,
    }


def engine(release: str, attempt: int) -> str:
    """The engine string of a kernel run (the store key's version part)."""
    return f"linux-{release}" + (f"#{attempt}" if attempt else "")


@dataclass
class KernelRun:
    """A kernel run as the comparison reads it."""

    result: dict[str, Any]
    folder: Path
    attempts: int
    reused: bool

    @property
    def emulation(self) -> dict[str, Any]:
        em: dict[str, Any] = self.result["emulation"]
        return em

    @property
    def timing_p99_us(self) -> float:
        return float(self.emulation["timing"]["p99_us"])

    @property
    def timing_flag(self) -> bool:
        return self.timing_p99_us > TIMING_LIMIT_US


def _stored(store: Store, sc: Scenario, seed: int, version: str) -> dict[str, Any] | None:
    got = store.get(sc.cache_key(seed, version))
    if got is None:
        return None
    value: dict[str, Any] = json.loads(got.result_json)
    return value


def _put(store: Store, sc: Scenario, seed: int, version: str, result: dict[str, Any]) -> None:
    text = sc.canonical_json(seed)
    store.put(
        run_key(text, seed, version),
        scenario_name=sc.name,
        seed=seed,
        engine_version=version,
        scenario_json=text,
        result_json=json.dumps(result),
    )


def run_kernel(
    sc: Scenario,
    seed: int,
    folder: Path,
    store: Store,
    *,
    release: str,
    rerun: int = 0,
    log: Any = None,
) -> KernelRun:
    """The cell's kernel run: from the store if there (and its folder's pcap
    still on disk), else emulated now, once more if its timing is late."""
    from reorderlab.emulate import EmulationSpec, emulate

    say = log or (lambda _m: None)
    version = engine(release, rerun)
    found = _stored(store, sc, seed, version)
    if found is not None and (folder / "sender.pcap").exists():
        return KernelRun(found, folder, int(found.get("validate_attempts", 1)), True)
    attempts = 0
    result: dict[str, Any] = {}
    for attempt in (1, 2):
        attempts = attempt
        res = emulate(sc, seed=seed, out=folder, emulation=EmulationSpec(pcap_snaplen=128))
        result = res.to_dict()
        p99 = float(result["emulation"]["timing"]["p99_us"])
        if p99 <= TIMING_LIMIT_US:
            break
        load = result["emulation"]["load"].get("after")
        say(
            f"  timing error p99 {p99:.0f} us > 1 ms (load {load}): "
            + ("rerun" if attempt == 1 else "flagged")
        )
    result["validate_attempts"] = attempts
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    _put(store, sc, seed, version, result)
    return KernelRun(result, folder, attempts, False)


def unavailable() -> str | None:
    """Why the kernel side cannot run here (not root, no TUN, no netns)."""
    from reorderlab.emulate import unavailable_reason

    reason = unavailable_reason()
    if reason is None and not sys.platform.startswith("linux"):
        return "the kernel side needs Linux"
    return reason
