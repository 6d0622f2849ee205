"""`rxviz trace` output: one kernel call a line, within 80 columns, with set-up marked.

The model's own one-line form (`Event.line()`) is for logs and reaches
about 100 columns; here a call that does not fit is wrapped at a space,
its continuation indented under the call name, so the time and context
columns stay clean for `grep` and `less`.

The ring is filled while the interface comes up, before the simulation
clock starts, so those calls carry the set-up's own CPU time and the clock
starts again at 0 after them. A marker line says so at each end of the
set-up: without it the times seem to jump backwards.

A trace is streamed (`stream`): the model runs CHUNK frames at a time, the
events it recorded are taken out of its buffer and printed as they become
final, so `--frames 1000000` costs time, never memory. Events are printed in
time order, and the model makes them slightly out of it (the device stamps a
frame when it arrived, the reader has its own core); a heap holds the
latest WINDOW events back and prints the earliest first. The model's events
are never further out of order than about a thousand (measured on every
lesson's variants), so the window sorts them exactly; an event that came
later still would be printed where it came and counted (`Stream.late`),
never dropped or hidden.
"""

from __future__ import annotations

import heapq
import textwrap
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from models.sim import Sim
    from models.trace import Event, Violation

WIDTH = 80
CHUNK = 32               # frames the model runs between two looks at its event buffer
WINDOW = 50_000          # events held back to be printed in time order (about 15 MB at most)
BUFFER = 60_000          # the model's event buffer: the set-up (a 4096-descriptor ring fill) and a chunk, with room

SETUP = "# set-up before t=0: ifup fills the ring; times are the set-up's own CPU time"
START = "# t=0: the NIC starts receiving; times from here on are the simulation clock"


def event_line(e: Event) -> str:
    """One event, wrapped to WIDTH columns (continuation lines indented under the call)."""
    cost = f"{e.cost_ns:5.0f}ns" if e.cost_ns else ""
    head = f"{e.t_ns / 1000:10.3f}us {e.ctx:<7} {cost:>7} "
    what = e.call + (f" {e.obj}" if e.obj else "") + (f"  {e.detail}" if e.detail else "")
    indent = " " * (len(head) + 2)        # under the call name, a little in
    return textwrap.fill(what, width=WIDTH, initial_indent=head, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False, drop_whitespace=True)


def lines(events: Iterable[Event], setup_seq: int) -> Iterator[str]:
    """The trace, a line at a time; events with seq <= setup_seq happened during set-up, before t=0."""
    in_setup = False
    first = True
    for e in events:
        if e.seq <= setup_seq and not in_setup and first:
            yield SETUP
            in_setup = True
        elif e.seq > setup_seq and in_setup:
            yield START
            in_setup = False
        first = False
        yield event_line(e)


def render(events: Iterable[Event], setup_seq: int) -> str:
    """The whole trace as one text (tests; `rxviz trace` streams `lines`)."""
    return "\n".join(lines(events, setup_seq))


class Stream:
    """The events of `frames` frames of `sim` (made with trace=BUFFER), in time order, as they come.

    Iterate it once. Afterwards `late` counts events that came after WINDOW later ones had
    been printed (0 for every lesson) and `lost` those the model's buffer dropped (0 while a
    chunk makes fewer than BUFFER events).
    """

    def __init__(self, sim: Sim, frames: int, setup_seq: int) -> None:
        self.sim, self.frames, self.setup_seq = sim, frames, setup_seq
        self.late = 0
        self.lost = 0
        self._next_seq = 1

    def _take(self, heap: list[tuple[tuple[bool, int, int], Event]], final: bool) -> None:
        from models.trace import LOOKBACK
        rec = self.sim.rec
        events = rec.events
        # The last few stay in the model's buffer: a transition is attached to its call's event
        # up to LOOKBACK events later (Recorder.moved), so they are not final yet.
        newest = rec.seq if final else rec.seq - LOOKBACK
        while events and events[0].seq <= newest:
            e = events.popleft()
            if e.seq > self._next_seq:
                self.lost += e.seq - self._next_seq
            self._next_seq = e.seq + 1
            heapq.heappush(heap, ((e.seq > self.setup_seq, e.t_ns, e.seq), e))

    def __iter__(self) -> Iterator[Event]:
        heap: list[tuple[tuple[bool, int, int], Event]] = []
        last = None
        done = 0
        while True:
            step = min(CHUNK, self.frames - done)
            if step > 0:
                before = self.sim.processed
                self.sim.run_frames(step)
                done = done + step if self.sim.processed > before else self.frames   # stalled: no more
            final = done >= self.frames
            self._take(heap, final)
            while heap and (final or len(heap) > WINDOW):
                key, e = heapq.heappop(heap)
                if last is not None and key < last:
                    self.late += 1
                else:
                    last = key
                yield e
            if final:
                return


def event_json(e: Event, setup_seq: int) -> dict[str, Any]:
    """One event as `rxviz trace --json` prints it: the call and the transitions it caused."""
    return {
        "seq": e.seq, "t_ns": e.t_ns, "setup": e.seq <= setup_seq, "call": e.call, "ctx": e.ctx,
        "cost_ns": e.cost_ns, "category": e.category, "object": e.obj, "detail": e.detail,
        "transitions": [{"machine": t.machine, "object": t.obj, "from": t.src, "to": t.dst, "edge": t.call}
                        for t in e.transitions],
    }


def problems(title: str, items: Iterable[Violation]) -> list[str]:
    """A titled list of checker reports (violations or warnings), wrapped to WIDTH."""
    lines = [title]
    for v in items:
        lines.append(textwrap.fill(f"{v.t_ns / 1000:10.3f}us  {v.name}: {v.message}", width=WIDTH,
                                   subsequent_indent=" " * 14, break_long_words=False,
                                   break_on_hyphens=False))
    return lines
