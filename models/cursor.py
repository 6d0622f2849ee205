"""The call the screen is at, and the one before it: the one cursor every view lights from.

A view that shows "what just changed" needs to know which of its cells the
current kernel call touched (lit) and which the call before it touched
(dimmed: one call ago). That is read here, once per moment of a variant,
from the events the model recorded: an event's own object and the objects
its transitions moved, in the names the model gives them (`buf#5`,
`page#21+2336`, `map#3`, `head#2`, `slot 256`, `desc 4`). Those names are
this package's own format, so they are read back here and nowhere else:
views get numbers (buffer, page, mapping and head ids, SWIOTLB slots,
descriptor indices) and the physical addresses of the data touched, never
an event's text.

Descriptors are found through the buffers they hold: a call that moves
`buf#5` lights the descriptor holding buf#5 now (or the one it named, for
the device's `rx_frame`). A buffer that has left the ring (in an skb, back
in its allocator) lights no descriptor, only its other cells.

Reading is cheap but not free (a scan of the ring: 4096 descriptors on
ath11k), so a cursor is kept per Sim and moment, like the machine data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .by_identity import ByIdentity

_NAME = re.compile(r"(buf|page|map|head|skb|pool|ack)#(\d+)(?:\+(\d+))?|(slot|desc) (\d+)")


@dataclass(frozen=True, slots=True)
class Move:
    """One object moving along an edge of its lifecycle machine (models.lifecycle), in one call."""
    machine: str
    obj: str            # in kernel words, as the machine view names it ("buf#5")
    src: str
    dst: str
    edge: str           # the edge's label: the kernel call (or named step, "post") the machine draws


@dataclass(frozen=True, slots=True)
class Touch:
    """One recorded kernel call and every cell of the model it touched."""
    seq: int            # the call's number in the variant's trace (Event.seq)
    t_ns: int
    call: str
    ctx: str
    obj: str            # the event's own object, in kernel words ("" when none)
    moves: tuple[Move, ...]
    bufs: frozenset[int]        # RX data areas (Buf.id)
    pages: frozenset[int]       # pages: page_pool or page-flip (Page.id)
    maps: frozenset[int]        # DMA mappings (Mapping.id)
    heads: frozenset[int]       # sk_buff heads (Head.id)
    slots: frozenset[int]       # SWIOTLB slots: the first slot of each run
    descs: frozenset[int]       # RX descriptors (ring indices)
    phys: tuple[int, ...]       # physical addresses of the data it touched, for the memory map

    @property
    def first(self) -> Move | None:
        """The first move the call made: the object the screen follows at this call."""
        return self.moves[0] if self.moves else None

    def names(self) -> frozenset[str]:
        """Every object it named or moved, in kernel words."""
        return frozenset({self.obj, *(m.obj for m in self.moves)} - {""})


@dataclass(frozen=True, slots=True)
class Cursor:
    """The call the variant is at (`now`) and the call before it (`before`); None before any call."""
    now: Touch | None
    before: Touch | None

    def level(self, kind: str, ident: int) -> int:
        """2: the current call touched this cell; 1: the call before did (dim); 0: neither.

        `kind` is one of the Touch sets: "bufs", "pages", "maps", "heads", "slots", "descs".
        """
        for touch, lvl in ((self.now, 2), (self.before, 1)):
            if touch is not None and ident in getattr(touch, kind):
                return lvl
        return 0


_CACHE: ByIdentity[tuple[tuple[int, int], Cursor]] = ByIdentity()      # the compare pair at most


def cursor_of(sim: Any) -> Cursor:
    """The cursor of one Sim at its current moment (cached until it moves)."""
    rec = sim.rec
    stamp = (rec.seq, len(rec.events or ()))
    got = _CACHE.get(sim)
    if got is not None and got[0] == stamp:
        return got[1]
    recent = rec.recent(2)
    where = _Where(sim)
    touches = [where.touch(ev) for ev in recent]
    cur = Cursor(touches[-1] if touches else None, touches[-2] if len(touches) > 1 else None)
    _CACHE.put(sim, (stamp, cur))
    return cur


def touch_of(sim: Any, event: Any) -> Touch:
    """One recorded event as a Touch of `sim` as it is now (the ring, the pool, the mappings)."""
    return _Where(sim).touch(event)


class _Where:
    """Where a Sim's objects sit now: buffers on the ring and in skbs, live mappings, pages."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self._ring: dict[int, int] | None = None      # buf id -> descriptor
        self._bufs: dict[int, Any] | None = None      # buf id -> Buf (on the ring or in an skb)
        self._skbs: dict[int, Any] = {}               # skb id -> the skb, while the stack holds it

    def _index(self) -> None:
        sim = self.sim
        ring: dict[int, int] = {}
        bufs: dict[int, Any] = {}
        if sim.bus == "pcie":
            r = sim.ring
            for i in range(r.size):
                b = r.buf(i)
                if b is not None:
                    ring.setdefault(b.id, i)
                    bufs.setdefault(b.id, b)
        st = sim.stack
        gro = st.gro
        skbs = [*(s for s in (gro.held,) if s is not None), *gro.rx_list, *st.sock.sockq, *st.reader.defer]
        for skb in skbs:
            self._skbs[skb.id] = skb
            for b in skb.buffers():          # its frag_list members' too
                bufs.setdefault(b.id, b)
        self._ring, self._bufs = ring, bufs

    def touch(self, ev: Any) -> Touch:  # noqa: C901 (older than the complexity rule)
        if self._ring is None:
            self._index()
        assert self._ring is not None and self._bufs is not None
        sim = self.sim
        found: dict[str, set[int]] = {k: set() for k in ("buf", "page", "map", "head", "slot", "desc")}
        for name in (ev.obj, *(t.obj for t in ev.transitions)):
            for m in _NAME.finditer(name or ""):
                kind, num = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(5))
                if kind in found:
                    found[kind].add(int(num))
                elif kind == "skb" and int(num) in self._skbs:     # an skb: its head and its data
                    skb = self._skbs[int(num)]
                    found["head"].add(skb.head.id)
                    found["buf"].add(skb.data.id)
        live = sim.dma.live
        phys: list[int] = []
        for mid in found["map"]:
            mp = live.get(mid)
            if mp is not None:
                phys.append(mp.phys)
                if mp.slot >= 0:
                    found["slot"].add(mp.slot)
        for bid in sorted(found["buf"]):
            b = self._bufs.get(bid)
            if b is not None:
                phys.append(b.phys)
                if b.map is not None:
                    found["map"].add(b.map.id)
                if b.page is not None:
                    found["page"].add(b.page.id)
                if b.head is not None:
                    found["head"].add(b.head.id)
            if bid in self._ring:
                found["desc"].add(self._ring[bid])
        pool = getattr(sim, "pool", None)
        if pool is not None:
            for pid in found["page"]:
                page = pool.pages.get(pid)
                if page is not None:
                    phys.append(page.phys)
        moves = tuple(Move(t.machine, t.obj, t.src, t.dst, t.call) for t in ev.transitions)
        return Touch(ev.seq, ev.t_ns, ev.call, ev.ctx, ev.obj or "", moves,
                     frozenset(found["buf"]), frozenset(found["page"]), frozenset(found["map"]),
                     frozenset(found["head"]), frozenset(found["slot"]), frozenset(found["desc"]),
                     tuple(dict.fromkeys(a for a in phys if a >= 0)))     # -1: data with no address (SDIO)
