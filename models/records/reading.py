"""One variant of the model at one moment, as the views read it: every method returns plain records.

A view is handed a `Reading` (through its `ViewState`), never the `Sim`: it
asks for the records it draws (`ring()`, `memory()`, `pool()`, `napi()`,
`bus()`, `rx()` ...) and gets frozen dataclasses and tuples of numbers and
strings, nothing it could reach through into a part of the model. Each record
is built on first use and kept while the variant stays at the same moment: a
view is redrawn on every step, several views read the same records, and a
published frame's Sims never move again.

`reading_of(sim)` keeps the Readings of the last few Sims (the compare pair and
the frame prepared ahead), so every view of a frame shares one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..by_identity import ByIdentity
from ..cursor import Cursor, Touch, cursor_of, touch_of
from ..trace import Event
from . import objects
from .bus import BusRecord, bus_record
from .delivery import Napi, SkbCache, napi, skb_cache
from .machine import Call, PathFacts, RxData
from .memory import MemoryRecord, memory_record
from .path import path_facts
from .pool import Flip, PoolRecord, Strategy, flip, pool_record, strategy
from .ring import Descriptor, Queues, RingRecord, descriptor, queues, ring_record


def stamp(sim: Any) -> tuple[int, ...]:
    """What changes whenever the model moves (a Sim only changes by running)."""
    rec = sim.rec
    return (rec.seq, sim.processed, sim.now_ns, rec.t, rec.violations.total, sum(rec.counts.values()))


class Reading:
    """The read API of one Sim at one moment (see the module docstring)."""

    __slots__ = ("_sim", "_stamp", "_kept")

    def __init__(self, sim: Any) -> None:
        self._sim = sim
        self._stamp = stamp(sim)
        self._kept: dict[object, Any] = {}

    def current(self) -> bool:
        """The Sim is still at the moment this Reading was made (tests run a Sim on under a view)."""
        return stamp(self._sim) == self._stamp

    def _get(self, key: object, make: Any) -> Any:
        got = self._kept.get(key, self)
        if got is self:
            got = self._kept[key] = make()
        return got

    # -- the scenario ----------------------------------------------------------------------
    @property
    def bus_name(self) -> str:
        """"pcie" (a descriptor ring), "sdio" or "usb"."""
        return str(self._sim.bus)

    def params(self) -> Mapping[str, Any]:
        """The variant's scenario parameters by their documented names (plain values)."""
        got: Mapping[str, Any] = self._get("params", lambda: self._sim.params)
        return got

    def strategy(self) -> Strategy:
        got: Strategy = self._get("strategy", lambda: strategy(self._sim))
        return got

    # -- the figures -----------------------------------------------------------------------
    def counts(self) -> Mapping[str, int]:
        """Every kernel call and statistic counted so far, by name (0 for one never made)."""
        got: Mapping[str, int] = self._sim.rec.counts
        return got

    def counters(self) -> dict[str, int]:
        """The counters `rxviz run --json` prints: the documented ones first, then every other call made."""
        got: dict[str, int] = self._get("counters", self._sim.rec.counters)
        return got

    def metrics(self) -> dict[str, Any]:
        got: dict[str, Any] = self._get("metrics", self._sim.metrics)
        return got

    @property
    def frames(self) -> int:
        return int(self._sim.frames)

    @property
    def processed(self) -> int:
        return int(self._sim.processed)

    @property
    def dropped(self) -> int:
        return int(self._sim.dropped)

    @property
    def now_ns(self) -> int:
        return int(self._sim.now_ns)

    # -- what this step did ------------------------------------------------------------------
    def traced(self) -> bool:
        """The variant keeps a trace buffer (the event log has something to show)."""
        return self._sim.rec.events is not None

    def events(self) -> Sequence[Event]:
        """The trace buffer: the latest calls, oldest first (plain tuples)."""
        got: Sequence[Event] = self._get("events", lambda: tuple(self._sim.rec.events or ()))
        return got

    def recent(self, n: int) -> Sequence[Event]:
        events = self.events()
        return events[-n:] if n > 0 else ()

    @property
    def setup_seq(self) -> int:
        """Events numbered up to this one are the set-up's, before t=0."""
        return int(self._sim.setup_seq)

    def cursor(self) -> Cursor:
        return cursor_of(self._sim)

    def touch(self, event: Event) -> Touch:
        return touch_of(self._sim, event)

    # -- what each part holds now ---------------------------------------------------------------
    def ring(self) -> RingRecord | None:
        """The descriptor ring (None on SDIO and USB: see `queues`)."""
        if self._sim.bus != "pcie":
            return None
        got: RingRecord = self._get("ring", lambda: ring_record(self._sim))
        return got

    def descriptor(self, i: int) -> Descriptor:
        got: Descriptor = self._get(("desc", i), lambda: descriptor(self._sim, i))
        return got

    def queues(self) -> Queues:
        got: Queues = self._get("queues", lambda: queues(self._sim))
        return got

    def memory(self) -> MemoryRecord:
        got: MemoryRecord = self._get("memory", lambda: memory_record(self._sim))
        return got

    def pool(self) -> PoolRecord | None:
        got: PoolRecord | None = self._get("pool", lambda: pool_record(self._sim))
        return got

    def flip(self) -> Flip:
        got: Flip = self._get("flip", lambda: flip(self._sim))
        return got

    def skb_cache(self) -> SkbCache:
        got: SkbCache = self._get("skbcache", lambda: skb_cache(self._sim))
        return got

    def napi(self) -> Napi:
        got: Napi = self._get("napi", lambda: napi(self._sim))
        return got

    def bus(self) -> BusRecord:
        got: BusRecord = self._get("bus", lambda: bus_record(self._sim))
        return got

    # -- the followed object, its machine, the RX path ---------------------------------------------
    def rx(self, follow: str | None = None, machine: str | None = None, earlier: tuple[Event, ...] = ()) -> RxData:
        """The machine, passport and path records: `follow` an object (default: the one the last calls
        touched); `machine` the one to draw (default: the followed object's, else the variant's RX
        buffers'); `earlier`: the followed object's events from before the trace buffer, which the
        player finds by running earlier steps again."""
        key = ("rx", follow, machine, len(earlier), earlier[-1].seq if earlier else 0)
        got: RxData = self._get(key, lambda: objects.build(self._sim, follow, machine, earlier))
        return got

    def path(self) -> tuple[Call | None, PathFacts]:
        """What the RX path strip reads: the call the screen is at and the scenario's path facts, without
        indexing every object the model holds (tens of ms on a ring of thousands of buffers)."""
        got: tuple[Call | None, PathFacts] = self._get(
            "path", lambda: (objects.last_call(self._sim), path_facts(self._sim)))
        return got


# The Readings of the latest Sims (models/by_identity.py says why not a WeakKeyDictionary): the compare
# pair, and the pair a frame prepared ahead shows next.
_READINGS: ByIdentity[Reading] = ByIdentity(4)


def reading_of(sim: Any) -> Reading:
    """The Reading of `sim` at its current moment (the same one while it does not move)."""
    got = _READINGS.get(sim)
    if got is None or not got.current():
        got = Reading(sim)
        _READINGS.put(sim, got)
    return got
