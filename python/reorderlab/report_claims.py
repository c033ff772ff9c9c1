"""The report's claims as HTML (:mod:`reorderlab.report` builds the page):
the headline and summary tallies by kind, before and now; a paper's claims
with the sentence each encodes, its tests' intervals and the share of
seeds on which it holds; under each that does not hold its deviation; and
the paper's coverage table.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from reorderlab.claims import KINDS, Claim, Tally, tally_text
from reorderlab.coverage import Sentence
from reorderlab.deviations import CAUSES
from reorderlab.tallies import Before

__all__ = [
    "CAUSE_HEADS",
    "SummaryRow",
    "claims_table",
    "coverage_table",
    "headline",
    "split_first_sentence",
    "summary_table",
]

#: The summary's columns of statements not holding.
CAUSE_HEADS = (*CAUSES, "unexplained")
#: The summary's column heads of each kind.
_KIND_HEADS = {"claim": "claims holding", "condition": "conditions met", "sanity": "sanity checks"}


def _e(text: object) -> str:
    """Text escaped for HTML content and attribute values."""
    return html.escape(str(text), quote=True)


def _href(*parts: str) -> str:
    """A relative link to a file under the report's directory."""
    return _e(quote("/".join(parts)))


def _count(held: int, total: int) -> str:
    cls = "all-hold" if held == total else "some-fail"
    return f'<td class="count {cls}">{held} / {total}</td>'


def _sum(tallies: Sequence[Tally]) -> Tally:
    return {k: (sum(t[k][0] for t in tallies), sum(t[k][1] for t in tallies)) for k in KINDS}


def headline(tallies: Sequence[Tally], befores: Sequence[Before]) -> str:
    """The page's first paragraph: today's tallies by kind over every paper,
    then those before issue 34 (every statement then counted as a claim)."""
    now = f"<p>{_e(tally_text(_sum(tallies)))}, across {len(tallies)} paper(s). "
    now += "Built by <code>reorderlab report</code> from the files next to this page.</p>"
    if not befores:
        return now
    parts = []
    for kind in ("claim", "sanity"):
        sel = [b for b in befores if b.kind == kind]
        if sel:
            q = (sum(b.quick[0] for b in sel), sum(b.quick[1] for b in sel))
            f = (sum(b.full[0] for b in sel), sum(b.full[1] for b in sel))
            name = "papers' claims" if kind == "claim" else "sanity checks"
            parts.append(f"{name} {q[0]} of {q[1]} quick, {f[0]} of {f[1]} full")
    return now + (
        "\n<p>Before the claims were re-encoded from the papers' sentences (main 282214e, "
        f"every statement counted as a claim): {_e('; '.join(parts))}.</p>"
    )


@dataclass(frozen=True)
class SummaryRow:
    """One paper's row of the summary table."""

    anchor: str
    key: str
    title: str
    tally: Tally
    before: Before | None
    by_cause: Mapping[str, int]


def summary_table(rows: Sequence[SummaryRow]) -> str:
    """One row per paper: its tallies by kind, before, and those not
    holding by cause; a total row."""

    def cells(tally: Tally, before: str, causes: Mapping[str, int]) -> str:
        counts = "".join(_count(*tally[k]) for k in KINDS)
        by_cause = "".join(f'<td class="count">{causes[k]}</td>' for k in CAUSE_HEADS)
        return f"{counts}<td>{_e(before)}</td>{by_cause}"

    body = [
        f'<tr><td><a href="#{r.anchor}">{_e(r.key)}</a></td><td>{_e(r.title)}</td>'
        f"{cells(r.tally, r.before.text() if r.before else '', r.by_cause)}</tr>"
        for r in rows
    ]
    total = _sum([r.tally for r in rows])
    causes = {k: sum(r.by_cause[k] for r in rows) for k in CAUSE_HEADS}
    foot = f"<tr><th>all</th><th></th>{cells(total, '', causes)}</tr>"
    kinds = "".join(f"<th>{_KIND_HEADS[k]}</th>" for k in KINDS)
    cause_heads = "".join(f"<th>{_e(k)}</th>" for k in CAUSE_HEADS)
    return "\n".join(
        [
            '<table class="summary">',
            f"<thead><tr><th>paper</th><th>title</th>{kinds}<th>before (held / total)</th>"
            f"{cause_heads}</tr>"
            f'<tr><th colspan="{3 + len(KINDS)}"></th>'
            f'<th colspan="{len(CAUSE_HEADS)}">not holding, by cause</th></tr></thead>',
            "<tbody>",
            *body,
            "</tbody>",
            f"<tfoot>{foot}</tfoot>",
            "</table>",
        ]
    )


_HEADS = ("figure", "statement", "expected", "measured", "seeds holding", "verdict")


def _statement(c: Claim) -> str:
    """A claim's name, its kind when not a paper's claim, and its sentence."""
    kind = "" if c.kind == "claim" else f' <span class="kind">({_e(c.kind)})</span>'
    said = ""
    if c.quote:
        where = f" ({_e(c.where)})" if c.where else ""
        said = f'<br><q class="quote">{_e(c.quote)}</q>{where}'
    return f"{_e(c.claim)}{kind}{said}"


def _share(c: Claim) -> str:
    return "" if c.seed_share is None else f"{100 * c.seed_share:.0f} %"


def claims_table(paper: str, claims: Sequence[Claim], files: frozenset[str]) -> str:
    """A paper's claims with a verdict that shows without colour too; under
    each that does not hold, its cause, why and evidence."""
    rows = []
    for c in claims:
        cls, verdict = (
            ("holds", "&#10004; holds") if c.holds else ("fails", "&#10008; does not hold")
        )
        cells = [_e(c.figure), _statement(c), _e(c.expected), _e(c.measured), _share(c)]
        tds = "".join(f"<td>{t}</td>" for t in cells)
        rows.append(f'<tr class="{cls}">{tds}<td class="verdict">{verdict}</td></tr>')
        if not c.holds:
            rows.append(_deviation_row(paper, c, files))
    head = "".join(f"<th>{h}</th>" for h in _HEADS)
    top = ['<table class="claims">', f"<thead><tr>{head}</tr></thead>", "<tbody>"]
    return "\n".join([*top, *rows, "</tbody>", "</table>"])


def _deviation_row(paper: str, claim: Claim, files: frozenset[str]) -> str:
    """The row under a claim that does not hold: why, or that nobody knows."""
    d = claim.deviation
    span = len(_HEADS)
    if d is None:
        return (
            f'<tr class="why"><td colspan="{span}"><span class="cause">unexplained</span></td></tr>'
        )
    items = []
    for e in d.evidence:
        ref = f'<a href="{_href(paper, e.ref)}">{_e(e.ref)}</a>' if e.ref in files else _e(e.ref)
        words = f' <q class="quote">{_e(e.quote)}</q>' if e.quote else ""
        items.append(f"<li>{_e(e.kind)}: {ref}: {_e(e.note)}{words}</li>")
    share = "" if d.seed_share is None else f" Holds on {100 * d.seed_share:.0f} % of the seeds."
    first, rest = split_first_sentence(d.why)
    return (
        f'<tr class="why"><td colspan="{span}"><details><summary>'
        f'<span class="cause">cause: {_e(d.cause)}.</span> {_e(first)}</summary>'
        f"{_e(rest)}{share}<ul>{''.join(items)}</ul></details></td></tr>"
    )


#: Words ending in a full stop that do not end a sentence.
_ABBREVIATIONS = frozenset(
    {"fig", "figs", "sec", "secs", "eq", "eqs", "tab", "e.g", "i.e", "cf", "vs", "al"}
    | {"approx", "resp", "no", "ref", "refs"}
)


def split_first_sentence(text: str) -> tuple[str, str]:
    """``text``'s first sentence and the rest: the first ``.``, ``!`` or
    ``?`` followed by a space and a capital, a digit or a bracket that does
    not end an abbreviation (``Fig. 9``, ``e.g. ``)."""
    for m in re.finditer(r"[.!?](?=\s+[A-Z0-9(\[])", text):
        before = text[: m.start()].rsplit(None, 1)
        word = before[-1].lower() if before else ""
        if text[m.start()] == "." and word.lstrip("(") in _ABBREVIATIONS:
            continue
        return text[: m.end()].strip(), text[m.end() :].strip()
    return text.strip(), ""


def coverage_table(sentences: Sequence[Sentence], claims: Sequence[Claim]) -> str:
    """Each sentence of the paper stating an outcome: the claims encoding
    it (with their verdicts) or why none does."""
    if not sentences:
        return ""
    made = {(c.figure, " ".join(c.claim.split())): c for c in claims}
    rows = []
    for s in sentences:
        if s.why_not is not None:
            encoded = f"not encoded: {_e(s.why_not)}"
        else:
            encoded = "<br>".join(_encoded(key, made.get(key)) for key in s.claims)
        rows.append(
            f"<tr><td>{_e(s.where)}</td><td><q>{_e(s.quote)}</q></td><td>{encoded}</td></tr>"
        )
    n_enc = sum(1 for s in sentences if s.why_not is None)
    return "\n".join(
        [
            f"<h3>coverage: {len(sentences)} sentences stating an outcome, {n_enc} encoded</h3>",
            '<table class="coverage">',
            "<thead><tr><th>where</th><th>sentence</th><th>encoded by</th></tr></thead>",
            "<tbody>",
            *rows,
            "</tbody>",
            "</table>",
        ]
    )


def _encoded(key: tuple[str, str], claim: Claim | None) -> str:
    name = f"{_e(key[0])}: {_e(key[1])}"
    if claim is None:
        return f"{name} (not in this reproduction)"
    return f"{name} ({'holds' if claim.holds else 'does not hold'})"
