"""A small cache keyed by object identity, for what views compute from a Sim at one moment.

A WeakKeyDictionary cannot hold the compiled model's objects (mypyc's native classes take no
weak references), and hashing a Sim would be wrong (two runs at the same moment are different
Sims). The player shows at most a pair of Sims at once (compare), so keeping the values of the
last few Sims by identity holds everything a paint reuses, and lets go of the rest.
"""

from __future__ import annotations

from typing import Generic, TypeVar

V = TypeVar("V")


class ByIdentity(Generic[V]):
    __slots__ = ("keep", "_items")

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self._items: list[tuple[object, V]] = []

    def get(self, obj: object) -> V | None:
        return next((v for o, v in self._items if o is obj), None)

    def put(self, obj: object, value: V) -> None:
        """Remember `value` for `obj`, the most recent first; the oldest beyond `keep` go."""
        self._items = [(obj, value)] + [(o, v) for o, v in self._items if o is not obj][: self.keep - 1]
