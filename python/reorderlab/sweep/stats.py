"""What a sweep did (:class:`SweepStats`): runs in total, simulated, cached,
and the share of the workers' time spent outside simulation."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SweepStats"]


@dataclass
class SweepStats:
    """What a sweep did: runs in total, simulated now, taken from the store."""

    total: int = 0
    executed: int = 0
    cached: int = 0
    wall_s: float = 0.0
    sim_wall_s: float = 0.0
    sim_cpu_s: float = 0.0
    workers: int = 0
    backend: str = ""

    @property
    def outside_fraction(self) -> float:
        """Share of the workers' time not spent simulating (0 = perfect):
        ``1 - (CPU time of the core in every run) / (wall time x workers)``.

        CPU time, not the runs' wall time: a worker whose CPU the driver (or
        anything else) takes in the middle of a run is not simulating then.
        """
        return self._outside(self.sim_cpu_s)

    @property
    def outside_fraction_by_run_wall(self) -> float:
        """The same with the runs' wall times in the core (counts CPU taken
        from a worker in the middle of a run as simulation)."""
        return self._outside(self.sim_wall_s)

    def _outside(self, simulating: float) -> float:
        if self.wall_s <= 0 or self.workers <= 0:
            return 0.0
        return max(0.0, 1.0 - simulating / (self.wall_s * self.workers))
