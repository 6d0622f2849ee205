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


def _index(sim: Any) -> dict[str, _Obj]:
    """Every object the model holds now, by its name in kernel words."""
    out: dict[str, _Obj] = {}

    def add_buf(buf: Any, where: str) -> None:
        if buf is None:
            return
        if buf.machine:
            name = f"page#{buf.page.id}+{buf.offset}" if buf.machine == "pp_frag" else f"buf#{buf.id}"
            out.setdefault(name, _Obj(name, buf.machine, buf, where))
            out.setdefault(f"buf#{buf.id}", out[name])
        page = buf.page
        if page is not None and getattr(page, "machine", "") == "flip_page":
            out.setdefault(f"page#{page.id}", _Obj(f"page#{page.id}", "flip_page", page, where))
        if buf.head is not None:
            add_head(buf.head, f"with buf#{buf.id}")

    def add_head(head: Any, where: str) -> None:
        out.setdefault(f"head#{head.id}", _Obj(f"head#{head.id}", "skb_head", head, where))

    def add_skb(skb: Any, where: str) -> None:
        out.setdefault(f"skb#{skb.id}", _Obj(f"skb#{skb.id}", "", skb, where))
        add_head(skb.head, f"skb#{skb.id} {where}")
        for buf in skb.buffers():
            add_buf(buf, f"in skb#{skb.id}, {where}")
        for m in skb.frag_list:
            add_head(m.head, f"on skb#{skb.id}'s frag_list, {where}")

    if sim.bus == "pcie":
        ring = sim.ring
        for i in range(ring.size):
            add_buf(ring.buf(i), f"at desc {i}")
    st = sim.stack
    gro = st.gro
    if gro.held is not None:
        add_skb(gro.held, "held by GRO")
    for skb in gro.rx_list:
        add_skb(skb, "on napi->rx_list")
    for skb in st.sock.sockq:
        add_skb(skb, "in the socket queue")
    for skb in st.reader.defer:
        add_skb(skb, "on the defer list")
    for e in st.tx.ring:
        if e.buf is not None:
            add_buf(e.buf, "on the TX ring (XDP_TX)")
    if sim.pool is not None:
        pool = sim.pool
        cache, ring = {id(p) for p in pool.cache}, {id(p) for p in pool.ring[pool.ring_head:]}
        for page in pool.pages.values():
            where = ("the pool's frag_page" if page is pool.frag_page else "in the alloc cache" if id(page) in cache
                     else "in the ptr_ring" if id(page) in ring else "")
            out.setdefault(f"page#{page.id}", _Obj(f"page#{page.id}", "pp_page", page, where))
    heads = sim.heads
    for h in heads.cache:
        add_head(h, "in the NAPI skb cache")
    for h in heads.slab[-256:]:
        add_head(h, "free in skbuff_cache")
    for m in sim.dma.live.values():
        out.setdefault(f"map#{m.id}", _Obj(f"map#{m.id}", "", m, "live"))
    for m in sim.dma.live.values():
        if m.run is not None:
            out.setdefault(m.run.label, _Obj(m.run.label, "swiotlb_slot", m.run, f"bounce buffer of map#{m.id}"))
        if m.iova is not None:
            out.setdefault(m.iova.label, _Obj(m.iova.label, "iova", m.iova, f"maps map#{m.id}"))
    for iova in sim.dma.fq:
        out.setdefault(iova.label, _Obj(iova.label, "iova", iova, "in the IOMMU flush queue"))
    for e in st.tx.ring:
        if e.obj is not None:
            out.setdefault(e.obj.label, _Obj(e.obj.label, "tx_buffer", e.obj, "on the TX ring"))
    out["napi"] = _Obj("napi", "napi", sim.napi, "")
    out["rx tasklet"] = _Obj("rx tasklet", "tasklet", sim.tasklet, "")
    held = gro.held
    out["flow"] = _Obj("flow", "gro_flow", gro,
                       f"{held.segs} segment(s) held in skb#{held.id}" if held else "")
    return out


def _owner_of(index: dict[str, _Obj], name: str, machine: str) -> _Obj | None:
    """The object of `machine` an event's name stands for (a mapping stands for what it maps)."""
    o = index.get(name)
    if o is None:
        return None
    if o.machine == machine:
        return o
    if o.name.startswith("map#"):
        for other in index.values():
            ref = other.ref
            if other.machine == machine and getattr(ref, "map", None) is o.ref:
                return other
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


def _gone(sim: Any, name: str, earlier: tuple[Event, ...] = ()) -> _Obj | None:
    """A followed object the model no longer holds (a buffer freed): known by its last transition."""
    for ev in reversed((*earlier, *(sim.rec.events or ()))):
        if ev.seq > sim.rec.seq:
            continue
        for t in reversed(ev.transitions):
            if t.obj == name:
                freed = t.dst in ("free", "returned", "buddy", "slab")
                return _Obj(name, t.machine, None, "freed" if freed else "in the driver's hands")
    return None


def _counts(sim: Any, machine: str) -> dict[tuple[str, str, str], int]:
    """Transitions per edge for the whole run (the model counts every move, traced or not)."""
    return edge_counts(sim.rec.moves, machine)


def _population(sim: Any, index: dict[str, _Obj], machine: str) -> dict[str, int]:
    if machine == "swiotlb_slot":
        sw = sim.swiotlb
        return {"free": sw.nslabs - sw.used_slots, "mapped": sw.used_slots} if sw is not None else {}
    if machine == "skb_head":
        heads = sim.heads
        return {"slab": len(heads.slab), "napi-cache": len(heads.cache), "in-use": heads.in_use}
    seen: set[int] = set()
    pop: Counter[str] = Counter()
    for o in index.values():
        if o.machine == machine and id(o.ref) not in seen and o.state:
            seen.add(id(o.ref))
            pop[o.state] += 1
    return dict(pop)


def _follow(sim: Any, index: dict[str, _Obj], machine: str, follow: str | None) -> _Obj | None:
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


def _by_cursor(sim: Any, index: dict[str, _Obj]) -> _Obj | None:
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
            return _Obj(t.obj, t.machine, None, "in the driver's hands" if t.machine in _STRATEGY_MACHINE.values()
                        or t.machine == "pp_frag" else "")
    return None


def build(sim: Any, follow: str | None, machine: str | None, earlier: tuple[Event, ...] = ()) -> RxData:
    index = _index(sim)
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
