"""``reorderlab emulate``: a scenario on the real kernel TCP, through the
emulated network (docs/emulation.md)."""

from __future__ import annotations

import argparse
import sys

from reorderlab.cli import output as show
from reorderlab.cli.common import errors, fail
from reorderlab.cli.parser import Parser, emulate_options
from reorderlab.emulate import EmulationError, EmulationUnavailableError, emulate, load

__all__ = ["cmd_emulate"]


def cmd_emulate(a: argparse.Namespace) -> None:
    """Run the scenario on the real kernel TCP through the emulated network
    (root), print its flows and the emulator's timing."""
    sender_cmd, receiver_cmd = _commands(a)
    con = show.console()
    with errors(str(a.scenario)):
        sc, spec = load(a.scenario)
        try:
            result = emulate(
                sc,
                seed=a.seed,
                out=a.out,
                emulation=spec,
                sender_cmd=sender_cmd,
                receiver_cmd=receiver_cmd,
                log=con.print,
            )
        except (EmulationUnavailableError, EmulationError) as exc:
            fail(str(exc), 1)
        except KeyboardInterrupt:
            print("interrupted: namespaces and devices removed", file=sys.stderr)
            raise SystemExit(130) from None
    emu = result.to_dict()["emulation"]
    con.print(show.flow_table(result))
    t = emu["timing"]
    con.print(
        f"kernel {emu['variant']}; timing error p50 {t['p50_us']:.0f} us, "
        f"p99 {t['p99_us']:.0f} us, max {t['max_us']:.0f} us over {t['packets']} packets; "
        f"load {emu['load'].get('before')}"
    )
    for warning in emu["warnings"]:
        con.print(f"warning: {warning}")
    if a.out is not None:
        con.print(f"wrote {a.out}/")


def _commands(a: argparse.Namespace) -> tuple[list[str] | None, list[str] | None]:
    """The two commands of ``-- SENDER_CMD ... -- RECEIVER_CMD ...``, or
    neither. argparse leaves everything after the scenario together, and
    drops the first ``--`` when the commands follow the scenario at once;
    options between the scenario and the first ``--`` are parsed here."""
    rest = list(a.commands)
    if rest and rest[0].startswith("-") and rest[0] != "--":
        cut = rest.index("--") if "--" in rest else len(rest)
        options = emulate_options(Parser(prog="reorderlab emulate", add_help=False))
        options.parse_args(rest[:cut], namespace=a)
        rest = rest[cut:]
    commands = rest[1:] if rest[:1] == ["--"] else rest
    if not commands:
        return None, None
    if commands.count("--") != 1 or commands[0] == "--" or commands[-1] == "--":
        fail("give the commands as: -- SENDER_CMD [ARGS...] -- RECEIVER_CMD [ARGS...]", 2)
    split = commands.index("--")
    return commands[:split], commands[split + 1 :]
