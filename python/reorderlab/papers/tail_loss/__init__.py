"""The tail-loss paper: tail-loss recovery with RTOR, TLP and TLPR (Figs. 1-4).

Paper key ``tail-loss``: the setting and its assumptions in :mod:`.setting`,
one module per figure.
"""
