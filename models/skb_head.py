"""struct sk_buff itself (the "head", as the NAPI skb cache calls it): the metadata object.

It comes from the skbuff_cache slab or the per-CPU NAPI skb cache
(models/skb.py SkbHeads) and moves through the skb_head machine; the data it
points at is separate (models/rx_buffer.py).
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from .lifecycle import MACHINE, Stateful

M: Final = MACHINE["skb_head"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Head(Stateful):
    __slots__ = ("id",)

    def __init__(self, id: int) -> None:
        self.id = id
        self.st = 0            # "slab"

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.st)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.id, self.st = state

    @property
    def state(self) -> str:
        return M.states[self.st]

    def tag(self) -> str:
        return f"head#{self.id}"
