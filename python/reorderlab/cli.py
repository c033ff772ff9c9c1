"""The ``reorderlab`` command line.

Exit codes: 0 success; 2 invalid input (a bad scenario or sweep file names the
field and value on one line of stderr, no traceback; so does a bad option);
1 any other failure.

Start-up is kept short: this module imports the standard library alone
(argparse), and each command imports what it uses when it runs: ``--help``
and ``variants`` need neither pydantic nor pandas, ``run`` needs no pandas,
matplotlib or Dask (``tests/test_cli_imports.py`` checks these import
sets). typer, which the command line used before, builds a pydantic
adapter for every parameter of the command it runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["app", "build_parser", "main"]


def _fail(message: str, code: int) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)


def _scenario_error() -> type[Exception] | tuple[()]:
    """The scenario error class, if the scenario module was imported (only
    then can one have been raised): catching it must not import pydantic."""
    module = sys.modules.get("reorderlab.scenario")
    return module.ScenarioError if module is not None else ()


@contextmanager
def _errors(source: str | None = None) -> Iterator[None]:
    """Map expected failures to one line on stderr and an exit code."""
    from reorderlab.errors import BackendError, StoreBusyError, StoreDamagedError, StoreError

    try:
        yield
    except _scenario_error() as exc:
        where = getattr(exc, "source", None) or source
        _fail(f"{where}: {exc}" if where else str(exc), 2)
    except (StoreDamagedError, StoreBusyError) as exc:  # the store given cannot be used now
        _fail(str(exc), 2)
    except (StoreError, BackendError) as exc:
        _fail(str(exc), 1)
    except OSError as exc:  # an output file or folder that cannot be written
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}", 1)
    except KeyboardInterrupt:
        print("interrupted: completed runs are stored; run again to resume", file=sys.stderr)
        raise SystemExit(130) from None


def _core_failure(exc: RuntimeError) -> NoReturn:
    """A run that failed (the core panicked, a worker died): exit 1; a store
    error goes on to :func:`_errors` (a damaged store is exit 2)."""
    from reorderlab.errors import StoreError

    if isinstance(exc, StoreError):
        raise exc
    _fail(str(exc), 1)


def _store(path: Path | None, no_cache: bool) -> Any:
    if no_cache:
        return None
    from reorderlab.store import Store

    return Store(path)


# --- commands ---------------------------------------------------------------------


def cmd_run(a: argparse.Namespace) -> None:
    """Run one scenario and print per-flow metrics."""
    from reorderlab.runner import run as run_scenario
    from reorderlab.scenario import load_scenario

    with _errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
        if a.pcap:
            sc = _with_taps(sc, a.pcap)
        st = _store(a.store, a.no_cache)
        try:
            try:
                result = run_scenario(sc, seed=a.seed, store=st, pcap_dir=a.out)
            except RuntimeError as exc:
                _core_failure(exc)
            except KeyboardInterrupt:
                _fail("interrupted: the run was stopped; nothing was written", 130)
        finally:
            if st is not None:
                st.close()
    if a.out is not None:
        with _errors():
            result.save(a.out)
    if a.json:
        print(result.to_json(indent=2))
        return
    from reorderlab import _cli_output as show

    con = show.console()
    con.print(show.flow_table(result))
    con.print(
        f"events {result.events}, packet hops {result.packet_hops}, "
        f"engine {result.engine_version}"
        + ("" if result.wall_s is None else f", {result.wall_s:.3f} s in the core")
    )
    for c in result.captures:
        con.print(f"wrote {c.file}: {c.packets} packets ({c.link}, {c.position})")
    if a.out is not None:
        con.print(f"wrote {a.out}/")


def _with_taps(sc: Any, taps: list[str]) -> Any:
    """The scenario with ``--pcap`` taps added to its ``record.pcap``."""
    from reorderlab.pcap import tap_spec

    known = [t.model_dump() for t in sc.record.pcap or []]
    return sc.with_params({"record.pcap": known + [tap_spec(t) for t in taps]})


def cmd_emulate(a: argparse.Namespace) -> None:
    """Run the scenario on the real kernel TCP through the emulated network (root).
    The scenario's links, queues and impairments are applied by the link
    emulator between two network namespaces; the flows are the built-in bulk
    sender and receiver, or your commands: -- SENDER_CMD ... -- RECEIVER_CMD
    ... ({sender}, {receiver}, {port} in them are replaced by the flow's
    values). See docs/emulation.md."""
    sender_cmd, receiver_cmd = _commands(a)
    from reorderlab.emulate import EmulationError, EmulationUnavailableError, emulate, load

    con = _cli_console()
    with _errors(str(a.scenario)):
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
            _fail(str(exc), 1)
        except KeyboardInterrupt:
            print("interrupted: namespaces and devices removed", file=sys.stderr)
            raise SystemExit(130) from None
    from reorderlab import _cli_output as show

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


def _cli_console() -> Any:
    from reorderlab import _cli_output as show

    return show.console()


def _commands(a: argparse.Namespace) -> tuple[list[str] | None, list[str] | None]:
    """The two commands of ``-- SENDER_CMD ... -- RECEIVER_CMD ...``, or
    neither. argparse leaves everything after the scenario together, and
    drops the first ``--`` when the commands follow the scenario at once;
    options between the scenario and the first ``--`` are parsed here."""
    rest = list(a.commands)
    if rest and rest[0].startswith("-") and rest[0] != "--":
        cut = rest.index("--") if "--" in rest else len(rest)
        options = _emulate_options(_Parser(prog="reorderlab emulate", add_help=False))
        options.parse_args(rest[:cut], namespace=a)
        rest = rest[cut:]
    commands = rest[1:] if rest[:1] == ["--"] else rest
    if not commands:
        return None, None
    if commands.count("--") != 1 or commands[0] == "--" or commands[-1] == "--":
        _fail("give the commands as: -- SENDER_CMD [ARGS...] -- RECEIVER_CMD [ARGS...]", 2)
    split = commands.index("--")
    return commands[:split], commands[split + 1 :]


def cmd_store_check(a: argparse.Namespace) -> None:
    """Read every stored run (and the journal) back; exit 1 if some cannot be."""
    from reorderlab.store import default_store_path
    from reorderlab.store_repair import check_store

    where = a.store or default_store_path()
    with _errors():
        report = check_store(where)
    print("\n".join(report.lines()))
    if not report.healthy:
        _fail(f"{where} is damaged: `reorderlab store repair {where}` rebuilds it", 1)


def cmd_store_repair(a: argparse.Namespace) -> None:
    """Rebuild a damaged store from its readable runs and its journal (the
    damaged file is kept as STORE.damaged; lost runs are simulated again when
    next asked for)."""
    from reorderlab.store import default_store_path
    from reorderlab.store_repair import repair_store

    with _errors():
        report = repair_store(a.store or default_store_path())
    print("\n".join(report.lines()))


def cmd_store_compact(a: argparse.Namespace) -> None:
    """Rewrite a store without its free space (and re-encode the results an
    older layout stored as text); prints its size before and after."""
    from reorderlab.store import Store, default_store_path

    where = a.store or default_store_path()
    with _errors():
        if not Path(where).exists():
            _fail(f"results store {where} does not exist", 2)
        with Store(where) as st:
            before, after = st.compact()
    print(f"{where}: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")


def cmd_variants(a: argparse.Namespace) -> None:
    """List the sender variants and congestion controls, with their sources."""
    from reorderlab import _core

    vs = json.loads(_core.variants())
    ccs = json.loads(_core.congestion_controls())
    if a.json:
        print(json.dumps({"variants": vs, "congestion_controls": ccs}, indent=2))
        return
    from reorderlab import _cli_output as show

    con = show.console()
    title = "sender variants (paper_cc: what compare runs each with)"
    con.print(show.registry_table(title, vs, ["name", "description", "source", "paper_cc"]))
    columns = ["name", "description", "source"]
    con.print(show.registry_table("congestion controls", ccs, columns))


def cmd_impairments(a: argparse.Namespace) -> None:
    """List the impairment kinds and their parameters."""
    from reorderlab import _core

    items = json.loads(_core.impairments())
    if a.json:
        print(json.dumps(items, indent=2))
        return
    from reorderlab import _cli_output as show

    columns = ["kind", "description", "params"]
    show.console().print(show.registry_table("impairments", items, columns))


def cmd_sweep(a: argparse.Namespace) -> None:
    """Run a grid of scenarios x seeds in parallel, cached and resumable."""
    if not a.dask:
        from reorderlab._pool import start_workers

        start_workers(a.workers)  # the fork server's start overlaps the imports
    from reorderlab.sweeper import DEFAULT, SweepFile
    from reorderlab.sweeper import sweep as run_sweep

    with _errors(str(a.sweep_file)):
        spec = SweepFile.load(a.sweep_file)
        try:
            # the sweep opens (or creates) the store itself: a new file is
            # then created after the runs, and it is closed in the background
            df = run_sweep(
                spec.points,  # validated by load: not again
                spec.seeds,
                backend="dask" if a.dask else "local",
                address=None if a.dask in (None, "local") else a.dask,
                workers=a.workers,
                store=None if a.no_cache else (a.store or DEFAULT),
            )
        except RuntimeError as exc:
            _core_failure(exc)
    path = a.out or Path("results") / "sweeps" / f"{spec.name}.csv"
    with _errors():
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(path, index=False)
    from reorderlab import _cli_output as show

    con = show.console()
    stats = df.attrs["stats"]
    overhead = (
        f", {100 * stats.outside_fraction:.1f} % of the workers' time outside simulation"
        if stats.executed
        else ""
    )
    con.print(
        f"{stats.total} runs: {stats.executed} simulated, {stats.cached} from the store; "
        f"{stats.wall_s:.2f} s wall{overhead}; wrote {path}"
    )
    params = list(spec.grid.params)
    metrics = [m for m in ("throughput_bps", "retransmits", "timeouts") if m in df.columns]
    if params and metrics:
        summary = df.groupby(params, sort=False)[metrics].mean().reset_index()
        if "throughput_bps" in summary.columns:
            summary["throughput_bps"] = summary["throughput_bps"] / 1e6
            summary = summary.rename(columns={"throughput_bps": "Mb/s"})
        title = f"{spec.name}: mean over {len(spec.seeds)} seed(s)"
        table = show.table(title, [str(col) for col in summary.columns])
        for _, row in summary.iterrows():
            table.add_row(*(f"{v:.6g}" if isinstance(v, float) else str(v) for v in row))
        con.print(table)


def cmd_compare(a: argparse.Namespace) -> None:
    """Which sender copes with this network? Rank the sender variants on a scenario."""
    if not a.dask:
        from reorderlab._pool import start_workers

        start_workers(a.workers)  # the fork server's start overlaps the imports
    from reorderlab.league import UNDISTURBED, write_league
    from reorderlab.league import compare as run_compare
    from reorderlab.scenario import load_scenario
    from reorderlab.sweeper import DEFAULT

    with _errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
        try:
            league = run_compare(
                sc,
                a.variants,
                a.cc,
                a.seeds,
                backend="dask" if a.dask else "local",
                address=None if a.dask in (None, "local") else a.dask,
                workers=a.workers,
                store=None if a.no_cache else (a.store or DEFAULT),
            )
        except RuntimeError as exc:
            _core_failure(exc)
    folder = a.out or Path("results") / "compare" / _safe_name(sc.name)
    with _errors():
        written = write_league(league, folder)
    from reorderlab import _cli_output as show

    con = show.console()
    con.print(show.league_table(league))
    stats = league.attrs["stats"]
    con.print(
        f"{stats.total} runs: {stats.executed} simulated, {stats.cached} from the store; "
        f"{stats.wall_s:.2f} s wall"
    )
    con.print(f"undisturbed = {UNDISTURBED}")
    con.print(f"wrote {', '.join(str(p) for p in written)}")


def _safe_name(name: str) -> str:
    """A scenario name as a folder name."""
    safe = "".join(c if c.isalnum() or c in "._-" else "-" for c in name).strip(".-")
    return safe or "scenario"


#: ``reproduce`` compacts its store at the end (``Store.compact``) when this
#: share of the file or more is free space: a session that added runs to a
#: store that had some leaves as much free space as the store had data.
COMPACT_FROM = 0.2


def cmd_reproduce(a: argparse.Namespace) -> None:
    """Reproduce a paper's figures; print and save its claims (holds / does not
    hold); rebuild the HTML report DIR/index.html."""
    if not a.list_only:
        from reorderlab._pool import start_workers

        start_workers()  # the fork server's start overlaps the imports
    from rich.console import Console

    from reorderlab.claims import print_claims
    from reorderlab.papers import UnknownRecipeError, papers, select
    from reorderlab.papers.kit.recipe import FigureRecipe
    from reorderlab.reproduce import reproduce as run_recipes

    con = Console(width=None if sys.stdout.isatty() else 140, soft_wrap=False)
    if a.list_only:
        for name, figs in papers().items():
            for fig, rec in figs.items():
                mark = "" if rec.default else " (not in the default set)"
                if not rec.in_all:
                    mark = " (only when its paper is named)"
                con.print(f"{name} {fig}: {rec.title}{mark}")
        return
    try:
        select(a.paper, a.figure)
    except UnknownRecipeError as exc:
        _fail(str(exc), 2)

    def announce(rec: FigureRecipe) -> None:
        mode = "quick" if a.quick else "full"
        con.print(f"[bold]{rec.paper} {rec.figure}[/bold] ({mode}): {rec.title}")

    with _errors():
        st = _store(a.store, a.no_cache)
        try:
            by_paper = run_recipes(
                a.paper, a.figure, quick=a.quick, out=a.out, store=st, on_figure=announce
            )
            if st is not None and st.free_share() > COMPACT_FROM:
                st.compact()
        finally:
            if st is not None:
                st.close()
    for name, claims in by_paper.items():
        print_claims(claims, con, title=f"{name}: claims")
        con.print(f"wrote {a.out / name / 'claims.json'}")
    print(f"wrote {_write_report(a.out)}")


def _write_report(out: Path) -> Path:
    """Write ``out/index.html``; a results directory it cannot read is invalid
    input (exit 2), a page it cannot write a failure (exit 1)."""
    from reorderlab.report import ReportError, write_report

    try:
        return write_report(out)
    except ReportError as exc:
        _fail(str(exc), 2)
    except OSError as exc:
        _fail(f"cannot write the report: {exc}", 1)


def cmd_report(a: argparse.Namespace) -> None:
    """Build the HTML report (claims and plots of every paper in DIR, league
    tables of compare) as DIR/index.html."""
    if a.recheck:
        _recheck(a.out, a.quick, a.store)
    elif a.quick or a.store is not None:
        _fail("--quick and --store go with --recheck", 2)
    print(f"wrote {_write_report(a.out)}")
    if a.check:
        _check_report(a.out)


def _recheck(out: Path, quick: bool, store: Path | None) -> None:
    """``report --recheck``: every figure claimed in DIR re-checked from the store."""
    from rich.console import Console

    from reorderlab.claims import print_claims
    from reorderlab.recheck import recheck
    from reorderlab.report import ReportError
    from reorderlab.store import Store

    con = Console(width=None if sys.stdout.isatty() else 140, soft_wrap=False)
    with _errors():
        st = Store(store, read_only=True)
        try:
            done = recheck(out, st, quick=quick)
        except ReportError as exc:
            _fail(str(exc), 2)
        finally:
            st.close()
    for paper in done:
        print_claims(paper.claims, con, title=f"{paper.paper}: claims re-checked from the store")
        con.print(f"{paper.paper}: {paper.summary()}; wrote {out / paper.paper / 'claims.json'}")


def _check_report(out: Path) -> None:
    """Render the report in headless Chromium; exit 1 on any problem."""
    from reorderlab.report_check import check_report

    try:
        check = check_report(out)
    except (FileNotFoundError, RuntimeError, OSError) as exc:
        _fail(str(exc), 1)
    for problem in check.problems:
        print(f"problem: {problem}", file=sys.stderr)
    held = sum(c[0] for c in check.page_counts.values())
    total = sum(c[1] for c in check.page_counts.values())
    print(
        f"browser check: {check.images} images, {check.links} links, "
        f"{held} of {total} papers' claims on the page; screenshot {check.screenshot}"
    )
    if not check.ok:
        _fail(f"the report has {len(check.problems)} problem(s)", 1)


def cmd_bench(a: argparse.Namespace) -> None:
    """Run the engine's reference benchmarks (wall, events/s, packet-hops/s, memory)."""
    if a.sweep:
        _bench_sweep(a)
        return
    if a.scenario is not None:
        _bench_scenario(a)
        return
    if a.seed is not None:
        _fail("bench: --seed goes with --scenario", 2)
    from reorderlab import bench as bench_mod

    try:
        reports = bench_mod.run_benchmarks(a.names or None)
    except ValueError as exc:
        _fail(str(exc), 2)
    except RuntimeError as exc:
        _fail(str(exc), 1)
    _json_or_table(a, reports, lambda show: show.bench_table(reports, bench_mod.BENCH_FIELDS))


def _json_or_table(a: argparse.Namespace, data: Any, table: Callable[[Any], Any]) -> None:
    """``data`` as JSON with ``--json``, else the table ``table`` makes of
    it with the output module (imported only then)."""
    if a.json:
        print(json.dumps(data, indent=2))
        return
    from reorderlab import _cli_output as show

    show.console().print(table(show))


def _bench_scenario(a: argparse.Namespace) -> None:
    """``bench --scenario FILE``: one run of the user's scenario, timed
    phase by phase, in its own process (for its peak memory)."""
    from reorderlab import bench as bench_mod
    from reorderlab.scenario import load_scenario

    with _errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
        try:
            report = bench_mod.time_scenario(sc, a.seed)
        except RuntimeError as exc:
            _fail(str(exc), 1)
    _json_or_table(a, report, lambda show: show.phase_table(report, bench_mod.PHASE_FIELDS))


def _bench_sweep(a: argparse.Namespace) -> None:
    from reorderlab.bench_sweep import measure_sweep

    try:
        report = measure_sweep(a.runs, a.seconds, preset=a.preset, backend=a.backend)
    except ValueError as exc:
        _fail(str(exc), 2)
    except RuntimeError as exc:  # e.g. the dask backend without Dask installed
        _fail(str(exc), 1)
    if a.json:
        print(json.dumps(report, indent=2))
        return
    from reorderlab import _cli_output as show

    con = show.console()
    con.print(
        f"{a.runs} runs of {a.seconds:g} simulated seconds, preset {a.preset}, backend {a.backend}"
    )
    rows = [(f"{w} worker(s)", r) for w, r in report["by_workers"].items()]
    rows.append((f"{report['workers']} worker(s) in a new process", report["cold_process"]))
    for label, r in rows:
        con.print(
            f"{label}: {r['wall_s']:.2f} s wall, {r['sim_core_cpu_s']:.2f} s of CPU in the "
            f"core (mean {r['mean_run_s'] * 1000:.1f} ms/run), "
            f"outside simulation {100 * r['outside_simulation_fraction']:.1f} %"
        )
    con.print(
        f"speed-up with {report['workers']} workers: {report['speedup']:.2f}x; "
        f"outside simulation: {100 * report['outside_simulation_fraction']:.1f} %"
    )


# --- the parser -------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """Usage errors on one line of stderr, exit code 2, like every other
    invalid input of the command line."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{self.prog}: {message} (see {self.prog} --help)", 2)

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


def _command(
    sub: Any, name: str, func: Callable[[argparse.Namespace], None]
) -> argparse.ArgumentParser:
    doc = " ".join((func.__doc__ or "").split())
    p: argparse.ArgumentParser = sub.add_parser(name, help=doc.split(". ")[0], description=doc)
    p.set_defaults(func=func)
    return p


def _run_parser(sub: Any) -> None:
    p = _command(sub, "run", cmd_run)
    p.add_argument("scenario", type=Path, help="Scenario file (TOML).")
    p.add_argument("--seed", type=int, help="Seed (default: the scenario's).")
    p.add_argument(
        "--out",
        type=Path,
        help="Write result.json, flows.csv, links.csv and series CSVs here (and pcap files).",
    )
    p.add_argument("--json", action="store_true", help="Print the result JSON instead of a table.")
    p.add_argument(
        "--pcap",
        action="append",
        metavar="LINK[:POSITION]",
        help="Also capture packets at this end of a link (ingress or egress, default egress) "
        "in a pcap file, written to --out (default: the current directory). Repeatable; "
        "adds to the scenario's record.pcap.",
    )
    _add_store(p)


def _emulate_options(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("--seed", type=int, help="Seed (default: the scenario's).")
    p.add_argument(
        "--out",
        type=Path,
        help="Write result.json, CSVs, a pcap of each side and the socket samples here.",
    )
    return p


def _emulate_parser(sub: Any) -> None:
    p = _emulate_options(_command(sub, "emulate", cmd_emulate))
    p.add_argument(
        "scenario", type=Path, help="Scenario file (TOML), with an optional [emulation] table."
    )
    p.add_argument(
        "commands",
        nargs=argparse.REMAINDER,
        metavar="-- SENDER_CMD ... -- RECEIVER_CMD ...",
        help="Your sender and receiver commands instead of the built-in bulk pair.",
    )


def _listing_parsers(sub: Any) -> None:
    for name, func in (("variants", cmd_variants), ("impairments", cmd_impairments)):
        p = _command(sub, name, func)
        p.add_argument("--json", action="store_true", help="Print JSON instead of a table.")


def _sweep_parsers(sub: Any) -> None:
    p = _command(sub, "sweep", cmd_sweep)
    p.add_argument("sweep_file", type=Path, help="Sweep file (TOML): scenario, seeds, grid.")
    _add_backend(p)
    p.add_argument(
        "--out", type=Path, help="CSV of the tidy table (default: results/sweeps/NAME.csv)."
    )
    _add_store(p)
    p = _command(sub, "compare", cmd_compare)
    p.add_argument("scenario", type=Path, help="Scenario file (TOML): your network.")
    p.add_argument(
        "--variants",
        default="all",
        help="'all' (every registered variant, the default) or names, comma-separated.",
    )
    p.add_argument(
        "--cc", help="Congestion control for every variant (default: each one's paper's)."
    )
    p.add_argument(
        "--seeds", type=_at_least(1, int), default=5, help="Seeds per variant (1..N; 5)."
    )
    p.add_argument("--out", type=Path, help="Output folder (default: results/compare/NAME).")
    _add_backend(p)
    _add_store(p)


def _results_parsers(sub: Any) -> None:
    p = _command(sub, "reproduce", cmd_reproduce)
    p.add_argument("paper", nargs="?", help="Paper key (default: all).")
    p.add_argument("figure", nargs="?", help="Figure of that paper.")
    p.add_argument("--quick", action="store_true", help="Short runs, fewer seeds.")
    p.add_argument("--out", type=Path, default=Path("results"), help="Output directory.")
    p.add_argument("--list", dest="list_only", action="store_true", help="List papers and figures.")
    _add_store(p)
    p = _command(sub, "report", cmd_report)
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
    verbs = p.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    verbs.required = True
    for name, func in (
        ("check", cmd_store_check),
        ("repair", cmd_store_repair),
        ("compact", cmd_store_compact),
    ):
        q = _command(verbs, name, func)
        q.add_argument(
            "store",
            type=Path,
            nargs="?",
            help="Results store (DuckDB file). Default: $REORDERLAB_STORE or "
            "./results/reorderlab.duckdb.",
        )


def _bench_parser(sub: Any) -> None:
    p = _command(sub, "bench", cmd_bench)
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
    parser = _Parser(
        prog="reorderlab",
        description="Deterministic packet-level TCP simulator: reordering, loss and recovery.",
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    _run_parser(sub)
    _emulate_parser(sub)
    _listing_parsers(sub)
    _sweep_parsers(sub)
    _results_parsers(sub)
    _store_parsers(sub)
    _bench_parser(sub)
    return parser


def app(argv: Sequence[str] | None = None) -> None:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); ends
    with ``SystemExit`` on an error (its code is the exit code)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:  # no command: the help, as a usage error
        parser.print_help()
        raise SystemExit(2)
    try:
        func(args)
    except BrokenPipeError:
        # the reader went away (`reorderlab variants | head`): nothing more
        # to write; stdout goes to /dev/null so that its flush at exit is quiet
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None


def main() -> None:
    """Entry point of the ``reorderlab`` script."""
    app()


if __name__ == "__main__":
    main()
