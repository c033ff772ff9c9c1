"""BBR, CUBIC and Reno under reordering, simulated and on the kernel (issue 37).

Paper key ``bbr-reordering``: the setting, the kernel runs and their
assumptions in :mod:`.setting`, the rr-tcp chain in :mod:`.chain`, the
high-speed generator at 1 Gb/s in :mod:`.gigabit`. Run by name only
(``reorderlab reproduce bbr-reordering``); its kernel runs are made by
``reorderlab reproduce bbr-reordering kernel`` (root).
"""
