"""A deterministic discrete-event kernel, SimPy-sized.

A heap of (time_ps, seq, callback, arg); an explicit `now`; `step()` pops and
runs one entry. Time is an integer number of picoseconds, and ties are broken
by insertion order, so the same seed and parameters give the same sequence of
events byte for byte. There is no wall clock anywhere in `models`.

The heap holds *scheduling* points (an interrupt, the next frame of a NAPI
poll, a timer). The kernel calls made inside one of them are recorded as
`Event`s by `models.trace`; that split keeps the heap small and the
simulation fast.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Engine:
    __slots__ = ("now", "_heap", "_seq")

    def __init__(self) -> None:
        self.now = 0
        self._heap: list[tuple[int, int, Callable[[Any], None], Any]] = []
        self._seq = 0

    def at(self, t: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        """Run fn(arg) at absolute time t (never in the past)."""
        if t < self.now:
            t = self.now
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, fn, arg))

    def after(self, delay: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        self.at(self.now + delay, fn, arg)

    def step(self) -> bool:
        """Run the next scheduled callback; False when nothing is left."""
        if not self._heap:
            return False
        t, _, fn, arg = heapq.heappop(self._heap)
        self.now = t
        fn(arg)
        return True

    def run_until(self, t: int) -> None:
        """Run every callback scheduled at or before t, then set now = t."""
        heap = self._heap
        while heap and heap[0][0] <= t:
            self.step()
        if t > self.now:
            self.now = t

    def __len__(self) -> int:
        return len(self._heap)
