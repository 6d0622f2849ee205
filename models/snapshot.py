"""Copies of the model's state that are exact and cheap: a round trip through pickle.

A Sim is plain Python objects (slotted records, lists, deques, an event heap
of bound methods), so pickle reproduces it exactly, object sharing included,
and the lifecycle tables are shared by reference (Machine.__reduce__). It is
three to four times faster than copy.deepcopy on these graphs, more with the
cyclic collector held off while the copy is built: a copy allocates tens of
thousands of objects at once, which would trigger full collections that
find nothing to free.

The records a model holds by the thousand (buffers, pages, mappings, skbs)
give pickle one tuple of their slots (`__getstate__`), about twice as fast
as its default for slotted objects; the ring is a few arrays, not a record
per descriptor.

A copy is two halves: `freeze` (to bytes) and `thaw` (back). A lesson's
step snapshots are kept frozen and thawed when read, so running ahead
several steps (a jump, `End`) pays only the first half at each step, and a
re-run from a snapshot only the second.
"""

from __future__ import annotations

import gc
import pickle
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


def freeze(obj: object) -> bytes:
    """obj as bytes, for `thaw` to rebuild: half a copy's cost, and a tenth of its memory."""
    with _no_collector():
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def thaw(blob: bytes) -> Any:
    """A new, independent object graph from `freeze`'s bytes."""
    with _no_collector():
        return pickle.loads(blob)


def clone(obj: T) -> T:
    """An independent copy of obj (a Sim, or a dict of them): running it gives what running obj would."""
    with _no_collector():
        copy: T = pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
        return copy


_collector_lock = threading.Lock()
_collector_off = 0              # copies in progress, in any thread
_collector_was_on = False


@contextmanager
def _no_collector() -> Iterator[None]:
    """The cyclic collector off while a copy is made, back as it was when the last copy ends.

    Counted under a lock: the player's worker and its UI thread may both be copying, and
    a thread that found the collector off because of the other must not leave it off.
    """
    global _collector_off, _collector_was_on
    with _collector_lock:
        if _collector_off == 0:
            _collector_was_on = gc.isenabled()
            gc.disable()
        _collector_off += 1
    try:
        yield
    finally:
        with _collector_lock:
            _collector_off -= 1
            if _collector_off == 0 and _collector_was_on:
                gc.enable()
