"""The machine records (models/records/machine.py) built from the model's own objects and the
transitions it records. Exact.

- Current states: each object's own `state` (the ring's buffers, the pool's
  pages, skb heads, SWIOTLB slot runs and IOVA ranges of live mappings, TX
  buffers on the TX ring, the NAPI instance, the tasklet, the GRO flow).
- Per-edge counts: the run's transition counts (`Recorder.moves`), counted on
  every move whether the run is traced or not.
- A history: the transitions the trace buffer's events carry for the object
  (the last few hundred calls), oldest first.
- The object, when none is followed: the one the current call moved (the
  cursor, models.cursor), in its own machine; a call that moves nothing
  keeps the object the latest call before it moved, and says how many
  calls ago that was. With a machine asked for, the newest object to move
  in it; failing that, the one the driver touches next.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from ..cursor import cursor_of
from ..lifecycle import MACHINES, edge_counts
from ..trace import Event
from .machine import Call, MachineState, RxData, Transition
from .passport import passport_of
from .path import path_facts

_STRATEGY_MACHINE = {"per-frame": "rx_buffer", "page-flip": "flip_page", "page-pool": "pp_page"}


def default_machine(sim: Any) -> str:
    if sim.bus == "pcie" and sim.strategy is not None:
        return _STRATEGY_MACHINE.get(sim.strategy.name, "rx_buffer")
    return "gro_flow" if sim.napi_api and sim.sc.gro else "napi"


class _Obj:
    __slots__ = ("name", "machine", "ref", "where")

    def __init__(self, name: str, machine: str, ref: Any, where: str) -> None:
        self.name, self.machine, self.ref, self.where = name, machine, ref, where

    @property
    def state(self) -> str | None:
        return getattr(self.ref, "state", None)


# A walk's filter: (kind, object) -> taken? The kind is where the walk met the object: "buf" (an RX
# buffer or fragment), "page" (a flip page or a pool page), "head", "skb", "map", "slot" (SWIOTLB
# slots), "iova", "tx" (a TX buffer). None takes everything.
Want = Callable[[str, Any], bool] | None
Entry = tuple[str, str, Any, Callable[[], str]]          # kind, machine, the object, where it is (formatted late)
ALL_KINDS = frozenset(("buf", "page", "head", "skb", "map", "slot", "iova", "tx"))
_BUF_KINDS = frozenset(("buf", "page", "head"))
_SKB_KINDS = _BUF_KINDS | {"skb"}
_DMA_KINDS = frozenset(("slot", "iova"))
_FIXED = {"napi": "napi", "rx tasklet": "tasklet", "flow": "gro_flow"}      # name: machine


def _walk(sim: Any, kinds: frozenset[str], want: Want) -> Iterator[Entry]:  # noqa: C901 (older than the complexity rule)
    """Every object of `kinds` the model holds that `want` takes, in the order that decides the
    place an object is said to be in (the first it is met in): the ring, GRO, rx_list, the socket,
    the defer list, the TX ring, the pool, the NAPI cache and the slab, the DMA mappings."""

    def takes(kind: str, ref: Any) -> bool:
        return ref is not None and kind in kinds and (want is None or want(kind, ref))

    def buf_(buf: Any, where: Callable[[], str]) -> Iterator[Entry]:
        machine = buf.machine
        if machine and takes("buf", buf):
            yield "buf", machine, buf, where
        page = buf.page
        if page is not None and getattr(page, "machine", "") == "flip_page" and takes("page", page):
            yield "page", "flip_page", page, where
        if takes("head", buf.head):
            yield "head", "skb_head", buf.head, lambda: f"with buf#{buf.id}"

    def skb_(skb: Any, where: str) -> Iterator[Entry]:
        if takes("skb", skb):
            yield "skb", "", skb, lambda: where
        if takes("head", skb.head):
            yield "head", "skb_head", skb.head, lambda: f"skb#{skb.id} {where}"
        if kinds & _BUF_KINDS:
            for buf in skb.buffers():
                yield from buf_(buf, lambda: f"in skb#{skb.id}, {where}")
        for m in skb.frag_list:
            if takes("head", m.head):
                yield "head", "skb_head", m.head, lambda: f"on skb#{skb.id}'s frag_list, {where}"

    st = sim.stack
    if sim.bus == "pcie" and kinds & _BUF_KINDS:
        ring = sim.ring
        for i in range(ring.size):
            buf = ring.buf(i)
            # the cheap test first: a ring of 4096 buffers is walked for each name looked up
            if buf is not None and (takes("buf", buf) or takes("page", buf.page) or takes("head", buf.head)):
                yield from buf_(buf, _later("at desc {}", i))
    if kinds & _SKB_KINDS:
        gro = st.gro
        if gro.held is not None:
            yield from skb_(gro.held, "held by GRO")
        for skb in gro.rx_list:
            yield from skb_(skb, "on napi->rx_list")
        for skb in st.sock.sockq:
            yield from skb_(skb, "in the socket queue")
        for skb in st.reader.defer:
            yield from skb_(skb, "on the defer list")
    if kinds & _BUF_KINDS:
        for e in st.tx.ring:
            if e.buf is not None:
                yield from buf_(e.buf, lambda: "on the TX ring (XDP_TX)")
    pool = sim.pool
    if pool is not None and "page" in kinds:
        held: list[set[int]] = []         # the ids in the alloc cache and in the ptr_ring, once a page is named
        for page in pool.pages.values():
            if takes("page", page):
                yield "page", "pp_page", page, partial(_in_pool, pool, page, held)
    if "head" in kinds:
        heads = sim.heads
        for h in heads.cache:
            if takes("head", h):
                yield "head", "skb_head", h, lambda: "in the NAPI skb cache"
        for h in heads.slab[-256:]:
            if takes("head", h):
                yield "head", "skb_head", h, lambda: "free in skbuff_cache"
    live = sim.dma.live.values()
    if "map" in kinds:
        for m in live:
            if takes("map", m):
                yield "map", "", m, lambda: "live"
    if kinds & _DMA_KINDS:
        for m in live:
            if takes("slot", m.run):
                yield "slot", "swiotlb_slot", m.run, _later("bounce buffer of map#{}", m.id)
            if takes("iova", m.iova):
                yield "iova", "iova", m.iova, _later("maps map#{}", m.id)
    if "iova" in kinds:
        for iova in sim.dma.fq:
            if takes("iova", iova):
                yield "iova", "iova", iova, lambda: "in the IOMMU flush queue"
    if "tx" in kinds:
        for e in st.tx.ring:
            if takes("tx", e.obj):
                yield "tx", "tx_buffer", e.obj, lambda: "on the TX ring"


def _later(fmt: str, *args: Any) -> Callable[[], str]:
    """A place formatted only if the object is named (a loop's variables bound now)."""
    return lambda: fmt.format(*args)


def _in_pool(pool: Any, page: Any, held: list[set[int]]) -> str:
    if not held:
        held += [{id(p) for p in pool.cache}, {id(p) for p in pool.ring[pool.ring_head:]}]
    return ("the pool's frag_page" if page is pool.frag_page else "in the alloc cache" if id(page) in held[0]
            else "in the ptr_ring" if id(page) in held[1] else "")


def _named(kind: str, machine: str, ref: Any, where: Callable[[], str]) -> tuple[str, str, _Obj]:
    """(name, alias, object): an object's name in kernel words, and a second name it answers to, or ""."""
    alias = ""
    if kind == "buf":
        if machine == "pp_frag":
            name, alias = f"page#{ref.page.id}+{ref.offset}", f"buf#{ref.id}"
        else:
            name = f"buf#{ref.id}"
    elif kind in ("slot", "iova", "tx"):
        name = ref.label
    else:
        name = f"{kind}#{ref.id}"
    return name, alias, _Obj(name, machine, ref, where())


def _fixed(sim: Any, name: str) -> _Obj:
    if name == "napi":
        return _Obj("napi", "napi", sim.napi, "")
    if name == "rx tasklet":
        return _Obj("rx tasklet", "tasklet", sim.tasklet, "")
    gro = sim.stack.gro
    held = gro.held
    return _Obj("flow", "gro_flow", gro, f"{held.segs} segment(s) held in skb#{held.id}" if held else "")


def _wanted(name: str) -> tuple[frozenset[str], Want]:
    """The kinds of object a name can stand for, and a test that picks its object by id, unnamed."""
    kind, _, rest = name.partition("#")
    if kind in ("buf", "head", "skb", "map") and rest.isdigit():
        n = int(rest)
        return frozenset((kind,)), lambda k, ref: ref.id == n
    if kind == "page":
        page, plus, off = rest.partition("+")
        if page.isdigit() and not plus:
            p = int(page)
            return frozenset(("page",)), lambda k, ref: ref.id == p
        if page.isdigit() and off.isdigit():          # a page_pool fragment: page#<page>+<offset>
            p, o = int(page), int(off)
            return frozenset(("buf",)), lambda k, ref: ref.page is not None and ref.page.id == p and ref.offset == o
    return frozenset(("slot", "iova", "tx")), lambda k, ref: ref.label == name      # "slot 12", "iova 0x…", "ack#3"


LOOKUPS = 8            # names found by a walk of their own; past that the whole index is built once


class _Index:
    """Every object the model holds now, by its name in kernel words, found as it is asked for.

    Naming every object (a ring of 4096 buffers, their mappings and bounce slots) cost tens of
    milliseconds a step, and a step shows one object and one machine's population. A name is
    found by a walk of the places its kind of object can be, comparing ids; a population is
    counted by a walk of the machine's objects, unnamed. What needs every object (`values`), or a
    run of lookups, builds the whole index once, from the same walk: the same names, the same places.
    """

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self._all: dict[str, _Obj] | None = None
        self._found: dict[str, _Obj | None] = {}
        self._extra: dict[str, _Obj] = {}

    def _build(self) -> dict[str, _Obj]:
        if self._all is None:
            out: dict[str, _Obj] = {}
            for entry in _walk(self.sim, ALL_KINDS, None):
                name, alias, obj = _named(*entry)
                o = out.setdefault(name, obj)
                if alias:
                    out.setdefault(alias, o)
            for name in _FIXED:
                out[name] = _fixed(self.sim, name)
            self._all = out
        return self._all

    def get(self, name: str) -> _Obj | None:
        o = self._extra.get(name)
        if o is not None:
            return o
        if self._all is not None:
            return self._all.get(name)
        if name in self._found:
            return self._found[name]
        if len(self._found) >= LOOKUPS:
            return self._build().get(name)
        self._found[name] = o = self._find(name)
        return o

    def _find(self, name: str) -> _Obj | None:
        if name in _FIXED:
            return _fixed(self.sim, name)
        kinds, want = _wanted(name)
        for entry in _walk(self.sim, kinds, want):
            key, alias, obj = _named(*entry)
            if key == name or alias == name:
                return obj
        return None

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __getitem__(self, name: str) -> _Obj:
        o = self.get(name)
        if o is None:
            raise KeyError(name)
        return o

    def __setitem__(self, name: str, o: _Obj) -> None:
        self._extra[name] = o

    def first(self, machine: str, want: Callable[[Any], bool]) -> _Obj | None:
        """The first object of `machine` (in the walk's order) that `want` takes."""
        for kind, m, ref, where in _walk(self.sim, ALL_KINDS, lambda k, ref: want(ref)):
            if m == machine:
                return _named(kind, m, ref, where)[2]
        return None

    def population(self, machine: str) -> dict[str, int]:
        """Objects of `machine` in each state, counted without naming them."""
        if machine in _FIXED.values():
            refs: Iterable[Any] = [_fixed(self.sim, next(n for n, m in _FIXED.items() if m == machine)).ref]
        else:
            kinds = _POPULATION_KINDS.get(machine, ALL_KINDS)
            refs = (ref for _, m, ref, _ in _walk(self.sim, kinds, None) if m == machine)
        seen: set[int] = set()
        pop: Counter[str] = Counter()
        for ref in refs:
            state = getattr(ref, "state", None)
            if id(ref) not in seen and state:
                seen.add(id(ref))
                pop[state] += 1
        return dict(pop)


# Where a machine's objects can be met (the SWIOTLB slots and skb heads are counted by their owners).
_POPULATION_KINDS = {"rx_buffer": frozenset(("buf",)), "pp_frag": frozenset(("buf",)),
                     "flip_page": frozenset(("page",)), "pp_page": frozenset(("page",)),
                     "iova": frozenset(("iova",)), "tx_buffer": frozenset(("tx",))}


def _owner_of(index: _Index, name: str, machine: str) -> _Obj | None:
    """The object of `machine` an event's name stands for (a mapping stands for what it maps)."""
    o = index.get(name)
    if o is None:
        return None
    if o.machine == machine:
        return o
    if o.name.startswith("map#"):
        target = o.ref
        found = index.first(machine, lambda ref: getattr(ref, "map", None) is target)
        if found is not None:
            return found
    if o.name.startswith("skb#") and machine in ("rx_buffer", "pp_frag", "flip_page"):
        buf = o.ref.data
        return index.get(f"buf#{buf.id}") if buf.machine == machine else (
            index.get(f"page#{buf.page.id}") if buf.page is not None and machine == "flip_page" else None)
    if o.name.startswith("buf#") and machine == "pp_page" and getattr(o.ref, "page", None) is not None:
        return index.get(f"page#{o.ref.page.id}")
    return None


def _aliases(o: _Obj) -> set[str]:
    ref = o.ref
    names = {o.name}
    if getattr(ref, "map", None) is not None:
        names.add(f"map#{ref.map.id}")
    if o.machine in ("rx_buffer", "pp_frag") and ref is not None:
        names.add(f"buf#{ref.id}")
    if o.machine == "gro_flow":
        names = {"flow"}
    return names


def _history(sim: Any, o: _Obj, earlier: tuple[Event, ...] = ()) -> list[Transition]:
    """The object's transitions as the model recorded them, oldest first: `earlier` events (the
    player's search of earlier steps for a followed object), then the trace buffer's."""
    machine = o.machine
    aliases = _aliases(o)
    out = []
    seen = set()
    for ev in (*earlier, *(sim.rec.events or ())):
        if ev.seq in seen or ev.seq > sim.rec.seq:
            continue
        seen.add(ev.seq)
        for t in ev.transitions:
            if t.machine == machine and t.obj in aliases:
                out.append(Transition(ev.seq, ev.t_ns, t.call, machine, o.name, t.src, t.dst))
    return out


def _unheld(state: str) -> str:
    """Where an object no part of the model holds is, by the state its last move left it in: back
    with its allocator, or between alloc and post in the driver's hands."""
    return "freed" if state in ("free", "returned", "buddy", "slab") else "in the driver's hands"


def _gone(sim: Any, name: str, earlier: tuple[Event, ...] = ()) -> _Obj | None:
    """A followed object the model no longer holds (a buffer freed): known by its last transition."""
    for ev in reversed((*earlier, *(sim.rec.events or ()))):
        if ev.seq > sim.rec.seq:
            continue
        for t in reversed(ev.transitions):
            if t.obj == name:
                return _Obj(name, t.machine, None, _unheld(t.dst))
    return None


def _counts(sim: Any, machine: str) -> dict[tuple[str, str, str], int]:
    """Transitions per edge for the whole run (the model counts every move, traced or not)."""
    return edge_counts(sim.rec.moves, machine)


def _population(sim: Any, index: _Index, machine: str) -> dict[str, int]:
    if machine == "swiotlb_slot":
        sw = sim.swiotlb
        return {"free": sw.nslabs - sw.used_slots, "mapped": sw.used_slots} if sw is not None else {}
    if machine == "skb_head":
        heads = sim.heads
        return {"slab": len(heads.slab), "napi-cache": len(heads.cache), "in-use": heads.in_use}
    return index.population(machine)


def _follow(sim: Any, index: _Index, machine: str, follow: str | None) -> _Obj | None:
    if follow is not None:
        o = index.get(follow)
        return _owner_of(index, follow, machine) if o is not None and o.machine != machine else o
    for ev in reversed(list(sim.rec.events or ())):
        for t in reversed(ev.transitions):
            if t.machine == machine and t.obj in index:
                return index[t.obj]
    if machine in ("napi", "tasklet", "gro_flow"):
        return index[{"napi": "napi", "tasklet": "rx tasklet", "gro_flow": "flow"}[machine]]
    if machine == "pp_page" and sim.pool is not None and sim.pool.frag_page is not None:
        return index.get(f"page#{sim.pool.frag_page.id}")
    if sim.bus == "pcie":
        buf = sim.ring.buf(sim.ring.clean_idx)
        if buf is not None:
            return _owner_of(index, f"buf#{buf.id}", machine)
    return None


LOOKBACK = 64          # calls searched back for the latest move when the current call moves nothing


def _by_cursor(sim: Any, index: _Index) -> _Obj | None:
    """The object the current call moved; if it moved none, the latest call before it that did."""
    now = cursor_of(sim).now
    events = sim.rec.events or ()
    for k, ev in enumerate(reversed(events)):
        if k >= LOOKBACK or (now is not None and ev.seq > now.seq):
            break
        for t in ev.transitions:
            if t.machine not in MACHINES:
                continue
            o = index.get(t.obj)
            if o is not None and o.machine == t.machine:
                return o
            # held by nobody the index knows (a buffer in the driver's hands between alloc and post)
            driver = t.machine in _STRATEGY_MACHINE.values() or t.machine == "pp_frag"
            return _Obj(t.obj, t.machine, None, _unheld(t.dst) if driver else "")
    return None


def build(sim: Any, follow: str | None, machine: str | None, earlier: tuple[Event, ...] = ()) -> RxData:
    index = _Index(sim)
    if follow and follow not in index:
        gone = _gone(sim, follow, earlier)
        if gone is not None:
            index[follow] = gone
    o = None
    if machine is None and not follow:
        o = _by_cursor(sim, index)
        if o is not None:
            machine = o.machine
    if machine is None:
        picked = index.get(follow) if follow else None
        machine = picked.machine if picked is not None and picked.machine in MACHINES else default_machine(sim)
    if o is None:
        o = _follow(sim, index, machine, follow)
    history = _history(sim, o, earlier) if o is not None else []
    state = o.state if o is not None else None
    if o is not None and state is None and history:
        state = history[-1].dst
    last = history[-1] if history and history[-1].dst == state else None
    now = cursor_of(sim).now
    age = 0 if last is None or now is None else sum(1 for ev in (sim.rec.events or ()) if last.seq < ev.seq <= now.seq)
    ms = MachineState(machine, o.name if o else None, o.where if o else "", state, last, _counts(sim, machine),
                      True, _population(sim, index, machine), age, now.call if now is not None else "")
    return RxData(last_call(sim), path_facts(sim), ms, passport_of(sim, o, state, history) if o is not None else None)


def last_call(sim: Any) -> Call | None:
    recent = sim.rec.recent(1)
    if not recent:
        return None
    ev = recent[-1]
    return Call(ev.seq, ev.t_ns, ev.call, ev.ctx, ev.obj, ev.detail)
