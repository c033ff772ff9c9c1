"""The ``reorderlab`` command line.

Exit codes: 0 success; 2 invalid input (a bad scenario or sweep file names the
field and value on one line of stderr, no traceback); 1 any other failure.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from reorderlab._pool import start_workers
from reorderlab.scenario import ScenarioError

app = typer.Typer(
    name="reorderlab",
    help="Deterministic packet-level TCP simulator: reordering, loss and recovery.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _console() -> Console:
    return Console(width=None if sys.stdout.isatty() else 140, soft_wrap=False)


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def _errors(source: str | None = None) -> Iterator[None]:
    """Map expected failures to one line on stderr and an exit code."""
    from reorderlab.errors import BackendError, StoreError

    try:
        yield
    except ScenarioError as exc:
        where = exc.source or source
        _fail(f"{where}: {exc}" if where else str(exc), 2)
    except (StoreError, BackendError) as exc:
        _fail(str(exc), 1)
    except OSError as exc:  # an output file or folder that cannot be written
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}", 1)
    except KeyboardInterrupt:
        typer.echo("interrupted: completed runs are stored; run again to resume", err=True)
        raise typer.Exit(130) from None


StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Results store (DuckDB file). Default: $REORDERLAB_STORE or "
        "./results/reorderlab.duckdb.",
    ),
]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the results store.")
]


def _store(path: Path | None, no_cache: bool) -> Any:
    from reorderlab.store import Store

    if no_cache:
        return None
    return Store(path)


def _mbps(value: Any) -> str:
    return _scaled(value, 1e-6, 4)


def _scaled(value: Any, factor: float, digits: int) -> str:
    """``value * factor`` with ``digits`` decimals; ``-`` for a metric the
    run has no value of (e.g. no RTT sample in a very short run)."""
    try:
        number = float(value) * factor
    except (TypeError, ValueError):
        return "-"
    return "-" if number != number else f"{number:.{digits}f}"  # NaN: no value


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    seed: Annotated[int | None, typer.Option(help="Seed (default: the scenario's).")] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Write result.json, flows.csv, links.csv and series CSVs here."),
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the result JSON instead of a table.")
    ] = False,
    store: StoreOpt = None,
    no_cache: NoCacheOpt = False,
) -> None:
    """Run one scenario and print per-flow metrics."""
    from reorderlab.runner import run as run_scenario
    from reorderlab.scenario import load_scenario

    with _errors(str(scenario)):
        sc = load_scenario(scenario)
        st = _store(store, no_cache)
        try:
            try:
                result = run_scenario(sc, seed=seed, store=st)
            except RuntimeError as exc:
                _fail(str(exc), 1)
        finally:
            if st is not None:
                st.close()
    if out is not None:
        with _errors():
            result.save(out)
    if json_out:
        typer.echo(result.to_json(indent=2))
        return
    con = _console()
    table = Table(
        title=f"{result.scenario_name}, seed {result.seed}"
        + (" (from the store)" if result.cached else "")
    )
    for col in (
        "flow",
        "name",
        "variant",
        "cc",
        "Mb/s",
        "retransmits",
        "timeouts",
        "spurious",
        "srtt ms",
    ):
        table.add_column(col)
    for i, row in result.flows.iterrows():
        table.add_row(
            str(i),
            str(row.get("name", "")),
            str(row.get("variant", "")),
            str(row.get("cc", "")),
            _mbps(row.get("throughput_bps")),
            str(row.get("retransmits", "")),
            str(row.get("timeouts", "")),
            str(row.get("spurious_retransmits", "")),
            _scaled(row.get("srtt"), 1000, 2),
        )
    con.print(table)
    con.print(
        f"events {result.events}, packet hops {result.packet_hops}, "
        f"engine {result.engine_version}"
        + ("" if result.wall_s is None else f", {result.wall_s:.3f} s in the core")
    )
    if out is not None:
        con.print(f"wrote {out}/")


def _registry_table(title: str, entries: list[dict[str, Any]], columns: list[str]) -> Table:
    table = Table(title=title)
    for col in columns:
        table.add_column(col, overflow="fold")
    for entry in entries:
        cells = []
        for col in columns:
            value = entry.get(col, "")
            if isinstance(value, dict):
                value = ", ".join(f"{k}: {v}" for k, v in value.items())
            elif isinstance(value, list):
                value = ", ".join(str(v) for v in value)
            cells.append(str(value))
        table.add_row(*cells)
    return table


JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@app.command()
def variants(json_out: JsonOpt = False) -> None:
    """List the sender variants and congestion controls, with their sources."""
    from reorderlab import _core

    vs = json.loads(_core.variants())
    ccs = json.loads(_core.congestion_controls())
    if json_out:
        typer.echo(json.dumps({"variants": vs, "congestion_controls": ccs}, indent=2))
        return
    con = _console()
    con.print(_registry_table("sender variants", vs, ["name", "description", "source"]))
    con.print(_registry_table("congestion controls", ccs, ["name", "description", "source"]))


@app.command()
def impairments(json_out: JsonOpt = False) -> None:
    """List the impairment kinds and their parameters."""
    from reorderlab import _core

    items = json.loads(_core.impairments())
    if json_out:
        typer.echo(json.dumps(items, indent=2))
        return
    _console().print(_registry_table("impairments", items, ["kind", "description", "params"]))


@app.command()
def sweep(
    sweep_file: Annotated[Path, typer.Argument(help="Sweep file (TOML): scenario, seeds, grid.")],
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            metavar="ADDRESS",
            help="Run on the Dask scheduler at ADDRESS ('local': start a LocalCluster).",
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: all cores).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="CSV of the tidy table (default: results/sweeps/NAME.csv)."),
    ] = None,
    store: StoreOpt = None,
    no_cache: NoCacheOpt = False,
) -> None:
    """Run a grid of scenarios x seeds in parallel, cached and resumable."""
    if not dask:
        start_workers(workers)  # the fork server's start overlaps the imports
    from reorderlab.sweeper import DEFAULT, SweepFile
    from reorderlab.sweeper import sweep as run_sweep

    with _errors(str(sweep_file)):
        spec = SweepFile.load(sweep_file)
        try:
            # the sweep opens (or creates) the store itself: a new file is
            # then created after the runs, and it is closed in the background
            df = run_sweep(
                spec.points,  # validated by load: not again
                spec.seeds,
                backend="dask" if dask else "local",
                address=None if dask in (None, "local") else dask,
                workers=workers,
                store=None if no_cache else (store or DEFAULT),
            )
        except RuntimeError as exc:
            _fail(str(exc), 1)
    path = out or Path("results") / "sweeps" / f"{spec.name}.csv"
    with _errors():
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(path, index=False)
    con = _console()
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
        table = Table(title=f"{spec.name}: mean over {len(spec.seeds)} seed(s)")
        for col in summary.columns:
            table.add_column(str(col))
        for _, row in summary.iterrows():
            table.add_row(*(f"{v:.6g}" if isinstance(v, float) else str(v) for v in row))
        con.print(table)


@app.command()
def reproduce(
    paper: Annotated[str | None, typer.Argument(help="Paper key (default: all).")] = None,
    figure: Annotated[str | None, typer.Argument(help="Figure of that paper.")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Short runs, fewer seeds.")] = False,
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("results"),
    list_only: Annotated[
        bool, typer.Option("--list", help="List papers and figures, run nothing.")
    ] = False,
    store: StoreOpt = None,
    no_cache: NoCacheOpt = False,
) -> None:
    """Reproduce a paper's figures; print and save its claims (holds / does not hold);
    rebuild the HTML report DIR/index.html."""
    if not list_only:
        start_workers()  # the fork server's start overlaps the imports
    from reorderlab.claims import print_claims
    from reorderlab.papers import FigureRecipe, UnknownRecipeError, papers, select
    from reorderlab.papers import reproduce as run_recipes

    con = _console()
    if list_only:
        for name, figs in papers().items():
            for fig, rec in figs.items():
                mark = "" if rec.default else " (not in the default set)"
                con.print(f"{name} {fig}: {rec.title}{mark}")
        return
    try:
        select(paper, figure)
    except UnknownRecipeError as exc:
        _fail(str(exc), 2)

    def announce(rec: FigureRecipe) -> None:
        mode = "quick" if quick else "full"
        con.print(f"[bold]{rec.paper} {rec.figure}[/bold] ({mode}): {rec.title}")

    with _errors():
        st = _store(store, no_cache)
        try:
            by_paper = run_recipes(
                paper, figure, quick=quick, out=out, store=st, on_figure=announce
            )
        finally:
            if st is not None:
                st.close()
    for name, claims in by_paper.items():
        print_claims(claims, con, title=f"{name}: claims")
        con.print(f"wrote {out / name / 'claims.json'}")
    typer.echo(f"wrote {_write_report(out)}")


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


@app.command()
def report(
    out: Annotated[
        Path,
        typer.Option(
            metavar="DIR", help="Results directory of 'reproduce'; the page is DIR/index.html."
        ),
    ] = Path("results"),
    recheck: Annotated[
        bool,
        typer.Option(
            "--recheck",
            help="First re-derive the tables and claims in DIR from the runs in the store, "
            "simulating nothing (plots are left as they are).",
        ),
    ] = False,
    quick: Annotated[
        bool, typer.Option("--quick", help="With --recheck: the runs of 'reproduce --quick'.")
    ] = False,
    store: StoreOpt = None,
) -> None:
    """Build the HTML report (claims and plots of every paper in DIR) as DIR/index.html."""
    if recheck:
        _recheck(out, quick, store)
    elif quick or store is not None:
        _fail("--quick and --store go with --recheck", 2)
    typer.echo(f"wrote {_write_report(out)}")


def _recheck(out: Path, quick: bool, store: Path | None) -> None:
    """``report --recheck``: every figure claimed in DIR re-checked from the store."""
    from reorderlab.claims import print_claims
    from reorderlab.papers import recheck
    from reorderlab.report import ReportError
    from reorderlab.store import Store

    con = _console()
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


@app.command()
def bench(
    names: Annotated[
        list[str] | None, typer.Argument(help="Benchmarks to run (default: all).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    sweep_bench: Annotated[
        bool,
        typer.Option(
            "--sweep", help="Measure sweep speed-up and overhead instead (100 x 10 s runs)."
        ),
    ] = False,
    runs: Annotated[int, typer.Option(min=1, help="Runs of the --sweep benchmark.")] = 100,
    seconds: Annotated[
        float, typer.Option(min=0.001, help="Simulated seconds per --sweep run.")
    ] = 10.0,
    preset: Annotated[
        str,
        typer.Option(help="--sweep scenario: light (8 Mb/s), medium (100 Mb/s), heavy (1 Gb/s)."),
    ] = "medium",
    backend: Annotated[
        str,
        typer.Option(help="--sweep backend: local (processes), threads, or dask (a LocalCluster)."),
    ] = "local",
) -> None:
    """Run the engine's reference benchmarks (wall, events/s, packet-hops/s, memory)."""
    from reorderlab import bench as bench_mod

    if sweep_bench:
        from reorderlab.bench_sweep import measure_sweep

        try:
            report = measure_sweep(runs, seconds, preset=preset, backend=backend)  # type: ignore[arg-type]
        except ValueError as exc:
            _fail(str(exc), 2)
        if json_out:
            typer.echo(json.dumps(report, indent=2))
            return
        con = _console()
        con.print(
            f"{runs} runs of {seconds:g} simulated seconds, preset {preset}, backend {backend}"
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
        return
    try:
        reports = bench_mod.run_benchmarks(names)
    except ValueError as exc:
        _fail(str(exc), 2)
    except RuntimeError as exc:
        _fail(str(exc), 1)
    if json_out:
        typer.echo(json.dumps(reports, indent=2))
        return
    table = Table(title="reference benchmarks")
    heads = ["name", "wall s", "sim s", "events", "events/s", "packet-hops/s", "peak MB"]
    for head in heads:
        table.add_column(head)
    fmt: list[Callable[[Any], str]] = [
        str,
        lambda v: f"{v:.3f}",
        lambda v: f"{v:g}",
        lambda v: f"{int(v):,}",
        lambda v: f"{v:,.0f}",
        lambda v: f"{v:,.0f}",
        lambda v: f"{v:.1f}",
    ]
    for r in reports:
        table.add_row(*(f(r.get(k, 0)) for f, k in zip(fmt, bench_mod.BENCH_FIELDS, strict=True)))
    _console().print(table)


def main() -> None:
    """Entry point of the ``reorderlab`` script."""
    app()


if __name__ == "__main__":
    main()
