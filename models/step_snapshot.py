"""A lesson step's stored state: each variant's model frozen to bytes, and the few figures read without it.

A step's snapshot fills in a variant at a time. The player's jump (`End`, a step
picked on the map) runs the variant shown on its own and freezes it where it
lands; every step it passes on the way keeps only that variant's figures (its
event number, call counters, SWIOTLB's bounced bytes and frames), which is all a later step reads of the
step before. The other variants, and the frozen copies of the steps passed,
are filled in afterwards, behind the reader (models.replay). A variant's
snapshot is the same whichever way it was made: each variant is a model of its
own, and only the lead of an `until` step decides something for the others
(how many frames the step runs), which its note carries.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from .sim import Sim
from .snapshot import freeze, thaw
from .trace import Counts


@dataclass
class StepNote:
    """What happened when a step ran (for `rxviz check` and the status line)."""
    step: int
    frames: int
    reached: bool = True
    at: int = 0             # `until` steps: the number of the event the lead ran until (0: none)


class Snapshot:
    """The model after one lesson step: the variants frozen so far, each thawed once when first read."""
    __slots__ = ("names", "blobs", "notes", "seq", "cnt", "bounce", "processed", "sims")

    def __init__(self, names: list[str], notes: list[StepNote]) -> None:
        self.names = names                   # the lesson's variants, in its order
        self.notes = notes                   # every step's note up to this one
        self.blobs: dict[str, bytes] = {}
        self.seq: dict[str, int] = {}        # events numbered so far
        self.cnt: dict[str, list[int]] = {}  # call counters, by id
        self.bounce: dict[str, int] = {}     # bytes SWIOTLB copied: a counter, but no call's
        self.processed: dict[str, int] = {}
        self.sims = Thawed(self)

    def record(self, name: str, sim: Sim, keep: bool) -> None:
        """`sim` is variant `name` after this step: its figures, and (`keep`) its frozen copy."""
        if name not in self.seq:
            self.seq[name] = sim.rec.seq
            self.cnt[name] = list(sim.rec.cnt)
            self.bounce[name] = sim.rec.bounce_bytes
            self.processed[name] = sim.processed
        if keep and name not in self.blobs:
            self.blobs[name] = freeze(sim)

    def counts(self, name: str) -> Counts:
        """Variant `name`'s counters after this step, by name: what a step's "+N" is counted from."""
        return Counts(self.cnt[name], self.bounce[name])

    @property
    def full(self) -> bool:
        """Every variant is frozen here."""
        return len(self.blobs) == len(self.names)

    def fresh(self, variant: str) -> Sim:
        """A new copy of one variant, to run on."""
        sim: Sim = thaw(self.blobs[variant])
        return sim


class Thawed(Mapping[str, Sim]):
    """A snapshot's frozen variants by name, each thawed the first time it is read and kept, shared.

    The player shows one variant (two in compare): the others of a step it jumped to are
    never thawed. `replace` gives the same variants with one read as another Sim (a step
    stopped mid-way), sharing what is thawed. Variants frozen later (filled in behind the
    reader) appear in it then; it lists them in the lesson's order whatever order they came in.
    """
    __slots__ = ("_snap", "_got", "_over")

    def __init__(self, snap: Snapshot, got: dict[str, Sim] | None = None,
                 over: dict[str, Sim] | None = None) -> None:
        self._snap = snap
        self._got: dict[str, Sim] = {} if got is None else got
        self._over: dict[str, Sim] = over or {}

    def __getitem__(self, name: str) -> Sim:
        sim = self._over.get(name) or self._got.get(name)
        if sim is None:
            # setdefault: when two threads thaw the same variant at once, both get the one kept
            sim = self._got.setdefault(name, self._snap.fresh(name))
        return sim

    def thaw(self, names: Iterable[str]) -> bool:
        """Thaw these variants now (the caller's thread); True if any was not thawed yet."""
        new = [name for name in names if name in self._snap.blobs and name not in self._got]
        for name in new:
            self[name]
        return bool(new)

    def __iter__(self) -> Iterator[str]:
        blobs = self._snap.blobs
        return iter([name for name in self._snap.names if name in blobs])

    def __len__(self) -> int:
        return len(self._snap.blobs)

    def __contains__(self, name: object) -> bool:
        return name in self._snap.blobs

    def replace(self, name: str, sim: Sim) -> Thawed:
        return Thawed(self._snap, self._got, {**self._over, name: sim})
