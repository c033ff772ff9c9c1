"""The wwan paper: link-layer in-order vs out-of-order delivery, TCP-Aix (Figs. 2-4).

Paper key ``wwan``: the setting and its assumptions in :mod:`.setting`,
one module per figure.
"""
