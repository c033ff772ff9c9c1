"""The kernel settings a script's preamble sets, and what the simulator
makes of them.

A script configures the stack with ``sysctl`` commands in back quotes
(packetdrill's way): ```sysctl -q net.ipv4.tcp_sack=1```, several per
line, or a shell script of such lines that the command names
(```./defaults.sh```, as the Linux tree's selftests do). The kernel
backend runs them in its namespace; the simulator backend reads them
(:func:`read_command`) and maps each to its model (:data:`SIM`): a setting
of the scenario, one the simulator's ``Linux`` already has (its value must
be the kernel's default), or one with no effect on a connection's loss
recovery. A setting it has no model for is refused with its name.

Both backends start from the same base (:data:`BASE`): a fresh network
namespace's defaults, with CUBIC (a new namespace inherits the host's
default congestion control, which differs between machines).
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Callable
from pathlib import Path

from .backend import BackendError
from .model import Command

#: Set in the kernel's namespace before the script's own commands.
BASE: dict[str, str] = {"net.ipv4.tcp_congestion_control": "cubic"}

#: shell arithmetic of the selftests' defaults: $((15*1024*1024))
_PRODUCT = re.compile(r"\$\(\(([0-9*]+)\)\)")
_ASSIGN = re.compile(r"^(net\.[A-Za-z0-9_.]+)=(.*)$")


def parse_sysctl_line(argv: list[str], where: str) -> dict[str, str]:
    """``sysctl [-q] [-w] NAME=VALUE ...`` -> {NAME: VALUE}."""
    out: dict[str, str] = {}
    for arg in argv[1:]:
        if arg.startswith("-"):
            if arg not in ("-q", "-w", "-qw", "-wq"):
                raise BackendError(f"{where}: sysctl option {arg} is not supported")
            continue
        m = _ASSIGN.match(arg)
        if m is None:
            raise BackendError(
                f"{where}: expected sysctl NAME=VALUE with a net.* NAME, got {arg!r}"
            )
        out[m.group(1)] = " ".join(m.group(2).split())
    return out


def read_command(cmd: Command, base_dir: Path) -> dict[str, str]:
    """The sysctls a command sets: its own ``sysctl`` words, or those of the
    shell script it runs (other lines of that file are ignored: ``ip``,
    ``tc``, comments). Anything else is an error."""
    values: dict[str, str] = {}
    for part in re.split(r"[;\n]|&&", cmd.text):
        try:
            argv = shlex.split(part, comments=True)
        except ValueError as exc:
            raise BackendError(f"{cmd.pos}: cannot read the command: {exc}") from None
        argv = [a for a in argv if a not in (">", "2>&1", "/dev/null")]
        if not argv:
            continue
        if argv[0] == "sysctl":
            values.update(parse_sysctl_line(argv, str(cmd.pos)))
            continue
        path = base_dir / argv[0]
        if path.is_file():
            values.update(_sysctls_of_file(path))
            continue
        raise BackendError(
            f"{cmd.pos}: the simulator reads only sysctl commands (or a file of them), "
            f"got {part.strip()!r}"
        )
    return values


def _sysctls_of_file(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if not text.startswith("sysctl"):
            continue
        text = _PRODUCT.sub(lambda m: str(math.prod(int(x) for x in m.group(1).split("*"))), text)
        argv = [a for a in shlex.split(text, comments=True) if a not in (">", "2>&1", "/dev/null")]
        values.update(parse_sysctl_line(argv, f"{path}:{k}"))
    return values


# -- the simulator's reading ---------------------------------------------------

#: What the simulator's Linux does with each setting: "scenario" (a field
#: of the flow below), "model" (the variant has it: only the kernel's
#: default value is accepted), "none" (no effect on one connection's loss
#: recovery in this model: buffers, caches, offload, listen-queue rules).
SIM: dict[str, str] = {
    "tcp_congestion_control": "scenario",
    "tcp_sack": "scenario",
    "tcp_dsack": "scenario",
    "tcp_timestamps": "scenario",
    "tcp_window_scaling": "scenario",
    "tcp_rmem": "scenario",
    "tcp_reordering": "scenario",
    "tcp_rto_min_us": "scenario",
    "tcp_rto_max_ms": "scenario",
    "tcp_slow_start_after_idle": "scenario",
    "tcp_recovery": "model",
    "tcp_early_retrans": "model",
    "tcp_frto": "model",
    "tcp_max_reordering": "model",
    "tcp_fack": "model",
    "tcp_ecn": "none",
    "tcp_wmem": "none",
    "tcp_no_metrics_save": "none",
    "tcp_syn_retries": "none",
    "tcp_synack_retries": "none",
    "tcp_tso_win_divisor": "none",
    "tcp_min_tso_segs": "none",
    "tcp_autocorking": "none",
    "tcp_pacing_ss_ratio": "none",
    "tcp_pacing_ca_ratio": "none",
    "tcp_notsent_lowat": "none",
    "tcp_fastopen": "none",
    "tcp_fastopen_key": "none",
    "tcp_syncookies": "none",
    "tcp_moderate_rcvbuf": "none",
    "tcp_adv_win_scale": "none",
    "tcp_comp_sack_nr": "none",
}

#: The kernel's defaults for the "model" settings: the simulator's Linux
#: behaves as these (RACK-TLP with its reordering window and DSACK
#: growth, TLP, F-RTO, adaptive reordering up to 300, no FACK).
MODEL_DEFAULTS: dict[str, tuple[str, ...]] = {
    "tcp_recovery": ("1",),
    "tcp_early_retrans": ("3", "4"),
    "tcp_frto": ("2",),
    "tcp_max_reordering": ("300",),
    "tcp_fack": ("0",),
}

#: Sysctls of a fresh namespace on Linux 6.18 that the simulator reads.
KERNEL_DEFAULTS: dict[str, str] = {
    "tcp_congestion_control": "cubic",
    "tcp_sack": "1",
    "tcp_dsack": "1",
    "tcp_timestamps": "1",
    "tcp_window_scaling": "1",
    "tcp_rmem": "4096 131072 33554432",
    "tcp_reordering": "3",
    "tcp_rto_min_us": "200000",
    "tcp_rto_max_ms": "120000",
    "tcp_slow_start_after_idle": "1",
}


def sim_settings(values: dict[str, str], where: Callable[[str], str]) -> dict[str, str]:
    """The simulator's view of the ``net.ipv4`` sysctls ``values``: every
    one known and accepted, with the kernel's defaults for the rest; an
    error naming the first it cannot model."""
    out = dict(KERNEL_DEFAULTS)
    for full, value in values.items():
        if not full.startswith("net.ipv4."):
            if full.startswith("net.core.") or full.startswith("net.ipv6."):
                continue  # buffers, queues, IPv6: nothing the model has
            raise BackendError(f"{where(full)}: {full} is not a setting the simulator knows")
        name = full.removeprefix("net.ipv4.")
        kind = SIM.get(name)
        if kind is None:
            raise BackendError(f"{where(full)}: the simulator has no model of {full}")
        if kind == "model" and value not in MODEL_DEFAULTS[name]:
            raise BackendError(
                f"{where(full)}: the simulator's Linux has {full} = "
                f"{' or '.join(MODEL_DEFAULTS[name])} built in, got {value}"
            )
        if kind == "scenario":
            out[name] = value
    return out
