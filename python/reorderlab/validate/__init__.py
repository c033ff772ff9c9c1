"""Does the simulator match *this* kernel? ``reorderlab validate`` (issue 35).

A matrix of cells (:mod:`.cells`), each a scenario (:mod:`.scenarios`) run
on this machine's Linux kernel through ``reorderlab emulate``
(:mod:`.kernel`) and in the simulator with several seeds, both stored in
the results store; per cell the ratio simulator / kernel of goodput or
completion time, the counts side by side (:mod:`.compare`), the first
packet where the two differ (:mod:`.firstdiff`) and the emulator's own
timing error; before the matrix, the emulator checked as an instrument
from its captures (:mod:`.instrument`); the table and heat maps in the
report (:mod:`.report`). The driver is :mod:`.run`; ``docs/validation.md``
says how to run it and what a cell means.
"""
