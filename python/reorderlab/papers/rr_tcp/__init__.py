"""The rr-tcp paper: RR-TCP (Zhang, Karp, Floyd, Peterson), Sec. 5, Figs. 1, 4-19, Tables 3-4.

Paper key ``rr-tcp``: the setting and its assumptions in :mod:`.setting`,
the figures' tables in :mod:`.tables`, one module per figure or group of
figures.
"""
