"""Compare mode stopped at a kernel call: where the other variant is at the same moment.

`]` and `[` stop the shown variant right after one of its calls. Compare mode
sets a second variant beside it, and the two receive the same traffic in
lockstep (the same frames arrive at the same simulated times), but they make
different calls, so a call number means nothing across them. The same moment
does: the partner is shown right before its first call of the step that comes
later than the shown call. Left at the step's end instead, it showed
thousands of frames more than the stopped variant, and the difference line
counted them as the patch's doing.

Finding that call runs the partner's step again traced, a chunk of frames at a
time, as following an object does (`CallCursor.moves_of`), and keeps only each
call's time: a step's times are kept for the next press of `]` (a few steps).
"""

from __future__ import annotations

from array import array

from models.call_cursor import CallCursor

KEPT = 4            # steps whose call times are kept (each a few hundred KB at most)


class SameMoment:
    """The calls of a variant's step by simulated time, for the lesson run of one cursor."""

    def __init__(self, cur: CallCursor) -> None:
        self.cur = cur
        self._times: dict[tuple[int, str], tuple[int, array[int]]] = {}    # (step, variant) -> (first, t_ns)

    def call(self, k: int, variant: str, t_ns: int) -> int | None:
        """The call of step k after which `variant` is at simulated time t_ns: the one before its first
        call later than that (at least the step's first call); None: the step ends first, so its end
        is that moment."""
        first, times = self._step_times(k, variant)
        later = next((i for i, t in enumerate(times) if t > t_ns), None)
        if later is None:
            return None
        return first + max(0, later - 1)

    def _step_times(self, k: int, variant: str) -> tuple[int, array[int]]:
        key = (k, variant)
        got = self._times.get(key)
        if got is None:
            times: array[int] = array("q")
            first, last, _ = self.cur.call_range(k, variant, reachable=False)
            if k > 0 and last >= first:
                sim = self.cur.run.fresh(k - 1, variant)
                sim.rec.keep(first, last)
                for part in self.cur.parts(k, variant, sim):
                    part()
                    events = sim.rec.events
                    assert events is not None
                    times.extend(e.t_ns for e in events)
                    events.clear()
            if len(self._times) >= KEPT:
                self._times.pop(next(iter(self._times)))
            got = self._times[key] = (first, times)
        return got
