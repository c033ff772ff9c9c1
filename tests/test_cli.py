"""The command line, run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reorderlab import _core

from .conftest import SMALL_TOML, run_cli

COMMANDS = ["run", "variants", "impairments", "sweep", "reproduce", "report", "bench"]


def test_run_prints_flow_table(small_toml: Path, cli_env: dict[str, str]) -> None:
    proc = run_cli(["run", str(small_toml), "--seed", "2"], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "small, seed 2" in proc.stdout
    assert "SACK" in proc.stdout
    assert "events" in proc.stdout
    again = run_cli(["run", str(small_toml), "--seed", "2"], cli_env)
    assert again.returncode == 0, again.stderr
    assert "(from the store)" in again.stdout


def test_run_imports_no_sweep_machinery(small_toml: Path, cli_env: dict[str, str]) -> None:
    """A single run needs no sweep machinery nor worker processes: the
    CLI's error handling must not import it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from reorderlab.cli import app\n"
        "try:\n"
        "    app(['run', sys.argv[1]])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "from reorderlab import pool\n"
        "print('reorderlab.sweep' in sys.modules, pool.fork_server_started())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(small_toml)],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=600,
        check=True,
    )
    assert out.stdout.split()[-2:] == ["False", "False"]


def test_run_json_and_out_dir(small_toml: Path, cli_env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run_cli(["run", str(small_toml), "--json", "--out", str(out), "--no-cache"], cli_env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["scenario"] == "small"
    assert data["flows"][0]["throughput_bps"] > 0
    assert json.loads((out / "result.json").read_text()) == data


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "bottleneck_rate = 8e6",
            "bottleneck_rate = -5",
            "topology.bottleneck_rate: must be > 0, got -5",
        ),
        ('variant = "SACK"', 'variant = "FOO"', "flows[0].variant: unknown variant 'FOO'"),
        ("p = 0.01", "p = 2.0", "impairments[0].p: must be in [0, 1), got 2"),
        ("duration = 5.0", "duration = 5.0\nbogus = 1", "bogus: unknown field, got 1"),
        ("[topology]", "[topology", "invalid TOML"),
    ],
)
def test_bad_scenario_exits_2_with_one_line(
    tmp_path: Path, cli_env: dict[str, str], old: str, new: str, message: str
) -> None:
    bad = tmp_path / "bad.toml"
    assert old in SMALL_TOML
    bad.write_text(SMALL_TOML.replace(old, new, 1), encoding="utf-8")
    proc = run_cli(["run", str(bad)], cli_env)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert str(bad) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


def test_missing_file_exits_2(cli_env: dict[str, str], tmp_path: Path) -> None:
    proc = run_cli(["run", str(tmp_path / "nope.toml")], cli_env)
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_seed_store_or_output_path_is_one_line(
    small_toml: Path, cli_env: dict[str, str], tmp_path: Path
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    not_db = tmp_path / "notes.duckdb"
    not_db.write_text("not a database\n", encoding="utf-8")
    sc = str(small_toml)
    cases = [
        (["run", sc, "--seed", "-1"], 2, "seed: must be an integer from 0 to 18446744073709551615"),
        (["run", sc, "--no-cache", "--out", str(a_file)], 1, f"{a_file}: File exists"),
        (["run", sc, "--store", str(not_db)], 1, "is not a DuckDB file (it does not start as one)"),
        (["run", sc, "--store", str(tmp_path)], 1, "is a directory, not a store file"),
        (
            ["reproduce", "baseline", "undisturbed", "--quick", "--no-cache", "--out", str(a_file)],
            1,
            "Not a directory",
        ),
    ]
    for args, code, message in cases:
        proc = run_cli(args, cli_env)
        assert (proc.returncode, "Traceback" in proc.stderr) == (code, False), (args, proc.stderr)
        last = proc.stderr.strip().splitlines()[-1]
        assert last.startswith("error: ") and message in last, (args, proc.stderr)


def test_run_table_of_a_flow_without_rtt_sample(tmp_path: Path, cli_env: dict[str, str]) -> None:
    # 10 ms: no ACK has come back, the flow has no srtt (None in the result)
    short = tmp_path / "short.toml"
    short.write_text(SMALL_TOML.replace("duration = 5.0", "duration = 0.01"), encoding="utf-8")
    proc = run_cli(["run", str(short), "--no-cache"], cli_env)
    assert proc.returncode == 0, proc.stderr
    flow_row = next(line for line in proc.stdout.splitlines() if "SACK" in line)
    assert flow_row.rstrip(" │|").endswith("-")  # no srtt: shown as '-'


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str, cli_env: dict[str, str]) -> None:
    proc = run_cli([command, "--help"], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout


def test_variants_and_impairments(cli_env: dict[str, str]) -> None:
    proc = run_cli(["variants"], cli_env)
    assert proc.returncode == 0, proc.stderr
    for name in ("SACK", "NewReno", "Reno", "RFC 6675"):
        assert name in proc.stdout
    data = json.loads(run_cli(["variants", "--json"], cli_env).stdout)
    assert {v["name"] for v in data["variants"]} >= {"SACK", "NewReno", "Reno"}
    proc = run_cli(["impairments"], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "loss" in proc.stdout


def test_sweep_file(tmp_path: Path, cli_env: dict[str, str], small_toml: Path) -> None:
    sweep_file = tmp_path / "loss.toml"
    sweep_file.write_text(
        'name = "loss"\nscenario = "small.toml"\nseeds = 2\n'
        '[grid]\n"impairments[0].p" = [0.0, 0.02]\n',
        encoding="utf-8",
    )
    out = tmp_path / "loss.csv"
    proc = run_cli(["sweep", str(sweep_file), "--workers", "2", "--out", str(out)], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "4 runs: 4 simulated, 0 from the store" in proc.stdout
    import pandas as pd

    df = pd.read_csv(out)
    assert len(df) == 4
    assert sorted(df["impairments[0].p"].unique()) == [0.0, 0.02]
    again = run_cli(["sweep", str(sweep_file), "--out", str(out)], cli_env)
    assert "4 runs: 0 simulated, 4 from the store" in again.stdout


def test_bad_sweep_grid_exits_2(tmp_path: Path, cli_env: dict[str, str], small_toml: Path) -> None:
    sweep_file = tmp_path / "bad.toml"
    sweep_file.write_text(
        'scenario = "small.toml"\n[grid]\n"impairments[0].p" = [0.01, 1.5]\n', encoding="utf-8"
    )
    proc = run_cli(["sweep", str(sweep_file)], cli_env)
    assert proc.returncode == 2
    assert "impairments[0].p: must be in [0, 1), got 1.5" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_reproduce_unknown_paper_exits_2(cli_env: dict[str, str]) -> None:
    proc = run_cli(["reproduce", "nosuchpaper"], cli_env)
    assert proc.returncode == 2
    assert "unknown paper 'nosuchpaper' (known: baseline" in proc.stderr
    listing = run_cli(["reproduce", "--list"], cli_env)
    assert "baseline undisturbed" in listing.stdout
    assert "baseline random-loss" in listing.stdout


def test_reproduce_writes_claims(cli_env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = run_cli(["reproduce", "baseline", "undisturbed", "--quick", "--out", str(out)], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "holds" in proc.stdout
    claims = json.loads((out / "baseline" / "claims.json").read_text())
    assert len(claims) == 2
    for claim in claims:
        assert {"paper", "figure", "claim", "expected", "measured", "holds"} <= set(claim)
        assert claim["paper"] == "baseline"
        assert claim["holds"] is True, claim
    for suffix in ("png", "svg", "csv"):
        assert (out / "baseline" / f"undisturbed-cwnd.{suffix}").stat().st_size > 0


def test_bench_json(cli_env: dict[str, str]) -> None:
    proc = run_cli(["bench", "ref-rrtcp", "--json"], cli_env)
    assert proc.returncode == 0, proc.stderr
    (report,) = json.loads(proc.stdout)
    assert report["name"] == "ref-rrtcp"
    for field in ("wall_s", "sim_s", "events", "events_per_s", "packet_hops_per_s", "peak_rss_mb"):
        assert report[field] > 0
    # which build the numbers come from (make install: profile-guided)
    assert report["build"] == _core.build_kind() != "instrumented"
    bad = run_cli(["bench", "nosuch"], cli_env)
    assert bad.returncode == 2
    assert "unknown benchmark 'nosuch'" in bad.stderr


def test_bench_prints_its_table(cli_env: dict[str, str]) -> None:
    """The table of every report field (it raised: 7 formats for 8 fields)."""
    proc = run_cli(["bench", "ref-rrtcp"], cli_env)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if "ref-rrtcp" in line)
    cells = [c.strip() for c in row.strip("│| ").split("│")]
    (report,) = json.loads(run_cli(["bench", "ref-rrtcp", "--json"], cli_env).stdout)
    assert len(cells) == 8 and cells[4] == f"{report['events']:,}", cells
    assert f"reference benchmarks ({report['build']} build)" in proc.stdout


def test_pgo_training_refuses_a_core_that_records_nothing(cli_env: dict[str, str]) -> None:
    """scripts/pgo_train.py with a core that is not the instrumented build
    (here the installed one) would leave no profile, and the profile-guided
    build would then treat every function as cold: it stops instead."""
    script = Path(__file__).resolve().parent.parent / "scripts" / "pgo_train.py"
    proc = subprocess.run(
        [sys.executable, str(script)], env=cli_env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1, proc.stderr
    assert f"the installed core is a {_core.build_kind()} build, not an instrumented one" in (
        proc.stderr
    )


def test_bench_times_a_scenario_of_ones_own(cli_env: dict[str, str], tmp_path: Path) -> None:
    """``bench --scenario``: one run of the user's file, phase by phase; the
    events are those of ``run`` with the same seed."""
    sc = tmp_path / "mine.toml"
    sc.write_text(SMALL_TOML)
    proc = run_cli(["bench", "--scenario", str(sc), "--seed", "4", "--json"], cli_env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    ran = json.loads(run_cli(["run", str(sc), "--seed", "4", "--json"], cli_env).stdout)
    assert report["events"] == ran["events"] > 0
    assert report["seed"] == 4
    for field in ("build_s", "run_s", "result_s", "json_s", "json_mb", "peak_rss_mb"):
        assert report[field] > 0, field
    assert report["events_per_s"] == pytest.approx(report["events"] / report["run_s"])
    own = json.loads(run_cli(["bench", "--scenario", str(sc), "--json"], cli_env).stdout)
    assert own["seed"] == 1  # the scenario's
    table = run_cli(["bench", "--scenario", str(sc)], cli_env)
    assert table.returncode == 0, table.stderr
    row = next(line for line in table.stdout.splitlines() if "small" in line)
    cells = [c.strip() for c in row.strip("│| ").split("│")]
    assert cells[:2] == ["small", "1"] and cells[7] == f"{own['events']:,}", cells


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scenario", "nope.toml"], "error: nope.toml: cannot read nope.toml"),
        (["--seed", "3"], "error: bench: --seed goes with --scenario"),
        (["--scenario", "SC", "--seed", "-1"], "seed: must be an integer from 0 to"),
    ],
)
def test_bench_scenario_bad_input_is_one_line(
    cli_env: dict[str, str], tmp_path: Path, args: list[str], message: str
) -> None:
    sc = tmp_path / "mine.toml"
    sc.write_text(SMALL_TOML)
    proc = run_cli(["bench", *[str(sc) if a == "SC" else a for a in args]], cli_env)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert message in proc.stderr


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_bench_sweep_json(cli_env: dict[str, str], backend: str) -> None:
    args = ["bench", "--sweep", "--runs", "4", "--seconds", "0.5", "--preset", "light"]
    proc = run_cli([*args, "--json", "--backend", backend], cli_env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    measured = [*report["by_workers"].values(), report["cold_process"]]
    assert len(measured) >= 2
    for r in measured:
        assert r["executed"] == 4
        assert r["sim_core_cpu_s"] > 0 and r["wall_s"] > 0
        assert 0 <= r["outside_simulation_fraction"] < 1
    assert report["speedup"] > 0
    assert report["backend"] == backend


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--preset", "error: preset: must be one of light, medium, heavy, got 'nope'"),
        ("--backend", "error: backend: must be one of local, threads, dask, got 'nope'"),
    ],
)
def test_bench_sweep_bad_preset_or_backend_is_one_line(
    cli_env: dict[str, str], option: str, message: str
) -> None:
    """Checked before anything runs (a bad preset reached the benchmark's
    subprocess and came back as a traceback)."""
    proc = run_cli(["bench", "--sweep", option, "nope"], cli_env)
    assert proc.returncode == 2
    assert proc.stderr.strip() == message
