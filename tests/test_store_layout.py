"""The store's layout 5: big results encoded by column; stores of layout 4
(results as text, big ones zlib-compressed) read as they are, migrated
without a rewrite and re-encoded by ``compact``; journals of version 1
replayed; compaction gives the free space back."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from reorderlab import store as store_mod
from reorderlab.store import Store, StoreRow, journal_path
from reorderlab.store import codec as result_codec
from reorderlab.store import db as store_db

from .conftest import run_cli
from .test_result_codec import web_result


def run_fields(i: int, result: str) -> dict[str, Any]:
    return {
        "scenario_name": f"s{i}",
        "seed": i,
        "engine_version": "v",
        "scenario_json": f'{{"name": "s{i}"}}',
        "result_json": result,
        "wall_s": 0.5 + i,
    }


def big(i: int, n: int = 400) -> str:
    """A result text with per-object records, series and traces (~60 KB)."""
    data = web_result(n)
    data["scenario"] = f"web{i}"
    return json.dumps(data)


SMALL = '{"flows": [{"flow": 0, "throughput_bps": 1.5}], "series": {}}'

#: The table as layouts 4 wrote it.
LAYOUT_4_TABLE = """
CREATE TABLE runs (
    key VARCHAR NOT NULL, scenario_name VARCHAR NOT NULL, seed UBIGINT NOT NULL,
    engine_version VARCHAR NOT NULL,
    scenario_json VARCHAR USING COMPRESSION uncompressed NOT NULL,
    result_json VARCHAR USING COMPRESSION uncompressed NOT NULL,
    wall_s DOUBLE, created_at DOUBLE NOT NULL,
    result_z BLOB USING COMPRESSION uncompressed
)
"""


def layout_4_store(path: Path, texts: dict[str, str]) -> None:
    """A store as layout 4 wrote it: results of 1 MiB or more zlib text in
    ``result_z`` with their summary; the others (per-object records of up
    to a megabyte included) as text."""
    con = duckdb.connect(str(path))
    con.execute(LAYOUT_4_TABLE)
    con.execute("CREATE TABLE reorderlab_meta (layout INTEGER NOT NULL)")
    con.execute("INSERT INTO reorderlab_meta VALUES (4)")
    for i, (key, text) in enumerate(texts.items()):
        fields = run_fields(i, text)
        if len(text) >= 1 << 20:
            rjson = store_mod.summary_of(json.loads(text))
            z: bytes | None = zlib.compress(text.encode(), 1)
        else:
            rjson, z = text, None
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                key,
                fields["scenario_name"],
                fields["seed"],
                "v",
                fields["scenario_json"],
                rjson,
                fields["wall_s"],
                1.0 + i,
                z,
            ],
        )
    con.close()


def layout_of(path: Path) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        row = con.execute("SELECT layout FROM reorderlab_meta").fetchone()
        assert row is not None
        return int(row[0])
    finally:
        con.close()


def blobs(path: Path) -> dict[str, bytes | None]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {str(k): z for k, z in con.execute("SELECT key, result_z FROM runs").fetchall()}
    finally:
        con.close()


def same(a: str, b: str) -> bool:
    return json.dumps(json.loads(a)) == json.dumps(json.loads(b))


def texts_of_every_kind() -> dict[str, str]:
    huge = json.loads(big(9, n=10_000))  # ~1.1 MB of text: layout 4 compressed it
    assert len(json.dumps(huge)) >= 1 << 20
    return {"huge": json.dumps(huge), "big": big(1), "small": SMALL}


def test_a_layout_4_store_reads_as_it_is_then_compact_encodes_it(tmp_path: Path) -> None:
    path = tmp_path / "v4.duckdb"
    texts = texts_of_every_kind()
    layout_4_store(path, texts)
    with Store(path, read_only=True) as ro:  # read as it is
        assert {k: v for k, (v, _) in ro.get_results(texts).items()} == texts
        assert ro.get("big").result_json == texts["big"]  # type: ignore[union-attr]
    with Store(path) as st:  # migrated: the number only
        assert {r.key: r.result_json for r in st.runs()} == texts
    assert layout_of(path) == store_db.LAYOUT
    stored = blobs(path)
    assert stored["small"] is None and stored["big"] is None  # as they were
    assert stored["huge"] is not None and stored["huge"][:1] == b"\x78"  # (zlib)
    with Store(path) as st:
        before, after = st.compact()
        assert after < before
        for key, text in texts.items():
            got = st.get(key)
            assert got is not None and same(got.result_json, text), key
        values = st.get_values(texts)
        assert {k: json.dumps(v) for k, (v, _) in values.items()} == {
            k: json.dumps(json.loads(t)) for k, t in texts.items()
        }
    stored = blobs(path)
    assert stored["small"] is None  # no bulk to take out
    for key in ("big", "huge"):
        blob = stored[key]
        assert blob is not None and result_codec.is_encoded(blob), key
        assert len(blob) < len(zlib.compress(texts[key].encode(), 1)) / 2


def test_runs_are_stored_encoded_with_their_summary_and_read_by_column(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    text = big(0)
    with Store(path, flush_interval=1e9, flush_rows=10**9) as st:
        st.put_many([StoreRow(key="k0", **run_fields(0, text))])  # type: ignore[arg-type]
        st.put_many(  # the value parsed by the caller: encoded from it
            [StoreRow(key="k1", **run_fields(1, text), result_value=orjson.loads(text))]  # type: ignore[arg-type]
        )
        pending = st.get_values(["k0"], columns=True)["k0"][0]  # still in the journal
        assert isinstance(pending["traffic"][0]["object_list"], result_codec.Records)
    with Store(path, read_only=True) as ro:
        for key in ("k0", "k1"):
            got = ro.get(key)
            assert got is not None and same(got.result_json, text)
        [(summary, _)] = ro.get_results(["k0"], summaries=True).values()
        assert json.loads(summary) == json.loads(store_mod.summary_of(json.loads(text)))
        value, wall = ro.get_values(["k0"], columns=True)["k0"]
        objects = value["traffic"][0]["object_list"]
        assert isinstance(objects, result_codec.Records) and wall == 0.5
        listed = json.loads(text)["traffic"][0]["object_list"]
        assert json.dumps(objects.rows()) == json.dumps(listed)
    assert result_codec.is_encoded(blobs(path)["k0"] or b"")


def test_a_journal_of_version_1_is_replayed(tmp_path: Path) -> None:
    """A journal left by a driver of layout 4 holds whole result texts
    (lines of version 1): the next open replays them, encoded."""
    path = tmp_path / "j.duckdb"
    with Store(path):
        pass
    text = big(3)
    lines = [
        {"v": 1, "key": "old", **run_fields(3, text), "created_at": 7.0},
        {"v": 1, "key": "small", **run_fields(4, SMALL), "created_at": 8.0},
    ]
    journal_path(path).write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    with Store(path, read_only=True) as ro:  # shown, not moved in
        assert ro.pending() == 2 and same(ro.get("old").result_json, text)  # type: ignore[union-attr]
    with Store(path) as st:
        assert st.pending() == 0
        assert same(st.get("old").result_json, text)  # type: ignore[union-attr]
        assert st.get("small").result_json == SMALL  # type: ignore[union-attr]
    assert result_codec.is_encoded(blobs(path)["old"] or b"")
    assert not journal_path(path).exists()


def test_a_journal_line_with_a_damaged_blob_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "d.duckdb"
    with Store(path, flush_interval=1e9, flush_rows=10**9) as st:
        st.put_many([StoreRow(key="k0", **run_fields(0, big(0)))])  # type: ignore[arg-type]
        line = journal_path(path).read_bytes()
        st._jr.pending.clear()  # (as if the process died here)
    obj = json.loads(line)
    obj["result_z"] = obj["result_z"][:-40] + "A" * 40  # its arrays damaged
    journal_path(path).write_bytes(orjson.dumps(obj) + b"\n")
    with Store(path) as st:
        assert "k0" not in st
    assert store_mod.quarantine_path(path).exists()


def fill_in_sessions(path: Path, sessions: int, runs: int) -> None:
    """``runs`` big runs stored in each of ``sessions`` sessions (a store
    opened and closed each time)."""
    for session in range(sessions):
        with Store(path) as st:
            st.put_many(
                StoreRow(key=f"k{session}_{i}", **run_fields(i, big(i)))  # type: ignore[arg-type]
                for i in range(runs)
            )


def test_sessions_leave_free_space_and_compact_gives_it_back(tmp_path: Path) -> None:
    path = tmp_path / "c.duckdb"
    fill_in_sessions(path, sessions=3, runs=40)
    with Store(path) as st:
        everything = {r.key: r.result_json for r in st.runs()}
        assert len(everything) == 120
        assert st.free_share() > 0.2  # (DuckDB rewrote the row group each session)
        (tmp_path / "c.duckdb.compact").write_bytes(b"left by a kill")
        before, after = st.compact()
        assert after < 0.8 * before
        assert st.free_share() == 0.0
        assert {r.key: r.result_json for r in st.runs()} == everything
        st.put_many([StoreRow(key="after", **run_fields(0, SMALL))])  # type: ignore[arg-type]
    assert not (tmp_path / "c.duckdb.compact").exists()
    with Store(path, read_only=True) as ro:
        assert len(ro) == 121


def test_compact_refuses_a_store_another_store_of_the_process_has_open(tmp_path: Path) -> None:
    path = tmp_path / "busy.duckdb"
    with Store(path) as one, Store(path) as two:
        with pytest.raises(store_mod.StoreError, match="another Store of this process"):
            one.compact()
        assert len(two) == 0


def test_store_compact_command(tmp_path: Path, cli_env: dict[str, str]) -> None:
    path = tmp_path / "cli.duckdb"
    fill_in_sessions(path, sessions=2, runs=20)
    res = run_cli(["store", "compact", str(path)], cli_env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"{path}: ") and " MB -> " in res.stdout
    with Store(path, read_only=True) as ro:
        assert len(ro) == 40
    missing = run_cli(["store", "compact", str(tmp_path / "none.duckdb")], cli_env)
    assert missing.returncode == 2 and "does not exist" in missing.stderr
