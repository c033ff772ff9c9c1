"""A paper's coverage table: every sentence of its results sections that
states an outcome, and the claims that encode it or why none does.

One file per paper beside its recipes, ``papers/<paper>/coverage.toml``::

    [[sentence]]
    where = "Sec. IV-B, Fig. 4(c)"
    quote = "The simulations also show that RED generally has worse ..."
    claims = [{ figure = "fig4", claim = "RED performs worse than DropTail" }]

    [[sentence]]
    where = "Sec. IV-A"
    quote = "A smooth sending rate gives a better estimate of the round trip ..."
    why_not = "A consequence the paper argues, not an outcome of its runs."

Each sentence has ``claims`` (the figure key and short name of each claim
encoding it, of any kind) or ``why_not``, never both. The report shows the
table (:mod:`reorderlab.report`); :func:`coverage_problems` checks it
against a reproduction's claims (``tests/test_claims_explained.py``):
every claim it names was made, quotes the sentence (or a part of it), and
every claim of kind ``claim`` is named by a sentence.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["CoverageError", "Sentence", "coverage", "coverage_path", "coverage_problems"]

#: Where the papers' packages are.
PAPERS_DIR = Path(__file__).parent / "papers"


class CoverageError(ValueError):
    """A coverage file that cannot be read."""


@dataclass(frozen=True)
class Sentence:
    """A sentence stating an outcome; the claims encoding it, or why none."""

    where: str
    quote: str
    claims: tuple[tuple[str, str], ...] = ()
    why_not: str | None = None


def coverage_path(paper: str) -> Path:
    return PAPERS_DIR / paper.replace("-", "_") / "coverage.toml"


@cache
def coverage(paper: str) -> tuple[Sentence, ...]:
    """The coverage table of ``paper`` (empty without a file)."""
    path = coverage_path(paper)
    if not path.exists():
        return ()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CoverageError(f"{path}: not valid TOML: {exc}") from None
    if set(data) - {"sentence"}:
        raise CoverageError(f"{path}: unknown key(s) {sorted(set(data) - {'sentence'})}")
    return tuple(
        _sentence(item, f"{path.name}: sentence {i}")
        for i, item in enumerate(data.get("sentence", []))
    )


def _text(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CoverageError(f"{where}: {key}: expected a non-empty string, got {value!r:.60}")
    return " ".join(value.split())


def _sentence(item: Any, where: str) -> Sentence:
    if not isinstance(item, Mapping):
        raise CoverageError(f"{where}: expected a table, got {type(item).__name__}")
    unknown = set(item) - {"where", "quote", "claims", "why_not"}
    if unknown:
        raise CoverageError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    claims = item.get("claims", [])
    if not isinstance(claims, list):
        raise CoverageError(f"{where}: claims: expected a list, got {claims!r:.60}")
    pairs = tuple(
        (_text(c, "figure", f"{where}: claims {i}"), _text(c, "claim", f"{where}: claims {i}"))
        if isinstance(c, Mapping)
        else _bad_claim(c, f"{where}: claims {i}")
        for i, c in enumerate(claims)
    )
    why_not = _text(item, "why_not", where) if "why_not" in item else None
    if bool(pairs) == (why_not is not None):
        raise CoverageError(f"{where}: give claims or why_not (one of them)")
    return Sentence(_text(item, "where", where), _text(item, "quote", where), pairs, why_not)


def _bad_claim(c: Any, where: str) -> tuple[str, str]:
    raise CoverageError(f"{where}: expected {{ figure = ..., claim = ... }}, got {c!r:.60}")


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def coverage_problems(paper: str, claims: Iterable[Mapping[str, Any]]) -> list[str]:
    """The coverage table of ``paper`` against the claims a reproduction
    made (claims.json entries): one line per problem."""
    table = coverage(paper)
    made = {(c["figure"], " ".join(str(c["claim"]).split())): c for c in claims}
    out = []
    named: set[tuple[str, str]] = set()
    for s in table:
        for key in s.claims:
            named.add(key)
            c = made.get(key)
            if c is None:
                out.append(f"{paper} coverage {s.where}: names no claim made: {key[0]} {key[1]!r}")
                continue
            quote = _norm(str(c.get("quote", "")))
            if not quote or (quote not in _norm(s.quote) and _norm(s.quote) not in quote):
                out.append(
                    f"{paper} {key[0]} {key[1]!r}: its quote is not the sentence of "
                    f"coverage {s.where} (nor a part of it)"
                )
    for key, c in made.items():
        if c.get("kind", "claim") == "claim" and key not in named:
            out.append(f"{paper} {key[0]} {key[1]!r}: a claim no coverage sentence names")
    return out
