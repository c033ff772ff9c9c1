"""Results store: one DuckDB file, by default ``./results/reorderlab.duckdb``.

Every run is keyed by sha256 of (canonical scenario JSON, seed, engine
version) (:meth:`reorderlab.Scenario.cache_key`), so re-running a cached run
costs nothing and a new engine version never returns stale results.

Where is my run now?
--------------------

From the moment :meth:`Store.put` / :meth:`Store.put_many` returns (in a
sweep: as soon as the driver has the run from its worker, before its
``on_run``), a completed run is in the **journal** until a **flush** commits
it into the **database**; then it is in the database. Every lookup
(``get``, ``get_results``, ``get_values``, ``iter_values``, ``existing``,
``in``, ``len``, ``keys``, ``runs``) looks in both, journal first.

1. The journal, ``STORE.journal`` (:mod:`.journal`): one line of JSON per
   run, appended with one ``write`` per batch of runs that completed
   together. Once the call returns the line survives ``kill -9`` or
   Ctrl-C of the process (not a power cut: it is not ``fsync``-ed). The
   writing process keeps the same runs in memory (``Journal.pending``).
2. The database, table ``runs`` of the DuckDB file ``STORE``
   (:mod:`.db`). A flush is one DuckDB transaction of every journaled run,
   after which the journal is emptied. It happens when a put leaves the
   journal holding :attr:`Store.flush_rows` runs (1000),
   :attr:`Store.FLUSH_BYTES` of text (64 MiB) or a run
   :attr:`Store.flush_interval` seconds old (10), at the end of a sweep, on
   :meth:`Store.close` and at normal interpreter exit (:mod:`.registry`).
   DuckDB keeps a session's rows in its own write-ahead log (``STORE.wal``)
   until it checkpoints them into the file as the store closes: DuckDB's
   business; the rows are committed either way.

A process that dies before its flush leaves its journal behind: the next
writable open replays it into the database (skipping keys already there,
so a replay is idempotent: a run in both after a flush cut between its
commit and the journal's emptying is stored once) and empties it (the
writer holds a lock on it; it is removed, empty, as the store closes). A
read-only open leaves it alone but shows its runs. A line cut short by a
kill is ignored; an invalid one is kept in ``STORE.journal.bad``, never
replayed. A sweep into a store file that does not exist yet
(:class:`NewStore`) journals its runs and creates the file when its first
flush is due, or in the background after it returns. ``reorderlab store
compact`` (:mod:`.compaction`) rewrites the database without its free
space; ``reorderlab store repair`` (:mod:`.repair`) rebuilds a damaged one.

The database itself is only ever changed by complete DuckDB transactions,
so the file is never left unreadable. Only the driver process of a sweep
writes; worker processes return JSON text to it, or a big result already
packed as it is stored (:attr:`StoreRow.result_z`, :mod:`.rows`,
:mod:`.codec`). One process writes to a store at a time (:mod:`.lock`: a
lock on ``STORE.lock`` and one on the journal itself, so that deleting the
lock file lets no second writer in; :class:`StoreBusyError`); within one
process, stores opened on the same file share one journal. Only regular
files are stores (:func:`.paths.check_files`); a full disk, a read-only
or a busy store is told apart from a damaged one (:mod:`.failures`).

The modules: :mod:`.paths` (the store's files), :mod:`.rows` (a run as
stored), :mod:`.codec` (big results encoded by column), :mod:`.db` (the
DuckDB file: schema, layouts, statements), :mod:`.journal`, :mod:`.lock`,
:mod:`.registry` (what this process has open), :mod:`.store`
(:class:`Store`), :mod:`.new` (:class:`NewStore`), :mod:`.cutshort` (a
new file cut short, created again from its journal), :mod:`.compaction`,
:mod:`.repair`.
"""

from __future__ import annotations

from reorderlab.errors import StoreBusyError, StoreDamagedError, StoreError
from reorderlab.store.journal import read_journal
from reorderlab.store.new import NewStore
from reorderlab.store.paths import (
    DEFAULT_STORE,
    default_store_path,
    journal_path,
    lock_path,
    quarantine_path,
)
from reorderlab.store.registry import wait_for_background_closes
from reorderlab.store.rows import (
    COMPRESS_FROM,
    StoredRun,
    StoreRow,
    is_big,
    run_key,
    summary_of,
)
from reorderlab.store.store import Store

__all__ = [
    "COMPRESS_FROM",
    "DEFAULT_STORE",
    "NewStore",
    "Store",
    "StoreBusyError",
    "StoreDamagedError",
    "StoreError",
    "StoreRow",
    "StoredRun",
    "default_store_path",
    "is_big",
    "journal_path",
    "lock_path",
    "quarantine_path",
    "read_journal",
    "run_key",
    "summary_of",
    "wait_for_background_closes",
]
