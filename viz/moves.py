"""The queue of model moves a player asks for, drained by one worker thread at a time.

Key handlers only *request* moves ("goto" k, "ff" n, "frame"), so they
return at once and the UI stays responsive while a step computes. The
worker takes the moves in order; when a later goto is already queued it
skips publishing the one it just made (copying a frame nobody will see),
so a burst of PageDowns from a clicker lands on the last step asked for.

Everything here runs on the worker thread except `request`; the callbacks
are handed to the UI thread with `call` (App.call_from_thread).
"""

from __future__ import annotations

import threading
from typing import Callable

from viz.session import Frame, Session


class MoveQueue:
    """Moves for one Session; `start` is called (on the UI thread) when a drain must begin."""

    def __init__(self, session: Session, start: Callable[[], object],
                 variants: Callable[[str], tuple[str, ...]]) -> None:
        self.session = session
        self._start = start
        self._variants = variants            # shown variant -> variants to copy into the frame
        self._ops: list[tuple[str, int]] = []
        self._lock = threading.Lock()
        self.draining = False

    def request(self, kind: str, n: int = 0) -> None:
        """Queue a move; consecutive gotos collapse into the last one."""
        with self._lock:
            if kind == "goto" and self._ops and self._ops[-1][0] == "goto":
                self._ops[-1] = (kind, n)
            else:
                self._ops.append((kind, n))
            start, self.draining = not self.draining, True
        if start:
            self._start()

    @property
    def busy(self) -> bool:
        with self._lock:
            return self.draining

    def drain(self, call: Callable[..., None], on_busy: Callable[[str, int], None],
              on_frame: Callable[[Frame], None], cancelled: Callable[[], bool]) -> None:
        """Run queued moves until none is left (worker thread). `call(fn, *args)` runs fn on the UI thread."""
        try:
            while not cancelled():
                with self._lock:
                    if not self._ops:
                        self.draining = False      # under the lock: a request now starts a new drain
                        return
                    kind, n = self._ops.pop(0)
                call(on_busy, kind, n)
                if kind == "goto":
                    self.session.goto(n, cancelled)
                elif kind == "ff":
                    self.session.fast_forward(n, cancelled)
                with self._lock:
                    stale = any(k == "goto" for k, _ in self._ops)
                if stale or cancelled():
                    continue
                run = self.session.run
                frame = self.session.frame(self._variants(run.shown()) if run is not None else ())
                call(on_frame, frame)
        except RuntimeError:
            pass               # the app is shutting down: call_from_thread has no loop to run on
        with self._lock:       # cancelled or shutting down: nothing drains any more
            self._ops.clear()
            self.draining = False
