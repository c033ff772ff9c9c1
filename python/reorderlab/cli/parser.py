"""The parser of the ``reorderlab`` command line: every command, its
arguments and its help, and which function runs it (``MODULE:FUNCTION`` of
this package, imported only when the command runs). The standard library
alone: ``--help`` imports nothing else."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from reorderlab.cli.common import fail

__all__ = ["Parser", "build_parser", "emulate_options"]


class Parser(argparse.ArgumentParser):
    """Usage errors on one line of stderr, exit code 2, like every other
    invalid input of the command line."""

    def error(self, message: str) -> NoReturn:
        fail(f"{self.prog}: {message} (see {self.prog} --help)", 2)

    def format_help(self) -> str:
        return "Usage: " + super().format_help().removeprefix("usage: ")


def _at_least(minimum: float, kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """An option value of type ``kind``, at least ``minimum``."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum:g}, got {text}")
        return value

    return parse


def _add_store(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        type=Path,
        help="Results store (DuckDB file). Default: $REORDERLAB_STORE or "
        "./results/reorderlab.duckdb.",
    )
    p.add_argument(
        "--no-cache", action="store_true", help="Neither read nor write the results store."
    )


def _add_strict(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--strict",
        action="store_true",
        help="Make the scenario's warnings (see 'reorderlab check') errors: exit 2 "
        "before anything runs.",
    )


def _add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="Run on the Dask scheduler at ADDRESS ('local': start a LocalCluster). "
        "Needs the optional dependency: pip install 'reorderlab[dask]'.",
    )
    p.add_argument(
        "--workers",
        type=_at_least(1, int),
        help="Worker processes (default: all cores).",
    )


def _command(sub: Any, name: str, target: str, doc: str) -> argparse.ArgumentParser:
    """The parser of command ``name``, run by ``target`` (``MODULE:FUNCTION``
    of this package, imported only when the command runs); ``doc`` is its
    description, its first sentence its help line."""
    doc = " ".join(doc.split())
    p: argparse.ArgumentParser = sub.add_parser(name, help=doc.split(". ")[0], description=doc)
    p.set_defaults(command=target)
    return p


def _run_parser(sub: Any) -> None:
    p = _command(sub, "run", "run:cmd_run", "Run one scenario and print per-flow metrics.")
    p.add_argument("scenario", type=Path, help="Scenario file (TOML).")
    p.add_argument("--seed", type=int, help="Seed (default: the scenario's).")
    p.add_argument(
        "--out",
        type=Path,
        help="Write result.json, flows.csv, links.csv and series CSVs here (and pcap files).",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="Write into an --out folder that holds another run's files (they are replaced).",
    )
    p.add_argument("--json", action="store_true", help="Print the result JSON instead of a table.")
    p.add_argument(
        "--plot",
        action="store_true",
        help="Also record the trace and series the pictures need and draw them into --out "
        "(default: results/plots/NAME): the time-sequence graph, cwnd, RTT, queues "
        "(see 'reorderlab plot').",
    )
    p.add_argument(
        "--pcap",
        action="append",
        metavar="LINK[:POSITION]",
        help="Also capture packets at this end of a link (ingress or egress, default egress) "
        "in a pcap file, written to --out (default: the current directory). Repeatable; "
        "adds to the scenario's record.pcap.",
    )
    _add_strict(p)
    _add_store(p)


def _check_parser(sub: Any) -> None:
    doc = """Validate a scenario and warn about what it probably does not mean. Warned:
    a bottleneck that is not the narrowest link, a queue below 0.5 or above 10
    BDPs, a packet that takes longer to send than the run, milliseconds
    written as seconds or Mb/s as b/s, a window below the BDP, a run shorter
    than 20 RTTs. One line per warning on stderr, naming the field; run,
    sweep and compare print the same lines before they start."""
    p = _command(sub, "check", "check:cmd_check", doc)
    p.add_argument("scenario", type=Path, help="Scenario file (TOML).")
    p.add_argument("--strict", action="store_true", help="Warnings are errors (exit 2).")


def plot_options(p: argparse.ArgumentParser) -> None:
    """What to draw (``plot``, ``run --plot``)."""
    p.add_argument("--flow", type=_at_least(0, int), default=0, help="Flow index (default 0).")
    p.add_argument(
        "--kind",
        choices=("tsg", "cwnd", "rtt", "queue"),
        help="One picture: the time-sequence graph, cwnd/ssthresh/pipe, RTT/RTO, or the "
        "links' queues (default: every one the run has data for).",
    )
    p.add_argument(
        "--window",
        metavar="FROM:UNTIL",
        help="Time-sequence graph of this span only, seconds (e.g. 10:12).",
    )


def _plot_parser(sub: Any) -> None:
    doc = """Draw pictures of one run: a time-sequence graph in the style of
    tcptrace (data segments, ACK line, SACK blocks, retransmissions by cause,
    spurious ones by the ground truth, the receive window), cwnd/ssthresh/pipe,
    RTT/RTO and the links' queues, as PNGs next to the run's CSVs. SOURCE is a
    folder 'run --out' wrote, or a scenario, then run with what the pictures
    need recorded (docs/plots.md)."""
    p = _command(sub, "plot", "plot:cmd_plot", doc)
    p.add_argument("source", type=Path, help="RESULT_DIR or SCENARIO (TOML).")
    plot_options(p)
    p.add_argument("--seed", type=int, help="With a scenario: the seed (default: the scenario's).")
    p.add_argument(
        "--out",
        type=Path,
        help="Folder of the pictures (default: RESULT_DIR; for a scenario "
        "results/plots/NAME, with the run's CSVs).",
    )
    _add_store(p)


def emulate_options(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``emulate`` (also parsed after its scenario)."""
    p.add_argument("--seed", type=int, help="Seed (default: the scenario's).")
    p.add_argument(
        "--out",
        type=Path,
        help="Write result.json, CSVs, a pcap of each side and the socket samples here.",
    )
    return p


_EMULATE_EPILOG = """\
your commands (after the scenario):
  -- SENDER_CMD [ARGS...] -- RECEIVER_CMD [ARGS...]
  run once per flow, the sender's in the sender namespace, the receiver's in
  the receiver namespace. In an argument these are replaced by the flow's
  values, which are also in the environment:
    {sender}     the sender's address       RL_SENDER_ADDR
    {receiver}   the receiver's address     RL_RECEIVER_ADDR
    {port}       the receiver's TCP port    RL_PORT
    {flow}       the flow's index           RL_FLOW
    {duration}   the scenario's duration, s RL_DURATION
  The run ends at the scenario's duration, or when every command has exited;
  a command that exits with a non-zero status is an error. Without commands:
  a built-in bulk sender and receiver per flow.

the scenario:
  variant 'Linux' (the kernel's defaults) or 'Linux-classic' (loss-recovery
  switches off); any other is refused, naming flows[i].variant. An optional
  [emulation] table: kernel = { sysctl = value } (over the variant's, both
  namespaces), pcap_snaplen (bytes kept per packet; 0: no capture),
  realtime (SCHED_FIFO for the emulator's thread).

needs:
  Linux, root, /dev/net/tun, network namespaces and iproute2 ('ip'); runs in
  real time (a 30 s scenario takes about 32 s).

--out DIR writes:
  result.json (the simulator's schema), flows.csv, links.csv, series CSVs,
  sender.pcap / receiver.pcap, tcpinfo.jsonl (every socket sample), the
  emulator's configuration and report, each workload's log.

example:
  reorderlab emulate sc.toml -- iperf3 -c {receiver} -p {port} -t {duration} \\
      -- iperf3 -s -B {receiver} -p {port} -1
"""


def _emulate_parser(sub: Any) -> None:
    doc = """Run the scenario on the real kernel TCP through the emulated network (root).
    The scenario's links, queues and impairments are applied by the link
    emulator between two network namespaces; the flows are the built-in bulk
    sender and receiver, or your commands: -- SENDER_CMD ... -- RECEIVER_CMD
    ... ({sender}, {receiver}, {port}, {flow}, {duration} in them are
    replaced by the flow's values: below). See docs/emulation.md."""
    p = emulate_options(_command(sub, "emulate", "emulate:cmd_emulate", doc))
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = _EMULATE_EPILOG
    p.add_argument(
        "scenario", type=Path, help="Scenario file (TOML), with an optional [emulation] table."
    )
    p.add_argument(
        "commands",
        nargs=argparse.REMAINDER,
        metavar="-- SENDER_CMD ... -- RECEIVER_CMD ...",
        help="Your sender and receiver commands instead of the built-in bulk pair.",
    )


def _validate_parser(sub: Any) -> None:
    doc = """Does the simulator match this machine's kernel? Run the validation
    matrix (root, TUN, netns): each cell on the kernel through emulate and in
    the simulator, both stored; the ratios, counts, first difference and the
    emulator's own checks, into --out and the report. See docs/validation.md."""
    p = _command(sub, "validate", "validate:cmd_validate", doc)
    p.add_argument("--quick", action="store_true", help="The quick matrix (<= 15 minutes).")
    p.add_argument(
        "--cells",
        metavar="FILTER",
        help="Only cells whose name matches: comma-separated patterns, e.g. 'bulk/Linux/*,tail'.",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("results/validate"),
        help="Folder (default: results/validate).",
    )
    p.add_argument(
        "--seeds", type=_at_least(1, int), default=5, help="Simulator seeds per cell (5)."
    )
    p.add_argument(
        "--rerun-kernel",
        type=_at_least(0, int),
        default=0,
        metavar="N",
        help="Run the kernel side again (attempt N) instead of reusing stored kernel runs.",
    )
    p.add_argument("--no-instrument", action="store_true", help="Skip the emulator's checks.")
    p.add_argument(
        "--sim-only",
        action="store_true",
        help="No kernel runs: compare the simulator with kernel runs already in --out.",
    )
    p.add_argument("--list", action="store_true", help="List the cells and exit.")
    _add_store(p)


def _script_parser(sub: Any) -> None:
    doc = """Run packet-level conformance scripts (the packetdrill language) against
    the simulator's sender and/or this machine's kernel (root, TUN). Each
    script passes or fails per backend; a failure shows the first differing
    segment. Exit 1 if a script fails unexpectedly. See docs/conformance.md."""
    p = _command(sub, "script", "script:cmd_script", doc)
    p.add_argument("scripts", type=Path, nargs="+", metavar="FILE.pkt", help="Scripts to run.")
    p.add_argument(
        "--backend",
        choices=("sim", "kernel", "both"),
        default="sim",
        help="The simulated sender (default), the kernel, or both.",
    )
    p.add_argument("--variant", default="Linux", help="The simulator's variant (default Linux).")
    p.add_argument(
        "--tolerance-us",
        type=_at_least(0, int),
        help="Timing tolerance, microseconds (default: the script's, else 4000).",
    )
    p.add_argument(
        "--timeout",
        type=_at_least(1, float),
        help="End a kernel script after this many seconds (default: its length + 15 s).",
    )
    p.add_argument("--json", action="store_true", help="Print the outcomes as JSON.")
    p.add_argument(
        "--out",
        type=Path,
        help="Also write the outcomes to OUT/conformance.json (the report's table).",
    )
    p.add_argument("--trace", action="store_true", help="Print each kernel run's packets.")


def _listing_parsers(sub: Any) -> None:
    for name, target, doc in (
        (
            "variants",
            "listings:cmd_variants",
            "List the sender variants and congestion controls, with their sources.",
        ),
        (
            "impairments",
            "listings:cmd_impairments",
            "List the impairment kinds and their parameters.",
        ),
    ):
        p = _command(sub, name, target, doc)
        p.add_argument("--json", action="store_true", help="Print JSON instead of a table.")


def _sweep_parsers(sub: Any) -> None:
    doc = "Run a grid of scenarios x seeds in parallel, cached and resumable."
    p = _command(sub, "sweep", "sweep:cmd_sweep", doc)
    p.set_defaults(prestart=True)
    p.add_argument("sweep_file", type=Path, help="Sweep file (TOML): scenario, seeds, grid.")
    _add_strict(p)
    _add_backend(p)
    p.add_argument(
        "--out", type=Path, help="CSV of the tidy table (default: results/sweeps/NAME.csv)."
    )
    _add_store(p)
    doc = "Which sender copes with this network? Rank the sender variants on a scenario."
    p = _command(sub, "compare", "compare:cmd_compare", doc)
    p.set_defaults(prestart=True)
    p.add_argument("scenario", type=Path, help="Scenario file (TOML): your network.")
    p.add_argument(
        "--variants",
        default="all",
        help="'all' (every registered TCP variant, the default) or names, comma-separated.",
    )
    p.add_argument(
        "--cc", help="Congestion control for every variant (default: each one's paper's)."
    )
    p.add_argument(
        "--seeds", type=_at_least(1, int), default=5, help="Seeds per variant (1..N; 5)."
    )
    p.add_argument(
        "--out",
        type=Path,
        help="Output folder (default: results/compare/NAME-HASH, one per scenario, variants "
        "and options, with results/compare/latest pointing at it; results/index.html is "
        "rebuilt).",
    )
    p.add_argument(
        "--markdown", action="store_true", help="Print the table as Markdown (the README's)."
    )
    _add_strict(p)
    _add_backend(p)
    _add_store(p)


def _results_parsers(sub: Any) -> None:
    doc = """Reproduce a paper's figures; print and save its claims (holds / does not
    hold); rebuild the HTML report DIR/index.html."""
    p = _command(sub, "reproduce", "reproduce:cmd_reproduce", doc)
    p.set_defaults(prestart=True)
    p.add_argument("paper", nargs="?", help="Paper key (default: all).")
    p.add_argument("figure", nargs="?", help="Figure of that paper.")
    p.add_argument("--quick", action="store_true", help="Short runs, fewer seeds.")
    p.add_argument("--out", type=Path, default=Path("results"), help="Output directory.")
    p.add_argument("--list", dest="list_only", action="store_true", help="List papers and figures.")
    _add_store(p)
    doc = """Build the HTML report (claims and plots of every paper in DIR, league
    tables of compare) as DIR/index.html."""
    p = _command(sub, "report", "report:cmd_report", doc)
    p.add_argument(
        "--out",
        type=Path,
        default=Path("results"),
        metavar="DIR",
        help="Results directory of 'reproduce'; the page is DIR/index.html.",
    )
    p.add_argument(
        "--recheck",
        action="store_true",
        help="First re-derive the tables and claims in DIR from the runs in the store, "
        "simulating nothing (plots are left as they are).",
    )
    p.add_argument(
        "--quick", action="store_true", help="With --recheck: the runs of 'reproduce --quick'."
    )
    p.add_argument(
        "--store",
        type=Path,
        help="With --recheck: the results store (default: $REORDERLAB_STORE or "
        "./results/reorderlab.duckdb).",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="Then render it in headless Chromium: every image and link must resolve and "
        "the claim counts match claims.json; writes the screenshot DIR/index.png.",
    )


def _store_parsers(sub: Any) -> None:
    doc = (
        "Check a results store, rebuild a damaged one (docs/limits.md), or rewrite "
        "it without its free space (compact)."
    )
    p: argparse.ArgumentParser = sub.add_parser("store", help=doc, description=doc)
    verbs = p.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)
    verbs.required = True
    for name, doc in (
        ("check", "Read every stored run (and the journal) back; exit 1 if some cannot be."),
        (
            "repair",
            "Rebuild a damaged store from its readable runs and its journal (the damaged "
            "file is kept as STORE.damaged; lost runs are simulated again when next asked for).",
        ),
        (
            "compact",
            "Rewrite a store without its free space (and re-encode the results an older "
            "layout stored as text); prints its size before and after.",
        ),
    ):
        q = _command(verbs, name, f"store:cmd_{name}", doc)
        q.add_argument(
            "store",
            type=Path,
            nargs="?",
            help="Results store (DuckDB file). Default: $REORDERLAB_STORE or "
            "./results/reorderlab.duckdb.",
        )


def _bench_parser(sub: Any) -> None:
    doc = "Run the engine's reference benchmarks (wall, events/s, packet-hops/s, memory)."
    p = _command(sub, "bench", "bench:cmd_bench", doc)
    p.add_argument("names", nargs="*", help="Benchmarks to run (default: all).")
    p.add_argument("--json", action="store_true", help="Print a JSON list.")
    p.add_argument(
        "--scenario",
        type=Path,
        help="Time one run of this scenario (TOML or JSON) instead, phase by phase.",
    )
    p.add_argument("--seed", type=int, help="Seed of --scenario (default: the scenario's).")
    p.add_argument(
        "--sweep",
        action="store_true",
        help="Measure sweep speed-up and overhead instead (100 x 10 s runs).",
    )
    p.add_argument("--runs", type=_at_least(1, int), default=100, help="Runs of --sweep.")
    p.add_argument(
        "--seconds",
        type=_at_least(0.001, float),
        default=10.0,
        help="Simulated seconds per --sweep run.",
    )
    p.add_argument(
        "--preset",
        default="medium",
        help="--sweep scenario: light (8 Mb/s), medium (100 Mb/s), heavy (1 Gb/s).",
    )
    p.add_argument(
        "--backend",
        default="local",
        help="--sweep backend: local (processes), threads, or dask (a LocalCluster).",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command."""
    parser = Parser(
        prog="reorderlab",
        description="Deterministic packet-level TCP simulator: reordering, loss and recovery.",
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)
    _run_parser(sub)
    _check_parser(sub)
    _plot_parser(sub)
    _emulate_parser(sub)
    _validate_parser(sub)
    _script_parser(sub)
    _listing_parsers(sub)
    _sweep_parsers(sub)
    _results_parsers(sub)
    _store_parsers(sub)
    _bench_parser(sub)
    return parser
