"""The one naming rule of the files a figure writes: ``<figure>-<what>``.

Every plot (``.png``, ``.svg`` and the ``.csv`` of its points) and every
table a recipe writes gets its file name here, from the stem the recipe
gives (``fig4_throughput``, ``fig4-5-7-{panel}``): words joined by ``-``,
never ``_``, so that ``fig4-throughput.png`` sits beside ``fig4-5-7-3.png``
in one style. A deviation's evidence names the file as written
(``papers/deviations/<paper>.toml``; ``tests/test_claims_explained.py``
checks every such name is a file of the reproduction).
"""

from __future__ import annotations

__all__ = ["artifact_stem"]


def artifact_stem(stem: str) -> str:
    """The file stem a figure's plot or table is written under."""
    return stem.replace("_", "-")
