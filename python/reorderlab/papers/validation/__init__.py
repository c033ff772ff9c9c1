"""The simulator against the real Linux kernel (``reorderlab emulate``).

Paper key ``validation``: the setting, the kernel runs and what was found in
:mod:`.setting`, the figure in :mod:`.fig4`.
"""
