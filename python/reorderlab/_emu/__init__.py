"""Internals of ``reorderlab emulate`` (see :mod:`reorderlab.emulate`).

The modules that run inside a network namespace (``link``, ``workload``,
``tcpinfo``, ``nsproc``) are started as ``python -m reorderlab._emu.NAME`` and
import only the standard library (and, for ``link``, the compiled core), so
they start in tens of milliseconds.
"""
