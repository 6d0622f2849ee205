"""A lesson run one kernel call at a time: any step stopped right after any of its calls.

A lesson step is the unit the model snapshots (models.replay), often
hundreds of calls. To show the moment right after one call, the step is run
again from the snapshot before it, with `Recorder.halt_at` set: the run
raises `trace.Halt` just before the next call is recorded and `Halt.undo`
takes that call's count back. The Sim left is a picture of that moment for
the player's views; it is never run on (its step stopped half-way).

A long step traces only its last TRACED_TAIL frames when it first runs; the
cursor keeps a copy of the model where that traced end starts, so stepping
inside it re-runs a few dozen frames, and re-runs the step whole, traced, to
stop in its head. Frame by frame the same run: a step re-run in chunks, or
an `until` run split at a frame, ends in the same state, numbers its events
the same, and is tested to.

`moves_of` finds every move of one object in a step (the player's follow
mode): the step traced whole, a chunk of frames at a time, keeping only the
events that move or name it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .calls import CALL_ID
from .replay import TRACED_TAIL, LessonRun, run_until, until_count, untraced
from .sim import Sim
from .snapshot import clone
from .trace import Event, Halt

Run = Callable[[], object]


class CallCursor:
    """The calls of a `LessonRun`'s steps, per variant: their numbers, their moments, one object's moves."""

    def __init__(self, run: LessonRun) -> None:
        self.run = run
        self._tails: dict[tuple[int, str], tuple[Sim, int]] = {}       # see _tail
        self._events: dict[tuple[int, str], list[Event]] = {}         # see step_events
        self._moves: dict[tuple[int, str, str], list[Event]] = {}     # see moves_of

    def call_range(self, k: int, variant: str, reachable: bool = True) -> tuple[int, int, int]:
        """(first, last, reachable): the event numbers of step k's calls in `variant`.

        `reachable` is the first one the step can be stopped right after: a long step
        records (and can be stopped in) only its last TRACED_TAIL frames, and finding
        where they start runs the step's head again (once; `reachable=False` skips it
        and gives `first`). Step 0, the set-up, happens before the lesson starts and
        cannot be stopped in (first > last).
        """
        self.run.reach(k, (variant,))          # and so its figures at the step before
        last = self.run.at(k).seq[variant]
        if k <= 0:
            return 1, 0, 1
        first = self.run.at(k - 1).seq[variant] + 1
        start = self._tail(k, variant)[1] if reachable and self.head_frames(k) else first
        return first, last, min(start, last)

    def at_call(self, k: int, variant: str, seq: int) -> Sim:
        """`variant` right after its call numbered `seq` in step k, before the next one.

        The step is run again from the snapshot before it (or from the start of its
        traced end) and stopped there (trace.Halt). The Sim returned is a picture of
        that moment, to be read only: running it on would finish half a step. At or
        past the step's last call it is the step's own snapshot.
        """
        first, last, reachable = self.call_range(k, variant)
        if k <= 0 or seq >= last:
            return self.run.at(k).sims[variant]
        seq = max(seq, first)
        if seq >= reachable:
            sim, rest = self._rerun(k, variant)
            parts = [rest]
        else:                   # in a long step's untraced head: run it again traced from its start
            sim = self.run.fresh(k - 1, variant)
            parts = self.parts(k, variant, sim)
        sim.rec.halt_at = seq + 1
        try:
            for part in parts:
                part()
        except Halt as h:
            h.undo(sim.rec)
        sim.rec.halt_at = 1 << 62
        return sim

    def moves_of(self, k: int, variant: str, obj: str) -> list[Event]:
        """Every event of step k in `variant` that moves `obj` (or names it), traced whole, in order.

        A long step is run again from its start with every event on, a chunk of
        frames at a time, keeping only this object's: the player's `o` follows a
        buffer across steps whose calls it does not otherwise record.
        """
        key = (k, variant, obj)
        got = self._moves.get(key)
        if got is None:
            got = []
            if k > 0:
                sim = self.run.fresh(k - 1, variant)
                first, last, _ = self.call_range(k, variant, reachable=False)
                sim.rec.keep(first, last)
                for part in self.parts(k, variant, sim):
                    part()
                    events = sim.rec.events
                    assert events is not None
                    got += [e for e in events if e.obj == obj or any(t.obj == obj for t in e.transitions)]
                    events.clear()
            if len(self._moves) >= 64:
                self._moves.pop(next(iter(self._moves)))
            self._moves[key] = got
        return got

    def parts(self, k: int, variant: str, sim: Sim, chunk: int = 2_000) -> list[Run]:
        """Step k on `sim` as a few calls run one after the other: frame by frame the same run."""
        step = self.run.lesson.steps[k - 1]
        run = step.run
        if run is None or run.kind == "teardown" or not self.head_frames(k):
            return [lambda: self.run._run_step(k - 1, {variant: sim})]
        if run.kind == "until" and variant == self.run.lead(step):
            goal = until_count(sim.rec, run) + run.count
            start, end = sim.processed, sim.processed + run.limit
            return [partial(run_until, sim, run, goal, min(end, start + i + chunk))
                    for i in range(0, run.limit, chunk)]
        frames = run.frames if run.kind == "frames" else self.run.note(k).frames
        return [partial(sim.run_frames, min(chunk, frames - i)) for i in range(0, frames, chunk)]

    def step_events(self, k: int, variant: str) -> list[Event]:
        """Every event of step k in `variant` from its first reachable call to its last, with transitions."""
        key = (k, variant)
        got = self._events.get(key)
        if got is None:
            first, last, reachable = self.call_range(k, variant)
            if k <= 0 or last < reachable:
                got = []
            else:
                sim, rest = self._rerun(k, variant)
                sim.rec.keep(reachable, last)
                rest()
                got = list(sim.rec.events or ())
            if len(self._events) >= 16:
                self._events.pop(next(iter(self._events)))
            self._events[key] = got
        return got

    def head_frames(self, k: int) -> int:
        """Frames at the start of step k that run without a trace (0: the step is traced whole)."""
        run = self.run.lesson.steps[k - 1].run
        if run is None or run.kind == "teardown":
            return 0
        frames = run.frames if run.kind == "frames" else self.run.note(k).frames
        return max(0, frames - TRACED_TAIL)

    def _tail(self, k: int, variant: str) -> tuple[Sim, int]:
        """The model where step k's traced end starts, and the number of its first event (kept, a few)."""
        key = (k, variant)
        got = self._tails.get(key)
        if got is None:
            sim = self.run.fresh(k - 1, variant)
            head = self.head_frames(k)
            step = self.run.lesson.steps[k - 1]
            if step.run is not None and step.run.kind == "until" and variant == self.run.lead(step):
                run = step.run
                goal = until_count(sim.rec, run) + run.count
                stop = sim.processed + head
                untraced(sim, lambda: run_until(sim, run, goal, stop))
            else:
                untraced(sim, lambda: sim.run_frames(head))
            got = (sim, sim.rec.seq + 1)
            if len(self._tails) >= 4:
                self._tails.pop(next(iter(self._tails)))
            self._tails[key] = got
        return got

    def _rerun(self, k: int, variant: str) -> tuple[Sim, Run]:
        """(a fresh copy of the model, what runs the rest of step k on it): from the start of the
        step, or from the start of its traced end when it has an untraced head."""
        if not self.head_frames(k):
            sim = self.run.fresh(k - 1, variant)
            return sim, lambda: self.run._run_step(k - 1, {variant: sim})
        base, _ = self._tail(k, variant)
        sim = clone(base)
        step = self.run.lesson.steps[k - 1]
        assert step.run is not None
        run = step.run
        if run.kind == "until" and variant == self.run.lead(step):
            start = self.run.at(k - 1)
            # `from` counts moves, which the snapshot's figures do not keep: read them off the model
            goal = (until_count(start.sims[variant].rec, run) if run.source
                    else start.cnt[variant][CALL_ID[run.call]]) + run.count
            stop = start.processed[variant] + run.limit
            return sim, lambda: run_until(sim, run, goal, stop)
        return sim, lambda: sim.run_frames(TRACED_TAIL)
