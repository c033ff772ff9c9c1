"""Pictures of one run (``reorderlab plot``, ``run --plot``,
:meth:`reorderlab.Result.plot_tsg`): what a TCP engineer looks at first.

* :mod:`.data`: the plotted data, taken from a :class:`~reorderlab.Result`
  (its trace, trace details and series): plain arrays, which the tests
  compare with what was drawn;
* :mod:`.tsg`: the time-sequence graph, in the style of tcptrace and of
  Wireshark's Stevens graph;
* :mod:`.state`: cwnd / ssthresh / pipe, and RTT / RTO, over time;
* :mod:`.queue`: the links' queues over time;
* :mod:`.recording`: the scenario's ``[record]`` section these need;
* :mod:`.files`: which pictures, named how, written next to a run's CSVs.
"""

from __future__ import annotations

from reorderlab.runplots.files import KINDS, NoDataError, write_plots
from reorderlab.runplots.recording import with_plot_recording

__all__ = ["KINDS", "NoDataError", "with_plot_recording", "write_plots"]
