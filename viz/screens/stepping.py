"""Stepping one kernel call at a time: `]`, `[`, `o` and play by call. Mixed into `PlayerScreen`.

`]` and `[` ask the worker for the moment right after the next or previous
kernel call (viz.session.Session.step_call, models.call_cursor): the step is
run again and stopped there, so every view shows that moment, and the status
line counts the call within the step. Crossing a step's end is the same key.
`o` follows the object the current call moved (a buffer, page, slot, head):
`]` and `[` then jump to its next and previous move across steps, the
machine view comes to the front and the passport keeps the history the
search found. After either, space plays one call every CALL_SECONDS.

A question holds against `]`: until it is answered (or → reveals it),
stepping into the step's calls would show the answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from viz.screens.player_host import PlayerHost
from viz.session import object_of
from viz.widgets.deck import ViewDeck
from viz.widgets.status import StatusLine

if TYPE_CHECKING:
    from models.trace import Event

CALL_SECONDS = 0.6          # play's interval at 1x, one kernel call at a time


class CallStepping(PlayerHost):
    """The host is the player: a Screen with `frame`, `seen`, `waiting`, `holding()` and `_request()`."""

    def start_stepping(self) -> None:
        self.call_pending = False                # a "call" move is computing: its frame is the next to show
        self.call_mode = False                   # ] or [ was used: space plays call by call
        self.follow: str | None = None           # `o`: the object ] and [ walk ("buf#5")
        self.trail: tuple[Event, ...] = ()       # its events the worker found in earlier steps

    def _on_note(self, why: str) -> None:
        """A call move found nowhere to go: stay, and say why."""
        self.call_pending = False
        self.query_one(StatusLine).busy = ""
        if self.playing:
            self._set_playing(False)
        self.notify(why, timeout=4, markup=False)

    def action_call(self, delta: int) -> None:
        """] / [: one kernel call forward or back (the followed object's next or previous move)."""
        frame = self.frame
        if frame is None or self.waiting:
            return                      # the previous move is still computing: keys do not pile up
        if frame.extra:
            self.notify("stepping by call works on the lesson's steps: → or ← leaves the fast-forward", timeout=3)
            return
        if self.holding():
            spec = self.lesson.steps[frame.step - 1]
            n = len(spec.ask.choices) if spec.ask else 0
            # Once a step: the status line says it too, and a toast per press would pile up over the views.
            if getattr(self, "_hold_told", None) != frame.step:
                self._hold_told = frame.step
                self.notify(f"answer first (1–{n}), or → to see what happened", timeout=3)
            return
        variant = self.variant or frame.shown
        at = frame.sims[variant].rec.seq          # the call the shown variant is at
        self.call_mode = True
        self.call_pending = True
        self._request("call", (frame.step, variant, at, delta, self.follow))

    def align_call(self) -> None:
        """Compare mode came on at a call: the same call again, its partner stopped at the same moment
        (viz.same_moment) rather than at the step's end."""
        frame = self.frame
        if frame is None or frame.cursor is None or frame.landing or frame.extra or self.holding():
            return
        variant = self.variant or frame.shown
        self.call_pending = True
        self._request("call", (frame.step, variant, frame.sims[variant].rec.seq, 0, None))

    def action_follow(self) -> None:
        """o: follow the object the current call moved (o again: stop following)."""
        self.trail = ()
        if self.follow is not None:
            self.follow = None
            self.notify("following nothing: ] and [ move one call", timeout=2)
        else:
            seen = self.seen
            sim = seen.sims.get(seen.shown) if seen is not None else None
            recent = sim.rec.recent(1) if sim is not None else []
            obj = object_of(recent[-1] if recent else None)
            if obj is None:
                self.notify("this call moves no object: step to one with ] first", timeout=3)
                return
            self.follow = obj
            self.call_mode = True
            self.notify(f"following {obj}: ] and [ go to its next and previous move", timeout=3, markup=False)
        if self.frame is not None:
            self.query_one(ViewDeck).tabbed = False     # the followed object's machine comes to the front
            self._show(self.frame)

