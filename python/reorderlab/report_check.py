"""The HTML report checked in a real browser: headless Chromium renders
``DIR/index.html`` and says whether every image loaded and decoded, every
link leads to a file (or an anchor) that exists, and whether the claim
counts the page shows are those of the ``claims.json`` files; then it takes
a screenshot of the page (``DIR/index.png``).

The page is not changed: the check renders a copy whose images load
eagerly (not lazily) and with a small script appended
(``DIR/.index-check.html``, removed afterwards), which writes what the
browser saw into the page when it has loaded; Chromium's ``--dump-dom``
prints it.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from reorderlab.claims import KINDS, tally, tally_text
from reorderlab.report import read_claims
from reorderlab.report_claims import CAUSE_HEADS

__all__ = ["CHROMIUM_FLAGS", "HEADER", "BrowserCheck", "check_report", "find_chromium"]

#: Flags that let headless Chromium run here: as root in a container (no
#: sandbox), without a GPU, network services, or a profile of its own.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)

#: Appended to the copy of the page (whose images are loaded eagerly, so
#: that the load event waits for every one of them): what the browser saw,
#: written into the page by the load event's handler, synchronously.
_PROBE = """
<script>
window.addEventListener("load", () => {
  const cells = (tr) => Array.from(tr.cells).map((c) => c.innerText.trim());
  const seen = {
    images: Array.from(document.images).map((img) => (
      {src: img.getAttribute("src"), ok: img.complete && img.naturalWidth > 0,
       opens: (img.closest("a") || {href: ""}).href})),
    header: Object.fromEntries(Array.from(document.querySelectorAll("header dl.meta dt"))
      .map((dt) => [dt.innerText.trim(), dt.nextElementSibling.innerText.trim()])),
    toc: Array.from(document.querySelectorAll("nav.toc a")).map((a) => a.getAttribute("href")),
    links: Array.from(document.links).map((a) => ({href: a.getAttribute("href"), url: a.href})),
    ids: Array.from(document.querySelectorAll("[id]")).map((e) => e.id),
    headline: (document.querySelector("h1 + p") || {innerText: ""}).innerText,
    summary: Array.from(document.querySelectorAll("table.summary tbody tr")).map(cells),
    leagues: Array.from(document.querySelectorAll("table.league"))
      .map((t) => t.tBodies[0].rows.length),
  };
  const out = document.createElement("pre");
  out.id = "reorderlab-check";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
});
</script>
"""


def find_chromium() -> str | None:
    """The Chromium (or Chrome) program on PATH, if any."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class BrowserCheck:
    """What the browser saw of a report."""

    images: int = 0
    links: int = 0
    #: paper key -> (held, total of each kind: claims, conditions, sanity
    #: checks; then those not holding per cause and unexplained) as the
    #: page shows them
    page_counts: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: the same from the claims.json files
    file_counts: dict[str, tuple[int, ...]] = field(default_factory=dict)
    league_rows: list[int] = field(default_factory=list)
    #: the header's facts (mode, date, engine, machine) as the page shows them
    header: dict[str, str] = field(default_factory=dict)
    #: the table of contents' links (each to an anchor of the page)
    toc: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_report(out: Path, chromium: str | None = None, timeout: float = 120) -> BrowserCheck:
    """Render ``out/index.html`` in headless Chromium and check it (module
    docstring); write the screenshot ``out/index.png``. Raises
    ``FileNotFoundError`` without a report or a browser."""
    page = out / "index.html"
    if not page.is_file():
        raise FileNotFoundError(f"{page}: no report (run 'reorderlab report' first)")
    browser = chromium or find_chromium()
    if browser is None:
        raise FileNotFoundError("chromium: not found (Debian: apt-get install chromium)")
    probe = out / ".index-check.html"
    text = page.read_text(encoding="utf-8")
    eager = text.replace('loading="lazy"', 'loading="eager"')
    probe.write_text(eager.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    try:
        dom = _chromium(browser, ["--dump-dom", "--virtual-time-budget=20000"], probe, timeout)
    finally:
        probe.unlink()
    found = re.search(r'<pre id="reorderlab-check">(.*?)</pre>', dom, re.S)
    check = BrowserCheck(file_counts=_claim_counts(out))
    if found is None:
        check.problems.append("the page's check script did not run (no report in the DOM)")
        return check
    seen: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    _check_images(seen, check)
    _check_links(seen, out, probe, check)
    _check_top(seen, check)
    _check_counts(seen, check)
    check.league_rows = [int(n) for n in seen["leagues"]]
    shot = out / "index.png"
    _chromium(browser, [f"--screenshot={shot}", "--window-size=1280,2000"], page, timeout)
    check.screenshot = shot if shot.is_file() else None
    if check.screenshot is None:
        check.problems.append("no screenshot was written")
    return check


def _chromium(browser: str, args: list[str], page: Path, timeout: float) -> str:
    """Run headless Chromium on ``page`` with a fresh profile; its stdout."""
    with tempfile.TemporaryDirectory(prefix="reorderlab-chromium-") as profile:
        proc = subprocess.run(
            [
                browser,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                *args,
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"chromium exited with {proc.returncode}: {tail[0]}")
    return proc.stdout


def _check_images(seen: dict[str, Any], check: BrowserCheck) -> None:
    """Each image loads, and opens full size: it is the link to its file
    (the link's target is checked with the other links)."""
    check.images = len(seen["images"])
    for img in seen["images"]:
        if not img["ok"]:
            check.problems.append(f"image does not load: {img['src']}")
        if not img["opens"]:
            check.problems.append(f"image does not open (no link): {img['src']}")


#: What the header says, in its order.
HEADER = ("mode", "date", "engine", "machine")


def _check_top(seen: dict[str, Any], check: BrowserCheck) -> None:
    """The header has its facts, and the table of contents an entry for
    each paper (the links' anchors are checked with the other links)."""
    check.header = {str(k): str(v) for k, v in seen["header"].items()}
    check.toc = [str(h) for h in seen["toc"]]
    if list(check.header) not in (list(HEADER), ["reproduction"]):
        check.problems.append(f"header: expected {', '.join(HEADER)}, got {list(check.header)}")
    for paper in check.file_counts:
        if f"#paper-{paper}" not in check.toc:
            check.problems.append(f"table of contents: no entry for {paper}")


def _check_links(seen: dict[str, Any], out: Path, probe: Path, check: BrowserCheck) -> None:
    """Each link: an anchor of the page, or a file under ``out``."""
    check.links = len(seen["links"])
    ids = set(seen["ids"])
    for link in seen["links"]:
        url = urlparse(link["url"])
        if url.scheme != "file":
            check.problems.append(f"link is not a local file: {link['href']}")
            continue
        target = Path(unquote(url.path))
        if target == probe.resolve():
            if url.fragment and url.fragment not in ids:
                check.problems.append(f"link to a missing anchor: {link['href']}")
        elif not target.is_file():
            check.problems.append(f"link to a missing file: {link['href']}")
        elif out.resolve() not in target.parents:
            check.problems.append(f"link outside the results folder: {link['href']}")


def _claim_counts(out: Path) -> dict[str, tuple[int, ...]]:
    """(held, total of each kind..., not holding per cause..., unexplained)
    of every ``out/<paper>/claims.json`` (read by
    :func:`reorderlab.report.read_claims`)."""
    counts = {}
    for path in sorted(out.glob("*/claims.json")):
        claims = read_claims(path)
        kinds = tally(claims)
        failing = [c for c in claims if not c.holds]
        causes = [c.deviation.cause if c.deviation else "unexplained" for c in failing]
        by_cause = tuple(causes.count(k) for k in CAUSE_HEADS)
        counts[path.parent.name] = (*(n for k in KINDS for n in kinds[k]), *by_cause)
    return counts


def _check_counts(seen: dict[str, Any], check: BrowserCheck) -> None:
    """The page's counts (summary rows and headline) against the files."""
    n = len(KINDS)
    for row in seen["summary"]:
        kinds = [int(x) for cell in row[2 : 2 + n] for x in cell.split("/")]
        # row[2 + n]: the tally before, not in the files
        check.page_counts[row[0]] = (*kinds, *(int(x) for x in row[3 + n :]))
    if check.page_counts != check.file_counts:
        check.problems.append(
            f"counts on the page {check.page_counts} != claims.json {check.file_counts}"
        )
    values = list(check.file_counts.values())
    total = {k: (sum(c[2 * i] for c in values), sum(c[2 * i + 1] for c in values))
             for i, k in enumerate(KINDS)}  # fmt: skip
    want = tally_text(total)
    if not seen["headline"].startswith(want):
        check.problems.append(f"headline {seen['headline']!r} does not start {want!r}")
