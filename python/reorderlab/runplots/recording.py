"""The ``[record]`` section a run's pictures need: the trace over the
whole run with its details (SACK blocks, causes, ground truth, drops,
receiver window, queues) and the sender's series.

Recording observes the run and never changes it: the flows' numbers are
those of the same run without it (``tests/test_runplots.py``); the
scenario is another one for the store, though (its ``record`` differs),
so a run asked to be plotted is simulated once more.
"""

from __future__ import annotations

from reorderlab.scenario import Scenario

__all__ = ["PLOT_SERIES", "with_plot_recording"]

#: The sender's series the cwnd and RTT pictures draw.
PLOT_SERIES = ("cwnd", "ssthresh", "pipe", "srtt", "rto")

#: Samples over the run when the scenario records no series of its own
#: (else its interval is kept, and its series CSV is unchanged).
SAMPLES = 1000


def with_plot_recording(scenario: Scenario) -> Scenario:
    """``scenario`` recording what :func:`~reorderlab.runplots.write_plots`
    draws: its own series kept (and their interval; without any, one
    sample per :data:`SAMPLES`-th of the run), the plotted ones added;
    every flow it records (all if it names none) traced from 0 to the end
    of the run, with details."""
    record = scenario.record
    series = list(record.series) + [s for s in PLOT_SERIES if s not in record.series]
    params: dict[str, object] = {
        "record.series": series,
        "record.trace_window": [0.0, float(scenario.duration)],
        "record.trace_details": True,
    }
    if not record.series:  # no series of its own to keep: a sample per SAMPLES-th of the run
        params["record.interval"] = float(scenario.duration) / SAMPLES
    return scenario.with_params(params)
