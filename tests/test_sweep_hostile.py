"""Hostile sweep files and calls of the sweep API (issue 40, findings 4, 5
and 6): a name is a name, not a path; every bad input is one line naming
the field, never a traceback, and never after runs were simulated; user
strings in error lines are escaped and bounded."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import reorderlab as rl
from reorderlab.errors import MAX_LINE, one_line
from reorderlab.scenario import ScenarioError
from reorderlab.sweep import SweepFile
from reorderlab.sweep.file import MAX_NAME, MAX_NAME_BYTES, check_name, make_name

from .conftest import SMALL_TOML, small_scenario


def sweep_cli(folder: Path, text: str | bytes) -> subprocess.CompletedProcess[str]:
    """``reorderlab sweep sw.toml --no-cache`` on a sweep file of ``text``,
    beside ``small.toml``."""
    (folder / "small.toml").write_text(SMALL_TOML)
    sw = folder / "sw.toml"
    sw.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return subprocess.run(
        [sys.executable, "-m", "reorderlab", "sweep", "sw.toml", "--no-cache", "--workers", "1"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2, one line on stderr naming each of ``words``, no run simulated."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr[-2000:])
    err = proc.stderr
    assert "Traceback" not in err and err.count("\n") == 1, err[-2000:]
    assert err.startswith("error: sw.toml: "), err[:300]
    assert len(err) <= MAX_LINE + 20
    for word in words:
        assert word in err, (word, err[:600])
    assert "simulated" not in proc.stdout
    return err


OUTSIDE = [
    ("../../../../x", "must be a file name"),
    ("../x", "must be a file name"),
    ("/tmp/x", "must be a file name"),
    ("a/b", "must be a file name"),
    ("", "must not be empty"),
    (".hidden", "must be a file name"),
    (" x", "must be a file name"),
    ("a\\u0000b", "a\\x00b"),  # (TOML escapes: a NUL in the name)
    ("a\\u001b[31mb", "a\\x1b[31mb"),
    ("x" * (MAX_NAME + 1), f"must be at most {MAX_NAME} characters"),
]


@pytest.mark.parametrize("name, words", OUTSIDE, ids=range(len(OUTSIDE)))
def test_a_sweep_name_that_is_no_file_name_is_refused(
    tmp_path: Path, name: str, words: str
) -> None:
    """Finding 4: `name = "../../../../x"` wrote the CSV outside results/,
    `name = ""` a hidden `.csv`; a NUL in the name was refused only after
    the runs were simulated (ValueError)."""
    work = tmp_path / "a" / "b" / "c" / "d"
    work.mkdir(parents=True)
    proc = sweep_cli(work, f'name = "{name}"\nscenario = "small.toml"\nseeds = 1\n')
    refused(proc, "name: ", words)
    every = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert every == [Path(p) for p in ("a", "a/b", "a/b/c", "a/b/c/d")] + [
        Path("a/b/c/d/small.toml"),
        Path("a/b/c/d/sw.toml"),
    ]  # no CSV anywhere, no results/ folder


def test_good_names_are_kept_and_the_csv_lands_in_results(tmp_path: Path) -> None:
    for name in ("loss sweep", "p=0.01,rack", "a..b", "Reno-vs-SACK_2", "débit"):
        assert check_name(name) == name
    proc = sweep_cli(tmp_path, 'name = "a..b"\nscenario = "small.toml"\nseeds = 1\n')
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "results" / "sweeps" / "a..b.csv").is_file()


def test_a_sweep_file_named_with_a_leading_dot_gets_a_name(tmp_path: Path) -> None:
    """Without `name`, the file's stem names the CSV, made a name."""
    (tmp_path / "small.toml").write_text(SMALL_TOML)
    (tmp_path / ".x y.toml").write_text('scenario = "small.toml"\n')
    assert SweepFile.load(tmp_path / ".x y.toml").name == "x-y"
    (tmp_path / "..toml").write_text('scenario = "small.toml"\n')
    assert SweepFile.load(tmp_path / "..toml").name == "sweep"


HOSTILE_FILES: list[tuple[str, bytes, tuple[str, ...]]] = [
    ("not-utf8", b'name = "\xff"\nscenario = "small.toml"\n', ("not UTF-8 text: byte 0xff",)),
    (
        "deep-nesting",
        b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
        ("invalid TOML: nested too deeply",),
    ),
    (
        "huge-seed-count",
        b'scenario = "small.toml"\nseeds = 9223372036854775807\n',
        ("seeds: must be at most", "9223372036854775807"),
    ),
    (
        "huge-seed",
        b'scenario = "small.toml"\nseeds = [99999999999999999999]\n',
        ("seeds[0]:",),
    ),
    ("scenario-dev-zero", b'scenario = "/dev/zero"\n', ("scenario: /dev/zero is not a regular",)),
    ("scenario-folder", b'scenario = "."\n', ("scenario: ", "is not a regular file")),
    ("name-not-text", b'name = 5\nscenario = "small.toml"\n', ("name: must be a string",)),
    (
        "bad-path",
        b'scenario = "small.toml"\n[grid]\n"flows[0]..variant" = ["SACK"]\n',
        ("flows[0]..variant", "not a valid field path"),
    ),
    (
        "huge-unknown-key",
        b'scenario = "small.toml"\n' + b"k" * 1_000_000 + b" = 1\n",
        ("more characters", "unknown field"),
    ),
    (
        "escape-in-key",
        b'scenario = "small.toml"\n"\\u001b[2J\\u001b[31mred" = 1\n',
        ("\\x1b[2J\\x1b[31mred: unknown field",),
    ),
    (
        "escape-in-grid-key",
        b'scenario = "small.toml"\n[grid]\n"\\u001b[31m" = 1\n',
        ("\\x1b[31m", "must be a non-empty list"),
    ),
]


@pytest.mark.parametrize(
    "text, words", [c[1:] for c in HOSTILE_FILES], ids=[c[0] for c in HOSTILE_FILES]
)
def test_hostile_sweep_files_are_one_line(
    tmp_path: Path, text: bytes, words: tuple[str, ...]
) -> None:
    """Finding 5 (sweep files) and 6 (an ANSI sequence printed raw, a 1 MB
    unknown key made a 1 MB error line): exit 2, one bounded line naming
    the field, terminal controls escaped."""
    err = refused(sweep_cli(tmp_path, text), *words)
    assert "\x1b" not in err


def test_error_lines_are_escaped_and_bounded() -> None:
    assert one_line("a\x1b[31mb\nc\rd\x00\x9b\u2028") == "a\\x1b[31mb\\x0ac\\x0dd\\x00\\x9b\\u2028"
    assert one_line("s\udcffe") == "s\\udcffe"
    long = one_line("é" * 10_000)
    assert len(long) <= MAX_LINE and long.endswith("more characters)")
    assert one_line("plain: ünïcode ok") == "plain: ünïcode ok"


def test_the_sweep_api_refuses_what_is_no_grid_naming_it() -> None:
    """Finding 5 (Python API): `Grid(None, {})`, `Grid(sc, None)` raised a
    raw AttributeError / TypeError; `"flows[0]..variant"` was accepted; a
    surrogate in a value gave a TypeError naming no field."""
    sc = small_scenario(duration=0.5)
    with pytest.raises(TypeError, match=r"^Grid: base must be a Scenario, got NoneType$"):
        rl.Grid(None, {})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^Grid: params must be a dict .*, got NoneType$"):
        rl.Grid(sc, None)  # type: ignore[arg-type]
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.\.variant.*not a valid field path"):
        rl.sweep(rl.Grid(sc, {"flows[0]..variant": ["SACK"]}), seeds=1, store=None)
    for bad in ("flows[0].", ".duration", "flows[x].variant", "flows[0]variant", ""):
        with pytest.raises(ScenarioError, match="not a valid field path"):
            rl.Grid(sc, {bad: [1]}).points()
    with pytest.raises(ScenarioError, match=r"^grid\['name'\]\[1\]: must be text: .*surrogate"):
        rl.Grid(sc, {"name": ["a", "b\udcff"]}).points()
    with pytest.raises(
        ScenarioError, match=rf"^seeds: must be at most 1000000 \(a count of seeds\), got {2**62}$"
    ):
        rl.sweep(sc, seeds=2**62, store=None)
    with pytest.raises(ScenarioError, match=r"got inf"):
        rl.Grid(sc, {"impairments[0].p": [math.inf]}).points()
    assert len(rl.Grid(sc, {"flows[0].variant": ["SACK", "NewReno"]}).points()) == 2


def test_compare_and_scenarios_refuse_what_is_no_name_naming_the_field() -> None:
    """Finding 5 (Python API): `compare(variants=123)` raised a raw
    TypeError; `with_params({"flows[0]..variant": ...})` was accepted; a
    lone surrogate in `name` (what `surrogateescape` makes of undecodable
    bytes) was a TypeError naming no field; `--workers` had no bound."""
    sc = small_scenario(duration=0.5)
    cases: list[tuple[Any, str]] = [
        (lambda: rl.compare(sc, variants=123), r"^variants: must be 'all', .*got 123$"),
        (lambda: rl.compare(sc, variants=b"SACK"), r"^variants: must be 'all'"),
        (lambda: rl.compare(sc, variants=["S\udcff"]), r"^variants\[0\]: unknown variant"),
        (lambda: rl.compare(sc, cc=5), r"^cc: must be the name of a congestion control, got 5$"),
        (lambda: sc.with_params({"name": "a\udcff"}), r"^name: must be text: .*surrogate"),
        (lambda: sc.with_params({"flows[0].name": "\udc80"}), r"^flows\[0\]\.name: must be"),
        (lambda: sc.with_params({"flows[0].variant": "S\udcff"}), r"^flows\[0\]\.variant: "),
        (lambda: sc.with_params({"duration": math.inf}), r"^duration: .*got inf$"),
        (lambda: sc.with_params({"impairments[0].p": -math.inf}), r"got -inf$"),
    ]
    for path in ("flows[0]..variant", ".duration", "flows[0].", "[0]", "flows[0]variant"):
        cases.append((lambda p=path: sc.with_params({p: "SACK"}), "not a valid field path"))
    for call, message in cases:
        with pytest.raises(ScenarioError, match=message):
            call()
    with pytest.raises(ScenarioError, match=r"^name: must be text"):
        rl.Scenario.from_dict({**sc.to_dict(), "name": "x\ud800"})
    with pytest.raises(ValueError, match=r"^workers: must be at most 1024 .*got 10000$"):
        rl.sweep(sc, seeds=1, store=None, workers=10_000)


def test_names_of_wide_letters_fit_a_file_name(tmp_path: Path) -> None:
    """A name of 100 letters of 3 bytes (300 bytes in UTF-8) passed as a
    sweep's name, and a scenario named with 200 letters of 2 bytes made
    `compare` fail ("File name too long"): a file name has at most 255
    bytes. A sweep's name is refused naming the bytes; `compare`'s folder
    is cut to fit."""
    with pytest.raises(ScenarioError, match=r"^name: must be at most 200 bytes in UTF-8, got 300"):
        check_name("中" * 100)
    assert check_name("é" * 100) == "é" * 100  # (200 bytes)
    assert len(make_name("中" * 100, "x").encode()) <= MAX_NAME_BYTES
    assert make_name("../..", "x") == "x" and make_name("a/b", "x") == "a-b"
    text = SMALL_TOML.replace('name = "small"', 'name = "' + "é" * 200 + '"')
    (tmp_path / "wide.toml").write_text(text)
    args = ["compare", "wide.toml", "--seeds", "1", "--variants", "SACK,Reno", "--no-cache"]
    proc = subprocess.run(
        [sys.executable, "-m", "reorderlab", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (folder,) = [p for p in (tmp_path / "results" / "compare").iterdir() if p.name != "latest"]
    assert folder.name.startswith("é" * 100) and len(folder.name.encode()) <= 255
