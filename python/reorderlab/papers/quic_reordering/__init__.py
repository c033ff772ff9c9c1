"""QUIC loss recovery under netem reordering: quinn issue 2711's table.

Paper key ``quic-reordering``: the measurements of quinn-rs/quinn issue
2711 (and PR 2713, which repeats them), with the duplicate-window effect of
issue 2710: the setting and its assumptions in :mod:`.setting`, the recipe
in :mod:`.table2711`. Run by name only (``reorderlab reproduce
quic-reordering``): it is not among the figures a plain ``reproduce`` runs.
"""
