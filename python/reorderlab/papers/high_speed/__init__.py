"""The high-speed paper: packet reordering and high-speed TCPs (Figs. 9-14).

Paper key ``high-speed``: the setting and its assumptions in :mod:`.setting`,
one module per figure or group of figures.
"""
