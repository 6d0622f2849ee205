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
from collections import deque
from collections.abc import Callable
from typing import Any

from mypy_extensions import mypyc_attr

Entry = tuple[int, int, Callable[[Any], None], Any]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Engine:
    """The heap of scheduling points, plus a queue for timers armed in time order (`at_in_order`).

    TCP's delayed-ACK timer is armed again every other segment 40 ms ahead, and the model keeps
    every armed timer (a stale one finds nothing to do when it fires): thousands of them would
    sit in the heap and make every push and pop climb it. Armed at non-decreasing times, they
    are already sorted, so they wait in a FIFO instead; `step()` takes whichever of the two
    heads is earlier by (time, seq), so the order of events is exactly that of one heap.
    """
    __slots__ = ("now", "_heap", "_seq", "_fifo")

    def __init__(self) -> None:
        self.now = 0
        self._heap: list[Entry] = []
        self._seq = 0
        self._fifo: deque[Entry] = deque()

    def at(self, t: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        """Run fn(arg) at absolute time t (never in the past)."""
        if t < self.now:
            t = self.now
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, fn, arg))

    def at_in_order(self, t: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        """at() for a timer usually armed at non-decreasing times: queued in order, not in the heap."""
        if t < self.now:
            t = self.now
        self._seq += 1
        fifo = self._fifo
        if fifo and t < fifo[-1][0]:
            heapq.heappush(self._heap, (t, self._seq, fn, arg))      # out of order: the heap keeps it sorted
        else:
            fifo.append((t, self._seq, fn, arg))

    def after(self, delay: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        self.at(self.now + delay, fn, arg)

    def _next_t(self) -> int:
        """When the next callback is due (-1: nothing is scheduled)."""
        heap, fifo = self._heap, self._fifo
        if not fifo:
            return heap[0][0] if heap else -1
        if not heap:
            return fifo[0][0]
        return min(heap[0][0], fifo[0][0])

    def step(self) -> bool:
        """Run the next scheduled callback; False when nothing is left."""
        heap, fifo = self._heap, self._fifo
        if fifo and (not heap or _before(fifo[0], heap[0])):
            t, _, fn, arg = fifo.popleft()
        elif heap:
            t, _, fn, arg = heapq.heappop(heap)
        else:
            return False
        self.now = t
        fn(arg)
        return True

    def run_until(self, t: int) -> None:
        """Run every callback scheduled at or before t, then set now = t."""
        while True:
            nt = self._next_t()
            if nt < 0 or nt > t:
                break
            self.step()
        if t > self.now:
            self.now = t

    def __len__(self) -> int:
        return len(self._heap) + len(self._fifo)


def _before(a: Entry, b: Entry) -> bool:
    """a runs before b: the heap's order, (time, seq)."""
    return a[0] < b[0] or (a[0] == b[0] and a[1] < b[1])
