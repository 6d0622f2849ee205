"""The queue of steps a player asks for (go to step k, fast-forward, walk a call), drained by one worker
thread at a time. (Named for steps, not "moves": in the model a move is an object taking an edge of its
lifecycle machine.)

Key handlers only *request* steps ("goto" k, "seen" k, "ff" n, "call" …), so they return at
once and the UI stays responsive while a step computes. The worker takes the
requests in order; when a later goto is already queued it skips publishing the
one it just made, so a burst of PageDowns from a clicker lands on the last
step asked for.

When the queue is empty the worker computes ahead: the next LOOKAHEAD lesson
steps after the last one gone to, each handed to the UI as a ready frame.
After a jump (which runs only the variants it shows) that starts with what
the reader is likeliest to ask for next (Session.behind: the step before's
variant, then the other variants of the step on screen), then every step
the jump passed, in order. With nothing else to do, it runs the last
step's own variant (Session.ready_the_end): `End` is the likeliest jump,
and then only has to show it.
It first waits AHEAD_AFTER for the screen to repaint: Python runs one thread
at a time, and a model step running beside the repaint would double it.
A request arriving meanwhile is served as soon as the step being computed
is done (a step is the unit of work; there is no way to stop one half-way).

A model error (an illegal transition is a RuntimeError, like any bug) is
handed to the UI as such, with the step it happened in, and the drain stops:
the player says so in one line and stays usable, instead of waiting for a
frame that never comes. Only the error call_from_thread raises when the app
is shutting down is swallowed.

Everything here runs on the worker thread except `request`; the callbacks
are handed to the UI thread with `call` (App.call_from_thread).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from viz.session import Frame, Session, quiet

LOOKAHEAD = 1        # steps computed ahead of the reader; one step is read far slower than it computes
AHEAD_AFTER = 0.12   # seconds the worker waits before computing ahead: the repaint runs first, GIL to itself
POSITION = ("goto", "seen")


class _Shutdown(Exception):
    """call_from_thread found no running app: the drain ends quietly."""


class StepQueue:
    """Moves for one Session; `start` is called (on the UI thread) when a drain must begin."""

    # Compute ahead when idle. The UI tests turn it off (tests/ui/conftest.py) except where they
    # test it: their `settle` waits for an idle worker, and would otherwise wait, at every app, for
    # the lesson's end and every variant behind a jump to be run.
    ahead = True

    def __init__(self, session: Session, start: Callable[[], object]) -> None:
        self.session = session
        self._start = start
        self._ops: list[tuple[str, Any]] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()       # set by request(): ends the wait before computing ahead
        self.draining = False
        self._doing = ""                     # what the worker is at: "goto", "seen", "ff" or "ahead"

    def request(self, kind: str, n: Any = 0) -> None:
        """Queue a request. "goto" k: go to step k and publish its frame; "seen" k: the UI
        already shows step k's ready frame, so only compute ahead of it; "ff" n: fast-forward;
        "call" (step, variant, at, delta, follow): one kernel call on (Session.step_call);
        "fill" (step, variants, then): those variants run to that step (Session.fill), then `then()`
        on the UI thread.
        A goto or seen replaces one queued just before it (only the last position matters)."""
        with self._lock:
            if kind in POSITION and self._ops and self._ops[-1][0] in POSITION:
                self._ops[-1] = (kind, n)
            else:
                self._ops.append((kind, n))
            start, self.draining = not self.draining, True
        self._wake.set()
        if start:
            self._start()

    @property
    def busy(self) -> bool:
        with self._lock:
            return self.draining

    def drain(self, call: Callable[..., None], on_frame: Callable[[Frame], None],
              on_ready: Callable[[Frame], None], cancelled: Callable[[], bool],
              on_progress: Callable[[int, int], None] | None = None,
              on_error: Callable[[str, int, BaseException], None] | None = None,
              on_note: Callable[[str], None] | None = None) -> None:
        """Run queued requests, then compute ahead, until there is nothing left to do (worker thread).

        `call(fn, *args)` runs fn on the UI thread. `on_frame` gets the frame of
        a move asked for; `on_ready` every other clean step frame computed, on
        the way to a step or ahead of it, for the UI to show at once when asked.
        `on_progress(done, total)` hears how far a goto (in steps) or a
        fast-forward (in frames) has come; computing ahead reports nothing.
        `on_error(kind, step, exc)` hears of a model error (an illegal transition,
        a bug): the queue is dropped and draining stops, so the UI stays usable
        and can say what failed instead of waiting for a frame that never comes.
        `on_note(why)` hears why a "call" move went nowhere (the lesson's last call).
        """
        def ui(fn: Callable[..., None], *args: Any) -> None:
            try:
                call(fn, *args)
            except RuntimeError as exc:      # the app is shutting down: no loop to run on
                raise _Shutdown from exc

        def progress(done: int, total: int) -> None:
            if on_progress is not None:
                ui(on_progress, done, total)
        self._doing = "goto"
        try:
            self._run(ui, on_frame, on_ready, cancelled, progress, on_note)
        except _Shutdown:
            pass
        except Exception as exc:       # the model failed (an illegal transition, a bug): say so
            failed = self.session.step if self._doing == "ff" else self.session.computed + 1
            if on_error is not None:
                try:
                    call(on_error, self._doing, failed, exc)
                except RuntimeError:
                    pass
        with self._lock:       # cancelled, failed or shutting down: nothing drains any more
            self._ops.clear()
            self.draining = False

    def _run(self, call: Callable[..., None], on_frame: Callable[[Frame], None],  # noqa: C901 (older than the complexity rule)
             on_ready: Callable[[Frame], None], cancelled: Callable[[], bool],
             progress: Callable[[int, int], None], on_note: Callable[[str], None] | None = None) -> None:
        session = self.session

        def busy() -> bool:         # a request arrived (or the drain ends): computing ahead gives way
            return cancelled() or self._wake.is_set()
        while not cancelled():
            with self._lock:
                op = self._ops.pop(0) if self._ops else None
                if op is None and not self.ahead:
                    self.draining = False
                    return
                if op is None and session.computed >= min(len(session.lesson.steps),
                                                           session.step + LOOKAHEAD) and session.at_end_ready():
                    self.draining = False      # under the lock: a request now starts a new drain
                    return
                if op is None:
                    self._wake.clear()         # under the lock: a request from now on sets it
            if op is None:                     # nothing asked: compute the next step ahead
                self._doing = "ahead"
                if not self._wake.wait(AHEAD_AFTER):
                    todo = session.behind()
                    if todo is not None:
                        session.fill(*todo, cancelled=busy)
                    elif session.computed < min(len(session.lesson.steps), session.step + LOOKAHEAD):
                        call(on_ready, session.ahead())
                    else:
                        session.ready_the_end(cancelled=busy)
                continue
            kind, n = op
            self._doing = kind
            why = ""                     # a call move's word on what it passed over
            if kind == "fill":           # variants a jump did not run, then the UI's `then` on its thread
                step, names, then = n
                session.fill(step, names)
                call(then)
                continue
            if kind == "ff":
                frame = session.fast_forward(n, cancelled, progress)
            elif kind == "call":
                step, variant, at, delta, follow = n
                frame, why = session.step_call(step, variant, at, delta, follow, cancelled=cancelled)
                if frame is None:
                    if on_note is not None:
                        call(on_note, why)
                    continue
            else:
                known = session.computed
                # "seen": the UI shows that step's frame already; building it again would only
                # compete with the repaint for the GIL (Session.goto)
                frame = session.goto(n, cancelled, progress if kind == "goto" else quiet, frame=kind == "goto")
                for k in range(max(0, known + 1), min(n, session.computed + 1)):
                    call(on_ready, session.frame_at(k))
                if kind == "seen":
                    continue
            with self._lock:
                stale = any(k in POSITION or k == "call" for k, _ in self._ops)
            if frame is None or stale or cancelled():
                continue
            call(on_frame, frame)
            if why and on_note is not None:
                call(on_note, why)              # what the move passed over (a long step's untraced head)
